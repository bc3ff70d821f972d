//! What each pass earns: compiles every kernel of the conformance corpus
//! and prints, per pass, the IR instructions it removed (summed over the
//! corpus); then, per pipeline configuration (each level, and O2 with one
//! pass left out), the IR size, the size of the Cranelift IR the CPU
//! backend generates from it (before Cranelift's own optimizations) and
//! of the HLSL the HLSL backend writes (statements), and
//! the JIT's time on two kernels of the corpus: the seed's N-body step
//! (N = 4096, one thread) and a 2-D Jacobi sweep (1024 × 1024).
//!
//! `cargo run --release -p weft-devtools --example pass_stats`
//! (`WEFT_CONFORMANCE_DIR` overrides the corpus location; `--no-bench`
//! skips the timings; `WEFT_STATS_DUMP=<dir>` writes the IR and Cranelift
//! IR of every case under `<dir>/<configuration>/`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use weft::ir::layout::{arg_layout, ArrayDesc};
use weft::ir::Module;
use weft_backend_cpu::{compile, emit_text, Options};
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

/// Interleaved timing rounds (the best is kept).
const ROUNDS: usize = 15;

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
    for pass in ["cse", "licm"] {
        out.push(Config {
            name: format!("O2 -{pass}"),
            opts: PipelineOptions {
                disable: vec![pass.to_string()],
                ..base.clone()
            },
        });
    }
    for pass in ["unroll", "strength-reduce"] {
        out.push(Config {
            name: format!("O2 +{pass}"),
            opts: PipelineOptions {
                enable: vec![pass.to_string()],
                ..base.clone()
            },
        });
    }
    out
}

fn main() {
    let bench = !std::env::args().any(|a| a == "--no-bench");
    // `WEFT_STATS_DUMP=dir`: the IR and CLIF of every case per configuration.
    let dump = std::env::var_os("WEFT_STATS_DUMP").map(PathBuf::from);
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
    println!("{} modules compiled\n", modules.len());

    // Per pass, inside the O2 pipeline: instructions removed (summed over
    // every run of the pass) and the cases where it changed anything.
    let mut per_pass: BTreeMap<String, (i64, usize, usize)> = BTreeMap::new();
    for (_, m) in &modules {
        let mut m = m.clone();
        let opts = PipelineOptions {
            verify: VerifyMode::Never,
            enable: vec!["unroll".into(), "strength-reduce".into()],
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
    println!(
        "O2 pipeline with the opt-in passes, per pass (over all its runs, summed over the corpus):"
    );
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

    let find = |name: &str| {
        modules
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, m)| m.clone())
    };
    let (nbody, jacobi) = (find("seed_nbody_step"), find("real_jacobi_heat_2d"));
    println!(
        "{:<22}{:>10}{:>14}{:>12}{:>14}",
        "pipeline", "IR insts", "in loops", "CLIF insts", "HLSL stmts"
    );
    let configs = configs();
    for c in &configs {
        let (mut ir, mut in_loops, mut clif, mut hlsl) = (0usize, 0usize, 0usize, 0usize);
        for (name, m) in &modules {
            let mut m = m.clone();
            if let Err(e) = run_pipeline(&mut m, &c.opts) {
                println!("{name}: {}: {e}", c.name);
                continue;
            }
            ir += inst_count(&m);
            // HLSL needs every call inlined (not so at O0).
            let kernels: Vec<String> = m.kernels().map(|(_, f)| f.name.clone()).collect();
            let info = weft::ir::ModuleInfo::of(&m);
            for k in kernels {
                let o = weft_backend_hlsl::Options::default();
                if let Ok(a) = weft_backend_hlsl::compile_kernel(&m, &info, &k, &o) {
                    hlsl += a
                        .source
                        .lines()
                        .filter(|l| l.trim_end().ends_with(';'))
                        .count();
                }
            }
            in_loops += loop_insts(&m);
            match emit_text(
                &m,
                &weft::ir::verify::verify_module(&m).expect("verifies"),
                &Options::default(),
            ) {
                Ok(t) => {
                    clif += clif_insts(&t);
                    if let Some(dir) = &dump {
                        let d = dir.join(c.name.replace(' ', "_"));
                        let _ = std::fs::create_dir_all(&d);
                        let _ = std::fs::write(d.join(format!("{name}.clif")), &t);
                        let ir = weft::ir::text::print_module(&m);
                        let _ = std::fs::write(d.join(format!("{name}.ir")), ir);
                    }
                }
                Err(e) => println!("{name}: {}: CPU backend: {e}", c.name),
            }
        }
        println!("{:<22}{ir:>10}{in_loops:>14}{clif:>12}{hlsl:>14}", c.name);
    }
    if !bench {
        return;
    }
    // Timings: best of ROUNDS interleaved rounds (the machine is shared).
    let mut benches: Vec<(String, Vec<Option<Bench>>)> = Vec::new();
    for c in &configs {
        let prep = |m: &Option<Module>, kernel: &'static str| {
            let mut m = m.clone()?;
            run_pipeline(&mut m, &c.opts).ok()?;
            Bench::new(m, kernel)
        };
        benches.push((
            c.name.clone(),
            vec![prep(&nbody, "nbody_step"), prep(&jacobi, "jacobi_step")],
        ));
    }
    // JIT compile time of the whole corpus, and the interpreter on a small
    // N-body (it runs the IR as it is: no backend optimizes behind it).
    let mut extra = Vec::new();
    for c in &configs {
        let mut compile_s = 0.0;
        for (_, m) in &modules {
            let mut m = m.clone();
            if run_pipeline(&mut m, &c.opts).is_err() {
                continue;
            }
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                let t0 = thread_cpu_time().unwrap_or(0.0);
                if compile(
                    &m,
                    &weft::ir::verify::verify_module(&m).expect("verifies"),
                    &Options::default(),
                )
                .is_ok()
                {
                    best = best.min(thread_cpu_time().unwrap_or(0.0) - t0);
                }
            }
            if best.is_finite() {
                compile_s += best;
            }
        }
        let interp = nbody.clone().and_then(|mut m| {
            run_pipeline(&mut m, &c.opts).ok()?;
            (0..5).filter_map(|_| interp_nbody(&m)).reduce(f64::min)
        });
        extra.push((compile_s, interp));
    }
    let mut best = vec![vec![f64::INFINITY; 2]; benches.len()];
    for _ in 0..ROUNDS {
        for (k, (_, bs)) in benches.iter_mut().enumerate() {
            for (j, b) in bs.iter_mut().enumerate() {
                if let Some(t) = b.as_mut().and_then(|b| b.run()) {
                    best[k][j] = best[k][j].min(t);
                }
            }
        }
    }
    println!(
        "\nCPU JIT, thread CPU time, best of {ROUNDS}: N-body step (N = 4096, one thread), Jacobi sweep (1024 x 1024, one thread)"
    );
    println!(
        "(and the CPU time of JIT-compiling the whole corpus, best of 3 per case; the interpreter on N-body, N = 128, best of 5)"
    );
    println!(
        "{:<22}{:>12}{:>12}{:>16}{:>18}",
        "pipeline", "N-body ms", "Jacobi ms", "JIT corpus ms", "interp N-body ms"
    );
    for (((name, _), t), (cs, it)) in benches.iter().zip(&best).zip(&extra) {
        let ms = |t: f64| {
            if t.is_finite() {
                format!("{:.2}", t * 1e3)
            } else {
                "-".into()
            }
        };
        println!(
            "{name:<22}{:>12}{:>12}{:>16}{:>18}",
            ms(t[0]),
            ms(t[1]),
            ms(*cs),
            ms(it.unwrap_or(f64::INFINITY))
        );
    }
}

/// CPU seconds of the reference interpreter running N-body with N = 128.
fn interp_nbody(m: &Module) -> Option<f64> {
    use weft::ir::interp::{run_kernel, ArgValue, InterpOptions};
    let n = 128usize;
    let bytes = |v: Vec<f32>| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let pos = bytes((0..3 * n).map(|i| (i as f32 * 0.37).sin()).collect());
    let mut bufs = [
        pos,
        bytes(vec![0.0; 3 * n]),
        bytes(vec![1.0; n]),
        bytes(vec![0.0; 3 * n]),
        bytes(vec![0.0; 3 * n]),
    ];
    let mut args: Vec<ArgValue> = bufs
        .iter_mut()
        .enumerate()
        .map(|(k, data)| {
            let e = if k == 2 { 4 } else { 12 };
            ArgValue::Array {
                data: data.as_mut_slice(),
                shape: [n as i32, 1, 1, 1],
                strides: [e, 0, 0, 0],
            }
        })
        .collect();
    args.push(ArgValue::Value((n as i32).to_le_bytes().to_vec()));
    for x in [0.01f32, 1.0, 0.01] {
        args.push(ArgValue::Value(x.to_le_bytes().to_vec()));
    }
    let k = m.func_by_name("nbody_step")?;
    let t = thread_cpu_time()?;
    run_kernel(m, k, &[n as i32], &mut args, &InterpOptions::default()).ok()?;
    Some(thread_cpu_time()? - t)
}

/// Instructions nested in at least one loop.
fn loop_insts(m: &Module) -> usize {
    fn go(f: &weft::ir::Function, r: weft::ir::Region, depth: usize, n: &mut usize) {
        for &i in &f.regions[r].insts {
            if depth > 0 {
                *n += 1;
            }
            let d = depth + matches!(f.insts[i].kind, weft::ir::InstKind::Loop { .. }) as usize;
            for sub in f.insts[i].kind.regions() {
                go(f, sub, d, n);
            }
        }
    }
    let mut n = 0;
    for f in m.funcs.values() {
        go(f, f.body, 0, &mut n);
    }
    n
}

/// The descriptor of a C-order array of `elem`-byte elements in `v`.
fn desc(v: &mut [f32], shape: [i32; 4], elem: i64) -> ArrayDesc {
    let mut strides = [0i64; 4];
    let nd = shape.iter().rposition(|&s| s > 1).map_or(1, |i| i + 1);
    let mut s = elem;
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

/// A compiled kernel with its data and argument block.
struct Bench {
    art: weft_backend_cpu::Artifact,
    kernel: &'static str,
    block: Vec<u64>,
    threads: i64,
    _data: Vec<Vec<f32>>,
}

impl Bench {
    fn new(m: Module, kernel: &'static str) -> Option<Bench> {
        let art = compile(
            &m,
            &weft::ir::verify::verify_module(&m).expect("verifies"),
            &Options::default(),
        )
        .ok()?;
        let f = &m.funcs[m.func_by_name(kernel)?];
        let types: Vec<_> = f.params.iter().map(|p| p.ty).collect();
        let al = arg_layout(&types, &m.structs);
        let mut block = vec![0u64; al.size.div_ceil(8) as usize];
        let off = al.offsets;
        let mut data: Vec<Vec<f32>>;
        let threads;
        if kernel == "nbody_step" {
            let n = 4096usize;
            let pos: Vec<f32> = (0..3 * n).map(|i| (i as f32 * 0.37).sin()).collect();
            data = vec![
                pos,
                vec![0.0; 3 * n],
                vec![1.0; n],
                vec![0.0; 3 * n],
                vec![0.0; 3 * n],
            ];
            let sh = [n as i32, 1, 1, 1];
            put(&mut block, 0, sh);
            for (k, d) in data.iter_mut().enumerate() {
                let elem = if k == 2 { 4 } else { 12 };
                put(&mut block, off[k], desc(d, sh, elem));
            }
            put(&mut block, off[5], n as i32);
            put(&mut block, off[6], 0.01f32);
            put(&mut block, off[7], 1.0f32);
            put(&mut block, off[8], 0.01f32);
            threads = n as i64;
        } else {
            let n = 1024usize;
            let u: Vec<f32> = (0..n * n).map(|i| (i % 97) as f32 * 0.01).collect();
            let rhs: Vec<f32> = (0..n * n).map(|i| (i % 13) as f32 * 0.1).collect();
            data = vec![u, rhs, vec![0.0; n * n], vec![0.0; n * n]];
            let sh = [n as i32, n as i32, 1, 1];
            put(&mut block, 0, sh);
            let slots = [0usize, 1, 3, 4];
            for (d, &k) in data.iter_mut().zip(&slots) {
                put(&mut block, off[k], desc(d, sh, 4));
            }
            put(&mut block, off[2], 0.01f32);
            threads = (n * n) as i64;
        }
        Some(Bench {
            art,
            kernel,
            block,
            threads,
            _data: data,
        })
    }

    /// CPU seconds of this thread for one launch over all threads (CPU
    /// time rather than wall time: the machine is shared, and time spent
    /// descheduled is not the kernel's).
    fn run(&mut self) -> Option<f64> {
        let k = self.art.kernel(self.kernel)?;
        let t = thread_cpu_time()?;
        // SAFETY: the block was laid out by `arg_layout` for this kernel's
        // params; its arrays (owned by `self`, never reallocated) cover
        // every index the kernel touches for threads 0..threads.
        unsafe { (k.entry)(self.block.as_ptr() as *const u8, 0, self.threads) };
        Some(thread_cpu_time()? - t)
    }
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

/// Linux's `CLOCK_THREAD_CPUTIME_ID`.
const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

/// This thread's CPU time in seconds.
fn thread_cpu_time() -> Option<f64> {
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `struct timespec` (two 64-bit
    // fields on 64-bit Linux) to the pointer, which is valid and exclusive.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}
