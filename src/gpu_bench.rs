//! `weft bench-gpu`: the CUDA device's benchmark, on the public API.
//!
//! * N-body: `examples/nbody.py`'s `nbody_step` over `n` bodies, device
//!   arrays, one launch per step timed from queueing to the device's
//!   having finished it (host clock); the median step time and GFLOP/s at
//!   20 flops per interaction (n² interactions a step). Checked first at
//!   n = 2048 against the `cpu` device.
//! * saxpy: `y = a*x + y` over 2^k floats; the median of 20 launches timed
//!   the same way, GB/s counting 12 bytes per element (read x and y, write
//!   y). The result of one launch is checked element by element.

use crate::Error;
use std::fmt;
use weft::{Arg, Array, Compiler, Device, DeviceArg, DeviceArray, Kernel};

const NBODY: &str = include_str!("../examples/nbody.py");
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
    pub n: usize,
    pub steps: usize,
    pub saxpy_log2: u32,
}

pub struct Report {
    gpu: String,
    arch: String,
    n: usize,
    step_ms: f64,
    gflops: f64,
    check_err: f64,
    saxpy_n: usize,
    saxpy_ms: f64,
    gbs: f64,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "GPU: {} ({})", self.gpu, self.arch)?;
        writeln!(
            f,
            "nbody check (n = 2048, cuda vs cpu): max relative error {:.2e}",
            self.check_err
        )?;
        writeln!(f, "| benchmark | size | median time | rate |")?;
        writeln!(f, "|---|---|---|---|")?;
        writeln!(
            f,
            "| nbody_step | N = {} | {:.3} ms | {:.1} GFLOP/s |",
            self.n, self.step_ms, self.gflops
        )?;
        write!(
            f,
            "| saxpy | 2^{} floats | {:.3} ms | {:.1} GB/s |",
            self.saxpy_n.trailing_zeros(),
            self.saxpy_ms,
            self.gbs
        )
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

pub fn run(o: &Options) -> Result<Report, Error> {
    let dev = Device::open("cuda")?;
    let gpu = dev.clone();
    let compiler = Compiler::new();

    // N-body.
    let module = compiler.compile("nbody.py", NBODY)?;
    let check_err = check_nbody(&dev, &module, 2048)?;
    let step = dev.load(&module, "nbody_step")?;
    let n = o.n;
    let (p, v, m) = bodies(n);
    let mut cur = [
        gpu.upload(&Array::from_slice(&p, &[n])?)?,
        gpu.upload(&Array::from_slice(&v, &[n])?)?,
    ];
    let mass = gpu.upload(&Array::from_slice(&m, &[n])?)?;
    let dt = cur[0].dtype().clone();
    let mut next = [gpu.zeros(dt.clone(), &[n])?, gpu.zeros(dt, &[n])?];
    let mut times = Vec::new();
    for s in 0..=o.steps {
        let t = time_launch(&dev, &step, n, &step_args(&cur, &next, &mass, n))?;
        if s > 0 {
            times.push(t); // step 0 warms up
        }
        std::mem::swap(&mut cur, &mut next);
    }
    dev.synchronize()?;
    let step_ms = median(times);
    let gflops = 20.0 * (n as f64) * (n as f64) / (step_ms * 1e-3) / 1e9;

    // saxpy.
    let module = compiler.compile("saxpy.py", SAXPY)?;
    let fill = dev.load(&module, "fill")?;
    let saxpy = dev.load(&module, "saxpy")?;
    let len = 1usize << o.saxpy_log2;
    let f32t = weft::Dtype::scalar(weft::ir::Scalar::F32);
    let x = gpu.zeros(f32t.clone(), &[len])?;
    let y = gpu.zeros(f32t, &[len])?;
    let xy = [DeviceArg::array(&x), DeviceArg::array(&y)];
    dev.launch_async(&fill, &[len], &xy)?;
    let args = [
        DeviceArg::array(&x),
        DeviceArg::array(&y),
        DeviceArg::of(2.0f32),
    ];
    let mut times = Vec::new();
    for r in 0..21 {
        let t = time_launch(&dev, &saxpy, len, &args)?;
        if r > 0 {
            times.push(t);
        }
    }
    dev.launch_async(&fill, &[len], &xy)?;
    dev.launch_async(&saxpy, &[len], &args)?;
    let got = y.to_host()?.to_vec::<f32>()?;
    if let Some(i) = (0..len).find(|&i| got[i] != 2.0 * ((i % 1024) as f32 * 0.5) + 1.0) {
        return Err(weft::Error::Backend(
            format!(
                "saxpy on the GPU: y[{i}] = {}, expected {}",
                got[i],
                2.0 * ((i % 1024) as f32 * 0.5) + 1.0
            )
            .into(),
        )
        .into());
    }
    let saxpy_ms = median(times);
    let gbs = 12.0 * len as f64 / (saxpy_ms * 1e-3) / 1e9;
    Ok(Report {
        gpu: gpu.describe().description,
        arch: gpu.describe().target.unwrap_or_default(),
        n,
        step_ms,
        gflops,
        check_err,
        saxpy_n: len,
        saxpy_ms,
        gbs,
    })
}
