//! The particle simulation (shared by `examples/particles.rs` and the smoke
//! test): `n` particles thrown from one corner into an open box of half
//! width [`HALF_WIDTH`] under gravity, bouncing off the ground and the walls
//! with restitution and friction (`examples/particles.py`).

use weft::{Arg, Array, Compiler, Device, Kernel};

pub const SOURCE: &str = include_str!("../particles.py");
pub const GRAVITY: [f32; 3] = [0.0, -9.81, 0.0];
pub const DT: f32 = 1.0 / 240.0;
pub const RADIUS: f32 = 0.015;
pub const HALF_WIDTH: f32 = 1.0;
pub const RESTITUTION: f32 = 0.6;
pub const FRICTION: f32 = 0.3;

/// A small deterministic generator (SplitMix64) for the initial state.
struct Rng(u64);

impl Rng {
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// A jet of particles from a cube near the (-x, -z) corner, 0.5 up, thrown
/// toward the far side of the box with spread.
pub fn initial_state(n: usize) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let mut rng = Rng(0x9a27_1c1e);
    (0..n)
        .map(|_| {
            let p = [
                -0.8 + 0.2 * rng.unit(),
                0.4 + 0.2 * rng.unit(),
                -0.8 + 0.2 * rng.unit(),
            ];
            let v = [
                1.5 + 2.0 * rng.unit(),
                2.0 + 3.0 * rng.unit(),
                0.5 + 2.5 * rng.unit(),
            ];
            (p, v)
        })
        .unzip()
}

/// The particles and their kernels on one device.
pub struct Sim {
    pub device: Device,
    integrate: Kernel,
    energy_kernel: Kernel,
    pub n: usize,
    pub pos: Array,
    pub vel: Array,
    energy: Array,
    /// |v| per particle, filled by [`Sim::total_energy`].
    pub speed: Array,
}

impl Sim {
    pub fn new(device: &Device, n: usize) -> Result<Sim, weft::Error> {
        let module = Compiler::new().compile("examples/particles.py", SOURCE)?;
        let (pos, vel) = initial_state(n);
        Ok(Sim {
            integrate: device.load(&module, "integrate")?,
            energy_kernel: device.load(&module, "particle_energy")?,
            device: device.clone(),
            pos: Array::from_slice(&pos, &[n])?,
            vel: Array::from_slice(&vel, &[n])?,
            energy: Array::from_slice(&vec![0.0f32; n], &[n])?,
            speed: Array::from_slice(&vec![0.0f32; n], &[n])?,
            n,
        })
    }

    /// One time step of [`DT`].
    pub fn advance(&mut self) -> Result<(), weft::Error> {
        self.device.launch(
            &self.integrate,
            &[self.n],
            &[
                Arg::array(&self.pos),
                Arg::array(&self.vel),
                Arg::vec3(GRAVITY),
                Arg::f32(DT),
                Arg::f32(RADIUS),
                Arg::f32(HALF_WIDTH),
                Arg::f32(RESTITUTION),
                Arg::f32(FRICTION),
            ],
        )
    }

    /// Total mechanical energy per unit mass (kinetic + potential), summed
    /// in f64; also refreshes [`Sim::speed`].
    pub fn total_energy(&self) -> Result<f64, weft::Error> {
        self.device.launch(
            &self.energy_kernel,
            &[self.n],
            &[
                Arg::array(&self.pos),
                Arg::array(&self.vel),
                Arg::vec3(GRAVITY),
                Arg::array(&self.energy),
                Arg::array(&self.speed),
            ],
        )?;
        let e = self.energy.to_vec::<f32>()?;
        Ok(e.iter().map(|&x| f64::from(x)).sum())
    }

    /// The particles that are below the ground or outside the walls (by
    /// more than `tol`), as (index, position).
    pub fn escaped(&self, tol: f32) -> Result<Vec<(usize, [f32; 3])>, weft::Error> {
        let lim = HALF_WIDTH - RADIUS + tol;
        Ok(self
            .pos
            .to_vec::<[f32; 3]>()?
            .into_iter()
            .enumerate()
            .filter(|(_, p)| !(p[1] >= RADIUS - tol && p[0].abs() <= lim && p[2].abs() <= lim))
            .collect())
    }
}
