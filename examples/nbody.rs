//! The N-body demo: compiles `examples/nbody.py` (the seed's brute-force
//! `nbody_step` kernel and a per-body `body_energy` kernel), runs a
//! self-gravitating ball of bodies on the CPU JIT and reports speed and the
//! relative energy drift.
//!
//! ```text
//! cargo run --release --example nbody -- [--n N] [--steps S] [--report K] [--device D]
//! ```
//!
//! Initial conditions are deterministic: `N` bodies uniform in the unit ball
//! (total mass 1, `G = 1`), rotating slowly about the z axis, with a random
//! velocity dispersion that puts the ball near virial equilibrium (2K/|W| ≈
//! 0.8), so it neither collapses nor flies apart over the run. The
//! integrator is the kernel's semi-implicit (symplectic) Euler step: its
//! energy error is first order in `dt` and stays bounded rather than
//! growing secularly. With the defaults (`dt = 1e-3`, softening `eps =
//! 0.05`) the relative drift after 100 steps is about 2e-5.

use std::process::ExitCode;
use std::time::Instant;
use weft::{Arg, Array, Compiler, Device, Kernel};

const SOURCE: &str = include_str!("nbody.py");
const GRAV: f32 = 1.0;
const DT: f32 = 1e-3;
const EPS2: f32 = 0.05 * 0.05;

const USAGE: &str = "\
usage: nbody [--n N] [--steps S] [--report K] [--device D]

  --n N         number of bodies (default 4096; 256 on interp)
  --steps S     time steps to run (default 100)
  --report K    also print the energy every K steps (default 0: only at start and end)
  --device D    cpu (Cranelift JIT on all cores, default), interp (the reference
                interpreter, one thread), or any other device `weft` knows (llvm-cpu, cuda, ...)";

struct Options {
    n: Option<usize>,
    steps: usize,
    report: usize,
    device: String,
}

enum Parsed {
    Run(Options),
    Help,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut opts = Options {
        n: None,
        steps: 100,
        report: 0,
        device: "cpu".to_string(),
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            return Ok(Parsed::Help);
        }
        // Both `--flag value` and `--flag=value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if !matches!(flag.as_str(), "--n" | "--steps" | "--report" | "--device") {
            return Err(format!("unknown argument `{arg}`"));
        }
        let value = match inline.or_else(|| args.next()) {
            Some(v) => v,
            None => return Err(format!("`{flag}` needs a value")),
        };
        let count = |v: &str| {
            v.parse::<usize>()
                .map_err(|_| format!("`{flag}` wants a non-negative integer, got `{v}`"))
        };
        match flag.as_str() {
            "--n" => {
                let n = count(&value)?;
                if n == 0 || n > i32::MAX as usize {
                    return Err(format!("`--n` must be between 1 and {}", i32::MAX));
                }
                opts.n = Some(n);
            }
            "--steps" => opts.steps = count(&value)?,
            "--report" => opts.report = count(&value)?,
            _ => opts.device = value,
        }
    }
    Ok(Parsed::Run(opts))
}

/// SplitMix64: a small deterministic generator for the initial conditions.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [-1, 1).
    fn signed_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// Positions uniform in the unit ball, velocities `ω × r` about z plus an
/// isotropic uniform dispersion (rms speed `SIGMA`), masses `1/n`.
fn initial_conditions(n: usize) -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Vec<f32>) {
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

struct Sim {
    device: Device,
    step: Kernel,
    energy: Kernel,
    n: usize,
    pos: Array,
    vel: Array,
    new_pos: Array,
    new_vel: Array,
    mass: Array,
    body_energy: Array,
}

impl Sim {
    fn advance(&mut self) -> Result<(), weft::Error> {
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
    fn total_energy(&self) -> Result<f64, weft::Error> {
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
}

fn run(opts: Options) -> Result<(), weft::Error> {
    let device = Device::open(&opts.device)?;
    let n = opts
        .n
        .unwrap_or(if device.name() == "interp" { 256 } else { 4096 });

    let t = Instant::now();
    let module = Compiler::new().compile("examples/nbody.py", SOURCE)?;
    let step = device.load(&module, "nbody_step")?;
    let energy = device.load(&module, "body_energy")?;
    let compile_s = t.elapsed().as_secs_f64();

    let (pos, vel, mass) = initial_conditions(n);
    let pos = Array::from_slice(&pos, &[n])?;
    let vec3 = pos.dtype().clone();
    let mut sim = Sim {
        pos,
        vel: Array::from_slice(&vel, &[n])?,
        new_pos: Array::zeros(vec3.clone(), &[n])?,
        new_vel: Array::zeros(vec3, &[n])?,
        mass: Array::from_slice(&mass, &[n])?,
        body_energy: Array::from_slice(&vec![0.0f32; n], &[n])?,
        device,
        step,
        energy,
        n,
    };

    println!(
        "weft N-body: {n} bodies, {} steps on {} (dt {DT}, G {GRAV}, eps² {EPS2:.4})",
        opts.steps,
        sim.device.name()
    );
    println!(
        "compile (source → {} kernels): {:.1} ms",
        sim.device.name(),
        compile_s * 1e3
    );

    let e0 = sim.total_energy()?;
    println!("step {:>6}  E = {e0:+.9}", 0);
    let mut stepping = 0.0f64;
    for s in 1..=opts.steps {
        let t = Instant::now();
        sim.advance()?;
        stepping += t.elapsed().as_secs_f64();
        if opts.report > 0 && s % opts.report == 0 && s != opts.steps {
            let e = sim.total_energy()?;
            println!(
                "step {s:>6}  E = {e:+.9}  drift {:.3e}",
                ((e - e0) / e0).abs()
            );
        }
    }
    let e1 = sim.total_energy()?;
    let drift = ((e1 - e0) / e0).abs();
    println!("step {:>6}  E = {e1:+.9}  drift {drift:.3e}", opts.steps);

    let steps_per_s = opts.steps as f64 / stepping.max(f64::MIN_POSITIVE);
    let interactions = (n as f64) * (n as f64) * steps_per_s;
    println!("N                 {n}");
    println!("steps             {}", opts.steps);
    println!("time stepping     {stepping:.3} s");
    println!("steps/s           {steps_per_s:.2}");
    println!("interactions/s    {:.3e}", interactions);
    println!("energy drift      {drift:.3e}  (|E_end - E_0| / |E_0|)");
    Ok(())
}

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)) {
        Ok(Parsed::Help) => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Ok(Parsed::Run(opts)) => match run(opts) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{}", e.render(false));
                ExitCode::FAILURE
            }
        },
        Err(msg) => {
            eprintln!("error: {msg}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
