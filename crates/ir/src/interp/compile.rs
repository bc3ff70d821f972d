//! Lowering of IR functions to the interpreter's pre-decoded form.
//!
//! Every value of a function gets a fixed run of 64-bit *slots* in its call
//! frame: one per scalar leaf of its type (in path order, which is also
//! memory order), one for an array handle (the index of the kernel argument
//! it refers to). Each instruction becomes an [`Op`] whose operands are slot
//! numbers, with component paths, memory offsets and the targets of
//! terminators resolved. Lowering checks every property execution relies on
//! (value and region references, operand and result types, terminator
//! placement and arity), so the executor never indexes out of range on a
//! module that lowered successfully.

use super::scalar::{atomic_supported, binary_supported, unary_supported};
use super::{InterpError, MAX_DEPTH};
use crate::ir::*;
use crate::layout;
use crate::types::{DisplayType, Scalar, StructTable, Type};
use cranelift_entity::EntityRef;

/// A run of slots: first slot and length.
pub(super) type Span = (u32, u32);

/// A copy of `len` slots from `src` to `dst` within one frame.
#[derive(Clone, Copy, Debug)]
pub(super) struct Move {
    pub src: u32,
    pub dst: u32,
    pub len: u32,
}

/// A resolved array access.
#[derive(Debug)]
pub(super) struct Access {
    /// Slot of the array handle.
    pub array: u32,
    /// Slot and type of each index.
    pub indices: Box<[(u32, Scalar)]>,
    /// Byte offset of the accessed component inside the element.
    pub base: u32,
    /// Byte size of the accessed component.
    pub size: u32,
    /// Scalar leaves of the component: byte offset from `base`, type. The
    /// `k`th leaf lives in slot `k` of the value read or written.
    pub leaves: Box<[(u32, Scalar)]>,
    pub loc: Loc,
}

#[derive(Debug)]
pub(super) enum Op {
    Const {
        dst: u32,
        bits: u64,
    },
    Unary {
        op: UnaryOp,
        ty: Scalar,
        dst: u32,
        a: u32,
    },
    Binary {
        op: BinaryOp,
        ty: Scalar,
        dst: u32,
        a: u32,
        b: u32,
    },
    Fma {
        ty: Scalar,
        dst: u32,
        a: u32,
        b: u32,
        c: u32,
    },
    Cast {
        from: Scalar,
        to: Scalar,
        dst: u32,
        a: u32,
    },
    Bitcast {
        from: Scalar,
        to: Scalar,
        dst: u32,
        a: u32,
    },
    Select {
        dst: u32,
        c: u32,
        a: u32,
        b: u32,
        len: u32,
    },
    /// Extract, and any plain copy.
    Copy(Move),
    Make {
        dst: u32,
        parts: Box<[Span]>,
    },
    /// `dst = agg` (`len` slots), then `dst[off..off+vlen] = v`.
    Insert {
        dst: u32,
        agg: u32,
        len: u32,
        off: u32,
        v: u32,
        vlen: u32,
    },
    ThreadId {
        dst: u32,
    },
    LaunchDim {
        dst: u32,
        axis: u8,
    },
    ArrayShape {
        dst: u32,
        arr: u32,
        axis: u8,
    },
    Load {
        dst: u32,
        acc: Box<Access>,
    },
    Store {
        src: u32,
        acc: Box<Access>,
    },
    Atomic {
        op: AtomicOp,
        dst: u32,
        src: u32,
        acc: Box<Access>,
    },
    /// Compare-and-swap on one scalar: bits compare.
    AtomicCas {
        dst: u32,
        compare: u32,
        src: u32,
        acc: Box<Access>,
    },
    Call {
        func: FuncId,
        args: Box<[Span]>,
        results: Box<[Span]>,
        loc: Loc,
    },
    Print {
        fmt: Box<str>,
        args: Box<[(u32, Scalar)]>,
    },
    If {
        cond: u32,
        then_r: u32,
        else_r: u32,
    },
    /// Moves the init values into the body params, then runs the body.
    Loop {
        init: Box<[Move]>,
        body: u32,
        loc: Loc,
    },
    /// Terminators: the moves to the `if`'s or loop's results (yield,
    /// break), to the loop body's params (continue, done through a scratch
    /// buffer since sources and targets may overlap), or the spans returned.
    Yield(Box<[Move]>),
    Break(Box<[Move]>),
    Continue(Box<[Move]>),
    Return(Box<[Span]>),
    /// Stops the launch with an error: the kind, its location and the
    /// operand slots (index and size for out-of-bounds).
    Trap {
        kind: TrapKind,
        loc: Loc,
        operands: Box<[u32]>,
    },
    /// Traced programs only ([`super::trace`]): about to run an instruction
    /// at this location.
    At(Loc),
    /// Traced programs only: these named values were just defined.
    Bind(Box<[Bind]>),
}

/// A source variable bound to a value (traced programs only).
#[derive(Debug)]
pub(super) struct Bind {
    pub value: Value,
    pub span: Span,
    pub ty: Type,
}

/// A lowered function.
#[derive(Debug)]
pub(super) struct Code {
    pub n_slots: u32,
    pub body: u32,
    /// Ops of each region, indexed by region number (unreachable regions
    /// stay empty).
    pub regions: Vec<Vec<Op>>,
    /// Slot spans of the function's params.
    pub params: Vec<Span>,
    /// Types of the params (for binding kernel arguments).
    pub param_types: Vec<Type>,
}

/// Lowered functions of a module, indexed by [`FuncId`].
pub(super) struct Program {
    pub codes: Vec<Option<Code>>,
}

/// Number of slots of a value of type `ty`; `None` for a malformed type
/// (unknown struct, or structs nested deeper than [`MAX_DEPTH`], which is
/// how a cyclic struct shows up).
pub(super) fn slot_count(ty: Type, structs: &StructTable, depth: u32) -> Option<u32> {
    if depth > MAX_DEPTH {
        return None;
    }
    Some(match ty {
        Type::Scalar(_) | Type::Array(_) => 1,
        Type::Vec(n, _) => n as u32,
        Type::Mat(r, c, _) => r as u32 * c as u32,
        Type::Quat(_) => 4,
        Type::Transform(_) => 7,
        Type::Struct(id) => {
            let def = structs.get(id)?;
            let mut n = 0u32;
            for f in &def.fields {
                n = n.checked_add(slot_count(f.ty, structs, depth + 1)?)?;
            }
            n
        }
    })
}

/// Slot offset and type of the component at `path` of a value of type `ty`.
fn slot_path(ty: Type, path: &[u32], structs: &StructTable) -> Option<(u32, Type)> {
    let mut off = 0u32;
    let mut t = ty;
    for &i in path {
        let comp = t.project(i, structs)?;
        off += match t {
            Type::Mat(_, c, _) => i * c as u32,
            Type::Struct(id) => {
                let def = structs.get(id)?;
                let mut o = 0u32;
                for f in def.fields.iter().take(i as usize) {
                    o = o.checked_add(slot_count(f.ty, structs, 0)?)?;
                }
                o
            }
            _ => i,
        };
        t = comp;
    }
    Some((off, t))
}

/// Whether a type holds an array handle somewhere (such values have no
/// by-value memory form the interpreter can read or write).
pub(super) fn contains_array(ty: Type, structs: &StructTable, depth: u32) -> bool {
    match ty {
        Type::Array(_) => true,
        Type::Struct(id) if depth <= MAX_DEPTH => structs.get(id).is_some_and(|d| {
            d.fields
                .iter()
                .any(|f| contains_array(f.ty, structs, depth + 1))
        }),
        Type::Struct(_) => true,
        _ => false,
    }
}

/// Enclosing constructs a terminator may refer to.
#[derive(Clone, Copy)]
struct Ctx {
    /// The `if` whose region is being lowered (target of `yield`).
    yield_to: Option<Inst>,
    /// The innermost loop (target of `break`/`continue`).
    loop_: Option<Inst>,
}

struct Lower<'m> {
    m: &'m Module,
    f: &'m Function,
    slots: Vec<Span>,
    visited: Vec<bool>,
    regions: Vec<Vec<Op>>,
    callees: Vec<FuncId>,
    /// Emit [`Op::At`] and [`Op::Bind`] (the statement trace).
    trace: bool,
}

impl<'m> Lower<'m> {
    fn malformed(&self, loc: Loc, what: impl Into<String>) -> InterpError {
        InterpError::Malformed {
            func: self.f.name.clone(),
            loc,
            what: what.into(),
        }
    }
    fn unsupported(&self, loc: Loc, what: impl Into<String>) -> InterpError {
        InterpError::Unsupported {
            func: self.f.name.clone(),
            loc,
            what: what.into(),
        }
    }
    fn structs(&self) -> &'m StructTable {
        &self.m.structs
    }
    fn tyname(&self, t: Type) -> String {
        DisplayType(t, self.structs()).to_string()
    }

    fn span(&self, v: Value, loc: Loc) -> Result<Span, InterpError> {
        self.slots
            .get(v.index())
            .copied()
            .ok_or_else(|| self.malformed(loc, format!("reference to undefined value {v}")))
    }
    fn slot(&self, v: Value, loc: Loc) -> Result<u32, InterpError> {
        Ok(self.span(v, loc)?.0)
    }
    fn ty(&self, v: Value, loc: Loc) -> Result<Type, InterpError> {
        self.f
            .values
            .get(v)
            .map(|d| d.ty)
            .ok_or_else(|| self.malformed(loc, format!("reference to undefined value {v}")))
    }
    fn scalar(&self, v: Value, loc: Loc) -> Result<Scalar, InterpError> {
        let t = self.ty(v, loc)?;
        t.as_scalar().ok_or_else(|| {
            self.malformed(
                loc,
                format!("{v} has type {}, expected a scalar", self.tyname(t)),
            )
        })
    }
    /// Checks that `inst` has exactly the result types `want`; returns the
    /// first result's slot (0 when there are none).
    fn results(&self, inst: Inst, want: &[Type], loc: Loc) -> Result<u32, InterpError> {
        let rs = &self.f.insts[inst].results;
        let ok = rs.len() == want.len()
            && rs
                .iter()
                .zip(want)
                .all(|(&r, &t)| self.f.values.get(r).is_some_and(|d| d.ty == t));
        if !ok {
            return Err(self.malformed(
                loc,
                format!("{inst} has results of the wrong number or type"),
            ));
        }
        match rs.first() {
            Some(&r) => self.slot(r, loc),
            None => Ok(0),
        }
    }
    fn result_types(&self, inst: Inst, loc: Loc) -> Result<Vec<Type>, InterpError> {
        self.f.insts[inst]
            .results
            .iter()
            .map(|&r| self.ty(r, loc))
            .collect()
    }
    fn expect_ty(&self, v: Value, want: Type, loc: Loc) -> Result<(), InterpError> {
        let t = self.ty(v, loc)?;
        if t != want {
            return Err(self.malformed(
                loc,
                format!(
                    "{v} has type {}, expected {}",
                    self.tyname(t),
                    self.tyname(want)
                ),
            ));
        }
        Ok(())
    }
    /// Moves from `vs` to the values `dsts` (which must have equal types).
    fn moves(
        &self,
        vs: &[Value],
        dsts: &[Value],
        loc: Loc,
        what: &str,
    ) -> Result<Box<[Move]>, InterpError> {
        if vs.len() != dsts.len() {
            return Err(self.malformed(
                loc,
                format!("{what} passes {} values, expected {}", vs.len(), dsts.len()),
            ));
        }
        let mut out = Vec::with_capacity(vs.len());
        for (&v, &d) in vs.iter().zip(dsts) {
            self.expect_ty(v, self.ty(d, loc)?, loc)?;
            let (src, len) = self.span(v, loc)?;
            out.push(Move {
                src,
                dst: self.slot(d, loc)?,
                len,
            });
        }
        Ok(out.into_boxed_slice())
    }

    fn access(&self, m: &MemAccess, loc: Loc) -> Result<(Box<Access>, Type), InterpError> {
        let Type::Array(at) = self.ty(m.array, loc)? else {
            return Err(self.malformed(loc, format!("{} is not an array", m.array)));
        };
        if m.indices.len() != at.ndim as usize || at.ndim == 0 || at.ndim as usize > 4 {
            return Err(self.malformed(
                loc,
                format!(
                    "{} indices into an array of {} dimensions",
                    m.indices.len(),
                    at.ndim
                ),
            ));
        }
        let mut indices = Vec::with_capacity(m.indices.len());
        for &ix in &m.indices {
            let s = self.scalar(ix, loc)?;
            if !s.is_int() {
                return Err(self.malformed(loc, format!("array index {ix} is not an integer")));
            }
            indices.push((self.slot(ix, loc)?, s));
        }
        let elem = Type::from(at.elem);
        if contains_array(elem, self.structs(), 0) || slot_count(elem, self.structs(), 0).is_none()
        {
            return Err(self.unsupported(loc, "arrays of elements that contain arrays"));
        }
        let (base, ty) = layout::path_offset(elem, &m.path, self.structs())
            .ok_or_else(|| self.malformed(loc, format!("invalid component path {:?}", m.path)))?;
        let leaves: Box<[(u32, Scalar)]> = layout::leaves(ty, self.structs())
            .into_iter()
            .map(|l| (l.offset, l.scalar))
            .collect();
        let acc = Access {
            array: self.slot(m.array, loc)?,
            indices: indices.into_boxed_slice(),
            base,
            size: layout::size_of(ty, self.structs()),
            leaves,
            loc,
        };
        Ok((Box::new(acc), ty))
    }

    fn region(&mut self, r: Region, ctx: Ctx, depth: u32, loc: Loc) -> Result<(), InterpError> {
        if depth > MAX_DEPTH {
            return Err(
                self.unsupported(loc, format!("control flow nested deeper than {MAX_DEPTH}"))
            );
        }
        let Some(rd) = self.f.regions.get(r) else {
            return Err(self.malformed(loc, format!("reference to undefined {r}")));
        };
        if std::mem::replace(&mut self.visited[r.index()], true) {
            return Err(self.malformed(loc, format!("{r} is owned twice")));
        }
        let n = rd.insts.len();
        if n == 0 {
            return Err(self.malformed(loc, format!("{r} is empty (it must end in a terminator)")));
        }
        let mut ops = Vec::with_capacity(n);
        if self.trace {
            if let Some(b) = self.binds(&rd.params) {
                ops.push(b);
            }
        }
        for (k, &inst) in rd.insts.iter().enumerate() {
            let Some(data) = self.f.insts.get(inst) else {
                return Err(self.malformed(loc, format!("reference to undefined {inst}")));
            };
            if data.kind.is_terminator() != (k + 1 == n) {
                return Err(self.malformed(
                    data.loc,
                    format!("{r} must end in exactly one terminator ({inst})"),
                ));
            }
            let op = self.inst(inst, ctx, depth)?;
            if self.trace && !data.loc.is_none() && !matches!(data.kind, InstKind::Return(_)) {
                ops.push(Op::At(data.loc));
            }
            ops.push(op);
            if self.trace {
                if let Some(b) = self.binds(&data.results) {
                    ops.push(b);
                }
            }
        }
        self.regions[r.index()] = ops;
        Ok(())
    }

    /// The [`Op::Bind`] of the source variables among `vs`, if any.
    fn binds(&self, vs: &[Value]) -> Option<Op> {
        let b: Box<[Bind]> = vs
            .iter()
            .filter(|&&v| self.f.var_name(v).is_some())
            .filter_map(|&v| {
                Some(Bind {
                    value: v,
                    span: *self.slots.get(v.index())?,
                    ty: self.f.values.get(v)?.ty,
                })
            })
            .collect();
        (!b.is_empty()).then_some(Op::Bind(b))
    }

    fn inst(&mut self, inst: Inst, ctx: Ctx, depth: u32) -> Result<Op, InterpError> {
        let f = self.f;
        let data = &f.insts[inst];
        let loc = data.loc;
        Ok(match &data.kind {
            InstKind::Const(c) => {
                let dst = self.results(inst, &[Type::Scalar(c.ty)], loc)?;
                let bits = if c.ty.is_float() {
                    super::scalar::float_from_f64(c.ty, f64::from_bits(c.bits))
                } else {
                    super::scalar::wrap(c.ty, c.bits)
                };
                Op::Const { dst, bits }
            }
            &InstKind::Unary(op, a) => {
                let s = self.scalar(a, loc)?;
                if !unary_supported(op, s) {
                    return Err(self.unsupported(loc, format!("{op:?} on {s}")));
                }
                let rt = match op {
                    UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite => Type::BOOL,
                    _ => Type::Scalar(s),
                };
                let dst = self.results(inst, &[rt], loc)?;
                Op::Unary {
                    op,
                    ty: s,
                    dst,
                    a: self.slot(a, loc)?,
                }
            }
            &InstKind::Binary(op, a, b) => {
                let s = self.scalar(a, loc)?;
                self.expect_ty(b, Type::Scalar(s), loc)?;
                if !binary_supported(op, s) {
                    return Err(self.unsupported(loc, format!("{op:?} on {s}")));
                }
                let rt = if op.is_comparison() {
                    Type::BOOL
                } else {
                    Type::Scalar(s)
                };
                let dst = self.results(inst, &[rt], loc)?;
                Op::Binary {
                    op,
                    ty: s,
                    dst,
                    a: self.slot(a, loc)?,
                    b: self.slot(b, loc)?,
                }
            }
            &InstKind::Fma(a, b, c) => {
                let s = self.scalar(a, loc)?;
                if !s.is_float() {
                    return Err(self.unsupported(loc, format!("fma on {s}")));
                }
                self.expect_ty(b, Type::Scalar(s), loc)?;
                self.expect_ty(c, Type::Scalar(s), loc)?;
                let dst = self.results(inst, &[Type::Scalar(s)], loc)?;
                Op::Fma {
                    ty: s,
                    dst,
                    a: self.slot(a, loc)?,
                    b: self.slot(b, loc)?,
                    c: self.slot(c, loc)?,
                }
            }
            &InstKind::Cast(a, to) => {
                let from = self.scalar(a, loc)?;
                let dst = self.results(inst, &[Type::Scalar(to)], loc)?;
                Op::Cast {
                    from,
                    to,
                    dst,
                    a: self.slot(a, loc)?,
                }
            }
            &InstKind::Bitcast(a, to) => {
                let from = self.scalar(a, loc)?;
                if from.size() != to.size() {
                    return Err(
                        self.malformed(loc, format!("bitcast from {from} to {to}: sizes differ"))
                    );
                }
                let dst = self.results(inst, &[Type::Scalar(to)], loc)?;
                Op::Bitcast {
                    from,
                    to,
                    dst,
                    a: self.slot(a, loc)?,
                }
            }
            &InstKind::Select(c, a, b) => {
                self.expect_ty(c, Type::BOOL, loc)?;
                let t = self.ty(a, loc)?;
                self.expect_ty(b, t, loc)?;
                let dst = self.results(inst, &[t], loc)?;
                let (a, len) = self.span(a, loc)?;
                Op::Select {
                    dst,
                    c: self.slot(c, loc)?,
                    a,
                    b: self.slot(b, loc)?,
                    len,
                }
            }
            InstKind::Make(ty, parts) => {
                let ty = *ty;
                let arity = ty.arity(self.structs());
                if !ty.is_aggregate() || parts.len() != arity as usize {
                    return Err(self.malformed(
                        loc,
                        format!("make {} from {} parts", self.tyname(ty), parts.len()),
                    ));
                }
                let mut spans = Vec::with_capacity(parts.len());
                for (i, &p) in parts.iter().enumerate() {
                    let want = ty
                        .project(i as u32, self.structs())
                        .ok_or_else(|| self.malformed(loc, "make of a malformed type"))?;
                    self.expect_ty(p, want, loc)?;
                    spans.push(self.span(p, loc)?);
                }
                let dst = self.results(inst, &[ty], loc)?;
                Op::Make {
                    dst,
                    parts: spans.into_boxed_slice(),
                }
            }
            InstKind::Extract(a, path) => {
                let at = self.ty(*a, loc)?;
                let (off, ct) = slot_path(at, path, self.structs()).ok_or_else(|| {
                    self.malformed(loc, format!("invalid component path {path:?}"))
                })?;
                let dst = self.results(inst, &[ct], loc)?;
                let len = slot_count(ct, self.structs(), 0)
                    .ok_or_else(|| self.malformed(loc, "malformed type"))?;
                Op::Copy(Move {
                    src: self.slot(*a, loc)? + off,
                    dst,
                    len,
                })
            }
            InstKind::Insert(a, path, v) => {
                let at = self.ty(*a, loc)?;
                let (off, ct) = slot_path(at, path, self.structs()).ok_or_else(|| {
                    self.malformed(loc, format!("invalid component path {path:?}"))
                })?;
                self.expect_ty(*v, ct, loc)?;
                let dst = self.results(inst, &[at], loc)?;
                let (agg, len) = self.span(*a, loc)?;
                let (v, vlen) = self.span(*v, loc)?;
                Op::Insert {
                    dst,
                    agg,
                    len,
                    off,
                    v,
                    vlen,
                }
            }
            InstKind::ThreadId => Op::ThreadId {
                dst: self.results(inst, &[Type::I32], loc)?,
            },
            // The interpreter runs one thread per block, as Warp's CPU.
            InstKind::BlockDim => Op::Const {
                dst: self.results(inst, &[Type::I32], loc)?,
                bits: 1,
            },
            &InstKind::LaunchDim(axis) => {
                if axis >= 4 {
                    return Err(self.malformed(loc, format!("launch dimension axis {axis}")));
                }
                Op::LaunchDim {
                    dst: self.results(inst, &[Type::I32], loc)?,
                    axis,
                }
            }
            &InstKind::ArrayShape(arr, axis) => {
                let ok =
                    matches!(self.ty(arr, loc)?, Type::Array(at) if axis < at.ndim && axis < 4);
                if !ok {
                    return Err(self.malformed(loc, format!("shape axis {axis} of {arr}")));
                }
                let dst = self.results(inst, &[Type::I32], loc)?;
                Op::ArrayShape {
                    dst,
                    arr: self.slot(arr, loc)?,
                    axis,
                }
            }
            InstKind::Load(m) => {
                let (acc, t) = self.access(m, loc)?;
                Op::Load {
                    dst: self.results(inst, &[t], loc)?,
                    acc,
                }
            }
            InstKind::Store(m, v) => {
                let (acc, t) = self.access(m, loc)?;
                self.expect_ty(*v, t, loc)?;
                self.results(inst, &[], loc)?;
                Op::Store {
                    src: self.slot(*v, loc)?,
                    acc,
                }
            }
            InstKind::Atomic(op, m, v) => {
                let (acc, t) = self.access(m, loc)?;
                self.expect_ty(*v, t, loc)?;
                if let Some(&(_, s)) = acc.leaves.iter().find(|&&(_, s)| !atomic_supported(*op, s))
                {
                    return Err(self.unsupported(loc, format!("atomic {op:?} on {s}")));
                }
                let dst = self.results(inst, &[t], loc)?;
                Op::Atomic {
                    op: *op,
                    dst,
                    src: self.slot(*v, loc)?,
                    acc,
                }
            }
            InstKind::AtomicCas(m, c, v) => {
                let (acc, t) = self.access(m, loc)?;
                self.expect_ty(*c, t, loc)?;
                self.expect_ty(*v, t, loc)?;
                if acc.leaves.len() != 1 || !atomic_supported(AtomicOp::Exchange, acc.leaves[0].1) {
                    return Err(self.unsupported(loc, format!("atomic_cas on {t:?}")));
                }
                let dst = self.results(inst, &[t], loc)?;
                Op::AtomicCas {
                    dst,
                    compare: self.slot(*c, loc)?,
                    src: self.slot(*v, loc)?,
                    acc,
                }
            }
            InstKind::Call(callee, args) => {
                let Some(cf) = self.m.funcs.get(*callee) else {
                    return Err(self.malformed(loc, format!("call of undefined {callee}")));
                };
                if args.len() != cf.params.len() {
                    return Err(self.malformed(
                        loc,
                        format!(
                            "call of `{}` with {} arguments, expected {}",
                            cf.name,
                            args.len(),
                            cf.params.len()
                        ),
                    ));
                }
                let mut spans = Vec::with_capacity(args.len());
                for (&a, p) in args.iter().zip(&cf.params) {
                    self.expect_ty(a, p.ty, loc)?;
                    spans.push(self.span(a, loc)?);
                }
                self.results(inst, &cf.returns, loc)?;
                let results = f.insts[inst]
                    .results
                    .iter()
                    .map(|&r| self.span(r, loc))
                    .collect::<Result<Vec<_>, _>>()?;
                self.callees.push(*callee);
                Op::Call {
                    func: *callee,
                    args: spans.into_boxed_slice(),
                    results: results.into_boxed_slice(),
                    loc,
                }
            }
            InstKind::Print(fmt, args) => {
                let mut leaves = Vec::new();
                for &a in args {
                    let t = self.ty(a, loc)?;
                    if contains_array(t, self.structs(), 0) {
                        return Err(self.unsupported(loc, "printing an array"));
                    }
                    let base = self.slot(a, loc)?;
                    for (k, l) in layout::leaves(t, self.structs()).into_iter().enumerate() {
                        leaves.push((base + k as u32, l.scalar));
                    }
                }
                self.results(inst, &[], loc)?;
                Op::Print {
                    fmt: fmt.as_str().into(),
                    args: leaves.into_boxed_slice(),
                }
            }
            &InstKind::If {
                cond,
                then_region,
                else_region,
            } => {
                self.expect_ty(cond, Type::BOOL, loc)?;
                for r in [then_region, else_region] {
                    if self.f.regions.get(r).is_some_and(|d| !d.params.is_empty()) {
                        return Err(self.malformed(loc, format!("if region {r} has params")));
                    }
                }
                self.result_types(inst, loc)?;
                let inner = Ctx {
                    yield_to: Some(inst),
                    loop_: ctx.loop_,
                };
                self.region(then_region, inner, depth + 1, loc)?;
                self.region(else_region, inner, depth + 1, loc)?;
                Op::If {
                    cond: self.slot(cond, loc)?,
                    then_r: then_region.as_u32(),
                    else_r: else_region.as_u32(),
                }
            }
            InstKind::Loop { init, body } => {
                let Some(bd) = self.f.regions.get(*body) else {
                    return Err(self.malformed(loc, format!("reference to undefined {body}")));
                };
                let init = self.moves(init, &bd.params, loc, "loop init")?;
                self.result_types(inst, loc)?;
                let inner = Ctx {
                    yield_to: None,
                    loop_: Some(inst),
                };
                self.region(*body, inner, depth + 1, loc)?;
                Op::Loop {
                    init,
                    body: body.as_u32(),
                    loc,
                }
            }
            InstKind::Yield(vs) => {
                let Some(target) = ctx.yield_to else {
                    return Err(self.malformed(loc, "yield outside an if region"));
                };
                Op::Yield(self.moves(vs, &f.insts[target].results, loc, "yield")?)
            }
            InstKind::Break(vs) => {
                let Some(target) = ctx.loop_ else {
                    return Err(self.malformed(loc, "break outside a loop"));
                };
                Op::Break(self.moves(vs, &f.insts[target].results, loc, "break")?)
            }
            InstKind::Continue(vs) => {
                let Some(target) = ctx.loop_ else {
                    return Err(self.malformed(loc, "continue outside a loop"));
                };
                let InstKind::Loop { body, .. } = &f.insts[target].kind else {
                    return Err(self.malformed(loc, "continue target is not a loop"));
                };
                Op::Continue(self.moves(vs, &f.regions[*body].params, loc, "continue")?)
            }
            InstKind::Return(vs) => {
                if vs.len() != f.returns.len() {
                    return Err(self.malformed(
                        loc,
                        format!(
                            "return of {} values, expected {}",
                            vs.len(),
                            f.returns.len()
                        ),
                    ));
                }
                let mut spans = Vec::with_capacity(vs.len());
                for (&v, &t) in vs.iter().zip(&f.returns) {
                    self.expect_ty(v, t, loc)?;
                    spans.push(self.span(v, loc)?);
                }
                Op::Return(spans.into_boxed_slice())
            }
            InstKind::Trap(kind, vs) => {
                let mut operands = Vec::with_capacity(vs.len());
                for &v in vs {
                    operands.push(self.span(v, loc)?.0);
                }
                Op::Trap {
                    kind: *kind,
                    loc,
                    operands: operands.into_boxed_slice(),
                }
            }
        })
    }
}

/// Lowers one function; returns its code and the functions it calls.
fn lower(m: &Module, fid: FuncId, trace: bool) -> Result<(Code, Vec<FuncId>), InterpError> {
    let f = &m.funcs[fid];
    let malformed = |what: String| InterpError::Malformed {
        func: f.name.clone(),
        loc: f.loc,
        what,
    };
    let mut slots = Vec::with_capacity(f.values.len());
    let mut next = 0u32;
    for (v, d) in f.values.iter() {
        let n = slot_count(d.ty, &m.structs, 0)
            .ok_or_else(|| malformed(format!("{v} has a malformed type")))?;
        slots.push((next, n));
        next = next
            .checked_add(n)
            .filter(|&t| t < 1 << 24)
            .ok_or_else(|| malformed("too many values".to_string()))?;
    }
    let body_params = &f
        .regions
        .get(f.body)
        .ok_or_else(|| malformed("missing body region".to_string()))?
        .params;
    if body_params.len() != f.params.len() {
        return Err(malformed(
            "body params do not match the function's params".to_string(),
        ));
    }
    let mut params = Vec::with_capacity(f.params.len());
    for (&v, p) in body_params.iter().zip(&f.params) {
        if f.values.get(v).map(|d| d.ty) != Some(p.ty) {
            return Err(malformed(format!("param `{}` has the wrong type", p.name)));
        }
        params.push(slots[v.index()]);
    }
    let mut lw = Lower {
        m,
        f,
        slots,
        visited: vec![false; f.regions.len()],
        regions: (0..f.regions.len()).map(|_| Vec::new()).collect(),
        callees: Vec::new(),
        trace,
    };
    let ctx = Ctx {
        yield_to: None,
        loop_: None,
    };
    lw.region(f.body, ctx, 0, f.loc)?;
    let code = Code {
        n_slots: next,
        body: f.body.as_u32(),
        regions: lw.regions,
        params,
        param_types: f.params.iter().map(|p| p.ty).collect(),
    };
    Ok((code, lw.callees))
}

impl Program {
    /// Lowers `root` and every function it calls, transitively; with
    /// `trace`, with the statement trace's ops.
    pub fn new(m: &Module, root: FuncId, trace: bool) -> Result<Program, InterpError> {
        let mut codes: Vec<Option<Code>> = (0..m.funcs.len()).map(|_| None).collect();
        let mut work = vec![root];
        while let Some(fid) = work.pop() {
            if codes[fid.index()].is_some() {
                continue;
            }
            let (code, callees) = lower(m, fid, trace)?;
            codes[fid.index()] = Some(code);
            work.extend(callees.into_iter().filter(|c| codes[c.index()].is_none()));
        }
        Ok(Program { codes })
    }
}
