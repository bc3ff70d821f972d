//! Snapshot checks: a text against its checked-in expectation.

use std::path::Path;

/// Compares `actual` with the file at `path`; with `WEFT_BLESS=1` writes
/// `actual` there instead. `Err` holds a message with a line diff (or says
/// the snapshot is missing), for the test to report.
pub fn check(path: &Path, actual: &str) -> Result<(), String> {
    if crate::bless() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        return std::fs::write(path, actual).map_err(|e| format!("{}: {e}", path.display()));
    }
    let expected = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: {e} (run with WEFT_BLESS=1 to write it)",
            path.display()
        )
    })?;
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "{} differs (WEFT_BLESS=1 rewrites it):\n{}",
        path.display(),
        diff(&expected, actual)
    ))
}

/// A line diff of `expected` → `actual`: `-`/`+` lines around the first
/// difference and a count of the others, enough to see what changed.
pub fn diff(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let first = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let (mut ee, mut aa) = (e.len(), a.len());
    while ee > first && aa > first && e[ee - 1] == a[aa - 1] {
        ee -= 1;
        aa -= 1;
    }
    let mut out = format!("@@ line {} @@\n", first + 1);
    const SHOWN: usize = 40;
    for l in e[first..ee].iter().take(SHOWN) {
        out.push_str(&format!("-{l}\n"));
    }
    for l in a[first..aa].iter().take(SHOWN) {
        out.push_str(&format!("+{l}\n"));
    }
    let hidden = (ee - first).saturating_sub(SHOWN) + (aa - first).saturating_sub(SHOWN);
    if hidden > 0 {
        out.push_str(&format!("... {hidden} more changed lines\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_shows_the_changed_lines_only() {
        let d = diff("a\nb\nc\nd\n", "a\nB\nc\nd\n");
        assert_eq!(d, "@@ line 2 @@\n-b\n+B\n");
        let d = diff("a\n", "a\nb\n");
        assert_eq!(d, "@@ line 2 @@\n+b\n");
    }

    #[test]
    fn a_missing_snapshot_says_how_to_make_it() {
        if crate::bless() {
            return;
        }
        let e = check(Path::new("/nonexistent/weft/snap.txt"), "x").unwrap_err();
        assert!(e.contains("WEFT_BLESS=1"), "{e}");
    }
}
