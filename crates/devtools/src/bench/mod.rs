//! `weft bench`: compile latency, launch overhead and throughput of a few
//! kernels on every backend available here, beside hand-written Rust +
//! rayon loops and their native-width SIMD versions
//! ([`crate::reference::simd`]: AVX-512 and AVX2, the faster is the limit).
//!
//! Workloads: saxpy (2^24 floats, `y` updated in place), scale (`y = a * x`,
//! 2^24 floats, `y` written only: streaming stores), the seed's N-body step
//! (`examples/nbody.py`, N = 4096 and 16 384), a transcendental-heavy
//! elementwise kernel (`sin(x)*cos(x) + exp(-x*x) + sqrt(abs(x))`, 2^22),
//! an atomic sum (2^22 `atomic_add`s into one float) and a particle update
//! (2^22 `vec3` positions and velocities: gravity, a step, a ground bounce)
//! twice, with the arrays AoS (Warp's layout) and SoA (compiled with
//! `--layout soa`, arrays in [`ArrayLayout::Soa`]). Per workload and
//! backend:
//!
//! * compile: cold (disk cache cleared: frontend, passes, backend), warm
//!   (a new `Compiler` and `Module` reading the optimized IR, PTX or SPIR-V
//!   from the disk cache, then the backend's remaining work) and in-memory
//!   (`Device::load` of a module already compiled for the device);
//! * throughput: the median of several launches at full size;
//! * launch overhead (one column per backend, measured once): the median of
//!   10 000 launches of saxpy over `dim = 1`;
//! * beside each throughput: the hand-written scalar loops ("vs rayon":
//!   their time / the launch's) and the hand-written SIMD ones ("vs limit":
//!   the launch's time / the fastest SIMD version's), each timed in rounds
//!   alternating with the launches, a burst of [`BURST`] back to back per
//!   side in each round (the arrays of a side stay in the cache as far as
//!   they fit, as in a program's loop and in the peers' timing). The particle references work on AoS
//!   arrays; both particle rows are set beside them.
//!
//! A launch is timed from its call until the kernel has finished. On the
//! host devices it runs with the host arrays ([`Device::launch`]). On a
//! device with its own memory (`cuda`, `vulkan`) the arrays are uploaded
//! once and stay there ([`DeviceArray`]): each timed launch is
//! [`Device::launch_async`] with the device arrays and a
//! [`Device::synchronize`], so no host↔device copy is timed (a launch with
//! host arrays copies every array in and out, which would swamp the
//! kernel). The launch overhead of such a device is also given with host
//! arrays (`NAME (host arrays)`: two 1-element arrays copied in and out).
//!
//! The disk cache used (IR, PTX, SPIR-V) is a fresh directory under the
//! system temp dir (the devices are opened with it, [`DeviceOptions`]), so
//! the user's cache is untouched and "cold" is cold. `--quick` shrinks
//! sizes and repetitions (tests).
//! The interpreter is timed for compile and launch overhead only.

mod pin;
pub mod scaling;

pub use pin::pin_pool_threads;

use crate::reference::simd::{self, Isa};
use crate::reference::{self, bodies, V3};
use crate::Error;
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};
use weft::{
    Arg, Array, ArrayLayout, CacheLocation, CompileOptions, Compiler, Device, DeviceArg,
    DeviceArray, DeviceOptions, Kernel, LayoutOptions, Value,
};
use weft_runtime::hostmem::HostMem;

const NBODY_SOURCE: &str = include_str!("../../../../examples/nbody.py");

/// The saxpy, scale, transcendental and atomic-sum workloads' kernels.
pub const SOURCE: &str = r#"
import warp as wp

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]

@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i]

@wp.kernel
def transcendental(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    y[i] = wp.sin(v) * wp.cos(v) + wp.exp(-v * v) + wp.sqrt(wp.abs(v))

@wp.kernel
def atomic_sum(x: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i])
"#;

/// The particle update (gravity, a step, a ground bounce), with
/// `$x_comment` after the annotation of `x` (e.g. a layout hint).
macro_rules! particles_source {
    ($x_comment:literal) => {
        concat!(
            r#"
import warp as wp

@wp.kernel
def particles(
    x: wp.array(dtype=wp.vec3),"#,
            $x_comment,
            r#"
    v: wp.array(dtype=wp.vec3),
    gravity: float,
    dt: float,
):
    i = wp.tid()
    vi = v[i] + wp.vec3(0.0, -gravity, 0.0) * dt
    xi = x[i] + vi * dt
    if xi[1] < 0.0:
        xi = wp.vec3(xi[0], -xi[1], xi[2])
        vi = wp.vec3(vi[0], -0.5 * vi[1], vi[2])
    v[i] = vi
    x[i] = xi
"#
        )
    };
}

/// The particle update of the `particles` workloads.
pub const PARTICLES_SOURCE: &str = particles_source!("");

/// [`PARTICLES_SOURCE`] with `x` hinted SoA in the source.
pub const PARTICLES_SOA_HINT: &str = particles_source!("  # weft: layout=soa");

/// The saxpy workload's `a`.
const SAXPY_A: f32 = 0.5;
const DT: f32 = 1e-3;
const GRAV: f32 = 1.0;
const EPS2: f32 = 0.0025;
/// The particle update's `gravity`.
const GRAVITY: f32 = 9.81;

/// Options of [`run`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Small sizes and few repetitions.
    pub quick: bool,
    /// Backends to measure (default: all).
    pub backends: Vec<String>,
    /// Only the workloads whose name contains one of these (default: all).
    pub workloads: Vec<String>,
    /// Compile the workloads deterministic (`CompileOptions::deterministic`).
    pub deterministic: bool,
    /// The pool's threads were pinned ([`pin_pool_threads`]; reported).
    pub pinned: bool,
}

/// One workload on one backend.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub workload: String,
    pub backend: String,
    pub cold_ms: f64,
    pub warm_ms: f64,
    pub mem_us: f64,
    /// Median launch time at full size (None: not measured).
    pub run_ms: Option<f64>,
    /// Throughput in `unit`.
    pub rate: Option<f64>,
    pub unit: &'static str,
    /// The hand-written loop's time divided by this one's (>1: faster).
    pub vs_hand: Option<f64>,
    /// This time divided by the fastest hand-written SIMD version's (1:
    /// at the limit), and that version's instruction set.
    pub vs_limit: Option<(f64, String)>,
    /// Why a measurement is missing.
    pub note: String,
}

/// The whole result.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub rows: Vec<Row>,
    /// Launch overhead per backend, µs (median, dim = 1).
    pub launch_us: Vec<(String, f64)>,
    /// Hand-written Rust + rayon: (workload, ms), the fastest median of
    /// its runs alternating with each backend's.
    pub hand: Vec<(String, f64)>,
    /// The hand-written SIMD versions' times.
    pub simd: Vec<SimdTime>,
    /// The instruction sets of the SIMD versions, widest first.
    pub isas: Vec<String>,
    /// Backends not available here, with the reason.
    pub skipped: Vec<(String, String)>,
    pub threads: usize,
    /// How the host devices split a launch: ranges per pool thread
    /// (`WEFT_CHUNKS_PER_THREAD`), and whether the threads were pinned.
    pub chunks_per_thread: usize,
    pub pinned: bool,
    /// The compile-scaling workload, when asked for.
    pub scaling: Option<scaling::Report>,
}

/// A hand-written SIMD version's time on a workload: the fastest median
/// of its runs alternating with each backend's launches.
#[derive(Clone, Debug)]
pub struct SimdTime {
    pub workload: String,
    /// [`Isa::name`].
    pub isa: String,
    pub ms: f64,
}

/// A copy of a slice in the memory Weft's host arrays live in
/// ([`HostMem`]: cache-line aligned, transparent huge pages from 4 MiB),
/// so that the hand-written loops stream the same kind of pages as the
/// launches they are set beside (`benches/README.md`, "Streaming at the
/// memory's limit": 4 KiB pages alone cost a streaming loop ~25 % here).
struct HostVec<T> {
    mem: HostMem,
    n: usize,
    _t: std::marker::PhantomData<T>,
}

impl<T: Copy> HostVec<T> {
    fn from(data: &[T]) -> HostVec<T> {
        let bytes = std::mem::size_of_val(data);
        let mem = HostMem::zeroed(bytes)
            .unwrap_or_else(|| std::alloc::handle_alloc_error(std::alloc::Layout::new::<T>()));
        assert!(std::mem::align_of::<T>() <= weft_runtime::hostmem::LINE);
        // SAFETY: `mem` holds `bytes` bytes, aligned for `T` (above), and
        // does not overlap `data`.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), mem.ptr().cast::<T>(), data.len()) };
        HostVec {
            mem,
            n: data.len(),
            _t: std::marker::PhantomData,
        }
    }
}

impl<T> std::ops::Deref for HostVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `n` initialized `T`s at an address aligned for `T`
        // ([`HostVec::from`]), borrowed with `self`.
        unsafe { std::slice::from_raw_parts(self.mem.ptr().cast::<T>(), self.n) }
    }
}

impl<T> std::ops::DerefMut for HostVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as `deref`, borrowed mutably with `self`.
        unsafe { std::slice::from_raw_parts_mut(self.mem.ptr().cast::<T>(), self.n) }
    }
}

/// A hand-written version of a workload's kernel (on its own copy of the
/// workload's data, in [`HostVec`]s), timed beside its launches.
struct Reference {
    kernel: &'static str,
    n: usize,
    /// None: the scalar Rust + rayon loop; else the SIMD one.
    isa: Option<Isa>,
    run: Box<dyn FnMut()>,
}

impl Reference {
    /// The reference of `w`'s kernel with `isa`, if it has one.
    fn new(w: &Workload, isa: Option<Isa>) -> Result<Option<Reference>, Error> {
        let run: Box<dyn FnMut()> = match w.kernel {
            "saxpy" => {
                let x = HostVec::from(&w.arrays[0].to_vec::<f32>()?);
                let mut y = HostVec::from(&w.arrays[1].to_vec::<f32>()?);
                Box::new(move || match isa {
                    None => reference::saxpy(SAXPY_A, &x, &mut y),
                    Some(isa) => simd::saxpy(isa, SAXPY_A, &x, &mut y),
                })
            }
            // No SIMD version: the scalar loop is vectorized by rustc.
            "scale" if isa.is_some() => return Ok(None),
            "scale" => {
                let x = HostVec::from(&w.arrays[0].to_vec::<f32>()?);
                let mut y = HostVec::from(&w.arrays[1].to_vec::<f32>()?);
                Box::new(move || reference::scale(SAXPY_A, &x, &mut y))
            }
            "nbody_step" => {
                let p: Vec<V3> = w.arrays[0].to_vec()?;
                let v: Vec<V3> = w.arrays[1].to_vec()?;
                let m: Vec<f32> = w.arrays[2].to_vec()?;
                let (mut np, mut nv) = (vec![[0.0; 3]; w.n], vec![[0.0; 3]; w.n]);
                let prm = (DT, GRAV, EPS2);
                Box::new(move || match isa {
                    None => reference::nbody_step(&p, &v, &m, &mut np, &mut nv, prm),
                    Some(isa) => simd::nbody_step(isa, &p, &v, &m, &mut np, &mut nv, prm),
                })
            }
            "atomic_sum" => {
                let x = HostVec::from(&w.arrays[0].to_vec::<f32>()?);
                Box::new(move || {
                    black_box(match isa {
                        None => reference::atomic_sum(&x),
                        Some(isa) => simd::atomic_sum(isa, &x),
                    });
                })
            }
            "particles" => {
                let (x, v) = particles(w.n);
                let (mut x, mut v) = (HostVec::from(&x), HostVec::from(&v));
                Box::new(move || match isa {
                    None => reference::particles(&mut x, &mut v, GRAVITY, DT),
                    Some(isa) => simd::particles(isa, &mut x, &mut v, GRAVITY, DT),
                })
            }
            _ => return Ok(None),
        };
        Ok(Some(Reference {
            kernel: w.kernel,
            n: w.n,
            isa,
            run,
        }))
    }
}

/// Launches before the timed ones: one, and on the host devices (without
/// `--quick`) at least three and [`WARM_UP`] of launches, so that `cpu`
/// has moved the module to its vector tier (`docs/vector.md`: after 20 ms
/// of launches) and the medians are the steady
/// state.
fn warm_up(
    dev: &Device,
    k: &Kernel,
    n: usize,
    args: &LaunchArgs<'_>,
    quick: bool,
) -> Result<(), Error> {
    let host = dev.describe().host_memory && !quick;
    let t0 = Instant::now();
    let mut launches = 0;
    while launches == 0 || (host && (launches < 3 || t0.elapsed() < WARM_UP)) {
        timed_launch(dev, k, n, args)?;
        launches += 1;
    }
    Ok(())
}

/// Launches timed back to back per side in each round of the throughput
/// figures.
const BURST: usize = 3;

/// See [`warm_up`].
const WARM_UP: Duration = Duration::from_millis(500);

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn time(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

/// A workload: its source, kernel, size, arrays and rate.
struct Workload {
    name: String,
    source: &'static str,
    kernel: &'static str,
    n: usize,
    arrays: Vec<Array>,
    /// Work per launch in `unit`s (bytes for GB/s, items otherwise).
    work: f64,
    unit: &'static str,
    /// The layout of the kernel's eligible array parameters (and of
    /// `arrays`).
    layout: ArrayLayout,
    /// Compiled deterministic ([`Options::deterministic`]).
    deterministic: bool,
}

impl Workload {
    /// The kernel's arguments in parameter order, as `array(i)` for
    /// `self.arrays[i]` and `value(v)` for a by-value argument.
    fn args_by<A>(&self, array: impl Fn(usize) -> A, value: impl Fn(Value) -> A) -> Vec<A> {
        match self.kernel {
            "saxpy" | "scale" => vec![array(0), array(1), value(Value::new(SAXPY_A))],
            "particles" => vec![
                array(0),
                array(1),
                value(Value::new(GRAVITY)),
                value(Value::new(DT)),
            ],
            "nbody_step" => vec![
                array(0),
                array(1),
                array(2),
                array(3),
                array(4),
                value(Value::new(self.n as i32)),
                value(Value::new(DT)),
                value(Value::new(GRAV)),
                value(Value::new(EPS2)),
            ],
            _ => vec![array(0), array(1)],
        }
    }

    /// The arguments with the host arrays.
    fn args(&self) -> Vec<Arg<'_>> {
        self.args_by(|i| Arg::array(&self.arrays[i]), Arg::Value)
    }
}

/// Where a workload's timed launches find its arrays: the host arrays on
/// the host devices, else device copies uploaded once (see the module
/// docs).
enum Resident {
    Host,
    Device(Vec<DeviceArray>),
}

/// A workload's launch arguments on its device.
enum LaunchArgs<'a> {
    Host(Vec<Arg<'a>>),
    Device(Vec<DeviceArg<'a>>),
}

impl Resident {
    /// On a device with its own memory, uploads the workload's arrays
    /// (layout kept); on the host devices nothing.
    fn new(dev: &Device, w: &Workload) -> Result<Resident, Error> {
        if dev.describe().host_memory {
            return Ok(Resident::Host);
        }
        let arrays = w
            .arrays
            .iter()
            .map(|a| dev.upload(a))
            .collect::<Result<_, _>>()?;
        Ok(Resident::Device(arrays))
    }

    fn args<'a>(&'a self, w: &'a Workload) -> LaunchArgs<'a> {
        match self {
            Resident::Host => LaunchArgs::Host(w.args()),
            Resident::Device(a) => {
                LaunchArgs::Device(w.args_by(|i| DeviceArg::array(&a[i]), DeviceArg::from))
            }
        }
    }
}

/// Launches `k` over `n` threads and waits for it to finish; returns the
/// time that took (with device arrays: the launch and the wait for the
/// device).
fn timed_launch(
    dev: &Device,
    k: &Kernel,
    n: usize,
    args: &LaunchArgs<'_>,
) -> Result<Duration, Error> {
    let t = Instant::now();
    match args {
        LaunchArgs::Host(a) => dev.launch(k, &[n], a)?,
        LaunchArgs::Device(a) => {
            dev.launch_async(k, &[n], a)?;
            dev.synchronize()?;
        }
    }
    Ok(t.elapsed())
}

fn workloads(quick: bool) -> Result<Vec<Workload>, Error> {
    let (sx, tr, at): (usize, usize, usize) = if quick {
        (1 << 16, 1 << 14, 1 << 14)
    } else {
        (1 << 24, 1 << 22, 1 << 22)
    };
    let nb: &[usize] = if quick { &[256] } else { &[4096, 16384] };
    let ramp = |n: usize| -> Vec<f32> { (0..n).map(|i| (i % 1000) as f32 * 1e-3 - 0.5).collect() };
    let mut out = vec![Workload {
        name: format!("saxpy 2^{}", sx.trailing_zeros()),
        source: SOURCE,
        kernel: "saxpy",
        n: sx,
        arrays: vec![
            Array::from_slice(&ramp(sx), &[sx])?,
            Array::from_slice(&vec![1.0f32; sx], &[sx])?,
        ],
        work: 12.0 * sx as f64 / 1e9,
        unit: "GB/s",
        layout: ArrayLayout::Aos,
        deterministic: false,
    }];
    // `y = a * x`: `y` is written only (a separate output), so the vector
    // tier stores it around the caches when it is larger than the LLC
    // (`docs/vector.md`, "Streaming stores"); the bytes are the kernel's
    // own (x read, y written), not the read-for-ownership a cached store
    // adds.
    out.push(Workload {
        name: format!("scale 2^{}", sx.trailing_zeros()),
        source: SOURCE,
        kernel: "scale",
        n: sx,
        arrays: vec![
            Array::from_slice(&ramp(sx), &[sx])?,
            Array::from_slice(&vec![0.0f32; sx], &[sx])?,
        ],
        work: 8.0 * sx as f64 / 1e9,
        unit: "GB/s",
        layout: ArrayLayout::Aos,
        deterministic: false,
    });
    for &n in nb {
        let (p, v, m) = bodies(n);
        let pos = Array::from_slice(&p, &[n])?;
        let dt = pos.dtype().clone();
        out.push(Workload {
            name: format!("nbody {n}"),
            source: NBODY_SOURCE,
            kernel: "nbody_step",
            n,
            arrays: vec![
                pos,
                Array::from_slice(&v, &[n])?,
                Array::from_slice(&m, &[n])?,
                Array::zeros(dt.clone(), &[n])?,
                Array::zeros(dt, &[n])?,
            ],
            work: (n * n) as f64 / 1e9,
            unit: "Ginteract/s",
            layout: ArrayLayout::Aos,
            deterministic: false,
        });
    }
    out.push(Workload {
        name: format!("transcendental 2^{}", tr.trailing_zeros()),
        source: SOURCE,
        kernel: "transcendental",
        n: tr,
        arrays: vec![
            Array::from_slice(&ramp(tr), &[tr])?,
            Array::from_slice(&vec![0.0f32; tr], &[tr])?,
        ],
        work: tr as f64 / 1e9,
        unit: "Gelem/s",
        layout: ArrayLayout::Aos,
        deterministic: false,
    });
    out.push(Workload {
        name: format!("atomic sum 2^{}", at.trailing_zeros()),
        source: SOURCE,
        kernel: "atomic_sum",
        n: at,
        arrays: vec![
            Array::from_slice(&ramp(at), &[at])?,
            Array::from_slice(&[0.0f32], &[1])?,
        ],
        work: at as f64 / 1e9,
        unit: "Gelem/s",
        layout: ArrayLayout::Aos,
        deterministic: false,
    });
    let pn = at;
    let (p, v) = particles(pn);
    for layout in [ArrayLayout::Aos, ArrayLayout::Soa] {
        out.push(Workload {
            name: format!(
                "particles 2^{} {}",
                pn.trailing_zeros(),
                weft_runtime::error::layout_name(layout)
            ),
            source: PARTICLES_SOURCE,
            kernel: "particles",
            n: pn,
            arrays: vec![
                Array::from_slice(&p, &[pn])?.to_layout(layout)?,
                Array::from_slice(&v, &[pn])?.to_layout(layout)?,
            ],
            // Each particle's position and velocity read and written.
            work: 48.0 * pn as f64 / 1e9,
            unit: "GB/s",
            layout,
            deterministic: false,
        });
    }
    Ok(out)
}

/// `n` particles above the ground with various velocities.
fn particles(n: usize) -> (Vec<V3>, Vec<V3>) {
    let f = |i: usize, k: usize| ((i * 7 + k * 13) % 1000) as f32 * 1e-3;
    let p = (0..n).map(|i| [f(i, 0), f(i, 1) + 0.01, f(i, 2)]).collect();
    let v = (0..n)
        .map(|i| [f(i, 3) - 0.5, f(i, 4) - 0.5, f(i, 5) - 0.5])
        .collect();
    (p, v)
}

/// The compiler of a workload: every eligible array in its layout.
fn compiler_for(w: &Workload, cache: &Path) -> Compiler {
    Compiler::with_options(CompileOptions {
        layout: LayoutOptions {
            default: w.layout,
            params: Vec::new(),
        },
        deterministic: w.deterministic,
        ..CompileOptions::default()
    })
    .with_cache(CacheLocation::Dir(cache.to_path_buf()))
}

/// Cold, warm and in-memory compile times (ms, ms, µs) and the kernel.
fn compile_times(
    w: &Workload,
    dev: &Device,
    cache: &Path,
) -> Result<(f64, f64, f64, Kernel), Error> {
    if let Ok(c) = weft::cache::Cache::open(cache) {
        let _ = c.clear();
    }
    let t = Instant::now();
    let m = compiler_for(w, cache).compile("bench.py", w.source)?;
    dev.load(&m, w.kernel)?;
    let cold = ms(t.elapsed());
    let t = Instant::now();
    let m = compiler_for(w, cache).compile("bench.py", w.source)?;
    let k = dev.load(&m, w.kernel)?;
    let warm = ms(t.elapsed());
    let reps = 100;
    let t = Instant::now();
    for _ in 0..reps {
        dev.load(&m, w.kernel)?;
    }
    let mem = t.elapsed().as_secs_f64() * 1e6 / reps as f64;
    Ok((cold, warm, mem, k))
}

/// Median launch time of saxpy over dim = 1 (µs), launch to completion
/// (with device arrays on a device with its own memory, see
/// [`timed_launch`], unless `host`).
fn launch_overhead(dev: &Device, launches: usize, host: bool) -> Result<f64, Error> {
    let m = Compiler::new().compile("bench.py", SOURCE)?;
    let k = dev.load(&m, "saxpy")?;
    let w = Workload {
        name: "saxpy 1".into(),
        source: SOURCE,
        kernel: "saxpy",
        n: 1,
        arrays: vec![
            Array::from_slice(&[1.0f32], &[1])?,
            Array::from_slice(&[1.0f32], &[1])?,
        ],
        work: 0.0,
        unit: "",
        layout: ArrayLayout::Aos,
        deterministic: false,
    };
    let res = match host {
        true => Resident::Host,
        false => Resident::new(dev, &w)?,
    };
    let args = res.args(&w);
    let mut times = Vec::with_capacity(launches);
    for _ in 0..launches {
        times.push(timed_launch(dev, &k, 1, &args)?);
    }
    Ok(median(times).as_secs_f64() * 1e6)
}

/// The name of the compile-scaling workload ([`scaling`]), run only when
/// `--workload` names it.
pub const COMPILE_SCALING: &str = "compile-scaling";

/// Opens the device `name` with `opts`, or says (one line) why not.
fn open_device(name: &str, opts: &DeviceOptions) -> Result<Device, String> {
    Device::open_with(name, opts).map_err(|e| {
        let why = weft_conform::one_line(&e.into());
        why.strip_prefix("error: ").unwrap_or(&why).to_string()
    })
}

/// Runs the benchmarks; `progress` is told what runs.
pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Report, Error> {
    let scaling = opts.workloads.iter().any(|w| w == COMPILE_SCALING);
    let mut report = if scaling && opts.workloads.iter().all(|w| w == COMPILE_SCALING) {
        Report {
            threads: rayon::current_num_threads(),
            ..Default::default()
        }
    } else {
        launches(opts, &mut progress)?
    };
    if scaling {
        report.scaling = Some(scaling::run(opts.quick, &opts.backends, &mut progress)?);
    }
    report.chunks_per_thread = weft_runtime::DeviceOptions::default().chunks_per_thread;
    report.pinned = opts.pinned;
    Ok(report)
}

/// The compile, launch and throughput workloads.
fn launches(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Report, Error> {
    // One cache of our own for the IR, PTX and SPIR-V, cleared for each
    // cold compile.
    let cache = std::env::temp_dir().join(format!("weft-bench-cache-{}", std::process::id()));
    let dev_opts = DeviceOptions {
        cache: CacheLocation::Dir(cache.clone()),
        ..DeviceOptions::default()
    };
    let mut report = Report {
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    let mut devices = Vec::new();
    let names = opts.backends.iter();
    for name in names.filter(|n| !scaling::TEXT_TARGETS.contains(&n.as_str())) {
        match open_device(name, &dev_opts) {
            Ok(d) => devices.push(d),
            Err(why) => report.skipped.push((name.clone(), why)),
        }
    }
    let mut ws = workloads(opts.quick)?;
    for w in &mut ws {
        w.deterministic = opts.deterministic;
    }
    let only: Vec<&String> = opts
        .workloads
        .iter()
        .filter(|w| *w != COMPILE_SCALING)
        .collect();
    if !only.is_empty() {
        ws.retain(|w| only.iter().any(|n| w.name.contains(n.as_str())));
    }
    // Hand-written loops, timed alternately with each backend's launches
    // (a shared machine's load then disturbs both sides alike).
    let reps = if opts.quick { 3 } else { 7 };
    let mut isas = Isa::detected();
    if isas.is_empty() {
        isas.push(Isa::SCALAR);
    }
    report.isas = isas.iter().map(|i| i.name()).collect();
    let mut refs = Vec::new();
    for w in &ws {
        if !refs
            .iter()
            .any(|r: &Reference| r.kernel == w.kernel && r.n == w.n)
        {
            for isa in std::iter::once(None).chain(isas.iter().copied().map(Some)) {
                refs.extend(Reference::new(w, isa)?);
            }
        }
    }
    for dev in &devices {
        let name = dev.name().to_string();
        progress(&format!("{name}: launch overhead"));
        let launches = match (opts.quick, dev.name()) {
            (true, _) => 200,
            (false, "interp") => 1000,
            (false, _) if !dev.describe().host_memory => 1000,
            (false, _) => 10_000,
        };
        report
            .launch_us
            .push((name.clone(), launch_overhead(dev, launches, false)?));
        if !dev.describe().host_memory {
            let host = launch_overhead(dev, launches, true)?;
            report
                .launch_us
                .push((format!("{name} (host arrays)"), host));
        }
        for w in &ws {
            progress(&format!("{name}: {}", w.name));
            let (cold_ms, warm_ms, mem_us, k) = compile_times(w, dev, &cache)?;
            let mut row = Row {
                workload: w.name.clone(),
                backend: name.clone(),
                cold_ms,
                warm_ms,
                mem_us,
                unit: w.unit,
                ..Default::default()
            };
            if dev.name() == "interp" {
                row.note = "reference interpreter: throughput not measured".into();
            } else {
                let res = Resident::new(dev, w)?;
                let args = res.args(w);
                warm_up(dev, &k, w.n, &args, opts.quick)?;
                // The same workload in the other layout runs between the
                // timed launches (untimed), so both layouts' medians see the
                // same machine load.
                let twin = ws
                    .iter()
                    .find(|o| o.kernel == w.kernel && o.layout != w.layout);
                // Vulkan (lavapipe, arrays resident): 0.1-0.2 s a launch at
                // full size, 2 s for the large N-body.
                let big_nbody = w.n > 8192 && w.kernel == "nbody_step";
                let r = if twin.is_some() {
                    if opts.quick {
                        reps
                    } else if dev.name() == "vulkan" {
                        7
                    } else {
                        11
                    }
                } else if big_nbody {
                    reps.min(if dev.name() == "vulkan" { 2 } else { 5 })
                } else {
                    reps
                };
                let twin_res = match twin {
                    Some(o) => Some(Resident::new(dev, o)?),
                    None => None,
                };
                let twin = match (twin, &twin_res) {
                    (Some(o), Some(r)) => {
                        let m = compiler_for(o, &cache).compile("bench.py", o.source)?;
                        Some((dev.load(&m, o.kernel)?, o.n, r.args(o)))
                    }
                    _ => None,
                };
                let mut mine: Vec<&mut Reference> = refs
                    .iter_mut()
                    .filter(|h| h.kernel == w.kernel && h.n == w.n)
                    .collect();
                for h in &mut mine {
                    (h.run)();
                }
                let mut times = Vec::new();
                let mut htimes = vec![Vec::new(); mine.len()];
                // On a host device, each round times a burst of launches back
                // to back on the same arrays for each side, as a program's loop (and the
                // peers' timing, benches/peers) runs them: a launch right
                // after one over other arrays finds none of its own in
                // the last-level cache, about 7 % slower for saxpy here.
                let host = dev.describe().host_memory;
                let burst = if big_nbody || !host { 1 } else { BURST };
                for _ in 0..r {
                    for _ in 0..burst {
                        times.push(timed_launch(dev, &k, w.n, &args)?);
                    }
                    for (h, ht) in mine.iter_mut().zip(&mut htimes) {
                        for _ in 0..burst {
                            ht.push(time(&mut h.run));
                        }
                    }
                    if let Some((tk, n, targs)) = &twin {
                        timed_launch(dev, tk, *n, targs)?;
                    }
                }
                let t = ms(median(times));
                row.run_ms = Some(t);
                row.rate = Some(w.work / t * 1e3);
                for (h, ht) in mine.iter().zip(htimes) {
                    let h_ms = ms(median(ht));
                    match h.isa {
                        None => {
                            row.vs_hand = Some(h_ms / t);
                            match report.hand.iter_mut().find(|(n, _)| *n == w.name) {
                                Some((_, best)) => *best = best.min(h_ms),
                                None => report.hand.push((w.name.clone(), h_ms)),
                            }
                        }
                        Some(isa) => {
                            let isa = isa.name();
                            // The fastest SIMD version gives the largest ratio.
                            if row.vs_limit.as_ref().is_none_or(|(v, _)| t / h_ms > *v) {
                                row.vs_limit = Some((t / h_ms, isa.clone()));
                            }
                            let same = |s: &&mut SimdTime| s.workload == w.name && s.isa == isa;
                            match report.simd.iter_mut().find(same) {
                                Some(s) => s.ms = s.ms.min(h_ms),
                                None => report.simd.push(SimdTime {
                                    workload: w.name.clone(),
                                    isa,
                                    ms: h_ms,
                                }),
                            }
                        }
                    }
                }
            }
            report.rows.push(row);
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
    Ok(report)
}

impl Report {
    /// The table as text.
    pub fn table(&self) -> String {
        let scaling = self.scaling.as_ref().map(scaling::Report::table);
        if self.rows.is_empty() && self.launch_us.is_empty() {
            if let Some(t) = scaling {
                return t;
            }
        }
        let head = [
            "workload",
            "backend",
            "cold",
            "warm cache",
            "in-memory",
            "run (median)",
            "throughput",
            "vs rayon",
            "vs limit",
        ];
        let mut rows: Vec<Vec<String>> = vec![head.map(String::from).to_vec()];
        for r in &self.rows {
            rows.push(vec![
                r.workload.clone(),
                r.backend.clone(),
                format!("{:.1} ms", r.cold_ms),
                format!("{:.2} ms", r.warm_ms),
                format!("{:.1} µs", r.mem_us),
                r.run_ms.map_or("-".into(), |t| format!("{t:.2} ms")),
                r.rate
                    .map_or(r.note.clone(), |x| format!("{x:.2} {}", r.unit)),
                r.vs_hand.map_or("-".into(), |x| format!("{x:.2}x")),
                r.vs_limit
                    .as_ref()
                    .map_or("-".into(), |(x, isa)| format!("{x:.2}x {}", isa_short(isa))),
            ]);
        }
        let mut out = align(&rows);
        out.push(String::new());
        let lo: Vec<_> = self
            .launch_us
            .iter()
            .map(|(b, us)| format!("{b} {us:.2} µs"))
            .collect();
        out.push(format!(
            "launch overhead (saxpy, dim = 1, median): {}",
            lo.join(", ")
        ));
        let hand: Vec<_> = self
            .hand
            .iter()
            .map(|(n, t)| format!("{n} {t:.2} ms"))
            .collect();
        out.push(format!("hand-written Rust + rayon: {}", hand.join(", ")));
        for isa in &self.isas {
            let t: Vec<_> = self
                .simd
                .iter()
                .filter(|s| s.isa == *isa)
                .map(|s| format!("{} {:.2} ms", s.workload, s.ms))
                .collect();
            out.push(format!("hand-written SIMD, {isa}: {}", t.join(", ")));
        }
        if !self.isas.is_empty() {
            out.push(format!(
                "vs rayon = the rayon loop's time / the run's; vs limit = the run's time / the fastest SIMD version's (of {}; same arithmetic as the kernel), {} threads",
                self.isas.join(" or "),
                self.threads
            ));
        }
        let resident: Vec<_> = self
            .launch_us
            .iter()
            .filter_map(|(b, _)| b.strip_suffix(" (host arrays)"))
            .collect();
        if !resident.is_empty() {
            out.push(format!("{}: arrays uploaded once, device-resident; a timed launch = launch + wait for the device (no host<->device copy timed)", resident.join(", ")));
        }
        for (b, why) in &self.skipped {
            out.push(format!("skipped {b}: {why}"));
        }
        out.push(format!(
            "{} rayon threads ({} ranges per thread on the host devices{}); compile: cold = frontend + passes + backend, warm = from the disk cache, in-memory = Device::load of a loaded module",
            self.threads,
            self.chunks_per_thread,
            if self.pinned { ", pinned" } else { "" }
        ));
        if let Some(t) = scaling {
            out.push(String::new());
            out.push(t);
        }
        out.join("\n")
    }

    /// The report as JSON.
    pub fn json(&self) -> serde_json::Value {
        use serde_json::json;
        json!({
            "threads": self.threads,
            "rows": self.rows.iter().map(|r| json!({
                "workload": r.workload, "backend": r.backend,
                "compile_cold_ms": r.cold_ms, "compile_warm_ms": r.warm_ms,
                "load_in_memory_us": r.mem_us, "run_ms": r.run_ms,
                "throughput": r.rate, "unit": r.unit, "vs_rayon": r.vs_hand,
                "vs_limit": r.vs_limit.as_ref().map(|l| l.0),
                "limit_isa": r.vs_limit.as_ref().map(|l| &l.1),
                "note": r.note,
            })).collect::<Vec<_>>(),
            "launch_overhead_us": self.launch_us.iter().map(|(b, us)| json!({"backend": b, "us": us})).collect::<Vec<_>>(),
            "rayon_ms": self.hand.iter().map(|(n, t)| json!({"workload": n, "ms": t})).collect::<Vec<_>>(),
            "simd_isas": self.isas,
            "simd_ms": self.simd.iter().map(|s| json!({"workload": s.workload, "isa": s.isa, "ms": s.ms})).collect::<Vec<_>>(),
            "skipped": self.skipped.iter().map(|(b, w)| json!({"backend": b, "reason": w})).collect::<Vec<_>>(),
            "compile_scaling": self.scaling.as_ref().map(scaling::Report::json),
            "threads": self.threads,
            "chunks_per_thread": self.chunks_per_thread,
            "pinned": self.pinned,
        })
    }
}

/// An [`Isa::name`] without its lanes: `AVX-512`.
fn isa_short(name: &str) -> &str {
    name.split(',').next().unwrap_or(name)
}

/// Rows of cells as left-aligned columns.
fn align(rows: &[Vec<String>]) -> Vec<String> {
    let mut w: Vec<usize> = Vec::new();
    for r in rows {
        for (k, c) in r.iter().enumerate() {
            if w.len() <= k {
                w.push(0);
            }
            w[k] = w[k].max(c.chars().count());
        }
    }
    rows.iter()
        .map(|r| {
            let mut s = String::new();
            for (k, c) in r.iter().enumerate() {
                s.push_str(c);
                s.push_str(&" ".repeat(w[k].saturating_sub(c.chars().count()) + 2));
            }
            s.trim_end().to_string()
        })
        .collect()
}
