//! `weft fuzz-seeds CORPUS OUT`: the fuzz targets' seed inputs
//! ([`weft_devtools::fuzz::seeds`]).

use super::args::path_arg;
use super::Outcome;
use clap::{value_parser, Arg, ArgMatches, Command};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use weft_conform::Error;

pub fn command() -> Command {
    Command::new("fuzz-seeds")
        .about("Write the fuzz targets' seed inputs, made from the conformance corpus, to OUT/<target>/ (scripts/fuzz.sh)")
        .arg(Arg::new("corpus").required(true).value_name("CORPUS").value_parser(value_parser!(PathBuf)))
        .arg(Arg::new("out").required(true).value_name("OUT").value_parser(value_parser!(PathBuf)))
}

pub fn run(a: &ArgMatches) -> Outcome {
    let (corpus, out) = (path_arg(a, "corpus"), path_arg(a, "out"));
    let counts =
        weft_devtools::fuzz::seeds::write_seeds(&corpus, &out).map_err(|e| Error::io(&out, e))?;
    for (t, n) in counts {
        say!("{t}: {n} seeds");
    }
    Ok(ExitCode::SUCCESS)
}
