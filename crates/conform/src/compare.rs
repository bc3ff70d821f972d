//! `weft compare`: one conformance case on every backend, against the
//! reference interpreter.
//!
//! [`compare_case`] compiles the case's `kernel.py` once (frontend and
//! passes), then for each backend loads its kernels (the backend's compile
//! time), runs the launches (run time) and compares every checked array
//! with the interpreter's output under the case's tolerance (its
//! `rtol`/`atol`, per-array overrides included): largest absolute
//! difference, largest ULP distance, pass or fail. The interpreter's own
//! row compares it with Warp's `expected_<name>.npy`. A backend that cannot
//! run here (no Vulkan device, no GPU) is listed as skipped with the
//! reason; a kernel a backend cannot express (e.g. an operation HLSL lacks)
//! is listed as unsupported with the backend's message. [`Comparison::table`]
//! prints the result; [`Comparison::artifacts`] gathers the texts for the
//! HTML page of [`crate::report`].

use crate as conform;
use crate::Error;
use crate::{data, Case, DiffStats, RunTimes};
use std::path::Path;
use std::time::{Duration, Instant};
use weft::{Compiler, Device, Module};

/// Every device of the registry, in its order (`interp`, the reference,
/// first), compiled into this build or not: those that are not show as
/// skipped, with the feature that enables them.
pub fn backends() -> Vec<&'static str> {
    weft::devices().iter().map(|d| d.name).collect()
}

/// What happened on one backend.
#[derive(Clone, Debug)]
pub enum Status {
    /// Not available here (the device cannot be opened); why.
    Skipped(String),
    /// The backend cannot express this kernel; its message.
    Unsupported(String),
    /// Compiling or running failed; the error, on one line.
    Error(String),
    /// Ran: times and the differences of each checked array from the
    /// reference.
    Ran {
        times: RunTimes,
        arrays: Vec<DiffStats>,
    },
}

/// One backend's row of the table.
#[derive(Clone, Debug)]
pub struct Row {
    pub backend: String,
    pub status: Status,
}

impl Row {
    /// `Some(true)` if it ran and every checked array is within the
    /// tolerance, `Some(false)` if it ran and differs or failed, `None` if
    /// it was skipped or is unsupported.
    pub fn passed(&self) -> Option<bool> {
        match &self.status {
            Status::Skipped(_) | Status::Unsupported(_) => None,
            Status::Error(_) => Some(false),
            Status::Ran { arrays, .. } => Some(arrays.iter().all(DiffStats::passed)),
        }
    }
}

/// The result of [`compare_case`].
pub struct Comparison {
    pub case: Case,
    /// The kernel file's text.
    pub source: String,
    /// The compiled module (optimized IR) every backend ran.
    pub module: Module,
    /// Frontend and passes (or the IR cache), once for all backends.
    pub frontend: Duration,
    /// The interpreter first, then the other backends in registry order.
    pub rows: Vec<Row>,
}

/// The devices to compare on: each backend name with its opened device or
/// the reason it is not available.
pub fn open_backends(names: &[&str]) -> Vec<(String, Result<Device, String>)> {
    names
        .iter()
        .map(|&n| {
            (
                n.to_string(),
                Device::open(n).map_err(|e| {
                    let s = conform::one_line(&e.into());
                    s.strip_prefix("error: ").map_or(s.clone(), str::to_string)
                }),
            )
        })
        .collect()
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Runs the case on `device`, catching a panic in a compiler layer; a
/// failure is the status it gives.
fn run_on(
    case: &Case,
    device: &Device,
    module: &Module,
) -> Result<(conform::CaseRun, RunTimes), Status> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        conform::run_module(case, device, module).map_err(|e| {
            let line = conform::one_line(&e);
            if e.is_unsupported() {
                Status::Unsupported(line)
            } else {
                Status::Error(line)
            }
        })
    }))
    .unwrap_or_else(|p| {
        Err(Status::Error(format!(
            "internal error (panic): {}",
            panic_text(p)
        )))
    })
}

/// Compares the case at `path` (a case directory or its `case.json`) on
/// `devices` (from [`open_backends`]); the first must be `interp` (the
/// reference), which is added if missing. An error means the case cannot
/// be loaded or compiled, or the interpreter cannot run it.
pub fn compare_case(
    path: &Path,
    devices: &[(String, Result<Device, String>)],
    compiler: &Compiler,
) -> Result<Comparison, Error> {
    let case = Case::load(path)?;
    let kpath = case.dir.join("kernel.py");
    let source = std::fs::read_to_string(&kpath).map_err(|e| Error::io(&kpath, e))?;
    let t = Instant::now();
    let module = compiler.compile(&kpath.display().to_string(), &source)?;
    let frontend = t.elapsed();

    let interp = Device::interp();
    let (reference, ref_times) = conform::run_module(&case, &interp, &module)?;
    // The interpreter's row: against Warp's outputs, when present.
    let mut ref_arrays = Vec::new();
    for name in &case.check {
        let exp = case.dir.join(format!("expected_{name}.npy"));
        if let (Some(arr), true) = (reference.buffer(name), exp.is_file()) {
            let (rtol, atol) = case.tolerance(name);
            let npy = conform::read_npy(&exp)?;
            let st = conform::diff_stats(name, arr, &npy, rtol, atol).map_err(|m| {
                Error::Case(conform::CaseError::Format {
                    path: exp.clone(),
                    msg: m,
                })
            })?;
            ref_arrays.push(st);
        }
    }
    let mut rows = vec![Row {
        backend: "interp".into(),
        status: Status::Ran {
            times: ref_times,
            arrays: ref_arrays,
        },
    }];
    let reference_npy: Vec<(String, conform::npy::Npy)> = case
        .check
        .iter()
        .filter_map(|n| {
            reference
                .buffer(n)
                .map(|a| (n.clone(), data::array_to_npy(a)))
        })
        .collect();

    for (name, dev) in devices.iter().filter(|(n, _)| n != "interp") {
        let status = match dev {
            Err(why) => Status::Skipped(why.clone()),
            Ok(dev) => match run_on(&case, dev, &module) {
                Err(status) => status,
                Ok((run, times)) => {
                    let mut arrays = Vec::new();
                    let mut err = None;
                    for (n, r) in &reference_npy {
                        let (rtol, atol) = case.tolerance(n);
                        match run
                            .buffer(n)
                            .map(|a| conform::diff_stats(n, a, r, rtol, atol))
                        {
                            Some(Ok(st)) => arrays.push(st),
                            Some(Err(m)) => err = Some(m),
                            None => err = Some(format!("no buffer `{n}`")),
                        }
                    }
                    match err {
                        Some(e) => Status::Error(e),
                        None => Status::Ran { times, arrays },
                    }
                }
            },
        };
        rows.push(Row {
            backend: name.clone(),
            status,
        });
    }
    Ok(Comparison {
        case,
        source,
        module,
        frontend,
        rows,
    })
}

/// Milliseconds with 3 significant-ish digits.
pub fn ms(d: Duration) -> String {
    let v = d.as_secs_f64() * 1e3;
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 1.0 {
        format!("{v:.2} ms")
    } else {
        format!("{v:.3} ms")
    }
}

/// A difference as the table shows it.
pub fn abs_text(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.is_infinite() {
        "inf".into()
    } else {
        format!("{x:.3e}")
    }
}

/// A ULP distance as the table shows it (`-` for integer arrays).
pub fn ulp_text(u: Option<u64>) -> String {
    match u {
        None => "-".into(),
        Some(u64::MAX) => "inf".into(),
        Some(u) => u.to_string(),
    }
}

/// The text rows of the table: backend, compile, run, array, max |diff|,
/// max ulp, result (skipped/unsupported/error rows carry their reason in
/// the result column).
pub fn table_rows(c: &Comparison) -> Vec<[String; 7]> {
    let mut out = Vec::new();
    for r in &c.rows {
        let b = r.backend.clone();
        let dash = || "-".to_string();
        match &r.status {
            Status::Skipped(w) => out.push([
                b,
                dash(),
                dash(),
                dash(),
                dash(),
                dash(),
                format!("skipped: {w}"),
            ]),
            Status::Unsupported(w) => out.push([
                b,
                dash(),
                dash(),
                dash(),
                dash(),
                dash(),
                format!("unsupported: {w}"),
            ]),
            Status::Error(w) => out.push([
                b,
                dash(),
                dash(),
                dash(),
                dash(),
                dash(),
                format!("FAIL: {w}"),
            ]),
            Status::Ran { times, arrays } => {
                if arrays.is_empty() {
                    out.push([
                        b.clone(),
                        ms(times.load),
                        ms(times.run),
                        dash(),
                        dash(),
                        dash(),
                        "ran (nothing to compare)".into(),
                    ]);
                }
                for (i, a) in arrays.iter().enumerate() {
                    let first = i == 0;
                    out.push([
                        if first { b.clone() } else { String::new() },
                        if first { ms(times.load) } else { String::new() },
                        if first { ms(times.run) } else { String::new() },
                        a.array.clone(),
                        abs_text(a.max_abs),
                        ulp_text(a.max_ulp),
                        if a.passed() {
                            "pass".into()
                        } else {
                            format!("FAIL ({} of {} outside tolerance)", a.bad, a.total)
                        },
                    ]);
                }
            }
        }
    }
    out
}

/// The table's column headers.
pub const HEADERS: [&str; 7] = [
    "backend",
    "compile",
    "run",
    "array",
    "max |diff|",
    "max ulp",
    "result",
];

impl Comparison {
    /// Every backend that ran agrees with the reference within the
    /// tolerance, and none failed.
    pub fn agree(&self) -> bool {
        self.rows.iter().skip(1).all(|r| r.passed() != Some(false))
    }

    /// One-line description of the case: kernels, dims, tolerance.
    pub fn header(&self) -> String {
        let c = &self.case;
        let launches: Vec<_> = c
            .launches
            .iter()
            .map(|l| format!("{}{:?}", l.kernel, l.dim))
            .collect();
        format!(
            "case {}: {}; frontend + passes {}; tolerance rtol {} atol {}{}",
            c.name,
            launches.join(", "),
            ms(self.frontend),
            c.rtol,
            c.atol,
            if c.tolerances.is_empty() {
                ""
            } else {
                " (per-array overrides)"
            }
        )
    }

    /// The table as aligned text, with a header line and a note on the
    /// reference.
    pub fn table(&self) -> String {
        let rows = table_rows(self);
        let mut w = HEADERS.map(str::len);
        for r in &rows {
            for (k, cell) in r.iter().enumerate().take(6) {
                w[k] = w[k].max(cell.chars().count());
            }
        }
        let line = |cells: [&str; 7]| {
            let mut s = String::new();
            for (k, cell) in cells.iter().enumerate() {
                if k < 6 {
                    s.push_str(&format!("{cell:<width$}  ", width = w[k]));
                } else {
                    s.push_str(cell);
                }
            }
            s.trim_end().to_string()
        };
        let mut out = vec![self.header(), line(HEADERS)];
        for r in &rows {
            out.push(line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &r[6]]));
        }
        out.push(
            "differences: interp vs Warp's expected output; every other backend vs interp"
                .to_string(),
        );
        out.push(if self.agree() {
            "all backends that ran agree within the case's tolerance".to_string()
        } else {
            "DISAGREE: some backend differs from the interpreter".to_string()
        });
        out.join("\n")
    }

    /// The module's texts for the HTML page: IR, PTX, HLSL, CLIF (each an
    /// error message where the backend cannot produce it here).
    pub fn artifacts(&self) -> Artifacts {
        let err = |e: weft::Error| conform::one_line(&e.into());
        #[cfg(feature = "llvm")]
        let ptx = self
            .module
            .ptx(&weft::PtxOptions::default())
            .map(|a| a.ptx)
            .map_err(err);
        #[cfg(not(feature = "llvm"))]
        let ptx = Err(weft::Error::NotCompiled {
            what: "PTX".into(),
            feature: "llvm",
        }
        .to_string());
        let mut hlsl = String::new();
        let mut hlsl_err = None;
        let mut kernels: Vec<&str> = Vec::new();
        for l in &self.case.launches {
            if !kernels.contains(&l.kernel.as_str()) {
                kernels.push(&l.kernel);
            }
        }
        for k in kernels {
            match self.module.hlsl(k, &Default::default()) {
                Ok(a) => {
                    hlsl.push_str(&format!("// ---- kernel {k} ----\n"));
                    hlsl.push_str(&a.source);
                    if !a.source.ends_with('\n') {
                        hlsl.push('\n');
                    }
                }
                Err(e) => hlsl_err = Some(e.to_string()),
            }
        }
        Artifacts {
            python: self.source.clone(),
            ir: self.module.ir_text(),
            ptx,
            hlsl: match hlsl_err {
                Some(e) => Err(e),
                None => Ok(hlsl),
            },
            clif: self.module.clif_text().map_err(err),
            glslang: weft::tools::find_glslang().is_some(),
        }
    }
}

/// The texts shown side by side in the HTML report.
#[derive(Clone, Debug)]
pub struct Artifacts {
    pub python: String,
    pub ir: String,
    pub ptx: Result<String, String>,
    pub hlsl: Result<String, String>,
    pub clif: Result<String, String>,
    /// Whether an HLSL → SPIR-V compiler (glslang) is installed here.
    pub glslang: bool,
}
