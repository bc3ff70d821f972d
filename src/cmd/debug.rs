//! `weft debug CASE`: step through one thread of a conformance case's
//! first launch on the CPU JIT ([`crate::debug`]'s command loop).

use super::args::{case, layout, path_arg, str_arg};
use super::Outcome;
use clap::{value_parser, Arg, ArgMatches, Command};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use weft_conform::{Case, Error};

pub fn command() -> Command {
    Command::new("debug")
        .about("Step through one thread of a conformance case's first launch on the CPU JIT (commands from stdin or --script)")
        .arg(case())
        .arg(
            Arg::new("backend")
                .long("backend")
                .value_name("BACKEND")
                .default_value("cpu")
                .help("Only `cpu` (the Cranelift JIT's debug build)"),
        )
        .arg(
            Arg::new("tid")
                .long("tid")
                .value_name("I[,J..]")
                .value_delimiter(',')
                .value_parser(value_parser!(usize))
                .help("Thread(s) to step (default 0); `thread TID` switches"),
        )
        .arg(layout())
        .arg(
            Arg::new("script")
                .long("script")
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf))
                .help("Read commands from FILE instead of stdin"),
        )
}

pub fn run(a: &ArgMatches) -> Outcome {
    if str_arg(a, "backend") != "cpu" {
        eprintln!("error: `weft debug` runs on the `cpu` backend only");
        return Ok(ExitCode::FAILURE);
    }
    let case = Case::load(&path_arg(a, "case"))?;
    let tids: Vec<usize> = a
        .get_many::<usize>("tid")
        .map(|v| v.copied().collect())
        .unwrap_or_else(|| vec![0]);
    let layout = match str_arg(a, "layout") {
        "soa" => weft::ArrayLayout::Soa,
        _ => weft::ArrayLayout::Aos,
    };
    let mut out = std::io::stdout().lock();
    match a.get_one::<PathBuf>("script") {
        Some(p) => {
            let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
            crate::debug::run_session_with_layout(
                &case,
                &tids,
                layout,
                std::io::BufReader::new(f),
                &mut out,
            )?
        }
        None if std::io::stdin().is_terminal() => {
            // A terminal: line editing and history; the editor shows the
            // prompt and the command, so the session does not echo them.
            let editor = crate::line_editor::LineEditor::new("(weft) ")
                .map_err(|e| Error::io("<terminal>", e))?;
            let opts = crate::debug::SessionOptions {
                layout,
                echo: false,
            };
            crate::debug::run_session_with(&case, &tids, &opts, editor, &mut out)?
        }
        None => crate::debug::run_session_with_layout(
            &case,
            &tids,
            layout,
            std::io::stdin().lock(),
            &mut out,
        )?,
    }
    Ok(ExitCode::SUCCESS)
}
