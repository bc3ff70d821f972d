//! `weft dap`: the Debug Adapter Protocol on stdin/stdout ([`crate::dap`]).

use super::Outcome;
use clap::{ArgMatches, Command};
use std::process::ExitCode;

pub fn command() -> Command {
    Command::new("dap")
        .about("Serve the Debug Adapter Protocol on stdin/stdout (VS Code; docs/debugging.md)")
}

pub fn run(_: &ArgMatches) -> Outcome {
    crate::dap::serve(std::io::stdin().lock(), std::io::stdout().lock()).map(|()| ExitCode::SUCCESS)
}
