//! `weft dap`: the debugger ([`weft::debug::Debugger`]) over the Debug
//! Adapter Protocol, on stdin/stdout, for VS Code and other DAP clients.
//!
//! Requests: `initialize`, `launch` (`case`: a conformance case's folder
//! or `case.json`; or `program`: a kernel file, with `kernel`, `dim` and
//! `args` as `case.json` writes them, npy files relative to the program's
//! folder; `tid`: the thread to step, default 0; `layout`: `aos`
//! or `soa`; `stopOnEntry`), `setBreakpoints` (lines with `condition`s in
//! the kernel language), `setFunctionBreakpoints`, `configurationDone`,
//! `threads`, `stackTrace`, `scopes` (every frame's variables),
//! `variables` (vectors, matrices and
//! structs have children), `next`, `stepIn`, `stepOut`, `continue`,
//! `evaluate`, `disconnect`. The one DAP thread is the stepped kernel
//! thread (id `tid + 1`, as DAP ids start at 1).

use crate::Error;
use serde_json::{json, Value as Json};
use std::io::{BufRead, Write};
use weft::debug::{Breakpoint, DebugValue, Debugger, Stop};
use weft::ArrayLayout;
use weft_conform::Case;

/// Reads one message (`Content-Length` framed); `None` at the end.
fn read_message(input: &mut impl BufRead) -> std::io::Result<Option<Json>> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim_end();
        if line.is_empty() {
            if len.is_some() {
                break;
            }
            continue;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len.unwrap_or(0)];
    input.read_exact(&mut body)?;
    Ok(serde_json::from_slice(&body).ok())
}

/// Line breakpoints of one source: (line, condition).
type SourceBreakpoints = Vec<(u32, Option<String>)>;

/// A session's state.
struct Session<W: Write> {
    out: W,
    seq: i64,
    dbg: Option<Debugger>,
    /// Line breakpoints per source path.
    lines: Vec<(String, SourceBreakpoints)>,
    funcs: Vec<(String, Option<String>)>,
    /// `variablesReference` → the variables it lists (reset at each stop).
    refs: Vec<Vec<(String, DebugValue)>>,
    stop_on_entry: bool,
}

impl<W: Write> Session<W> {
    fn send(&mut self, mut msg: Json) -> std::io::Result<()> {
        self.seq += 1;
        msg["seq"] = json!(self.seq);
        let body = msg.to_string();
        write!(self.out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
        self.out.flush()
    }
    fn respond(&mut self, req: &Json, result: Result<Json, String>) -> std::io::Result<()> {
        let mut msg = json!({
            "type": "response",
            "request_seq": req["seq"],
            "command": req["command"],
            "success": result.is_ok(),
        });
        match result {
            Ok(body) => msg["body"] = body,
            Err(m) => msg["message"] = json!(m),
        }
        self.send(msg)
    }
    fn event(&mut self, event: &str, body: Json) -> std::io::Result<()> {
        self.send(json!({"type": "event", "event": event, "body": body}))
    }

    /// Re-adds every breakpoint to the debugger.
    fn apply_breakpoints(&mut self) {
        let Some(dbg) = self.dbg.as_mut() else {
            return;
        };
        dbg.clear_breakpoints();
        for (path, ls) in &self.lines {
            let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
            for (line, cond) in ls {
                dbg.add_breakpoint_with(
                    Breakpoint::Line {
                        file: file.to_string(),
                        line: *line,
                    },
                    cond.clone(),
                    false,
                );
            }
        }
        for (f, cond) in &self.funcs {
            dbg.add_breakpoint_with(Breakpoint::Func(f.clone()), cond.clone(), false);
        }
    }

    /// After a run command: a `stopped` event, or `terminated`.
    fn report(&mut self, reason: &str) -> std::io::Result<()> {
        self.refs.clear();
        let Some(dbg) = self.dbg.as_ref() else {
            return Ok(());
        };
        let tid = dbg.tid() as i64 + 1;
        match dbg.current() {
            Some(s) => {
                let at_bp = dbg.breakpoints().iter().any(|b| match &b.at {
                    Breakpoint::Line { line, .. } => *line == s.line,
                    Breakpoint::Func(_) => s.func_entry,
                });
                let reason = if reason == "continue" && at_bp {
                    "breakpoint"
                } else if reason == "continue" {
                    "data breakpoint"
                } else {
                    reason
                };
                self.event(
                    "stopped",
                    json!({"reason": reason, "threadId": tid, "allThreadsStopped": true}),
                )
            }
            None => {
                self.event("exited", json!({"exitCode": 0}))?;
                self.event("terminated", json!({}))
            }
        }
    }

    /// A `variablesReference` for `vars` (0 for none).
    fn reference(&mut self, vars: Vec<(String, DebugValue)>) -> usize {
        self.refs.push(vars);
        self.refs.len()
    }

    fn variable(&mut self, name: &str, v: &DebugValue) -> Json {
        let (ty, children) = match v {
            DebugValue::Scalar(_) => (String::new(), 0),
            DebugValue::Aggregate { ty, parts } => (ty.clone(), self.reference(parts.clone())),
        };
        json!({"name": name, "value": v.to_string(), "type": ty, "variablesReference": children})
    }

    fn stop(&self) -> Result<&Stop, String> {
        self.dbg
            .as_ref()
            .and_then(|d| d.current())
            .ok_or_else(|| "the thread is not stopped".to_string())
    }

    /// Handles one request; false after `disconnect`.
    fn handle(&mut self, req: &Json) -> Result<bool, Error> {
        let io = |e: std::io::Error| Error::io("<dap output>", e);
        let args = &req["arguments"];
        let cmd = req["command"].as_str().unwrap_or("");
        match cmd {
            "initialize" => {
                self.respond(
                    req,
                    Ok(json!({
                        "supportsConfigurationDoneRequest": true,
                        "supportsConditionalBreakpoints": true,
                        "supportsFunctionBreakpoints": true,
                        "supportsEvaluateForHovers": true,
                    })),
                )
                .map_err(io)?;
                self.event("initialized", json!({})).map_err(io)?;
            }
            "launch" => {
                let r = self.launch(args);
                self.respond(req, r.map(|()| json!({}))).map_err(io)?;
            }
            "setBreakpoints" => {
                let path = args["source"]["path"].as_str().unwrap_or("").to_string();
                let mut ls = Vec::new();
                let mut out = Vec::new();
                for b in args["breakpoints"].as_array().into_iter().flatten() {
                    let line = b["line"].as_u64().unwrap_or(0) as u32;
                    let cond = b["condition"].as_str().map(str::to_string);
                    let file = path.rsplit(['/', '\\']).next().unwrap_or(&path);
                    let verified = self
                        .dbg
                        .as_ref()
                        .is_none_or(|d| d.has_statement(file, line));
                    out.push(json!({"verified": verified, "line": line}));
                    ls.push((line, cond));
                }
                self.lines.retain(|(p, _)| *p != path);
                self.lines.push((path, ls));
                self.apply_breakpoints();
                self.respond(req, Ok(json!({ "breakpoints": out })))
                    .map_err(io)?;
            }
            "setFunctionBreakpoints" => {
                self.funcs = args["breakpoints"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|b| {
                        (
                            b["name"].as_str().unwrap_or("").to_string(),
                            b["condition"].as_str().map(str::to_string),
                        )
                    })
                    .collect();
                let out: Vec<Json> = self
                    .funcs
                    .iter()
                    .map(|_| json!({"verified": true}))
                    .collect();
                self.apply_breakpoints();
                self.respond(req, Ok(json!({ "breakpoints": out })))
                    .map_err(io)?;
            }
            "configurationDone" => {
                self.respond(req, Ok(json!({}))).map_err(io)?;
                if let Some(d) = self.dbg.as_mut() {
                    if self.stop_on_entry {
                        d.step();
                        self.report("entry").map_err(io)?;
                    } else {
                        d.cont();
                        self.report("continue").map_err(io)?;
                    }
                }
            }
            "threads" => {
                let threads: Vec<Json> = self
                    .dbg
                    .iter()
                    .map(|d| json!({"id": d.tid() as i64 + 1, "name": format!("thread {}", d.tid())}))
                    .collect();
                self.respond(req, Ok(json!({ "threads": threads })))
                    .map_err(io)?;
            }
            "stackTrace" => {
                let r = self.stop().map(|s| {
                    let frames: Vec<Json> = s
                        .stack
                        .iter()
                        .enumerate()
                        .map(|(k, f)| {
                            let name = f.file.rsplit(['/', '\\']).next().unwrap_or(&f.file);
                            json!({
                                "id": k,
                                "name": f.func,
                                "source": {"name": name, "path": f.file},
                                "line": f.line,
                                "column": if k == 0 { s.col } else { 1 },
                            })
                        })
                        .collect();
                    json!({"stackFrames": frames, "totalFrames": s.stack.len()})
                });
                self.respond(req, r).map_err(io)?;
            }
            "scopes" => {
                let frame = args["frameId"].as_u64().unwrap_or(0);
                let locals = match &self.dbg {
                    Some(d) => d
                        .frame_locals(frame as usize)
                        .map(<[_]>::to_vec)
                        .map_err(|e| e.to_string()),
                    None => Err("no launch".to_string()),
                };
                let r = locals.map(|locals| {
                    let r = self.reference(locals);
                    json!({"scopes": [{"name": "Locals", "variablesReference": r, "expensive": false}]})
                });
                self.respond(req, r).map_err(io)?;
            }
            "variables" => {
                let r = args["variablesReference"].as_u64().unwrap_or(0) as usize;
                let r = match r.checked_sub(1).and_then(|i| self.refs.get(i)).cloned() {
                    Some(vars) => {
                        let vs: Vec<Json> = vars.iter().map(|(n, v)| self.variable(n, v)).collect();
                        Ok(json!({ "variables": vs }))
                    }
                    None => Err(format!("no variables reference {r}")),
                };
                self.respond(req, r).map_err(io)?;
            }
            "evaluate" => {
                let e = args["expression"].as_str().unwrap_or("");
                let r = match self.dbg.as_ref().map(|d| d.eval(e)) {
                    Some(Ok(v)) => {
                        let var = self.variable(e, &v);
                        Ok(
                            json!({"result": var["value"], "type": var["type"], "variablesReference": var["variablesReference"]}),
                        )
                    }
                    Some(Err(err)) => Err(err.to_string()),
                    None => Err("no launch".to_string()),
                };
                self.respond(req, r).map_err(io)?;
            }
            "next" | "stepIn" | "stepOut" | "continue" => {
                let Some(d) = self.dbg.as_mut() else {
                    self.respond(req, Err("no launch".into())).map_err(io)?;
                    return Ok(true);
                };
                match cmd {
                    "next" => d.next(),
                    "stepIn" => d.step(),
                    "stepOut" if d.current().is_some_and(|s| s.depth > 0) => d.finish(),
                    "stepOut" => d.next(),
                    _ => d.cont(),
                };
                let body = if cmd == "continue" {
                    json!({"allThreadsContinued": true})
                } else {
                    json!({})
                };
                self.respond(req, Ok(body)).map_err(io)?;
                let reason = if cmd == "continue" {
                    "continue"
                } else {
                    "step"
                };
                self.report(reason).map_err(io)?;
            }
            "disconnect" | "terminate" => {
                self.respond(req, Ok(json!({}))).map_err(io)?;
                return Ok(cmd != "disconnect");
            }
            other => {
                self.respond(req, Err(format!("`{other}` is not supported")))
                    .map_err(io)?;
            }
        }
        Ok(true)
    }

    fn launch(&mut self, args: &Json) -> Result<(), String> {
        let (case, kpath) = launch_case(args)?;
        let tid = args["tid"].as_u64().unwrap_or(0) as usize;
        let layout = match args["layout"].as_str() {
            Some("soa") => ArrayLayout::Soa,
            _ => ArrayLayout::Aos,
        };
        self.stop_on_entry = args["stopOnEntry"].as_bool().unwrap_or(false);
        let src = std::fs::read_to_string(&kpath).map_err(|e| e.to_string())?;
        let m = Debugger::compile_with_layout(&kpath.display().to_string(), &src, layout)
            .map_err(|e| e.render(false))?;
        let dbg = crate::debug::with_case_args(&case, &m, |k, dim, a| {
            Debugger::launch(&m, k, dim, a, tid)
        })
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
        self.dbg = Some(dbg);
        self.apply_breakpoints();
        Ok(())
    }
}

/// The case a `launch` request describes and its kernel file: a
/// conformance case (`case`, taken first), or a kernel file with its launch (`program`,
/// `kernel`, `dim`, and `args` as `case.json` writes them, npy files
/// relative to the program's folder).
fn launch_case(args: &Json) -> Result<(Case, std::path::PathBuf), String> {
    use std::path::{Path, PathBuf};
    if let Some(case) = args["case"].as_str() {
        let case = Case::load(Path::new(case)).map_err(|e| e.to_string())?;
        let kpath = case.dir.join("kernel.py");
        return Ok((case, kpath));
    }
    if let Some(program) = args["program"].as_str() {
        let program = Path::new(program);
        let dir = program
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let Some(kernel) = args["kernel"].as_str() else {
            return Err("`launch` with `program` needs `kernel`: the kernel's name".into());
        };
        let name = program.file_stem().map_or_else(
            || "kernel".to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let spec = json!({
            "name": name,
            "kernel": kernel,
            "dim": args["dim"],
            "args": args.get("args").cloned().unwrap_or_else(|| json!([])),
        });
        let case = Case::parse(&spec.to_string(), program, dir).map_err(|e| e.to_string())?;
        return Ok((case, program.to_path_buf()));
    }
    Err("`launch` needs `case` (a conformance case's folder) or `program` (a kernel file) with `kernel`, `dim` and `args`".into())
}

/// Serves one DAP session: requests from `input`, responses and events to
/// `out`, until `disconnect` or the end of `input`.
pub fn serve(mut input: impl BufRead, out: impl Write) -> Result<(), Error> {
    let mut s = Session {
        out,
        seq: 0,
        dbg: None,
        lines: Vec::new(),
        funcs: Vec::new(),
        refs: Vec::new(),
        stop_on_entry: false,
    };
    while let Some(req) = read_message(&mut input).map_err(|e| Error::io("<dap input>", e))? {
        if req["type"] == "request" && !s.handle(&req)? {
            break;
        }
    }
    Ok(())
}
