//! `weft builtins`: Warp's builtin registry against what each backend
//! compiles ([`weft_devtools::builtins`]), written to docs/builtins.md.

use super::args::read;
use super::Outcome;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use weft_conform::{CaseError, Error};
use weft_devtools::builtins as wb;

pub fn command() -> Command {
    Command::new("builtins")
        .about("Warp's builtin registry against what Weft compiles on each backend: writes docs/builtins.md")
        .arg(
            Arg::new("registry")
                .long("registry")
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf))
                .default_value("conformance/registry.json")
                .help("The registry snapshot (conformance/gen/warp_registry.py)"),
        )
        .arg(
            Arg::new("out")
                .short('o')
                .value_name("PATH")
                .value_parser(value_parser!(PathBuf))
                .default_value("docs/builtins.md")
                .help("The table to write (or check)"),
        )
        .arg(
            Arg::new("check")
                .long("check")
                .action(ArgAction::SetTrue)
                .help("Regenerate and fail if PATH differs (CI); needs every backend"),
        )
        .arg(
            Arg::new("counts")
                .long("counts")
                .action(ArgAction::SetTrue)
                .help("Only print the counts per backend"),
        )
}

pub fn run(a: &ArgMatches) -> Outcome {
    let path = a.get_one::<PathBuf>("registry").expect("default");
    let out = a.get_one::<PathBuf>("out").expect("default");
    let reg = wb::Registry::parse(&read(path)?).map_err(|e| {
        Error::Case(CaseError::Format {
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
