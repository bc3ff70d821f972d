//! `weft gradcheck CASE..`: a gradient case's adjoint gradients against
//! central finite differences.

use super::args::{backend, device, exact_loops, success};
use super::Outcome;
use clap::{value_parser, Arg, ArgMatches, Command};
use std::io::Write;
use std::path::PathBuf;
use weft::{CompileOptions, Compiler};
use weft_conform::{self as conform, gradcheck, Case};

pub fn command() -> Command {
    Command::new("gradcheck")
        .about("Check a gradient case's adjoint gradients against central finite differences")
        .arg(
            Arg::new("case")
                .required(true)
                .num_args(1..)
                .value_name("CASE")
                .value_parser(value_parser!(PathBuf))
                .help("Gradient case directories (or a folder of them)"),
        )
        .arg(backend())
        .arg(exact_loops())
        .arg(
            Arg::new("entries")
                .long("entries")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .default_value("64")
                .help("Entries checked per array (spread evenly over larger arrays)"),
        )
}

pub fn run(a: &ArgMatches) -> Outcome {
    let dev = device(a)?;
    let opts = gradcheck::Options {
        max_entries: *a.get_one::<usize>("entries").unwrap_or(&64),
    };
    let mut paths = Vec::new();
    for p in a.get_many::<PathBuf>("case").into_iter().flatten() {
        paths.extend(conform::find_cases(p)?);
    }
    let compiler = Compiler::with_options(CompileOptions {
        exact_loops: a.get_one::<u32>("exact-loops").copied(),
        ..CompileOptions::default()
    });
    let (mut passed, mut failed) = (0, 0);
    for p in &paths {
        let case = Case::load(p)?;
        let r = match gradcheck::gradcheck(&case, &dev, &compiler, &opts) {
            Ok(r) => r,
            Err(e) => {
                say!("FAIL {}: {}", case.name, conform::one_line(&e));
                failed += 1;
                continue;
            }
        };
        say!(
            "{} (finite differences in {}, on {})",
            r.case,
            r.precision,
            dev.name()
        );
        for row in &r.rows {
            match row.passed {
                Some(ok) => say!(
                    "  {:<12} {:>4} entries  worst relative error {:.1e}  {}",
                    row.array,
                    row.entries,
                    row.error,
                    if ok { "ok" } else { "FAIL" }
                ),
                None => say!("  {:<12} not compared: {}", row.array, row.note),
            }
        }
        if r.passed() {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    say!("{} cases, {passed} passed, {failed} failed", paths.len());
    Ok(success(failed == 0))
}
