//! The rigid-body stack (shared by `examples/rigid_stack.rs` and the smoke
//! test): ten boxes stacked on the ground plane y = 0, each a little
//! narrower than the one below, and optionally a heavy box thrown at the
//! upper part of the tower.
//!
//! State per body, in Weft arrays: the pose (`wp.transform`: position and
//! orientation quaternion), the linear and angular velocity (world-frame
//! `vec3`), the inverse mass and the inverse of the diagonal body-frame
//! inertia, and the half extents. The kernels (`examples/rigid_stack.py`)
//! step it as XPBD: each step of [`DT`] is [`SUBSTEPS`] substeps of pose
//! prediction, [`ITERATIONS`] Jacobi contact sweeps (sample-in-box and
//! sample-below-ground contacts, the samples a box's corners and points
//! along its edges, with static/Coulomb friction, corrections
//! accumulated with atomics, then averaged per body: race-free on any
//! device) and the velocity update from the pose change.

#![allow(dead_code)]

use weft::ir::{ElemType, Scalar};
use weft::{Arg, Array, Compiler, Device, Dtype, Kernel};

pub const SOURCE: &str = include_str!("../rigid_stack.py");
pub const GRAVITY: [f32; 3] = [0.0, -9.81, 0.0];
/// One step (a frame at 60 Hz).
pub const DT: f32 = 1.0 / 60.0;
pub const SUBSTEPS: usize = 20;
pub const ITERATIONS: usize = 2;
/// Over-relaxation of the averaged Jacobi corrections.
pub const RELAX: f32 = 1.0;
/// Angular velocity kept per substep.
pub const ANGULAR_DAMPING: f32 = 0.9995;
/// Coulomb friction coefficient of every contact.
pub const FRICTION: f32 = 0.6;
/// Contact samples inside each box edge (besides the corners).
pub const PER_EDGE: usize = 3;
/// Boxes in the tower.
pub const TOWER: usize = 10;
/// Half extents of the bottom box; each box above is [`TAPER`] narrower in
/// x and z.
pub const BASE_HALF: [f32; 3] = [0.3, 0.12, 0.3];
pub const TAPER: f32 = 0.03;
pub const DENSITY: f32 = 500.0;
/// The projectile: a dense cube thrown along +x at box [`TARGET`].
pub const PROJECTILE_HALF: f32 = 0.12;
pub const PROJECTILE_DENSITY: f32 = 3000.0;
pub const PROJECTILE_SPEED: f32 = 10.0;
pub const PROJECTILE_START_X: f32 = -2.5;
pub const TARGET: usize = 7;

/// One body's initial state.
#[derive(Clone, Copy, Debug)]
pub struct BodyInit {
    pub pos: [f32; 3],
    /// A rotation about the vertical axis (radians).
    pub yaw: f32,
    pub vel: [f32; 3],
    pub half: [f32; 3],
    pub density: f32,
    /// The colour it is drawn in.
    pub tint: [f32; 3],
}

/// The tower (bottom first, each resting exactly on the one below, a few
/// millimetres off centre and turned by a degree or two, so that standing
/// is not a matter of symmetry), then the projectile if asked for.
pub fn scene(projectile: bool) -> Vec<BodyInit> {
    let mut bodies = Vec::new();
    let mut y = 0.0;
    for i in 0..TOWER {
        let s = 1.0 - TAPER * i as f32;
        let half = [BASE_HALF[0] * s, BASE_HALF[1], BASE_HALF[2] * s];
        let t = i as f32 / (TOWER - 1) as f32;
        bodies.push(BodyInit {
            pos: [
                0.004 * (1.7 * i as f32).sin(),
                y + half[1],
                0.004 * (2.3 * i as f32).cos(),
            ],
            yaw: 0.03 * (i % 3) as f32 - 0.03,
            vel: [0.0; 3],
            half,
            density: DENSITY,
            tint: [0.9 - 0.5 * t, 0.45 + 0.2 * t, 0.2 + 0.6 * t],
        });
        y += 2.0 * half[1];
    }
    if projectile {
        let target = bodies[TARGET].pos;
        // Aimed so that gravity brings it down onto the target's centre.
        let flight = (-PROJECTILE_START_X - BASE_HALF[0]) / PROJECTILE_SPEED;
        let drop = 0.5 * -GRAVITY[1] * flight * flight;
        bodies.push(BodyInit {
            pos: [PROJECTILE_START_X, target[1] + drop, 0.05],
            yaw: 0.0,
            vel: [PROJECTILE_SPEED, 0.0, 0.0],
            half: [PROJECTILE_HALF; 3],
            density: PROJECTILE_DENSITY,
            tint: [0.85, 0.85, 0.9],
        });
    }
    bodies
}

/// A body's pose read back: position and orientation (x, y, z, w).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub pos: [f32; 3],
    pub rot: [f32; 4],
}

impl Pose {
    /// The angle (radians) between the body's y axis and the vertical.
    pub fn tilt(&self) -> f32 {
        let [x, _, z, _] = self.rot;
        (1.0 - 2.0 * (x * x + z * z)).clamp(-1.0, 1.0).acos()
    }
}

/// The bodies and the kernels on one device.
pub struct Sim {
    pub device: Device,
    integrate: Kernel,
    solve: Kernel,
    apply: Kernel,
    update: Kernel,
    splats: Kernel,
    pub bodies: Vec<BodyInit>,
    /// `wp.transform` per body.
    pub pose: Array,
    prev: Array,
    vel: Array,
    ang: Array,
    inv_mass: Array,
    inv_inertia: Array,
    half: Array,
    tint: Array,
    dpos: Array,
    drot: Array,
    count: Array,
}

/// A `wp.array(dtype=wp.transform)` of the bodies' initial poses.
fn transforms(bodies: &[BodyInit]) -> Result<Array, weft::Error> {
    let scalars: Vec<f32> = bodies
        .iter()
        .flat_map(|b| {
            let (s, c) = (0.5 * b.yaw).sin_cos();
            [b.pos[0], b.pos[1], b.pos[2], 0.0, s, 0.0, c]
        })
        .collect();
    Ok(Array::from_scalars(
        Dtype::new(ElemType::Transform(Scalar::F32)),
        &scalars,
        &[bodies.len()],
    )?)
}

impl Sim {
    /// The tower, with the projectile if `projectile`, on `device`.
    pub fn new(device: &Device, projectile: bool) -> Result<Sim, weft::Error> {
        let module = Compiler::new().compile("examples/rigid_stack.py", SOURCE)?;
        let bodies = scene(projectile);
        let n = bodies.len();
        let (mut inv_mass, mut inv_inertia) = (Vec::new(), Vec::new());
        for b in &bodies {
            let [x, y, z] = b.half;
            let m = b.density * 8.0 * x * y * z;
            inv_mass.push(1.0 / m);
            // A solid box: I = m/3 (b² + c²) over half extents b, c.
            inv_inertia.push([
                3.0 / (m * (y * y + z * z)),
                3.0 / (m * (x * x + z * z)),
                3.0 / (m * (x * x + y * y)),
            ]);
        }
        let zeros = vec![[0.0f32; 3]; n];
        Ok(Sim {
            integrate: device.load(&module, "integrate")?,
            solve: device.load(&module, "solve_contacts")?,
            apply: device.load(&module, "apply_corrections")?,
            update: device.load(&module, "update_velocities")?,
            splats: device.load(&module, "box_splats")?,
            device: device.clone(),
            pose: transforms(&bodies)?,
            prev: transforms(&bodies)?,
            vel: Array::from_slice(&bodies.iter().map(|b| b.vel).collect::<Vec<_>>(), &[n])?,
            ang: Array::from_slice(&zeros, &[n])?,
            inv_mass: Array::from_slice(&inv_mass, &[n])?,
            inv_inertia: Array::from_slice(&inv_inertia, &[n])?,
            half: Array::from_slice(&bodies.iter().map(|b| b.half).collect::<Vec<_>>(), &[n])?,
            tint: Array::from_slice(&bodies.iter().map(|b| b.tint).collect::<Vec<_>>(), &[n])?,
            dpos: Array::from_slice(&zeros, &[n])?,
            drot: Array::from_slice(&zeros, &[n])?,
            count: Array::from_slice(&vec![0.0f32; n], &[n])?,
            bodies,
        })
    }

    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// One step of [`DT`].
    pub fn advance(&mut self) -> Result<(), weft::Error> {
        let h = DT / SUBSTEPS as f32;
        let n = self.len();
        let d = &self.device;
        for _ in 0..SUBSTEPS {
            d.launch(
                &self.integrate,
                &[n],
                &[
                    Arg::array(&self.pose),
                    Arg::array(&self.prev),
                    Arg::array(&self.vel),
                    Arg::array(&self.ang),
                    Arg::array(&self.inv_mass),
                    Arg::vec3(GRAVITY),
                    Arg::f32(h),
                ],
            )?;
            for _ in 0..ITERATIONS {
                d.launch(
                    &self.solve,
                    &[n, n + 1, 8 + 12 * PER_EDGE],
                    &[
                        Arg::array(&self.pose),
                        Arg::array(&self.prev),
                        Arg::array(&self.half),
                        Arg::array(&self.inv_mass),
                        Arg::array(&self.inv_inertia),
                        Arg::f32(FRICTION),
                        Arg::i32(PER_EDGE as i32),
                        Arg::array(&self.dpos),
                        Arg::array(&self.drot),
                        Arg::array(&self.count),
                    ],
                )?;
                d.launch(
                    &self.apply,
                    &[n],
                    &[
                        Arg::array(&self.pose),
                        Arg::array(&self.dpos),
                        Arg::array(&self.drot),
                        Arg::array(&self.count),
                        Arg::f32(RELAX),
                    ],
                )?;
            }
            d.launch(
                &self.update,
                &[n],
                &[
                    Arg::array(&self.pose),
                    Arg::array(&self.prev),
                    Arg::array(&self.vel),
                    Arg::array(&self.ang),
                    Arg::f32(1.0 / h),
                    Arg::f32(ANGULAR_DAMPING),
                ],
            )?;
        }
        Ok(())
    }

    /// Every body's pose.
    pub fn poses(&self) -> Result<Vec<Pose>, weft::Error> {
        let s = self.pose.to_scalars::<f32>()?;
        Ok(s.chunks_exact(7)
            .map(|c| Pose {
                pos: [c[0], c[1], c[2]],
                rot: [c[3], c[4], c[5], c[6]],
            })
            .collect())
    }

    /// Splats for drawing the boxes: `g` × `g` per face (arrays of
    /// `6 g² len()` points).
    pub fn splat_arrays(&self, g: usize) -> Result<[Array; 3], weft::Error> {
        let m = 6 * g * g * self.len();
        Ok([
            Array::from_slice(&vec![[0.0f32; 3]; m], &[m])?,
            Array::from_slice(&vec![[0.0f32; 3]; m], &[m])?,
            Array::from_slice(&vec![0.0f32; m], &[m])?,
        ])
    }

    /// Fills `points`, `colors` and `radius` (from [`Sim::splat_arrays`]
    /// with the same `g`) with the boxes' faces lit from `light`.
    pub fn splat_boxes(
        &self,
        g: usize,
        light: [f32; 3],
        [points, colors, radius]: &[Array; 3],
    ) -> Result<(), weft::Error> {
        self.device.launch(
            &self.splats,
            &[self.len(), 6, g * g],
            &[
                Arg::array(&self.pose),
                Arg::array(&self.half),
                Arg::array(&self.tint),
                Arg::vec3(light),
                Arg::array(points),
                Arg::array(colors),
                Arg::array(radius),
            ],
        )
    }
}
