//! `weft compare CASE`: one conformance case on every backend, each against
//! the interpreter ([`weft_conform::compare`]), and its HTML page.

use super::args::{
    case, compile_options, deterministic, device_names, fast_math, layout, opt_level, path_arg,
    success,
};
use super::Outcome;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};
use std::io::Write;
use std::path::PathBuf;
use weft::Compiler;
use weft_conform::{compare, report, Error};

pub fn command() -> Command {
    Command::new("compare")
        .about("Run one conformance case on every backend and compare each with the interpreter")
        .arg(case())
        .arg(
            Arg::new("html")
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
            Arg::new("only")
                .long("backend")
                .value_name("B")
                .action(ArgAction::Append)
                .value_parser(device_names())
                .help("Compare only these backends (repeatable; default: all)"),
        )
}

pub fn run(a: &ArgMatches) -> Outcome {
    let only: Vec<&str> = a
        .get_many::<String>("only")
        .map(|v| v.map(String::as_str).collect())
        .unwrap_or_default();
    let names: Vec<&str> = compare::backends()
        .into_iter()
        .filter(|b| *b == "interp" || only.is_empty() || only.contains(b))
        .collect();
    let devices = compare::open_backends(&names);
    let compiler = Compiler::with_options(compile_options(a)).with_default_cache();
    let cmp = compare::compare_case(&path_arg(a, "case"), &devices, &compiler)?;
    say!("{}", cmp.table());
    if let Some(p) = a.get_one::<PathBuf>("html") {
        let page = report::render(&cmp, &cmp.artifacts());
        std::fs::write(p, page).map_err(|source| Error::io(p, source))?;
        say!("wrote {}", p.display());
    }
    Ok(success(cmp.agree()))
}
