//! Stepping through a kernel on the CPU JIT, at the kernel's own source
//! lines.
//!
//! A [`Debugger`] launches the kernel once in the CPU backend's debug build
//! (`weft_abi::debug`): the JIT code calls back at every source
//! statement, at each func entry and before each func return, with the
//! source location and the current values of the named variables. The
//! stepped thread's calls are recorded; the other threads run too, in index
//! order on one OS thread — those before the stepped thread run to
//! completion before it starts, those after it once it has finished — so
//! the arrays end as a normal launch leaves them.
//!
//! Stepping then walks the stepped thread's record: [`Debugger::step`]
//! (next statement, into funcs), [`Debugger::next`] (over calls),
//! [`Debugger::finish`] (out of the current func), [`Debugger::cont`] (to
//! the next breakpoint or watched change). Every stop has the location, the
//! call stack ([`Stop::stack`]) and the named variables as structured
//! [`DebugValue`]s; [`Debugger::print`] evaluates `name`, `v.x`, `m[1,2]`,
//! `s.field`. Compile the module without optimisation
//! ([`CompileOptions::opt`] false, the O0 pipeline) to keep funcs as calls
//! one can step into; with inlining, func bodies appear inline.

use crate::{Arg, ArrayLayout, CompileOptions, Compiler, Error, LayoutOptions, Module};
use std::fmt;
use weft_abi::debug::{DebugEvent, EventKind};
use weft_ir::layout::component_offset;
use weft_ir::{Scalar, StructTable, Type};

/// A scalar value of a variable.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ScalarValue {
    Bool(bool),
    Int(i64),
    UInt(u64),
    /// `f16` and `f32` values.
    F32(f32),
    F64(f64),
}

impl ScalarValue {
    /// The value as `f64` (integers converted, bool 0/1).
    pub fn as_f64(self) -> f64 {
        match self {
            ScalarValue::Bool(b) => b as u8 as f64,
            ScalarValue::Int(i) => i as f64,
            ScalarValue::UInt(u) => u as f64,
            ScalarValue::F32(x) => x as f64,
            ScalarValue::F64(x) => x,
        }
    }
}

impl fmt::Display for ScalarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarValue::Bool(b) => write!(f, "{}", if *b { "True" } else { "False" }),
            ScalarValue::Int(i) => write!(f, "{i}"),
            ScalarValue::UInt(u) => write!(f, "{u}"),
            ScalarValue::F32(x) => write!(f, "{x:?}"),
            ScalarValue::F64(x) => write!(f, "{x:?}"),
        }
    }
}

/// A variable's value: a scalar, or an aggregate with labelled parts
/// (`x y z w` for vectors and quaternions, row indices for matrices, `p q`
/// for transforms, field names for structs).
#[derive(Clone, Debug, PartialEq)]
pub enum DebugValue {
    Scalar(ScalarValue),
    Aggregate {
        /// The type as Weft writes it (`vec3f`, `mat22f`, a struct name).
        ty: String,
        parts: Vec<(String, DebugValue)>,
    },
}

impl DebugValue {
    /// The scalar, if this is one.
    pub fn scalar(&self) -> Option<ScalarValue> {
        match self {
            DebugValue::Scalar(s) => Some(*s),
            _ => None,
        }
    }
    /// Every scalar leaf, in component order, as `f64`.
    pub fn leaves_f64(&self) -> Vec<f64> {
        match self {
            DebugValue::Scalar(s) => vec![s.as_f64()],
            DebugValue::Aggregate { parts, .. } => {
                parts.iter().flat_map(|(_, p)| p.leaves_f64()).collect()
            }
        }
    }
    /// The part labelled `label`.
    pub fn part(&self, label: &str) -> Option<&DebugValue> {
        match self {
            DebugValue::Aggregate { parts, .. } => {
                parts.iter().find(|(l, _)| l == label).map(|(_, v)| v)
            }
            _ => None,
        }
    }
    /// The `i`th part.
    pub fn index(&self, i: usize) -> Option<&DebugValue> {
        match self {
            DebugValue::Aggregate { parts, .. } => parts.get(i).map(|(_, v)| v),
            _ => None,
        }
    }
}

impl fmt::Display for DebugValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DebugValue::Scalar(s) => write!(f, "{s}"),
            DebugValue::Aggregate { ty, parts } => {
                let named = parts
                    .first()
                    .is_some_and(|(l, _)| !l.chars().all(|c| c.is_ascii_digit()));
                let is_struct = named && parts.first().is_some_and(|(l, _)| l.len() > 1);
                write!(f, "{ty}(")?;
                for (i, (l, v)) in parts.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    if is_struct {
                        write!(f, "{l}=")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, ")")
            }
        }
    }
}

/// One frame of the call stack: the function and the line it is at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub func: String,
    pub file: String,
    pub line: u32,
}

/// A place the stepped thread stopped at: about to run the statement at
/// `file:line`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    pub func: String,
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// Call depth: 0 in the kernel, 1 in a func it called, ...
    pub depth: usize,
    /// The call stack, innermost frame first.
    pub stack: Vec<Frame>,
    /// The named variables visible here (the latest value of each name),
    /// sorted by name.
    pub locals: Vec<(String, DebugValue)>,
    /// True for the first statement after entering a func.
    pub func_entry: bool,
}

impl Stop {
    /// The variable `name`.
    pub fn local(&self, name: &str) -> Option<&DebugValue> {
        self.locals.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// Where [`Debugger::cont`] stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Breakpoint {
    /// A source line; `file` matches any file whose path ends with it
    /// (empty: any file).
    Line { file: String, line: u32 },
    /// The first statement of a func (or kernel) of this name.
    Func(String),
}

impl Breakpoint {
    /// Parses `FILE:LINE`, `LINE` or a function name.
    pub fn parse(s: &str) -> Breakpoint {
        if let Some((file, line)) = s.rsplit_once(':') {
            if let Ok(line) = line.parse() {
                return Breakpoint::Line {
                    file: file.to_string(),
                    line,
                };
            }
        }
        match s.parse() {
            Ok(line) => Breakpoint::Line {
                file: String::new(),
                line,
            },
            Err(_) => Breakpoint::Func(s.to_string()),
        }
    }
    fn hit(&self, s: &Stop) -> bool {
        match self {
            Breakpoint::Line { file, line } => s.line == *line && s.file.ends_with(file.as_str()),
            Breakpoint::Func(name) => {
                s.func_entry && (s.func == *name || s.func.starts_with(&format!("{name}_")))
            }
        }
    }
}

/// Why a debugger command failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DebugError {
    #[error("the thread has not started (use step, next or continue)")]
    NotStarted,
    #[error("the thread has finished")]
    Finished,
    #[error("no variable `{0}` here")]
    NoVariable(String),
    #[error("`{expr}`: {what}")]
    BadExpr { expr: String, what: String },
}

/// A debugging session over one thread of one launch (module docs).
#[derive(Debug)]
pub struct Debugger {
    tid: usize,
    stops: Vec<Stop>,
    /// Index of the current stop; `None` before the first, `stops.len()`
    /// when the thread has finished.
    pos: Option<usize>,
    breakpoints: Vec<Breakpoint>,
    watches: Vec<String>,
}

impl Debugger {
    /// Compiles `source` for stepping: no optimisation (funcs stay calls).
    pub fn compile(file_name: &str, source: &str) -> Result<Module, Error> {
        Self::compile_with_layout(file_name, source, ArrayLayout::Aos)
    }

    /// [`Debugger::compile`] with every eligible array parameter in
    /// `layout` (`weft debug --layout`); a kernel's SoA arrays must be
    /// launched in [`ArrayLayout::Soa`] ([`crate::Array::to_layout`]).
    /// The values shown are the same in either layout, but in SoA a
    /// variable holding a whole element (`p = pos[i]`) may be missing: its
    /// value is a `make` of one load per plane, which `simplify` folds into
    /// its uses and `dce` then removes, name and all.
    pub fn compile_with_layout(
        file_name: &str,
        source: &str,
        layout: ArrayLayout,
    ) -> Result<Module, Error> {
        Compiler::with_options(CompileOptions {
            opt: false,
            layout: LayoutOptions {
                default: layout,
                params: Vec::new(),
            },
            ..CompileOptions::default()
        })
        .compile(file_name, source)
    }

    /// Launches `kernel` of `module` over `dim` with `args` in the CPU
    /// debug build, recording thread `tid` (a linear thread index).
    pub fn launch(
        module: &Module,
        kernel: &str,
        dim: &[usize],
        args: &[Arg<'_>],
        tid: usize,
    ) -> Result<Debugger, Error> {
        let m = module.ir();
        let events = weft_runtime::debug::record_launch(m, kernel, dim, args, tid)?;
        Ok(Debugger {
            tid,
            stops: stops_of(m, &events),
            pos: None,
            breakpoints: Vec::new(),
            watches: Vec::new(),
        })
    }

    /// The stepped thread's index.
    pub fn tid(&self) -> usize {
        self.tid
    }
    /// Every stop of the thread, in order.
    pub fn stops(&self) -> &[Stop] {
        &self.stops
    }
    /// Where the thread is stopped (`None` before the first step and after
    /// the end).
    pub fn current(&self) -> Option<&Stop> {
        self.pos.and_then(|p| self.stops.get(p))
    }
    /// Whether the thread has run to its end.
    pub fn finished(&self) -> bool {
        self.pos.is_some_and(|p| p >= self.stops.len())
    }
    pub fn add_breakpoint(&mut self, b: Breakpoint) {
        self.breakpoints.push(b);
    }
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }
    /// Stops [`Debugger::cont`] whenever `name`'s value changes.
    pub fn watch(&mut self, name: &str) {
        self.watches.push(name.to_string());
    }

    fn next_index(&self) -> usize {
        self.pos.map_or(0, |p| p + 1)
    }
    fn go(&mut self, pred: impl Fn(&Stop) -> bool) -> Option<&Stop> {
        let start = self.next_index();
        let found = (start..self.stops.len()).find(|&i| pred(&self.stops[i]));
        self.pos = Some(found.unwrap_or(self.stops.len()));
        self.current()
    }
    fn depth(&self) -> usize {
        self.current().map_or(0, |s| s.depth)
    }

    /// To the next statement, into calls. `None`: the thread finished.
    pub fn step(&mut self) -> Option<&Stop> {
        self.go(|_| true)
    }
    /// To the next statement at this call depth or above (over calls).
    // The debugger's `next` command, not an iterator.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<&Stop> {
        let d = self.depth();
        self.go(|s| s.depth <= d)
    }
    /// Out of the current func: to the next statement of its caller.
    pub fn finish(&mut self) -> Option<&Stop> {
        let d = self.depth();
        if d == 0 {
            return self.go(|_| false);
        }
        self.go(|s| s.depth < d)
    }
    /// To the next breakpoint or watched change (or the end).
    pub fn cont(&mut self) -> Option<&Stop> {
        let start = self.next_index();
        let mut prev: Vec<Option<DebugValue>> = self
            .watches
            .iter()
            .map(|w| self.current().and_then(|s| s.local(w)).cloned())
            .collect();
        for i in start..self.stops.len() {
            let s = &self.stops[i];
            if self.breakpoints.iter().any(|b| b.hit(s)) {
                self.pos = Some(i);
                return self.current();
            }
            let mut changed = false;
            for (k, w) in self.watches.iter().enumerate() {
                let now = s.local(w).cloned();
                if now.is_some() && prev[k].is_some() && now != prev[k] {
                    changed = true;
                }
                if now.is_some() {
                    prev[k] = now;
                }
            }
            if changed {
                self.pos = Some(i);
                return self.current();
            }
        }
        self.pos = Some(self.stops.len());
        None
    }

    fn here(&self) -> Result<&Stop, DebugError> {
        match self.pos {
            None => Err(DebugError::NotStarted),
            Some(p) => self.stops.get(p).ok_or(DebugError::Finished),
        }
    }
    /// The named variables at the current stop.
    pub fn locals(&self) -> Result<&[(String, DebugValue)], DebugError> {
        Ok(&self.here()?.locals)
    }
    /// The call stack at the current stop, innermost first.
    pub fn backtrace(&self) -> Result<&[Frame], DebugError> {
        Ok(&self.here()?.stack)
    }
    /// Evaluates `name`, `name.field`, `name.x`, `name[i]`, `name[i, j]`
    /// (and chains of them) at the current stop.
    pub fn print(&self, expr: &str) -> Result<DebugValue, DebugError> {
        let stop = self.here()?;
        let bad = |what: &str| DebugError::BadExpr {
            expr: expr.to_string(),
            what: what.to_string(),
        };
        let e = expr.trim();
        let end = e.find(['.', '[']).unwrap_or(e.len());
        let (name, mut rest) = e.split_at(end);
        let mut v = stop
            .local(name.trim())
            .ok_or_else(|| DebugError::NoVariable(name.trim().to_string()))?;
        while !rest.is_empty() {
            if let Some(r) = rest.strip_prefix('.') {
                let end = r.find(['.', '[']).unwrap_or(r.len());
                let (label, r2) = r.split_at(end);
                v = v
                    .part(label.trim())
                    .ok_or_else(|| bad(&format!("no component `{}`", label.trim())))?;
                rest = r2;
            } else if let Some(r) = rest.strip_prefix('[') {
                let close = r.find(']').ok_or_else(|| bad("missing `]`"))?;
                for ix in r[..close].split(',') {
                    let i: usize = ix
                        .trim()
                        .parse()
                        .map_err(|_| bad("index is not a number"))?;
                    v = v
                        .index(i)
                        .ok_or_else(|| bad(&format!("index {i} out of range")))?;
                }
                rest = &r[close + 1..];
            } else {
                return Err(bad("expected `.name` or `[index]`"));
            }
        }
        Ok(v.clone())
    }
}

/// Builds the stops of a recorded thread.
fn stops_of(m: &weft_ir::Module, events: &[DebugEvent]) -> Vec<Stop> {
    let file_of = |i: u32| m.files.get(i as usize).cloned().unwrap_or_default();
    // (func, file, line) per open frame, outermost first.
    let mut frames: Vec<Frame> = Vec::new();
    let mut out = Vec::new();
    let mut entered = false;
    for ev in events {
        let Some(f) = m.funcs.get(ev.func) else {
            continue;
        };
        match ev.kind {
            EventKind::Enter => {
                frames.push(Frame {
                    func: f.name.clone(),
                    file: file_of(ev.loc.file),
                    line: ev.loc.line,
                });
                entered = true;
            }
            EventKind::Exit => {
                frames.pop();
            }
            EventKind::Stmt => {
                if frames.is_empty() {
                    // The kernel's frame (kernels have no entry hook).
                    frames.push(Frame {
                        func: f.name.clone(),
                        file: file_of(ev.loc.file),
                        line: ev.loc.line,
                    });
                    entered = true;
                }
                if let Some(top) = frames.last_mut() {
                    top.line = ev.loc.line;
                    top.file = file_of(ev.loc.file);
                }
                let mut locals: Vec<(String, DebugValue)> = ev
                    .vars
                    .iter()
                    .filter_map(|(v, leaves)| {
                        let name = f.value_name(*v)?;
                        let ty = f.values.get(*v)?.ty;
                        let mut it = leaves.iter().copied();
                        Some((name.to_string(), decode(ty, &m.structs, &mut it)?))
                    })
                    .collect();
                locals.sort_by(|a, b| a.0.cmp(&b.0));
                out.push(Stop {
                    func: f.name.clone(),
                    file: file_of(ev.loc.file),
                    line: ev.loc.line,
                    col: ev.loc.col,
                    depth: frames.len().saturating_sub(1),
                    stack: frames.iter().rev().cloned().collect(),
                    locals,
                    func_entry: entered,
                });
                entered = false;
            }
        }
    }
    out
}

/// Decodes a value of type `ty` from its hook leaves.
fn decode(
    ty: Type,
    structs: &StructTable,
    leaves: &mut impl Iterator<Item = u64>,
) -> Option<DebugValue> {
    if let Type::Scalar(s) = ty {
        let bits = leaves.next()?;
        return Some(DebugValue::Scalar(match s {
            Scalar::Bool => ScalarValue::Bool(bits != 0),
            Scalar::F16 | Scalar::F32 | Scalar::BF16 => {
                ScalarValue::F32(f64::from_bits(bits) as f32)
            }
            Scalar::F64 => ScalarValue::F64(f64::from_bits(bits)),
            s if s.is_signed_int() => ScalarValue::Int(bits as i64),
            _ => ScalarValue::UInt(bits),
        }));
    }
    let n = ty.arity(structs);
    let mut parts = Vec::with_capacity(n as usize);
    for i in 0..n {
        let (_, comp) = component_offset(ty, i, structs)?;
        let label = match ty {
            Type::Vec(k, _) if k <= 4 => ["x", "y", "z", "w"][i as usize].to_string(),
            Type::Quat(_) => ["x", "y", "z", "w"][i as usize].to_string(),
            Type::Transform(_) => ["p.x", "p.y", "p.z", "q.x", "q.y", "q.z", "q.w"]
                .get(i as usize)
                .map_or_else(|| i.to_string(), |s| s.to_string()),
            Type::Struct(id) => structs
                .get(id)
                .and_then(|d| d.fields.get(i as usize))
                .map_or_else(|| i.to_string(), |f| f.name.clone()),
            _ => i.to_string(),
        };
        parts.push((label, decode(comp, structs, leaves)?));
    }
    Some(DebugValue::Aggregate {
        ty: weft_ir::DisplayType(ty, structs).to_string(),
        parts,
    })
}
