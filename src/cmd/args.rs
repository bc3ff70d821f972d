//! The arguments several subcommands share (`--backend`, `-O`,
//! `--fast-math`, ...) and what they turn into: the device, the compiler's
//! options.

use clap::{value_parser, Arg, ArgAction, ArgMatches};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use weft::{CompileOptions, Compiler, Device, DeviceOptions, OptLevel};
use weft_conform::Error;

/// Every device name of the registry (compiled in or not: asking for one
/// this build lacks says which feature enables it).
pub fn device_names() -> Vec<&'static str> {
    weft::devices().iter().map(|d| d.name).collect()
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

pub fn backend() -> Arg {
    Arg::new("backend")
        .long("backend")
        .value_name("B")
        .default_value("cpu")
        .help(backend_help())
}

pub fn opt_level() -> Arg {
    Arg::new("opt-level")
        .short('O')
        .value_name("N")
        .value_parser(["0", "1", "2"])
        .default_value("2")
        .help("Optimization level of the pass pipeline and the backend: -O0 (no passes, unoptimized code, for the debugger), -O1, -O2")
}

pub fn fast_math() -> Arg {
    Arg::new("fast-math")
        .long("fast-math")
        .action(ArgAction::SetTrue)
        .help("Fast math: FMA contraction and approximate functions (all backends but interp)")
}

pub fn deterministic() -> Arg {
    Arg::new("deterministic")
        .long("deterministic")
        .action(ArgAction::SetTrue)
        .help("Deterministic launches: results independent of the thread count and schedule, float atomics included (host devices; docs/runtime.md)")
}

pub fn layout() -> Arg {
    Arg::new("layout")
        .long("layout")
        .value_name("L")
        .value_parser(["aos", "soa"])
        .default_value("aos")
        .help("Memory layout of kernel array parameters: aos (Warp's), or soa (structure of arrays for every eligible array: vectors, matrices, quaternions, transforms, one-scalar structs)")
}

pub fn exact_loops() -> Arg {
    Arg::new("exact-loops")
        .long("exact-loops")
        .value_name("K")
        .value_parser(value_parser!(u32))
        .help("Differentiate dynamic loops exactly (beyond Warp's rule), keeping at most K states per loop and thread (docs/autodiff.md)")
}

pub fn gdb() -> Arg {
    Arg::new("gdb")
        .short('g')
        .action(ArgAction::SetTrue)
        .help("Debug info for gdb: the cpu backend's JIT code is registered with gdb, lines map to the .py (as WEFT_GDB=1; see docs/debugging.md)")
}

pub fn timeout() -> Arg {
    Arg::new("timeout")
        .long("timeout")
        .value_name("SECONDS")
        .value_parser(parse_timeout)
        .help("Wall-clock limit per launch on the CPU devices (cpu, llvm-cpu, interp): a launch still running after SECONDS is stopped with an error (docs/reliability.md)")
}

/// `--checked` of `run` and `conform`.
pub fn checked() -> Arg {
    Arg::new("checked")
        .long("checked")
        .action(ArgAction::SetTrue)
        .help("Bounds-checked mode: report out-of-bounds indices and integer division by zero")
}

/// A case argument: `CASE`, a case directory or its case.json.
pub fn case() -> Arg {
    Arg::new("case")
        .required(true)
        .value_name("CASE")
        .value_parser(value_parser!(PathBuf))
        .help("Case directory or its case.json")
}

/// The exit code of a command whose check passed (`ok`) or not.
pub fn success(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

pub fn path_arg(a: &ArgMatches, name: &str) -> PathBuf {
    a.get_one::<PathBuf>(name).cloned().unwrap_or_default()
}

pub fn str_arg<'a>(a: &'a ArgMatches, name: &str) -> &'a str {
    a.get_one::<String>(name).map_or("", String::as_str)
}

pub fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::io(path, source))
}

/// The `--backend` device, opened (a GPU that cannot be opened, or a device
/// this build lacks, is an error); with `-g` (or `WEFT_GDB=1`) the `cpu`
/// backend compiles with debug info for gdb, unoptimized so that no code
/// moves across source lines (docs/debugging.md). `-O` is the level of the
/// device's code generator too (one optimization level for the passes and
/// the backend).
pub fn device(a: &ArgMatches) -> Result<Device, Error> {
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

/// `-O`, `--fast-math`, `--deterministic` and `--layout`.
pub fn compile_options(a: &ArgMatches) -> CompileOptions {
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
pub fn checked_compiler(a: &ArgMatches) -> Compiler {
    Compiler::with_options(CompileOptions {
        checked: a.get_flag("checked"),
        ..compile_options(a)
    })
}
