//! `weft bench --workload compile-scaling`: cold compile time (source →
//! runnable or emitted code, no cache) as a function of kernel size, and
//! of a module of many kernels compiled on one thread and on all of them.
//!
//! * **chain**: one kernel of `N` statements `v = v * 1.0001 + wp.sin(v) *
//!   c` ([`kernels::chain`]) at N = 1 000, 5 000 and 20 000 (`--quick`: 100,
//!   500, 2 000). Per backend: the median wall time of a few compiles (and
//!   their spread), the median process CPU time, and the growth exponent
//!   `k` of `time ≈ a·Nᵏ` fitted by least squares on the logarithms of the
//!   medians (wall and CPU), beside the exponent between the two largest
//!   sizes alone.
//! * **module**: 1 000 small kernels in one module
//!   ([`kernels::many_kernels`]), compiled in a rayon pool of one thread and
//!   in the pool of all threads, alternately; the speedup is the ratio of
//!   the medians.
//!
//! A compile is the frontend and the passes (`Compiler::compile`) plus the
//! backend: for a device (`cpu`, `llvm-cpu`, `interp`, `vulkan`, `cuda`)
//! `Device::load` of a fresh module on a device opened without a cache,
//! which compiles every kernel of the module; for the text targets `ptx`
//! (LLVM NVPTX, libdevice when found) and `hlsl` the backend's `compile`.
//! The frontend and passes alone are one more row. A backend whose compile
//! at one size takes longer than [`SLOW`] is not run at the larger sizes.

pub mod kernels;

use super::align;
use crate::Error;
use std::time::{Duration, Instant};
use weft::{CacheLocation, Compiler, Device, DeviceOptions, Module};

/// Kernel sizes of the chain kernel.
pub fn sizes(quick: bool) -> [usize; 3] {
    if quick {
        [100, 500, 2000]
    } else {
        [1000, 5000, 20000]
    }
}

/// Kernels of the module workload.
pub fn module_kernels(quick: bool) -> usize {
    if quick {
        50
    } else {
        1000
    }
}

/// A compile that takes longer than this (wall) ends the larger sizes of
/// its backend.
pub const SLOW: Duration = Duration::from_secs(60);

/// The compile-only targets (no device): measured beside the devices.
pub const TEXT_TARGETS: [&str; 2] = ["ptx", "hlsl"];

/// Medians and spread of repeated compiles, in seconds.
#[derive(Clone, Debug, Default)]
pub struct Stat {
    pub wall: f64,
    pub min: f64,
    pub max: f64,
    /// Median process CPU time (all threads).
    pub cpu: f64,
    /// Median critical-path CPU time ([`Times::path`]).
    pub path: f64,
    pub runs: usize,
}

impl Stat {
    fn of(times: &[Times]) -> Stat {
        let med = |f: fn(&Times) -> f64| {
            let mut v: Vec<f64> = times.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(0.0)
        };
        Stat {
            wall: med(|t| t.wall),
            min: times.iter().map(|t| t.wall).fold(f64::INFINITY, f64::min),
            max: times.iter().map(|t| t.wall).fold(0.0, f64::max),
            cpu: med(|t| t.cpu),
            path: med(|t| t.path),
            runs: times.len(),
        }
    }
}

/// The chain kernel on one backend.
#[derive(Clone, Debug, Default)]
pub struct ChainRow {
    pub backend: String,
    /// `(N, stat)` for each size measured.
    pub sizes: Vec<(usize, Stat)>,
    /// Fitted exponent of the wall and CPU medians (two sizes or more).
    pub exponent: Option<f64>,
    pub cpu_exponent: Option<f64>,
    /// The exponent between the two largest sizes.
    pub last_exponent: Option<f64>,
    pub note: String,
}

/// The many-kernel module on one backend.
#[derive(Clone, Debug, Default)]
pub struct ModuleRow {
    pub backend: String,
    pub one: Stat,
    pub all: Stat,
    /// Threads of the "all" pool.
    pub threads: usize,
    /// `one.wall / all.wall`.
    pub speedup: f64,
    /// `one.path / all.path` (critical-path CPU times, [`Times::path`]):
    /// the speedup on otherwise idle cores.
    pub path_speedup: f64,
}

/// The whole result.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The chain kernel's sizes.
    pub sizes: Vec<usize>,
    pub chain: Vec<ChainRow>,
    pub module: Vec<ModuleRow>,
    pub module_kernels: usize,
    pub skipped: Vec<(String, String)>,
}

/// The least-squares slope of `ln t` over `ln n`.
pub fn fit_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(n, t)| *n > 0.0 && *t > 0.0)
        .map(|(n, t)| (n.ln(), t.ln()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// CPU time of this process so far (Linux `CLOCK_PROCESS_CPUTIME_ID`, all
/// threads), or of the calling thread (`CLOCK_THREAD_CPUTIME_ID`);
/// `None` elsewhere or if the clock fails. Unlike wall time it does not
/// count the time other processes hold the cores.
#[cfg(target_os = "linux")]
pub fn cpu_ns(thread: bool) -> Option<u64> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let clock = if thread {
        CLOCK_THREAD_CPUTIME_ID
    } else {
        CLOCK_PROCESS_CPUTIME_ID
    };
    // SAFETY: `clock_gettime` (libc, always linked on Linux) writes one
    // `struct timespec` (two 64-bit fields on 64-bit Linux) through the
    // pointer, which points at a live, writable `Timespec`.
    let rc = unsafe { clock_gettime(clock, &mut ts) };
    (rc == 0 && cfg!(target_pointer_width = "64"))
        .then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

#[cfg(not(target_os = "linux"))]
pub fn cpu_ns(_thread: bool) -> Option<u64> {
    None
}

/// What is compiled: a device, a text target, or the frontend and passes
/// alone.
enum Target {
    Front,
    Device(Device),
    Text(&'static str),
}

impl Target {
    /// Compiles `source` once from scratch; `kernel` is one of its kernels.
    fn compile(&self, source: &str, kernel: &str) -> Result<(), Error> {
        let m = Compiler::new().compile("scaling.py", source)?;
        match self {
            Target::Front => Ok(()),
            Target::Device(d) => {
                // A module of its own: nothing compiled is reused.
                d.load(&Module::from_ir(m.ir().clone()), kernel)?;
                Ok(())
            }
            Target::Text(t) => text_compile(t, &m),
        }
    }
}

fn text_compile(target: &str, m: &Module) -> Result<(), Error> {
    let ir = m.ir();
    let info = weft::ir::verify::verify_module(ir).map_err(|e| weft::Error::Runtime(e.into()))?;
    let backend = |e: weft::BackendError| Error::from(weft::Error::Backend(e));
    match target {
        "hlsl" => weft_backend_hlsl::compile(ir, &info, &Default::default())
            .map(drop)
            .map_err(|e| backend(Box::new(e))),
        #[cfg(feature = "llvm")]
        "ptx" => weft::backend_llvm::compile(ir, &info, &Default::default())
            .map(drop)
            .map_err(|e| backend(Box::new(e))),
        _ => Ok(()),
    }
}

/// Why the text target `t` cannot compile the workload's kernels here
/// (their `wp.sin` needs libdevice on PTX), if it cannot.
fn text_target_missing(t: &str) -> Option<String> {
    if t != "ptx" {
        return None;
    }
    #[cfg(feature = "llvm")]
    {
        weft::tools::find_libdevice(None).is_none().then(|| {
            "libdevice.10.bc not found (WEFT_LIBDEVICE, CUDA_HOME or .venv): the kernels' wp.sin needs it".into()
        })
    }
    #[cfg(not(feature = "llvm"))]
    Some("built without the `llvm` feature".into())
}

/// One timed compile.
#[derive(Clone, Copy)]
struct Times {
    wall: f64,
    /// Process CPU time (all threads).
    cpu: f64,
    /// The CPU time of the calling thread (when it is not one of the
    /// pool's) plus the largest of the pool threads' CPU times: what the
    /// compile would take on idle cores, whatever else the machine runs.
    path: f64,
}

/// Each thread of the current rayon pool's CPU time (ns).
fn pool_cpu() -> Vec<u64> {
    rayon::broadcast(|_| cpu_ns(true).unwrap_or(0))
}

/// One compile from scratch, timed.
fn timed(t: &Target, source: &str, kernel: &str) -> Result<Times, Error> {
    let in_pool = rayon::current_thread_index().is_some();
    let (c0, p0, t0) = (cpu_ns(false), pool_cpu(), cpu_ns(true));
    let w = Instant::now();
    t.compile(source, kernel)?;
    let wall = w.elapsed().as_secs_f64();
    let (c1, p1, t1) = (cpu_ns(false), pool_cpu(), cpu_ns(true));
    let secs = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 * 1e-9),
        _ => None,
    };
    let cpu = secs(c0, c1).unwrap_or(wall);
    let busiest = p0
        .iter()
        .zip(&p1)
        .map(|(a, b)| b.saturating_sub(*a) as f64 * 1e-9)
        .fold(0.0, f64::max);
    let own = if in_pool {
        0.0
    } else {
        secs(t0, t1).unwrap_or(0.0)
    };
    let path = if cpu_ns(true).is_some() {
        own + busiest
    } else {
        wall
    };
    Ok(Times { wall, cpu, path })
}

/// Repetitions at size `n` (fewer for the large sizes).
fn reps(quick: bool, n: usize) -> usize {
    match (quick, n) {
        (true, _) => 1,
        (false, n) if n >= 20000 => 3,
        _ => 5,
    }
}

/// Runs the workload on `backends` (device names, and [`TEXT_TARGETS`]);
/// `progress` is told what runs.
pub fn run(
    quick: bool,
    backends: &[String],
    mut progress: impl FnMut(&str),
) -> Result<Report, Error> {
    let dev_opts = DeviceOptions {
        cache: CacheLocation::Off,
        ..DeviceOptions::default()
    };
    let mut report = Report {
        sizes: sizes(quick).to_vec(),
        module_kernels: module_kernels(quick),
        ..Default::default()
    };
    let mut targets = vec![("frontend+passes".to_string(), Target::Front)];
    for name in backends {
        if let Some(t) = TEXT_TARGETS.iter().find(|t| **t == name.as_str()) {
            if let Some(why) = text_target_missing(t) {
                report.skipped.push((name.clone(), why));
                continue;
            }
            targets.push((name.clone(), Target::Text(t)));
            continue;
        }
        match super::open_device(name, &dev_opts) {
            Ok(d) => targets.push((name.clone(), Target::Device(d))),
            Err(why) => report.skipped.push((name.clone(), why)),
        }
    }
    for (name, t) in &targets {
        let mut row = ChainRow {
            backend: name.clone(),
            ..Default::default()
        };
        for n in sizes(quick) {
            if let Some((_, s)) = row.sizes.last() {
                if s.max > SLOW.as_secs_f64() {
                    row.note = format!("N = {n} not run: the previous size took over {SLOW:?}");
                    break;
                }
            }
            progress(&format!("compile-scaling: {name}, N = {n}"));
            let src = kernels::chain(n);
            let mut times = Vec::new();
            for _ in 0..reps(quick, n) {
                let t = timed(t, &src, "chain")?;
                times.push(t);
                if t.wall > SLOW.as_secs_f64() {
                    break;
                }
            }
            row.sizes.push((n, Stat::of(&times)));
        }
        let pts = |f: fn(&Stat) -> f64| -> Vec<(f64, f64)> {
            row.sizes.iter().map(|(n, s)| (*n as f64, f(s))).collect()
        };
        row.exponent = fit_exponent(&pts(|s| s.wall));
        row.cpu_exponent = fit_exponent(&pts(|s| s.cpu));
        let w = pts(|s| s.wall);
        row.last_exponent = w.len().checked_sub(2).and_then(|i| fit_exponent(&w[i..]));
        report.chain.push(row);
    }
    let k = module_kernels(quick);
    let src = kernels::many_kernels(k);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Error::Bench(format!("a one-thread pool: {e}")))?;
    let threads = rayon::current_num_threads();
    for (name, t) in &targets {
        progress(&format!("compile-scaling: {name}, {k} kernels"));
        let (mut t1, mut tn) = (vec![], vec![]);
        for _ in 0..if quick { 1 } else { 5 } {
            t1.push(one.install(|| timed(t, &src, "kernel_0"))?);
            tn.push(timed(t, &src, "kernel_0")?);
        }
        let (one, all) = (Stat::of(&t1), Stat::of(&tn));
        report.module.push(ModuleRow {
            backend: name.clone(),
            speedup: one.wall / all.wall.max(1e-9),
            path_speedup: one.path / all.path.max(1e-9),
            one,
            all,
            threads,
        });
    }
    Ok(report)
}

fn secs(s: &Stat) -> String {
    if s.runs > 1 {
        format!("{:.3} [{:.3}–{:.3}]", s.wall, s.min, s.max)
    } else {
        format!("{:.3}", s.wall)
    }
}

fn exp(e: Option<f64>) -> String {
    e.map_or("-".into(), |e| format!("{e:.2}"))
}

impl Report {
    /// The tables as text.
    pub fn table(&self) -> String {
        let mut head: Vec<String> = vec!["backend".into()];
        head.extend(self.sizes.iter().map(|n| format!("N = {n}, s")));
        head.extend(
            [
                "exponent",
                "cpu exponent",
                "last exponent",
                "cpu s (largest)",
            ]
            .map(String::from),
        );
        let mut rows = vec![head];
        for r in &self.chain {
            let mut cells = vec![r.backend.clone()];
            for i in 0..self.sizes.len() {
                cells.push(r.sizes.get(i).map_or("-".into(), |(_, s)| secs(s)));
            }
            cells.push(exp(r.exponent));
            cells.push(exp(r.cpu_exponent));
            cells.push(exp(r.last_exponent));
            cells.push(
                r.sizes
                    .last()
                    .map_or("-".into(), |(_, s)| format!("{:.3}", s.cpu)),
            );
            if !r.note.is_empty() {
                cells.push(r.note.clone());
            }
            rows.push(cells);
        }
        let mut out = vec![
            "compile-scaling: one kernel of N statements `v = v * 1.0001 + wp.sin(v) * c`, cold compile (no cache), seconds: median [min–max] wall".to_string(),
        ];
        out.extend(align(&rows));
        out.push(String::new());
        let threads = self.module.first().map_or(0, |r| r.threads);
        let mut rows = vec![vec![
            "backend".to_string(),
            "1 thread, s".into(),
            format!("{threads} threads, s"),
            "speedup".into(),
            "critical path, s (1 / all)".into(),
            "speedup (critical path)".into(),
            "cpu s (1 / all)".into(),
        ]];
        for r in &self.module {
            rows.push(vec![
                r.backend.clone(),
                secs(&r.one),
                secs(&r.all),
                format!("{:.2}x", r.speedup),
                format!("{:.3} / {:.3}", r.one.path, r.all.path),
                format!("{:.2}x", r.path_speedup),
                format!("{:.3} / {:.3}", r.one.cpu, r.all.cpu),
            ]);
        }
        out.push(format!(
            "compile-scaling: a module of {} small kernels, cold compile, one thread vs all, seconds: median [min–max] wall",
            self.module_kernels
        ));
        out.extend(align(&rows));
        for (b, why) in &self.skipped {
            out.push(format!("skipped {b}: {why}"));
        }
        out.push("exponent: least-squares slope of ln(median) over ln(N), wall and process CPU time; last exponent: between the two largest sizes (wall)".into());
        out.push("critical path: CPU time of the calling thread plus the busiest pool thread's, i.e. the wall time on otherwise idle cores".into());
        out.join("\n")
    }

    /// The report as JSON.
    pub fn json(&self) -> serde_json::Value {
        use serde_json::json;
        let stat = |s: &Stat| json!({"median_s": s.wall, "min_s": s.min, "max_s": s.max, "cpu_median_s": s.cpu, "critical_path_median_s": s.path, "runs": s.runs});
        json!({
            "chain": self.chain.iter().map(|r| json!({
                "backend": r.backend,
                "sizes": r.sizes.iter().map(|(n, s)| json!({"n": n, "time": stat(s)})).collect::<Vec<_>>(),
                "exponent": r.exponent, "cpu_exponent": r.cpu_exponent,
                "last_exponent": r.last_exponent, "note": r.note,
            })).collect::<Vec<_>>(),
            "module": self.module.iter().map(|r| json!({
                "backend": r.backend, "kernels": self.module_kernels,
                "one_thread": stat(&r.one), "all_threads": stat(&r.all),
                "threads": r.threads, "speedup": r.speedup, "critical_path_speedup": r.path_speedup,
            })).collect::<Vec<_>>(),
            "skipped": self.skipped.iter().map(|(b, w)| json!({"backend": b, "reason": w})).collect::<Vec<_>>(),
        })
    }
}
