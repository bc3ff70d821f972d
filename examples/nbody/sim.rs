//! The N-body simulation (shared by `examples/nbody.rs` and the smoke
//! test): the seed's brute-force `nbody_step` kernel (semi-implicit Euler)
//! and a per-body `body_energy` kernel, both in `examples/nbody.py`.
//!
//! Initial conditions are deterministic: `n` bodies uniform in the unit
//! ball (total mass 1, `G = 1`), rotating slowly about the z axis, with a
//! random velocity dispersion that puts the ball near virial equilibrium
//! (2K/|W| ≈ 0.8), so it neither collapses nor flies apart over the run.
//! The symplectic integrator's energy error is first order in `dt` and
//! stays bounded rather than growing secularly.

use weft::{Arg, Array, Compiler, Device, Kernel};

pub const SOURCE: &str = include_str!("../nbody.py");
pub const GRAV: f32 = 1.0;
pub const DT: f32 = 1e-3;
pub const EPS2: f32 = 0.05 * 0.05;

/// SplitMix64: a small deterministic generator for initial conditions.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    pub fn signed_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// Positions uniform in the unit ball, velocities `ω × r` about z plus an
/// isotropic uniform dispersion, masses `1/n`.
pub fn initial_conditions(n: usize) -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<f32>) {
    const OMEGA: f64 = 0.5;
    const SIGMA: f64 = 0.6;
    let mut rng = Rng(0x5_eed0_fa11);
    let mut pos = Vec::with_capacity(n);
    let mut vel = Vec::with_capacity(n);
    while pos.len() < n {
        let p = [rng.signed_unit(), rng.signed_unit(), rng.signed_unit()];
        if p.iter().map(|c| c * c).sum::<f64>() > 1.0 {
            continue;
        }
        let jitter = [rng.signed_unit(), rng.signed_unit(), rng.signed_unit()];
        let v = [
            -OMEGA * p[1] + SIGMA * jitter[0],
            OMEGA * p[0] + SIGMA * jitter[1],
            SIGMA * jitter[2],
        ];
        pos.push(p.map(|c| c as f32));
        vel.push(v.map(|c| c as f32));
    }
    (pos, vel, vec![1.0 / n as f32; n])
}

/// The bodies and the kernels that move them, on one device.
pub struct Sim {
    pub device: Device,
    step: Kernel,
    energy: Kernel,
    speed_kernel: Kernel,
    pub n: usize,
    pub pos: Array,
    pub vel: Array,
    new_pos: Array,
    new_vel: Array,
    mass: Array,
    body_energy: Array,
    /// |v| per body, filled by [`Sim::speed`].
    pub speed: Array,
}

impl Sim {
    /// The code the step kernel runs now (on `cpu`: Cranelift's until the
    /// module moves to the vector tier, `docs/vector.md`).
    pub fn step_tier(&self) -> Option<weft::CodeTier> {
        self.step.tier()
    }

    /// Compiles `examples/nbody.py` for `device` and sets up `n` bodies.
    pub fn new(device: &Device, n: usize) -> Result<Sim, weft::Error> {
        let module = Compiler::new().compile("examples/nbody.py", SOURCE)?;
        let (pos, vel, mass) = initial_conditions(n);
        let pos = Array::from_slice(&pos, &[n])?;
        let vec3 = pos.dtype().clone();
        Ok(Sim {
            step: device.load(&module, "nbody_step")?,
            energy: device.load(&module, "body_energy")?,
            speed_kernel: device.load(&module, "body_speed")?,
            device: device.clone(),
            pos,
            vel: Array::from_slice(&vel, &[n])?,
            new_pos: Array::zeros(vec3.clone(), &[n])?,
            new_vel: Array::zeros(vec3, &[n])?,
            mass: Array::from_slice(&mass, &[n])?,
            body_energy: Array::from_slice(&vec![0.0f32; n], &[n])?,
            speed: Array::from_slice(&vec![0.0f32; n], &[n])?,
            n,
        })
    }

    /// One time step of `DT`.
    pub fn advance(&mut self) -> Result<(), weft::Error> {
        self.device.launch(
            &self.step,
            &[self.n],
            &[
                Arg::array(&self.pos),
                Arg::array(&self.vel),
                Arg::array(&self.mass),
                Arg::array(&self.new_pos),
                Arg::array(&self.new_vel),
                Arg::i32(self.n as i32),
                Arg::f32(DT),
                Arg::f32(GRAV),
                Arg::f32(EPS2),
            ],
        )?;
        std::mem::swap(&mut self.pos, &mut self.new_pos);
        std::mem::swap(&mut self.vel, &mut self.new_vel);
        Ok(())
    }

    /// Total energy: the kernel's per-body terms, summed in f64 here.
    pub fn total_energy(&self) -> Result<f64, weft::Error> {
        self.device.launch(
            &self.energy,
            &[self.n],
            &[
                Arg::array(&self.pos),
                Arg::array(&self.vel),
                Arg::array(&self.mass),
                Arg::i32(self.n as i32),
                Arg::f32(GRAV),
                Arg::f32(EPS2),
                Arg::array(&self.body_energy),
            ],
        )?;
        let e = self.body_energy.to_vec::<f32>()?;
        Ok(e.iter().map(|&x| f64::from(x)).sum())
    }

    /// Fills [`Sim::speed`] with |v| per body.
    pub fn speed(&self) -> Result<(), weft::Error> {
        self.device.launch(
            &self.speed_kernel,
            &[self.n],
            &[Arg::array(&self.vel), Arg::array(&self.speed)],
        )
    }
}
