//! `weft bench`: compile latency, launch overhead and throughput on every
//! backend beside Rust + rayon ([`weft_devtools::bench`]), and the
//! autodiff workload ([`weft_devtools::grad_bench`]).

use super::args::{deterministic, device_names};
use super::Outcome;
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::io::Write;
use std::process::ExitCode;
use weft_conform::Error;
use weft_devtools::{bench, grad_bench};

/// What `weft bench --backend` takes: the devices, then the compile-only
/// targets.
fn bench_targets() -> Vec<&'static str> {
    let mut v = device_names();
    v.extend(bench::scaling::TEXT_TARGETS);
    v
}

pub fn command() -> Command {
    Command::new("bench")
        .about("Compile latency, launch overhead and throughput on every backend (saxpy, N-body, transcendental, atomic sum) beside Rust + rayon")
        .arg(Arg::new("quick").long("quick").action(ArgAction::SetTrue).help("Small sizes, few repetitions"))
        .arg(Arg::new("json").long("json").action(ArgAction::SetTrue).help("Print JSON instead of the table"))
        .arg(deterministic())
        .arg(Arg::new("pin").long("pin").action(ArgAction::SetTrue).help("Pin the pool's threads to one CPU each (thread i to the i-th CPU the process may use), to measure pinning against the default (unpinned)"))
        .arg(
            Arg::new("only")
                .long("backend")
                .value_name("B")
                .action(ArgAction::Append)
                .value_parser(bench_targets())
                .help("Only these backends (repeatable; default: all); `ptx` and `hlsl` are compile-only targets, measured by compile-scaling"),
        )
        .arg(
            Arg::new("workload")
                .long("workload")
                .value_name("NAME")
                .action(ArgAction::Append)
                .help("Only the workloads whose name contains NAME (repeatable; e.g. `particles`); `autodiff`: forward vs backward (adjoint) compile and launch times; `compile-scaling` (run only when named): compile time against kernel size and a module of 1000 kernels on 1 thread and on all"),
        )
}

pub fn run(a: &ArgMatches) -> Outcome {
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
        let (rows, skipped) = grad_bench::run(opts.quick, &devices, |what| {
            let _ = writeln!(std::io::stderr().lock(), "bench: {what}");
        })?;
        say!("{}", grad_bench::table(&rows, &skipped));
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
