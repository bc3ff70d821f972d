//! `weft build FILE.py`: the IR (raw or optimized), Cranelift IR, LLVM IR
//! or PTX of a kernel file.

use super::args::{compile_options, exact_loops, layout, opt_level, read, str_arg};
use super::Outcome;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use weft::ir::{InstKind, Module as IrModule};
use weft::{CompileOptions, Compiler};
use weft_conform::Error;

pub fn command() -> Command {
    Command::new("build")
        .about("Compile a kernel file and print its IR, Cranelift IR, LLVM IR or PTX")
        .arg(
            Arg::new("file")
                .required_unless_present("print-pipeline")
                .value_name("FILE.py"),
        )
        .arg(opt_level())
        .arg(layout())
        .arg(exact_loops())
        .arg(
            Arg::new("print-pipeline")
                .long("print-pipeline")
                .action(ArgAction::SetTrue)
                .help("Print the pass pipeline of -O and --fast-math and exit"),
        )
        .arg(
            Arg::new("emit")
                .long("emit")
                .value_parser(["ir", "ir-raw", "clif", "llvm", "ptx"])
                .default_value("ir")
                .help("ir: after the pass pipeline; ir-raw: frontend output; clif: Cranelift IR; llvm: LLVM IR (NVPTX, or the host with --llvm-target host); ptx: PTX"),
        )
        .arg(
            Arg::new("arch")
                .long("arch")
                .value_name("SM")
                .help("PTX architecture, sm_70 … sm_90 (default: the GPU's, else sm_80)"),
        )
        .arg(
            Arg::new("ptxas-info")
                .long("ptxas-info")
                .action(ArgAction::SetTrue)
                .help("With --emit ptx: also print ptxas's register/spill report (to stderr)"),
        )
        .arg(
            Arg::new("fast-math")
                .long("fast-math")
                .action(ArgAction::SetTrue)
                .help("Fast math: contraction to FMA and approximate functions on every float operation (IR flags; all backends but interp)"),
        )
        .arg(
            Arg::new("llvm-target")
                .long("llvm-target")
                .value_parser(["nvptx", "host"])
                .default_value("nvptx")
                .help("Target of --emit llvm"),
        )
        .arg(
            Arg::new("adjoint")
                .long("adjoint")
                .action(ArgAction::SetTrue)
                .help("The backward module instead: each kernel's adjoint (docs/autodiff.md)"),
        )
        .arg(Arg::new("kernel").long("kernel").value_name("K").help("Only this kernel"))
        .arg(
            Arg::new("output")
                .short('o')
                .value_name("PATH")
                .value_parser(value_parser!(PathBuf))
                .help("Write to PATH instead of stdout"),
        )
        .arg(
            Arg::new("dump-passes")
                .long("dump-passes")
                .value_name("DIR")
                .value_parser(value_parser!(PathBuf))
                .help("Write the IR after each pass to DIR"),
        )
        .arg(
            Arg::new("no-opt")
                .long("no-opt")
                .action(ArgAction::SetTrue)
                .help("Keep calls (no inlining)"),
        )
}

/// The module reduced to kernel `name` when it calls nothing (else the
/// whole module, whose calls need the other functions).
fn only_kernel(m: &IrModule, name: &str) -> Result<IrModule, Error> {
    let Some((_, f)) = m.kernels().find(|(_, f)| f.name == name) else {
        let names: Vec<_> = m.kernels().map(|(_, f)| f.name.as_str()).collect();
        return Err(weft::RuntimeError::NoKernel {
            name: name.to_string(),
            available: names.join(", "),
        }
        .into());
    };
    if f.insts
        .values()
        .any(|i| matches!(i.kind, InstKind::Call(..)))
    {
        return Ok(m.clone());
    }
    let mut out = IrModule::new();
    out.structs = m.structs.clone();
    out.files = m.files.clone();
    out.funcs.push(f.clone());
    Ok(out)
}

pub fn run(a: &ArgMatches) -> Outcome {
    let compiler = Compiler::with_options(CompileOptions {
        opt: !a.get_flag("no-opt"),
        dump_dir: a.get_one::<PathBuf>("dump-passes").cloned(),
        ..compile_options(a)
    });
    if a.get_flag("print-pipeline") {
        say!("{}", compiler.describe_pipeline().trim_end());
        return Ok(ExitCode::SUCCESS);
    }
    let file = str_arg(a, "file");
    let source = read(Path::new(file))?;
    let emit = str_arg(a, "emit");
    let ir = match (emit == "ir-raw", a.get_flag("adjoint")) {
        (true, false) => compiler.compile_raw(file, &source)?,
        (true, true) => compiler.compile_backward_raw(file, &source)?,
        (false, false) => compiler.compile(file, &source)?.ir().clone(),
        (false, true) => compiler.compile_backward(file, &source)?.ir().clone(),
    };
    let ir = match a.get_one::<String>("kernel") {
        Some(k) => only_kernel(&ir, k)?,
        None => ir,
    };
    let module = weft::Module::from_ir(ir);
    let text = match emit {
        "clif" => module.clif_text()?,
        "ptx" | "llvm" => emit_llvm(a, &module, emit)?,
        _ => module.ir_text(),
    };
    match a.get_one::<PathBuf>("output") {
        Some(p) => std::fs::write(p, text).map_err(|source| Error::io(p, source))?,
        None => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`weft build ... | head`) is not an error.
            let _ = out.write_all(text.as_bytes());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--emit ptx|llvm`: PTX (with ptxas's report on stderr with
/// `--ptxas-info`) or LLVM IR, for the GPU's architecture when there is one.
#[cfg(feature = "llvm")]
fn emit_llvm(a: &ArgMatches, module: &weft::Module, emit: &str) -> Result<String, Error> {
    use weft::Device;
    let opts = weft::PtxOptions {
        arch: match a.get_one::<String>("arch") {
            Some(s) => s.clone(),
            // The GPU's architecture when there is one.
            None => Device::open("cuda")
                .ok()
                .and_then(|d| d.describe().target)
                .unwrap_or_else(|| weft::PtxOptions::default().arch),
        },
        ..Default::default()
    };
    if emit == "llvm" {
        let host = str_arg(a, "llvm-target") == "host";
        return Ok(module.llvm_ir((!host).then_some(&opts))?);
    }
    let art = module.ptx(&opts)?;
    if a.get_flag("ptxas-info") {
        let info = weft::tools::ptxas_info(&art.ptx, &opts.arch)
            .map_err(|e| weft::Error::Backend(Box::new(e)))?;
        let _ = std::io::stderr().lock().write_all(info.as_bytes());
    }
    Ok(art.ptx)
}

/// `--emit ptx|llvm` in a build without the LLVM backend: an error naming
/// the feature.
#[cfg(not(feature = "llvm"))]
fn emit_llvm(_: &ArgMatches, _: &weft::Module, emit: &str) -> Result<String, Error> {
    Err(weft::Error::NotCompiled {
        what: format!("--emit {emit}"),
        feature: "llvm",
    }
    .into())
}
