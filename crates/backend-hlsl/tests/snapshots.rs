//! Snapshot tests of the emitted HLSL: `tests/snapshots/<case>.hlsl`.
//! `WEFT_BLESS=1 cargo test -p weft-backend-hlsl --test snapshots` rewrites
//! them. Each snapshot is also compiled and validated when the tools exist.

mod common;

use std::path::PathBuf;
use weft_backend_hlsl::{compile_spirv, find_glslang, find_spirv_val, validate_spirv, HlslOptions};

const CASES: &[&str] = &[
    "seed_double_kernel",
    "seed_nbody_step",
    "atomic_histogram_int",
    "struct_array_rw",
    "dims_stencil_3d",
];

fn snapshot_path(case: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{case}.hlsl"))
}

#[test]
fn emitted_hlsl_matches_snapshots() {
    if common::case_names().is_empty() {
        println!(
            "SKIP: no conformance corpus at {}",
            common::corpus_dir().display()
        );
        return;
    }
    let bless = std::env::var_os("WEFT_BLESS").is_some_and(|v| v == "1");
    let tools = find_glslang().is_some() && find_spirv_val().is_some();
    let mut mismatches = Vec::new();
    for case in CASES {
        let art = common::emit_case(case, &HlslOptions::default())
            .unwrap_or_else(|e| panic!("{case}: {e}"))
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        if tools {
            let spv = compile_spirv(&art).unwrap_or_else(|e| panic!("{case}: {e}"));
            validate_spirv(&spv).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
        let path = snapshot_path(case);
        if bless {
            std::fs::write(&path, &art.source)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if want != art.source {
            let line = want
                .lines()
                .zip(art.source.lines())
                .position(|(a, b)| a != b)
                .map_or(
                    want.lines().count().min(art.source.lines().count()) + 1,
                    |i| i + 1,
                );
            mismatches.push(format!(
                "{case}: emitted HLSL differs from {} (first difference at line {line})",
                path.display()
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\nIf the change is intended, rerun with WEFT_BLESS=1 to rewrite the snapshots.",
        mismatches.join("\n")
    );
}
