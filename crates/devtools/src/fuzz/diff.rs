//! `weft fuzz-diff`: programs from [`super::progen`] run on several
//! backends and compared with the reference — the interpreter running the
//! frontend's IR with no pass (`-O0`), so that a wrong pass shows up even
//! when every backend agrees.
//!
//! Program `i` of a run is the program of seed `seed + i`. The backends
//! run the optimized module (`-O2`; every fourth program with every
//! eligible array structure of arrays, `--layout soa`). Each checked array
//! (outputs, reductions) must match the reference by the conformance rule:
//! integers exactly, floats exactly (NaN matches NaN, the sign of zero is
//! not compared) except that backends without bit-exact transcendentals
//! (`vulkan`, `cuda`, `llvm-cpu`) compare the arrays that may hold approximate values
//! within [`super::progen::APPROX_TOLERANCE`]. A backend that cannot
//! express a program (a typed `Unsupported`) skips it; any other error, a
//! panic, a mismatch, or a program the frontend rejects is a divergence.

use super::progen::{self, Config, Program};
use crate::Error;
use std::path::PathBuf;
use std::sync::Arc;
use weft::{CompileOptions, Compiler, Device, LayoutOptions, OptLevel};
use weft_conform::{self as conform, npy::Npy, CaseRun};

/// Options of a run.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    pub count: u64,
    /// Registry names of the backends to compare with the reference.
    pub backends: Vec<String>,
    pub config: Config,
    /// Write each divergent program here as a conformance case
    /// (`fuzz_<seed>/`, expected outputs from the reference).
    pub save: Option<PathBuf>,
    /// Write every program there, not only the divergent ones (to run
    /// them elsewhere, e.g. with real Warp).
    pub save_all: bool,
}

/// Backends whose transcendental functions are the interpreter's, bit for
/// bit (the others compare approximate arrays within a tolerance).
/// `llvm-cpu`'s vector tier computes the precise `f32` functions inline
/// (`weft_abi::precise`), correctly rounded where the shims (glibc) are an
/// ulp off at a few inputs, so it is not among them.
pub fn exact_math(backend: &str) -> bool {
    matches!(backend, "interp" | "cpu")
}

/// One program on which a backend disagrees with the reference.
#[derive(Clone, Debug)]
pub struct Divergence {
    pub seed: u64,
    /// What differs, one line: the array and element with every backend's
    /// value, or the error.
    pub what: String,
    pub program: Program,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "divergence: seed {}: {}", self.seed, self.what)?;
        writeln!(
            f,
            "--- program (seed {}, `weft fuzz-diff --seed {} --count 1`) ---",
            self.seed, self.seed
        )?;
        f.write_str(&self.program.source)?;
        let json = serde_json::to_string(&self.program.case_json()).unwrap_or_default();
        writeln!(f, "--- case.json ---\n{json}")
    }
}

/// What a run found.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub programs: u64,
    pub divergences: u64,
    /// Programs each backend could not express (typed `Unsupported`).
    pub unsupported: Vec<(String, u64)>,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} programs, {} divergences",
            self.programs, self.divergences
        )
    }
}

/// The opened backends: `(name, device)`.
pub fn open_backends(names: &[String]) -> Result<Vec<(String, Device)>, Error> {
    names
        .iter()
        .map(|n| Ok((n.clone(), Device::open(n)?)))
        .collect()
}

/// Runs `opts.count` programs; calls `report` with each divergence.
pub fn run(
    opts: &Options,
    backends: &[(String, Device)],
    mut report: impl FnMut(&Divergence),
) -> Summary {
    let reference = Device::interp();
    let mut sum = Summary {
        unsupported: backends.iter().map(|(n, _)| (n.clone(), 0)).collect(),
        ..Summary::default()
    };
    for i in 0..opts.count {
        let seed = opts.seed.wrapping_add(i);
        let program = progen::generate(seed, &opts.config);
        let out = check_program(&program, &reference, backends);
        sum.programs += 1;
        for (k, (_, n)) in sum.unsupported.iter_mut().enumerate() {
            if out.unsupported.contains(&k) {
                *n += 1;
            }
        }
        let save = opts.save_all || out.divergence.is_some();
        if let (true, Some(dir), Some((structs, expected))) = (save, &opts.save, &out.reference) {
            let _ = program.write_case(&dir.join(program.name()), structs, expected);
        }
        if let Some(what) = out.divergence {
            sum.divergences += 1;
            report(&Divergence {
                seed,
                what,
                program,
            });
        }
    }
    sum
}

/// The module's structs and the reference's checked arrays, by name.
type Reference = (Arc<weft::ir::StructTable>, Vec<(String, Npy)>);

/// What one program did.
struct Checked {
    /// The first disagreement, if any.
    divergence: Option<String>,
    /// Indices of the backends that could not express it.
    unsupported: Vec<usize>,
    /// The module's structs and the reference's checked arrays.
    reference: Option<Reference>,
}

/// The compile options of the backends' module for `program`.
fn backend_options(program: &Program) -> CompileOptions {
    let mut o = CompileOptions::default();
    if program.seed % 4 == 3 {
        o.layout = LayoutOptions {
            default: weft::ArrayLayout::Soa,
            params: Vec::new(),
        };
    }
    o
}

/// Runs `program` on the reference and on every backend and compares.
fn check_program(program: &Program, reference: &Device, backends: &[(String, Device)]) -> Checked {
    let mut out = Checked {
        divergence: None,
        unsupported: Vec::new(),
        reference: None,
    };
    let file = format!("{}.py", program.name());
    let reference_options = CompileOptions {
        opt_level: OptLevel::O0,
        ..CompileOptions::default()
    };
    let m0 = match Compiler::with_options(reference_options).compile(&file, &program.source) {
        Ok(m) => m,
        Err(e) => {
            out.divergence = Some(format!(
                "the frontend rejects the program: {}",
                conform::one_line(&e.into())
            ));
            return out;
        }
    };
    let structs = Arc::new(m0.ir().structs.clone());
    let case = program.case(std::path::Path::new(&program.name()));
    let inputs = match program.inputs(&structs) {
        Ok(i) => i,
        Err(e) => {
            out.divergence = Some(format!("the program's inputs do not load: {e}"));
            return out;
        }
    };
    let want = match run_on(&case, reference, &m0, &inputs) {
        Ok(r) => r,
        Err(e) => {
            out.divergence = Some(format!("reference (interp -O0): {e}"));
            return out;
        }
    };
    let checked = program.checked();
    let expected: Vec<(String, Npy)> = checked
        .iter()
        .filter_map(|n| {
            want.buffer(n)
                .map(|a| (n.to_string(), conform::data::array_to_npy(a)))
        })
        .collect();
    out.reference = Some((structs, expected.clone()));
    let m2 = match Compiler::with_options(backend_options(program)).compile(&file, &program.source)
    {
        Ok(m) => m,
        Err(e) => {
            out.divergence = Some(format!(
                "the pass pipeline fails: {}",
                conform::one_line(&e.into())
            ));
            return out;
        }
    };
    let mut runs: Vec<(&str, CaseRun)> = Vec::new();
    for (k, (name, dev)) in backends.iter().enumerate() {
        match run_on(&case, dev, &m2, &inputs) {
            Ok(r) => runs.push((name, r)),
            Err(RunError::Unsupported) => out.unsupported.push(k),
            Err(e) => {
                out.divergence = Some(format!("{name}: {e}"));
                return out;
            }
        }
    }
    for (name, npy) in &expected {
        for (b, run) in &runs {
            let Some(got) = run.buffer(name) else {
                continue;
            };
            let (rtol, atol) = program.tolerance(name, exact_math(b));
            let m = match conform::compare(name, got, npy, rtol, atol) {
                Ok(None) => continue,
                Ok(Some(m)) => m,
                Err(e) => {
                    out.divergence = Some(format!("{b}: array `{name}`: {e}"));
                    return out;
                }
            };
            let wanted = want.buffer(name);
            let mut values = vec![format!(
                "interp -O0 = {}",
                wanted
                    .and_then(|a| conform::leaf_value(a, m.element, m.leaf))
                    .unwrap_or_default()
            )];
            for (b2, r2) in &runs {
                let v = r2
                    .buffer(name)
                    .and_then(|a| conform::leaf_value(a, m.element, m.leaf))
                    .unwrap_or_default();
                values.push(format!("{b2} = {v}"));
            }
            out.divergence = Some(format!(
                "array `{name}`, element {}: {} ({} of {} values differ on {b})",
                m.index,
                values.join(", "),
                m.count,
                m.total
            ));
            return out;
        }
    }
    out
}

/// Why a backend did not give outputs.
#[derive(Debug)]
enum RunError {
    Unsupported,
    Failed(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Unsupported => f.write_str("unsupported"),
            RunError::Failed(e) => f.write_str(e),
        }
    }
}

/// Runs the case on `dev`, a panic caught and reported as an error.
fn run_on(
    case: &conform::Case,
    dev: &Device,
    m: &weft::Module,
    inputs: &[(String, Npy)],
) -> Result<CaseRun, RunError> {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        conform::run_module_with(case, dev, m, inputs)
    }));
    match r {
        Ok(Ok((run, _))) => Ok(run),
        Ok(Err(e)) if e.is_unsupported() => Err(RunError::Unsupported),
        Ok(Err(e)) => Err(RunError::Failed(conform::one_line(&e))),
        Err(p) => Err(RunError::Failed(format!(
            "panic: {}",
            conform::panic_text(p)
        ))),
    }
}
