//! The N-body demo: compiles `examples/nbody.py` (the seed's brute-force
//! `nbody_step` kernel and a per-body `body_energy` kernel), runs a
//! self-gravitating ball of bodies, reports speed and the relative energy
//! drift, and renders the bodies (projected on the rotation plane, coloured
//! by speed) to `out/nbody/frame_*.png` with Weft's splatting kernels.
//!
//! ```text
//! cargo run --release --example nbody -- [--n N] [--steps S] [--report K] [--device D] [--frames F]
//! ```
//!
//! See `nbody/sim.rs` for the initial conditions and the integrator. With
//! the defaults (`dt = 1e-3`, softening `eps = 0.05`) the relative drift
//! after 100 steps is about 2e-5.

#[path = "common/mod.rs"]
mod common;
#[path = "nbody/sim.rs"]
mod sim;

use common::{Camera, ExampleError, Options, Renderer, Stopwatch};
use std::process::ExitCode;
use weft::Array;

const USAGE: &str = "\
usage: nbody [options]

Brute-force O(N²) gravity (default N = 4096, 256 on interp; 100 steps).";

fn run(opts: Options) -> Result<(), ExampleError> {
    let device = common::open_device(&opts.device)?;
    let n = opts
        .size
        .unwrap_or(if device.name() == "interp" { 256 } else { 4096 });
    let steps = opts.steps.unwrap_or(100);

    let t = std::time::Instant::now();
    let mut sim = sim::Sim::new(&device, n)?;
    let renderer = Renderer::new(&device, opts.width, opts.width)?;
    println!(
        "weft N-body: {n} bodies, {steps} steps on {} (dt {}, G {}, eps² {:.4})",
        device.name(),
        sim::DT,
        sim::GRAV,
        sim::EPS2
    );
    println!("compile: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);

    let colors = Array::from_slice(&vec![[0.0f32; 3]; n], &[n])?;
    let radius = Array::from_slice(&vec![0.012f32; n], &[n])?;
    let camera = Camera::orbit([0.0; 3], 0.0, 0.35, 3.2, opts.width);
    let mut frames = common::frame_steps(steps, opts.frames)
        .into_iter()
        .peekable();
    let mut frame_index = 0;
    let mut draw = |sim: &sim::Sim| -> Result<(), ExampleError> {
        sim.speed()?;
        renderer.colorize(&sim.speed, 0.0, 1.6, &colors)?;
        renderer.points(&sim.pos, &colors, &radius, &camera, [0.0, 0.0, 0.02])?;
        let path = common::frame_path(&opts.out, frame_index);
        renderer.save_png(&path)?;
        frame_index += 1;
        Ok(())
    };

    let e0 = sim.total_energy()?;
    println!("step {:>6}  E = {e0:+.9}", 0);
    let mut clock = Stopwatch::default();
    for s in 1..=steps {
        clock.time(1, || sim.advance())?;
        if opts.report > 0 && s % opts.report == 0 && s != steps {
            let e = sim.total_energy()?;
            println!(
                "step {s:>6}  E = {e:+.9}  drift {:.3e}",
                ((e - e0) / e0).abs()
            );
        }
        while frames.peek() == Some(&s) {
            frames.next();
            draw(&sim)?;
        }
    }
    let e1 = sim.total_energy()?;
    let drift = ((e1 - e0) / e0).abs();
    if !drift.is_finite() {
        return Err(ExampleError::Sim(format!("energy is not finite: {e1}")));
    }
    println!("step {steps:>6}  E = {e1:+.9}  drift {drift:.3e}");
    clock.report(&device);
    if let Some(tier) = sim.step_tier() {
        println!("code              {tier} (nbody_step, at the last step)");
    }
    let interactions = (n as f64) * (n as f64) * clock.steps_per_s();
    println!("interactions/s    {interactions:.3e}");
    println!("energy drift      {drift:.3e}  (|E_end - E_0| / |E_0|)");
    if frame_index > 0 {
        println!("{frame_index} frame(s) in {}", opts.out.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    common::main("nbody", USAGE, run)
}
