//! The passes on real kernels: every case of the conformance corpus
//! (`weft_testkit::corpus`: `$WEFT_CONFORMANCE_DIR`, else
//! `shared/conformance` beside an ancestor of the workspace; a counted
//! `SKIP` when it is missing, a failure with `WEFT_REQUIRE_CORPUS=1`) is
//! compiled by the frontend, run through the pipeline
//! of every optimization level (O2 also without inlining and with the
//! opt-in passes, O0 also with forced inlining) with the verifier after every pass, and launched on the reference interpreter before and after; the
//! final contents of every
//! array must be bit for bit the same (the passes only fold what they can
//! compute exactly as the interpreter does).
//!
//! Cases the frontend cannot compile yet are listed and skipped: they test
//! the frontend, not the passes.

mod corpus;

use corpus::{run_and_compare, run_case, RunDiff};
use serde_json::Value as Json;
use std::path::PathBuf;
use weft_passes::{run_pipeline, OptLevel, PipelineOptions, VerifyMode};

#[test]
fn conformance_kernels_run_the_same_after_the_pipeline() {
    let Some(root) = weft_testkit::corpus::find() else {
        return;
    };
    let cases_dir = root.join("cases");
    let entries =
        std::fs::read_dir(&cases_dir).unwrap_or_else(|e| panic!("{}: {e}", cases_dir.display()));
    let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    let only = std::env::var("WEFT_CASE").ok();
    let (mut passed, mut skipped, mut failures) = (0, Vec::new(), Vec::new());
    let mut pipeline_time = std::time::Duration::ZERO;
    let mut slowest = (std::time::Duration::ZERO, String::new());
    for dir in dirs {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if only.as_ref().is_some_and(|o| *o != name) {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(dir.join("kernel.py")) else {
            continue;
        };
        let case: Json = match std::fs::read_to_string(dir.join("case.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
        {
            Some(c) => c,
            None => {
                failures.push(format!("{name}: unreadable case.json"));
                continue;
            }
        };
        let m = match weft_frontend::compile("kernel.py", &src) {
            Ok(m) => m,
            Err(d) => {
                let first = d.items.first().map_or(String::new(), |i| format!("{i:?}"));
                skipped.push(format!(
                    "{name}: {}",
                    first.chars().take(160).collect::<String>()
                ));
                continue;
            }
        };
        let mut opt = m.clone();
        let opts = PipelineOptions {
            verify: VerifyMode::Always,
            ..PipelineOptions::default()
        };
        if let Err(e) = run_pipeline(&mut opt, &opts) {
            failures.push(format!("{name}: pipeline: {e}"));
            continue;
        }
        // Timing without the verifier (what a release build runs).
        let mut timed = m.clone();
        let start = std::time::Instant::now();
        let no_verify = PipelineOptions {
            verify: VerifyMode::Never,
            ..PipelineOptions::default()
        };
        match run_pipeline(&mut timed, &no_verify) {
            Ok(r) if only.is_some() => println!("{r:#?}"),
            Ok(_) => {}
            Err(_) => failures.push(format!("{name}: pipeline without the verifier failed")),
        }
        let took = start.elapsed();
        pipeline_time += took;
        slowest = slowest.max((took, name.clone()));
        if only.is_some() {
            println!("{}", weft_ir::text::print_module(&opt));
        }
        let before = match run_case(&m, &dir, &case) {
            Ok(b) => b,
            Err(e) => {
                skipped.push(format!("{name}: unoptimized run: {e}"));
                continue;
            }
        };
        // Optimized IR prints and parses back to the same text.
        let text = weft_ir::text::print_module(&opt);
        match weft_ir::text::parse_module(&text) {
            Ok(back) if weft_ir::text::print_module(&back) == text => {}
            Ok(_) => failures.push(format!("{name}: optimized IR does not round-trip")),
            Err(e) => failures.push(format!("{name}: optimized IR does not parse: {e:?}")),
        }
        // The pipeline without inlining (calls kept, funcs simplified too).
        let mut no_inline = m.clone();
        let opts_ni = PipelineOptions {
            inline: false,
            ..opts.clone()
        };
        if let Err(e) = run_pipeline(&mut no_inline, &opts_ni) {
            failures.push(format!("{name}: pipeline without inlining: {e}"));
            continue;
        }
        // The other levels: O1, and O0 (nothing, or only `inline` when
        // forced, as for the HLSL backend).
        let mut levels = Vec::new();
        for (what, level, force_inline, enable) in [
            ("O1 pipeline", OptLevel::O1, false, &[][..]),
            ("O0 pipeline", OptLevel::O0, false, &[]),
            ("O0 pipeline with forced inlining", OptLevel::O0, true, &[]),
            (
                "O2 pipeline with unroll and strength-reduce",
                OptLevel::O2,
                false,
                &["unroll", "strength-reduce"],
            ),
        ] {
            let mut lm = m.clone();
            let o = PipelineOptions {
                opt_level: level,
                force_inline,
                enable: enable.iter().map(|s| s.to_string()).collect(),
                ..opts.clone()
            };
            match run_pipeline(&mut lm, &o) {
                Ok(_) => levels.push((what, lm)),
                Err(e) => failures.push(format!("{name}: {what}: {e}")),
            }
        }
        let mut ok = true;
        for (what, module) in [
            ("O2 pipeline", &opt),
            ("O2 pipeline without inlining", &no_inline),
        ]
        .into_iter()
        .chain(levels.iter().map(|(w, lm)| (*w, lm)))
        {
            match run_and_compare(module, &dir, &case, &before) {
                Ok(()) => {}
                Err(RunDiff::Differ(diff)) => {
                    failures.push(format!("{name}: arrays differ after the {what}: {diff:?}"));
                    ok = false;
                }
                Err(RunDiff::Run(e)) => {
                    failures.push(format!("{name}: run after the {what}: {e}"));
                    ok = false;
                }
            }
        }
        passed += ok as usize;
    }
    println!("{passed} cases identical before/after the pipeline");
    println!(
        "pipeline time (no verifier): {pipeline_time:?} in all, slowest {:?} ({})",
        slowest.0, slowest.1
    );
    if !skipped.is_empty() {
        println!(
            "{} skipped (frontend or interpreter cannot run them yet):",
            skipped.len()
        );
        for s in &skipped {
            println!("  {s}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
