//! `weft bench-gpu`: the CUDA device's benchmark
//! ([`weft_devtools::gpu_bench`]).

use super::args::{str_arg, success};
use super::Outcome;
use clap::{value_parser, Arg, ArgMatches, Command};
use std::io::Write;
use std::path::PathBuf;
use weft_conform::Error;
use weft_devtools::gpu_bench;

pub fn command() -> Command {
    Command::new("bench-gpu")
        .about("Benchmark the CUDA device: N-body step (GFLOP/s), saxpy (GB/s), transcendental and atomic sum (Gelem/s)")
        .arg(
            Arg::new("n")
                .long("n")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .default_value("100000")
                .help("Bodies of the N-body benchmark"),
        )
        .arg(
            Arg::new("steps")
                .long("steps")
                .value_name("S")
                .value_parser(value_parser!(usize))
                .default_value("10")
                .help("Timed N-body steps (the median is reported)"),
        )
        .arg(
            Arg::new("saxpy-log2")
                .long("saxpy-log2")
                .value_name("K")
                .value_parser(value_parser!(u32).range(10..=30))
                .default_value("28")
                .help("saxpy over 2^K floats"),
        )
        .arg(
            Arg::new("device")
                .long("device")
                .value_name("D")
                .default_value("cuda")
                .help("The device (another than cuda tests the bench itself)"),
        )
        .arg(
            Arg::new("transcendental-log2")
                .long("transcendental-log2")
                .value_name("K")
                .value_parser(value_parser!(u32).range(10..=30))
                .default_value("28")
                .help("The transcendental kernel over 2^K floats"),
        )
        .arg(
            Arg::new("atomic-log2")
                .long("atomic-log2")
                .value_name("K")
                .value_parser(value_parser!(u32).range(10..=30))
                .default_value("26")
                .help("The atomic sum of 2^K floats into one cell"),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf))
                .help("Also write one JSON object a line per workload to FILE"),
        )
}

pub fn run(a: &ArgMatches) -> Outcome {
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
