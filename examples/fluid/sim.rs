//! The 2-D stable-fluids simulation (shared by `examples/fluid.rs` and the
//! smoke test) on an `n` × `n` MAC grid, kernels in `examples/fluid.py`.
//! Each step: forces (a jet and buoyancy of the dye), pressure projection
//! ([`Sim::jacobi_iterations`] damped Jacobi sweeps, warm-started from the last
//! step's pressure), then semi-Lagrangian advection of the velocity and the
//! dye (so the velocity that moves the dye is divergence-free).

use weft::{Arg, Array, Compiler, Device, Kernel};

pub const SOURCE: &str = include_str!("../fluid.py");
/// The time step (velocities are in cells per step).
pub const DT: f32 = 1.0;
pub const BUOYANCY: f32 = 0.01;
pub const DECAY: f32 = 0.999;
/// The damping of the Jacobi sweeps.
pub const OMEGA: f32 = 0.8;

struct Kernels {
    advect_u: Kernel,
    advect_v: Kernel,
    advect_dye: Kernel,
    add_forces: Kernel,
    inject_dye: Kernel,
    divergence: Kernel,
    jacobi: Kernel,
    project_u: Kernel,
    project_v: Kernel,
}

/// The grid and its kernels on one device.
pub struct Sim {
    pub device: Device,
    k: Kernels,
    pub n: usize,
    pub jacobi_iterations: usize,
    u: Array,
    v: Array,
    u_tmp: Array,
    v_tmp: Array,
    /// The dye concentration, (n, n), row 0 at the bottom.
    pub dye: Array,
    dye_tmp: Array,
    p: Array,
    p_tmp: Array,
    div: Array,
    steps: usize,
}

fn zeros(rows: usize, cols: usize) -> Result<Array, weft::Error> {
    Ok(Array::from_slice(
        &vec![0.0f32; rows * cols],
        &[rows, cols],
    )?)
}

impl Sim {
    /// An `n` × `n` grid (`n` ≥ 8) at rest, without dye.
    pub fn new(device: &Device, n: usize) -> Result<Sim, weft::Error> {
        let n = n.max(8);
        let module = Compiler::new().compile("examples/fluid.py", SOURCE)?;
        let load = |name: &str| device.load(&module, name);
        Ok(Sim {
            k: Kernels {
                advect_u: load("advect_u")?,
                advect_v: load("advect_v")?,
                advect_dye: load("advect_dye")?,
                add_forces: load("add_forces")?,
                inject_dye: load("inject_dye")?,
                divergence: load("divergence")?,
                jacobi: load("jacobi")?,
                project_u: load("project_u")?,
                project_v: load("project_v")?,
            },
            device: device.clone(),
            n,
            jacobi_iterations: 80,
            u: zeros(n, n + 1)?,
            v: zeros(n + 1, n)?,
            u_tmp: zeros(n, n + 1)?,
            v_tmp: zeros(n + 1, n)?,
            dye: zeros(n, n)?,
            dye_tmp: zeros(n, n)?,
            p: zeros(n, n)?,
            p_tmp: zeros(n, n)?,
            div: zeros(n, n)?,
            steps: 0,
        })
    }

    /// The source: a disc near the bottom, a little left of the middle; the
    /// jet's direction swings slowly from side to side.
    fn source(&self) -> ([f32; 2], f32, [f32; 2]) {
        let n = self.n as f32;
        let t = self.steps as f32;
        let speed = 0.004 * n;
        let angle = 0.5 * (t * 0.02).sin();
        (
            [0.45 * n, 0.1 * n],
            0.05 * n,
            [speed * angle.sin(), speed * angle.cos()],
        )
    }

    /// Forces: the jet and buoyancy, then new dye at the source.
    pub fn add_forces(&mut self) -> Result<(), weft::Error> {
        let (c, r, jet) = self.source();
        let n = self.n;
        self.device.launch(
            &self.k.add_forces,
            &[n, n],
            &[
                Arg::array(&self.v),
                Arg::array(&self.u),
                Arg::array(&self.dye),
                Arg::f32(DT),
                Arg::f32(BUOYANCY),
                Arg::of(c),
                Arg::f32(r),
                Arg::of(jet),
            ],
        )?;
        self.device.launch(
            &self.k.inject_dye,
            &[n, n],
            &[Arg::array(&self.dye), Arg::of(c), Arg::f32(r)],
        )
    }

    /// The divergence of the velocity (per cell, into the `div` buffer) and
    /// its root mean square.
    pub fn divergence_rms(&self) -> Result<f64, weft::Error> {
        self.divergence()?;
        let d = self.div.to_vec::<f32>()?;
        let sum: f64 = d.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
        Ok((sum / d.len() as f64).sqrt())
    }

    fn divergence(&self) -> Result<(), weft::Error> {
        self.device.launch(
            &self.k.divergence,
            &[self.n, self.n],
            &[
                Arg::array(&self.u),
                Arg::array(&self.v),
                Arg::array(&self.div),
            ],
        )
    }

    /// Makes the velocity (nearly) divergence-free.
    pub fn project(&mut self) -> Result<(), weft::Error> {
        let n = self.n;
        self.divergence()?;
        for _ in 0..self.jacobi_iterations {
            self.device.launch(
                &self.k.jacobi,
                &[n, n],
                &[
                    Arg::array(&self.p),
                    Arg::array(&self.div),
                    Arg::f32(OMEGA),
                    Arg::array(&self.p_tmp),
                ],
            )?;
            std::mem::swap(&mut self.p, &mut self.p_tmp);
        }
        self.device.launch(
            &self.k.project_u,
            &[n, n + 1],
            &[Arg::array(&self.u), Arg::array(&self.p)],
        )?;
        self.device.launch(
            &self.k.project_v,
            &[n + 1, n],
            &[Arg::array(&self.v), Arg::array(&self.p)],
        )
    }

    /// Moves the velocity and the dye along the velocity.
    pub fn advect(&mut self) -> Result<(), weft::Error> {
        let n = self.n;
        let d = &self.device;
        d.launch(
            &self.k.advect_u,
            &[n, n + 1],
            &[
                Arg::array(&self.u),
                Arg::array(&self.v),
                Arg::f32(DT),
                Arg::array(&self.u_tmp),
            ],
        )?;
        d.launch(
            &self.k.advect_v,
            &[n + 1, n],
            &[
                Arg::array(&self.u),
                Arg::array(&self.v),
                Arg::f32(DT),
                Arg::array(&self.v_tmp),
            ],
        )?;
        d.launch(
            &self.k.advect_dye,
            &[n, n],
            &[
                Arg::array(&self.u),
                Arg::array(&self.v),
                Arg::array(&self.dye),
                Arg::f32(DT),
                Arg::f32(DECAY),
                Arg::array(&self.dye_tmp),
            ],
        )?;
        std::mem::swap(&mut self.u, &mut self.u_tmp);
        std::mem::swap(&mut self.v, &mut self.v_tmp);
        std::mem::swap(&mut self.dye, &mut self.dye_tmp);
        Ok(())
    }

    /// One step: forces, projection, advection.
    pub fn advance(&mut self) -> Result<(), weft::Error> {
        self.add_forces()?;
        self.project()?;
        self.advect()?;
        self.finish_step();
        Ok(())
    }

    /// Counts a step made of the parts (the jet's swing follows the count).
    pub fn finish_step(&mut self) {
        self.steps += 1;
    }
}
