//! `weft bench --workload autodiff`: the cost of reverse-mode autodiff on
//! the seed's N-body step (`examples/nbody.py`) and the particle update of
//! `weft bench`: per backend, the cold compile of the forward kernel and of
//! its adjoint (`Device::load_adjoint`: the backward module's frontend,
//! adjoint pass, pipeline and backend), and the median launch time of the
//! forward kernel and of its adjoint with every float array carrying a
//! gradient, and their ratio. Host-memory devices only (the adjoint runs
//! with host arrays and their gradients).

use crate::bench::PARTICLES_SOURCE;
use crate::reference::bodies;
use crate::Error;
use std::time::{Duration, Instant};
use weft::{Arg, Array, Compiler, Device};

const NBODY_SOURCE: &str = include_str!("../../../examples/nbody.py");

/// One workload on one backend.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub workload: String,
    pub backend: String,
    pub forward_compile_ms: f64,
    pub backward_compile_ms: f64,
    pub forward_ms: f64,
    pub backward_ms: f64,
}

impl Row {
    /// Backward time over forward time.
    pub fn ratio(&self) -> f64 {
        self.backward_ms / self.forward_ms.max(f64::MIN_POSITIVE)
    }
}

struct Workload {
    name: String,
    source: &'static str,
    kernel: &'static str,
    n: usize,
    arrays: Vec<Array>,
}

impl Workload {
    fn args(&self) -> Vec<Arg<'_>> {
        let a = |i: usize| Arg::array(&self.arrays[i]);
        match self.kernel {
            "nbody_step" => vec![
                a(0),
                a(1),
                a(2),
                a(3),
                a(4),
                Arg::i32(self.n as i32),
                Arg::f32(1e-3),
                Arg::f32(1.0),
                Arg::f32(0.0025),
            ],
            _ => vec![a(0), a(1), Arg::f32(9.81), Arg::f32(1e-3)],
        }
    }
}

fn workloads(quick: bool) -> Result<Vec<Workload>, Error> {
    let nb = if quick { 256 } else { 4096 };
    let pn = if quick { 1 << 14 } else { 1 << 22 };
    let (p, v, m) = bodies(nb);
    let g = |a: Array| a.requires_grad();
    let zeros3 = |n: usize| Array::from_slice(&vec![[0.0f32; 3]; n], &[n]);
    let f = |i: usize, k: usize| ((i * 7 + k * 13) % 1000) as f32 * 1e-3;
    let px: Vec<[f32; 3]> = (0..pn)
        .map(|i| [f(i, 0), f(i, 1) + 0.01, f(i, 2)])
        .collect();
    let pv: Vec<[f32; 3]> = (0..pn)
        .map(|i| [f(i, 3) - 0.5, f(i, 4) - 0.5, f(i, 5) - 0.5])
        .collect();
    Ok(vec![
        Workload {
            name: format!("nbody {nb}"),
            source: NBODY_SOURCE,
            kernel: "nbody_step",
            n: nb,
            arrays: vec![
                g(Array::from_slice(&p, &[nb])?),
                g(Array::from_slice(&v, &[nb])?),
                g(Array::from_slice(&m, &[nb])?),
                g(zeros3(nb)?),
                g(zeros3(nb)?),
            ],
        },
        Workload {
            name: format!("particles 2^{}", pn.trailing_zeros()),
            source: PARTICLES_SOURCE,
            kernel: "particles",
            n: pn,
            arrays: vec![
                g(Array::from_slice(&px, &[pn])?),
                g(Array::from_slice(&pv, &[pn])?),
            ],
        },
    ])
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v.get(v.len() / 2)
        .copied()
        .unwrap_or_default()
        .as_secs_f64()
        * 1e3
}

/// Backends that were not measured, each with the reason.
pub type Skipped = Vec<(String, String)>;

/// Measures `backends` (host-memory devices; others are reported skipped
/// in the second list with the reason).
pub fn run(
    quick: bool,
    backends: &[String],
    mut progress: impl FnMut(&str),
) -> Result<(Vec<Row>, Skipped), Error> {
    let reps = if quick { 3 } else { 9 };
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let ws = workloads(quick)?;
    for name in backends {
        let dev = match Device::open(name) {
            Ok(d) if d.describe().host_memory => d,
            Ok(_) => {
                skipped.push((name.clone(), "not a host-memory device".into()));
                continue;
            }
            Err(e) => {
                skipped.push((name.clone(), e.to_string()));
                continue;
            }
        };
        if dev.name() == "interp" {
            skipped.push((name.clone(), "the interpreter is not timed".into()));
            continue;
        }
        for w in &ws {
            progress(&format!("{} on {}", w.name, dev.name()));
            let t = Instant::now();
            let module = Compiler::new().compile("bench.py", w.source)?;
            let fwd = dev.load(&module, w.kernel)?;
            let forward_compile_ms = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            let adj = dev.load_adjoint(&module, w.kernel)?;
            let backward_compile_ms = t.elapsed().as_secs_f64() * 1e3;
            let args = w.args();
            let dim = [w.n];
            let (mut f, mut b) = (Vec::new(), Vec::new());
            // Alternate, so that both see the same machine state.
            for _ in 0..reps {
                let t = Instant::now();
                dev.launch(&fwd, &dim, &args)?;
                f.push(t.elapsed());
                let t = Instant::now();
                dev.launch_adjoint(&adj, &dim, &args)?;
                b.push(t.elapsed());
            }
            rows.push(Row {
                workload: w.name.clone(),
                backend: dev.name().to_string(),
                forward_compile_ms,
                backward_compile_ms,
                forward_ms: median(f),
                backward_ms: median(b),
            });
        }
    }
    Ok((rows, skipped))
}

/// The rows as a text table.
pub fn table(rows: &[Row], skipped: &[(String, String)]) -> String {
    let mut out = format!(
        "{:<18} {:<9} {:>12} {:>13} {:>11} {:>12} {:>9}\n",
        "workload", "backend", "compile fwd", "compile bwd", "forward", "backward", "bwd/fwd"
    );
    for r in rows {
        out.push_str(&format!(
            "{:<18} {:<9} {:>9.2} ms {:>10.2} ms {:>8.3} ms {:>9.3} ms {:>8.2}x\n",
            r.workload,
            r.backend,
            r.forward_compile_ms,
            r.backward_compile_ms,
            r.forward_ms,
            r.backward_ms,
            r.ratio()
        ));
    }
    for (b, why) in skipped {
        out.push_str(&format!("{b}: skipped ({why})\n"));
    }
    out
}
