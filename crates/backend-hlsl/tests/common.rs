//! Shared helpers of the tests: the conformance corpus and its kernels.

#![allow(dead_code)]

use std::path::PathBuf;
use weft_backend_hlsl::{compile_kernel, Error, Options, Shader};

/// Where the corpus should be ([`weft_testkit::corpus::dir`]):
/// `$WEFT_CONFORMANCE_DIR`, else `shared/conformance` beside an ancestor of
/// the workspace.
pub fn corpus_dir() -> PathBuf {
    weft_testkit::corpus::dir()
}

/// The corpus, or `None` after a counted `SKIP` when it is missing (a
/// failure with `WEFT_REQUIRE_CORPUS=1`; [`weft_testkit::corpus::find`]).
pub fn corpus() -> Option<PathBuf> {
    weft_testkit::corpus::find()
}

/// Names of every case, sorted, or `None` after [`corpus`]'s skip; a
/// corpus without cases is a failure.
pub fn case_names() -> Option<Vec<String>> {
    let dir = corpus()?;
    let v: Vec<String> = weft_testkit::corpus::cases()
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    assert!(!v.is_empty(), "no case under {}", dir.display());
    Some(v)
}

/// The `"kernel"` entry of a case.json.
fn kernel_name(case_json: &str) -> Option<String> {
    let i = case_json.find("\"kernel\"")?;
    let rest = &case_json[i + 8..];
    let start = rest.find('"')? + 1;
    let end = start + rest[start..].find('"')?;
    Some(rest[start..end].to_string())
}

/// Compiles a case's kernel through the frontend, the pass pipeline and the
/// HLSL backend. The source is named `kernel.py` so that output does not
/// depend on where the corpus lives.
pub fn emit_case(case: &str, opts: &Options) -> Result<Result<Shader, Error>, String> {
    emit_case_variant(case, Variant::Plain, opts)
}

/// How a case is compiled before the HLSL backend.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The default pipeline.
    Plain,
    /// The default pipeline, then the bounds checks (`--checked`).
    Checked,
    /// The pipeline with `fast-math` setting these flags.
    Fast(weft_ir::MathFlags),
}

/// [`emit_case`] compiled as `variant`.
pub fn emit_case_variant(
    case: &str,
    variant: Variant,
    opts: &Options,
) -> Result<Result<Shader, Error>, String> {
    let dir = corpus_dir().join("cases").join(case);
    let src = std::fs::read_to_string(dir.join("kernel.py")).map_err(|e| e.to_string())?;
    let json = std::fs::read_to_string(dir.join("case.json")).map_err(|e| e.to_string())?;
    let kernel = kernel_name(&json).ok_or("case.json without a kernel")?;
    let mut m = weft_frontend::compile("kernel.py", &src).map_err(|d| format!("{d:?}"))?;
    let mut po = weft_passes::PipelineOptions::default();
    if let Variant::Fast(flags) = variant {
        po.fast_math = true;
        po.fast_math_flags = flags;
    }
    weft_passes::run_pipeline(&mut m, &po).map_err(|e| e.to_string())?;
    if variant == Variant::Checked {
        weft_passes::bounds::insert_bounds_checks(&mut m);
        weft_ir::verify::verify_module(&m).map_err(|e| format!("{e:?}"))?;
    }
    let info = weft_ir::verify::verify_module(&m).map_err(|e| format!("{e:?}"))?;
    Ok(compile_kernel(&m, &info, &kernel, opts))
}
