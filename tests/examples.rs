//! Smoke tests of the examples at small sizes: each runs the example's own
//! simulation code (`examples/<name>/sim.rs`, included here) on the CPU,
//! and on Vulkan when a Vulkan device opens here (otherwise it prints
//! a counted `SKIP: ...`), and checks a physical property of the result.

#[allow(dead_code)]
#[path = "../examples/cloth/sim.rs"]
mod cloth;
#[path = "../examples/common/mod.rs"]
mod common;
#[allow(dead_code)]
#[path = "../examples/fluid/sim.rs"]
mod fluid;
#[allow(dead_code)]
#[path = "../examples/nbody/sim.rs"]
mod nbody;
#[allow(dead_code)]
#[path = "../examples/particles/sim.rs"]
mod particles;
#[allow(dead_code)]
#[path = "../examples/projectile/sim.rs"]
mod projectile;

use weft::{Array, Device};

/// The CPU, and Vulkan where it opens.
fn devices(test: &str) -> Vec<Device> {
    let mut out = vec![Device::cpu()];
    match Device::open("vulkan") {
        Ok(d) => out.push(d),
        Err(e) => weft_testkit::skip(format!("{test} on vulkan: {e}")),
    }
    out
}

#[test]
fn nbody_energy_drift_is_small() {
    for device in devices("nbody") {
        let mut sim = nbody::Sim::new(&device, 128).unwrap();
        let e0 = sim.total_energy().unwrap();
        for _ in 0..100 {
            sim.advance().unwrap();
        }
        let e1 = sim.total_energy().unwrap();
        let drift = ((e1 - e0) / e0).abs();
        println!(
            "{}: nbody E {e0:.6} -> {e1:.6}, drift {drift:.2e}",
            device.name()
        );
        assert!(e0 < 0.0, "a bound cluster has negative energy, got {e0}");
        assert!(drift < 1e-3, "{}: energy drift {drift:.3e}", device.name());
        // Bodies moved: the step did something.
        let (p0, _, _) = nbody::initial_conditions(128);
        let p1 = sim.pos.to_vec::<[f32; 3]>().unwrap();
        assert!(p0.iter().zip(&p1).any(|(a, b)| a != b));
        // The code the demo reports: each device's own kind.
        let tier = sim.step_tier().unwrap();
        match device.name() {
            "vulkan" => assert_eq!(tier, weft::CodeTier::Spirv),
            _ => assert!(
                matches!(
                    tier,
                    weft::CodeTier::Cranelift | weft::CodeTier::Llvm { .. }
                ),
                "{tier:?}"
            ),
        }
    }
}

#[test]
fn particles_stay_in_the_box_and_lose_energy() {
    for device in devices("particles") {
        let mut sim = particles::Sim::new(&device, 600).unwrap();
        let e0 = sim.total_energy().unwrap();
        let mut bounced = false;
        for _ in 0..400 {
            sim.advance().unwrap();
            let pos = sim.pos.to_vec::<[f32; 3]>().unwrap();
            bounced |= pos.iter().any(|p| p[1] <= particles::RADIUS + 1e-4);
            let escaped = sim.escaped(1e-4).unwrap();
            assert!(
                escaped.is_empty(),
                "{}: {} particles left the box, e.g. {:?}",
                device.name(),
                escaped.len(),
                escaped[0]
            );
        }
        let e1 = sim.total_energy().unwrap();
        println!("{}: particles E {e0:.2} -> {e1:.2}", device.name());
        assert!(bounced, "no particle reached the ground");
        // Contacts only dissipate (restitution < 1, friction), and 400
        // steps of bouncing lose a good part of it.
        assert!(e1 < 0.8 * e0, "{}: energy {e0} -> {e1}", device.name());
    }
}

#[test]
fn cloth_edges_keep_their_length_and_the_sphere_holds_it() {
    for device in devices("cloth") {
        let nx = 12;
        let mut sim = cloth::Sim::new(&device, nx).unwrap();
        for _ in 0..90 {
            sim.advance().unwrap();
        }
        let (lo, hi) = sim.strain_range(cloth::EdgeKind::Structural).unwrap();
        println!(
            "{}: cloth structural edges at {lo:.3}..{hi:.3} of rest",
            device.name()
        );
        assert!(
            lo > 0.85 && hi < 1.2,
            "{}: structural edges at {lo}..{hi} of their rest length",
            device.name()
        );
        let pos = sim.pos.to_vec::<[f32; 3]>().unwrap();
        // The pinned corners have not moved.
        let (p0, _, _) = cloth::grid(nx);
        assert_eq!(pos[0], p0[0]);
        assert_eq!(pos[nx - 1], p0[nx - 1]);
        // The cloth fell, and nothing is inside the sphere or the ground.
        let c = cloth::SPHERE_CENTER;
        let lowest = pos.iter().map(|p| p[1]).fold(f32::INFINITY, f32::min);
        assert!(lowest < cloth::HEIGHT - 0.5, "the cloth did not fall");
        for p in &pos {
            let d = ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2)).sqrt();
            assert!(d > cloth::SPHERE_RADIUS, "{p:?} is inside the sphere");
            assert!(p[1] > 0.0, "{p:?} is under the ground");
        }
    }
}

#[test]
fn fluid_projection_reduces_divergence() {
    for device in devices("fluid") {
        let mut sim = fluid::Sim::new(&device, 32).unwrap();
        for step in 0..30 {
            sim.add_forces().unwrap();
            let before = sim.divergence_rms().unwrap();
            sim.project().unwrap();
            let after = sim.divergence_rms().unwrap();
            sim.advect().unwrap();
            sim.finish_step();
            if step % 10 == 9 {
                println!(
                    "{}: fluid step {step}: divergence {before:.3e} -> {after:.3e}",
                    device.name()
                );
            }
            assert!(before > 1e-4, "the jet adds divergence: {before}");
            assert!(
                after < 0.1 * before,
                "{}: step {step}: divergence {before:.3e} -> {after:.3e}",
                device.name()
            );
        }
        let dye: f32 = sim.dye.to_vec::<f32>().unwrap().iter().sum();
        assert!(dye.is_finite() && dye > 0.0);
    }
}

#[test]
fn renderer_draws_points_and_fields() {
    for device in devices("renderer") {
        let r = common::Renderer::new(&device, 32, 32).unwrap();
        // One point at the origin, seen head-on: a disc in the middle.
        let cam = common::Camera::orbit([0.0; 3], 0.0, 0.0, 2.0, 32);
        let pts = Array::from_slice(&[[0.0f32; 3]], &[1]).unwrap();
        let cols = Array::from_slice(&[[1.0f32, 0.0, 0.0]], &[1]).unwrap();
        let rad = Array::from_slice(&[0.25f32], &[1]).unwrap();
        r.points(&pts, &cols, &rad, &cam, [0.0, 0.0, 1.0]).unwrap();
        let img = r.image.to_vec::<[f32; 3]>().unwrap();
        let at = |y: usize, x: usize| img[y * 32 + x];
        assert!(
            at(16, 16)[0] > 0.9 && at(16, 16)[2] < 0.1,
            "{:?}",
            at(16, 16)
        );
        assert_eq!(at(0, 0), [0.0, 0.0, 1.0]);
        assert_eq!(at(16, 2), [0.0, 0.0, 1.0]);
        // A field rising to the top: the top row is brighter than the bottom.
        let f: Vec<f32> = (0..64).map(|k| (k / 8) as f32 / 7.0).collect();
        let field = Array::from_slice(&f, &[8, 8]).unwrap();
        r.field(&field, 0.0, 1.0).unwrap();
        let img = r.image.to_vec::<[f32; 3]>().unwrap();
        let lum = |p: [f32; 3]| p[0] + p[1] + p[2];
        assert!(lum(img[0]) > lum(img[31 * 32]) + 1.0);
        let rgb = r.rgb8().unwrap();
        assert_eq!(rgb.len(), 32 * 32 * 3);
    }
}

#[test]
fn example_options_parse() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let parsed = common::parse_args(
        "cloth",
        args(&[
            "--device",
            "vulkan",
            "--steps=7",
            "--n",
            "9",
            "--frames",
            "0",
        ]),
    )
    .unwrap();
    let common::Parsed::Run(o) = parsed else {
        panic!("expected options, got {parsed:?}");
    };
    assert_eq!(o.device, "vulkan");
    assert_eq!(o.steps, Some(7));
    assert_eq!(o.size, Some(9));
    assert_eq!(o.frames, 0);
    assert_eq!(o.out, std::path::Path::new("out").join("cloth"));
    assert!(matches!(
        common::parse_args("x", args(&["-h"])),
        Ok(common::Parsed::Help)
    ));
    for bad in [
        &["--bogus"][..],
        &["--steps"],
        &["--steps", "-1"],
        &["--n", "0"],
    ] {
        let err = common::parse_args("x", args(bad)).unwrap_err();
        assert!(err.contains(bad[0]), "{bad:?}: {err}");
    }
    assert_eq!(common::frame_steps(10, 3), vec![3, 6, 10]);
    assert!(common::frame_steps(10, 0).is_empty());
}

#[test]
fn projectile_loss_decreases_monotonically() {
    for device in devices("projectile") {
        let sim = projectile::Sim::new(&device, 4, 100).unwrap();
        let mut v0 = vec![[3.0f32, 3.0]; 4];
        let mut losses = Vec::new();
        for _ in 0..12 {
            let out = sim.run(&v0).unwrap();
            losses.push(out.loss);
            for (v, g) in v0.iter_mut().zip(&out.grad) {
                v[0] -= 0.2 * g[0];
                v[1] -= 0.2 * g[1];
            }
        }
        println!("{}: projectile losses {losses:?}", device.name());
        assert!(
            losses.windows(2).all(|w| w[1] < w[0]),
            "{}: the loss does not decrease monotonically: {losses:?}",
            device.name()
        );
        assert!(
            losses[11] < 1e-2 * losses[0],
            "{}: {losses:?}",
            device.name()
        );
    }
}
