//! # weft-passes — the pass manager and Weft's IR passes
//!
//! A [`Pass`] is a transformation of a whole [`Module`] that reports whether
//! it changed anything. A [`PassManager`] runs an ordered list of passes
//! (single passes, or groups repeated until none changes the module, up to a
//! bound), and after each pass optionally runs the IR verifier and writes
//! the module's text to a numbered dump file. [`pipeline`] builds the
//! pipeline of an [`OptLevel`]; [`run_pipeline`] runs the level named in
//! its [`PipelineOptions`] (default O2):
//!
//! ```text
//! (all) soa first, when some kernel array parameter is laid out SoA
//! O0   nothing (calls kept, for the debugger; `inline` alone if forced)
//! O1   inline · fixpoint(simplify, dce)
//! O2   inline · fixpoint(simplify, dce) · fixpoint(simplify, cse, licm, dce)
//! ```
//!
//! `unroll` and `strength-reduce` are opt-in ([`PipelineOptions::enable`]):
//! measured over the conformance corpus they changed nothing or nothing
//! for the better (`examples/pass_stats.rs`, `docs/passes.md`).
//!
//! (each fixpoint group repeats until a round changes nothing, at most 8
//! rounds; [`describe_pipeline`] prints this).
//!
//! Passes:
//!
//! * [`inline::Inline`] — inlines every call, callees first; rejects
//!   recursion ([`PassError::Recursion`]);
//! * [`simplify::Simplify`] — constant folding and exact identities;
//! * [`dce::Dce`] — dead code elimination;
//! * [`unroll::Unroll`] — full unrolling of loops with a constant trip
//!   count of at most 16;
//! * [`reduce::StrengthReduce`] — `rem` next to a `div` of the same
//!   operands becomes a multiply and a subtract;
//! * [`fastmath::FastMath`] — sets fast-math flags on float arithmetic
//!   (last, only with [`PipelineOptions::fast_math`],
//!   [`PipelineOptions::fast_math_kernels`] or a function asking for it in
//!   the source, [`weft_ir::Function::fast_math`]);
//! * [`cse::Cse`] — common-subexpression elimination (scoped value
//!   numbering, loads included when no write intervenes);
//! * [`licm::Licm`] — loop-invariant code motion;
//! * [`soa::Soa`] — structure-of-arrays layout of the kernel array
//!   parameters [`PipelineOptions::layout`] or a source hint choose (first,
//!   at every level, only when something is SoA); inlines the calls that
//!   receive such an array;
//! * [`bounds::BoundsCheck`] — the bounds-checked mode's tests (not in any
//!   pipeline: run after it when asked for).
//!
//! Module transformations outside the pipeline:
//!
//! * [`adjoint::adjoint_module`] — reverse-mode autodiff: the backward
//!   module of a frontend module (`docs/autodiff.md`);
//! * [`promote::to_f64`] — the module in double precision (gradient checks).
//!
//! The call graph helpers are in [`callgraph`].
//!
//! Passes expect verified IR; on IR that breaks an invariant they rely on
//! they return a [`PassError`] rather than panic.
//!
//! ```
//! use weft_passes::{run_pipeline, PipelineOptions};
//!
//! let mut m = weft_ir::text::parse_module(
//!     "func @twice(v0: i32) -> i32 {
//!        v1: i32 = add v0, v0
//!        return v1
//!      }
//!      kernel @k(v0: array1<i32>) {
//!        v1: i32 = thread_id
//!        v2: i32 = const 21
//!        v3: i32 = call @twice(v2)
//!        store v0[v1], v3
//!        return
//!      }",
//! )
//! .unwrap();
//! let report = run_pipeline(&mut m, &PipelineOptions::default()).unwrap();
//! assert!(report.changed());
//! assert_eq!(
//!     weft_ir::text::print_module(&m),
//!     "kernel @k(v0: array1<i32>) {
//!   v1: i32 = thread_id
//!   v2: i32 = const 42
//!   store v0[v1], v2
//!   return
//! }
//! "
//! );
//! ```

pub mod adjoint;
pub mod bounds;
pub mod callgraph;
pub mod cse;
pub mod dce;
pub mod fastmath;
pub mod fold;
pub mod inline;
pub mod licm;
pub mod promote;
pub mod reduce;
pub mod simplify;
pub mod soa;
pub mod unroll;
pub mod walk;

pub use callgraph::{bottom_up_order, call_graph};
pub use soa::LayoutOptions;

use std::path::PathBuf;
use std::time::{Duration, Instant};
use weft_ir::Module;

/// When the verifier runs.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum VerifyMode {
    /// After every pass (and on the input, before the first).
    Always,
    /// Once, after the last pass.
    AtEnd,
    /// Never.
    Never,
}

impl Default for VerifyMode {
    /// `Always` in debug and test builds, `Never` in release builds.
    fn default() -> Self {
        if cfg!(debug_assertions) {
            VerifyMode::Always
        } else {
            VerifyMode::Never
        }
    }
}

pub use weft_ir::{OptLevel, ParseOptLevelError};

/// Options of [`run_pipeline`] and [`pipeline`].
#[derive(Clone, Debug)]
pub struct PipelineOptions {
    /// Optimization level (default [`OptLevel::O2`]).
    pub opt_level: OptLevel,
    /// Inline every call at O1 and O2 (default true). Without it calls
    /// stay, e.g. so that a CPU debugger can step into a func.
    pub inline: bool,
    /// Inline every call even at O0 (default false): for backends that
    /// cannot compile calls (HLSL), so that `-O0` still builds for them.
    pub force_inline: bool,
    /// Names of passes to leave out of the pipeline (default none), e.g.
    /// `["licm"]`: to measure a pass, or to work around one.
    pub disable: Vec<String>,
    /// Opt-in passes added to O2's second group (default none):
    /// `"unroll"` and `"strength-reduce"`, which are not in O2 by default
    /// because they changed nothing measurable on the conformance corpus
    /// (see `docs/passes.md`). Unknown names are ignored.
    pub enable: Vec<String>,
    /// When to run the verifier (default: [`VerifyMode::default`]).
    pub verify: VerifyMode,
    /// Run the `fast-math` pass last (default false): float arithmetic of
    /// every function gets [`PipelineOptions::fast_math_flags`]. Off,
    /// results are the interpreter's, bit for bit.
    pub fast_math: bool,
    /// Kernels to run `fast-math` on even when `fast_math` is false (e.g.
    /// a per-kernel API setting); default none.
    pub fast_math_kernels: Vec<String>,
    /// The flags `fast-math` sets (default
    /// [`fastmath::DEFAULT_FLAGS`]: `contract`, `afn`).
    pub fast_math_flags: weft_ir::MathFlags,
    /// If set, the module's IR text is written after each pass to
    /// `NN-<pass>.ir` in this directory (created if missing), `00-input.ir`
    /// being the input.
    pub dump_dir: Option<PathBuf>,
    /// Which kernel array parameters the `soa` pass lays out structure of
    /// arrays (default: none, every array AoS). See [`LayoutOptions`].
    pub layout: LayoutOptions,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        PipelineOptions {
            opt_level: OptLevel::O2,
            inline: true,
            force_inline: false,
            disable: Vec::new(),
            enable: Vec::new(),
            verify: VerifyMode::default(),
            fast_math: false,
            fast_math_kernels: Vec::new(),
            fast_math_flags: fastmath::DEFAULT_FLAGS,
            dump_dir: None,
            layout: LayoutOptions::default(),
        }
    }
}

/// What a pipeline did: each pass run, in order, whether it changed the
/// module and how long it took; and the module's instruction count
/// ([`inst_count`]) on input and after each pass.
#[derive(Clone, Debug, Default)]
pub struct PassReport {
    pub passes: Vec<(String, bool, Duration)>,
    /// Instructions of the input module.
    pub input_insts: usize,
    /// Instructions after each pass (parallel to `passes`).
    pub inst_counts: Vec<usize>,
}

impl PassReport {
    /// Whether any pass changed the module.
    pub fn changed(&self) -> bool {
        self.passes.iter().any(|p| p.1)
    }
}

/// Errors of the passes and the pass manager.
#[derive(thiserror::Error, Debug)]
pub enum PassError {
    /// The verifier rejected the module after `pass` (`"input"`: before
    /// any pass ran).
    #[error("invalid IR after pass `{pass}`: {error}")]
    Verify {
        pass: String,
        error: weft_ir::verify::VerifyError,
    },
    /// A call cycle: the funcs along it, in call order.
    #[error("recursion is not supported: {}", cycle_text(.cycle))]
    Recursion { cycle: Vec<String> },
    /// An IR dump could not be written.
    #[error("cannot write IR dump `{path}`: {err}", path = .0.display(), err = .1)]
    Io(PathBuf, #[source] std::io::Error),
    /// A `wp.grad` whose adjoint cannot be made
    /// ([`adjoint::expand_grads`]).
    #[error(transparent)]
    Grad(#[from] adjoint::AdjointError),
    /// A construct a pass cannot transform.
    #[error("pass `{pass}`, function `{func}`: unsupported: {msg}")]
    Unsupported {
        pass: String,
        func: String,
        msg: String,
    },
    /// A kernel array parameter cannot have the layout asked for (an
    /// explicit SoA request, by [`LayoutOptions::params`] or a source hint,
    /// for an array that does not qualify; see [`soa`]).
    #[error(
        "kernel `{kernel}`, parameter `{param}`: cannot lay out structure of arrays: {reason}"
    )]
    Layout {
        kernel: String,
        param: String,
        reason: String,
    },
    /// IR that breaks an invariant the pass relies on (the verifier would
    /// reject it too).
    #[error("pass `{pass}`, function `{func}`: malformed IR: {msg}")]
    Malformed {
        pass: String,
        func: String,
        msg: String,
    },
}

fn cycle_text(cycle: &[String]) -> String {
    let mut s: Vec<&str> = cycle.iter().map(|s| s.as_str()).collect();
    if let Some(first) = cycle.first() {
        s.push(first);
    }
    s.join(" -> ")
}

/// A transformation of a module.
pub trait Pass {
    /// A short name (`inline`, `simplify`, ...), used in reports and dump
    /// file names.
    fn name(&self) -> &'static str;
    /// Runs the pass; returns whether the module changed.
    fn run(&mut self, m: &mut Module) -> Result<bool, PassError>;
}

enum Step {
    One(Box<dyn Pass>),
    /// Run the group in order, again and again while any pass changes the
    /// module, at most `max_rounds` times.
    Fixpoint {
        passes: Vec<Box<dyn Pass>>,
        max_rounds: usize,
    },
}

/// An ordered pipeline of passes with verification and dumps between them.
pub struct PassManager {
    steps: Vec<Step>,
    verify: VerifyMode,
    dump_dir: Option<PathBuf>,
}

impl Default for PassManager {
    fn default() -> Self {
        PassManager::new()
    }
}

impl PassManager {
    /// An empty pipeline with the default verify mode and no dumps.
    pub fn new() -> PassManager {
        PassManager {
            steps: Vec::new(),
            verify: VerifyMode::default(),
            dump_dir: None,
        }
    }

    pub fn with_verify(mut self, mode: VerifyMode) -> Self {
        self.verify = mode;
        self
    }

    pub fn with_dump_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.dump_dir = dir;
        self
    }

    /// Appends a pass.
    pub fn add(&mut self, pass: Box<dyn Pass>) -> &mut Self {
        self.steps.push(Step::One(pass));
        self
    }

    /// Appends a group of passes repeated until a whole round changes
    /// nothing, at most `max_rounds` rounds.
    pub fn add_fixpoint(&mut self, passes: Vec<Box<dyn Pass>>, max_rounds: usize) -> &mut Self {
        self.steps.push(Step::Fixpoint { passes, max_rounds });
        self
    }

    /// The pipeline as text, one step a line: a pass name, or
    /// `fixpoint(max N rounds): a, b, c` for a group repeated until nothing
    /// changes. Empty for an empty pipeline.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for step in &self.steps {
            match step {
                Step::One(p) => out.push_str(p.name()),
                Step::Fixpoint { passes, max_rounds } => {
                    let names: Vec<&str> = passes.iter().map(|p| p.name()).collect();
                    out.push_str(&format!(
                        "fixpoint(max {max_rounds} rounds): {}",
                        names.join(", ")
                    ));
                }
            }
            out.push('\n');
        }
        out
    }

    /// Runs the pipeline on `m`.
    pub fn run(&mut self, m: &mut Module) -> Result<PassReport, PassError> {
        let mut ctx = RunCtx {
            verify: self.verify,
            dump_dir: self.dump_dir.clone(),
            seq: 0,
            report: PassReport {
                input_insts: inst_count(m),
                ..PassReport::default()
            },
        };
        if let Some(dir) = &ctx.dump_dir {
            std::fs::create_dir_all(dir).map_err(|e| PassError::Io(dir.clone(), e))?;
        }
        ctx.after(m, "input")?;
        for step in &mut self.steps {
            match step {
                Step::One(p) => {
                    ctx.run_one(p.as_mut(), m)?;
                }
                Step::Fixpoint { passes, max_rounds } => {
                    for _ in 0..*max_rounds {
                        let mut changed = false;
                        for p in passes.iter_mut() {
                            changed |= ctx.run_one(p.as_mut(), m)?;
                        }
                        if !changed {
                            break;
                        }
                    }
                }
            }
        }
        if ctx.verify == VerifyMode::AtEnd {
            verify(m, "end")?;
        }
        Ok(ctx.report)
    }
}

struct RunCtx {
    verify: VerifyMode,
    dump_dir: Option<PathBuf>,
    seq: usize,
    report: PassReport,
}

impl RunCtx {
    fn run_one(&mut self, p: &mut dyn Pass, m: &mut Module) -> Result<bool, PassError> {
        let start = Instant::now();
        let changed = p.run(m)?;
        self.report
            .passes
            .push((p.name().to_string(), changed, start.elapsed()));
        self.report.inst_counts.push(inst_count(m));
        self.after(m, p.name())?;
        Ok(changed)
    }

    /// Verifies and dumps after a pass (or on the input).
    fn after(&mut self, m: &Module, pass: &str) -> Result<(), PassError> {
        if let Some(dir) = &self.dump_dir {
            let path = dir.join(format!("{:02}-{pass}.ir", self.seq));
            std::fs::write(&path, weft_ir::text::print_module(m))
                .map_err(|e| PassError::Io(path, e))?;
        }
        self.seq += 1;
        if self.verify == VerifyMode::Always {
            verify(m, pass)?;
        }
        Ok(())
    }
}

/// The number of instructions of a module: those reachable from the body
/// of each function, terminators and nested regions included.
pub fn inst_count(m: &Module) -> usize {
    let mut n = 0;
    for f in m.funcs.values() {
        walk::for_each_inst(f, f.body, &mut |_| n += 1);
    }
    n
}

fn verify(m: &Module, pass: &str) -> Result<(), PassError> {
    weft_ir::verify::verify_module(m)
        .map(drop)
        .map_err(|error| PassError::Verify {
            pass: pass.to_string(),
            error,
        })
}

/// The pass pipeline of an optimization level (see [`OptLevel`]), with
/// the verify mode and dump directory of `opts`:
///
/// ```text
/// O0:  (nothing; `inline` alone with force_inline)
/// O1:  inline · fixpoint(simplify, dce)
/// O2:  inline · fixpoint(simplify, dce) · fixpoint(simplify, cse, licm, dce)
/// ```
///
/// `opts.enable` adds `unroll` (first) and `strength-reduce` (after
/// `simplify`) to O2's second group; `opts.disable` removes passes.
///
/// `inline` is left out when `opts.inline` is false (at O0 it runs only
/// when `opts.force_inline` is set). Each fixpoint group runs at most 8
/// rounds. `opts.opt_level` is not read: `level` is.
///
/// `soa` comes first, at every level, when `opts.layout` asks for SoA
/// ([`LayoutOptions::requests_soa`]; [`run_pipeline`] also adds it for
/// source hints). It is not affected by `opts.disable`: the layout is set
/// by `opts.layout` alone.
pub fn pipeline(level: OptLevel, opts: &PipelineOptions) -> PassManager {
    build_pipeline(level, opts, opts.layout.requests_soa(), false)
}

/// [`pipeline`], with the `soa` pass first when `soa` is set, and
/// `fast-math` last when `source_fast_math` is set (a function of the
/// module asks for it, [`fastmath::requested_in_source`]) even if `opts`
/// does not.
fn build_pipeline(
    level: OptLevel,
    opts: &PipelineOptions,
    soa: bool,
    source_fast_math: bool,
) -> PassManager {
    let mut pm = PassManager::new()
        .with_verify(opts.verify)
        .with_dump_dir(opts.dump_dir.clone());
    if soa {
        pm.add(Box::new(soa::Soa {
            options: opts.layout.clone(),
        }));
    }
    let inline = match level {
        OptLevel::O0 => opts.force_inline,
        OptLevel::O1 | OptLevel::O2 => opts.inline || opts.force_inline,
    };
    let enabled = |p: &dyn Pass| !opts.disable.iter().any(|d| d == p.name());
    let group = |passes: Vec<Box<dyn Pass>>| -> Vec<Box<dyn Pass>> {
        passes.into_iter().filter(|p| enabled(p.as_ref())).collect()
    };
    if inline && enabled(&inline::Inline::default()) {
        pm.add(Box::new(inline::Inline::default()));
    }
    if level == OptLevel::O0 {
        add_fast_math(&mut pm, opts, source_fast_math);
        return pm;
    }
    let o1 = group(vec![Box::new(simplify::Simplify), Box::new(dce::Dce)]);
    if !o1.is_empty() {
        pm.add_fixpoint(o1, 8);
    }
    if level == OptLevel::O2 {
        let wants = |name: &str| opts.enable.iter().any(|e| e == name);
        let mut o2: Vec<Box<dyn Pass>> = Vec::new();
        if wants("unroll") {
            o2.push(Box::new(unroll::Unroll::default()));
        }
        o2.push(Box::new(simplify::Simplify));
        if wants("strength-reduce") {
            o2.push(Box::new(reduce::StrengthReduce));
        }
        o2.push(Box::new(cse::Cse));
        o2.push(Box::new(licm::Licm));
        o2.push(Box::new(dce::Dce));
        let o2 = group(o2);
        if !o2.is_empty() {
            pm.add_fixpoint(o2, 8);
        }
    }
    add_fast_math(&mut pm, opts, source_fast_math);
    pm
}

/// Appends `fast-math` when `opts` or the source asks for it (at every
/// level).
fn add_fast_math(pm: &mut PassManager, opts: &PipelineOptions, source: bool) {
    if !opts.fast_math && opts.fast_math_kernels.is_empty() && !source {
        return;
    }
    pm.add(Box::new(fastmath::FastMath {
        flags: opts.fast_math_flags,
        all: opts.fast_math,
        only: opts.fast_math_kernels.clone(),
    }));
}

/// What `weft build --print-pipeline` prints for a level: the passes of
/// [`pipeline`] with default options, one step a line, fixpoint groups
/// shown as such (see [`PassManager::describe`]); `(no passes)` at O0.
pub fn describe_pipeline(level: OptLevel) -> String {
    let text = pipeline(level, &PipelineOptions::default()).describe();
    if text.is_empty() {
        "(no passes)\n".to_string()
    } else {
        text
    }
}

/// Runs the pipeline of `opts.opt_level` ([`pipeline`]) on `m`; `soa`
/// also runs first when a kernel of `m` has a `# weft: layout=soa` source
/// hint, and `fast-math` last when a function of `m` asks for fast math in
/// the source ([`weft_ir::Function::fast_math`]), which [`pipeline`], not
/// seeing the module, cannot know.
pub fn run_pipeline(m: &mut Module, opts: &PipelineOptions) -> Result<PassReport, PassError> {
    // `wp.grad` funcs get their bodies first, at every level.
    adjoint::expand_grads(m)?;
    let soa = opts.layout.requests_soa() || soa::has_soa_hints(m);
    build_pipeline(opts.opt_level, opts, soa, fastmath::requested_in_source(m)).run(m)
}
