//! The cloth simulation (shared by `examples/cloth.rs` and the smoke
//! test): an `nx` × `nx` grid of particles, held flat at first, pinned at
//! two corners of one edge, swinging down onto a sphere. Position-based
//! dynamics with XPBD compliance (`examples/cloth.py`): each step of
//! [`DT`] is [`SUBSTEPS`] substeps of prediction, [`ITERATIONS`] Jacobi
//! sweeps over the distance constraints (race-free: corrections are
//! accumulated with atomics, then averaged per particle) with collision
//! projection, and the velocity update.

use weft::{Arg, Array, Compiler, Device, Kernel};

pub const SOURCE: &str = include_str!("../cloth.py");
pub const GRAVITY: [f32; 3] = [0.0, -9.81, 0.0];
/// One step (a frame at 60 Hz).
pub const DT: f32 = 1.0 / 60.0;
pub const SUBSTEPS: usize = 40;
pub const ITERATIONS: usize = 1;
/// Over-relaxation of the averaged Jacobi corrections.
pub const RELAX: f32 = 1.5;
/// Velocity kept per substep.
pub const DAMPING: f32 = 0.999;
/// The cloth's side length and initial height.
pub const SIZE: f32 = 2.0;
pub const HEIGHT: f32 = 1.6;
pub const SPHERE_CENTER: [f32; 3] = [0.0, 0.7, 0.0];
pub const SPHERE_RADIUS: f32 = 0.45;
pub const THICKNESS: f32 = 0.02;

/// Which kind of edge a constraint is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// Between grid neighbours along a row or a column.
    Structural,
    /// Across a cell's diagonals.
    Shear,
    /// Between particles two apart along a row or a column.
    Bend,
}

impl EdgeKind {
    /// XPBD compliance (inverse stiffness, m/N for unit masses).
    pub fn compliance(self) -> f32 {
        match self {
            EdgeKind::Structural => 0.0,
            EdgeKind::Shear => 1e-6,
            EdgeKind::Bend => 1e-4,
        }
    }
}

/// The grid's particles (row-major, `nx` per row, row 0 along z = -SIZE/2)
/// and edges (index pairs with their kinds), for an `nx` × `nx` grid.
pub fn grid(nx: usize) -> (Vec<[f32; 3]>, Vec<[i32; 2]>, Vec<EdgeKind>) {
    let h = SIZE / (nx - 1) as f32;
    let mut pos = Vec::with_capacity(nx * nx);
    for row in 0..nx {
        for col in 0..nx {
            pos.push([
                -0.5 * SIZE + col as f32 * h,
                HEIGHT,
                -0.5 * SIZE + row as f32 * h,
            ]);
        }
    }
    let id = |r: usize, c: usize| (r * nx + c) as i32;
    let (mut edges, mut kinds) = (Vec::new(), Vec::new());
    for r in 0..nx {
        for c in 0..nx {
            let mut add = |b: i32, k: EdgeKind| {
                edges.push([id(r, c), b]);
                kinds.push(k);
            };
            if c + 1 < nx {
                add(id(r, c + 1), EdgeKind::Structural);
            }
            if r + 1 < nx {
                add(id(r + 1, c), EdgeKind::Structural);
            }
            if r + 1 < nx && c + 1 < nx {
                add(id(r + 1, c + 1), EdgeKind::Shear);
            }
            if r + 1 < nx && c >= 1 {
                add(id(r + 1, c - 1), EdgeKind::Shear);
            }
            if c + 2 < nx {
                add(id(r, c + 2), EdgeKind::Bend);
            }
            if r + 2 < nx {
                add(id(r + 2, c), EdgeKind::Bend);
            }
        }
    }
    (pos, edges, kinds)
}

/// The cloth and its kernels on one device.
pub struct Sim {
    pub device: Device,
    predict: Kernel,
    solve: Kernel,
    apply: Kernel,
    update: Kernel,
    shade: Kernel,
    pub nx: usize,
    pub n: usize,
    pub pos: Array,
    vel: Array,
    pred: Array,
    inv_mass: Array,
    edges: Array,
    /// Rest length per edge.
    pub rest: Vec<f32>,
    /// Kind per edge.
    pub kinds: Vec<EdgeKind>,
    edge_pairs: Vec<[i32; 2]>,
    rest_arr: Array,
    compliance: Array,
    delta: Array,
    count: Array,
}

impl Sim {
    /// An `nx` × `nx` cloth (`nx` ≥ 3) on `device`.
    pub fn new(device: &Device, nx: usize) -> Result<Sim, weft::Error> {
        let nx = nx.max(3);
        let module = Compiler::new().compile("examples/cloth.py", SOURCE)?;
        let (pos, edge_pairs, kinds) = grid(nx);
        let n = pos.len();
        let rest: Vec<f32> = edge_pairs
            .iter()
            .map(|&[a, b]| dist(pos[a as usize], pos[b as usize]))
            .collect();
        let mut inv_mass = vec![1.0f32; n];
        inv_mass[0] = 0.0;
        inv_mass[nx - 1] = 0.0;
        let m = edge_pairs.len();
        let compliance: Vec<f32> = kinds.iter().map(|k| k.compliance()).collect();
        let flat: Vec<i32> = edge_pairs.iter().flatten().copied().collect();
        Ok(Sim {
            predict: device.load(&module, "predict")?,
            solve: device.load(&module, "solve_edges")?,
            apply: device.load(&module, "apply_corrections")?,
            update: device.load(&module, "update")?,
            shade: device.load(&module, "shade")?,
            device: device.clone(),
            nx,
            n,
            vel: Array::from_slice(&vec![[0.0f32; 3]; n], &[n])?,
            pred: Array::from_slice(&pos, &[n])?,
            pos: Array::from_slice(&pos, &[n])?,
            inv_mass: Array::from_slice(&inv_mass, &[n])?,
            edges: Array::from_slice(&flat, &[m, 2])?,
            rest_arr: Array::from_slice(&rest, &[m])?,
            compliance: Array::from_slice(&compliance, &[m])?,
            delta: Array::from_slice(&vec![[0.0f32; 3]; n], &[n])?,
            count: Array::from_slice(&vec![0.0f32; n], &[n])?,
            rest,
            kinds,
            edge_pairs,
        })
    }

    /// One step of [`DT`].
    pub fn advance(&mut self) -> Result<(), weft::Error> {
        let h = DT / SUBSTEPS as f32;
        let d = &self.device;
        for _ in 0..SUBSTEPS {
            d.launch(
                &self.predict,
                &[self.n],
                &[
                    Arg::array(&self.pos),
                    Arg::array(&self.vel),
                    Arg::array(&self.inv_mass),
                    Arg::vec3(GRAVITY),
                    Arg::f32(h),
                    Arg::array(&self.pred),
                ],
            )?;
            for _ in 0..ITERATIONS {
                d.launch(
                    &self.solve,
                    &[self.rest.len()],
                    &[
                        Arg::array(&self.pred),
                        Arg::array(&self.inv_mass),
                        Arg::array(&self.edges),
                        Arg::array(&self.rest_arr),
                        Arg::array(&self.compliance),
                        Arg::f32(1.0 / (h * h)),
                        Arg::array(&self.delta),
                        Arg::array(&self.count),
                    ],
                )?;
                d.launch(
                    &self.apply,
                    &[self.n],
                    &[
                        Arg::array(&self.pred),
                        Arg::array(&self.delta),
                        Arg::array(&self.count),
                        Arg::f32(RELAX),
                        Arg::vec3(SPHERE_CENTER),
                        Arg::f32(SPHERE_RADIUS),
                        Arg::f32(THICKNESS),
                    ],
                )?;
            }
            d.launch(
                &self.update,
                &[self.n],
                &[
                    Arg::array(&self.pos),
                    Arg::array(&self.vel),
                    Arg::array(&self.pred),
                    Arg::f32(1.0 / h),
                    Arg::f32(DAMPING),
                ],
            )?;
        }
        Ok(())
    }

    /// Per edge, its current length over its rest length.
    pub fn strains(&self) -> Result<Vec<f32>, weft::Error> {
        let p = self.pos.to_vec::<[f32; 3]>()?;
        Ok(self
            .edge_pairs
            .iter()
            .zip(&self.rest)
            .map(|(&[a, b], &r)| dist(p[a as usize], p[b as usize]) / r)
            .collect())
    }

    /// The smallest and largest length ratio over edges of `kind`.
    pub fn strain_range(&self, kind: EdgeKind) -> Result<(f32, f32), weft::Error> {
        Ok(self
            .strains()?
            .into_iter()
            .zip(&self.kinds)
            .filter(|(_, &k)| k == kind)
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), (s, _)| {
                (lo.min(s), hi.max(s))
            }))
    }

    /// Fills `colors` (`vec3`, one per particle) with shaded cloth colours.
    pub fn shade(&self, light: [f32; 3], colors: &Array) -> Result<(), weft::Error> {
        self.device.launch(
            &self.shade,
            &[self.n],
            &[
                Arg::array(&self.pos),
                Arg::i32(self.nx as i32),
                Arg::vec3(light),
                Arg::array(colors),
            ],
        )
    }
}

fn dist(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}
