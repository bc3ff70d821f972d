//! Weft's CPU JIT against hand-written Rust + rayon loops of the same
//! computation, and the cold compile time of the N-body module.
//!
//! - `saxpy/*`: `y[i] = a * x[i] + y[i]` over 2^24 float32.
//! - `nbody/*`: one `nbody_step` of `examples/nbody.py` at N = 4096; the
//!   hand-written loop performs the same f32 operations in the same order
//!   (`1.0 / sqrt(r2)`, no fused multiply-add), so both give bitwise the
//!   same result, which the setup checks and prints.
//! - `compile_nbody`: source text → runnable CPU kernel (`Compiler::compile`
//!   and `Device::load`), from scratch each iteration;
//!   `compile_nbody_warm_cache`: the same with the optimized IR read from a
//!   warm disk cache; `load_nbody_in_memory`: `Device::load` of a module
//!   already compiled for the CPU.
//! - `elementwise/*`: `sin(x)*cos(x) + exp(-x*x) + sqrt(abs(x))` and an
//!   atomic float sum over 2^22; `launch_overhead_cpu_dim1`: saxpy over
//!   one thread. `weft bench` measures all of these on every backend.
//!
//! Both sides split the work like the runtime does (4 contiguous chunks per
//! rayon thread). Run with `cargo bench --bench kernels`; sample counts are
//! small so the whole run takes a few minutes on two cores. After
//! criterion's figures, a paired summary times each pair alternately and
//! prints the ratio of the fastest runs (wall time on all cores, and CPU
//! time on one thread), which other processes on a shared machine disturb
//! much less than criterion's means.

use criterion::{criterion_group, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};
use weft::{Arg, Array, Compiler, Device, Kernel};
use weft_devtools::reference::{bodies, nbody_step, saxpy as saxpy_rayon, V3};

const NBODY_SOURCE: &str = include_str!("../examples/nbody.py");

const SAXPY_SOURCE: &str = r#"
import warp as wp

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
"#;

const SAXPY_N: usize = 1 << 24;
const NBODY_N: usize = 4096;
const DT: f32 = 1e-3;
const GRAV: f32 = 1.0;
const EPS2: f32 = 0.0025;

fn load(source: &str, name: &str) -> Kernel {
    let module = Compiler::new()
        .compile("bench.py", source)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    Device::cpu()
        .load(&module, name)
        .unwrap_or_else(|e| panic!("{}", e.render(false)))
}

fn bench_saxpy(c: &mut Criterion) {
    let a = 0.5f32;
    let xs: Vec<f32> = (0..SAXPY_N).map(|i| (i % 1000) as f32 * 1e-3).collect();
    let ys: Vec<f32> = (0..SAXPY_N).map(|i| (i % 77) as f32).collect();

    let cpu = Device::cpu();
    let kernel = load(SAXPY_SOURCE, "saxpy");
    let x = Array::from_slice(&xs, &[SAXPY_N]).expect("x");
    let y = Array::from_slice(&ys, &[SAXPY_N]).expect("y");

    // Same result from both sides after one launch.
    let mut y_ref = ys.clone();
    saxpy_rayon(a, &xs, &mut y_ref);
    cpu.launch(
        &kernel,
        &[SAXPY_N],
        &[Arg::array(&x), Arg::array(&y), Arg::f32(a)],
    )
    .expect("saxpy launch");
    let y_weft = y.to_vec::<f32>().expect("y");
    let same = y_weft
        .iter()
        .zip(&y_ref)
        .all(|(p, q)| p.to_bits() == q.to_bits());
    println!("saxpy: weft and hand-written results are bitwise equal: {same}");

    let mut g = c.benchmark_group("saxpy");
    g.throughput(Throughput::Elements(SAXPY_N as u64));
    g.bench_function("weft_cpu", |b| {
        b.iter(|| {
            cpu.launch(
                &kernel,
                &[SAXPY_N],
                &[Arg::array(&x), Arg::array(&y), Arg::f32(black_box(a))],
            )
            .expect("saxpy launch")
        })
    });
    let mut y_hand = ys.clone();
    g.bench_function("rust_rayon", |b| {
        b.iter(|| saxpy_rayon(black_box(a), &xs, &mut y_hand))
    });
    g.finish();
}

fn bench_nbody(c: &mut Criterion) {
    let n = NBODY_N;
    let (pos, vel, mass) = bodies(n);

    let cpu = Device::cpu();
    let kernel = load(NBODY_SOURCE, "nbody_step");
    let pos_a = Array::from_slice(&pos, &[n]).expect("pos");
    let vel_a = Array::from_slice(&vel, &[n]).expect("vel");
    let mass_a = Array::from_slice(&mass, &[n]).expect("mass");
    let new_pos_a = Array::zeros(pos_a.dtype().clone(), &[n]).expect("new_pos");
    let new_vel_a = Array::zeros(pos_a.dtype().clone(), &[n]).expect("new_vel");
    let step = || {
        cpu.launch(
            &kernel,
            &[n],
            &[
                Arg::array(&pos_a),
                Arg::array(&vel_a),
                Arg::array(&mass_a),
                Arg::array(&new_pos_a),
                Arg::array(&new_vel_a),
                Arg::i32(n as i32),
                Arg::f32(black_box(DT)),
                Arg::f32(GRAV),
                Arg::f32(EPS2),
            ],
        )
        .expect("nbody launch")
    };

    let mut new_pos = vec![[0.0f32; 3]; n];
    let mut new_vel = vec![[0.0f32; 3]; n];
    let consts = (DT, GRAV, EPS2);
    nbody_step(&pos, &vel, &mass, &mut new_pos, &mut new_vel, consts);
    step();
    let weft_pos = new_pos_a.to_vec::<V3>().expect("new_pos");
    let weft_vel = new_vel_a.to_vec::<V3>().expect("new_vel");
    let bits = |v: &[V3]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
    let same = bits(&weft_pos) == bits(&new_pos) && bits(&weft_vel) == bits(&new_vel);
    println!("nbody: weft and hand-written results are bitwise equal: {same}");

    let mut g = c.benchmark_group("nbody");
    g.throughput(Throughput::Elements((n * n) as u64));
    g.measurement_time(Duration::from_secs(8));
    g.bench_function("weft_cpu", |b| b.iter(step));
    g.bench_function("rust_rayon", |b| {
        b.iter(|| {
            nbody_step(
                &pos,
                &vel,
                &mass,
                &mut new_pos,
                &mut new_vel,
                black_box(consts),
            )
        })
    });
    g.finish();
}

fn bench_compile(c: &mut Criterion) {
    c.bench_function("compile_nbody", |b| {
        b.iter(|| {
            let module = Compiler::new()
                .compile("examples/nbody.py", black_box(NBODY_SOURCE))
                .expect("compile");
            Device::cpu().load(&module, "nbody_step").expect("load")
        })
    });
    // The optimized IR from a (private, pre-warmed) disk cache, then
    // Cranelift: what a second process pays.
    let dir = std::env::temp_dir().join(format!("weft-bench-kernels-{}", std::process::id()));
    let cached = Compiler::new().with_cache(weft::CacheLocation::Dir(dir.clone()));
    cached
        .compile("examples/nbody.py", NBODY_SOURCE)
        .expect("warm the cache");
    c.bench_function("compile_nbody_warm_cache", |b| {
        b.iter(|| {
            let (module, hit) = cached
                .compile_cached("examples/nbody.py", black_box(NBODY_SOURCE))
                .expect("compile");
            assert!(hit);
            Device::cpu().load(&module, "nbody_step").expect("load")
        })
    });
    let _ = std::fs::remove_dir_all(&dir);
    // A module already compiled for the device: a lookup.
    let module = Compiler::new()
        .compile("examples/nbody.py", NBODY_SOURCE)
        .expect("compile");
    let cpu = Device::cpu();
    cpu.load(&module, "nbody_step").expect("load");
    c.bench_function("load_nbody_in_memory", |b| {
        b.iter(|| cpu.load(&module, black_box("nbody_step")).expect("load"))
    });
}

/// The transcendental and atomic-sum kernels of `weft bench`.
const MORE_SOURCE: &str = weft_devtools::bench::SOURCE;

/// The transcendental-heavy elementwise kernel and the atomic sum (2^22
/// each), and the launch overhead (saxpy over dim = 1), on the CPU.
fn bench_more(c: &mut Criterion) {
    let n = 1usize << 22;
    let cpu = Device::cpu();
    let xs: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 1e-3 - 0.5).collect();
    let x = Array::from_slice(&xs, &[n]).expect("x");
    let y = Array::from_slice(&vec![0.0f32; n], &[n]).expect("y");
    let total = Array::from_slice(&[0.0f32], &[1]).expect("total");
    let mut g = c.benchmark_group("elementwise");
    g.throughput(Throughput::Elements(n as u64));
    let tr = load(MORE_SOURCE, "transcendental");
    g.bench_function("transcendental_weft_cpu", |b| {
        b.iter(|| {
            cpu.launch(&tr, &[n], &[Arg::array(&x), Arg::array(&y)])
                .expect("launch")
        })
    });
    let at = load(MORE_SOURCE, "atomic_sum");
    g.bench_function("atomic_sum_weft_cpu", |b| {
        b.iter(|| {
            cpu.launch(&at, &[n], &[Arg::array(&x), Arg::array(&total)])
                .expect("launch")
        })
    });
    g.finish();
    let saxpy = load(SAXPY_SOURCE, "saxpy");
    let (x1, y1) = (
        Array::from_slice(&[1.0f32], &[1]).expect("x"),
        Array::from_slice(&[1.0f32], &[1]).expect("y"),
    );
    c.bench_function("launch_overhead_cpu_dim1", |b| {
        b.iter(|| {
            cpu.launch(
                &saxpy,
                &[1],
                &[Arg::array(&x1), Arg::array(&y1), Arg::f32(black_box(0.5))],
            )
            .expect("launch")
        })
    });
}

/// CPU time consumed so far by the calling thread (`None` where the
/// clock is missing). Unlike wall time it does not count the time other
/// processes hold the core.
fn cpu_ns() -> Option<u64> {
    weft_devtools::bench::scaling::cpu_ns(true)
}

/// Fastest wall and CPU time of one side of a pair.
#[derive(Clone, Copy)]
struct Best {
    wall: Duration,
    cpu: Option<Duration>,
}

impl Best {
    fn new() -> Best {
        Best {
            wall: Duration::MAX,
            cpu: Some(Duration::MAX),
        }
    }
    fn run(&mut self, f: &mut dyn FnMut()) {
        let (c0, t) = (cpu_ns(), Instant::now());
        f();
        let wall = t.elapsed();
        let cpu = cpu_ns()
            .zip(c0)
            .map(|(c1, c0)| Duration::from_nanos(c1 - c0));
        self.wall = self.wall.min(wall);
        self.cpu = self.cpu.zip(cpu).map(|(a, b)| a.min(b));
    }
}

/// Runs `a` and `b` alternately `rounds` times; each one's fastest times.
/// On a shared machine other processes only ever add time, so the minimum
/// of interleaved runs is the steadiest estimate of the ratio.
fn paired_min(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (Best, Best) {
    let (mut best_a, mut best_b) = (Best::new(), Best::new());
    for _ in 0..rounds {
        best_a.run(&mut a);
        best_b.run(&mut b);
    }
    (best_a, best_b)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One line of the paired summary: weft and hand-written, wall or CPU.
fn report(what: &str, weft: Best, hand: Best, cpu: bool) {
    let pick = |b: Best| if cpu { b.cpu } else { Some(b.wall) };
    if let (Some(w), Some(h)) = (pick(weft), pick(hand)) {
        println!(
            "  {what:<16} weft {:9.3} ms   rust+rayon {:9.3} ms   ratio {:.2}",
            ms(w),
            ms(h),
            ms(w) / ms(h)
        );
    }
}

/// Times the saxpy and N-body pairs on the current rayon pool.
fn measure_pairs(rounds: usize) -> [(&'static str, Best, Best); 2] {
    let a = 0.5f32;
    let xs: Vec<f32> = (0..SAXPY_N).map(|i| (i % 1000) as f32 * 1e-3).collect();
    let mut ys: Vec<f32> = (0..SAXPY_N).map(|i| (i % 77) as f32).collect();
    let cpu = Device::cpu();
    let saxpy = load(SAXPY_SOURCE, "saxpy");
    let x = Array::from_slice(&xs, &[SAXPY_N]).expect("x");
    let y = Array::from_slice(&ys, &[SAXPY_N]).expect("y");
    let (sw, sh) = paired_min(
        rounds * 3,
        || {
            cpu.launch(
                &saxpy,
                &[SAXPY_N],
                &[Arg::array(&x), Arg::array(&y), Arg::f32(a)],
            )
            .expect("saxpy launch")
        },
        || saxpy_rayon(black_box(a), &xs, &mut ys),
    );

    let n = NBODY_N;
    let (pos, vel, mass) = bodies(n);
    let step = load(NBODY_SOURCE, "nbody_step");
    let arrays = [&pos, &vel].map(|v| Array::from_slice(v, &[n]).expect("vec3 array"));
    let mass_a = Array::from_slice(&mass, &[n]).expect("mass");
    let out = [(); 2].map(|_| Array::zeros(arrays[0].dtype().clone(), &[n]).expect("out"));
    let mut new_pos = vec![[0.0f32; 3]; n];
    let mut new_vel = vec![[0.0f32; 3]; n];
    let (nw, nh) = paired_min(
        rounds,
        || {
            cpu.launch(
                &step,
                &[n],
                &[
                    Arg::array(&arrays[0]),
                    Arg::array(&arrays[1]),
                    Arg::array(&mass_a),
                    Arg::array(&out[0]),
                    Arg::array(&out[1]),
                    Arg::i32(n as i32),
                    Arg::f32(DT),
                    Arg::f32(GRAV),
                    Arg::f32(EPS2),
                ],
            )
            .expect("nbody launch")
        },
        || {
            let consts = black_box((DT, GRAV, EPS2));
            nbody_step(&pos, &vel, &mass, &mut new_pos, &mut new_vel, consts)
        },
    );
    [("saxpy 2^24 f32", sw, sh), ("nbody N=4096", nw, nh)]
}

/// Prints weft / hand-written ratios from interleaved min-of-N timings: wall
/// time on all cores, then CPU time on a one-thread pool, where the whole
/// launch runs on the measuring thread (the time other processes on a
/// shared machine take does not count).
fn paired_summary() {
    println!("\npaired summary (interleaved runs, fastest of each)");
    println!(
        " wall time, {} rayon threads:",
        rayon::current_num_threads()
    );
    for (what, w, h) in measure_pairs(12) {
        report(what, w, h, false);
    }
    if cpu_ns().is_some() {
        match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
            Ok(pool) => {
                println!(" CPU time, 1 rayon thread:");
                for (what, w, h) in pool.install(|| measure_pairs(5)) {
                    report(what, w, h, true);
                }
            }
            Err(e) => println!(" (no 1-thread pool: {e})"),
        }
    }

    let mut best = Best::new();
    for _ in 0..30 {
        best.run(&mut || {
            let module = Compiler::new()
                .compile("examples/nbody.py", black_box(NBODY_SOURCE))
                .expect("compile");
            Device::cpu().load(&module, "nbody_step").expect("load");
        });
    }
    print!(
        " compile_nbody (fastest of 30): {:.3} ms wall",
        ms(best.wall)
    );
    match best.cpu {
        Some(c) => println!(", {:.3} ms CPU", ms(c)),
        None => println!(),
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_saxpy, bench_nbody, bench_compile, bench_more
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    // Only under `cargo bench` (not `cargo test --benches`), and not when
    // profiling one benchmark.
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--profile-time") {
        paired_summary();
    }
}
