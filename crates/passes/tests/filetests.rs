//! File tests of the passes, in the manner of Cranelift's filetests.
//!
//! Each `tests/filetests/*.ir` file is:
//!
//! ```text
//! ; pass: simplify dce          one or more lines naming passes, run in order
//! ; (any other `;` comment lines)
//! <input module in IR text>
//! ; check: <text>               optional: lines that must appear in the
//!                               output, in this order (substring match)
//! ; error: <text>               or: the passes must fail with this text
//! ; expect:                     optional: the exact output, each line
//! ;   <printed module line>     prefixed with "; " (must be the last section)
//! ```
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

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use weft_ir::ArrayLayout;
use weft_passes::{
    cse::Cse, dce::Dce, fastmath::FastMath, inline::Inline, licm::Licm, reduce::StrengthReduce,
    run_pipeline, simplify::Simplify, soa::Soa, unroll::Unroll, LayoutOptions, OptLevel,
    PassManager, PipelineOptions, VerifyMode,
};

const EXPECT: &str = "; expect:";

struct FileTest {
    passes: Vec<String>,
    /// `; layout: soa`: every eligible array SoA.
    layout: LayoutOptions,
    checks: Vec<String>,
    error: Option<String>,
    expect: Option<String>,
    /// The file's text before the `; expect:` section.
    head: String,
}

fn parse_test(text: &str) -> FileTest {
    let (head, expect) = match text.find(EXPECT) {
        Some(i) => {
            let body = &text[i + EXPECT.len()..];
            let lines: Vec<&str> = body
                .lines()
                .skip(1)
                .map(|l| {
                    l.strip_prefix("; ")
                        .unwrap_or(l.strip_prefix(';').unwrap_or(l))
                })
                .collect();
            let mut e = lines.join("\n");
            e.push('\n');
            (text[..i].to_string(), Some(e))
        }
        None => (text.to_string(), None),
    };
    let mut t = FileTest {
        passes: Vec::new(),
        layout: LayoutOptions::default(),
        checks: Vec::new(),
        error: None,
        expect,
        head,
    };
    for line in t.head.lines() {
        let line = line.trim();
        if let Some(p) = line.strip_prefix("; pass:") {
            t.passes.extend(p.split_whitespace().map(String::from));
        } else if let Some(c) = line.strip_prefix("; check:") {
            t.checks.push(c.trim().to_string());
        } else if let Some(l) = line.strip_prefix("; layout:") {
            if l.trim() == "soa" {
                t.layout.default = ArrayLayout::Soa;
            }
        } else if let Some(e) = line.strip_prefix("; error:") {
            t.error = Some(e.trim().to_string());
        }
    }
    t
}

/// Runs the passes; the printed module or the error's text.
fn run(t: &FileTest, input: &str) -> Result<Result<String, String>, String> {
    let mut m = weft_ir::text::parse_module(input)
        .map_err(|e| format!("input does not parse: {}:{}: {}", e.line, e.col, e.message))?;
    if let [p] = &t.passes[..] {
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
                layout: t.layout.clone(),
                ..PipelineOptions::default()
            };
            return Ok(run_pipeline(&mut m, &opts)
                .map(|_| weft_ir::text::print_module(&m))
                .map_err(|e| e.to_string()));
        }
    }
    let mut pm = PassManager::new().with_verify(VerifyMode::Always);
    for p in &t.passes {
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
                options: t.layout.clone(),
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
    let t = parse_test(&text);
    if t.passes.is_empty() {
        return Err("no `; pass:` line".into());
    }
    let out = run(&t, &t.head)?;
    let printed = match (&out, &t.error) {
        (Err(e), Some(want)) if e.contains(want.as_str()) => return Ok(()),
        (Err(e), _) => return Err(format!("passes failed: {e}")),
        (Ok(p), Some(want)) => {
            return Err(format!("expected an error containing `{want}`, got:\n{p}"))
        }
        (Ok(p), None) => p,
    };
    // `; check:` lines, in order.
    let mut lines = printed.lines();
    for c in &t.checks {
        if !lines.any(|l| l.contains(c.as_str())) {
            return Err(format!(
                "`; check: {c}` not found (in order) in the output:\n{printed}"
            ));
        }
    }
    if bless {
        let mut new = t.head.trim_end().to_string();
        new.push_str("\n\n");
        new.push_str(EXPECT);
        new.push('\n');
        for l in printed.lines() {
            let _ = writeln!(new, "; {l}");
        }
        let new = new.replace("; \n", ";\n");
        if new != text {
            std::fs::write(path, new).map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    match &t.expect {
        Some(e) if normalize(e) == normalize(printed) => Ok(()),
        Some(e) => Err(format!(
            "output differs from `; expect:`\n--- expected\n{e}--- actual\n{printed}"
        )),
        None if t.checks.is_empty() => Err("no `; check:` lines and no `; expect:` section".into()),
        None => Ok(()),
    }
}

fn normalize(s: &str) -> String {
    s.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

#[test]
fn filetests() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let bless = std::env::var("WEFT_BLESS").is_ok_and(|v| v == "1");
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
