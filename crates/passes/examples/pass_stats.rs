//! What each pass earns: compiles every kernel of the conformance corpus
//! and prints, per pass, the IR instructions it removed (summed over the
//! corpus); then, per pipeline configuration (each level, and O2 with one
//! pass left out), the IR size, the size of the Cranelift IR the CPU
//! backend generates from it (before Cranelift's own optimizations), and
//! the JIT's time on two kernels of the corpus: the seed's N-body step
//! (N = 4096, one thread) and a 2-D Jacobi sweep (1024 × 1024).
//!
//! `cargo run --release -p weft-passes --example pass_stats`
//! (`WEFT_CONFORMANCE_DIR` overrides the corpus location; `--no-bench`
//! skips the timings).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;
use weft_backend_cpu::{compile, emit_clif, CpuOptions};
use weft_ir::layout::{arg_layout, ArrayDesc};
use weft_ir::Module;
use weft_passes::{inst_count, run_pipeline, OptLevel, PipelineOptions, VerifyMode};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("WEFT_CONFORMANCE_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance"),
    }
}

/// Instructions in Cranelift IR text (block headers, preamble
/// declarations and braces excluded).
fn clif_insts(text: &str) -> usize {
    text.lines()
        .map(str::trim)
        .filter(|l| {
            let decl = ["gv", "sig", "fn", "ss", "dss", "jt", "const"]
                .iter()
                .any(|p| {
                    l.strip_prefix(p)
                        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
                });
            !l.is_empty()
                && !l.ends_with(':')
                && !l.starts_with("function")
                && !l.starts_with('}')
                && !l.starts_with(';')
                && !decl
        })
        .count()
}

struct Config {
    name: String,
    opts: PipelineOptions,
}

fn configs() -> Vec<Config> {
    let base = PipelineOptions {
        verify: VerifyMode::Never,
        ..PipelineOptions::default()
    };
    let mut out: Vec<Config> = OptLevel::ALL
        .iter()
        .map(|&l| Config {
            name: l.name().to_string(),
            opts: PipelineOptions {
                opt_level: l,
                ..base.clone()
            },
        })
        .collect();
    for pass in ["unroll", "strength-reduce", "cse", "licm"] {
        out.push(Config {
            name: format!("O2 -{pass}"),
            opts: PipelineOptions {
                disable: vec![pass.to_string()],
                ..base.clone()
            },
        });
    }
    out
}

fn main() {
    let bench = !std::env::args().any(|a| a == "--no-bench");
    let cases = corpus_dir().join("cases");
    let mut dirs: Vec<PathBuf> = match std::fs::read_dir(&cases) {
        Ok(e) => e.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            eprintln!("no corpus at {}: {e}", cases.display());
            std::process::exit(1);
        }
    };
    dirs.sort();
    let mut modules: Vec<(String, Module)> = Vec::new();
    for d in &dirs {
        let name = d
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let Ok(src) = std::fs::read_to_string(d.join("kernel.py")) else {
            continue;
        };
        match weft_frontend::compile("kernel.py", &src) {
            Ok(m) => modules.push((name, m)),
            Err(_) => println!("skipped {name}: the frontend rejects it"),
        }
    }
    println!("{} kernels modules compiled\n", modules.len());

    // Per pass, inside the O2 pipeline: instructions removed (summed over
    // every run of the pass) and the cases where it changed anything.
    let mut per_pass: BTreeMap<String, (i64, usize, usize)> = BTreeMap::new();
    for (_, m) in &modules {
        let mut m = m.clone();
        let opts = PipelineOptions {
            verify: VerifyMode::Never,
            ..PipelineOptions::default()
        };
        let Ok(r) = run_pipeline(&mut m, &opts) else {
            continue;
        };
        let mut before = r.input_insts;
        let mut seen: BTreeMap<&str, bool> = BTreeMap::new();
        for ((name, changed, _), &after) in r.passes.iter().zip(&r.inst_counts) {
            let e = per_pass.entry(name.clone()).or_default();
            e.0 += before as i64 - after as i64;
            *seen.entry(name).or_default() |= *changed;
            before = after;
        }
        for (name, changed) in seen {
            let e = per_pass.entry(name.to_string()).or_default();
            e.1 += changed as usize;
            e.2 += 1;
        }
    }
    println!("O2 pipeline, per pass (over all its runs, summed over the corpus):");
    println!(
        "{:<18}{:>16}{:>22}",
        "pass", "insts removed", "cases changed"
    );
    for (name, (removed, changed, total)) in &per_pass {
        println!(
            "{name:<18}{removed:>16}{:>22}",
            format!("{changed}/{total}")
        );
    }
    println!("(inline adds instructions: the callees' bodies replace the calls)\n");

    let nbody = modules
        .iter()
        .find(|(n, _)| n == "seed_nbody_step")
        .map(|(_, m)| m.clone());
    let jacobi = modules
        .iter()
        .find(|(n, _)| n == "real_jacobi_heat_2d")
        .map(|(_, m)| m.clone());
    println!(
        "{:<22}{:>12}{:>14}{:>16}{:>16}",
        "pipeline", "IR insts", "CLIF insts", "N-body ms", "Jacobi ms"
    );
    for c in configs() {
        let (mut ir, mut clif) = (0usize, 0usize);
        for (name, m) in &modules {
            let mut m = m.clone();
            if let Err(e) = run_pipeline(&mut m, &c.opts) {
                println!("{name}: {}: {e}", c.name);
                continue;
            }
            ir += inst_count(&m);
            match emit_clif(&m, &CpuOptions::default()) {
                Ok(t) => clif += clif_insts(&t),
                Err(e) => println!("{name}: {}: CPU backend: {e}", c.name),
            }
        }
        let time = |m: &Option<Module>, f: fn(&Module) -> Option<f64>| {
            let mut m = m.clone()?;
            run_pipeline(&mut m, &c.opts).ok()?;
            f(&m)
        };
        let (nb, ja) = if bench {
            (time(&nbody, time_nbody), time(&jacobi, time_jacobi))
        } else {
            (None, None)
        };
        let ms = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{:.2}", t * 1e3));
        println!(
            "{:<22}{ir:>12}{clif:>14}{:>16}{:>16}",
            c.name,
            ms(nb),
            ms(ja)
        );
    }
}

fn desc<T>(v: &mut [T], shape: [i32; 4]) -> ArrayDesc {
    let e = std::mem::size_of::<T>() as i64;
    let mut strides = [0i64; 4];
    let nd = shape.iter().rposition(|&s| s > 1).map_or(1, |i| i + 1);
    let mut s = e;
    for a in (0..nd).rev() {
        strides[a] = s;
        s *= shape[a] as i64;
    }
    ArrayDesc {
        data: v.as_mut_ptr() as *mut u8,
        shape,
        strides,
    }
}

/// Writes `v` at byte `off` of the argument block.
fn put<T: Copy>(buf: &mut [u64], off: u32, v: T) {
    let end = off as usize + std::mem::size_of::<T>();
    assert!(end <= buf.len() * 8, "argument outside the block");
    // SAFETY: the write is inside `buf` (checked above) and unaligned-safe.
    unsafe {
        std::ptr::write_unaligned((buf.as_mut_ptr() as *mut u8).add(off as usize) as *mut T, v)
    };
}

/// Median seconds of `reps` calls of the kernel over `n` threads.
fn run(m: &Module, kernel: &str, block: &[u64], n: i64, reps: usize) -> Option<f64> {
    let art = compile(m, &CpuOptions::default()).ok()?;
    let k = art.kernel(kernel)?;
    let mut times = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        // SAFETY: the block was laid out by `arg_layout` for this kernel's
        // params, its arrays outlive the call and cover every index the
        // kernel reads or writes for threads 0..n.
        unsafe { (k.entry)(block.as_ptr() as *const u8, 0, n) };
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Some(times[times.len() / 2])
}

fn block_for(m: &Module, kernel: &str) -> Option<(Vec<u64>, Vec<u32>)> {
    let f = &m.funcs[m.func_by_name(kernel)?];
    let types: Vec<_> = f.params.iter().map(|p| p.ty).collect();
    let al = arg_layout(&types, &m.structs);
    Some((vec![0u64; al.size.div_ceil(8) as usize], al.offsets))
}

fn time_nbody(m: &Module) -> Option<f64> {
    let n = 4096usize;
    let mut pos: Vec<[f32; 3]> = (0..n)
        .map(|i| {
            [
                (i as f32 * 0.37).sin(),
                (i as f32 * 0.11).cos(),
                i as f32 * 1e-3,
            ]
        })
        .collect();
    let mut vel = vec![[0f32; 3]; n];
    let mut mass = vec![1f32; n];
    let mut np = vec![[0f32; 3]; n];
    let mut nv = vec![[0f32; 3]; n];
    let (mut block, off) = block_for(m, "nbody_step")?;
    let sh = [n as i32, 1, 1, 1];
    put(&mut block, 0, sh);
    put(&mut block, off[0], desc(&mut pos, sh));
    put(&mut block, off[1], desc(&mut vel, sh));
    put(&mut block, off[2], desc(&mut mass, sh));
    put(&mut block, off[3], desc(&mut np, sh));
    put(&mut block, off[4], desc(&mut nv, sh));
    put(&mut block, off[5], n as i32);
    put(&mut block, off[6], 0.01f32);
    put(&mut block, off[7], 1.0f32);
    put(&mut block, off[8], 0.01f32);
    run(m, "nbody_step", &block, n as i64, 5)
}

fn time_jacobi(m: &Module) -> Option<f64> {
    let n = 1024usize;
    let mut u: Vec<f32> = (0..n * n).map(|i| (i % 97) as f32 * 0.01).collect();
    let mut rhs: Vec<f32> = (0..n * n).map(|i| (i % 13) as f32 * 0.1).collect();
    let mut un = vec![0f32; n * n];
    let mut res = vec![0f32; n * n];
    let (mut block, off) = block_for(m, "jacobi_step")?;
    let sh = [n as i32, n as i32, 1, 1];
    put(&mut block, 0, sh);
    put(&mut block, off[0], desc(&mut u, sh));
    put(&mut block, off[1], desc(&mut rhs, sh));
    put(&mut block, off[2], 0.01f32);
    put(&mut block, off[3], desc(&mut un, sh));
    put(&mut block, off[4], desc(&mut res, sh));
    run(m, "jacobi_step", &block, (n * n) as i64, 9)
}
