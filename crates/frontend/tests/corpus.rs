//! Compiles every kernel of the conformance corpus and verifies the IR.
//!
//! The corpus is found by `weft_testkit::corpus` (`$WEFT_CONFORMANCE_DIR`,
//! else `shared/conformance` beside an ancestor of the workspace); the test
//! prints a counted `SKIP` when it is missing (a failure with
//! `WEFT_REQUIRE_CORPUS=1`).

/// Every case's name and `kernel.py`, sorted by name; `None` after the
/// testkit's skip when the corpus is missing.
fn kernels() -> Option<Vec<(String, String)>> {
    let dir = weft_testkit::corpus::find()?;
    let out: Vec<(String, String)> = weft_testkit::corpus::cases()
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

#[test]
fn corpus_compiles_and_verifies() {
    let Some(cases) = kernels() else {
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
