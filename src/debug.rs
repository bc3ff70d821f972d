//! `weft debug CASE`: a line-oriented debugger session over a conformance
//! case's first launch, reading commands from any reader (a terminal, a
//! script file) and writing a transcript.
//!
//! Commands (gdb's): `break LOC [if COND]` (`b`), `tbreak`, `delete`,
//! `info breakpoints|locals`, `step` (`s`), `next` (`n`), `finish`,
//! `continue` (`c`), `print EXPR` (`p`), `locals`, `frame N` (`f`), `up`,
//! `down`, `backtrace` (`bt`,
//! `where`), `list` (`l`), `watch EXPR`, `thread TID`, `help`, `quit`
//! (`q`); [`HELP`] lists them.
//! Each command is echoed after the prompt so a scripted transcript reads
//! like an interactive one.

use crate::Error;
use std::io::{BufRead, Write};
use std::sync::Arc;
use weft::debug::{Breakpoint, Debugger, Stop};
use weft::{Arg, Array, ArrayLayout, Value};
use weft_conform::{data, read_npy, ArgSpec, Case};

/// The inputs of a case's first launch, freshly loaded.
struct Inputs {
    buffers: Vec<(String, Array)>,
    values: Vec<(String, Value)>,
}

fn load_inputs(case: &Case, module: &weft::Module) -> Result<Inputs, Error> {
    let structs = Arc::new(module.ir().structs.clone());
    let bad = |what: String| {
        Error::Case(weft_conform::CaseError::Format {
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

/// Calls `f` with the kernel, the launch dims and freshly loaded arguments
/// of the case's first launch (arrays a kernel takes SoA converted, as
/// `weft run` does).
pub fn with_case_args<R>(
    case: &Case,
    module: &weft::Module,
    f: impl FnOnce(&str, &[usize], &[Arg<'_>]) -> R,
) -> Result<R, Error> {
    let Some(l) = case.launches.first() else {
        return Err(Error::Case(weft_conform::CaseError::Format {
            path: case.dir.join("case.json"),
            msg: "the case has no launch".into(),
        }));
    };
    let mut inputs = load_inputs(case, module)?;
    // One that cannot be converted is left for the launch to report.
    let ir = module.ir();
    if let Some(func) = ir.func_by_name(&l.kernel).map(|id| &ir.funcs[id]) {
        for (i, a) in l.args.iter().enumerate() {
            let ArgSpec::Array { buffer, .. } = a else {
                continue;
            };
            if !func.soa_params.iter().any(|sp| sp.param as usize == i) {
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
    Ok(f(&l.kernel, &l.dim, &args))
}

/// Launches the case's first launch recording thread `tid`.
fn launch(case: &Case, module: &weft::Module, tid: usize) -> Result<Debugger, Error> {
    with_case_args(case, module, |k, dim, args| {
        Debugger::launch(module, k, dim, args, tid)
    })?
    .map_err(Error::from)
}

/// `help`'s text.
const HELP: &str =
    "  break LOC [if COND] (b)   stop at LOC: FILE:LINE, LINE or FUNC; COND in the kernel language
  tbreak LOC [if COND]      a breakpoint deleted at its first stop
  delete [N...] (d)         delete breakpoints N (all without N)
  info breakpoints | locals
  continue (c)              to the next breakpoint or watched change
  next (n) | step (s)       to the next statement, over / into func calls
  finish                    out of the current func
  backtrace (bt, where)     the call stack
  frame N (f) | up | down   select a frame of it for `locals` and `print`
  print EXPR (p)            e.g. `p d`, `p pos[j].x`, `p d * 2.0`, `p j == 5`
  locals                    the variables here
  watch EXPR                `continue` also stops when EXPR's value changes
  thread N                  step thread N instead (the launch runs again)
  list (l)                  the source around the current line
  quit (q)";

fn show_locals(out: &mut impl Write, dbg: &Debugger, frame: usize) -> std::io::Result<()> {
    match dbg.frame_locals(frame) {
        Ok(ls) => {
            for (n, v) in ls {
                writeln!(out, "  {n} = {v}")?;
            }
            Ok(())
        }
        Err(e) => writeln!(out, "error: {e}"),
    }
}

fn show_stop(
    out: &mut impl Write,
    s: Option<&Stop>,
    failure: Option<&weft::RuntimeError>,
    tid: usize,
    sources: &Sources,
) -> std::io::Result<()> {
    match s {
        None => match failure {
            Some(e) => writeln!(out, "thread {tid} finished: the launch failed: {e}"),
            None => writeln!(out, "thread {tid} finished"),
        },
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
    let opts = SessionOptions { layout, echo: true };
    run_session_with(case, tids, &opts, input, out)
}

/// How [`run_session_with`] runs a session.
#[derive(Clone, Copy, Debug)]
pub struct SessionOptions {
    /// The memory layout of the kernel's eligible arrays.
    pub layout: ArrayLayout,
    /// Write each command to `out` after a `(weft) ` prompt, so that the
    /// output is a transcript (scripts, tests); off when a terminal's line
    /// editor ([`crate::line_editor`]) already showed prompt and command.
    pub echo: bool,
}

/// [`run_session`] with `opts`.
pub fn run_session_with(
    case: &Case,
    tids: &[usize],
    opts: &SessionOptions,
    input: impl BufRead,
    out: &mut impl Write,
) -> Result<(), Error> {
    let layout = opts.layout;
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
    // The frame `locals` and `print` look at (0: the innermost); a command
    // that moves the thread selects the innermost again.
    let mut frame = 0usize;
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
        if opts.echo {
            writeln!(out, "(weft) {line}").map_err(io)?;
        }
        let (cmd, arg) = line
            .split_once(' ')
            .map_or((line, ""), |(c, a)| (c, a.trim()));
        if matches!(
            cmd,
            "step" | "s" | "next" | "n" | "finish" | "continue" | "c" | "thread"
        ) {
            frame = 0;
        }
        match cmd {
            "break" | "b" | "tbreak" => {
                let (at, cond) = match arg.split_once(" if ") {
                    Some((a, c)) => (a.trim(), Some(c.trim().to_string())),
                    None => (arg, None),
                };
                if at.is_empty() {
                    writeln!(
                        out,
                        "error: `{cmd}` takes FILE:LINE, LINE or FUNC [if COND]"
                    )
                    .map_err(io)?;
                    continue;
                }
                let id =
                    dbg.add_breakpoint_with(Breakpoint::parse(at), cond.clone(), cmd == "tbreak");
                let kind = if cmd == "tbreak" {
                    "temporary breakpoint"
                } else {
                    "breakpoint"
                };
                match cond {
                    Some(c) => writeln!(out, "{kind} {id} at {at} if {c}"),
                    None => writeln!(out, "{kind} {id} at {at}"),
                }
                .map_err(io)?;
            }
            "delete" | "d" => {
                if arg.is_empty() {
                    dbg.clear_breakpoints();
                    writeln!(out, "deleted every breakpoint").map_err(io)?;
                }
                for n in arg.split_whitespace() {
                    match n.parse::<u32>() {
                        Ok(id) if dbg.delete_breakpoint(id) => {
                            writeln!(out, "deleted breakpoint {id}").map_err(io)?
                        }
                        _ => writeln!(out, "error: no breakpoint {n}").map_err(io)?,
                    }
                }
            }
            "info" | "i" => match arg {
                "locals" | "l" => show_locals(out, &dbg, frame).map_err(io)?,
                "breakpoints" | "b" | "break" => {
                    if dbg.breakpoints().is_empty() {
                        writeln!(out, "no breakpoints").map_err(io)?;
                    }
                    for b in dbg.breakpoints() {
                        let at = match &b.at {
                            Breakpoint::Line { file, line } if file.is_empty() => line.to_string(),
                            Breakpoint::Line { file, line } => format!("{file}:{line}"),
                            Breakpoint::Func(f) => f.clone(),
                        };
                        let kind = if b.temporary { "tbreak" } else { "break" };
                        let cond = b
                            .condition
                            .as_ref()
                            .map_or(String::new(), |c| format!(" if {c}"));
                        writeln!(out, "  {} {kind} {at}{cond} (hit {} times)", b.id, b.hits)
                            .map_err(io)?;
                    }
                }
                _ => writeln!(out, "error: `info` takes `locals` or `breakpoints`").map_err(io)?,
            },
            "help" | "h" => writeln!(out, "{HELP}").map_err(io)?,
            "step" | "s" => {
                dbg.step();
                show_stop(out, dbg.current(), dbg.failure(), tid, &sources).map_err(io)?
            }
            "next" | "n" => {
                dbg.next();
                show_stop(out, dbg.current(), dbg.failure(), tid, &sources).map_err(io)?
            }
            "finish" if dbg.current().is_none_or(|s| s.depth == 0) => {
                writeln!(out, "error: `finish` needs a func frame (use `continue`)").map_err(io)?
            }
            "finish" => {
                dbg.finish();
                show_stop(out, dbg.current(), dbg.failure(), tid, &sources).map_err(io)?
            }
            "continue" | "c" => {
                dbg.cont();
                show_stop(out, dbg.current(), dbg.failure(), tid, &sources).map_err(io)?
            }
            "print" | "p" => match dbg.eval_in_frame(frame, arg) {
                Ok(v) => writeln!(out, "{arg} = {v}").map_err(io)?,
                Err(e) => writeln!(out, "error: {e}").map_err(io)?,
            },
            "locals" => show_locals(out, &dbg, frame).map_err(io)?,
            "where" | "bt" | "backtrace" => match dbg.backtrace() {
                Ok(frames) => {
                    for (i, f) in frames.iter().enumerate() {
                        writeln!(out, "  #{i} {} at {}:{}", f.func, short(&f.file), f.line)
                            .map_err(io)?;
                    }
                }
                Err(e) => writeln!(out, "error: {e}").map_err(io)?,
            },
            "frame" | "f" | "up" | "down" => {
                let want = match (cmd, arg.parse::<usize>()) {
                    ("up", _) => Some(frame + 1),
                    ("down", _) => frame.checked_sub(1),
                    (_, Ok(n)) => Some(n),
                    (_, Err(_)) if arg.is_empty() => Some(frame),
                    _ => None,
                };
                match (dbg.backtrace(), want) {
                    (Err(e), _) => writeln!(out, "error: {e}").map_err(io)?,
                    (Ok(_), None) if cmd == "down" => {
                        writeln!(out, "error: the innermost frame is selected").map_err(io)?
                    }
                    (Ok(_), None) => {
                        writeln!(out, "error: `frame` takes a frame number").map_err(io)?
                    }
                    (Ok(frames), Some(n)) => match frames.get(n) {
                        Some(f) => {
                            frame = n;
                            writeln!(out, "#{n} {} at {}:{}", f.func, short(&f.file), f.line)
                                .map_err(io)?;
                            if let Some(text) = sources.line(&f.file, f.line) {
                                writeln!(out, "{:>5} | {text}", f.line).map_err(io)?;
                            }
                        }
                        None => {
                            writeln!(out, "error: no frame {n} (the stack has {})", frames.len())
                                .map_err(io)?
                        }
                    },
                }
            }
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
            "watch" => match dbg.current().map(|_| dbg.eval(arg)) {
                Some(Err(e)) => writeln!(out, "error: {e}").map_err(io)?,
                _ => {
                    dbg.watch(arg);
                    writeln!(out, "watching {arg}").map_err(io)?;
                }
            },
            "thread" => match arg.parse::<usize>() {
                Ok(t) => {
                    let bps = dbg.breakpoints().to_vec();
                    tid = t;
                    // The old launch ends (and its worker is joined) first.
                    drop(dbg);
                    dbg = launch(case, &module, tid)?;
                    for b in bps {
                        dbg.add_breakpoint_with(b.at, b.condition, b.temporary);
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
