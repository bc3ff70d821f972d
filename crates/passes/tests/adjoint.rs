//! The adjoint pass on the gradient corpus: every case's backward module
//! builds, verifies, and survives the O2 pipeline.

use weft_passes::adjoint::{adjoint_module, AdjointOptions};
use weft_passes::{run_pipeline, PipelineOptions, VerifyMode};

#[test]
fn every_gradient_case_has_a_verified_backward_module() {
    let cases = weft_testkit::corpus::grad_cases();
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(case.join("kernel.py")).expect("reads kernel.py");
        let m = match weft_frontend::compile_for_backward("kernel.py", &src) {
            Ok(m) => m,
            Err(d) => {
                failures.push(format!("{name}: frontend: {}", d.render(false)));
                continue;
            }
        };
        let mut bwd = match adjoint_module(&m, &AdjointOptions::default()) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let opts = PipelineOptions {
            verify: VerifyMode::Always,
            ..Default::default()
        };
        if let Err(e) = run_pipeline(&mut bwd, &opts) {
            failures.push(format!("{name}: pipeline: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
