//! `weft check FILE.py`: compile a kernel file and report diagnostics.

use super::args::{read, str_arg};
use super::Outcome;
use clap::{Arg, ArgMatches, Command};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use weft::ir::FuncKind;
use weft::Compiler;

pub fn command() -> Command {
    Command::new("check")
        .about("Compile a kernel file and report diagnostics")
        .arg(Arg::new("file").required(true).value_name("FILE.py"))
}

pub fn run(a: &ArgMatches) -> Outcome {
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
