//! `weft run CASE`: run one conformance case, write its arrays as .npy and
//! check them against Warp's expected outputs when the case has them.

use super::args::{
    backend, case, checked, checked_compiler, deterministic, device, exact_loops, fast_math, gdb,
    layout, opt_level, path_arg, timeout,
};
use super::Outcome;
use clap::{value_parser, Arg, ArgMatches, Command};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use weft_conform::{self as conform, Case};

pub fn command() -> Command {
    Command::new("run")
        .about("Run one conformance case and write its arrays as .npy")
        .arg(case())
        .arg(backend())
        .arg(opt_level())
        .arg(fast_math())
        .arg(deterministic())
        .arg(layout())
        .arg(exact_loops())
        .arg(gdb())
        .arg(timeout())
        .arg(
            Arg::new("out")
                .long("out")
                .value_name("DIR")
                .value_parser(value_parser!(PathBuf))
                .help("Output directory (default out/<case>)"),
        )
        .arg(checked())
}

pub fn run(a: &ArgMatches) -> Outcome {
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
