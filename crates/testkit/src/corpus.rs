//! The conformance corpus: kernels, inputs and the outputs real Warp 1.19
//! produced, in `cases/` (forward) and `grad/` (gradients).

use std::path::PathBuf;

/// Where the corpus should be: `$WEFT_CONFORMANCE_DIR`, else the first
/// `shared/conformance` beside an ancestor of the workspace.
pub fn dir() -> PathBuf {
    if let Some(d) = std::env::var_os("WEFT_CONFORMANCE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .map(|p| p.join("shared/conformance"))
        .find(|p| p.join("cases").is_dir())
        .unwrap_or_else(|| here.join("../../../shared/conformance"))
}

/// Whether `WEFT_REQUIRE_CORPUS=1`: a missing corpus is a failure.
pub fn required() -> bool {
    std::env::var_os("WEFT_REQUIRE_CORPUS").is_some_and(|v| v == "1")
}

/// The corpus directory if it has `cases/`. Otherwise `None` after a
/// counted [`crate::skip`] — or, with `WEFT_REQUIRE_CORPUS=1`, a panic
/// (the test fails: CI must not pass without its data).
pub fn find() -> Option<PathBuf> {
    let d = dir();
    if d.join("cases").is_dir() {
        return Some(d);
    }
    missing(&format!(
        "conformance corpus not found at {} (set WEFT_CONFORMANCE_DIR)",
        d.display()
    ));
    None
}

/// Case `name` of `cases/` (its folder), with [`find`]'s rules for a
/// missing corpus; a corpus without that case is always a failure.
pub fn case(name: &str) -> Option<PathBuf> {
    let c = find()?.join("cases").join(name);
    assert!(
        c.is_dir(),
        "the corpus has no case `{name}` ({})",
        c.display()
    );
    Some(c)
}

/// Every case folder of `cases/`, sorted (empty after [`find`]'s skip).
pub fn cases() -> Vec<PathBuf> {
    cases_in("cases")
}

/// Every gradient case folder of `grad/cases/`, sorted (empty after
/// [`find`]'s skip). A corpus without `grad/` is a failure.
pub fn grad_cases() -> Vec<PathBuf> {
    let out = cases_in("grad/cases");
    if let (Some(d), true) = (find_quiet(), out.is_empty()) {
        panic!(
            "the corpus at {} has no gradient cases (grad/cases)",
            d.display()
        );
    }
    out
}

fn find_quiet() -> Option<PathBuf> {
    let d = dir();
    d.join("cases").is_dir().then_some(d)
}

fn cases_in(sub: &str) -> Vec<PathBuf> {
    let Some(d) = find() else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = std::fs::read_dir(d.join(sub))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.join("case.json").is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Every case's name and `kernel.py` text, sorted by name; `None` after
/// [`find`]'s counted skip when the corpus is missing. A corpus without
/// cases, or a case whose `kernel.py` does not read, is a failure.
pub fn kernels() -> Option<Vec<(String, String)>> {
    let dir = find()?;
    let out: Vec<(String, String)> = cases()
        .into_iter()
        .map(|case| {
            let p = case.join("kernel.py");
            let src =
                std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            (name, src)
        })
        .collect();
    assert!(!out.is_empty(), "no case under {}", dir.display());
    Some(out)
}

/// Data a test needs is missing: a failure with `WEFT_REQUIRE_CORPUS=1`,
/// else a counted skip.
pub fn missing(why: &str) {
    if required() {
        panic!("{why} (WEFT_REQUIRE_CORPUS=1: missing data is a failure)");
    }
    crate::skip(why);
}
