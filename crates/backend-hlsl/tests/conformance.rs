//! Every conformance kernel emits HLSL that glslang compiles to SPIR-V and
//! `spirv-val` accepts — except the documented `Unsupported` ones
//! (docs/hlsl.md). Skips, saying so, when the tools are absent.

mod common;

use weft_backend_hlsl::{
    compile_spirv, find_glslang, find_spirv_val, validate_spirv, HlslError, HlslOptions,
};

/// The kernels HLSL cannot express, as listed in docs/hlsl.md.
const UNSUPPORTED: &[&str] = &["atomic_bitwise_and_wide", "math_float64"];

#[test]
fn every_kernel_compiles_and_validates() {
    let cases = common::case_names();
    if cases.is_empty() {
        println!(
            "SKIP: no conformance corpus at {}",
            common::corpus_dir().display()
        );
        return;
    }
    let tools = find_glslang().is_some() && find_spirv_val().is_some();
    if !tools {
        println!("SKIP: glslangValidator or spirv-val not found: emitting only");
    }
    let only = std::env::var("WEFT_HLSL_CASE").ok();
    let mut failures = Vec::new();
    let mut unsupported = Vec::new();
    let mut ok = 0;
    for case in cases
        .iter()
        .filter(|c| only.as_ref().is_none_or(|o| o == *c))
    {
        let art = match common::emit_case(case, &HlslOptions::default()) {
            Err(e) => {
                failures.push(format!("{case}: front end: {e}"));
                continue;
            }
            Ok(Err(HlslError::Unsupported { what, loc, .. })) => {
                assert!(!loc.is_none(), "{case}: Unsupported without a location");
                println!("{case}: unsupported: {what} (line {})", loc.line);
                unsupported.push(case.clone());
                continue;
            }
            Ok(Err(e)) => {
                failures.push(format!("{case}: {e}"));
                continue;
            }
            Ok(Ok(a)) => a,
        };
        if tools {
            match compile_spirv(&art).and_then(|spv| validate_spirv(&spv)) {
                Ok(()) => ok += 1,
                Err(e) => failures.push(format!("{case}: {e}\n{}", art.source)),
            }
        } else {
            ok += 1;
        }
    }
    println!(
        "{ok} kernels {}, {} unsupported",
        if tools { "validated" } else { "emitted" },
        unsupported.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    if only.is_none() {
        assert_eq!(
            unsupported, UNSUPPORTED,
            "the Unsupported list differs from docs/hlsl.md"
        );
    }
}
