//! The differentiable projectile simulation (shared by
//! `examples/projectile.rs` and the smoke test): `n` projectiles launched
//! from the origin under gravity and quadratic drag (`examples/projectile.py`)
//! for `steps` steps; the loss is the sum of their squared distances to
//! their targets at the end, and its gradient with respect to the launch
//! velocities comes from recording the steps on a [`Tape`].

use weft::{Arg, Array, Compiler, Device, Module, Tape};

pub const SOURCE: &str = include_str!("../projectile.py");
pub const DT: f32 = 0.01;
pub const DRAG: f32 = 0.05;

/// The targets of `n` projectiles: on a line from (3, 0.5) to (6, 1.5).
pub fn targets(n: usize) -> Vec<[f32; 2]> {
    (0..n)
        .map(|i| {
            let t = i as f32 / (n.max(2) - 1) as f32;
            [3.0 + 3.0 * t, 0.5 + t]
        })
        .collect()
}

/// One simulation's outcome.
pub struct Outcome {
    pub loss: f32,
    /// d loss / d v0, per projectile.
    pub grad: Vec<[f32; 2]>,
    /// Each step's positions (step 0 first).
    pub path: Vec<Vec<[f32; 2]>>,
}

pub struct Sim {
    pub device: Device,
    module: Module,
    pub n: usize,
    pub steps: usize,
    target: Array,
}

impl Sim {
    pub fn new(device: &Device, n: usize, steps: usize) -> Result<Sim, weft::Error> {
        let module = Compiler::new().compile("projectile.py", SOURCE)?;
        Ok(Sim {
            device: device.clone(),
            module,
            n,
            steps,
            target: Array::from_slice(&targets(n), &[n])?,
        })
    }

    /// Runs the simulation from launch velocities `v0` and differentiates
    /// the loss with respect to them.
    pub fn run(&self, v0: &[[f32; 2]]) -> Result<Outcome, weft::Error> {
        let n = self.n;
        let state = |v: &[[f32; 2]]| Array::from_slice(v, &[n]).map(Array::requires_grad);
        let zeros = vec![[0.0f32; 2]; n];
        let mut xs = vec![state(&zeros)?];
        let mut vs = vec![state(v0)?];
        for _ in 0..self.steps {
            xs.push(state(&zeros)?);
            vs.push(state(&zeros)?);
        }
        let loss = Array::from_slice(&[0.0f32], &[1])?.requires_grad();
        let mut tape = Tape::new();
        for t in 0..self.steps {
            let args = [
                Arg::array(&xs[t]),
                Arg::array(&vs[t]),
                Arg::array(&xs[t + 1]),
                Arg::array(&vs[t + 1]),
                Arg::f32(DT),
                Arg::f32(DRAG),
            ];
            tape.launch(&self.device, &self.module, "step", &[n], &args)?;
        }
        let args = [
            Arg::array(&xs[self.steps]),
            Arg::array(&self.target),
            Arg::array(&loss),
        ];
        tape.launch(&self.device, &self.module, "miss", &[n], &args)?;
        tape.backward_from(&loss)?;
        let grad = match vs[0].grad() {
            Some(g) => g.to_vec::<[f32; 2]>()?,
            None => vec![[0.0; 2]; n],
        };
        let path = xs
            .iter()
            .map(|x| x.to_vec::<[f32; 2]>())
            .collect::<Result<_, _>>()?;
        Ok(Outcome {
            loss: loss.to_vec::<f32>()?[0],
            grad,
            path,
        })
    }
}
