//! Snapshot tests of diagnostics: every `tests/diagnostics/*.py` must fail to
//! compile, and its rendered diagnostics (plain, `render(false)`) must equal
//! the `.stderr` file beside it. `WEFT_BLESS=1` rewrites the snapshots.

use std::path::{Path, PathBuf};

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/diagnostics exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    v.sort();
    v
}

#[test]
fn diagnostics_snapshots() {
    let cases = cases();
    assert!(
        cases.len() >= 30,
        "expected at least 30 cases, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for py in &cases {
        let src = std::fs::read_to_string(py).expect("readable case");
        let file = py
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let rendered = match weft_frontend::compile(&file, &src) {
            Ok(_) => {
                failures.push(format!("{file}: compiled without errors"));
                continue;
            }
            Err(d) => {
                assert!(!d.items.is_empty(), "{file}: error without diagnostics");
                d.render(false)
            }
        };
        let snap = py.with_extension("stderr");
        if let Err(e) = weft_testkit::snapshot::check(&snap, &rendered) {
            failures.push(format!("{file}: {e}\n--- actual\n{rendered}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\n(run with WEFT_BLESS=1 to rewrite the snapshots)",
        failures.join("\n\n")
    );
}
