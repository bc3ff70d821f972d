//! Fast math, measured: the transcendental kernel
//! (`sin(x)*cos(x) + exp(-x*x) + sqrt(abs(x))`, 2^22 elements, x in
//! [-4, 4)) compiled precise and with `--fast-math` on each backend
//! available (cpu, llvm-cpu; cuda and vulkan when present), printing the
//! median launch time of each, the speed-up, and the largest absolute and
//! relative (to max(1, |precise|)) difference from the precise result.
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

fn run(dev: &Device, fast: bool, x: &[f32], reps: usize) -> Result<(f64, Vec<f32>), Error> {
    let c = Compiler::with_options(CompileOptions {
        fast_math: fast,
        ..CompileOptions::default()
    });
    let m = c.compile("fastmath.py", SOURCE)?;
    let k = dev.load(&m, "transcendental")?;
    let n = x.len();
    let xa = Array::from_slice(x, &[n])?;
    let ya = Array::from_slice(&vec![0.0f32; n], &[n])?;
    let args = [Arg::array(&xa), Arg::array(&ya)];
    dev.launch(&k, &[n], &args)?;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        dev.launch(&k, &[n], &args)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok((times[reps / 2], ya.to_vec::<f32>()?))
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
        let (tp, p) = run(&dev, false, &x, reps)?;
        let (tf, f) = run(&dev, true, &x, reps)?;
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
