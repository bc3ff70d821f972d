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

mod expr;

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
    #[error("no frame {0} here")]
    NoFrame(usize),
}

/// A debugging session over one thread of one launch (module docs).
#[derive(Debug)]
pub struct Debugger {
    tid: usize,
    stops: Vec<Stop>,
    /// Index of the current stop; `None` before the first, `stops.len()`
    /// when the thread has finished.
    pos: Option<usize>,
    breakpoints: Vec<BreakpointInfo>,
    next_id: u32,
    /// Watched expressions.
    watches: Vec<String>,
    /// The launch's arrays: name, element type, contents before the launch
    /// (AoS) when the kernel never writes the array, else `None`.
    arrays: Vec<(String, Type, Option<Vec<u8>>)>,
    structs: StructTable,
}

/// A breakpoint as the debugger keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct BreakpointInfo {
    /// Its number (from 1, never reused).
    pub id: u32,
    pub at: Breakpoint,
    /// Stops only where this expression ([`Debugger::eval`]) is true.
    pub condition: Option<String>,
    /// Deleted at its first stop (`tbreak`).
    pub temporary: bool,
    /// How many times it stopped the thread.
    pub hits: u32,
}

/// A scope for [`expr::eval`]: a stop's variables and the arrays.
struct At<'a> {
    stop: &'a Stop,
    arrays: &'a [(String, Type, Option<Vec<u8>>)],
    structs: &'a StructTable,
}

impl expr::Scope for At<'_> {
    fn var(&self, name: &str) -> Option<DebugValue> {
        self.stop.local(name).cloned()
    }
    fn element(&self, name: &str, index: &[i64]) -> Option<Result<DebugValue, String>> {
        let (_, ty, data) = self.arrays.iter().find(|(n, _, _)| n == name)?;
        if index.is_empty() {
            return Some(Err(String::new()));
        }
        let Some(data) = data else {
            return Some(Err(format!(
                "`{name}` is written by the kernel: its contents during the launch are not recorded"
            )));
        };
        let Type::Array(at) = ty else {
            return Some(Err(format!("`{name}` is not an array")));
        };
        Some(element(*at, data, index, self.structs))
    }
}

/// Element `index` of an array of type `at` (shape in `data`'s header is
/// not kept: `data` is `shape` then the elements, see [`array_image`]).
fn element(
    at: weft_ir::ArrayType,
    data: &[u8],
    index: &[i64],
    structs: &StructTable,
) -> Result<DebugValue, String> {
    let elem = Type::from(at.elem);
    let nd = at.ndim as usize;
    if index.len() != nd {
        return Err(format!(
            "{} indices into an array of {nd} dimensions",
            index.len()
        ));
    }
    let shape: Vec<i64> = data
        .chunks_exact(8)
        .take(nd)
        .map(|c| i64::from_ne_bytes(c.try_into().unwrap_or_default()))
        .collect();
    let mut flat = 0i64;
    for (axis, (&i, &n)) in index.iter().zip(&shape).enumerate() {
        if i < 0 || i >= n {
            return Err(format!(
                "index {i} out of bounds for axis {axis} of size {n}"
            ));
        }
        flat = flat * n + i;
    }
    let size = weft_ir::layout::size_of(elem, structs) as usize;
    let base = 8 * nd + flat as usize * size;
    let bytes = data
        .get(base..base + size)
        .ok_or_else(|| "element outside the array".to_string())?;
    let mut leaves = Vec::new();
    for l in weft_ir::layout::leaves(elem, structs) {
        let o = l.offset as usize;
        let b = |n: usize| -> Result<u64, String> {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(bytes.get(o..o + n).ok_or("short element")?);
            Ok(u64::from_ne_bytes(w))
        };
        leaves.push(match l.scalar {
            Scalar::F16 => weft_ir::f16::f16_to_f64(b(2)? as u16).to_bits(),
            Scalar::BF16 => (weft_ir::f16::bf16_to_f32(b(2)? as u16) as f64).to_bits(),
            Scalar::F32 => (f32::from_bits(b(4)? as u32) as f64).to_bits(),
            Scalar::F64 => b(8)?,
            Scalar::Bool => (b(1)? != 0) as u64,
            Scalar::I8 => b(1)? as i8 as i64 as u64,
            Scalar::I16 => b(2)? as i16 as i64 as u64,
            Scalar::I32 => b(4)? as i32 as i64 as u64,
            Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::I64 | Scalar::U64 => {
                b(l.scalar.size() as usize)?
            }
        });
    }
    decode(elem, structs, &mut leaves.into_iter()).ok_or_else(|| "undecodable element".into())
}

/// The image [`element`] reads: the shape (`i64`s), then the elements in C
/// order and layout.
fn array_image(a: &crate::Array) -> Vec<u8> {
    let mut out: Vec<u8> = a
        .shape()
        .iter()
        .flat_map(|&n| (n as i64).to_ne_bytes())
        .collect();
    out.extend(a.to_bytes());
    out
}

/// Whether `f` stores to (or does atomics on) its parameter `k`.
fn writes_param(f: &weft_ir::Function, k: usize) -> bool {
    let Some(&pv) = f.param_values().get(k) else {
        return true;
    };
    f.insts.values().any(|d| match &d.kind {
        weft_ir::ir::InstKind::Store(acc, _) | weft_ir::ir::InstKind::Atomic(_, acc, _) => {
            acc.array == pv
        }
        // An array passed to a func may be written there.
        weft_ir::ir::InstKind::Call(_, args) => args.contains(&pv),
        _ => false,
    })
}

impl Debugger {
    /// Compiles `source` for stepping: the O0 pipeline (no pass: funcs stay
    /// calls, no variable is optimized away).
    pub fn compile(file_name: &str, source: &str) -> Result<Module, Error> {
        Self::compile_with_layout(file_name, source, ArrayLayout::Aos)
    }

    /// [`Debugger::compile`] with every eligible array parameter in
    /// `layout` (`weft debug --layout`); a kernel's SoA arrays must be
    /// launched in [`ArrayLayout::Soa`] ([`crate::Array::to_layout`]).
    /// The pipeline is O0 (only the `soa` pass runs), so no variable is
    /// optimized away and the values shown are the same in either layout.
    pub fn compile_with_layout(
        file_name: &str,
        source: &str,
        layout: ArrayLayout,
    ) -> Result<Module, Error> {
        Compiler::with_options(CompileOptions {
            opt: false,
            opt_level: weft_ir::OptLevel::O0,
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
        let mut arrays = Vec::new();
        if let Some(f) = m.func_by_name(kernel).map(|k| &m.funcs[k]) {
            for (k, (p, a)) in f.params.iter().zip(args).enumerate() {
                if let Arg::Array(a) = a {
                    let data = (!writes_param(f, k)).then(|| array_image(a));
                    arrays.push((p.name.clone(), p.ty, data));
                }
            }
        }
        let events = weft_runtime::debug::record_launch(m, kernel, dim, args, tid)?;
        Ok(Debugger {
            tid,
            stops: stops_of(m, &events),
            pos: None,
            breakpoints: Vec::new(),
            next_id: 1,
            watches: Vec::new(),
            arrays,
            structs: m.structs.clone(),
        })
    }

    /// The oracle of [`Debugger::launch`]: the same launch on the
    /// interpreter (threads `0..=tid`: those after `tid` cannot change what
    /// it sees), and the stops of thread `tid` its statement trace gives
    /// ([`weft_ir::interp::trace_thread`]), in order. A debugger's stops
    /// must be these. (The interpreter does not keep the line each caller
    /// frame is at: a stop's `stack` has the frames' functions, and lines
    /// from the trace's stops in them.)
    pub fn oracle(
        module: &Module,
        kernel: &str,
        dim: &[usize],
        args: &[Arg<'_>],
        tid: usize,
    ) -> Result<Vec<Stop>, Error> {
        let m = module.ir();
        let trace = weft_runtime::debug::trace_launch(m, kernel, dim, args, tid)?;
        let file_of = |i: u32| m.files.get(i as usize).cloned().unwrap_or_default();
        let mut stack: Vec<Frame> = Vec::new();
        let mut out = Vec::with_capacity(trace.len());
        for ev in &trace {
            let Some(f) = m.funcs.get(ev.func) else {
                continue;
            };
            let depth = ev.depth as usize;
            stack.truncate(depth + 1);
            let frame = Frame {
                func: f.name.clone(),
                file: file_of(ev.loc.file),
                line: ev.loc.line,
            };
            match stack.get_mut(depth) {
                Some(top) => *top = frame,
                None => stack.push(frame),
            }
            let locals = ev
                .vars
                .iter()
                .filter_map(|v| {
                    let mut it = v.leaves.iter().map(|c| c.bits);
                    Some((v.name.clone(), decode(v.ty, &m.structs, &mut it)?))
                })
                .collect();
            out.push(Stop {
                func: f.name.clone(),
                file: file_of(ev.loc.file),
                line: ev.loc.line,
                col: ev.loc.col,
                depth,
                stack: stack.iter().rev().cloned().collect(),
                locals,
                func_entry: ev.entry,
            });
        }
        Ok(out)
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
    /// The index of the current stop in [`Debugger::stops`] (`None`
    /// before the first step; `stops().len()` after the end).
    pub fn stop_index(&self) -> Option<usize> {
        self.pos
    }
    /// Back to before the first statement (breakpoints and watches stay).
    pub fn reset(&mut self) {
        self.pos = None;
    }
    /// Adds a breakpoint; returns its number.
    pub fn add_breakpoint(&mut self, b: Breakpoint) -> u32 {
        self.add_breakpoint_with(b, None, false)
    }
    /// Adds a breakpoint that stops only where `condition` is true
    /// ([`Debugger::eval`]; a condition that cannot be evaluated at a stop,
    /// e.g. over a variable not yet assigned, is false there), and that
    /// is deleted at its first stop if `temporary`; returns its number.
    pub fn add_breakpoint_with(
        &mut self,
        b: Breakpoint,
        condition: Option<String>,
        temporary: bool,
    ) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        self.breakpoints.push(BreakpointInfo {
            id,
            at: b,
            condition,
            temporary,
            hits: 0,
        });
        id
    }
    /// Deletes breakpoint `id`; false if there is none.
    pub fn delete_breakpoint(&mut self, id: u32) -> bool {
        let n = self.breakpoints.len();
        self.breakpoints.retain(|b| b.id != id);
        self.breakpoints.len() < n
    }
    /// Removes every breakpoint.
    pub fn clear_breakpoints(&mut self) {
        self.breakpoints.clear();
    }
    pub fn breakpoints(&self) -> &[BreakpointInfo] {
        &self.breakpoints
    }
    /// Stops [`Debugger::cont`] whenever the value of `expr` (a variable,
    /// a component, an array element: [`Debugger::eval`]) changes.
    pub fn watch(&mut self, expr: &str) {
        self.watches.push(expr.to_string());
    }
    /// Evaluates `expr` at stop `stop` (see [`Debugger::eval`]).
    fn eval_at(&self, stop: &Stop, expr: &str) -> Result<DebugValue, String> {
        expr::eval(
            expr,
            &At {
                stop,
                arrays: &self.arrays,
                structs: &self.structs,
            },
        )
    }
    /// Evaluates an expression of the kernel language at the current stop:
    /// variables, components (`d.x`, `m[1, 2]`), elements of arrays the
    /// kernel does not write (`pos[j].x`; an array it writes changes
    /// during the launch, which is not recorded), arithmetic and
    /// comparisons (`d * 2.0`, `j == 5`); see the `expr` module.
    pub fn eval(&self, expr: &str) -> Result<DebugValue, DebugError> {
        let stop = self.here()?;
        self.eval_at(stop, expr).map_err(|what| {
            if let Some(n) = what
                .strip_prefix("no variable `")
                .and_then(|w| w.strip_suffix("` here"))
            {
                DebugError::NoVariable(n.to_string())
            } else {
                DebugError::BadExpr {
                    expr: expr.to_string(),
                    what,
                }
            }
        })
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
    /// To the next breakpoint (whose condition holds) or watched change (or
    /// the end).
    pub fn cont(&mut self) -> Option<&Stop> {
        let start = self.next_index();
        let value = |d: &Debugger, s: &Stop, w: &str| d.eval_at(s, w).ok();
        let mut prev: Vec<Option<DebugValue>> = self
            .watches
            .iter()
            .map(|w| self.current().and_then(|s| value(self, s, w)))
            .collect();
        for i in start..self.stops.len() {
            let s = &self.stops[i];
            let hit = self.breakpoints.iter().position(|b| {
                b.at.hit(s)
                    && b.condition.as_ref().is_none_or(|c| {
                        self.eval_at(s, c)
                            .is_ok_and(|v| expr::truthy(&v).unwrap_or(false))
                    })
            });
            if let Some(k) = hit {
                self.breakpoints[k].hits += 1;
                if self.breakpoints[k].temporary {
                    self.breakpoints.remove(k);
                }
                self.pos = Some(i);
                return self.current();
            }
            let mut changed = false;
            for (k, w) in self.watches.iter().enumerate() {
                let now = value(self, s, w);
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
    /// The named variables of frame `frame` of the current stop's stack
    /// (0: the innermost, [`Debugger::locals`]; 1 its caller, …): a caller's
    /// variables are those of its last stop, the statement whose call is
    /// running (a func cannot change its caller's variables).
    pub fn frame_locals(&self, frame: usize) -> Result<&[(String, DebugValue)], DebugError> {
        let here = self.here()?;
        if frame == 0 {
            return Ok(&here.locals);
        }
        let Some(depth) = here.depth.checked_sub(frame) else {
            return Err(DebugError::NoFrame(frame));
        };
        let pos = self.pos.unwrap_or(0);
        match self.stops[..pos].iter().rev().find(|s| s.depth <= depth) {
            Some(s) if s.depth == depth => Ok(&s.locals),
            _ => Ok(&[]),
        }
    }
    /// The call stack at the current stop, innermost first.
    pub fn backtrace(&self) -> Result<&[Frame], DebugError> {
        Ok(&self.here()?.stack)
    }
    /// [`Debugger::eval`] (`name`, `name.field`, `name.x`, `name[i]`,
    /// `name[i, j]`, chains of them, and expressions over them).
    pub fn print(&self, expr: &str) -> Result<DebugValue, DebugError> {
        self.eval(expr)
    }
}

/// Builds the stops of a recorded thread: of its statement hooks, those
/// that start a statement by the rules of [`weft_ir::interp::trace_thread`]
/// (the frame's line changes, or a loop's next iteration starts).
fn stops_of(m: &weft_ir::Module, events: &[DebugEvent]) -> Vec<Stop> {
    let file_of = |i: u32| m.files.get(i as usize).cloned().unwrap_or_default();
    // Open frames, outermost first, with the line of each one's last stop.
    let mut frames: Vec<(Frame, u32)> = Vec::new();
    let mut out = Vec::new();
    let mut entered = false;
    for ev in events {
        let Some(f) = m.funcs.get(ev.func) else {
            continue;
        };
        let frame = || Frame {
            func: f.name.clone(),
            file: file_of(ev.loc.file),
            line: ev.loc.line,
        };
        match ev.kind {
            EventKind::Enter => {
                frames.push((frame(), 0));
                entered = true;
            }
            EventKind::Exit => {
                frames.pop();
            }
            EventKind::Back => {
                if let Some((_, last)) = frames.last_mut() {
                    *last = 0;
                }
            }
            EventKind::Stmt => {
                if frames.is_empty() {
                    // The kernel's frame (kernels have no entry hook).
                    frames.push((frame(), 0));
                    entered = true;
                }
                let Some((top, last)) = frames.last_mut() else {
                    continue;
                };
                if *last == ev.loc.line {
                    continue;
                }
                *last = ev.loc.line;
                top.line = ev.loc.line;
                top.file = file_of(ev.loc.file);
                let mut locals: Vec<(String, DebugValue)> = ev
                    .vars
                    .iter()
                    .filter_map(|(v, leaves)| {
                        let name = f.var_name(*v)?;
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
                    stack: frames.iter().rev().map(|(fr, _)| fr.clone()).collect(),
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
