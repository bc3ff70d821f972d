//! File tests of the passes, in the manner of Cranelift's filetests.
//!
//! Each `tests/filetests/*.ir` file is:
//!
//! ```text
//! ; pass: simplify dce          one or more lines naming passes, run in order
//! ; (any other `;` comment lines)
//! <input module in IR text>
//! ; check: <text>               optional: texts that must appear in the
//!                               output, in this order (substring match)
//! ; error: <text>               or: the passes must fail with this text
//! ; expect:                     optional: the exact output, each line
//! ;   <printed module line>     prefixed with "; " (must be the last section)
//! ```
//!
//! The directives are parsed, and the output checked, by
//! `weft_testkit::filetest` (`; pass:` and `; layout:` are this runner's
//! own directives).
//!
//! Pass names: `inline`, `simplify`, `dce`, `cse`, `licm`, `unroll`,
//! `strength-reduce`, `fast-math`, `soa`; or, alone, a level's whole
//! pipeline: `O0`, `O1`, `O2`, and `pipeline` (the default level, O2), run
//! as `run_pipeline` runs it (so `soa` comes first when the input has a
//! `hint(soa)`). A `; layout: soa` line sets the layout options' default
//! to SoA (for `soa` and the levels); without it only the input's
//! `hint(..)` attributes choose. The verifier runs before and after every
//! pass. With `WEFT_BLESS=1` the `; expect:` section of every file is
//! rewritten from the actual output (appended when missing).

use std::path::{Path, PathBuf};
use weft_ir::ArrayLayout;
use weft_passes::{
    cse::Cse, dce::Dce, fastmath::FastMath, inline::Inline, licm::Licm, reduce::StrengthReduce,
    run_pipeline, simplify::Simplify, soa::Soa, unroll::Unroll, LayoutOptions, OptLevel,
    PassManager, PipelineOptions, VerifyMode,
};
use weft_testkit::filetest::FileTest;

/// The passes of a file's `; pass:` lines, in order.
fn passes(t: &FileTest) -> Vec<String> {
    t.values("pass")
        .flat_map(str::split_whitespace)
        .map(String::from)
        .collect()
}

/// The layout options of a file: `; layout: soa` makes every eligible
/// array SoA.
fn layout(t: &FileTest) -> LayoutOptions {
    let mut layout = LayoutOptions::default();
    if t.values("layout").any(|l| l == "soa") {
        layout.default = ArrayLayout::Soa;
    }
    layout
}

/// Runs the passes; the printed module or the error's text.
fn run(
    passes: &[String],
    layout: &LayoutOptions,
    input: &str,
) -> Result<Result<String, String>, String> {
    let mut m = weft_ir::text::parse_module(input)
        .map_err(|e| format!("input does not parse: {}:{}: {}", e.line, e.col, e.message))?;
    if let [p] = passes {
        let level = match p.as_str() {
            "O0" => Some(OptLevel::O0),
            "O1" => Some(OptLevel::O1),
            "O2" | "pipeline" => Some(OptLevel::O2),
            _ => None,
        };
        if let Some(opt_level) = level {
            let opts = PipelineOptions {
                opt_level,
                verify: VerifyMode::Always,
                layout: layout.clone(),
                ..PipelineOptions::default()
            };
            return Ok(run_pipeline(&mut m, &opts)
                .map(|_| weft_ir::text::print_module(&m))
                .map_err(|e| e.to_string()));
        }
    }
    let mut pm = PassManager::new().with_verify(VerifyMode::Always);
    for p in passes {
        match p.as_str() {
            "inline" => pm.add(Box::new(Inline::default())),
            "simplify" => pm.add(Box::new(Simplify)),
            "dce" => pm.add(Box::new(Dce)),
            "cse" => pm.add(Box::new(Cse)),
            "licm" => pm.add(Box::new(Licm)),
            "unroll" => pm.add(Box::new(Unroll::default())),
            "strength-reduce" => pm.add(Box::new(StrengthReduce)),
            "fast-math" => pm.add(Box::new(FastMath::default())),
            "soa" => pm.add(Box::new(Soa {
                options: layout.clone(),
            })),
            other => return Err(format!("unknown pass `{other}` (or a level not alone)")),
        };
    }
    Ok(pm
        .run(&mut m)
        .map(|_| weft_ir::text::print_module(&m))
        .map_err(|e| e.to_string()))
}

/// Checks one file; `Err` describes the failure.
fn check_file(path: &Path, bless: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let t = FileTest::parse(&text);
    let passes = passes(&t);
    if passes.is_empty() {
        return Err("no `; pass:` line".into());
    }
    let expects_error = t.values("error").next().is_some();
    let printed = match run(&passes, &layout(&t), &t.head)? {
        Err(e) => return t.check_error(&e).map_err(|m| format!("passes failed: {m}")),
        Ok(p) if expects_error => {
            let want: Vec<&str> = t.values("error").collect();
            return Err(format!(
                "expected an error containing `{}`, got:\n{p}",
                want.join("`, `")
            ));
        }
        Ok(p) => p,
    };
    if bless {
        // `; check:` (and `; not:`) lines still hold; the `; expect:`
        // section is rewritten (appended when missing).
        FileTest {
            expect: None,
            ..t.clone()
        }
        .check_output(&printed)?;
        // Empty output lines as `;`, not `; `.
        let new = t.blessed(&printed).replace("; \n", ";\n");
        if new != text {
            std::fs::write(path, new).map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    if t.expect.is_none() && t.values("check").next().is_none() {
        return Err("no `; check:` lines and no `; expect:` section".into());
    }
    t.check_output(&printed)
}

#[test]
fn filetests() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let bless = weft_testkit::bless();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/filetests exists")
        .map(|e| e.expect("readable dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no file tests in {}", dir.display());
    let mut failures = Vec::new();
    for f in &files {
        if let Err(e) = check_file(f, bless) {
            failures.push(format!("FAIL {}: {e}", f.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} file tests failed:\n\n{}\n\nIf the new output is right, rerun with WEFT_BLESS=1 to \
         rewrite the `; expect:` sections.",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}
