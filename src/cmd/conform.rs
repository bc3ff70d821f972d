//! `weft conform DIR`: every conformance case under DIR against Warp's
//! outputs.

use super::args::{
    backend, checked, checked_compiler, deterministic, device, exact_loops, fast_math, gdb, layout,
    opt_level, path_arg, success, timeout,
};
use super::Outcome;
use clap::{value_parser, Arg, ArgMatches, Command};
use std::io::Write;
use std::path::PathBuf;

pub fn command() -> Command {
    Command::new("conform")
        .about("Run every conformance case under DIR and compare with Warp's outputs")
        .arg(
            Arg::new("dir")
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
        .arg(checked())
}

pub fn run(a: &ArgMatches) -> Outcome {
    let dir = path_arg(a, "dir");
    let dev = device(a)?;
    let summary = weft_conform::run_dir(&dir, &dev, &checked_compiler(a), |r| {
        if let Some(line) = r.line() {
            say!("{line}");
        }
    })?;
    say!("{summary}");
    Ok(success(summary.failed == 0))
}
