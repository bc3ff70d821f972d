//! `weft`: the command-line driver (check, build, run, conform, compare,
//! cache, bench, bench-gpu, fuzz-diff, fuzz-seeds).

use clap::{value_parser, Arg as CArg, ArgAction, ArgMatches, Command};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use weft::ir::{FuncKind, InstKind, Module as IrModule};
use weft::{CompileOptions, Compiler, Device, DeviceOptions, OptLevel};
use weft_conform::{self as conform, Case, Error};
use weft_devtools::{bench, gpu_bench};

/// `println!` that ignores a closed stdout (`weft conform DIR | head`).
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

/// Every device name of the registry (compiled in or not: asking for one
/// this build lacks says which feature enables it).
fn device_names() -> Vec<&'static str> {
    weft::devices().iter().map(|d| d.name).collect()
}

/// What `weft bench --backend` takes: the devices, then the compile-only
/// targets.
fn bench_targets() -> Vec<&'static str> {
    let mut v = device_names();
    v.extend(bench::scaling::TEXT_TARGETS);
    v
}

/// `--backend`'s help: the devices, and which of them this build has.
fn backend_help() -> String {
    let mut parts = Vec::new();
    for d in weft::devices() {
        match (d.compiled_in(), d.feature) {
            (false, Some(f)) => parts.push(format!("{} (needs the `{f}` feature)", d.name)),
            _ => parts.push(d.name.to_string()),
        }
    }
    format!("Device to run on: {} (cuda:N for GPU N)", parts.join(", "))
}

fn cli() -> Command {
    let backend = || {
        CArg::new("backend")
            .long("backend")
            .value_name("B")
            .default_value("cpu")
            .help(backend_help())
    };
    let opt_level = || {
        CArg::new("opt-level")
            .short('O')
            .value_name("N")
            .value_parser(["0", "1", "2"])
            .default_value("2")
            .help("Optimization level of the pass pipeline and the backend: -O0 (no passes, unoptimized code, for the debugger), -O1, -O2")
    };
    let fast_math = || {
        CArg::new("fast-math")
            .long("fast-math")
            .action(ArgAction::SetTrue)
            .help("Fast math: FMA contraction and approximate functions (all backends but interp)")
    };
    let deterministic = || {
        CArg::new("deterministic")
            .long("deterministic")
            .action(ArgAction::SetTrue)
            .help("Deterministic launches: results independent of the thread count and schedule, float atomics included (host devices; docs/runtime.md)")
    };
    let layout = || {
        CArg::new("layout")
            .long("layout")
            .value_name("L")
            .value_parser(["aos", "soa"])
            .default_value("aos")
            .help("Memory layout of kernel array parameters: aos (Warp's), or soa (structure of arrays for every eligible array: vectors, matrices, quaternions, transforms, one-scalar structs)")
    };
    let exact_loops = || {
        CArg::new("exact-loops")
            .long("exact-loops")
            .value_name("K")
            .value_parser(value_parser!(u32))
            .help("Differentiate dynamic loops exactly (beyond Warp's rule), keeping at most K states per loop and thread (docs/autodiff.md)")
    };
    let gdb = || {
        CArg::new("gdb")
            .short('g')
            .action(ArgAction::SetTrue)
            .help("Debug info for gdb: the cpu backend's JIT code is registered with gdb, lines map to the .py (as WEFT_GDB=1; see docs/debugging.md)")
    };
    let timeout = || {
        CArg::new("timeout")
            .long("timeout")
            .value_name("SECONDS")
            .value_parser(parse_timeout)
            .help("Wall-clock limit per launch on the CPU devices (cpu, llvm-cpu, interp): a launch still running after SECONDS is stopped with an error (docs/reliability.md)")
    };
    Command::new("weft")
        .about("Compiler for Warp kernels: check, build, run conformance cases")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("check")
                .about("Compile a kernel file and report diagnostics")
                .arg(CArg::new("file").required(true).value_name("FILE.py")),
        )
        .subcommand(
            Command::new("build")
                .about("Compile a kernel file and print its IR, Cranelift IR, LLVM IR or PTX")
                .arg(
                    CArg::new("file")
                        .required_unless_present("print-pipeline")
                        .value_name("FILE.py"),
                )
                .arg(opt_level())
                .arg(layout())
                .arg(exact_loops())
                .arg(
                    CArg::new("print-pipeline")
                        .long("print-pipeline")
                        .action(ArgAction::SetTrue)
                        .help("Print the pass pipeline of -O and --fast-math and exit"),
                )
                .arg(
                    CArg::new("emit")
                        .long("emit")
                        .value_parser(["ir", "ir-raw", "clif", "llvm", "ptx"])
                        .default_value("ir")
                        .help("ir: after the pass pipeline; ir-raw: frontend output; clif: Cranelift IR; llvm: LLVM IR (NVPTX, or the host with --llvm-target host); ptx: PTX"),
                )
                .arg(
                    CArg::new("arch")
                        .long("arch")
                        .value_name("SM")
                        .help("PTX architecture, sm_70 … sm_90 (default: the GPU's, else sm_80)"),
                )
                .arg(
                    CArg::new("ptxas-info")
                        .long("ptxas-info")
                        .action(ArgAction::SetTrue)
                        .help("With --emit ptx: also print ptxas's register/spill report (to stderr)"),
                )
                .arg(
                    CArg::new("fast-math")
                        .long("fast-math")
                        .action(ArgAction::SetTrue)
                        .help("Fast math: contraction to FMA and approximate functions on every float operation (IR flags; all backends but interp)"),
                )
                .arg(
                    CArg::new("llvm-target")
                        .long("llvm-target")
                        .value_parser(["nvptx", "host"])
                        .default_value("nvptx")
                        .help("Target of --emit llvm"),
                )
                .arg(
                    CArg::new("adjoint")
                        .long("adjoint")
                        .action(ArgAction::SetTrue)
                        .help("The backward module instead: each kernel's adjoint (docs/autodiff.md)"),
                )
                .arg(CArg::new("kernel").long("kernel").value_name("K").help("Only this kernel"))
                .arg(
                    CArg::new("output")
                        .short('o')
                        .value_name("PATH")
                        .value_parser(value_parser!(PathBuf))
                        .help("Write to PATH instead of stdout"),
                )
                .arg(
                    CArg::new("dump-passes")
                        .long("dump-passes")
                        .value_name("DIR")
                        .value_parser(value_parser!(PathBuf))
                        .help("Write the IR after each pass to DIR"),
                )
                .arg(
                    CArg::new("no-opt")
                        .long("no-opt")
                        .action(ArgAction::SetTrue)
                        .help("Keep calls (no inlining)"),
                ),
        )
        .subcommand(
            Command::new("run")
                .about("Run one conformance case and write its arrays as .npy")
                .arg(
                    CArg::new("case")
                        .required(true)
                        .value_name("CASE")
                        .value_parser(value_parser!(PathBuf))
                        .help("Case directory or its case.json"),
                )
                .arg(backend())
                .arg(opt_level())
                .arg(fast_math())
                .arg(deterministic())
                .arg(layout())
                .arg(exact_loops())
                .arg(gdb())
                .arg(timeout())
                .arg(
                    CArg::new("out")
                        .long("out")
                        .value_name("DIR")
                        .value_parser(value_parser!(PathBuf))
                        .help("Output directory (default out/<case>)"),
                )
                .arg(
                    CArg::new("checked")
                        .long("checked")
                        .action(ArgAction::SetTrue)
                        .help("Bounds-checked mode: report out-of-bounds indices and integer division by zero"),
                ),
        )
        .subcommand(
            Command::new("gradcheck")
                .about("Check a gradient case's adjoint gradients against central finite differences")
                .arg(
                    CArg::new("case")
                        .required(true)
                        .num_args(1..)
                        .value_name("CASE")
                        .value_parser(value_parser!(PathBuf))
                        .help("Gradient case directories (or a folder of them)"),
                )
                .arg(backend())
                .arg(exact_loops())
                .arg(
                    CArg::new("entries")
                        .long("entries")
                        .value_name("N")
                        .value_parser(value_parser!(usize))
                        .default_value("64")
                        .help("Entries checked per array (spread evenly over larger arrays)"),
                ),
        )
        .subcommand(
            Command::new("conform")
                .about("Run every conformance case under DIR and compare with Warp's outputs")
                .arg(
                    CArg::new("dir")
                        .required(true)
                        .value_name("DIR")
                        .value_parser(value_parser!(PathBuf)),
                )
                .arg(backend())
                .arg(timeout())
                .arg(opt_level())
                .arg(fast_math())
                .arg(deterministic())
                .arg(layout())
                .arg(exact_loops())
                .arg(gdb())
                .arg(
                    CArg::new("checked")
                        .long("checked")
                        .action(ArgAction::SetTrue)
                        .help("Bounds-checked mode: report out-of-bounds indices and integer division by zero"),
                ),
        )
        .subcommand(
            Command::new("debug")
                .about("Step through one thread of a conformance case's first launch on the CPU JIT (commands from stdin or --script)")
                .arg(
                    CArg::new("case")
                        .required(true)
                        .value_name("CASE")
                        .value_parser(value_parser!(PathBuf))
                        .help("Case directory or its case.json"),
                )
                .arg(
                    CArg::new("backend")
                        .long("backend")
                        .value_name("BACKEND")
                        .default_value("cpu")
                        .help("Only `cpu` (the Cranelift JIT's debug build)"),
                )
                .arg(
                    CArg::new("tid")
                        .long("tid")
                        .value_name("I[,J..]")
                        .value_delimiter(',')
                        .value_parser(value_parser!(usize))
                        .help("Thread(s) to step (default 0); `thread TID` switches"),
                )
                .arg(layout())
                .arg(
                    CArg::new("script")
                        .long("script")
                        .value_name("FILE")
                        .value_parser(value_parser!(PathBuf))
                        .help("Read commands from FILE instead of stdin"),
                ),
        )
        .subcommand(Command::new("dap").about(
            "Serve the Debug Adapter Protocol on stdin/stdout (VS Code; docs/debugging.md)",
        ))
        .subcommand(
            Command::new("compare")
                .about("Run one conformance case on every backend and compare each with the interpreter")
                .arg(
                    CArg::new("case")
                        .required(true)
                        .value_name("CASE")
                        .value_parser(value_parser!(PathBuf))
                        .help("Case directory or its case.json"),
                )
                .arg(
                    CArg::new("html")
                        .long("html")
                        .value_name("PATH")
                        .value_parser(value_parser!(PathBuf))
                        .help("Also write a self-contained HTML page: the table and the source, IR, PTX, HLSL and CLIF side by side"),
                )
                .arg(opt_level())
                .arg(fast_math())
                .arg(deterministic())
                .arg(layout())
                .arg(
                    CArg::new("only")
                        .long("backend")
                        .value_name("B")
                        .action(ArgAction::Append)
                        .value_parser(device_names())
                        .help("Compare only these backends (repeatable; default: all)"),
                ),
        )
        .subcommand(
            Command::new("cache")
                .about("The on-disk compile cache ($WEFT_CACHE_DIR, default the user cache dir)")
                .subcommand_required(true)
                .subcommand(Command::new("info").about("Location, entries and size per kind"))
                .subcommand(Command::new("clear").about("Remove every entry"))
                .subcommand(
                    Command::new("warm")
                        .about("Compile FILE through the cache (optimized IR; PTX and SPIR-V when their tools exist) and print each artifact's hit/miss, time and SHA-256")
                        .arg(CArg::new("file").required(true).value_name("FILE.py")),
                ),
        )
        .subcommand(
            Command::new("bench")
                .about("Compile latency, launch overhead and throughput on every backend (saxpy, N-body, transcendental, atomic sum) beside Rust + rayon")
                .arg(CArg::new("quick").long("quick").action(ArgAction::SetTrue).help("Small sizes, few repetitions"))
                .arg(CArg::new("json").long("json").action(ArgAction::SetTrue).help("Print JSON instead of the table"))
                .arg(deterministic())
                .arg(CArg::new("pin").long("pin").action(ArgAction::SetTrue).help("Pin the pool's threads to one CPU each (thread i to the i-th CPU the process may use), to measure pinning against the default (unpinned)"))
                .arg(
                    CArg::new("only")
                        .long("backend")
                        .value_name("B")
                        .action(ArgAction::Append)
                        .value_parser(bench_targets())
                        .help("Only these backends (repeatable; default: all); `ptx` and `hlsl` are compile-only targets, measured by compile-scaling"),
                )
                .arg(
                    CArg::new("workload")
                        .long("workload")
                        .value_name("NAME")
                        .action(ArgAction::Append)
                        .help("Only the workloads whose name contains NAME (repeatable; e.g. `particles`); `autodiff`: forward vs backward (adjoint) compile and launch times; `compile-scaling` (run only when named): compile time against kernel size and a module of 1000 kernels on 1 thread and on all"),
                ),
        )
        .subcommand(
            Command::new("fuzz-diff")
                .about("Generate random Warp programs (deterministic from the seed) and compare every backend with the interpreter")
                .arg(
                    CArg::new("seed")
                        .long("seed")
                        .value_name("S")
                        .value_parser(value_parser!(u64))
                        .default_value("1")
                        .help("Seed of the first program (program i has seed S + i)"),
                )
                .arg(
                    CArg::new("count")
                        .long("count")
                        .value_name("N")
                        .value_parser(value_parser!(u64))
                        .default_value("100")
                        .help("Programs to generate"),
                )
                .arg(
                    CArg::new("only")
                        .long("backend")
                        .value_name("B")
                        .action(ArgAction::Append)
                        .value_parser(device_names())
                        .help("Backends to compare (repeatable; default: interp, cpu, llvm-cpu, vulkan, cuda, those this build and machine have)"),
                )
                .arg(
                    CArg::new("save")
                        .long("save")
                        .value_name("DIR")
                        .value_parser(value_parser!(PathBuf))
                        .help("Write each divergent program to DIR/fuzz_<seed>/ as a conformance case"),
                )
                .arg(
                    CArg::new("save-all")
                        .long("save-all")
                        .action(ArgAction::SetTrue)
                        .requires("save")
                        .help("With --save: write every program, not only the divergent ones"),
                )
                .arg(
                    CArg::new("print")
                        .long("print")
                        .action(ArgAction::SetTrue)
                        .help("Print each program's source and case.json instead of running it"),
                ),
        )
        .subcommand(
            Command::new("fuzz-seeds")
                .about("Write the fuzz targets' seed inputs, made from the conformance corpus, to OUT/<target>/ (scripts/fuzz.sh)")
                .arg(CArg::new("corpus").required(true).value_name("CORPUS").value_parser(value_parser!(PathBuf)))
                .arg(CArg::new("out").required(true).value_name("OUT").value_parser(value_parser!(PathBuf))),
        )
        .subcommand(
            Command::new("bench-gpu")
                .about("Benchmark the CUDA device: N-body step (GFLOP/s), saxpy (GB/s), transcendental and atomic sum (Gelem/s)")
                .arg(
                    CArg::new("n")
                        .long("n")
                        .value_name("N")
                        .value_parser(value_parser!(usize))
                        .default_value("100000")
                        .help("Bodies of the N-body benchmark"),
                )
                .arg(
                    CArg::new("steps")
                        .long("steps")
                        .value_name("S")
                        .value_parser(value_parser!(usize))
                        .default_value("10")
                        .help("Timed N-body steps (the median is reported)"),
                )
                .arg(
                    CArg::new("saxpy-log2")
                        .long("saxpy-log2")
                        .value_name("K")
                        .value_parser(value_parser!(u32).range(10..=30))
                        .default_value("28")
                        .help("saxpy over 2^K floats"),
                )
                .arg(
                    CArg::new("device")
                        .long("device")
                        .value_name("D")
                        .default_value("cuda")
                        .help("The device (another than cuda tests the bench itself)"),
                )
                .arg(
                    CArg::new("transcendental-log2")
                        .long("transcendental-log2")
                        .value_name("K")
                        .value_parser(value_parser!(u32).range(10..=30))
                        .default_value("28")
                        .help("The transcendental kernel over 2^K floats"),
                )
                .arg(
                    CArg::new("atomic-log2")
                        .long("atomic-log2")
                        .value_name("K")
                        .value_parser(value_parser!(u32).range(10..=30))
                        .default_value("26")
                        .help("The atomic sum of 2^K floats into one cell"),
                )
                .arg(
                    CArg::new("json")
                        .long("json")
                        .value_name("FILE")
                        .value_parser(value_parser!(PathBuf))
                        .help("Also write one JSON object a line per workload to FILE"),
                ),
        )
        .subcommand(
            Command::new("builtins")
                .about("Warp's builtin registry against what Weft compiles on each backend: writes docs/builtins.md")
                .arg(
                    CArg::new("registry")
                        .long("registry")
                        .value_name("FILE")
                        .value_parser(value_parser!(PathBuf))
                        .default_value("conformance/registry.json")
                        .help("The registry snapshot (conformance/gen/warp_registry.py)"),
                )
                .arg(
                    CArg::new("out")
                        .short('o')
                        .value_name("PATH")
                        .value_parser(value_parser!(PathBuf))
                        .default_value("docs/builtins.md")
                        .help("The table to write (or check)"),
                )
                .arg(
                    CArg::new("check")
                        .long("check")
                        .action(ArgAction::SetTrue)
                        .help("Regenerate and fail if PATH differs (CI); needs every backend"),
                )
                .arg(
                    CArg::new("counts")
                        .long("counts")
                        .action(ArgAction::SetTrue)
                        .help("Only print the counts per backend"),
                ),
        )
}

/// The exit code of a command whose check passed (`ok`) or not.
fn success(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let m = cli().get_matches();
    let r = match m.subcommand() {
        Some(("check", a)) => check(a),
        Some(("build", a)) => build(a),
        Some(("run", a)) => run(a),
        Some(("conform", a)) => conform_cmd(a),
        Some(("gradcheck", a)) => gradcheck_cmd(a),
        Some(("compare", a)) => compare_cmd(a),
        Some(("debug", a)) => debug_cmd(a),
        Some(("dap", _)) => weft_cli::dap::serve(std::io::stdin().lock(), std::io::stdout().lock())
            .map(|()| ExitCode::SUCCESS),
        Some(("cache", a)) => cache_cmd(a),
        Some(("bench", a)) => bench_cmd(a),
        Some(("bench-gpu", a)) => bench_gpu(a),
        Some(("fuzz-diff", a)) => fuzz_diff(a),
        Some(("fuzz-seeds", a)) => fuzz_seeds(a),
        Some(("builtins", a)) => builtins_cmd(a),
        _ => Ok(ExitCode::from(2)),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            let color = std::io::stderr().is_terminal();
            let _ = writeln!(std::io::stderr().lock(), "{}", e.render(color));
            ExitCode::FAILURE
        }
    }
}

fn path_arg(a: &ArgMatches, name: &str) -> PathBuf {
    a.get_one::<PathBuf>(name).cloned().unwrap_or_default()
}

fn str_arg<'a>(a: &'a ArgMatches, name: &str) -> &'a str {
    a.get_one::<String>(name).map_or("", String::as_str)
}

/// The `--backend` device, opened (a GPU that cannot be opened, or a device
/// this build lacks, is an error); with `-g` (or `WEFT_GDB=1`) the `cpu`
/// backend compiles with debug info for gdb, unoptimized so that no code
/// moves across source lines (docs/debugging.md). `-O` is the level of the
/// device's code generator too (one optimization level for the passes and
/// the backend).
fn device(a: &ArgMatches) -> Result<Device, Error> {
    let gdb = a
        .try_get_one::<bool>("gdb")
        .ok()
        .flatten()
        .copied()
        .unwrap_or(false)
        || std::env::var_os("WEFT_GDB").is_some_and(|v| v == "1");
    let level = a
        .try_get_one::<String>("opt-level")
        .ok()
        .flatten()
        .and_then(|s| s.parse::<OptLevel>().ok())
        .unwrap_or(OptLevel::O2);
    let opts = DeviceOptions {
        debug_info: gdb,
        opt_level: if gdb { OptLevel::O0 } else { level },
        timeout: a.try_get_one::<Duration>("timeout").ok().flatten().copied(),
        ..DeviceOptions::default()
    };
    Ok(Device::open_with(str_arg(a, "backend"), &opts)?)
}

/// `--timeout SECONDS`: a positive, finite number of seconds.
fn parse_timeout(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if secs.is_nan() || secs <= 0.0 {
        return Err(format!("the timeout must be more than 0 seconds, got {s}"));
    }
    Duration::try_from_secs_f64(secs).map_err(|e| format!("{s}: {e}"))
}

fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::io(path, source))
}

fn check(a: &ArgMatches) -> Result<ExitCode, Error> {
    let file = str_arg(a, "file");
    let source = read(Path::new(file))?;
    let m = Compiler::new().compile(file, &source)?;
    let kernels = m.kernel_names();
    let funcs = m
        .ir()
        .funcs
        .values()
        .filter(|f| f.kind == FuncKind::Func)
        .count();
    say!(
        "ok: {file}: {} kernel{} ({}), {funcs} func{}",
        kernels.len(),
        if kernels.len() == 1 { "" } else { "s" },
        kernels.join(", "),
        if funcs == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}

/// The module reduced to kernel `name` when it calls nothing (else the
/// whole module, whose calls need the other functions).
fn only_kernel(m: &IrModule, name: &str) -> Result<IrModule, Error> {
    let Some((_, f)) = m.kernels().find(|(_, f)| f.name == name) else {
        let names: Vec<_> = m.kernels().map(|(_, f)| f.name.as_str()).collect();
        return Err(weft::RuntimeError::NoKernel {
            name: name.to_string(),
            available: names.join(", "),
        }
        .into());
    };
    if f.insts
        .values()
        .any(|i| matches!(i.kind, InstKind::Call(..)))
    {
        return Ok(m.clone());
    }
    let mut out = IrModule::new();
    out.structs = m.structs.clone();
    out.files = m.files.clone();
    out.funcs.push(f.clone());
    Ok(out)
}

fn build(a: &ArgMatches) -> Result<ExitCode, Error> {
    let compiler = Compiler::with_options(CompileOptions {
        opt: !a.get_flag("no-opt"),
        dump_dir: a.get_one::<PathBuf>("dump-passes").cloned(),
        ..compile_options(a)
    });
    if a.get_flag("print-pipeline") {
        say!("{}", compiler.describe_pipeline().trim_end());
        return Ok(ExitCode::SUCCESS);
    }
    let file = str_arg(a, "file");
    let source = read(Path::new(file))?;
    let emit = str_arg(a, "emit");
    let ir = match (emit == "ir-raw", a.get_flag("adjoint")) {
        (true, false) => compiler.compile_raw(file, &source)?,
        (true, true) => compiler.compile_backward_raw(file, &source)?,
        (false, false) => compiler.compile(file, &source)?.ir().clone(),
        (false, true) => compiler.compile_backward(file, &source)?.ir().clone(),
    };
    let ir = match a.get_one::<String>("kernel") {
        Some(k) => only_kernel(&ir, k)?,
        None => ir,
    };
    let module = weft::Module::from_ir(ir);
    let text = match emit {
        "clif" => module.clif_text()?,
        "ptx" | "llvm" => emit_llvm(a, &module, emit)?,
        _ => module.ir_text(),
    };
    match a.get_one::<PathBuf>("output") {
        Some(p) => std::fs::write(p, text).map_err(|source| Error::io(p, source))?,
        None => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`weft build ... | head`) is not an error.
            let _ = out.write_all(text.as_bytes());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--emit ptx|llvm`: PTX (with ptxas's report on stderr with
/// `--ptxas-info`) or LLVM IR, for the GPU's architecture when there is one.
#[cfg(feature = "llvm")]
fn emit_llvm(a: &ArgMatches, module: &weft::Module, emit: &str) -> Result<String, Error> {
    let opts = weft::PtxOptions {
        arch: match a.get_one::<String>("arch") {
            Some(s) => s.clone(),
            // The GPU's architecture when there is one.
            None => Device::open("cuda")
                .ok()
                .and_then(|d| d.describe().target)
                .unwrap_or_else(|| weft::PtxOptions::default().arch),
        },
        ..Default::default()
    };
    if emit == "llvm" {
        let host = str_arg(a, "llvm-target") == "host";
        return Ok(module.llvm_ir((!host).then_some(&opts))?);
    }
    let art = module.ptx(&opts)?;
    if a.get_flag("ptxas-info") {
        let info = weft::tools::ptxas_info(&art.ptx, &opts.arch)
            .map_err(|e| weft::Error::Backend(Box::new(e)))?;
        let _ = std::io::stderr().lock().write_all(info.as_bytes());
    }
    Ok(art.ptx)
}

/// `--emit ptx|llvm` in a build without the LLVM backend: an error naming
/// the feature.
#[cfg(not(feature = "llvm"))]
fn emit_llvm(_: &ArgMatches, _: &weft::Module, emit: &str) -> Result<String, Error> {
    Err(weft::Error::NotCompiled {
        what: format!("--emit {emit}"),
        feature: "llvm",
    }
    .into())
}

/// `-O`, `--fast-math`, `--deterministic` and `--layout`.
fn compile_options(a: &ArgMatches) -> CompileOptions {
    let level = a
        .get_one::<String>("opt-level")
        .and_then(|s| s.parse::<weft::OptLevel>().ok())
        .unwrap_or(weft::OptLevel::O2);
    let layout = match a.get_one::<String>("layout").map(String::as_str) {
        Some("soa") => weft::ArrayLayout::Soa,
        _ => weft::ArrayLayout::Aos,
    };
    CompileOptions {
        opt_level: level,
        fast_math: a.get_flag("fast-math"),
        deterministic: a
            .try_get_one::<bool>("deterministic")
            .ok()
            .flatten()
            .copied()
            .unwrap_or(false),
        layout: weft::LayoutOptions {
            default: layout,
            params: Vec::new(),
        },
        exact_loops: a.try_get_one::<u32>("exact-loops").ok().flatten().copied(),
        ..CompileOptions::default()
    }
}

/// The compiler of `run`/`conform`: bounds-checked with `--checked`,
/// `-O`, `--fast-math`.
fn checked_compiler(a: &ArgMatches) -> Compiler {
    Compiler::with_options(CompileOptions {
        checked: a.get_flag("checked"),
        ..compile_options(a)
    })
}

fn run(a: &ArgMatches) -> Result<ExitCode, Error> {
    let case = Case::load(&path_arg(a, "case"))?;
    let dev = device(a)?;
    let run = conform::run_case(&case, &dev, &checked_compiler(a))?;
    let out = a
        .get_one::<PathBuf>("out")
        .cloned()
        .unwrap_or_else(|| Path::new("out").join(&case.name));
    let files = run.write_outputs(&out)?;
    say!(
        "{}: ran {} launch{} on {}, wrote {} array{} to {}",
        case.name,
        case.launches.len(),
        if case.launches.len() == 1 { "" } else { "es" },
        dev.name(),
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        out.display()
    );
    let expected_present = case
        .check
        .iter()
        .all(|n| case.dir.join(format!("expected_{n}.npy")).is_file());
    if !case.check.is_empty() && expected_present {
        let ms = conform::check_case(&case, &run)?;
        if ms.is_empty() {
            say!("matches expected ({})", case.check.join(", "));
        } else {
            for m in &ms {
                say!("differs from expected: {m}");
            }
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn gradcheck_cmd(a: &ArgMatches) -> Result<ExitCode, Error> {
    let dev = device(a)?;
    let opts = weft_conform::gradcheck::Options {
        max_entries: *a.get_one::<usize>("entries").unwrap_or(&64),
    };
    let mut paths = Vec::new();
    for p in a.get_many::<PathBuf>("case").into_iter().flatten() {
        paths.extend(conform::find_cases(p)?);
    }
    let compiler = Compiler::with_options(CompileOptions {
        exact_loops: a.get_one::<u32>("exact-loops").copied(),
        ..CompileOptions::default()
    });
    let (mut passed, mut failed) = (0, 0);
    for p in &paths {
        let case = Case::load(p)?;
        let r = match weft_conform::gradcheck::gradcheck(&case, &dev, &compiler, &opts) {
            Ok(r) => r,
            Err(e) => {
                say!("FAIL {}: {}", case.name, conform::one_line(&e));
                failed += 1;
                continue;
            }
        };
        say!(
            "{} (finite differences in {}, on {})",
            r.case,
            r.precision,
            dev.name()
        );
        for row in &r.rows {
            match row.passed {
                Some(ok) => say!(
                    "  {:<12} {:>4} entries  worst relative error {:.1e}  {}",
                    row.array,
                    row.entries,
                    row.error,
                    if ok { "ok" } else { "FAIL" }
                ),
                None => say!("  {:<12} not compared: {}", row.array, row.note),
            }
        }
        if r.passed() {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    say!("{} cases, {passed} passed, {failed} failed", paths.len());
    Ok(success(failed == 0))
}

fn conform_cmd(a: &ArgMatches) -> Result<ExitCode, Error> {
    let dir = path_arg(a, "dir");
    let dev = device(a)?;
    let summary = conform::run_dir(&dir, &dev, &checked_compiler(a), |r| {
        if let Some(line) = r.line() {
            say!("{line}");
        }
    })?;
    say!("{summary}");
    Ok(success(summary.failed == 0))
}

/// `weft fuzz-diff`: generated programs on every backend vs the
/// interpreter; exit 1 when some diverge.
fn fuzz_diff(a: &ArgMatches) -> Result<ExitCode, Error> {
    use weft_devtools::fuzz::{diff, progen};
    let seed = a.get_one::<u64>("seed").copied().unwrap_or(1);
    let count = a.get_one::<u64>("count").copied().unwrap_or(100);
    let config = progen::Config::default();
    if a.get_flag("print") {
        for i in 0..count {
            let p = progen::generate(seed.wrapping_add(i), &config);
            say!("# seed {}\n{}", p.seed, p.source);
            say!("# case.json: {}", p.case_json());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let names: Vec<String> = match a.get_many::<String>("only") {
        Some(v) => v.cloned().collect(),
        // Every default backend that opens here (cuda only with a GPU).
        None => ["interp", "cpu", "llvm-cpu", "vulkan", "cuda"]
            .iter()
            .filter(|n| Device::open(n).is_ok())
            .map(|n| n.to_string())
            .collect(),
    };
    let backends = diff::open_backends(&names)?;
    let opts = diff::Options {
        seed,
        count,
        backends: names.clone(),
        config,
        save: a.get_one::<PathBuf>("save").cloned(),
        save_all: a.get_flag("save-all"),
    };
    say!(
        "fuzz-diff: seeds {seed}..{}, backends {} vs interp -O0",
        seed.wrapping_add(count),
        names.join(", ")
    );
    let summary = diff::run(&opts, &backends, |d| say!("{d}"));
    for (b, n) in &summary.unsupported {
        if *n > 0 {
            say!("{b}: {n} programs unsupported");
        }
    }
    say!("{summary}");
    Ok(success(summary.divergences == 0))
}

/// `weft fuzz-seeds CORPUS OUT`.
fn fuzz_seeds(a: &ArgMatches) -> Result<ExitCode, Error> {
    let (corpus, out) = (path_arg(a, "corpus"), path_arg(a, "out"));
    let counts =
        weft_devtools::fuzz::seeds::write_seeds(&corpus, &out).map_err(|e| Error::io(&out, e))?;
    for (t, n) in counts {
        say!("{t}: {n} seeds");
    }
    Ok(ExitCode::SUCCESS)
}

fn bench_gpu(a: &ArgMatches) -> Result<ExitCode, Error> {
    let get = |k: &str| a.get_one::<usize>(k).copied().unwrap_or(0);
    let opts = gpu_bench::Options {
        device: str_arg(a, "device").to_string(),
        n: get("n"),
        steps: get("steps").max(1),
        saxpy_log2: a.get_one::<u32>("saxpy-log2").copied().unwrap_or(28),
        transcendental_log2: a
            .get_one::<u32>("transcendental-log2")
            .copied()
            .unwrap_or(28),
        atomic_log2: a.get_one::<u32>("atomic-log2").copied().unwrap_or(26),
    };
    let report = gpu_bench::run(&opts)?;
    say!("{report}");
    if let Some(p) = a.get_one::<PathBuf>("json") {
        std::fs::write(p, report.json_lines()).map_err(|e| Error::io(p, e))?;
    }
    Ok(success(report.ok()))
}

fn debug_cmd(a: &ArgMatches) -> Result<ExitCode, Error> {
    if str_arg(a, "backend") != "cpu" {
        eprintln!("error: `weft debug` runs on the `cpu` backend only");
        return Ok(ExitCode::FAILURE);
    }
    let case = Case::load(&path_arg(a, "case"))?;
    let tids: Vec<usize> = a
        .get_many::<usize>("tid")
        .map(|v| v.copied().collect())
        .unwrap_or_else(|| vec![0]);
    let layout = match str_arg(a, "layout") {
        "soa" => weft::ArrayLayout::Soa,
        _ => weft::ArrayLayout::Aos,
    };
    let mut out = std::io::stdout().lock();
    match a.get_one::<PathBuf>("script") {
        Some(p) => {
            let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
            weft_cli::debug::run_session_with_layout(
                &case,
                &tids,
                layout,
                std::io::BufReader::new(f),
                &mut out,
            )?
        }
        None if std::io::stdin().is_terminal() => {
            // A terminal: line editing and history; the editor shows the
            // prompt and the command, so the session does not echo them.
            let editor = weft_cli::line_editor::LineEditor::new("(weft) ")
                .map_err(|e| Error::io("<terminal>", e))?;
            let opts = weft_cli::debug::SessionOptions {
                layout,
                echo: false,
            };
            weft_cli::debug::run_session_with(&case, &tids, &opts, editor, &mut out)?
        }
        None => weft_cli::debug::run_session_with_layout(
            &case,
            &tids,
            layout,
            std::io::stdin().lock(),
            &mut out,
        )?,
    }
    Ok(ExitCode::SUCCESS)
}

fn compare_cmd(a: &ArgMatches) -> Result<ExitCode, Error> {
    let only: Vec<&str> = a
        .get_many::<String>("only")
        .map(|v| v.map(String::as_str).collect())
        .unwrap_or_default();
    let names: Vec<&str> = weft_conform::compare::backends()
        .into_iter()
        .filter(|b| *b == "interp" || only.is_empty() || only.contains(b))
        .collect();
    let devices = weft_conform::compare::open_backends(&names);
    let compiler = Compiler::with_options(compile_options(a)).with_default_cache();
    let cmp = weft_conform::compare::compare_case(&path_arg(a, "case"), &devices, &compiler)?;
    say!("{}", cmp.table());
    if let Some(p) = a.get_one::<PathBuf>("html") {
        let page = weft_conform::report::render(&cmp, &cmp.artifacts());
        std::fs::write(p, page).map_err(|source| Error::io(p, source))?;
        say!("wrote {}", p.display());
    }
    Ok(success(cmp.agree()))
}

fn cache_err(e: weft::cache::CacheError) -> Error {
    weft::Error::Backend(Box::new(e)).into()
}

fn sha256_hex(bytes: &[u8]) -> String {
    weft::cache::CacheKey::of_kind("sha", &[bytes]).hex()
}

fn cache_cmd(a: &ArgMatches) -> Result<ExitCode, Error> {
    let cache = weft::cache::Cache::open_default().map_err(cache_err)?;
    match a.subcommand() {
        Some(("info", _)) => {
            say!("location: {}", cache.dir().display());
            let info = cache.info().map_err(cache_err)?;
            let (mut n, mut bytes) = (0, 0);
            for k in &info {
                say!(
                    "{:<6} {:>6} entries {:>12} bytes",
                    k.kind,
                    k.entries,
                    k.bytes
                );
                n += k.entries;
                bytes += k.bytes;
            }
            say!("total  {n:>6} entries {bytes:>12} bytes");
        }
        Some(("clear", _)) => {
            let n = cache.clear().map_err(cache_err)?;
            say!("removed {n} entries from {}", cache.dir().display());
        }
        Some(("warm", w)) => {
            let file = str_arg(w, "file");
            let source = read(Path::new(file))?;
            let t = std::time::Instant::now();
            let (m, hit) = Compiler::new()
                .with_cache(weft::CacheLocation::Dir(cache.dir().to_path_buf()))
                .compile_cached(file, &source)?;
            let ir = m.ir_text();
            let hm = |h: bool| if h { "hit" } else { "miss" };
            say!(
                "ir {} {:.3} ms {}",
                hm(hit),
                t.elapsed().as_secs_f64() * 1e3,
                sha256_hex(ir.as_bytes())
            );
            #[cfg(feature = "llvm")]
            if weft::tools::find_libdevice(None).is_some() {
                let t = std::time::Instant::now();
                let opts = weft::PtxOptions::default();
                let info = weft::ir::verify::verify_module(m.ir());
                let r = info.map_err(|e| e.to_string()).and_then(|info| {
                    weft::cache::ptx(Some(&cache), m.ir(), &info, &opts)
                        .map_err(|e| e.to_string())
                });
                match r {
                    Ok((art, hit)) => say!(
                        "ptx {} {:.3} ms {}",
                        hm(hit),
                        t.elapsed().as_secs_f64() * 1e3,
                        sha256_hex(art.ptx.as_bytes())
                    ),
                    Err(e) => say!("ptx error: {e}"),
                }
            }
            if weft::tools::find_glslang().is_some() {
                for k in m.kernel_names() {
                    let t = std::time::Instant::now();
                    let r = m.hlsl(&k, &Default::default()).and_then(|art| {
                        weft::cache::spirv(Some(&cache), &art)
                            .map_err(|e| weft::Error::Backend(Box::new(e)))
                    });
                    match r {
                        Ok((words, hit)) => {
                            let bytes: Vec<u8> =
                                words.iter().flat_map(|w| w.to_le_bytes()).collect();
                            say!(
                                "spirv {k} {} {:.3} ms {}",
                                hm(hit),
                                t.elapsed().as_secs_f64() * 1e3,
                                sha256_hex(&bytes)
                            )
                        }
                        Err(e) => say!("spirv {k} unsupported: {e}"),
                    }
                }
            }
        }
        _ => return Ok(ExitCode::from(2)),
    }
    Ok(ExitCode::SUCCESS)
}

fn bench_cmd(a: &ArgMatches) -> Result<ExitCode, Error> {
    if a.get_flag("pin") {
        bench::pin_pool_threads()
            .map_err(|e| Error::Bench(format!("--pin: pinning the pool's threads: {e}")))?;
    }
    let only: Vec<String> = a
        .get_many::<String>("only")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let backends = if only.is_empty() {
        bench_targets().into_iter().map(String::from).collect()
    } else {
        only
    };
    let opts = bench::Options {
        quick: a.get_flag("quick"),
        backends,
        workloads: a
            .get_many::<String>("workload")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
        deterministic: a.get_flag("deterministic"),
        pinned: a.get_flag("pin"),
    };
    let json = a.get_flag("json");
    if opts.workloads.iter().any(|w| w == "autodiff") {
        // Devices only: the compile-only targets have no launches.
        let devices: Vec<String> = opts
            .backends
            .iter()
            .filter(|b| !bench::scaling::TEXT_TARGETS.contains(&b.as_str()))
            .cloned()
            .collect();
        let (rows, skipped) = weft_devtools::grad_bench::run(opts.quick, &devices, |what| {
            let _ = writeln!(std::io::stderr().lock(), "bench: {what}");
        })?;
        say!("{}", weft_devtools::grad_bench::table(&rows, &skipped));
        return Ok(ExitCode::SUCCESS);
    }
    let report = bench::run(&opts, |what| {
        if !json {
            let _ = writeln!(std::io::stderr().lock(), "bench: {what}");
        }
    })?;
    if json {
        say!("{}", report.json());
    } else {
        say!("{}", report.table());
    }
    Ok(ExitCode::SUCCESS)
}

fn builtins_cmd(a: &ArgMatches) -> Result<ExitCode, Error> {
    use weft_devtools::builtins as wb;
    let path = a.get_one::<PathBuf>("registry").expect("default");
    let out = a.get_one::<PathBuf>("out").expect("default");
    let reg = wb::Registry::parse(&read(path)?).map_err(|e| {
        Error::Case(conform::CaseError::Format {
            path: path.clone(),
            msg: e,
        })
    })?;
    let backends = wb::open_backends();
    for (n, d) in &backends {
        if let Err(e) = d {
            eprintln!("note: backend {n} is not available: {e}");
        }
    }
    let survey = wb::survey(&reg, &backends);
    if a.get_flag("counts") {
        for (k, (n, d)) in backends.iter().enumerate() {
            if d.is_err() {
                say!("{n:9} not available");
                continue;
            }
            let (bs, bn, os, on) = wb::counts(&reg, &survey, k);
            say!("{n:9} builtins {bs}/{bn}  overloads {os}/{on}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let md = wb::render(&reg, &backends, &survey);
    if a.get_flag("check") {
        if backends.iter().any(|(_, d)| d.is_err()) {
            eprintln!("error: --check needs every backend (build with --features llvm, and a Vulkan device)");
            return Ok(ExitCode::FAILURE);
        }
        let old = read(out)?;
        if old != md {
            eprintln!(
                "error: {} is stale: run `weft builtins` (release build, --features llvm) and commit it",
                out.display()
            );
            return Ok(ExitCode::FAILURE);
        }
        say!("{} is up to date", out.display());
        return Ok(ExitCode::SUCCESS);
    }
    std::fs::write(out, md).map_err(|e| Error::io(out, e))?;
    say!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}
