//! Compiles every kernel of the conformance corpus and verifies the IR.
//!
//! The corpus is found by `weft_testkit::corpus` (`$WEFT_CONFORMANCE_DIR`,
//! else `shared/conformance` beside an ancestor of the workspace); the test
//! prints a counted `SKIP` when it is missing (a failure with
//! `WEFT_REQUIRE_CORPUS=1`).

#[test]
fn corpus_compiles_and_verifies() {
    let Some(cases) = weft_testkit::corpus::kernels() else {
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
