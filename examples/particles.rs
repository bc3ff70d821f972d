//! Particles in a box: `n` particles thrown into an open box under gravity,
//! bouncing off the ground and the walls with restitution and friction
//! (kernels in `examples/particles.py`). Reports steps/s and the mechanical
//! energy (which contacts only dissipate), and renders the particles
//! coloured by speed to `out/particles/frame_*.png`.
//!
//! ```text
//! cargo run --release --example particles -- [--n N] [--steps S] [--device D] [--frames F]
//! ```

#[path = "common/mod.rs"]
mod common;
#[path = "particles/sim.rs"]
mod sim;

use common::{Camera, ExampleError, Options, Renderer, Splats, Stopwatch};
use std::process::ExitCode;
use weft::Array;

const USAGE: &str = "\
usage: particles [options]

Particles bouncing in a box (default N = 20000, 2000 on interp; 720 steps of 1/240 s).";

fn run(opts: Options) -> Result<(), ExampleError> {
    let device = common::open_device(&opts.device)?;
    let n = opts.size.unwrap_or(if device.name() == "interp" {
        2000
    } else {
        20000
    });
    let steps = opts.steps.unwrap_or(720);
    let mut sim = sim::Sim::new(&device, n)?;
    let renderer = Renderer::new(&device, opts.width, opts.width)?;
    println!(
        "weft particles: {n} particles, {steps} steps on {}",
        device.name()
    );

    let hw = sim::HALF_WIDTH;
    let floor = Splats::floor([-hw, -hw], [hw, hw], 0.0, 0.05, 0.02)?;
    let edges = Splats::box_edges(
        [-hw, 0.0, -hw],
        [hw, 1.0, hw],
        0.01,
        [0.45, 0.5, 0.6],
        0.006,
    )?;
    let colors = Array::from_slice(&vec![[0.0f32; 3]; n], &[n])?;
    let radius = Array::from_slice(&vec![sim::RADIUS; n], &[n])?;
    let camera = Camera::orbit([0.0, 0.6, 0.0], 0.5, 0.5, 3.2, opts.width);

    let e0 = sim.total_energy()?;
    println!("step {:>6}  E = {e0:.4}", 0);
    let mut frames = common::frame_steps(steps, opts.frames)
        .into_iter()
        .peekable();
    let mut frame_index = 0;
    let mut clock = Stopwatch::default();
    for s in 1..=steps {
        clock.time(1, || sim.advance())?;
        if opts.report > 0 && s % opts.report == 0 {
            println!("step {s:>6}  E = {:.4}", sim.total_energy()?);
        }
        while frames.peek() == Some(&s) {
            frames.next();
            sim.total_energy()?;
            renderer.colorize(&sim.speed, 0.0, 5.0, &colors)?;
            renderer.begin()?;
            floor.draw(&renderer, &camera)?;
            edges.draw(&renderer, &camera)?;
            renderer.splat(&sim.pos, &colors, &radius, &camera)?;
            renderer.finish([0.004, 0.004, 0.008])?;
            renderer.save_png(&common::frame_path(&opts.out, frame_index))?;
            frame_index += 1;
        }
    }
    let e1 = sim.total_energy()?;
    println!(
        "step {steps:>6}  E = {e1:.4}  ({:.1}% of the initial energy)",
        100.0 * e1 / e0
    );
    let escaped = sim.escaped(1e-4)?;
    if let Some((i, p)) = escaped.first() {
        return Err(ExampleError::Sim(format!(
            "{} particles left the box, e.g. #{i} at {p:?}",
            escaped.len()
        )));
    }
    clock.report(&device);
    if frame_index > 0 {
        println!("{frame_index} frame(s) in {}", opts.out.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    common::main("particles", USAGE, run)
}
