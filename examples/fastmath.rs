//! Fast math, measured: the transcendental kernel
//! (`sin(x)*cos(x) + exp(-x*x) + sqrt(abs(x))`, 2^22 elements, x in
//! [-4, 4)) compiled precise and with `--fast-math` on each backend
//! available (cpu, llvm-cpu; cuda and vulkan when present), printing the
//! median launch time of each, the speed-up, and the largest absolute and
//! relative (to max(1, |precise|)) difference from the precise result.
//! The two variants are launched alternately. On cpu and llvm-cpu the fast
//! variant inlines `weft_backend_cpu::fastmath`'s `f32` approximations of
//! `sin`, `cos` and `exp` (cpu also runs them 4 lanes wide); figures in
//! `docs/passes.md`, "Fast math".
//!
//! `cargo run --release --example fastmath [-- LOG2_N [REPS]]`

use std::time::Instant;
use weft::{Arg, Array, CompileOptions, Compiler, Device, Error};

const SOURCE: &str = r#"
import warp as wp

@wp.kernel
def transcendental(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    y[i] = wp.sin(v) * wp.cos(v) + wp.exp(-v * v) + wp.sqrt(wp.abs(v))
"#;

/// Both variants loaded, then launched alternately (precise, fast, ...)
/// so that machine load and clock changes hit both alike. Returns the
/// median times (ms) and the outputs, precise first.
#[allow(clippy::type_complexity)]
fn run(dev: &Device, x: &[f32], reps: usize) -> Result<([f64; 2], [Vec<f32>; 2]), Error> {
    let n = x.len();
    let xa = Array::from_slice(x, &[n])?;
    let mut kernels = Vec::new();
    let mut outs = Vec::new();
    for fast_math in [false, true] {
        let c = Compiler::with_options(CompileOptions {
            fast_math,
            ..CompileOptions::default()
        });
        let m = c.compile("fastmath.py", SOURCE)?;
        kernels.push(dev.load(&m, "transcendental")?);
        outs.push(Array::from_slice(&vec![0.0f32; n], &[n])?);
    }
    let mut times = [Vec::with_capacity(reps), Vec::with_capacity(reps)];
    for rep in 0..=reps {
        for v in 0..2 {
            let args = [Arg::array(&xa), Arg::array(&outs[v])];
            let t = Instant::now();
            dev.launch(&kernels[v], &[n], &args)?;
            if rep > 0 {
                times[v].push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    let median = |t: &mut Vec<f64>| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    };
    Ok((
        [median(&mut times[0]), median(&mut times[1])],
        [outs[0].to_vec::<f32>()?, outs[1].to_vec::<f32>()?],
    ))
}

fn main() -> Result<(), Error> {
    let mut argv = std::env::args().skip(1);
    let log2: u32 = argv.next().and_then(|s| s.parse().ok()).unwrap_or(22);
    let reps: usize = argv.next().and_then(|s| s.parse().ok()).unwrap_or(21);
    let n = 1usize << log2;
    let x: Vec<f32> = (0..n).map(|i| -4.0 + 8.0 * i as f32 / n as f32).collect();
    println!("transcendental 2^{log2}, median of {reps} launches");
    println!(
        "{:<9} {:>11} {:>11} {:>8} {:>12} {:>12}",
        "backend", "precise ms", "fast ms", "speed-up", "max abs err", "max rel err"
    );
    for name in ["cpu", "llvm-cpu", "cuda", "vulkan"] {
        let Ok(dev) = Device::open(name) else {
            println!("{name:<9} (not available)");
            continue;
        };
        let ([tp, tf], [p, f]) = run(&dev, &x, reps.max(1))?;
        let (mut abs, mut rel) = (0.0f64, 0.0f64);
        for (a, b) in p.iter().zip(&f) {
            let d = (*a as f64 - *b as f64).abs();
            abs = abs.max(d);
            rel = rel.max(d / (*a as f64).abs().max(1.0));
        }
        println!(
            "{name:<9} {tp:>11.3} {tf:>11.3} {:>7.2}x {abs:>12.3e} {rel:>12.3e}",
            tp / tf
        );
    }
    Ok(())
}
