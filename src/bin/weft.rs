//! `weft`: the command-line driver (check, build, run, conform, gradcheck,
//! compare, debug, dap, cache, bench, bench-gpu, fuzz-diff, fuzz-seeds,
//! builtins); each subcommand is a module of `weft_cli::cmd`.

use std::process::ExitCode;

fn main() -> ExitCode {
    weft_cli::cmd::main()
}
