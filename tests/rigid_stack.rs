//! Smoke tests of `examples/rigid_stack`: the tower of ten boxes still
//! stands after a while on the CPU (and on Vulkan where a driver is
//! present), and the projectile knocks its top boxes off.

#[path = "../examples/rigid_stack/sim.rs"]
mod sim;

use sim::{Pose, Sim};
use weft::Device;

/// How far (m) a box's centre may move while the tower stands (the boxes
/// are 0.24 m tall and about 0.5 m wide).
const STAND_TOLERANCE: f32 = 0.02;
/// How far (radians) a standing box may lean.
const STAND_TILT: f32 = 0.035;

fn run(device: &Device, projectile: bool, steps: usize) -> (Vec<Pose>, Vec<Pose>) {
    let mut sim = Sim::new(device, projectile).expect("the rigid_stack kernels compile and load");
    let start = sim.poses().unwrap();
    for _ in 0..steps {
        sim.advance().unwrap();
    }
    (start, sim.poses().unwrap())
}

fn distance(a: &Pose, b: &Pose) -> f32 {
    (0..3)
        .map(|c| (a.pos[c] - b.pos[c]).powi(2))
        .sum::<f32>()
        .sqrt()
}

fn assert_standing(device: &Device, steps: usize) {
    let (start, end) = run(device, false, steps);
    assert_eq!(end.len(), sim::TOWER);
    for (i, (a, b)) in start.iter().zip(&end).enumerate() {
        let d = distance(a, b);
        let delta: Vec<f32> = (0..3).map(|c| b.pos[c] - a.pos[c]).collect();
        println!(
            "{}: box {i} moved {d:.4} m {delta:.4?}, tilt {:.3} deg",
            device.name(),
            b.tilt().to_degrees()
        );
        assert!(
            d < STAND_TOLERANCE,
            "{}: box {i} moved {d} m from {:?} to {:?}",
            device.name(),
            a.pos,
            b.pos
        );
        assert!(
            b.tilt() < STAND_TILT,
            "{}: box {i} leans {} deg",
            device.name(),
            b.tilt().to_degrees()
        );
    }
}

#[test]
fn tower_stands_on_cpu() {
    assert_standing(&Device::cpu(), 300);
}

#[test]
fn projectile_knocks_the_top_off_on_cpu() {
    let (start, end) = run(&Device::cpu(), true, 240);
    assert_eq!(end.len(), sim::TOWER + 1);
    let moved: Vec<f32> = start
        .iter()
        .zip(&end)
        .map(|(a, b)| distance(a, b))
        .collect();
    println!("moved: {moved:.3?}");
    assert!(end.iter().all(|p| p.pos.iter().all(|c| c.is_finite())));
    // The box hit is knocked out of the tower and the boxes above it fall
    // (whether off the tower or onto the box below the hit one varies from
    // run to run: atomics add in any order and the collapse is chaotic);
    // a standing tower moves them by millimetres.
    assert!(
        moved[sim::TARGET] > 0.5,
        "the box hit only moved {} m",
        moved[sim::TARGET]
    );
    for (i, d) in moved
        .iter()
        .enumerate()
        .take(sim::TOWER)
        .skip(sim::TARGET + 1)
    {
        assert!(*d > 0.1, "box {i} only moved {d} m");
    }
    // No box went through the ground.
    for (i, p) in end.iter().enumerate() {
        assert!(p.pos[1] > 0.05, "box {i} sank to y = {}", p.pos[1]);
    }
}

#[test]
fn tower_stands_on_vulkan() {
    match Device::open("vulkan") {
        Ok(device) => assert_standing(&device, 60),
        Err(e) => weft_testkit::skip(format!("no vulkan device: {e}")),
    }
}
