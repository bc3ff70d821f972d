//! The generated programs that found bugs (`weft fuzz-diff --save`), kept
//! as conformance cases in `tests/fuzz_regressions/<fuzz_seed>/` with the
//! reference interpreter's outputs as the expected ones: each runs on every
//! device this build and machine have and must match by the conformance
//! rule (a device that cannot open says `SKIP`; a typed `Unsupported` is a
//! failure here, as none of these programs is unsupported).
//!
//! * `fuzz_59`: an SoA-hinted array stored into inside a `while` loop
//!   failed the `soa` pass (the frontend carried the array through the
//!   loop).
//! * `fuzz_1047`: `normalize` of a `quatd`, one ulp off on Vulkan (float64
//!   `sqrt` was only faithfully rounded). Its reduction array `r13` was
//!   `uint16`, whose atomics Warp rejects (and so does Weft now): it is
//!   `uint32`, its values unchanged.
//! * `fuzz_1623`: a float64 matrix product with entries near the largest
//!   double, NaN on Vulkan where the others give inf (the float64 `fma`
//!   emulation's fallback added inf and -inf).
//! * `fuzz_3368`: a float32 matrix product with a constant matrix, an ulp
//!   off on Vulkan (constants were written as their shortest float
//!   decimal, another value in the double arithmetic of the float `fma`).

mod common;

use std::path::Path;
use weft::Compiler;
use weft_cli::conform;

fn run_on(name: &str) {
    let Some(device) = common::device(name) else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let cases = conform::find_cases(&dir).expect("regression cases");
    assert!(!cases.is_empty(), "no case in {}", dir.display());
    let mut failures = Vec::new();
    for c in &cases {
        let r = conform::run_and_check(c, &device, &Compiler::new());
        if let Some(line) = r.line() {
            failures.push(line);
        }
    }
    assert!(failures.is_empty(), "on {name}:\n{}", failures.join("\n"));
}

#[test]
fn regressions_interp() {
    run_on("interp");
}

#[test]
fn regressions_cpu() {
    run_on("cpu");
}

#[test]
fn regressions_llvm_cpu() {
    run_on("llvm-cpu");
}

#[test]
fn regressions_vulkan() {
    run_on("vulkan");
}
