//! 2-D stable fluids: a rising jet of dye on an `n` × `n` MAC grid with
//! solid walls — semi-Lagrangian advection, buoyancy, and pressure
//! projection by Jacobi iterations (kernels in `examples/fluid.py`, the host
//! loop in `fluid/sim.rs`). Reports steps/s and how much the projection
//! reduces the divergence, and renders the dye through a colormap to
//! `out/fluid/frame_*.png`.
//!
//! ```text
//! cargo run --release --example fluid -- [--n N] [--steps S] [--device D] [--frames F]
//! ```

#[path = "common/mod.rs"]
mod common;
#[path = "fluid/sim.rs"]
mod sim;

use common::{ExampleError, Options, Renderer, Stopwatch};
use std::process::ExitCode;

const USAGE: &str = "\
usage: fluid [options]

Stable fluids on an N x N grid (default N = 192, 48 on interp; 400 steps, 80
Jacobi iterations each).";

fn run(opts: Options) -> Result<(), ExampleError> {
    let device = common::open_device(&opts.device)?;
    let n = opts
        .size
        .unwrap_or(if device.name() == "interp" { 48 } else { 192 });
    let steps = opts.steps.unwrap_or(400);
    let mut sim = sim::Sim::new(&device, n)?;
    let renderer = Renderer::new(&device, opts.width, opts.width)?;
    println!(
        "weft fluid: {n} x {n} grid, {} Jacobi iterations, {steps} steps on {}",
        sim.jacobi_iterations,
        device.name()
    );
    let mut frames = common::frame_steps(steps, opts.frames)
        .into_iter()
        .peekable();
    let mut frame_index = 0;
    let mut clock = Stopwatch::default();
    for s in 1..=steps {
        if opts.report > 0 && s % opts.report == 0 {
            // The step, in parts, with the divergence around the projection
            // (read back to the host, so these steps are not timed).
            sim.add_forces()?;
            let before = sim.divergence_rms()?;
            sim.project()?;
            let after = sim.divergence_rms()?;
            sim.advect()?;
            println!("step {s:>6}  rms divergence {before:.3e} -> {after:.3e} by the projection");
            sim.finish_step();
        } else {
            clock.time(1, || sim.advance())?;
        }
        while frames.peek() == Some(&s) {
            frames.next();
            renderer.field(&sim.dye, 0.0, 1.0)?;
            renderer.save_png(&common::frame_path(&opts.out, frame_index))?;
            frame_index += 1;
        }
    }
    let dye: f64 = sim.dye.to_vec::<f32>()?.iter().map(|&x| f64::from(x)).sum();
    if !dye.is_finite() {
        return Err(ExampleError::Sim("the dye is not finite".to_string()));
    }
    println!("total dye {dye:.1}");
    clock.report(&device);
    if frame_index > 0 {
        println!("{frame_index} frame(s) in {}", opts.out.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    common::main("fluid", USAGE, run)
}
