//! `weft debug CASE`: a line-oriented debugger session over a conformance
//! case's first launch, reading commands from any reader (a terminal, a
//! script file) and writing a transcript.
//!
//! Commands: `break FILE:LINE | LINE | FUNC` (`b`), `step` (`s`), `next`
//! (`n`), `finish`, `continue` (`c`), `print EXPR` (`p`), `locals`,
//! `where` (`bt`), `list` (`l`), `watch NAME`, `thread TID`, `quit` (`q`).
//! Each command is echoed after the prompt so a scripted transcript reads
//! like an interactive one.

use crate::conform::{data, read_npy, ArgSpec, Case};
use crate::Error;
use std::io::{BufRead, Write};
use std::sync::Arc;
use weft::debug::{Breakpoint, Debugger, Stop};
use weft::{Arg, Array, ArrayLayout, Value};

/// The inputs of a case's first launch, freshly loaded.
struct Inputs {
    buffers: Vec<(String, Array)>,
    values: Vec<(String, Value)>,
}

fn load_inputs(case: &Case, module: &weft::Module) -> Result<Inputs, Error> {
    let structs = Arc::new(module.ir().structs.clone());
    let bad = |what: String| {
        Error::Case(crate::conform::CaseError::Format {
            path: case.dir.join("case.json"),
            msg: what,
        })
    };
    let mut buffers = Vec::new();
    for b in &case.buffers {
        let path = case.dir.join(&b.file);
        let dtype = data::warp_dtype(&b.dtype, &structs)
            .ok_or_else(|| bad(format!("unknown dtype `{}`", b.dtype)))?;
        let a = data::array_from_npy(&read_npy(&path)?, dtype, &b.shape)
            .map_err(|m| bad(format!("array `{}`: {m}", b.name)))?;
        buffers.push((b.name.clone(), a));
    }
    let mut values = Vec::new();
    if let Some(l) = case.launches.first() {
        for a in &l.args {
            if let ArgSpec::Scalar {
                param,
                dtype,
                value,
            } = a
            {
                let d = data::warp_dtype(dtype, &structs)
                    .ok_or_else(|| bad(format!("unknown dtype `{dtype}`")))?;
                let bytes = data::encode_value(value, &d)
                    .map_err(|m| bad(format!("argument `{param}`: {m}")))?;
                values.push((param.clone(), Value::from_bytes(d, bytes)?));
            }
        }
    }
    Ok(Inputs { buffers, values })
}

/// Launches the case's first launch recording thread `tid`.
fn launch(case: &Case, module: &weft::Module, tid: usize) -> Result<Debugger, Error> {
    let Some(l) = case.launches.first() else {
        return Err(Error::Case(crate::conform::CaseError::Format {
            path: case.dir.join("case.json"),
            msg: "the case has no launch".into(),
        }));
    };
    let mut inputs = load_inputs(case, module)?;
    // Arrays a kernel takes SoA (`--layout soa`) are converted, as
    // `weft run` does; one that cannot be is left for the launch to report.
    let ir = module.ir();
    if let Some(f) = ir.func_by_name(&l.kernel).map(|id| &ir.funcs[id]) {
        for (i, a) in l.args.iter().enumerate() {
            let ArgSpec::Array { buffer, .. } = a else {
                continue;
            };
            if !f.soa_params.iter().any(|sp| sp.param as usize == i) {
                continue;
            }
            if let Some((_, arr)) = inputs.buffers.iter_mut().find(|(n, _)| n == buffer) {
                if let Ok(c) = arr.to_layout(ArrayLayout::Soa) {
                    *arr = c;
                }
            }
        }
    }
    let mut args = Vec::new();
    for a in &l.args {
        match a {
            ArgSpec::Array { buffer, .. } => {
                if let Some((_, arr)) = inputs.buffers.iter().find(|(n, _)| n == buffer) {
                    args.push(Arg::Array(arr));
                }
            }
            ArgSpec::Scalar { param, .. } => {
                if let Some((_, v)) = inputs.values.iter().find(|(n, _)| n == param) {
                    args.push(Arg::Value(v.clone()));
                }
            }
        }
    }
    Ok(Debugger::launch(module, &l.kernel, &l.dim, &args, tid)?)
}

fn show_stop(
    out: &mut impl Write,
    s: Option<&Stop>,
    tid: usize,
    sources: &Sources,
) -> std::io::Result<()> {
    match s {
        None => writeln!(out, "thread {tid} finished"),
        Some(s) => {
            writeln!(
                out,
                "stopped at {}:{} in {} (thread {tid})",
                short(&s.file),
                s.line,
                s.func
            )?;
            if let Some(text) = sources.line(&s.file, s.line) {
                writeln!(out, "{:>5} | {text}", s.line)?;
            }
            Ok(())
        }
    }
}

fn short(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Source files read on demand.
#[derive(Default)]
struct Sources {
    files: Vec<(String, Option<Vec<String>>)>,
}

impl Sources {
    fn line(&self, file: &str, line: u32) -> Option<String> {
        let (_, lines) = self.files.iter().find(|(f, _)| f == file)?;
        lines.as_ref()?.get(line.checked_sub(1)? as usize).cloned()
    }
    fn load(&mut self, file: &str) {
        if !self.files.iter().any(|(f, _)| f == file) {
            let lines = std::fs::read_to_string(file)
                .ok()
                .map(|t| t.lines().map(str::to_string).collect());
            self.files.push((file.to_string(), lines));
        }
    }
}

/// Runs a session over `case` (compiled without optimisation), stepping
/// thread `tids[0]` first, reading commands from `input` until `quit` or
/// its end and writing the transcript to `out`.
pub fn run_session(
    case: &Case,
    tids: &[usize],
    input: impl BufRead,
    out: &mut impl Write,
) -> Result<(), Error> {
    run_session_with_layout(case, tids, ArrayLayout::Aos, input, out)
}

/// [`run_session`] with the kernel's eligible arrays in `layout`
/// (`weft debug --layout soa`); the transcript is the same in either.
pub fn run_session_with_layout(
    case: &Case,
    tids: &[usize],
    layout: ArrayLayout,
    input: impl BufRead,
    out: &mut impl Write,
) -> Result<(), Error> {
    let kpath = case.dir.join("kernel.py");
    let source = std::fs::read_to_string(&kpath).map_err(|e| Error::io(&kpath, e))?;
    let file_name = kpath.display().to_string();
    let module = Debugger::compile_with_layout(&file_name, &source, layout)?;
    let mut sources = Sources::default();
    for f in &module.ir().files {
        sources.load(f);
    }
    let io = |e: std::io::Error| Error::io("<output>", e);
    let mut tid = tids.first().copied().unwrap_or(0);
    let mut dbg = launch(case, &module, tid)?;
    writeln!(
        out,
        "debugging {} (kernel `{}`), thread {tid}; threads {:?} may be selected",
        case.name,
        case.launches.first().map_or("", |l| l.kernel.as_str()),
        tids
    )
    .map_err(io)?;
    for line in input.lines() {
        let line = line.map_err(|e| Error::io("<input>", e))?;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        writeln!(out, "(weft) {line}").map_err(io)?;
        let (cmd, arg) = line
            .split_once(' ')
            .map_or((line, ""), |(c, a)| (c, a.trim()));
        match cmd {
            "break" | "b" => {
                let b = Breakpoint::parse(arg);
                dbg.add_breakpoint(b.clone());
                writeln!(out, "breakpoint {} at {arg}", dbg.breakpoints().len()).map_err(io)?;
            }
            "step" | "s" => show_stop(out, dbg.step(), tid, &sources).map_err(io)?,
            "next" | "n" => show_stop(out, dbg.next(), tid, &sources).map_err(io)?,
            "finish" if dbg.current().is_none_or(|s| s.depth == 0) => {
                writeln!(out, "error: `finish` needs a func frame (use `continue`)").map_err(io)?
            }
            "finish" => show_stop(out, dbg.finish(), tid, &sources).map_err(io)?,
            "continue" | "c" => show_stop(out, dbg.cont(), tid, &sources).map_err(io)?,
            "print" | "p" => match dbg.print(arg) {
                Ok(v) => writeln!(out, "{arg} = {v}").map_err(io)?,
                Err(e) => writeln!(out, "error: {e}").map_err(io)?,
            },
            "locals" => match dbg.locals() {
                Ok(ls) => {
                    for (n, v) in ls {
                        writeln!(out, "  {n} = {v}").map_err(io)?;
                    }
                }
                Err(e) => writeln!(out, "error: {e}").map_err(io)?,
            },
            "where" | "bt" => match dbg.backtrace() {
                Ok(frames) => {
                    for (i, f) in frames.iter().enumerate() {
                        writeln!(out, "  #{i} {} at {}:{}", f.func, short(&f.file), f.line)
                            .map_err(io)?;
                    }
                }
                Err(e) => writeln!(out, "error: {e}").map_err(io)?,
            },
            "list" | "l" => match dbg.current() {
                Some(s) => {
                    let (file, at) = (s.file.clone(), s.line);
                    for l in at.saturating_sub(3).max(1)..=at + 3 {
                        if let Some(text) = sources.line(&file, l) {
                            let mark = if l == at { "->" } else { "  " };
                            writeln!(out, "{mark}{l:>4} | {text}").map_err(io)?;
                        }
                    }
                }
                None => writeln!(out, "error: not stopped").map_err(io)?,
            },
            "watch" => {
                dbg.watch(arg);
                writeln!(out, "watching {arg}").map_err(io)?;
            }
            "thread" => match arg.parse::<usize>() {
                Ok(t) => {
                    let bps = dbg.breakpoints().to_vec();
                    tid = t;
                    dbg = launch(case, &module, tid)?;
                    for b in bps {
                        dbg.add_breakpoint(b);
                    }
                    writeln!(out, "thread {tid} (relaunched; not started)").map_err(io)?;
                }
                Err(_) => writeln!(out, "error: `thread` takes a thread index").map_err(io)?,
            },
            "quit" | "q" => break,
            other => writeln!(out, "error: unknown command `{other}`").map_err(io)?,
        }
    }
    Ok(())
}
