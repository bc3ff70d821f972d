//! The reference interpreter: runs a kernel of a [`Module`] on host memory.
//!
//! It is the oracle every backend is tested against, so its semantics are
//! the specification: each [`InstKind`], [`UnaryOp`], [`BinaryOp`] and cast
//! behaves exactly as documented in [`crate::ir`], with Warp's semantics
//! where the IR docs defer to them (see `scalar` below for the details:
//! wrapping integers, truncating division, `fmin`/`fmax`, f16 arithmetic in
//! f32 rounded after each operation, transcendental functions from the host
//! libm through Rust's `f32`/`f64` methods, computed in the operand's
//! precision).
//!
//! # Data model
//!
//! [`run_kernel`] first lowers the kernel and every func it calls to a
//! pre-decoded form (`compile`), checking everything execution relies on,
//! so a module that passes the verifier never makes the interpreter panic;
//! anything unexpected is an [`InterpError`]. Each value owns a fixed run of
//! 64-bit slots in its function's frame (one per scalar leaf; an array
//! handle is one slot holding the index of its kernel argument). Frames live
//! on one slot stack; a call pushes the callee's frame above the caller's.
//! Regions run recursively and report how they ended (yield, continue,
//! break, return). Threads `0..product(dim)` run one after another, in
//! order, on the same frame.
//!
//! Every array access is bounds checked: an index outside `0..shape` on any
//! axis returns [`InterpError::OutOfBounds`] before memory is touched, and a
//! byte offset outside the argument's buffer (bad strides) returns
//! [`InterpError::ArrayMemory`].
//!
//! # Output
//!
//! `Print` instructions are the kernel's own output: when
//! [`InterpOptions::print`] is set they are formatted (printf-style, see
//! `printf`) and written to stdout — the one place this library prints.
//! Write errors on stdout are ignored, as C's `printf` in a kernel would.

mod compile;
mod printf;
mod scalar;
mod special;
mod trace;

use crate::ir::*;
use crate::layout;
use crate::types::{DisplayType, Scalar, Type};
use compile::{contains_array, Code, Move, Op, Program, Span};
use cranelift_entity::EntityRef;
use std::io::Write;

pub use special::{erf, erf_f32, erfc, erfc_f32, erfinv, erfinv_f32};
pub use trace::{TraceEvent, TraceVar};

/// Limit on nested regions plus active calls (and on struct nesting); deeper
/// programs (e.g. runaway recursion) stop with [`InterpError::TooDeep`].
pub(crate) const MAX_DEPTH: u32 = 200;

/// Limit on the slots of all active frames together (256 MiB).
const MAX_STACK_SLOTS: usize = 1 << 25;

/// One kernel argument as the interpreter sees it.
#[derive(Debug)]
pub enum ArgValue<'a> {
    /// An array in host memory: raw bytes in the element's C layout
    /// ([`crate::layout`]), shape (unused axes 1), byte strides per axis.
    Array {
        data: &'a mut [u8],
        shape: [i32; 4],
        strides: [i64; 4],
    },
    /// A scalar/vector/matrix/struct by value, its bytes in data layout.
    Value(Vec<u8>),
}

/// Options of [`run_kernel`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InterpOptions {
    /// Whether `Print` instructions write to stdout.
    pub print: bool,
    /// A wall-clock limit: past it, no further thread starts and a running
    /// one stops at its next loop back-edge ([`InterpError::Timeout`]).
    pub deadline: Option<std::time::Instant>,
}

/// Loop back-edges and threads between two reads of the clock when a
/// deadline is set.
const POLL_EVERY: u32 = 1024;

/// Why a kernel could not run to completion.
#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum InterpError {
    /// An array index outside `0..shape` (memory was not touched).
    #[error("kernel `{kernel}`: index {index} is out of bounds for axis {axis} with size {shape} (line {}, column {})", loc.line, loc.col)]
    OutOfBounds {
        kernel: String,
        loc: Loc,
        axis: u32,
        index: i64,
        shape: i32,
    },
    /// Integer division or remainder by zero in bounds-checked code (an
    /// [`InstKind::Trap`]).
    #[error("kernel `{kernel}`: integer division by zero (line {}, column {})", loc.line, loc.col)]
    DivByZero { kernel: String, loc: Loc },
    /// An in-bounds index whose byte offset falls outside the argument's
    /// buffer: the strides or buffer length passed do not match the shape.
    #[error("kernel `{kernel}`: array argument `{param}` accessed at byte offset {offset}, outside its {len}-byte buffer (line {}, column {}); its strides or length do not match its shape", loc.line, loc.col)]
    ArrayMemory {
        kernel: String,
        param: String,
        loc: Loc,
        offset: i128,
        len: usize,
    },
    /// The function id does not exist or is not a kernel.
    #[error("{what} is not a kernel of this module")]
    NotAKernel { what: String },
    #[error("kernel `{kernel}` takes {expected} arguments, got {got}")]
    ArgCount {
        kernel: String,
        expected: usize,
        got: usize,
    },
    /// An argument does not fit its parameter (kind or byte size).
    #[error("kernel `{kernel}`: argument `{param}`: {problem}")]
    BadArg {
        kernel: String,
        param: String,
        problem: String,
    },
    #[error("bad launch dimensions {dim:?}: {problem}")]
    BadDim { dim: Vec<i32>, problem: String },
    /// A construct the interpreter does not define (e.g. `sin` of an int).
    #[error("`{func}` (line {}, column {}): unsupported: {what}", loc.line, loc.col)]
    Unsupported {
        func: String,
        loc: Loc,
        what: String,
    },
    /// IR that breaks an invariant of the verifier.
    #[error("`{func}` (line {}, column {}): malformed IR: {what}", loc.line, loc.col)]
    Malformed {
        func: String,
        loc: Loc,
        what: String,
    },
    /// The launch ran past [`InterpOptions::deadline`] and was stopped (the
    /// threads before the running one have run).
    #[error("kernel `{kernel}` ran past its deadline and was stopped")]
    Timeout { kernel: String },
    /// Calls and control flow nested deeper than the interpreter allows.
    #[error("kernel `{kernel}`: calls and control flow nested deeper than {limit}, or call frames beyond the interpreter's stack (line {}, column {}); is there recursion?", loc.line, loc.col)]
    TooDeep {
        kernel: String,
        loc: Loc,
        limit: u32,
    },
}

type Result<T> = std::result::Result<T, InterpError>;

/// How a region ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Yield,
    Continue,
    Break,
    /// The returned values are in `Machine::ret`.
    Return,
}

/// Mutable state of one launch.
struct Machine<'s, 'a> {
    m: &'s Module,
    kernel: FuncId,
    args: &'s mut [ArgValue<'a>],
    stack: Vec<u64>,
    scratch: Vec<u64>,
    ret: Vec<u64>,
    dim: [i32; 4],
    tid: i32,
    depth: u32,
    print: bool,
    /// [`InterpOptions::deadline`], and the polls since the last clock read.
    deadline: Option<std::time::Instant>,
    polls: u32,
    /// The statement trace, when one is being recorded.
    trace: Option<trace::Tracer>,
}

/// Runs every thread `0..product(dim)` of kernel `kernel`, in order.
///
/// `args` has one entry per kernel parameter: arrays as
/// [`ArgValue::Array`], everything else as [`ArgValue::Value`] bytes.
/// Arrays are read and written in place. On error, threads before the
/// failing one have run and their writes remain.
pub fn run_kernel(
    m: &Module,
    kernel: FuncId,
    dim: &[i32],
    args: &mut [ArgValue],
    opts: &InterpOptions,
) -> Result<()> {
    launch(m, kernel, dim, args, opts, None).map(drop)
}

/// [`run_kernel`] up to thread `tid` (a linear thread index; the threads
/// after it are not run), recording the statement trace of `tid`: every
/// statement it starts, with the source variables in scope (see `trace`
/// for the rules). The debugger's oracle.
pub fn trace_thread(
    m: &Module,
    kernel: FuncId,
    dim: &[i32],
    args: &mut [ArgValue],
    opts: &InterpOptions,
    tid: i32,
) -> Result<Vec<TraceEvent>> {
    launch(m, kernel, dim, args, opts, Some(tid))
}

fn launch(
    m: &Module,
    kernel: FuncId,
    dim: &[i32],
    args: &mut [ArgValue],
    opts: &InterpOptions,
    trace_tid: Option<i32>,
) -> Result<Vec<TraceEvent>> {
    let Some(kf) = m.funcs.get(kernel) else {
        return Err(InterpError::NotAKernel {
            what: format!("{kernel}"),
        });
    };
    if kf.kind != FuncKind::Kernel {
        return Err(InterpError::NotAKernel {
            what: format!("`{}`", kf.name),
        });
    }
    let bad_dim = |problem: &str| InterpError::BadDim {
        dim: dim.to_vec(),
        problem: problem.to_string(),
    };
    if dim.is_empty() || dim.len() > 4 {
        return Err(bad_dim("a launch has 1 to 4 dimensions"));
    }
    if dim.iter().any(|&d| d < 0) {
        return Err(bad_dim("dimensions must not be negative"));
    }
    let total = dim.iter().try_fold(1i64, |acc, &d| {
        let p = acc * d as i64;
        (p <= i32::MAX as i64).then_some(p)
    });
    let Some(total) = total else {
        return Err(bad_dim("more than 2^31 - 1 threads"));
    };
    let mut dims = [1i32; 4];
    dims[..dim.len()].copy_from_slice(dim);
    if args.len() != kf.params.len() {
        return Err(InterpError::ArgCount {
            kernel: kf.name.clone(),
            expected: kf.params.len(),
            got: args.len(),
        });
    }
    let prog = Program::new(m, kernel, false)?;
    // The traced thread runs a program with the trace's ops; the others
    // the plain one (the frames' slots are the same in both).
    let traced = match trace_tid {
        Some(_) => Some(Program::new(m, kernel, true)?),
        None => None,
    };
    let mut mach = Machine {
        m,
        kernel,
        args,
        stack: Vec::new(),
        scratch: Vec::new(),
        ret: Vec::new(),
        dim: dims,
        tid: 0,
        depth: 0,
        print: opts.print,
        deadline: opts.deadline,
        polls: 0,
        trace: trace_tid.map(trace::Tracer::new),
    };
    let code = prog.code(kernel)?;
    mach.stack.resize(code.n_slots as usize, 0);
    mach.bind_args(code)?;
    let last = trace_tid.map_or(total, |t| (t as i64 + 1).clamp(0, total));
    for tid in 0..last as i32 {
        mach.tid = tid;
        mach.poll_deadline()?;
        mach.trace_thread_start(kernel);
        let (p, code) = match &traced {
            Some(t) if trace_tid == Some(tid) => (t, t.code(kernel)?),
            _ => (&prog, code),
        };
        match mach.run_region(p, code, code.body, 0)? {
            Flow::Return => {}
            _ => return Err(mach.malformed(kernel, "kernel body did not end in return")),
        }
    }
    Ok(mach.trace.map(|t| t.events).unwrap_or_default())
}

/// Copies `len` slots from `src` to `dst` (the runs do not overlap: they
/// belong to different values).
#[inline]
fn copy_slots(st: &mut [u64], src: usize, dst: usize, len: u32) {
    if len == 1 {
        st[dst] = st[src];
    } else {
        for k in 0..len as usize {
            st[dst + k] = st[src + k];
        }
    }
}

impl Program {
    fn code(&self, f: FuncId) -> Result<&Code> {
        self.codes
            .get(f.index())
            .and_then(|c| c.as_ref())
            .ok_or_else(|| InterpError::Malformed {
                func: format!("{f}"),
                loc: Loc::NONE,
                what: "function was not lowered".into(),
            })
    }
}

impl Machine<'_, '_> {
    /// With a deadline: every [`POLL_EVERY`]th call reads the clock, and
    /// past the deadline the launch stops.
    fn poll_deadline(&mut self) -> Result<()> {
        let Some(d) = self.deadline else {
            return Ok(());
        };
        self.polls = self.polls.wrapping_add(1);
        if self.polls.is_multiple_of(POLL_EVERY) && std::time::Instant::now() >= d {
            return Err(InterpError::Timeout {
                kernel: self.m.funcs[self.kernel].name.clone(),
            });
        }
        Ok(())
    }

    fn kernel_name(&self) -> String {
        self.m.funcs[self.kernel].name.clone()
    }

    fn malformed(&self, f: FuncId, what: &str) -> InterpError {
        InterpError::Malformed {
            func: self
                .m
                .funcs
                .get(f)
                .map_or_else(|| format!("{f}"), |f| f.name.clone()),
            loc: Loc::NONE,
            what: what.into(),
        }
    }

    /// Checks the arguments against the kernel's params and stores them in
    /// the kernel frame.
    fn bind_args(&mut self, code: &Code) -> Result<()> {
        let kname = self.kernel_name();
        let structs = &self.m.structs;
        for (i, (&(slot, _), &ty)) in code.params.iter().zip(&code.param_types).enumerate() {
            let pname = self.m.funcs[self.kernel].params[i].name.clone();
            let bad = |problem: String| InterpError::BadArg {
                kernel: kname.clone(),
                param: pname.clone(),
                problem,
            };
            let tyname = DisplayType(ty, structs).to_string();
            match (&self.args[i], ty) {
                (ArgValue::Array { shape, .. }, Type::Array(at)) => {
                    let nd = (at.ndim as usize).min(4);
                    if shape[..nd].iter().any(|&s| s < 0) {
                        return Err(bad(format!("negative shape {shape:?}")));
                    }
                    self.stack[slot as usize] = i as u64;
                }
                (ArgValue::Array { .. }, _) => {
                    return Err(bad(format!(
                        "an array was passed for a parameter of type {tyname}"
                    )))
                }
                (ArgValue::Value(_), Type::Array(_)) => {
                    return Err(bad(format!(
                        "a value was passed for a parameter of type {tyname}"
                    )))
                }
                (ArgValue::Value(bytes), _) => {
                    if contains_array(ty, structs, 0) {
                        return Err(bad(format!("by-value parameters of type {tyname} (holding arrays) are not supported")));
                    }
                    let size = layout::size_of(ty, structs) as usize;
                    if bytes.len() != size {
                        return Err(bad(format!(
                            "{} bytes were passed for a {tyname}, which takes {size}",
                            bytes.len()
                        )));
                    }
                    for (k, leaf) in layout::leaves(ty, structs).iter().enumerate() {
                        self.stack[slot as usize + k] =
                            scalar::read(leaf.scalar, bytes, leaf.offset as usize);
                    }
                }
            }
        }
        Ok(())
    }

    #[inline]
    fn copy(&mut self, base: usize, mv: &Move) {
        copy_slots(
            &mut self.stack,
            base + mv.src as usize,
            base + mv.dst as usize,
            mv.len,
        );
    }

    fn enter(&mut self, loc: Loc) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth = 0;
            return Err(InterpError::TooDeep {
                kernel: self.kernel_name(),
                loc,
                limit: MAX_DEPTH,
            });
        }
        Ok(())
    }

    /// Runs region `r` of `code` with the frame at `base`.
    fn run_region(&mut self, p: &Program, code: &Code, r: u32, base: usize) -> Result<Flow> {
        if self.trace.is_some() {
            let mark = self.trace_mark();
            let flow = self.run_ops(p, code, r, base);
            self.trace_leave(mark);
            return flow;
        }
        self.run_ops(p, code, r, base)
    }

    fn run_ops(&mut self, p: &Program, code: &Code, r: u32, base: usize) -> Result<Flow> {
        let ops = &code.regions[r as usize];
        for op in ops {
            match op {
                Op::If {
                    cond,
                    then_r,
                    else_r,
                } => {
                    let c = self.stack[base + *cond as usize] != 0;
                    self.enter(Loc::NONE)?;
                    let flow = self.run_region(p, code, if c { *then_r } else { *else_r }, base)?;
                    self.depth -= 1;
                    if flow != Flow::Yield {
                        return Ok(flow);
                    }
                }
                Op::Loop { init, body, loc } => {
                    for mv in init.iter() {
                        self.copy(base, mv);
                    }
                    self.enter(*loc)?;
                    loop {
                        match self.run_region(p, code, *body, base)? {
                            Flow::Continue if self.trace.is_some() => self.trace_iteration(),
                            Flow::Continue if self.deadline.is_some() => self.poll_deadline()?,
                            Flow::Continue => {}
                            Flow::Break => break,
                            Flow::Return => {
                                self.depth -= 1;
                                return Ok(Flow::Return);
                            }
                            Flow::Yield => {
                                return Err(self.malformed(self.kernel, "yield out of a loop body"))
                            }
                        }
                    }
                    self.depth -= 1;
                }
                Op::Call {
                    func,
                    args,
                    results,
                    loc,
                } => {
                    self.call(p, code, *func, args, results, *loc, base)?;
                }
                Op::Yield(moves) => {
                    for mv in moves.iter() {
                        self.copy(base, mv);
                    }
                    return Ok(Flow::Yield);
                }
                Op::Break(moves) => {
                    for mv in moves.iter() {
                        self.copy(base, mv);
                    }
                    return Ok(Flow::Break);
                }
                Op::Continue(moves) => {
                    // Parallel assignment: sources may be the targets.
                    self.scratch.clear();
                    for mv in moves.iter() {
                        let s = base + mv.src as usize;
                        self.scratch
                            .extend_from_slice(&self.stack[s..s + mv.len as usize]);
                    }
                    let mut k = 0;
                    for mv in moves.iter() {
                        let d = base + mv.dst as usize;
                        let n = mv.len as usize;
                        self.stack[d..d + n].copy_from_slice(&self.scratch[k..k + n]);
                        k += n;
                    }
                    return Ok(Flow::Continue);
                }
                Op::Return(spans) => {
                    self.ret.clear();
                    for &(s, n) in spans.iter() {
                        let s = base + s as usize;
                        self.ret.extend_from_slice(&self.stack[s..s + n as usize]);
                    }
                    return Ok(Flow::Return);
                }
                Op::Trap {
                    kind,
                    loc,
                    operands,
                } => {
                    let kernel = self.kernel_name();
                    let operand = |k: usize| {
                        operands
                            .get(k)
                            .map_or(0, |&s| self.stack[base + s as usize] as i64)
                    };
                    return Err(match kind {
                        TrapKind::OutOfBounds { axis } => InterpError::OutOfBounds {
                            kernel,
                            loc: *loc,
                            axis: *axis as u32,
                            index: operand(0),
                            shape: operand(1) as i32,
                        },
                        TrapKind::DivByZero => InterpError::DivByZero { kernel, loc: *loc },
                    });
                }
                Op::Load { .. }
                | Op::Store { .. }
                | Op::Atomic { .. }
                | Op::AtomicCas { .. }
                | Op::ArrayShape { .. } => self.memory(op, base)?,
                Op::At(loc) => self.trace_at(*loc, base),
                Op::Bind(b) => self.trace_bind(b),
                _ => self.pure(op, base),
            }
        }
        Err(self.malformed(self.kernel, "region without terminator"))
    }

    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        p: &Program,
        code: &Code,
        func: FuncId,
        args: &[Span],
        results: &[Span],
        loc: Loc,
        base: usize,
    ) -> Result<()> {
        let callee = p.code(func)?;
        let nb = base + code.n_slots as usize;
        let need = nb + callee.n_slots as usize;
        if need > MAX_STACK_SLOTS {
            return Err(InterpError::TooDeep {
                kernel: self.kernel_name(),
                loc,
                limit: MAX_DEPTH,
            });
        }
        if self.stack.len() < need {
            self.stack.resize(need, 0);
        }
        for (&(src, len), &(dst, _)) in args.iter().zip(&callee.params) {
            let s = base + src as usize;
            self.stack
                .copy_within(s..s + len as usize, nb + dst as usize);
        }
        self.enter(loc)?;
        if self.trace.is_some() {
            self.trace_call(Some(func));
        }
        let flow = self.run_region(p, callee, callee.body, nb);
        if self.trace.is_some() {
            self.trace_call(None);
        }
        let flow = flow?;
        self.depth -= 1;
        if flow != Flow::Return {
            return Err(self.malformed(func, "function body did not end in return"));
        }
        let mut k = 0;
        for &(dst, len) in results {
            let d = base + dst as usize;
            let n = len as usize;
            if let Some(src) = self.ret.get(k..k + n) {
                self.stack[d..d + n].copy_from_slice(src);
            }
            k += n;
        }
        Ok(())
    }

    /// Byte offset of an access in its array, after the bounds check.
    fn address(&self, acc: &compile::Access, base: usize) -> Result<(usize, usize)> {
        let ai = self.stack[base + acc.array as usize] as usize;
        let Some(ArgValue::Array {
            data,
            shape,
            strides,
        }) = self.args.get(ai)
        else {
            return Err(self.malformed(self.kernel, "array handle does not name an array argument"));
        };
        let mut off = acc.base as i128;
        for axis in 0..acc.indices.len() {
            let (slot, ty) = acc.indices[axis];
            let raw = self.stack[base + slot as usize];
            let index = if ty.is_signed_int() || raw <= i64::MAX as u64 {
                raw as i64
            } else {
                i64::MAX
            };
            if index < 0 || index >= shape[axis] as i64 {
                return Err(InterpError::OutOfBounds {
                    kernel: self.kernel_name(),
                    loc: acc.loc,
                    axis: axis as u32,
                    index,
                    shape: shape[axis],
                });
            }
            off += index as i128 * strides[axis] as i128;
        }
        if off < 0 || off + acc.size as i128 > data.len() as i128 {
            return Err(InterpError::ArrayMemory {
                kernel: self.kernel_name(),
                param: self.m.funcs[self.kernel]
                    .params
                    .get(ai)
                    .map_or_else(String::new, |p| p.name.clone()),
                loc: acc.loc,
                offset: off,
                len: data.len(),
            });
        }
        Ok((ai, off as usize))
    }

    /// Runs an instruction that neither branches nor touches memory (and
    /// cannot fail).
    #[inline(never)]
    fn pure(&mut self, op: &Op, base: usize) {
        let st = &mut self.stack;
        match op {
            Op::Const { dst, bits } => st[base + *dst as usize] = *bits,
            Op::Unary { op, ty, dst, a } => {
                st[base + *dst as usize] = scalar::unary(*op, *ty, st[base + *a as usize]);
            }
            Op::Binary { op, ty, dst, a, b } => {
                let x = st[base + *a as usize];
                let y = st[base + *b as usize];
                st[base + *dst as usize] = scalar::binary(*op, *ty, x, y);
            }
            Op::Fma { ty, dst, a, b, c } => {
                let (x, y, z) = (
                    st[base + *a as usize],
                    st[base + *b as usize],
                    st[base + *c as usize],
                );
                st[base + *dst as usize] = scalar::fma(*ty, x, y, z);
            }
            Op::Cast { from, to, dst, a } => {
                st[base + *dst as usize] = scalar::cast(*from, *to, st[base + *a as usize]);
            }
            Op::Bitcast { from, to, dst, a } => {
                st[base + *dst as usize] = scalar::bitcast(*from, *to, st[base + *a as usize]);
            }
            Op::Select { dst, c, a, b, len } => {
                let src = if st[base + *c as usize] != 0 { *a } else { *b };
                copy_slots(st, base + src as usize, base + *dst as usize, *len);
            }
            Op::Copy(mv) => copy_slots(st, base + mv.src as usize, base + mv.dst as usize, mv.len),
            Op::Make { dst, parts } => {
                let mut d = base + *dst as usize;
                for &(s, n) in parts.iter() {
                    copy_slots(st, base + s as usize, d, n);
                    d += n as usize;
                }
            }
            Op::Insert {
                dst,
                agg,
                len,
                off,
                v,
                vlen,
            } => {
                let d = base + *dst as usize;
                copy_slots(st, base + *agg as usize, d, *len);
                copy_slots(st, base + *v as usize, d + *off as usize, *vlen);
            }
            Op::ThreadId { dst } => st[base + *dst as usize] = self.tid as i64 as u64,
            Op::LaunchDim { dst, axis } => {
                st[base + *dst as usize] = self.dim[*axis as usize] as i64 as u64;
            }
            Op::Print { fmt, args } if self.print => {
                let vals: Vec<_> = args
                    .iter()
                    .map(|&(slot, s)| (s, st[base + slot as usize]))
                    .collect();
                let text = printf::format(fmt, &vals);
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            _ => {}
        }
    }

    /// Runs an instruction that reads or writes an array.
    fn memory(&mut self, op: &Op, base: usize) -> Result<()> {
        match op {
            Op::ArrayShape { dst, arr, axis } => {
                let ai = self.stack[base + *arr as usize] as usize;
                let Some(ArgValue::Array { shape, .. }) = self.args.get(ai) else {
                    return Err(
                        self.malformed(self.kernel, "array handle does not name an array argument")
                    );
                };
                self.stack[base + *dst as usize] = shape[*axis as usize] as i64 as u64;
            }
            Op::Load { dst, acc } => {
                let (ai, off) = self.address(acc, base)?;
                if let ArgValue::Array { data, .. } = &self.args[ai] {
                    let d = base + *dst as usize;
                    for (k, &(o, s)) in acc.leaves.iter().enumerate() {
                        self.stack[d + k] = scalar::read(s, data, off + o as usize);
                    }
                }
            }
            Op::Store { src, acc } => {
                let (ai, off) = self.address(acc, base)?;
                if let ArgValue::Array { data, .. } = &mut self.args[ai] {
                    let sv = base + *src as usize;
                    for (k, &(o, s)) in acc.leaves.iter().enumerate() {
                        scalar::write(s, data, off + o as usize, self.stack[sv + k]);
                    }
                }
            }
            Op::Atomic { op, dst, src, acc } => {
                let (ai, off) = self.address(acc, base)?;
                if let ArgValue::Array { data, .. } = &mut self.args[ai] {
                    let sv = base + *src as usize;
                    let d = base + *dst as usize;
                    for (k, &(o, s)) in acc.leaves.iter().enumerate() {
                        let at = off + o as usize;
                        let old = scalar::read(s, data, at);
                        let new = scalar::atomic(*op, s, old, self.stack[sv + k]);
                        scalar::write(s, data, at, new);
                        self.stack[d + k] = old;
                    }
                }
            }
            Op::AtomicCas {
                dst,
                compare,
                src,
                acc,
            } => {
                let (ai, off) = self.address(acc, base)?;
                if let ArgValue::Array { data, .. } = &mut self.args[ai] {
                    let (o, s) = acc.leaves[0];
                    let at = off + o as usize;
                    let old = scalar::read(s, data, at);
                    // Slots hold a float's bits in its own width: this
                    // compares bits.
                    if old == self.stack[base + *compare as usize] {
                        scalar::write(s, data, at, self.stack[base + *src as usize]);
                    }
                    self.stack[base + *dst as usize] = old;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Converts a constant to the interpreter's slot encoding.
fn const_bits(c: Const) -> u64 {
    if c.ty.is_float() {
        scalar::float_from_f64(c.ty, f64::from_bits(c.bits))
    } else {
        scalar::wrap(c.ty, c.bits)
    }
}

/// Converts a slot value of type `ty` back to a constant.
fn bits_const(ty: Scalar, v: u64) -> Const {
    if ty.is_float() {
        Const::float(ty, scalar::float_to_f64(ty, v))
    } else {
        Const { ty, bits: v }
    }
}

/// `op x` on a constant, exactly as the interpreter computes it (for
/// constant folding that agrees with the oracle); `None` where the
/// interpreter does not define the operation.
pub fn eval_unary(op: UnaryOp, x: Const) -> Option<Const> {
    if !scalar::unary_supported(op, x.ty) {
        return None;
    }
    let rt = match op {
        UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite => Scalar::Bool,
        _ => x.ty,
    };
    Some(bits_const(rt, scalar::unary(op, x.ty, const_bits(x))))
}

/// `a op b` on constants of one type, exactly as the interpreter computes
/// it; `None` for mixed types or an operation it does not define.
pub fn eval_binary(op: BinaryOp, a: Const, b: Const) -> Option<Const> {
    if a.ty != b.ty || !scalar::binary_supported(op, a.ty) {
        return None;
    }
    let rt = if op.is_comparison() {
        Scalar::Bool
    } else {
        a.ty
    };
    Some(bits_const(
        rt,
        scalar::binary(op, a.ty, const_bits(a), const_bits(b)),
    ))
}

/// The bits of constant `c` as a value of its type holds them in memory
/// (the low `c.ty.size()` bytes; [`Const::bits`] of a float is its `f64`).
pub fn memory_bits(c: Const) -> u64 {
    const_bits(c)
}

/// [`eval_binary`] on the bits of two values of type `s` (the low
/// `s.size()` bytes of each), for callers that hold raw memory; `None` for
/// an operation the interpreter does not define on `s` or a comparison.
pub fn eval_binary_bits(op: BinaryOp, s: Scalar, a: u64, b: u64) -> Option<u64> {
    (scalar::binary_supported(op, s) && !op.is_comparison()).then(|| scalar::binary(op, s, a, b))
}

/// `fma(a, b, c)` on float constants of one type; `None` otherwise.
pub fn eval_fma(a: Const, b: Const, c: Const) -> Option<Const> {
    if a.ty != b.ty || a.ty != c.ty || !a.ty.is_float() {
        return None;
    }
    let r = scalar::fma(a.ty, const_bits(a), const_bits(b), const_bits(c));
    Some(bits_const(a.ty, r))
}

/// The cast of a constant, as [`InstKind::Cast`] defines it.
pub fn eval_cast(x: Const, to: Scalar) -> Const {
    bits_const(to, scalar::cast(x.ty, to, const_bits(x)))
}

/// The bitcast of a constant; `None` when the sizes differ.
pub fn eval_bitcast(x: Const, to: Scalar) -> Option<Const> {
    (x.ty.size() == to.size()).then(|| bits_const(to, scalar::bitcast(x.ty, to, const_bits(x))))
}

/// Formats `fmt` printf-style with scalar arguments, exactly as the
/// interpreter prints (see the `printf` module docs for what is supported).
pub fn format_printf(fmt: &str, args: &[Const]) -> String {
    let vals: Vec<(Scalar, u64)> = args.iter().map(|&c| (c.ty, const_bits(c))).collect();
    printf::format(fmt, &vals)
}
