//! Cloth falling onto a sphere: an `n` × `n` grid pinned at two corners,
//! position-based dynamics with XPBD distance constraints (structural,
//! shear and bend edges) solved Jacobi-style with atomic accumulation
//! (kernels in `examples/cloth.py`, the host loop in `cloth/sim.rs`).
//! Reports steps/s and how far the edges stretch, and renders the shaded
//! cloth and the sphere to `out/cloth/frame_*.png`.
//!
//! ```text
//! cargo run --release --example cloth -- [--n N] [--steps S] [--device D] [--frames F]
//! ```

#[path = "common/mod.rs"]
mod common;
#[path = "cloth/sim.rs"]
mod sim;

use common::{Camera, ExampleError, Options, Renderer, Splats, Stopwatch};
use sim::EdgeKind;
use std::process::ExitCode;
use weft::Array;

const USAGE: &str = "\
usage: cloth [options]

A cloth of N x N particles (default N = 48, 16 on interp; 180 steps of 1/60 s,
each 40 substeps of one Jacobi iteration).";

/// Dots on the sphere's surface (a Fibonacci spiral), lit from `light`.
fn sphere_splats(light: [f32; 3]) -> Result<Splats, ExampleError> {
    let n = 3000;
    let (c, r) = (sim::SPHERE_CENTER, sim::SPHERE_RADIUS);
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    let (mut pts, mut cols) = (Vec::new(), Vec::new());
    for k in 0..n {
        let y = 1.0 - 2.0 * (k as f32 + 0.5) / n as f32;
        let rho = (1.0 - y * y).sqrt();
        let a = golden * k as f32;
        let d = [rho * a.cos(), y, rho * a.sin()];
        pts.push([c[0] + r * d[0], c[1] + r * d[1], c[2] + r * d[2]]);
        let lit = 0.2 + 0.8 * (d[0] * light[0] + d[1] * light[1] + d[2] * light[2]).max(0.0);
        cols.push([0.3 * lit, 0.45 * lit, 0.7 * lit]);
    }
    Splats::new(&pts, &cols, &vec![0.03; n])
}

fn run(opts: Options) -> Result<(), ExampleError> {
    let device = common::open_device(&opts.device)?;
    let nx = opts
        .size
        .unwrap_or(if device.name() == "interp" { 16 } else { 48 });
    let steps = opts.steps.unwrap_or(180);
    let mut sim = sim::Sim::new(&device, nx)?;
    let renderer = Renderer::new(&device, opts.width, opts.width)?;
    println!(
        "weft cloth: {nx} x {nx} particles, {} edges, {steps} steps on {}",
        sim.rest.len(),
        device.name()
    );

    let light = {
        let l = [0.4f32, 0.8, -0.45];
        let n = (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt();
        l.map(|c| c / n)
    };
    let sphere = sphere_splats(light)?;
    let floor = Splats::floor([-1.6, -1.6], [1.6, 1.6], 0.0, 0.04, 0.02)?;
    let n = sim.n;
    let colors = Array::from_slice(&vec![[0.0f32; 3]; n], &[n])?;
    let spacing = sim::SIZE / (nx - 1) as f32;
    let radius = Array::from_slice(&vec![spacing * 0.9; n], &[n])?;
    let camera = Camera::orbit([0.0, 0.6, 0.0], 0.7, 0.35, 3.6, opts.width);

    let mut frames = common::frame_steps(steps, opts.frames)
        .into_iter()
        .peekable();
    let mut frame_index = 0;
    let mut clock = Stopwatch::default();
    for s in 1..=steps {
        clock.time(1, || sim.advance())?;
        if opts.report > 0 && s % opts.report == 0 {
            let (lo, hi) = sim.strain_range(EdgeKind::Structural)?;
            println!("step {s:>6}  structural edges at {lo:.3}..{hi:.3} of rest length");
        }
        while frames.peek() == Some(&s) {
            frames.next();
            sim.shade(light, &colors)?;
            renderer.begin()?;
            floor.draw(&renderer, &camera)?;
            sphere.draw(&renderer, &camera)?;
            renderer.splat(&sim.pos, &colors, &radius, &camera)?;
            renderer.finish([0.004, 0.004, 0.008])?;
            renderer.save_png(&common::frame_path(&opts.out, frame_index))?;
            frame_index += 1;
        }
    }
    for kind in [EdgeKind::Structural, EdgeKind::Shear, EdgeKind::Bend] {
        let (lo, hi) = sim.strain_range(kind)?;
        if !(lo.is_finite() && hi.is_finite()) {
            return Err(ExampleError::Sim("the cloth blew up".to_string()));
        }
        println!("{kind:?} edges: {lo:.3}..{hi:.3} of rest length");
    }
    clock.report(&device);
    if frame_index > 0 {
        println!("{frame_index} frame(s) in {}", opts.out.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    common::main("cloth", USAGE, run)
}
