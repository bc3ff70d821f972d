//! Snapshot tests of the emitted HLSL: `tests/snapshots/<case>.hlsl`.
//! `WEFT_BLESS=1 cargo test -p weft-backend-hlsl --test snapshots` rewrites
//! them. Each snapshot is also compiled and validated when the tools exist.

mod common;

use common::Variant;
use std::path::PathBuf;
use weft_backend_hlsl::{compile_spirv, find_glslang, find_spirv_val, validate_spirv, Options};
use weft_ir::MathFlags;

const CASES: &[(&str, Variant)] = &[
    ("seed_double_kernel", Variant::Plain),
    ("seed_nbody_step", Variant::Plain),
    ("atomic_histogram_int", Variant::Plain),
    // 64-bit atomics: word by word (int64 add) and under the lock table.
    ("atomic_bitwise_and_wide", Variant::Plain),
    ("struct_array_rw", Variant::Plain),
    ("dims_stencil_3d", Variant::Plain),
    // Bounds-checked mode: the trap record and its writes.
    ("seed_nbody_step", Variant::Checked),
    // Fast math as `--fast-math` sets it (contract, afn), and every flag.
    ("seed_nbody_step", Variant::Fast(FAST)),
    ("math_exp_log", Variant::Fast(FAST)),
    ("math_inverse_trig", Variant::Fast(FAST)),
    ("math_special_values", Variant::Fast(FAST)),
    ("math_exp_log", Variant::Fast(MathFlags::ALL)),
    ("math_minmax_interp", Variant::Fast(MathFlags::ALL)),
];

const FAST: MathFlags = MathFlags::CONTRACT.union(MathFlags::APPROX_FUNC);

/// `<case>.hlsl`, `<case>.checked.hlsl`, `<case>.fast.hlsl` (contract,
/// afn) or `<case>.fast-all.hlsl` (every flag).
fn snapshot_path(case: &str, variant: Variant) -> PathBuf {
    let suffix = match variant {
        Variant::Plain => "",
        Variant::Checked => ".checked",
        Variant::Fast(f) if f == FAST => ".fast",
        Variant::Fast(_) => ".fast-all",
    };
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{case}{suffix}.hlsl"))
}

#[test]
fn emitted_hlsl_matches_snapshots() {
    let Some(_) = common::corpus() else {
        return;
    };
    let tools = find_glslang().is_some() && find_spirv_val().is_some();
    let mut mismatches = Vec::new();
    for &(case, variant) in CASES {
        let art = common::emit_case_variant(case, variant, &Options::default())
            .unwrap_or_else(|e| panic!("{case}: {e}"))
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        if tools {
            let spv = compile_spirv(&art).unwrap_or_else(|e| panic!("{case}: {e}"));
            validate_spirv(&spv).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
        let path = snapshot_path(case, variant);
        if let Err(e) = weft_testkit::snapshot::check(&path, &art.source) {
            mismatches.push(format!("{case}: emitted HLSL: {e}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\nIf the change is intended, rerun with WEFT_BLESS=1 to rewrite the snapshots.",
        mismatches.join("\n")
    );
}

/// Kernels bound through one pooled buffer (`Options::max_storage_buffers`
/// below their arrays' count): `<case>.pooled.hlsl`. 64-bit atomics under
/// the lock table, the trap record of checked mode, struct elements.
#[test]
fn pooled_hlsl_matches_snapshots() {
    let Some(_) = common::corpus() else {
        return;
    };
    let tools = find_glslang().is_some() && find_spirv_val().is_some();
    let opts = Options {
        max_storage_buffers: 1,
        ..Options::default()
    };
    let mut mismatches = Vec::new();
    for (case, variant) in [
        ("atomic_bitwise_and_wide", Variant::Plain),
        ("seed_nbody_step", Variant::Checked),
        ("struct_array_rw", Variant::Plain),
    ] {
        let art = common::emit_case_variant(case, variant, &opts)
            .unwrap_or_else(|e| panic!("{case}: {e}"))
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        assert!(art.bindings.pooled, "{case}: not pooled");
        assert!(
            art.source.contains(" : register(u0); // every array"),
            "{case}"
        );
        if tools {
            let spv = compile_spirv(&art).unwrap_or_else(|e| panic!("{case}: {e}"));
            validate_spirv(&spv).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
        let path = snapshot_path(case, variant).with_extension("pooled.hlsl");
        if let Err(e) = weft_testkit::snapshot::check(&path, &art.source) {
            mismatches.push(format!("{case}: emitted HLSL: {e}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
