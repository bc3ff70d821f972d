//! Compiles every kernel of the conformance corpus and verifies the IR.
//!
//! The corpus is `$WEFT_CONFORMANCE_DIR`, by default `../shared/conformance`
//! relative to the workspace root; the test prints a skip line when it is
//! missing.

use std::path::PathBuf;

fn corpus_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("WEFT_CONFORMANCE_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance"),
    };
    dir.join("cases").is_dir().then_some(dir)
}

fn kernels() -> Option<Vec<(String, String)>> {
    let dir = corpus_dir()?;
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir.join("cases"))
        .ok()?
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let src = std::fs::read_to_string(e.path().join("kernel.py")).ok()?;
        out.push((e.file_name().to_string_lossy().into_owned(), src));
    }
    Some(out)
}

#[test]
fn corpus_compiles_and_verifies() {
    let Some(cases) = kernels() else {
        println!("SKIP corpus: conformance corpus not found (set WEFT_CONFORMANCE_DIR)");
        return;
    };
    let mut failures = Vec::new();
    for (name, src) in &cases {
        match weft_frontend::compile("kernel.py", src) {
            Ok(m) => {
                if let Err(e) = weft_ir::verify::verify_module(&m) {
                    failures.push(format!("{name}: verifier: {e}"));
                }
                if m.kernels().count() == 0 {
                    failures.push(format!("{name}: no kernels"));
                }
            }
            Err(d) => failures.push(format!("{name}:\n{}", d.render(false))),
        }
    }
    println!(
        "corpus: {} of {} compile and verify",
        cases.len() - failures.len(),
        cases.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
