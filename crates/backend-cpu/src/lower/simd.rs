//! The SIMD stage of the unit-stride thread loop (CPU only): which kernel
//! bodies run [`LANES`] threads per vector instruction, and their vector
//! code; also whether a body is worth unrolling.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32X4, I32, I32X4, I64};
use cranelift_codegen::ir::{self as cl, BlockArg, InstBuilder, MemFlagsData};
use std::collections::HashMap;
use weft_ir::ir::{BinaryOp, InstKind, UnaryOp};
use weft_ir::{ElemType, Inst, MathFn, Region, Scalar, Type};

use super::arithmetic::contraction;
use super::memory::arg_flags;
use super::{FnTx, Result};

/// Threads per iteration of the SIMD thread loop (128-bit vectors).
const LANES: i64 = 4;

/// The array params a kernel body loads from or stores to (anywhere in
/// it), and those it stores to.
fn simd_arrays(f: &weft_ir::Function) -> (Vec<weft_ir::Value>, Vec<weft_ir::Value>) {
    fn walk(
        f: &weft_ir::Function,
        r: Region,
        acc: &mut Vec<weft_ir::Value>,
        st: &mut Vec<weft_ir::Value>,
    ) {
        let Some(rd) = f.regions.get(r) else { return };
        for &i in &rd.insts {
            match &f.insts[i].kind {
                InstKind::Load(m) if !acc.contains(&m.array) => acc.push(m.array),
                InstKind::Store(m, _) => {
                    if !acc.contains(&m.array) {
                        acc.push(m.array);
                    }
                    if !st.contains(&m.array) {
                        st.push(m.array);
                    }
                }
                _ => {}
            }
            for sub in f.insts[i].kind.regions() {
                walk(f, sub, acc, st);
            }
        }
    }
    let (mut acc, mut st) = (Vec::new(), Vec::new());
    walk(f, f.body, &mut acc, &mut st);
    (acc, st)
}

/// Whether `a` is a parameter of `f` that the `soa` pass made a 1-D SoA
/// array (`array(S, 2)`: the user's axis, then the plane axis).
fn soa_1d(f: &weft_ir::Function, a: weft_ir::Value) -> bool {
    let params = &f.regions[f.body].params;
    params.iter().position(|&p| p == a).is_some_and(|k| {
        f.soa_params
            .iter()
            .any(|sp| sp.param as usize == k && sp.ndim == 1)
    })
}

/// What a value of a body run in SIMD lanes is.
#[derive(Copy, Clone)]
enum Lane {
    /// The thread id (usable only as an array index).
    Tid,
    /// The same constant in every lane (folded as the interpreter would).
    Known(weft_ir::Const),
    /// A scalar kernel parameter: the same in every lane.
    Param,
    /// One value per lane (`None` while only checking).
    Vector(Option<cl::Value>),
}

/// How a walk of a region in SIMD lanes ended.
enum Walk {
    /// Something not vectorizable.
    No,
    /// `yield` with these values.
    Yield(Vec<Lane>),
    /// `return` (of the kernel body).
    Return,
}

/// Threads per iteration of the unrolled thread loop.
pub(super) const UNROLL: i64 = 4;

/// Whether the kernel body is worth unrolling: small and without loops (a
/// kernel with a loop spends its time there) or calls.
pub(super) fn unrollable(f: &weft_ir::Function) -> bool {
    let mut n = 0usize;
    let mut simple = true;
    fn walk(f: &weft_ir::Function, r: Region, n: &mut usize, simple: &mut bool) {
        let Some(rd) = f.regions.get(r) else { return };
        for &i in &rd.insts {
            *n += 1;
            let k = &f.insts[i].kind;
            if matches!(k, InstKind::Loop { .. } | InstKind::Call(..)) {
                *simple = false;
            }
            for sub in k.regions() {
                walk(f, sub, n, simple);
            }
        }
    }
    walk(f, f.body, &mut n, &mut simple);
    simple && n <= 64
}

impl<'a, 'b, 'm> FnTx<'a, 'b, 'm> {
    /// [`contract`](Self::contract) in SIMD lanes (`f32x4`), so that the
    /// vector loop rounds as the scalar one does.
    fn simd_contract(
        &mut self,
        inst: Inst,
        s: Scalar,
        env: &HashMap<weft_ir::Value, Lane>,
    ) -> Result<Option<cl::Value>> {
        if !self.host_fma || s != Scalar::F32 {
            return Ok(None);
        }
        let Some((x, y, c, neg_c, neg_x)) = contraction(self.f, inst) else {
            return Ok(None);
        };
        let lane = |v| match env.get(&v) {
            Some(Lane::Tid) | None => None,
            Some(l) => Some(*l),
        };
        let (Some(lx), Some(ly), Some(lc)) = (lane(x), lane(y), lane(c)) else {
            return Ok(None);
        };
        let mut xv = self.simd_vector(lx, x, F32X4)?;
        let yv = self.simd_vector(ly, y, F32X4)?;
        let mut cv = self.simd_vector(lc, c, F32X4)?;
        if neg_c {
            cv = self.b.ins().fneg(cv);
        }
        if neg_x {
            xv = self.b.ins().fneg(xv);
        }
        Ok(Some(self.b.ins().fma(xv, yv, cv)))
    }

    /// Emits the SIMD stage of the unit-stride thread loop (see
    /// [`simd_ok`]): `LANES` threads per iteration while that many remain.
    /// Returns the first thread index it did not run, in the current block.
    pub(super) fn simd_loop(&mut self, start: cl::Value, end: cl::Value) -> Result<cl::Value> {
        let vloop = self.b.create_block();
        let i = self.b.append_block_param(vloop, I64);
        let after = self.b.create_block();
        let next_i = self.b.append_block_param(after, I64);
        let last = self.b.ins().iadd_imm_s(start, LANES);
        let mut c = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, last, end);
        // The lanes assume a 1-D launch (dims past axis 0 are 1).
        if let Some(args) = self.args_ptr {
            for axis in 1..4 {
                let d = self.b.ins().load(I32, arg_flags(), args, 4 * axis);
                let one = self.b.ins().icmp_imm_s(IntCC::Equal, d, 1);
                c = self.b.ins().band(c, one);
            }
        }
        // Lanes of one vector run "at once": that equals running the threads
        // in order unless a stored array overlaps another array at a
        // different base (a view shifted by some elements). Then the scalar
        // loops do the work.
        let (accessed, stored) = simd_arrays(self.f);
        // The bytes an array spans: `n` 4-byte elements, and for a 1-D SoA
        // parameter (leaves data, shape[2], strides[2]) as many planes.
        let extent = |tx: &mut Self, a: weft_ir::Value| -> Result<(cl::Value, cl::Value)> {
            let l = tx.get(a)?;
            let n = tx.b.ins().sextend(I64, l[1]);
            let mut bytes = tx.b.ins().ishl_imm_u(n, 2);
            if soa_1d(tx.f, a) && l.len() == 5 {
                let planes = tx.b.ins().sextend(I64, l[2]);
                let before_last = tx.b.ins().iadd_imm_s(planes, -1);
                let skip = tx.b.ins().imul(before_last, l[4]);
                bytes = tx.b.ins().iadd(bytes, skip);
            }
            Ok((l[0], tx.b.ins().iadd(l[0], bytes)))
        };
        for &st in &stored {
            let (s0, s1) = extent(self, st)?;
            for &a in &accessed {
                if a == st {
                    continue;
                }
                let (a0, a1) = extent(self, a)?;
                let same = self.b.ins().icmp(IntCC::Equal, a0, s0);
                let before = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, a1, s0);
                let after = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, s1, a0);
                let ok = self.b.ins().bor(same, before);
                let ok = self.b.ins().bor(ok, after);
                c = self.b.ins().band(c, ok);
            }
        }
        self.b.ins().brif(
            c,
            vloop,
            &[BlockArg::Value(start)],
            after,
            &[BlockArg::Value(start)],
        );
        self.switch_to(vloop);
        self.simd_body(i)?;
        let ni = self.b.ins().iadd_imm_s(i, LANES);
        let last = self.b.ins().iadd_imm_s(i, 2 * LANES);
        let c = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, last, end);
        self.b.ins().brif(
            c,
            vloop,
            &[BlockArg::Value(ni)],
            after,
            &[BlockArg::Value(ni)],
        );
        self.switch_to(after);
        Ok(next_i)
    }

    /// Whether the kernel body can run [`LANES`] threads per vector
    /// instruction, lane `k` being thread `i + k` with exactly the scalar
    /// semantics, for a 1-D launch in the unit-stride version: a body of
    /// `f32`/`i32` loads and stores of 1-D `f32`/`i32` arrays at
    /// `[thread_id]`, the lane-exact operations `f32` add/sub/mul/div/neg/
    /// abs/sqrt, the `f32` transcendentals whose `afn` flag lets them be
    /// inlined ([`crate::fastmath`]), `i32` add/sub/neg, scalar params
    /// (splatted), and
    /// anything that folds to a constant when the launch dims past axis 0
    /// are 1 (the frontend's thread-index decomposition, including its
    /// `if`), ending in `return`.
    pub(super) fn simd_ok(&mut self) -> Result<bool> {
        let (_, stored) = simd_arrays(self.f);
        if stored.is_empty() {
            return Ok(false);
        }
        let mut env = self.simd_env();
        Ok(matches!(
            self.simd_walk(self.f.body, None, &mut env)?,
            Walk::Return
        ))
    }

    fn simd_env(&self) -> HashMap<weft_ir::Value, Lane> {
        self.f.regions[self.f.body]
            .params
            .iter()
            .map(|&p| (p, Lane::Param))
            .collect()
    }

    /// The body for threads `i..i+LANES`, one vector lane per thread (only
    /// for bodies [`simd_ok`](Self::simd_ok) accepts).
    fn simd_body(&mut self, i: cl::Value) -> Result<()> {
        let t32 = self.b.ins().ireduce(I32, i);
        let idx = self.b.ins().sextend(I64, t32);
        let mut env = self.simd_env();
        match self.simd_walk(self.f.body, Some(idx), &mut env)? {
            Walk::Return => Ok(()),
            _ => self.invalid("kernel body not vectorizable after all"),
        }
    }

    /// Walks a region in SIMD lanes; emits vector code when `idx` (the
    /// sign-extended thread index of lane 0) is given, else only checks.
    fn simd_walk(
        &mut self,
        r: Region,
        idx: Option<cl::Value>,
        env: &mut HashMap<weft_ir::Value, Lane>,
    ) -> Result<Walk> {
        use weft_ir::interp::{eval_binary, eval_unary};
        let f = self.f;
        let Some(rd) = f.regions.get(r) else {
            return Ok(Walk::No);
        };
        let lane_scalar = |v: weft_ir::Value| match f.value_type(v) {
            Type::Scalar(s @ (Scalar::F32 | Scalar::I32)) => Some(s),
            _ => None,
        };
        let vt = |s: Scalar| if s == Scalar::F32 { F32X4 } else { I32X4 };
        let flags = MemFlagsData::new().with_notrap();
        for &inst in &rd.insts {
            self.loc = f.insts[inst].loc;
            let res = f.insts[inst].results.first().copied();
            let lane_of =
                |env: &HashMap<weft_ir::Value, Lane>, v: weft_ir::Value| env.get(&v).copied();
            let lane = match &f.insts[inst].kind {
                InstKind::ThreadId => Lane::Tid,
                InstKind::LaunchDim(a) if *a >= 1 => {
                    Lane::Known(weft_ir::Const::int(Scalar::I32, 1))
                }
                InstKind::BlockDim => Lane::Known(weft_ir::Const::int(Scalar::I32, 1)),
                InstKind::Const(c) => Lane::Known(*c),
                InstKind::Unary(op, x) => match lane_of(env, *x) {
                    Some(Lane::Known(c)) => match eval_unary(*op, c) {
                        Some(k) => Lane::Known(k),
                        None => return Ok(Walk::No),
                    },
                    Some(l @ (Lane::Param | Lane::Vector(_))) => {
                        let Some(s) = lane_scalar(*x) else {
                            return Ok(Walk::No);
                        };
                        let approx = s == Scalar::F32
                            && f.insts[inst]
                                .flags
                                .contains(weft_ir::MathFlags::APPROX_FUNC)
                            && MathFn::of_unary(*op).is_some_and(crate::fastmath::approximates);
                        let ok = match s {
                            Scalar::F32 => {
                                approx || matches!(op, UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sqrt)
                            }
                            _ => *op == UnaryOp::Neg,
                        };
                        if !ok {
                            return Ok(Walk::No);
                        }
                        match idx {
                            None => Lane::Vector(None),
                            Some(_) => {
                                let xv = self.simd_vector(l, *x, vt(s))?;
                                if approx {
                                    match self.approx(inst, *op, s, xv) {
                                        Some(v) => Lane::Vector(Some(v)),
                                        None => return self.invalid("no inline approximation"),
                                    }
                                } else {
                                    Lane::Vector(Some(match (op, s) {
                                        (UnaryOp::Neg, Scalar::F32) => self.b.ins().fneg(xv),
                                        (UnaryOp::Neg, _) => self.b.ins().ineg(xv),
                                        (UnaryOp::Abs, _) => self.b.ins().fabs(xv),
                                        _ => self.b.ins().sqrt(xv),
                                    }))
                                }
                            }
                        }
                    }
                    _ => return Ok(Walk::No),
                },
                InstKind::Binary(op, a, b) => match (lane_of(env, *a), lane_of(env, *b)) {
                    (Some(Lane::Known(x)), Some(Lane::Known(y))) => match eval_binary(*op, x, y) {
                        Some(k) => Lane::Known(k),
                        None => return Ok(Walk::No),
                    },
                    (Some(la), Some(lb))
                        if !matches!(la, Lane::Tid) && !matches!(lb, Lane::Tid) =>
                    {
                        let (Some(s), Some(s2)) = (lane_scalar(*a), lane_scalar(*b)) else {
                            return Ok(Walk::No);
                        };
                        let ok = s == s2
                            && match s {
                                Scalar::F32 => {
                                    matches!(
                                        op,
                                        BinaryOp::Add
                                            | BinaryOp::Sub
                                            | BinaryOp::Mul
                                            | BinaryOp::Div
                                    )
                                }
                                _ => matches!(op, BinaryOp::Add | BinaryOp::Sub),
                            };
                        if !ok {
                            return Ok(Walk::No);
                        }
                        match idx {
                            None => Lane::Vector(None),
                            Some(_) => match self.simd_contract(inst, s, env)? {
                                Some(v) => Lane::Vector(Some(v)),
                                None => {
                                    let av = self.simd_vector(la, *a, vt(s))?;
                                    let bv = self.simd_vector(lb, *b, vt(s))?;
                                    let ins = self.b.ins();
                                    Lane::Vector(Some(match (op, s) {
                                        (BinaryOp::Add, Scalar::F32) => ins.fadd(av, bv),
                                        (BinaryOp::Sub, Scalar::F32) => ins.fsub(av, bv),
                                        (BinaryOp::Mul, _) => ins.fmul(av, bv),
                                        (BinaryOp::Div, _) => ins.fdiv(av, bv),
                                        (BinaryOp::Add, _) => ins.iadd(av, bv),
                                        _ => ins.isub(av, bv),
                                    }))
                                }
                            },
                        }
                    }
                    _ => return Ok(Walk::No),
                },
                InstKind::If {
                    cond,
                    then_region,
                    else_region,
                } => {
                    let Some(Lane::Known(c)) = lane_of(env, *cond) else {
                        return Ok(Walk::No);
                    };
                    let taken = if c.bits != 0 {
                        *then_region
                    } else {
                        *else_region
                    };
                    let Walk::Yield(ys) = self.simd_walk(taken, idx, env)? else {
                        return Ok(Walk::No);
                    };
                    let rs = &f.insts[inst].results;
                    if ys.len() != rs.len() {
                        return Ok(Walk::No);
                    }
                    for (&r, l) in rs.iter().zip(ys) {
                        env.insert(r, l);
                    }
                    continue;
                }
                InstKind::Yield(vs) => {
                    let mut ys = Vec::with_capacity(vs.len());
                    for &v in vs {
                        match lane_of(env, v) {
                            Some(l) => ys.push(l),
                            None => return Ok(Walk::No),
                        }
                    }
                    return Ok(Walk::Yield(ys));
                }
                InstKind::Return(vs) if vs.is_empty() && r == f.body => return Ok(Walk::Return),
                InstKind::Load(m) | InstKind::Store(m, _) => {
                    let (elem, ndim) = match f.value_type(m.array) {
                        Type::Array(weft_ir::ArrayType {
                            elem: ElemType::Scalar(s @ (Scalar::F32 | Scalar::I32)),
                            ndim,
                        }) => (s, ndim),
                        _ => return Ok(Walk::No),
                    };
                    // A 1-D array at `[tid]`, or a 1-D SoA parameter
                    // (`array(S, 2)`, plane axis last) at `[tid, plane]`
                    // with a constant plane.
                    let plane = match (ndim, m.indices.get(1).map(|&k| lane_of(env, k))) {
                        (1, None) => None,
                        (2, Some(Some(Lane::Known(c)))) if c.ty.is_int() && soa_1d(f, m.array) => {
                            Some(c.bits as i64)
                        }
                        _ => return Ok(Walk::No),
                    };
                    if !matches!(lane_of(env, m.array), Some(Lane::Param))
                        || !m.path.is_empty()
                        || m.indices.len() != ndim as usize
                        || !matches!(lane_of(env, m.indices[0]), Some(Lane::Tid))
                    {
                        return Ok(Walk::No);
                    }
                    let stored = match &f.insts[inst].kind {
                        InstKind::Store(_, x) => match (lane_of(env, *x), lane_scalar(*x)) {
                            (
                                Some(l @ (Lane::Known(_) | Lane::Param | Lane::Vector(_))),
                                Some(s),
                            ) if s == elem => Some((l, *x)),
                            _ => return Ok(Walk::No),
                        },
                        _ => None,
                    };
                    let Some(idx) = idx else {
                        if stored.is_none() {
                            if let Some(r) = res {
                                env.insert(r, Lane::Vector(None));
                            }
                        }
                        continue;
                    };
                    let leaves = self.get(m.array)?;
                    let off = self.b.ins().ishl_imm_u(idx, 2);
                    let mut addr = self.b.ins().iadd(leaves[0], off);
                    if let Some(k) = plane.filter(|&k| k != 0) {
                        // Leaves: data, shape[2], strides[2]; the plane stride last.
                        let po = self.b.ins().imul_imm_s(leaves[4], k);
                        addr = self.b.ins().iadd(addr, po);
                    }
                    match stored {
                        Some((l, x)) => {
                            let xv = self.simd_vector(l, x, vt(elem))?;
                            self.b.ins().store(flags, xv, addr, 0);
                            continue;
                        }
                        None => Lane::Vector(Some(self.b.ins().load(vt(elem), flags, addr, 0))),
                    }
                }
                _ => return Ok(Walk::No),
            };
            if let Some(r) = res {
                env.insert(r, lane);
            }
        }
        Ok(Walk::No)
    }

    /// A lane value as a vector: splats constants and params.
    fn simd_vector(&mut self, l: Lane, v: weft_ir::Value, ty: cl::Type) -> Result<cl::Value> {
        Ok(match l {
            Lane::Vector(Some(x)) => x,
            Lane::Known(c) => {
                let x = self.konst(c);
                self.b.ins().splat(ty, x)
            }
            Lane::Param => {
                let x = self.get1(v)?;
                self.b.ins().splat(ty, x)
            }
            _ => return self.invalid("no vector value"),
        })
    }
}
