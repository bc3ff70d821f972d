//! Every conformance kernel emits HLSL that glslang compiles to SPIR-V and
//! `spirv-val` accepts — except the documented `Unsupported` ones
//! (docs/hlsl.md) — as compiled by default, with bounds checks (a trap
//! record exactly when the kernel has a check) and with every fast-math
//! flag. Skips, saying so, when the tools are absent.

mod common;

use common::Variant;
use weft_backend_hlsl::{
    compile_spirv, find_glslang, find_spirv_val, validate_spirv, Error, Options,
};

/// The kernels HLSL cannot express, as listed in docs/hlsl.md.
const UNSUPPORTED: &[&str] = &["math_float64"];

#[test]
fn every_kernel_compiles_and_validates() {
    let Some(cases) = common::case_names() else {
        return;
    };
    let tools = find_glslang().is_some() && find_spirv_val().is_some();
    if !tools {
        weft_testkit::skip("glslangValidator or spirv-val not found: emitting only");
    }
    let only = std::env::var("WEFT_HLSL_CASE").ok();
    let mut failures = Vec::new();
    let mut unsupported = Vec::new();
    let mut ok = 0;
    let variants = [
        Variant::Plain,
        Variant::Checked,
        Variant::Fast(weft_ir::MathFlags::ALL),
    ];
    for (variant, case) in variants.iter().flat_map(|&v| {
        cases
            .iter()
            .filter(|c| only.as_ref().is_none_or(|o| o == *c))
            .map(move |c| (v, c))
    }) {
        let art = match common::emit_case_variant(case, variant, &Options::default()) {
            Err(e) => {
                failures.push(format!("{case}: front end: {e}"));
                continue;
            }
            Ok(Err(Error::Unsupported { what, pos })) => {
                assert!(pos.line > 0, "{case}: Unsupported without a location");
                println!("{case}: unsupported: {what} (line {})", pos.line);
                if variant == Variant::Plain {
                    unsupported.push(case.clone());
                }
                continue;
            }
            Ok(Err(e)) => {
                failures.push(format!("{case}: {e}"));
                continue;
            }
            Ok(Ok(a)) => a,
        };
        // Only checked code has the trap record, bound after the arrays.
        let has_checks =
            variant == Variant::Checked && art.source.contains(".Store(20u, weft_tid)");
        match &art.bindings.trap {
            Some(t) if has_checks => {
                assert_eq!(t.register as usize, art.bindings.arrays.len(), "{case}");
                assert_eq!(t.binding, t.register + 1, "{case}");
                assert!(art.has_trap_record());
            }
            None if !has_checks => assert!(!art.source.contains("weft_trap"), "{case}"),
            _ => failures.push(format!(
                "{case} ({variant:?}): trap record {:?} but checks: {has_checks}",
                art.bindings.trap
            )),
        }
        if tools {
            match compile_spirv(&art).and_then(|spv| validate_spirv(&spv)) {
                Ok(()) => ok += 1,
                Err(e) => failures.push(format!("{case} ({variant:?}): {e}\n{}", art.source)),
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
