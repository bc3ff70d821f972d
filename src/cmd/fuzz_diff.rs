//! `weft fuzz-diff`: generated programs ([`weft_devtools::fuzz::progen`])
//! on every backend against the interpreter; exit 1 when some diverge.

use super::args::{device_names, success};
use super::Outcome;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use weft::Device;
use weft_devtools::fuzz::{diff, progen};

pub fn command() -> Command {
    Command::new("fuzz-diff")
        .about("Generate random Warp programs (deterministic from the seed) and compare every backend with the interpreter")
        .arg(
            Arg::new("seed")
                .long("seed")
                .value_name("S")
                .value_parser(value_parser!(u64))
                .default_value("1")
                .help("Seed of the first program (program i has seed S + i)"),
        )
        .arg(
            Arg::new("count")
                .long("count")
                .value_name("N")
                .value_parser(value_parser!(u64))
                .default_value("100")
                .help("Programs to generate"),
        )
        .arg(
            Arg::new("only")
                .long("backend")
                .value_name("B")
                .action(ArgAction::Append)
                .value_parser(device_names())
                .help("Backends to compare (repeatable; default: interp, cpu, llvm-cpu, vulkan, cuda, those this build and machine have)"),
        )
        .arg(
            Arg::new("save")
                .long("save")
                .value_name("DIR")
                .value_parser(value_parser!(PathBuf))
                .help("Write each divergent program to DIR/fuzz_<seed>/ as a conformance case"),
        )
        .arg(
            Arg::new("save-all")
                .long("save-all")
                .action(ArgAction::SetTrue)
                .requires("save")
                .help("With --save: write every program, not only the divergent ones"),
        )
        .arg(
            Arg::new("print")
                .long("print")
                .action(ArgAction::SetTrue)
                .help("Print each program's source and case.json instead of running it"),
        )
}

pub fn run(a: &ArgMatches) -> Outcome {
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
