//! The `weft` command line: one module a subcommand, each with its
//! arguments ([`clap::Command`]) and what it runs; [`args`] holds the
//! arguments several subcommands share. The work is the library's (`weft`)
//! and the tool crates' (`weft-conform`, `weft-devtools`); this layer
//! parses, prints and chooses the exit code.

use clap::Command;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use weft_conform::Error;

/// `println!` that ignores a closed stdout (`weft conform DIR | head`).
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

pub mod args;
pub mod bench;
pub mod bench_gpu;
pub mod build;
pub mod builtins;
pub mod cache;
pub mod check;
pub mod compare;
pub mod conform;
pub mod dap;
pub mod debug;
pub mod fuzz_diff;
pub mod fuzz_seeds;
pub mod gradcheck;
pub mod run;

/// The whole command line, its subcommands in the order `weft --help`
/// lists them.
pub fn cli() -> Command {
    Command::new("weft")
        .about("Compiler for Warp kernels: check, build, run conformance cases")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(check::command())
        .subcommand(build::command())
        .subcommand(run::command())
        .subcommand(gradcheck::command())
        .subcommand(conform::command())
        .subcommand(debug::command())
        .subcommand(dap::command())
        .subcommand(compare::command())
        .subcommand(cache::command())
        .subcommand(bench::command())
        .subcommand(fuzz_diff::command())
        .subcommand(fuzz_seeds::command())
        .subcommand(bench_gpu::command())
        .subcommand(builtins::command())
}

/// Parses the command line, runs the subcommand and prints its error (to
/// stderr): the exit code of `weft`.
pub fn main() -> ExitCode {
    let m = cli().get_matches();
    let r = match m.subcommand() {
        Some(("check", a)) => check::run(a),
        Some(("build", a)) => build::run(a),
        Some(("run", a)) => run::run(a),
        Some(("conform", a)) => conform::run(a),
        Some(("gradcheck", a)) => gradcheck::run(a),
        Some(("compare", a)) => compare::run(a),
        Some(("debug", a)) => debug::run(a),
        Some(("dap", a)) => dap::run(a),
        Some(("cache", a)) => cache::run(a),
        Some(("bench", a)) => bench::run(a),
        Some(("bench-gpu", a)) => bench_gpu::run(a),
        Some(("fuzz-diff", a)) => fuzz_diff::run(a),
        Some(("fuzz-seeds", a)) => fuzz_seeds::run(a),
        Some(("builtins", a)) => builtins::run(a),
        _ => Ok(ExitCode::from(2)),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            let color = std::io::stderr().is_terminal();
            let _ = writeln!(std::io::stderr().lock(), "{}", e.render(color));
            ExitCode::FAILURE
        }
    }
}

/// What a subcommand returns: its exit code, or the error `main` prints.
pub type Outcome = Result<ExitCode, Error>;
