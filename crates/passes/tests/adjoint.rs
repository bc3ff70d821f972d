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

/// Loops not in the frontend's forms (found by the `ir_passes` fuzz
/// target on inlined IR): the pass says `Unsupported` for each, in both
/// loop modes, instead of overflowing or building IR that does not verify.
#[test]
fn loops_not_in_the_frontends_form_are_unsupported() {
    // More results than carried values; and a result whose type is not
    // its carried value's.
    let more_results = "kernel @k(v0 \"a\": array1<f32>) {
  v1: i32 = thread_id
  v2: f32 = const 1.0
  v3: f32, v4: f32 = loop {
    break v2, v2
  }
  store v0[v1], v3
  return
}
";
    let other_type = "struct %Hit { t: f32, id: i32 }

kernel @k(v0 \"a\": array1<f32>, v1 \"n\": i32) {
  v2: i32 = thread_id
  v3: i32 = const 0
  v4: f32 = load v0[v2]
  v5: %Hit = make v4, v3
  v6: %Hit = loop (v7 \"i\": i32 = v3) {
    v8: bool = lt v7, v1
    if v8 {
      yield
    } else {
      break v5
    }
    v9: i32 = const 1
    v10: i32 = add v7, v9
    continue v10
  }
  v11: f32 = extract v6.0
  store v0[v2], v11
  return
}
";
    for text in [more_results, other_type] {
        let m = weft_ir::text::parse_module(text).expect("parses");
        weft_ir::verify::verify_module(&m).expect("verifies");
        for exact_loops in [None, Some(2)] {
            let opts = AdjointOptions {
                exact_loops,
                ..Default::default()
            };
            match adjoint_module(&m, &opts) {
                Err(weft_passes::adjoint::AdjointError::Unsupported { what, .. }) => {
                    assert!(what.contains("loop"), "{what}")
                }
                other => panic!("expected Unsupported, got {other:?}"),
            }
        }
    }
}
