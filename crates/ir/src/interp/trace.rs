//! The statement trace: the debugger's oracle.
//!
//! [`trace_thread`] runs a launch like [`super::run_kernel`] and records,
//! for one thread, every source statement it starts, in order, with the
//! source variables in scope at that moment (so: their values after the
//! statements before it). Nothing of this is in the programs
//! [`super::run_kernel`] runs: a traced program is lowered with two more
//! ops, `At(loc)` before every located instruction but `return`, and
//! `Bind` after every definition of a source variable
//! ([`Function::var_name`]).
//!
//! The rules, which the CPU debug build (`weft_abi::debug`) must follow:
//!
//! * **Statements.** Each call frame remembers the line of its last
//!   statement. An instruction with a source location starts a statement
//!   when its line differs from that line, or when it is the first located
//!   instruction of a frame, or the first after a loop's `continue` (so
//!   each iteration after the first stops at its first statement, even on
//!   one line). `return` never starts one (a kernel's closing `return`
//!   sits on its decorator line).
//! * **Depth.** The number of calls active: 0 in the kernel.
//! * **Scope.** A frame's variables are the source variables defined so
//!   far in the regions being run (a region's values leave scope when it
//!   ends; a loop body's at the end of each iteration); of several with one
//!   name, the latest defined.

use super::{bits_const, Machine};
use crate::ir::{Const, FuncId, Loc, Value};
use crate::layout;
use crate::types::Type;

/// A source variable at a statement.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceVar {
    pub name: String,
    /// The IR value holding it.
    pub value: Value,
    pub ty: Type,
    /// Its scalar leaves, in [`layout::leaves`] order.
    pub leaves: Vec<Const>,
}

/// One statement the traced thread started.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEvent {
    pub func: FuncId,
    pub loc: Loc,
    /// Calls active: 0 in the kernel.
    pub depth: u32,
    /// The first statement of its frame (a thread's or a call's).
    pub entry: bool,
    /// The variables in scope, sorted by name.
    pub vars: Vec<TraceVar>,
}

/// One call frame of the traced thread.
struct TraceFrame {
    func: FuncId,
    /// Line of the frame's last statement (0: none yet in this iteration).
    line: u32,
    /// Whether the frame has had a statement.
    started: bool,
    /// Bound variables in definition order: value, slot span, type.
    scope: Vec<(Value, (u32, u32), Type)>,
}

/// The tracing state of a launch.
pub(super) struct Tracer {
    tid: i32,
    active: bool,
    frames: Vec<TraceFrame>,
    pub(super) events: Vec<TraceEvent>,
}

impl Tracer {
    pub(super) fn new(tid: i32) -> Tracer {
        Tracer {
            tid,
            active: false,
            frames: Vec::new(),
            events: Vec::new(),
        }
    }
}

impl Machine<'_, '_> {
    fn tracer(&mut self) -> Option<&mut Tracer> {
        self.trace.as_mut().filter(|t| t.active)
    }

    /// A thread starts: tracing is on for the traced one.
    pub(super) fn trace_thread_start(&mut self, func: FuncId) {
        let tid = self.tid;
        if let Some(t) = self.trace.as_mut() {
            t.active = t.tid == tid;
            t.frames.clear();
            if t.active {
                t.frames.push(TraceFrame {
                    func,
                    line: 0,
                    started: false,
                    scope: Vec::new(),
                });
            }
        }
    }

    /// A call starts (`Some(callee)`) or ends (`None`).
    pub(super) fn trace_call(&mut self, callee: Option<FuncId>) {
        if let Some(t) = self.tracer() {
            match callee {
                Some(func) => t.frames.push(TraceFrame {
                    func,
                    line: 0,
                    started: false,
                    scope: Vec::new(),
                }),
                None => {
                    t.frames.pop();
                }
            }
        }
    }

    /// The scope mark of the current frame (for [`Machine::trace_leave`]).
    pub(super) fn trace_mark(&mut self) -> usize {
        self.tracer()
            .and_then(|t| t.frames.last())
            .map_or(0, |f| f.scope.len())
    }

    /// A region ends: its variables leave scope.
    pub(super) fn trace_leave(&mut self, mark: usize) {
        if let Some(f) = self.tracer().and_then(|t| t.frames.last_mut()) {
            f.scope.truncate(mark);
        }
    }

    /// A loop iteration ended in `continue`: the next one starts.
    pub(super) fn trace_iteration(&mut self) {
        if let Some(f) = self.tracer().and_then(|t| t.frames.last_mut()) {
            f.line = 0;
        }
    }

    pub(super) fn trace_bind(&mut self, binds: &[super::compile::Bind]) {
        if let Some(f) = self.tracer().and_then(|t| t.frames.last_mut()) {
            f.scope
                .extend(binds.iter().map(|b| (b.value, b.span, b.ty)));
        }
    }

    /// About to run an instruction at `loc` with the frame at `base`.
    pub(super) fn trace_at(&mut self, loc: Loc, base: usize) {
        let m = self.m;
        let Some(t) = self.trace.as_mut().filter(|t| t.active) else {
            return;
        };
        let depth = t.frames.len().saturating_sub(1) as u32;
        let Some(fr) = t.frames.last_mut() else {
            return;
        };
        if fr.line == loc.line {
            return;
        }
        fr.line = loc.line;
        let entry = !std::mem::replace(&mut fr.started, true);
        let Some(f) = m.funcs.get(fr.func) else {
            return;
        };
        let mut vars: Vec<TraceVar> = Vec::new();
        for &(v, (slot, len), ty) in fr.scope.iter().rev() {
            let Some(name) = f.var_name(v) else {
                continue;
            };
            if vars.iter().any(|x| x.name == name) {
                continue;
            }
            let lv = layout::leaves(ty, &m.structs);
            let s = base + slot as usize;
            let Some(bits) = self.stack.get(s..s + len as usize) else {
                continue;
            };
            vars.push(TraceVar {
                name: name.to_string(),
                value: v,
                ty,
                leaves: lv
                    .iter()
                    .zip(bits)
                    .map(|(l, &b)| bits_const(l.scalar, b))
                    .collect(),
            });
        }
        vars.sort_by(|a, b| a.name.cmp(&b.name));
        t.events.push(TraceEvent {
            func: fr.func,
            loc,
            depth,
            entry,
            vars,
        });
    }
}
