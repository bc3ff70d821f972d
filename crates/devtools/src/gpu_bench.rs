//! `weft bench-gpu`: the CUDA device's benchmark, on the public API; the
//! Weft side of `scripts/gpu-check.sh`'s table, whose hand-written CUDA C
//! and peers (`benches/gpu/`) do the same math at the same sizes.
//!
//! * N-body: `examples/nbody.py`'s `nbody_step` over `n` bodies, device
//!   arrays, one launch per step timed from queueing to the device's
//!   having finished it (host clock); the median step time and GFLOP/s at
//!   20 flops per interaction (n² interactions a step). Checked first at
//!   n = 2048 against the `cpu` device.
//! * saxpy: `y = a*x + y` over 2^k floats; the median of 20 launches timed
//!   the same way, GB/s counting 12 bytes per element (read x and y, write
//!   y). The result of one launch is checked element by element.
//! * transcendental: `weft bench`'s kernel (`y = sin(v)*cos(v) +
//!   exp(-v*v) + sqrt(abs(v))`, precise math) over 2^k floats of the ramp
//!   `(i % 1000) * 0.001 - 0.5`; median of 20, Gelem/s; checked against
//!   f64 at every 4099th element.
//! * atomic sum: `weft bench`'s `atomic_add` of 2^k floats (the same ramp)
//!   into one cell; median of 10, Gelem/s; one launch into a zeroed cell
//!   checked against the f64 sum (relative error below 1e-2).
//!
//! [`Report::json_lines`]: one JSON object per workload, the schema the
//! gpu-check table reads (`benches/gpu/table.py`).

use crate::Error;
use std::fmt;
use weft::{Arg, Array, Compiler, Device, DeviceArg, DeviceArray, Kernel};

const NBODY: &str = include_str!("../../../examples/nbody.py");
const SAXPY: &str = r#"import warp as wp

@wp.kernel
def fill(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = float(i % 1024) * 0.5
    y[i] = 1.0

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
"#;
const GRAV: f32 = 1.0;
const DT: f32 = 1e-3;
const EPS2: f32 = 0.0025;

pub struct Options {
    /// The device benchmarked: `cuda` (`cuda:N`); another device name runs
    /// the same code there (a test of the bench itself).
    pub device: String,
    pub n: usize,
    pub steps: usize,
    pub saxpy_log2: u32,
    pub transcendental_log2: u32,
    pub atomic_log2: u32,
}

/// One workload's figures.
pub struct Row {
    /// `nbody`, `saxpy`, `transcendental`, `atomic_sum`.
    pub workload: &'static str,
    /// Elements (bodies for N-body).
    pub n: usize,
    /// Median launch time (queue to finished, host clock), ms.
    pub ms: f64,
    pub rate: f64,
    pub unit: &'static str,
    /// How the result was checked, and the error found.
    pub check: String,
}

impl Row {
    /// A row whose rate is `work.0` units of `work.1` (per 10^9) per
    /// second; `check` is prefixed `FAILED: ` unless `ok`.
    fn checked(
        workload: &'static str,
        n: usize,
        ms: f64,
        work: (f64, &'static str),
        ok: bool,
        check: String,
    ) -> Row {
        Row {
            workload,
            n,
            ms,
            rate: work.0 / (ms * 1e-3) / 1e9,
            unit: work.1,
            check: if ok {
                check
            } else {
                format!("FAILED: {check}")
            },
        }
    }
}

impl Row {
    fn size(&self) -> String {
        if self.workload == "nbody" {
            format!("N = {}", self.n)
        } else if self.n.is_power_of_two() {
            format!("2^{}", self.n.trailing_zeros())
        } else {
            self.n.to_string()
        }
    }
}

pub struct Report {
    gpu: String,
    arch: String,
    pub rows: Vec<Row>,
    /// Workloads that did not run: (workload, error).
    pub errors: Vec<(&'static str, String)>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.arch.as_str() {
            "" => writeln!(f, "GPU: {}", self.gpu)?,
            arch => writeln!(f, "GPU: {} ({arch})", self.gpu)?,
        }
        writeln!(f, "| benchmark | size | median time | rate | check |")?;
        write!(f, "|---|---|---|---|---|")?;
        for r in &self.rows {
            write!(
                f,
                "\n| {} | {} | {:.3} ms | {:.1} {} | {} |",
                r.workload,
                r.size(),
                r.ms,
                r.rate,
                r.unit,
                r.check
            )?;
        }
        for (w, e) in &self.errors {
            write!(f, "\n{w}: error: {e}")?;
        }
        Ok(())
    }
}

impl Report {
    /// One JSON object a line per workload: `impl` (`weft`), `workload`,
    /// `n`, `size`, `host_ms` (the median), `event_ms` (null: not timed
    /// with CUDA events), `rate`, `unit`, `check`, `gpu`.
    pub fn json_lines(&self) -> String {
        let mut out = String::new();
        for r in &self.rows {
            let v = serde_json::json!({
                "impl": "weft", "workload": r.workload, "n": r.n, "size": r.size(),
                "host_ms": r.ms, "event_ms": null, "rate": r.rate, "unit": r.unit,
                "check": r.check, "gpu": self.gpu,
            });
            out.push_str(&v.to_string());
            out.push('\n');
        }
        for (w, e) in &self.errors {
            let v = serde_json::json!({"impl": "weft", "workload": w, "error": e, "gpu": self.gpu});
            out.push_str(&v.to_string());
            out.push('\n');
        }
        out
    }

    /// Every workload ran and passed its check.
    pub fn ok(&self) -> bool {
        self.errors.is_empty() && self.rows.iter().all(|r| !r.check.starts_with("FAILED"))
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Deterministic bodies in the unit ball: positions, velocities, masses.
fn bodies(n: usize) -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<f32>) {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    let mut pos = Vec::with_capacity(n);
    while pos.len() < n {
        let p = [rnd(), rnd(), rnd()];
        if p.iter().map(|c| c * c).sum::<f32>() <= 1.0 {
            pos.push(p);
        }
    }
    let vel = pos.iter().map(|p| [-p[1] * 0.3, p[0] * 0.3, 0.0]).collect();
    (pos, vel, vec![1.0 / n as f32; n])
}

fn step_args<'a>(
    cur: &'a [DeviceArray; 2],
    next: &'a [DeviceArray; 2],
    mass: &'a DeviceArray,
    n: usize,
) -> [DeviceArg<'a>; 9] {
    [
        DeviceArg::array(&cur[0]),
        DeviceArg::array(&cur[1]),
        DeviceArg::array(mass),
        DeviceArg::array(&next[0]),
        DeviceArg::array(&next[1]),
        DeviceArg::of(n as i32),
        DeviceArg::of(DT),
        DeviceArg::of(GRAV),
        DeviceArg::of(EPS2),
    ]
}

/// Max relative difference (to the largest magnitude) of one step at `n`
/// bodies between `cuda` and `cpu`.
fn check_nbody(gpu: &Device, module: &weft::Module, n: usize) -> Result<f64, Error> {
    let (p, v, m) = bodies(n);
    let (p, v, m) = (
        Array::from_slice(&p, &[n])?,
        Array::from_slice(&v, &[n])?,
        Array::from_slice(&m, &[n])?,
    );
    let mut outs = Vec::new();
    for dev in [gpu.clone(), Device::cpu()] {
        let k = dev.load(module, "nbody_step")?;
        let np = Array::from_slice(&vec![[0f32; 3]; n], &[n])?;
        let nv = np.clone();
        dev.launch(
            &k,
            &[n],
            &[
                Arg::array(&p),
                Arg::array(&v),
                Arg::array(&m),
                Arg::array(&np),
                Arg::array(&nv),
                Arg::i32(n as i32),
                Arg::f32(DT),
                Arg::f32(GRAV),
                Arg::f32(EPS2),
            ],
        )?;
        let mut all = np.to_scalars::<f32>()?;
        all.extend(nv.to_scalars::<f32>()?);
        outs.push(all);
    }
    let scale = outs[1].iter().fold(0f32, |a, x| a.max(x.abs())).max(1e-30);
    Ok(outs[0]
        .iter()
        .zip(&outs[1])
        .map(|(a, b)| ((a - b).abs() / scale) as f64)
        .fold(0.0, f64::max))
}

/// Milliseconds from queueing the launch to the device's having finished
/// it (host clock; the work queued before is waited for first).
fn time_launch(dev: &Device, k: &Kernel, dim: usize, args: &[DeviceArg<'_>]) -> Result<f64, Error> {
    dev.synchronize()?;
    let t = std::time::Instant::now();
    dev.launch_async(k, &[dim], args)?;
    dev.synchronize()?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// `(i % 1000) * 0.001 - 0.5` in f32, as `weft bench`'s inputs.
fn ramp(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 1000) as f32 * 1e-3 - 0.5).collect()
}

/// The median of `reps` timed launches after one untimed.
fn median_launch(
    dev: &Device,
    k: &Kernel,
    dim: usize,
    args: &[DeviceArg<'_>],
    reps: usize,
) -> Result<f64, Error> {
    let mut times = Vec::with_capacity(reps);
    for r in 0..=reps {
        let t = time_launch(dev, k, dim, args)?;
        if r > 0 {
            times.push(t);
        }
    }
    Ok(median(times))
}

/// The N-body row: checked at n = 2048 against `cpu`, then `o.steps` timed
/// steps at `o.n` (buffers swapped each step).
fn nbody_row(dev: &Device, compiler: &Compiler, o: &Options) -> Result<Row, Error> {
    let module = compiler.compile("nbody.py", NBODY)?;
    let check_err = check_nbody(dev, &module, 2048)?;
    let step = dev.load(&module, "nbody_step")?;
    let n = o.n;
    let (p, v, m) = bodies(n);
    let mut cur = [
        dev.upload(&Array::from_slice(&p, &[n])?)?,
        dev.upload(&Array::from_slice(&v, &[n])?)?,
    ];
    let mass = dev.upload(&Array::from_slice(&m, &[n])?)?;
    let dt = cur[0].dtype().clone();
    let mut next = [dev.zeros(dt.clone(), &[n])?, dev.zeros(dt, &[n])?];
    let mut times = Vec::new();
    for s in 0..=o.steps {
        let t = time_launch(dev, &step, n, &step_args(&cur, &next, &mass, n))?;
        if s > 0 {
            times.push(t); // step 0 warms up
        }
        std::mem::swap(&mut cur, &mut next);
    }
    dev.synchronize()?;
    let ms = median(times);
    let check = format!("n = 2048 vs cpu: max rel err {check_err:.1e}");
    let flops = 20.0 * (n as f64) * (n as f64);
    Ok(Row::checked(
        "nbody",
        n,
        ms,
        (flops, "GFLOP/s"),
        check_err <= 1e-3,
        check,
    ))
}

fn saxpy_row(dev: &Device, compiler: &Compiler, o: &Options) -> Result<Row, Error> {
    let f32t = weft::Dtype::scalar(weft::ir::Scalar::F32);
    let module = compiler.compile("saxpy.py", SAXPY)?;
    let fill = dev.load(&module, "fill")?;
    let saxpy = dev.load(&module, "saxpy")?;
    let len = 1usize << o.saxpy_log2;
    let x = dev.zeros(f32t.clone(), &[len])?;
    let y = dev.zeros(f32t, &[len])?;
    let xy = [DeviceArg::array(&x), DeviceArg::array(&y)];
    dev.launch_async(&fill, &[len], &xy)?;
    let args = [
        DeviceArg::array(&x),
        DeviceArg::array(&y),
        DeviceArg::of(2.0f32),
    ];
    let ms = median_launch(dev, &saxpy, len, &args, 20)?;
    dev.launch_async(&fill, &[len], &xy)?;
    dev.launch_async(&saxpy, &[len], &args)?;
    let got = y.to_host()?.to_vec::<f32>()?;
    let want = |i: usize| 2.0 * ((i % 1024) as f32 * 0.5) + 1.0;
    let check = match (0..len).find(|&i| got[i] != want(i)) {
        None => "exact, every element".to_string(),
        Some(i) => format!("FAILED: y[{i}] = {}, expected {}", got[i], want(i)),
    };
    Ok(Row {
        workload: "saxpy",
        n: len,
        ms,
        rate: 12.0 * len as f64 / (ms * 1e-3) / 1e9,
        unit: "GB/s",
        check,
    })
}

fn transcendental_row(dev: &Device, module: &weft::Module, o: &Options) -> Result<Row, Error> {
    let f32t = weft::Dtype::scalar(weft::ir::Scalar::F32);
    let trans = dev.load(module, "transcendental")?;
    let len = 1usize << o.transcendental_log2;
    let xs = ramp(len);
    let x = dev.upload(&Array::from_slice(&xs, &[len])?)?;
    let y = dev.zeros(f32t, &[len])?;
    let args = [DeviceArg::array(&x), DeviceArg::array(&y)];
    let ms = median_launch(dev, &trans, len, &args, 20)?;
    let got = y.to_host()?.to_vec::<f32>()?;
    let mut err = 0f64;
    for i in (0..len).step_by(4099).chain(len.saturating_sub(1000)..len) {
        let v = xs[i] as f64;
        let want = v.sin() * v.cos() + (-v * v).exp() + v.abs().sqrt();
        err = err.max((got[i] as f64 - want).abs());
    }
    let check = format!("vs f64, every 4099th: max abs err {err:.1e}");
    let elems = (len as f64, "Gelem/s");
    Ok(Row::checked(
        "transcendental",
        len,
        ms,
        elems,
        err <= 1e-5,
        check,
    ))
}

fn atomic_row(dev: &Device, module: &weft::Module, o: &Options) -> Result<Row, Error> {
    let f32t = weft::Dtype::scalar(weft::ir::Scalar::F32);
    let atomic = dev.load(module, "atomic_sum")?;
    let len = 1usize << o.atomic_log2;
    let xs = ramp(len);
    let x = dev.upload(&Array::from_slice(&xs, &[len])?)?;
    let total = dev.zeros(f32t.clone(), &[1])?;
    let args = [DeviceArg::array(&x), DeviceArg::array(&total)];
    let ms = median_launch(dev, &atomic, len, &args, 10)?;
    let total = dev.zeros(f32t, &[1])?;
    let args = [DeviceArg::array(&x), DeviceArg::array(&total)];
    dev.launch_async(&atomic, &[len], &args)?;
    let got = total.to_host()?.to_vec::<f32>()?[0] as f64;
    let want: f64 = xs.iter().map(|&v| v as f64).sum();
    let rel = (got - want).abs() / want.abs().max(1e-30);
    // NaN fails too.
    let ok = rel <= 1e-2;
    let mut check = format!("vs f64 sum: rel err {rel:.1e}");
    if !ok {
        check = format!("{check} ({got}, expected {want})");
    }
    Ok(Row::checked(
        "atomic_sum",
        len,
        ms,
        (len as f64, "Gelem/s"),
        ok,
        check,
    ))
}

/// Runs the four workloads; one that fails to compile or launch is an
/// entry of [`Report::errors`] and the others still run.
pub fn run(o: &Options) -> Result<Report, Error> {
    let dev = Device::open(&o.device)?;
    let compiler = Compiler::new();
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    let mut take = |w: &'static str, r: Result<Row, Error>| match r {
        Ok(row) => rows.push(row),
        Err(e) => errors.push((w, e.to_string())),
    };
    take("nbody", nbody_row(&dev, &compiler, o));
    take("saxpy", saxpy_row(&dev, &compiler, o));
    // transcendental and atomic sum: `weft bench`'s kernels.
    match compiler.compile("bench.py", crate::bench::SOURCE) {
        Ok(module) => {
            take("transcendental", transcendental_row(&dev, &module, o));
            take("atomic_sum", atomic_row(&dev, &module, o));
        }
        Err(e) => {
            let e = Error::from(e).to_string();
            take("transcendental", Err(failed_compile(&e)));
            take("atomic_sum", Err(failed_compile(&e)));
        }
    }
    Ok(Report {
        gpu: dev.describe().description,
        arch: dev.describe().target.unwrap_or_default(),
        rows,
        errors,
    })
}

fn failed_compile(what: &str) -> Error {
    weft::Error::Backend(what.to_string().into()).into()
}
