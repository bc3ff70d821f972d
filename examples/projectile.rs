//! Differentiable simulation: finds the launch velocities that send `n`
//! projectiles (gravity, quadratic drag; `examples/projectile.py`) to their
//! targets after `steps` steps, by gradient descent through the whole
//! simulation. Each iteration records the steps on a `Tape`, runs the
//! adjoints back from the loss (the squared misses) and moves the launch
//! velocities against the gradient. Prints the loss per iteration and draws
//! the trajectories of iterations 0, 2, 5 and the last (red to green;
//! targets as white crosses) to `out/projectile/trajectories.png`.
//!
//! ```text
//! cargo run --release --example projectile -- [--n N] [--steps S] [--device D]
//! ```

#[path = "common/mod.rs"]
mod common;
#[path = "projectile/sim.rs"]
mod sim;

use common::{ExampleError, Options};
use std::process::ExitCode;

const USAGE: &str = "\
usage: projectile [options]

Gradient descent on the launch velocities of N projectiles (default N = 8,
100 steps of 0.01 s, 40 iterations) through a differentiable simulation.";

/// Iterations of gradient descent, and its step size.
const ITERATIONS: usize = 40;
const RATE: f32 = 0.2;

fn run(opts: Options) -> Result<(), ExampleError> {
    let device = common::open_device(&opts.device)?;
    let n = opts.size.unwrap_or(8);
    let steps = opts.steps.unwrap_or(100);
    let sim = sim::Sim::new(&device, n, steps)?;
    println!(
        "weft projectile: {n} projectiles, {steps} steps on {}",
        device.name()
    );
    let mut v0 = vec![[3.0f32, 3.0]; n];
    let mut drawn = Vec::new();
    let keep = [0, 2, 5, ITERATIONS - 1];
    let t = std::time::Instant::now();
    for it in 0..ITERATIONS {
        let out = sim.run(&v0)?;
        println!("iteration {it:>3}  loss {:.6}", out.loss);
        if keep.contains(&it) {
            drawn.push((it, out.path.clone()));
        }
        for (v, g) in v0.iter_mut().zip(&out.grad) {
            v[0] -= RATE * g[0];
            v[1] -= RATE * g[1];
        }
    }
    println!(
        "{ITERATIONS} iterations (forward + backward of {steps} steps) in {:.3} s",
        t.elapsed().as_secs_f64()
    );
    if opts.frames > 0 {
        let path = opts.out.join("trajectories.png");
        draw(&path, opts.width, &drawn, &sim::targets(n))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Draws the trajectories (one colour per kept iteration) and the targets.
fn draw(
    path: &std::path::Path,
    width: usize,
    paths: &[(usize, Vec<Vec<[f32; 2]>>)],
    targets: &[[f32; 2]],
) -> Result<(), ExampleError> {
    let (w, h) = (width, width * 3 / 4);
    let mut img = vec![20u8; w * h * 3];
    // World window: x in [-0.5, 7], y in [-0.5, 5.125].
    let px = |p: [f32; 2]| {
        let s = (w as f32) / 7.5;
        let x = ((p[0] + 0.5) * s) as isize;
        let y = h as isize - 1 - ((p[1] + 0.5) * s) as isize;
        (x, y)
    };
    let mut plot = |x: isize, y: isize, c: [u8; 3]| {
        if x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h {
            let i = (y as usize * w + x as usize) * 3;
            img[i..i + 3].copy_from_slice(&c);
        }
    };
    let ground = px([0.0, 0.0]).1;
    for x in 0..w as isize {
        plot(x, ground, [70, 70, 70]);
    }
    for (k, (_, steps)) in paths.iter().enumerate() {
        let f = k as f32 / (paths.len().max(2) - 1) as f32;
        let c = [(230.0 * (1.0 - f)) as u8 + 20, (200.0 * f) as u8 + 40, 60];
        for state in steps {
            for &p in state {
                let (x, y) = px(p);
                plot(x, y, c);
                plot(x + 1, y, c);
            }
        }
    }
    for &t in targets {
        let (x, y) = px(t);
        for d in -4..=4 {
            plot(x + d, y + d, [255, 255, 255]);
            plot(x + d, y - d, [255, 255, 255]);
        }
    }
    common::write_png(path, w, h, &img)
}

fn main() -> ExitCode {
    common::main("projectile", USAGE, run)
}
