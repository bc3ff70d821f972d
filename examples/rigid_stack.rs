//! A stack of ten boxes on the ground, rigid bodies stepped by XPBD contact
//! kernels written in the Warp language (`examples/rigid_stack.py`):
//! box corners and edge points inside another box (the pair's normal from a
//! separating-axis test) or below the ground, with friction, solved
//! Jacobi-style with atomic accumulation. The tower stands; `--projectile`
//! throws a heavy box at it (frames to `out/rigid_stack/projectile/`). Reports steps/s, the top box's drift and the
//! largest tilt, and renders the boxes to `out/rigid_stack/frame_*.png`.
//!
//! ```text
//! cargo run --release --example rigid_stack -- [--projectile] [--steps S] [--device D] [--frames F]
//! ```

#[path = "common/mod.rs"]
mod common;
#[path = "rigid_stack/sim.rs"]
mod sim;

use common::{Camera, ExampleError, Options, Renderer, Splats, Stopwatch};
use std::process::ExitCode;

const USAGE: &str = "\
usage: rigid_stack [--projectile] [options]

Ten boxes stacked on the ground (default 500 steps of 1/60 s, 20 substeps each).
  --projectile  throw a heavy box at the tower (frames go to out/rigid_stack/projectile)";

/// Splats per face side when drawing a box.
const FACE_GRID: usize = 28;

/// The top box's distance from its start and the largest tilt (radians).
fn stats(sim: &sim::Sim, start: &[sim::Pose]) -> Result<(f32, f32), ExampleError> {
    let poses = sim.poses()?;
    let top = sim::TOWER - 1;
    let d = (0..3)
        .map(|c| (poses[top].pos[c] - start[top].pos[c]).powi(2))
        .sum::<f32>()
        .sqrt();
    let tilt = poses[..sim::TOWER]
        .iter()
        .map(sim::Pose::tilt)
        .fold(0.0f32, f32::max);
    if !d.is_finite() || !tilt.is_finite() {
        return Err(ExampleError::Sim("the simulation blew up".to_string()));
    }
    Ok((d, tilt))
}

fn run(opts: Options, projectile: bool) -> Result<(), ExampleError> {
    let device = common::open_device(&opts.device)?;
    let steps = opts.steps.unwrap_or(500);
    let mut sim = sim::Sim::new(&device, projectile)?;
    let renderer = Renderer::new(&device, opts.width, opts.width)?;
    println!(
        "weft rigid_stack: {} boxes{}, {steps} steps on {}",
        sim::TOWER,
        if projectile { " and a projectile" } else { "" },
        device.name()
    );

    let light = {
        let l = [-0.45f32, 0.8, -0.4];
        let n = (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt();
        l.map(|c| c / n)
    };
    let floor = Splats::floor([-3.0, -3.0], [3.0, 3.0], 0.0, 0.06, 0.025)?;
    let boxes = sim.splat_arrays(FACE_GRID)?;
    let camera = Camera::orbit([0.0, 1.2, 0.0], 0.6, 0.3, 5.0, opts.width);

    let start = sim.poses()?;
    let mut frames = common::frame_steps(steps, opts.frames)
        .into_iter()
        .peekable();
    let mut frame_index = 0;
    let mut clock = Stopwatch::default();
    for s in 1..=steps {
        clock.time(1, || sim.advance())?;
        if opts.report > 0 && s % opts.report == 0 {
            let (d, tilt) = stats(&sim, &start)?;
            println!(
                "step {s:>6}  top box moved {d:.4} m, largest tilt {:.2} deg",
                tilt.to_degrees()
            );
        }
        while frames.peek() == Some(&s) {
            frames.next();
            sim.splat_boxes(FACE_GRID, light, &boxes)?;
            renderer.begin()?;
            floor.draw(&renderer, &camera)?;
            let [points, colors, radius] = &boxes;
            renderer.splat(points, colors, radius, &camera)?;
            renderer.finish([0.004, 0.004, 0.008])?;
            renderer.save_png(&common::frame_path(&opts.out, frame_index))?;
            frame_index += 1;
        }
    }
    let (d, tilt) = stats(&sim, &start)?;
    println!(
        "after {steps} steps: top box moved {d:.4} m, largest tilt {:.2} deg",
        tilt.to_degrees()
    );
    clock.report(&device);
    if frame_index > 0 {
        println!("{frame_index} frame(s) in {}", opts.out.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    // `--projectile` is this example's own flag; the rest are the common ones.
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let projectile = args.iter().any(|a| a == "--projectile");
    args.retain(|a| a != "--projectile");
    match common::parse_args("rigid_stack", args) {
        Ok(common::Parsed::Help) => {
            println!("{USAGE}\n\n{}", common::COMMON_USAGE);
            ExitCode::SUCCESS
        }
        Ok(common::Parsed::Run(mut opts)) => {
            if projectile && opts.out == std::path::Path::new("out/rigid_stack") {
                opts.out.push("projectile");
            }
            match run(opts, projectile) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("{e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(msg) => {
            eprintln!("error: {msg}\n\n{USAGE}\n\n{}", common::COMMON_USAGE);
            ExitCode::from(2)
        }
    }
}
