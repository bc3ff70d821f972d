//! The IR text form of every conformance kernel round-trips, and the
//! verifier accepts the IR at every stage.
//!
//! For each `cases/*/kernel.py` of the corpus (`weft_testkit::corpus`:
//! `$WEFT_CONFORMANCE_DIR`, default `shared/conformance` beside an ancestor
//! of the workspace; the test prints a counted `SKIP` and returns when it is
//! missing, or fails with `WEFT_REQUIRE_CORPUS=1`):
//!
//! 1. the frontend's IR is verified and must round-trip (print → parse →
//!    print gives the same text), and the parsed module must verify too;
//! 2. the pass pipeline runs on it with the verifier after every pass, at
//!    `O1` and `O2`, each with inlining and without (calls kept, as for the
//!    debugger); each result must verify and round-trip likewise.
//!
//! Every failing case is listed with its stage and first differing line;
//! the test prints `N/M cases round-trip` and fails unless all do.

mod common;

use std::path::{Path, PathBuf};
use weft_ir::text::{check_roundtrip, parse_module};
use weft_ir::verify::verify_module;
use weft_passes::{run_pipeline, OptLevel, PipelineOptions, VerifyMode};

/// The case directories holding a `kernel.py`, sorted by name.
fn case_dirs(corpus: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus.join("cases"))
        .expect("read the corpus's cases/ directory")
        .map(|e| e.expect("read a directory entry").path())
        .filter(|p| p.join("kernel.py").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Verifies `m`, checks that its text round-trips and that the parsed text
/// verifies too. The error names the stage.
fn check_stage(stage: &str, m: &weft_ir::Module) -> Result<(), String> {
    verify_module(m).map_err(|e| format!("{stage}: verifier rejects the IR: {e}"))?;
    let text = check_roundtrip(m).map_err(|e| format!("{stage}: {e}"))?;
    let parsed = parse_module(&text).map_err(|e| format!("{stage}: {e}"))?;
    verify_module(&parsed)
        .map(drop)
        .map_err(|e| format!("{stage}: verifier rejects the parsed-back IR: {e}"))
}

fn check_case(dir: &Path) -> Result<(), String> {
    let path = dir.join("kernel.py");
    let source = std::fs::read_to_string(&path).map_err(|e| format!("read: {e}"))?;
    let file_name = path.display().to_string();
    let raw = weft_frontend::compile(&file_name, &source)
        .map_err(|d| format!("frontend:\n{}", d.render(false)))?;
    check_stage("frontend", &raw)?;
    for level in [OptLevel::O1, OptLevel::O2] {
        for inline in [true, false] {
            let stage = format!(
                "pipeline {level}{}",
                if inline { "" } else { " (no inline)" }
            );
            let mut m = raw.clone();
            let opts = PipelineOptions {
                opt_level: level,
                inline,
                verify: VerifyMode::Always,
                ..Default::default()
            };
            run_pipeline(&mut m, &opts).map_err(|e| format!("{stage}: {e}"))?;
            check_stage(&stage, &m)?;
        }
    }
    Ok(())
}

#[test]
fn every_conformance_kernel_round_trips_and_verifies() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dirs = case_dirs(&corpus);
    assert!(!dirs.is_empty(), "no case under {}", corpus.display());
    let mut failures = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        if let Err(e) = check_case(dir) {
            failures.push(format!("{name}: {e}"));
        }
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    println!(
        "{}/{} cases round-trip and verify (frontend; O1 and O2 pipelines, with and without inlining)",
        dirs.len() - failures.len(),
        dirs.len()
    );
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
