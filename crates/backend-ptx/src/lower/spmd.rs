//! The vector tier (host only; `docs/vector.md`): a kernel runs `W`
//! consecutive threads per vector register, SPMD-on-SIMD as ISPC does.
//!
//! * Values: [`weft_ir::uniform`] splits them. A uniform value keeps its
//!   scalar slots in the scalar lowering's map, so uniform instructions
//!   are lowered by [`Lx::inst`] itself; a varying value has one `<W x T>`
//!   per slot in [`Vx::vmap`].
//! * Varying instructions: arithmetic, comparisons, casts, selects,
//!   aggregates and 32/64-bit loads and stores have vector forms (a load or
//!   store whose lanes turn out to be consecutive elements is one masked
//!   vector access, otherwise a gather or scatter); every other one is
//!   lowered once per lane by the scalar lowering (extracting the lane's
//!   operands), under the lane's mask when it has effects, so it computes
//!   exactly what the scalar path does.
//! * Control: the current mask says which lanes run. An `if` on a varying
//!   condition runs each side under its part of the mask, skipping a side
//!   no lane takes; a loop runs while some lane is in it (its params, exit
//!   values and masks live in allocas, which LLVM turns into phis); a
//!   `break`, `continue` or `return` removes its lanes, and code after a
//!   construct that may have removed lanes is skipped when none is left. So
//!   every uniform instruction runs only when some lane would run it.
//! * The thread loop steps by `W`; the last chunk is masked.
//! * Reductions ([`weft_ir::info::reductions`]) accumulate per lane and
//!   combine once per thread range, lanes in order.

use super::{Lx, Result, SlotKind};
use crate::Error;
use inkwell::basic_block::BasicBlock;
use inkwell::types::{BasicTypeEnum, VectorType};
use inkwell::values::{
    BasicValue, BasicValueEnum, FunctionValue, IntValue, PointerValue, VectorValue,
};
use inkwell::{FloatPredicate, IntPredicate};
use std::collections::HashMap;
use weft_ir::ir::{BinaryOp, InstKind, UnaryOp};
use weft_ir::uniform::Uniformity;
use weft_ir::{layout, Inst, MathFlags, MathFn, Region, Scalar, Type, Value};

/// Why a kernel stays on the scalar path, or `None` when the vector tier
/// takes it: a call left after inlining, a trap (bounds-checked mode), or
/// varying work that is mostly host math calls the tier does not compute
/// inline ([`super::vmath::inlines`]; each runs lane by lane
/// anyway, and the tier would add the lanes' extracts and the spills of
/// every live vector around each call: more than 1 such call per
/// [`CALLS_PER_VECTOR_OP`] vector instructions).
pub(crate) fn rejects(
    f: &weft_ir::Function,
    uni: &Uniformity,
    inline_math: bool,
) -> Option<&'static str> {
    let mut why = None;
    let (mut calls, mut ops) = (0usize, 0usize);
    weft_ir::info::for_each_inst(f, &mut |i| {
        let d = &f.insts[i];
        why = why.or(match d.kind {
            InstKind::Call(..) => Some("a call that was not inlined"),
            InstKind::Trap(..) => Some("bounds-checked mode (traps)"),
            _ => None,
        });
        if !d.results.iter().any(|&r| uni.is_varying(r)) {
            return;
        }
        let flags = super::instructions::inst_flags(f, i);
        let call = match &d.kind {
            InstKind::Unary(op, x) => MathFn::of_unary(*op).map(|g| (g, x)),
            InstKind::Binary(op, a, _) => f
                .value_type(*a)
                .as_scalar()
                .and_then(|s| binary_math(*op, s))
                .map(|g| (g, a)),
            _ => None,
        };
        match call {
            Some((g, x))
                if !f
                    .value_type(*x)
                    .as_scalar()
                    .is_some_and(|s| inline_math && super::vmath::inlines(g, s, flags)) =>
            {
                calls += 1
            }
            _ => ops += 1,
        }
    });
    if why.is_none() && calls * CALLS_PER_VECTOR_OP > ops {
        why = Some("mostly host math calls, which run lane by lane");
    }
    why
}

/// The math function computing the binary operator `op` on `s`, if it is
/// one (`pow`, `atan2`, float `%`).
fn binary_math(op: BinaryOp, s: Scalar) -> Option<MathFn> {
    match op {
        _ if !s.is_float() => None,
        BinaryOp::Pow => Some(MathFn::Pow),
        BinaryOp::Atan2 => Some(MathFn::Atan2),
        BinaryOp::Rem => Some(MathFn::Fmod),
        _ => None,
    }
}

/// See [`rejects`].
const CALLS_PER_VECTOR_OP: usize = 4;

/// A variable in an alloca: one slot of a loop param, loop result or `if`
/// result, a vector when the value is varying.
#[derive(Copy, Clone)]
struct Var<'ctx> {
    ptr: PointerValue<'ctx>,
    ty: BasicTypeEnum<'ctx>,
    varying: bool,
}

/// Where an `if` region's `yield` goes.
struct YieldTo<'ctx> {
    mask: PointerValue<'ctx>,
    vals: Vec<Var<'ctx>>,
    /// Stores may overwrite every lane (the condition is uniform, so one
    /// side runs).
    plain: bool,
}

/// An enclosing loop.
struct LoopTo<'ctx> {
    params: Vec<Var<'ctx>>,
    results: Vec<Var<'ctx>>,
    cont: PointerValue<'ctx>,
    brk: PointerValue<'ctx>,
    divergent: bool,
}

/// A varying array access ([`Lx::vaccess`]).
struct Access<'ctx> {
    data: PointerValue<'ctx>,
    /// Per axis: the index value and the stride (bytes).
    axes: Vec<(Value, IntValue<'ctx>)>,
    poff: u32,
    ty: Type,
    esize: u32,
}

/// A demoted atomic: its per-lane accumulator and the address it
/// combines into (null until a lane reaches it).
struct Acc<'ctx> {
    acc: PointerValue<'ctx>,
    addr: PointerValue<'ctx>,
    op: weft_ir::ir::AtomicOp,
    s: Scalar,
}

/// The vector tier's per-kernel state.
pub(super) struct Vx<'ctx> {
    w: u32,
    uni: Uniformity,
    vmap: HashMap<Value, Vec<BasicValueEnum<'ctx>>>,
    mask: VectorValue<'ctx>,
    tid: VectorValue<'ctx>,
    ends: Vec<BasicBlock<'ctx>>,
    yields: Vec<YieldTo<'ctx>>,
    loops: Vec<LoopTo<'ctx>>,
    accs: HashMap<Inst, Acc<'ctx>>,
    /// Streaming stores ([`streamed_params`]): per array param written
    /// only, whether this launch's array is large enough
    /// ([`super::TargetCfg::stream_min_bytes`]) for its full, aligned
    /// vector stores to bypass the cache.
    streams: HashMap<Value, IntValue<'ctx>>,
    /// Lowering the loop over whole vectors of a 1-D launch
    /// ([`Lx::vthread_loop`]).
    whole: bool,
}

/// The array params of `f` that the kernel only stores into: every use
/// is as the array of a `store` (no load, atomic, shape query, or copy
/// into another value). Their dense vector stores may be streaming
/// (non-temporal) stores: nothing in the kernel reads the lines back, so
/// bringing them into the cache (the read-for-ownership of a normal
/// store, then the eviction of other data) is traffic for nothing.
pub(crate) fn streamed_params(f: &weft_ir::Function) -> Vec<Value> {
    let Some(body) = f.regions.get(f.body) else {
        return Vec::new();
    };
    let arrays: Vec<Value> = body
        .params
        .iter()
        .copied()
        .filter(|&v| matches!(f.value_type(v), Type::Array(_)))
        .collect();
    let mut stores: HashMap<Value, usize> = HashMap::new();
    let mut other: std::collections::HashSet<Value> = std::collections::HashSet::new();
    weft_ir::info::for_each_inst(f, &mut |i| {
        let kind = &f.insts[i].kind;
        let stored = match kind {
            InstKind::Store(m, _) => Some(m.array),
            _ => None,
        };
        let mut skipped = false;
        for a in kind.args() {
            if !arrays.contains(&a) {
                continue;
            }
            if Some(a) == stored && !skipped {
                skipped = true;
                *stores.entry(a).or_default() += 1;
            } else {
                other.insert(a);
            }
        }
    });
    arrays
        .into_iter()
        .filter(|v| stores.contains_key(v) && !other.contains(v))
        .collect()
}

/// True if a terminator in `r` may take lanes out of the region: a
/// `return` or trap anywhere, or a `break`/`continue` of a loop around
/// `r` (`depth` counts the loops entered inside it).
fn leaves(f: &weft_ir::Function, r: Region, depth: u32) -> bool {
    let Some(rd) = f.regions.get(r) else {
        return false;
    };
    rd.insts.iter().any(|&i| match &f.insts[i].kind {
        InstKind::Return(_) | InstKind::Trap(..) => true,
        InstKind::Break(_) | InstKind::Continue(_) => depth == 0,
        InstKind::If {
            then_region,
            else_region,
            ..
        } => leaves(f, *then_region, depth) || leaves(f, *else_region, depth),
        InstKind::Loop { body, .. } => leaves(f, *body, depth + 1),
        _ => false,
    })
}

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    fn vx(&self) -> Result<&Vx<'ctx>> {
        self.st
            .vx
            .as_ref()
            .ok_or_else(|| Error::Llvm("vector state outside the vector tier".into()))
    }

    fn vx_mut(&mut self) -> Result<&mut Vx<'ctx>> {
        self.st
            .vx
            .as_mut()
            .ok_or_else(|| Error::Llvm("vector state outside the vector tier".into()))
    }

    fn width(&self) -> u32 {
        self.st.vx.as_ref().map_or(1, |v| v.w)
    }

    fn vty(&self, t: BasicTypeEnum<'ctx>) -> Result<VectorType<'ctx>> {
        let w = self.width();
        Ok(match t {
            BasicTypeEnum::IntType(i) => i.vec_type(w),
            BasicTypeEnum::FloatType(f) => f.vec_type(w),
            BasicTypeEnum::PointerType(p) => p.vec_type(w),
            _ => return self.invalid("a vector of a non-scalar slot"),
        })
    }

    fn word_type(&self, size: u32) -> inkwell::types::IntType<'ctx> {
        if size == 8 {
            self.ctx.i64_type()
        } else {
            self.ctx.i32_type()
        }
    }

    /// Calls an intrinsic that returns nothing (masked stores, scatters).
    fn call_intr_void(
        &self,
        name: &str,
        tys: &[BasicTypeEnum<'ctx>],
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<()> {
        let f = self.intrinsic(name, tys)?;
        let a: Vec<inkwell::values::BasicMetadataValueEnum> =
            args.iter().map(|&v| v.into()).collect();
        self.b.build_call(f, &a, "")?;
        Ok(())
    }

    fn i32c(&self, x: u64) -> IntValue<'ctx> {
        self.ctx.i32_type().const_int(x, false)
    }

    fn splat(&self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        let vt = self.vty(x.get_type())?;
        let v = self
            .b
            .build_insert_element(vt.get_poison(), x, self.i32c(0), "")?;
        let zeros = self.ctx.i32_type().vec_type(self.width()).const_zero();
        Ok(self
            .b
            .build_shuffle_vector(v, vt.get_poison(), zeros, "")?
            .into())
    }

    fn shuffle_mask(&self, idx: &[u32]) -> VectorValue<'ctx> {
        let v: Vec<IntValue> = idx.iter().map(|&i| self.i32c(i as u64)).collect();
        VectorType::const_vector(&v)
    }

    fn is_var(&self, v: Value) -> bool {
        self.st.vx.as_ref().is_some_and(|x| x.uni.is_varying(v))
    }

    /// `v`'s slots as vectors (a uniform value broadcast).
    fn vget(&mut self, v: Value) -> Result<Vec<BasicValueEnum<'ctx>>> {
        if let Some(s) = self.vx()?.vmap.get(&v) {
            return Ok(s.clone());
        }
        if self.is_var(v) {
            return self.invalid(format!("use of undefined varying value {v}"));
        }
        let sc = self.get(v)?;
        sc.into_iter().map(|x| self.splat(x)).collect()
    }

    fn vget1(&mut self, v: Value) -> Result<BasicValueEnum<'ctx>> {
        match self.vget(v)?.as_slice() {
            [x] => Ok(*x),
            _ => self.invalid(format!("{v} is not a scalar")),
        }
    }

    fn vdef(&mut self, v: Value, slots: Vec<BasicValueEnum<'ctx>>) -> Result<()> {
        self.vx_mut()?.vmap.insert(v, slots);
        Ok(())
    }

    fn vdef_results(&mut self, inst: Inst, slots: Vec<BasicValueEnum<'ctx>>) -> Result<()> {
        let rs = self.cur().insts[inst].results.clone();
        let mut it = slots.into_iter();
        for r in rs {
            let n = self.flat(self.cur().value_type(r)).len();
            let part: Vec<_> = it.by_ref().take(n).collect();
            if part.len() != n {
                return self.invalid("value count mismatch");
            }
            self.vdef(r, part)?;
        }
        Ok(())
    }

    fn mask(&self) -> Result<VectorValue<'ctx>> {
        Ok(self.vx()?.mask)
    }

    fn set_mask(&mut self, m: VectorValue<'ctx>) -> Result<()> {
        self.vx_mut()?.mask = m;
        Ok(())
    }

    fn mask_ty(&self) -> VectorType<'ctx> {
        self.ctx.bool_type().vec_type(self.width())
    }

    pub(super) fn any(&self, m: VectorValue<'ctx>) -> Result<IntValue<'ctx>> {
        Ok(self
            .call_intr("llvm.vector.reduce.or", &[m.get_type().into()], &[m.into()])?
            .into_int_value())
    }

    fn end_block(&self) -> Result<BasicBlock<'ctx>> {
        self.vx()?
            .ends
            .last()
            .copied()
            .ok_or_else(|| Error::Llvm("a terminator outside every region".into()))
    }

    fn var(&mut self, ty: BasicTypeEnum<'ctx>, varying: bool) -> Result<Var<'ctx>> {
        let ty = if varying { self.vty(ty)?.into() } else { ty };
        Ok(Var {
            ptr: self.entry_alloca(ty)?,
            ty,
            varying,
        })
    }

    /// The vars of the values `vs` (one per slot).
    fn vars_of(&mut self, vs: &[Value]) -> Result<Vec<Var<'ctx>>> {
        let mut out = Vec::new();
        for &v in vs {
            let varying = self.is_var(v);
            for t in self.types_of(self.cur().value_type(v)) {
                out.push(self.var(t, varying)?);
            }
        }
        Ok(out)
    }

    /// `vals`'s slots in the representation of `to` (broadcast when `to`
    /// is varying).
    fn slots_for(&mut self, vals: &[Value], to: &[Var<'ctx>]) -> Result<Vec<BasicValueEnum<'ctx>>> {
        let mut out = Vec::new();
        let mut k = 0;
        for &v in vals {
            let n = self.flat(self.cur().value_type(v)).len();
            let varying = to.get(k).is_some_and(|t| t.varying);
            out.extend(if varying { self.vget(v)? } else { self.get(v)? });
            k += n;
        }
        if out.len() != to.len() {
            return self.invalid("value count mismatch");
        }
        Ok(out)
    }

    /// Stores `vals` into `to`: into every lane when `plain`, else into the
    /// current mask's lanes.
    fn store_vars(
        &mut self,
        to: &[Var<'ctx>],
        vals: &[BasicValueEnum<'ctx>],
        plain: bool,
    ) -> Result<()> {
        let m = self.mask()?;
        for (t, &v) in to.iter().zip(vals) {
            let v = if t.varying && !plain {
                let old = self.b.build_load(t.ty, t.ptr, "")?;
                self.b.build_select(m, v, old, "")?
            } else {
                v
            };
            self.b.build_store(t.ptr, v)?;
        }
        Ok(())
    }

    /// Defines the values `vs` from the vars `from`.
    fn load_vars(&mut self, vs: &[Value], from: &[Var<'ctx>]) -> Result<()> {
        let mut k = 0;
        for &v in vs {
            let n = self.flat(self.cur().value_type(v)).len();
            let Some(part) = from.get(k..k + n) else {
                return self.invalid("value count mismatch");
            };
            let mut slots = Vec::with_capacity(n);
            for t in part {
                slots.push(self.b.build_load(t.ty, t.ptr, "")?);
            }
            if part.first().is_some_and(|t| t.varying) || (n == 0 && self.is_var(v)) {
                self.vdef(v, slots)?;
            } else {
                self.def(v, &slots);
            }
            k += n;
        }
        Ok(())
    }

    fn or_mask(&mut self, at: PointerValue<'ctx>) -> Result<()> {
        let m = self.mask()?;
        let old = self
            .b
            .build_load(self.mask_ty(), at, "")?
            .into_vector_value();
        let new = self.b.build_or(old, m, "")?;
        self.b.build_store(at, new)?;
        Ok(())
    }

    // ---- the kernel ----

    /// A kernel's host entry in the vector tier: the thread range
    /// `start..end` in chunks of `w` threads.
    pub(super) fn spmd_kernel_body(
        &mut self,
        f: &'m weft_ir::Function,
        fv: FunctionValue<'ctx>,
        w: u32,
        uni: Uniformity,
    ) -> Result<()> {
        let i64t = self.ctx.i64_type();
        let entry = self.new_block("entry")?;
        self.switch_to(entry);
        self.set_loc(f.loc);
        let (Some(args), Some(start), Some(end)) = (
            fv.get_nth_param(0).map(|p| p.into_pointer_value()),
            fv.get_nth_param(1).map(|p| p.into_int_value()),
            fv.get_nth_param(2).map(|p| p.into_int_value()),
        ) else {
            return Err(Error::Llvm("host kernel signature".into()));
        };
        self.st.args = Some(args);
        self.load_params(f, args)?;
        let lanes: Vec<IntValue> = (0..w).map(|l| i64t.const_int(l as u64, false)).collect();
        let lanes = VectorType::const_vector(&lanes);
        let mt = self.ctx.bool_type().vec_type(w);
        self.st.vx = Some(Vx {
            w,
            uni,
            vmap: HashMap::new(),
            mask: mt.const_zero(),
            tid: lanes,
            ends: Vec::new(),
            yields: Vec::new(),
            loops: Vec::new(),
            accs: HashMap::new(),
            streams: HashMap::new(),
            whole: false,
        });
        self.begin_accs(f)?;
        self.begin_streams(f)?;
        let range = self.new_block("vrange")?;
        let exit = self.new_block("exit")?;
        let c = self
            .b
            .build_int_compare(IntPredicate::SLT, start, end, "")?;
        self.b.build_conditional_branch(c, range, exit)?;
        // The range's whole vectors of a 1-D launch run a version of the
        // body that knows both facts ("Loop shape" in docs/vector.md);
        // the rest (a last partial vector, or every vector of a launch of
        // more dimensions) runs the general one.
        self.switch_to(range);
        let one_d = self.one_d_launch(args)?;
        let n = self.b.build_int_sub(end, start, "")?;
        let wv = i64t.const_int(w as u64, false);
        let rem = self.b.build_int_signed_rem(n, wv, "")?;
        let whole_end = self.b.build_int_sub(end, rem, "whole_end")?;
        let has_whole = self
            .b
            .build_int_compare(IntPredicate::SGT, whole_end, start, "")?;
        let go = self.b.build_and(one_d, has_whole, "")?;
        let whole = self.new_block("vwhole")?;
        let tail = self.new_block("vtail")?;
        let general = self.new_block("vthread")?;
        let br = self.b.build_conditional_branch(go, whole, general)?;
        // Most of a range is whole vectors: the weights tell the register
        // allocator which loop is hot (without them it spilled saxpy's
        // array pointers in the whole-vector loop, for the general loop's
        // lane-wise `tid()` split).
        let prof = self.ctx.metadata_node(&[
            self.ctx.metadata_string("branch_weights").into(),
            self.i32c(1000).into(),
            self.i32c(1).into(),
        ]);
        br.set_metadata(prof, self.ctx.get_kind_id("prof"))
            .map_err(|e| Error::Llvm(e.to_string()))?;
        self.vthread_loop(f, whole, &[(start, range)], whole_end, true, tail)?;
        self.switch_to(tail);
        let more = self
            .b
            .build_int_compare(IntPredicate::SLT, whole_end, end, "")?;
        self.b.build_conditional_branch(more, general, exit)?;
        self.vthread_loop(
            f,
            general,
            &[(start, range), (whole_end, tail)],
            end,
            false,
            exit,
        )?;
        self.switch_to(exit);
        self.finish_accs()?;
        if !self.vx()?.streams.is_empty() {
            // Streaming stores are weakly ordered: fence them before the
            // range ends, so whoever waits for the launch sees them.
            self.call_intr_void("llvm.x86.sse.sfence", &[], &[])?;
        }
        self.b.build_return(None)?;
        self.st.vx = None;
        Ok(())
    }

    /// The loop over thread vectors at `body`: from the `(start, block)`
    /// of each predecessor, `w` threads an iteration while below `bound`,
    /// then on to `after`. `whole`: every iteration is a whole vector of a
    /// 1-D launch (the mask is all on, the launch dims 1 to 3 are 1, and
    /// the thread ids are consecutive `i32`s), which the body's code folds.
    fn vthread_loop(
        &mut self,
        f: &'m weft_ir::Function,
        body: BasicBlock<'ctx>,
        from: &[(IntValue<'ctx>, BasicBlock<'ctx>)],
        bound: IntValue<'ctx>,
        whole: bool,
        after: BasicBlock<'ctx>,
    ) -> Result<()> {
        let i64t = self.ctx.i64_type();
        let w = self.width();
        let latch = self.new_block(if whole { "vwhole_next" } else { "vnext" })?;
        self.switch_to(body);
        let base = self.b.build_phi(i64t, "base")?;
        for (v, bb) in from {
            base.add_incoming(&[(v, *bb)]);
        }
        let basev = base.as_basic_value().into_int_value();
        let lanes: Vec<IntValue> = (0..w).map(|l| i64t.const_int(l as u64, false)).collect();
        let tid = self.b.build_int_add(
            self.splat(basev.into())?.into_vector_value(),
            VectorType::const_vector(&lanes),
            "tid",
        )?;
        let m = if whole {
            let on: Vec<IntValue> = (0..w)
                .map(|_| self.ctx.bool_type().const_all_ones())
                .collect();
            VectorType::const_vector(&on)
        } else {
            let endv = self.splat(bound.into())?.into_vector_value();
            self.b.build_int_compare(IntPredicate::SLT, tid, endv, "")?
        };
        self.st.tid = Some(basev);
        {
            let vx = self.vx_mut()?;
            vx.tid = tid;
            vx.mask = m;
            vx.whole = whole;
            vx.ends.clear();
            vx.ends.push(latch);
        }
        self.vregion(f.body)?;
        self.switch_to(latch);
        let next = self
            .b
            .build_int_add(basev, i64t.const_int(w as u64, false), "")?;
        base.add_incoming(&[(&next, latch)]);
        let c = self
            .b
            .build_int_compare(IntPredicate::SLT, next, bound, "")?;
        self.b.build_conditional_branch(c, body, after)?;
        self.vx_mut()?.whole = false;
        Ok(())
    }

    /// Whether the launch is 1-D: its dims 1 to 3 (the argument block's
    /// `i32`s at bytes 4, 8 and 12) are 1.
    fn one_d_launch(&mut self, args: PointerValue<'ctx>) -> Result<IntValue<'ctx>> {
        let i32t = self.ctx.i32_type();
        let mut all = self.ctx.bool_type().const_all_ones();
        for axis in 1..4u32 {
            let d = self
                .load_at(i32t.into(), args, 4 * axis, 4)?
                .into_int_value();
            let one =
                self.b
                    .build_int_compare(IntPredicate::EQ, d, i32t.const_int(1, false), "")?;
            all = self.b.build_and(all, one, "")?;
        }
        Ok(all)
    }

    /// In the loop over whole vectors of a 1-D launch ([`Lx::vthread_loop`]).
    pub(super) fn in_whole_vectors(&self) -> bool {
        self.st.vx.as_ref().is_some_and(|vx| vx.whole)
    }

    /// At the kernel's entry: for each param of [`streamed_params`], the
    /// flag "this array's extent (outer length × outer stride, bytes) is
    /// at least [`super::TargetCfg::stream_min_bytes`]". Off (0) or on a
    /// target other than x86-64, none.
    fn begin_streams(&mut self, f: &'m weft_ir::Function) -> Result<()> {
        let min = self.cfg.stream_min_bytes;
        if min == 0 || !cfg!(target_arch = "x86_64") {
            return Ok(());
        }
        let i64t = self.ctx.i64_type();
        for p in streamed_params(f) {
            let Type::Array(at) = f.value_type(p) else {
                continue;
            };
            let nd = at.ndim as usize;
            let leaves = self.get(p)?;
            let (Some(len), Some(stride)) = (leaves.get(1), leaves.get(1 + nd)) else {
                continue;
            };
            let len = self
                .b
                .build_int_cast_sign_flag(len.into_int_value(), i64t, false, "")?;
            let stride =
                self.b
                    .build_int_cast_sign_flag(stride.into_int_value(), i64t, true, "")?;
            let bytes = self.b.build_int_mul(len, stride, "")?;
            let big = self.b.build_int_compare(
                IntPredicate::SGE,
                bytes,
                i64t.const_int(min, false),
                "stream",
            )?;
            self.vx_mut()?.streams.insert(p, big);
        }
        Ok(())
    }

    /// Whether every lane of the current mask is on (an `i1`).
    /// Branches on whether every lane is on, continuing in the new block
    /// for that case; returns the block for the other case and the block
    /// `done` where both are to end.
    fn branch_on_all_on(&mut self, done: &str) -> Result<(BasicBlock<'ctx>, BasicBlock<'ctx>)> {
        let on = self.all_on()?;
        let full = self.new_block("full")?;
        let part = self.new_block("part")?;
        let done = self.new_block(done)?;
        self.b.build_conditional_branch(on, full, part)?;
        self.switch_to(full);
        Ok((part, done))
    }

    fn all_on(&mut self) -> Result<IntValue<'ctx>> {
        let m = self.mask()?;
        Ok(self
            .call_intr(
                "llvm.vector.reduce.and",
                &[m.get_type().into()],
                &[m.into()],
            )?
            .into_int_value())
    }

    /// The dense load of `wt` (`W * p` words of `sz` bytes) at `base`
    /// under the word mask `wm`: plain vector loads when every lane is on
    /// (the lanes' elements are all in bounds, so are the words of them
    /// no slot reads), else masked loads. A masked load streams at half
    /// the speed of a plain one on AMD Zen 5 (`docs/vector.md`, "Loop
    /// shape"), and a full vector is every iteration but a range's last.
    /// Only pieces of `W` words cross the blocks: a `<48 x i32>` phi (a
    /// `vec3` array at 16 lanes) is scalarized by LLVM's instruction
    /// selection into 48 loads and inserts.
    fn dense_load(
        &mut self,
        wt: VectorType<'ctx>,
        base: PointerValue<'ctx>,
        wm: VectorValue<'ctx>,
        sz: u32,
    ) -> Result<VectorValue<'ctx>> {
        let w = self.width();
        let p = wt.get_size() / w;
        let pt = wt.get_element_type().into_int_type().vec_type(w);
        let mut wms = Vec::with_capacity(p as usize);
        for k in 0..p {
            wms.push(self.piece(wm, k)?);
        }
        let (part, done) = self.branch_on_all_on("loaded")?;
        let mut plain = Vec::with_capacity(p as usize);
        for k in 0..p {
            let at = self.piece_ptr(base, k, sz)?;
            let v = self.b.build_load(pt, at, "")?;
            if let Some(i) = v.as_instruction_value() {
                i.set_alignment(sz)
                    .map_err(|e| Error::Llvm(e.to_string()))?;
            }
            plain.push(v);
        }
        let full_end = self.cur_block()?;
        self.b.build_unconditional_branch(done)?;
        self.switch_to(part);
        let align = self.i32c(sz as u64);
        let mut masked = Vec::with_capacity(p as usize);
        for (k, m) in wms.iter().enumerate() {
            let at = self.piece_ptr(base, k as u32, sz)?;
            masked.push(self.call_intr(
                "llvm.masked.load",
                &[pt.into(), at.get_type().into()],
                &[at.into(), align.into(), (*m).into(), pt.get_poison().into()],
            )?);
        }
        let part_end = self.cur_block()?;
        self.b.build_unconditional_branch(done)?;
        self.switch_to(done);
        let mut pieces = Vec::with_capacity(p as usize);
        for (a, b) in plain.iter().zip(&masked) {
            let phi = self.b.build_phi(pt, "")?;
            phi.add_incoming(&[(a, full_end), (b, part_end)]);
            pieces.push(phi.as_basic_value().into_vector_value());
        }
        self.concat(&pieces, wt)
    }

    fn cur_block(&self) -> Result<BasicBlock<'ctx>> {
        self.b
            .get_insert_block()
            .ok_or_else(|| Error::Llvm("builder not positioned".into()))
    }

    /// `base + k * W * sz` bytes: piece `k` of a dense access.
    fn piece_ptr(
        &mut self,
        base: PointerValue<'ctx>,
        k: u32,
        sz: u32,
    ) -> Result<PointerValue<'ctx>> {
        if k == 0 {
            return Ok(base);
        }
        let off = (k * self.width() * sz) as u64;
        let off = self.ctx.i64_type().const_int(off, false);
        // SAFETY: address arithmetic only, inside the access's elements.
        Ok(unsafe { self.b.build_gep(self.ctx.i8_type(), base, &[off], "")? })
    }

    /// The pieces (`W` words each) one after the other, as `wt`.
    fn concat(
        &mut self,
        pieces: &[VectorValue<'ctx>],
        wt: VectorType<'ctx>,
    ) -> Result<VectorValue<'ctx>> {
        let [first, rest @ ..] = pieces else {
            return self.invalid("a dense access of no pieces");
        };
        if rest.is_empty() {
            return Ok(*first);
        }
        let w = self.width();
        let n = wt.get_size();
        let wide_idx: Vec<u32> = (0..n).map(|i| i.min(w - 1)).collect();
        let mut all = wt.get_poison();
        for (k, piece) in pieces.iter().enumerate() {
            let k = k as u32;
            let wide = self.b.build_shuffle_vector(
                *piece,
                piece.get_type().get_poison(),
                self.shuffle_mask(&wide_idx),
                "",
            )?;
            let idx: Vec<u32> = (0..n)
                .map(|i| if i / w == k { n + i - k * w } else { i })
                .collect();
            all = self
                .b
                .build_shuffle_vector(all, wide, self.shuffle_mask(&idx), "")?;
        }
        Ok(all)
    }

    /// Piece `k` (`W` lanes) of `v`.
    fn piece(&mut self, v: VectorValue<'ctx>, k: u32) -> Result<VectorValue<'ctx>> {
        let w = self.width();
        if v.get_type().get_size() == w {
            return Ok(v);
        }
        let idx: Vec<u32> = (k * w..(k + 1) * w).collect();
        Ok(self.b.build_shuffle_vector(
            v,
            v.get_type().get_poison(),
            self.shuffle_mask(&idx),
            "",
        )?)
    }

    /// The dense store of `all` (`W * p` words of `sz` bytes) at `base`
    /// under the word mask `wm`, in pieces of `W` words (see
    /// [`Lx::dense_load`]). When every word of each element is written
    /// (`whole`) and every lane is on: plain vector stores, or, into an
    /// array of [`streamed_params`] large enough at an address aligned
    /// for the vector's pieces, streaming (non-temporal) stores.
    /// Otherwise masked stores.
    fn dense_store(
        &mut self,
        array: Value,
        whole: bool,
        all: VectorValue<'ctx>,
        base: PointerValue<'ctx>,
        wm: VectorValue<'ctx>,
        sz: u32,
    ) -> Result<()> {
        let w = self.width();
        let p = all.get_type().get_size() / w;
        let mut pieces = Vec::with_capacity(p as usize);
        let mut wms = Vec::with_capacity(p as usize);
        for k in 0..p {
            pieces.push(self.piece(all, k)?);
            wms.push(self.piece(wm, k)?);
        }
        let masked = |lx: &mut Self| -> Result<()> {
            let align = lx.i32c(sz as u64);
            for (k, (v, m)) in pieces.iter().zip(&wms).enumerate() {
                let at = lx.piece_ptr(base, k as u32, sz)?;
                lx.call_intr_void(
                    "llvm.masked.store",
                    &[v.get_type().into(), at.get_type().into()],
                    &[(*v).into(), at.into(), align.into(), (*m).into()],
                )?;
            }
            Ok(())
        };
        if !whole {
            return masked(self);
        }
        let (part, done) = self.branch_on_all_on("stored")?;
        let stream = self.vx()?.streams.get(&array).copied();
        if let Some(stream) = stream {
            // Each piece is stored in parts of at most 64 bytes (a zmm),
            // each aligned to its size: the base aligned to the piece's
            // bytes (at most 64) aligns them all.
            let bytes = (w * sz) as u64;
            let align = (1u64 << bytes.trailing_zeros()).min(64);
            let i64t = self.ctx.i64_type();
            let addr = self.b.build_ptr_to_int(base, i64t, "")?;
            let low = self
                .b
                .build_and(addr, i64t.const_int(align - 1, false), "")?;
            let aligned = self
                .b
                .build_int_compare(IntPredicate::EQ, low, i64t.const_zero(), "")?;
            let c = self.b.build_and(stream, aligned, "")?;
            let nt = self.new_block("stream")?;
            let plain = self.new_block("plain")?;
            self.b.build_conditional_branch(c, nt, plain)?;
            self.switch_to(nt);
            let kind = self.ctx.get_kind_id("nontemporal");
            let one = self.ctx.metadata_node(&[self.i32c(1).into()]);
            for (k, v) in pieces.iter().enumerate() {
                let at = self.piece_ptr(base, k as u32, sz)?;
                let st = self.b.build_store(at, *v)?;
                st.set_alignment(align as u32)
                    .map_err(|e| Error::Llvm(e.to_string()))?;
                st.set_metadata(one, kind)
                    .map_err(|e| Error::Llvm(e.to_string()))?;
            }
            self.b.build_unconditional_branch(done)?;
            self.switch_to(plain);
        }
        for (k, v) in pieces.iter().enumerate() {
            let at = self.piece_ptr(base, k as u32, sz)?;
            let st = self.b.build_store(at, *v)?;
            st.set_alignment(sz)
                .map_err(|e| Error::Llvm(e.to_string()))?;
        }
        self.b.build_unconditional_branch(done)?;
        self.switch_to(part);
        masked(self)?;
        self.b.build_unconditional_branch(done)?;
        self.switch_to(done);
        Ok(())
    }

    fn vregion(&mut self, r: Region) -> Result<()> {
        let f = self.cur();
        let Some(rd) = f.regions.get(r) else {
            return self.invalid(format!("no region {r}"));
        };
        for &inst in &rd.insts {
            if self.st.filled {
                return self.invalid("instruction after a terminator");
            }
            self.vinst(inst)?;
        }
        if !self.st.filled {
            return self.invalid(format!("{r} does not end in a terminator"));
        }
        Ok(())
    }

    /// After a construct that may have taken lanes out: skips to the end
    /// of the enclosing region when none is left.
    fn skip_if_empty(&mut self) -> Result<()> {
        let m = self.mask()?;
        let any = self.any(m)?;
        let cont = self.new_block("lanes")?;
        let end = self.end_block()?;
        self.b.build_conditional_branch(any, cont, end)?;
        self.switch_to(cont);
        Ok(())
    }

    fn vinst(&mut self, inst: Inst) -> Result<()> {
        self.begin_inst(inst);
        let f = self.cur();
        let data = &f.insts[inst];
        match &data.kind {
            InstKind::If {
                cond,
                then_region,
                else_region,
            } => return self.vif(inst, *cond, *then_region, *else_region),
            InstKind::Loop { init, body } => return self.vloop(inst, init, *body),
            InstKind::Yield(vs) => return self.vyield(vs),
            InstKind::Continue(vs) => return self.vcontinue(vs),
            InstKind::Break(vs) => return self.vbreak(vs),
            InstKind::Return(_) => {
                let end = self.end_block()?;
                self.b.build_unconditional_branch(end)?;
                self.st.filled = true;
                return Ok(());
            }
            InstKind::Trap(..) => return self.unsupported("a trap in the vector tier"),
            _ => {}
        }
        let per_lane = matches!(
            data.kind,
            InstKind::Atomic(..)
                | InstKind::AtomicCas(..)
                | InstKind::Print(..)
                | InstKind::Call(..)
        );
        let varying = data.kind.args().iter().any(|&v| self.is_var(v))
            || data.results.iter().any(|&r| self.is_var(r));
        if let InstKind::Atomic(..) = data.kind {
            if self.vx()?.accs.contains_key(&inst) {
                return self.vreduce(inst);
            }
        }
        if !per_lane && !varying {
            return self.inst(inst, None);
        }
        if !per_lane && self.vector_form(inst)? {
            return Ok(());
        }
        let guarded = per_lane || matches!(data.kind, InstKind::Load(_) | InstKind::Store(..));
        self.lanewise(inst, guarded)
    }

    // ---- control flow ----

    fn vif(&mut self, inst: Inst, cond: Value, tr: Region, er: Region) -> Result<()> {
        let f = self.cur();
        let results = f.insts[inst].results.to_vec();
        let vc = self.is_var(cond);
        let m = self.mask()?;
        let vals = self.vars_of(&results)?;
        let ymask = self.entry_alloca(self.mask_ty().into())?;
        self.b.build_store(ymask, self.mask_ty().const_zero())?;
        let (mt, me, c) = if vc {
            let c = self.vget1(cond)?.into_vector_value();
            let nc = self.b.build_not(c, "")?;
            (
                self.b.build_and(m, c, "")?,
                self.b.build_and(m, nc, "")?,
                None,
            )
        } else {
            (m, m, Some(self.cond(cond)?))
        };
        let then_b = self.new_block("vthen")?;
        let mid_b = self.new_block("vmid")?;
        let else_b = self.new_block("velse")?;
        let end_b = self.new_block("vendif")?;
        match c {
            Some(c) => self.b.build_conditional_branch(c, then_b, mid_b)?,
            None => {
                let a = self.any(mt)?;
                self.b.build_conditional_branch(a, then_b, mid_b)?
            }
        };
        for (region, mask, block, next) in [(tr, mt, then_b, mid_b), (er, me, else_b, end_b)] {
            self.switch_to(block);
            self.set_mask(mask)?;
            {
                let vx = self.vx_mut()?;
                vx.ends.push(next);
                vx.yields.push(YieldTo {
                    mask: ymask,
                    vals: vals.clone(),
                    plain: !vc,
                });
            }
            let r = self.vregion(region);
            let vx = self.vx_mut()?;
            vx.ends.pop();
            vx.yields.pop();
            r?;
            if next == mid_b {
                self.switch_to(mid_b);
                match c {
                    Some(c) => self.b.build_conditional_branch(c, end_b, else_b)?,
                    None => {
                        let a = self.any(me)?;
                        self.b.build_conditional_branch(a, else_b, end_b)?
                    }
                };
            }
        }
        self.switch_to(end_b);
        let nm = self
            .b
            .build_load(self.mask_ty(), ymask, "")?
            .into_vector_value();
        self.set_mask(nm)?;
        self.load_vars(&results, &vals)?;
        if leaves(f, tr, 0) || leaves(f, er, 0) {
            self.skip_if_empty()?;
        }
        Ok(())
    }

    fn vyield(&mut self, vs: &[Value]) -> Result<()> {
        let Some(y) = self.vx()?.yields.last() else {
            return self.invalid("yield outside an if");
        };
        let (ymask, vars, plain) = (y.mask, y.vals.clone(), y.plain);
        self.hand_over(vs, &vars, ymask, plain)
    }

    fn vloop(&mut self, inst: Inst, init: &[Value], body: Region) -> Result<()> {
        let f = self.cur();
        let Some(rd) = f.regions.get(body) else {
            return self.invalid("loop without a body");
        };
        let params = rd.params.clone();
        let results = f.insts[inst].results.to_vec();
        let divergent = self.vx()?.uni.is_divergent(inst);
        let pvars = self.vars_of(&params)?;
        let rvars = self.vars_of(&results)?;
        let mt = self.mask_ty();
        let lmask = self.entry_alloca(mt.into())?;
        let cont = self.entry_alloca(mt.into())?;
        let brk = self.entry_alloca(mt.into())?;
        let iv = self.slots_for(init, &pvars)?;
        self.store_vars(&pvars, &iv, true)?;
        let m = self.mask()?;
        self.b.build_store(lmask, m)?;
        self.b.build_store(brk, mt.const_zero())?;
        let header = self.new_block("vloop")?;
        let latch = self.new_block("vlatch")?;
        let exit = self.new_block("vendloop")?;
        self.b.build_unconditional_branch(header)?;
        self.switch_to(header);
        let mi = self.b.build_load(mt, lmask, "")?.into_vector_value();
        self.b.build_store(cont, mt.const_zero())?;
        self.set_mask(mi)?;
        self.load_vars(&params, &pvars)?;
        {
            let vx = self.vx_mut()?;
            vx.ends.push(latch);
            vx.loops.push(LoopTo {
                params: pvars,
                results: rvars.clone(),
                cont,
                brk,
                divergent,
            });
        }
        let r = self.vregion(body);
        let vx = self.vx_mut()?;
        vx.ends.pop();
        vx.loops.pop();
        r?;
        self.switch_to(latch);
        let mn = self.b.build_load(mt, cont, "")?.into_vector_value();
        self.b.build_store(lmask, mn)?;
        let a = self.any(mn)?;
        self.b.build_conditional_branch(a, header, exit)?;
        self.switch_to(exit);
        let mb = self.b.build_load(mt, brk, "")?.into_vector_value();
        self.set_mask(mb)?;
        self.load_vars(&results, &rvars)?;
        if leaves(f, body, 1) {
            self.skip_if_empty()?;
        }
        Ok(())
    }

    fn vcontinue(&mut self, vs: &[Value]) -> Result<()> {
        let Some(l) = self.vx()?.loops.last() else {
            return self.invalid("continue outside a loop");
        };
        let (vars, at, plain) = (l.params.clone(), l.cont, !l.divergent);
        self.hand_over(vs, &vars, at, plain)
    }

    fn vbreak(&mut self, vs: &[Value]) -> Result<()> {
        let Some(l) = self.vx()?.loops.last() else {
            return self.invalid("break outside a loop");
        };
        let (vars, at, plain) = (l.results.clone(), l.brk, !l.divergent);
        self.hand_over(vs, &vars, at, plain)
    }

    /// A `yield`, `continue` or `break`: the lanes of the mask store `vs`
    /// into `vars` and join the mask at `at`; the region ends.
    fn hand_over(
        &mut self,
        vs: &[Value],
        vars: &[Var<'ctx>],
        at: PointerValue<'ctx>,
        plain: bool,
    ) -> Result<()> {
        let slots = self.slots_for(vs, vars)?;
        self.store_vars(vars, &slots, plain)?;
        self.or_mask(at)?;
        let end = self.end_block()?;
        self.b.build_unconditional_branch(end)?;
        self.st.filled = true;
        Ok(())
    }

    // ---- instructions, lane by lane ----

    /// `inst` once per lane by the scalar lowering, each lane's varying
    /// operands extracted; when `guarded`, only in the lanes of the mask.
    fn lanewise(&mut self, inst: Inst, guarded: bool) -> Result<()> {
        let f = self.cur();
        let data = &f.insts[inst];
        let mut ops: Vec<Value> = data.kind.args().into_vec();
        ops.sort_unstable();
        ops.dedup();
        ops.retain(|&v| self.is_var(v));
        let rtypes: Vec<BasicTypeEnum> = data
            .results
            .iter()
            .flat_map(|&r| self.types_of(f.value_type(r)))
            .collect();
        let mut acc: Vec<BasicValueEnum> = Vec::with_capacity(rtypes.len());
        for &t in &rtypes {
            acc.push(self.vty(t)?.get_poison().into());
        }
        let m = self.mask()?;
        for lane in 0..self.width() {
            let li = self.i32c(lane as u64);
            for &v in &ops {
                let slots = self.vget(v)?;
                let mut one = Vec::with_capacity(slots.len());
                for s in slots {
                    one.push(
                        self.b
                            .build_extract_element(s.into_vector_value(), li, "")?,
                    );
                }
                self.def(v, &one);
            }
            let outs = if guarded {
                let bit = self.b.build_extract_element(m, li, "")?.into_int_value();
                let run = self.new_block("lane")?;
                let join = self.new_block("lane_end")?;
                let Some(from) = self.b.get_insert_block() else {
                    return Err(Error::Llvm("builder not positioned".into()));
                };
                self.b.build_conditional_branch(bit, run, join)?;
                self.switch_to(run);
                self.inst(inst, None)?;
                let outs = self.result_slots(inst)?;
                let Some(ran) = self.b.get_insert_block() else {
                    return Err(Error::Llvm("builder not positioned".into()));
                };
                self.b.build_unconditional_branch(join)?;
                self.switch_to(join);
                let mut merged = Vec::with_capacity(outs.len());
                for (o, &t) in outs.iter().zip(&rtypes) {
                    let p = self.b.build_phi(t, "")?;
                    let poison = poison_of(t);
                    p.add_incoming(&[(o as &dyn BasicValue, ran), (&poison, from)]);
                    merged.push(p.as_basic_value());
                }
                merged
            } else {
                self.inst(inst, None)?;
                self.result_slots(inst)?
            };
            for (a, o) in acc.iter_mut().zip(outs) {
                *a = self
                    .b
                    .build_insert_element(a.into_vector_value(), o, li, "")?
                    .into();
            }
        }
        self.vdef_results(inst, acc)
    }

    fn result_slots(&self, inst: Inst) -> Result<Vec<BasicValueEnum<'ctx>>> {
        let mut out = Vec::new();
        for &r in &self.cur().insts[inst].results {
            out.extend(self.get(r)?);
        }
        Ok(out)
    }

    // ---- instructions with a vector form ----

    /// Lowers a varying `inst` with vector instructions; false when it has
    /// no vector form here (it is then lowered lane by lane).
    fn vector_form(&mut self, inst: Inst) -> Result<bool> {
        let f = self.cur();
        let data = &f.insts[inst];
        let vec_scalar = |s: Scalar| !matches!(s, Scalar::F16 | Scalar::BF16);
        let out: BasicValueEnum = match &data.kind {
            InstKind::ThreadId if self.in_whole_vectors() => {
                // `splat(i32(base)) + lanes`: consecutive as the IR's
                // values, so a dense access's check folds away.
                let i32t = self.ctx.i32_type();
                let base = self
                    .st
                    .tid
                    .ok_or_else(|| Error::Llvm("no thread base".into()))?;
                let b32 = self.b.build_int_truncate(base, i32t, "")?;
                let lanes: Vec<IntValue> = (0..self.width())
                    .map(|l| i32t.const_int(l as u64, false))
                    .collect();
                self.b
                    .build_int_add(
                        self.splat(b32.into())?.into_vector_value(),
                        VectorType::const_vector(&lanes),
                        "",
                    )?
                    .into()
            }
            InstKind::ThreadId => {
                let t = self.vx()?.tid;
                let i32v = self.ctx.i32_type().vec_type(self.width());
                self.b.build_int_truncate(t, i32v, "")?.into()
            }
            InstKind::Unary(op, x) => {
                let s = self.scalar_of(*x)?;
                if let Some(func) = MathFn::of_unary(*op) {
                    let (xv, m) = (self.vget1(*x)?.into_vector_value(), self.mask()?);
                    let Some(v) = self.vmath(func, s, &[xv], m)? else {
                        return Ok(false);
                    };
                    self.vdef_results(inst, vec![v])?;
                    return Ok(true);
                }
                if !vec_scalar(s) {
                    return Ok(false);
                }
                let xv = self.vget1(*x)?;
                let Some(v) = self.vunary(*op, s, xv)? else {
                    return Ok(false);
                };
                v
            }
            InstKind::Binary(op, a, b) => {
                let s = self.scalar_of(*a)?;
                if let Some(func) = binary_math(*op, s) {
                    let av = self.vget1(*a)?.into_vector_value();
                    let (bv, m) = (self.vget1(*b)?.into_vector_value(), self.mask()?);
                    let Some(v) = self.vmath(func, s, &[av, bv], m)? else {
                        return Ok(false);
                    };
                    self.vdef_results(inst, vec![v])?;
                    return Ok(true);
                }
                if !vec_scalar(s) {
                    return Ok(false);
                }
                let (av, bv) = (self.vget1(*a)?, self.vget1(*b)?);
                let Some(v) = self.vbinary(*op, s, av, bv)? else {
                    return Ok(false);
                };
                v
            }
            InstKind::Fma(a, b, c) => {
                let s = self.scalar_of(*a)?;
                if !vec_scalar(s) || !s.is_float() {
                    return Ok(false);
                }
                let (av, bv, cv) = (self.vget1(*a)?, self.vget1(*b)?, self.vget1(*c)?);
                let v = self.call_intr("llvm.fma", &[av.get_type()], &[av, bv, cv])?;
                self.fast_flags(v);
                v
            }
            InstKind::Cast(x, to) => {
                let s = self.scalar_of(*x)?;
                if !vec_scalar(s) || !vec_scalar(*to) {
                    return Ok(false);
                }
                let xv = self.vget1(*x)?;
                self.vcast(s, *to, xv)?
            }
            InstKind::Bitcast(x, to) => {
                let s = self.scalar_of(*x)?;
                if !vec_scalar(s) || !vec_scalar(*to) || s.size() != to.size() || s == Scalar::Bool
                {
                    return Ok(false);
                }
                let xv = self.vget1(*x)?;
                let t = self.vty(self.scalar_ty(*to))?;
                self.b.build_bit_cast(xv, t, "")?
            }
            InstKind::Select(c, a, b) => {
                let (av, bv) = (self.vget(*a)?, self.vget(*b)?);
                let mut out = Vec::with_capacity(av.len());
                if self.is_var(*c) {
                    let cv = self.vget1(*c)?.into_vector_value();
                    for (x, y) in av.into_iter().zip(bv) {
                        out.push(self.b.build_select(cv, x, y, "")?);
                    }
                } else {
                    let cv = self.cond(*c)?;
                    for (x, y) in av.into_iter().zip(bv) {
                        out.push(self.b.build_select(cv, x, y, "")?);
                    }
                }
                self.vdef_results(inst, out)?;
                return Ok(true);
            }
            InstKind::Make(_, parts) => {
                let mut out = Vec::new();
                for &p in parts {
                    out.extend(self.vget(p)?);
                }
                self.vdef_results(inst, out)?;
                return Ok(true);
            }
            InstKind::Extract(agg, path) => {
                let leaves = self.vget(*agg)?;
                let part = self.extract_part(f.value_type(*agg), path, &leaves)?;
                self.vdef_results(inst, part)?;
                return Ok(true);
            }
            InstKind::Insert(agg, path, v) => {
                let (leaves, vv) = (self.vget(*agg)?, self.vget(*v)?);
                let out = self.insert_part(f.value_type(*agg), path, leaves, &vv)?;
                self.vdef_results(inst, out)?;
                return Ok(true);
            }
            InstKind::Load(m) => return self.vload(inst, m),
            InstKind::Store(m, v) => return self.vstore(m, *v),
            _ => return Ok(false),
        };
        self.vdef_results(inst, vec![out])?;
        Ok(true)
    }

    fn vunary(
        &mut self,
        op: UnaryOp,
        s: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        use UnaryOp::*;
        let xv = x.into_vector_value();
        let fl = s.is_float();
        let v: BasicValueEnum = match op {
            Neg if fl => self.b.build_float_neg(xv, "")?.into(),
            Neg if s.is_int() => self.b.build_int_neg(xv, "")?.into(),
            Not if !fl => self.b.build_not(xv, "")?.into(),
            Abs if fl => self.fintr("llvm.fabs", x)?,
            Abs if s.is_unsigned_int() => x,
            Sqrt if fl => self.fintr("llvm.sqrt", x)?,
            Floor if fl => self.fintr("llvm.floor", x)?,
            Ceil if fl => self.fintr("llvm.ceil", x)?,
            Trunc if fl => self.fintr("llvm.trunc", x)?,
            Rint if fl => self.fintr("llvm.rint", x)?,
            Round if fl => self.fintr("llvm.round", x)?,
            Floor | Ceil | Trunc | Rint | Round if s.is_int() => x,
            _ => return Ok(None),
        };
        self.fast_flags(v);
        Ok(Some(v))
    }

    fn vbinary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        use BinaryOp::*;
        let (x, y) = (a.into_vector_value(), b.into_vector_value());
        let bb = &self.b;
        if s.is_float() {
            let cmp = |p| -> Result<BasicValueEnum<'ctx>> {
                Ok(bb.build_float_compare(p, x, y, "")?.into())
            };
            let v: BasicValueEnum = match op {
                Add => bb.build_float_add(x, y, "")?.into(),
                Sub => bb.build_float_sub(x, y, "")?.into(),
                Mul => bb.build_float_mul(x, y, "")?.into(),
                Div => bb.build_float_div(x, y, "")?.into(),
                Min | Max => return Ok(Some(self.fminmax(op == Min, s, a, b)?)),
                Copysign => {
                    return Ok(Some(self.call_intr(
                        "llvm.copysign",
                        &[a.get_type()],
                        &[a, b],
                    )?))
                }
                Eq => cmp(FloatPredicate::OEQ)?,
                Ne => cmp(FloatPredicate::UNE)?,
                Lt => cmp(FloatPredicate::OLT)?,
                Le => cmp(FloatPredicate::OLE)?,
                Gt => cmp(FloatPredicate::OGT)?,
                Ge => cmp(FloatPredicate::OGE)?,
                _ => return Ok(None),
            };
            self.fast_flags(v);
            return Ok(Some(v));
        }
        let signed = s.is_signed_int();
        let is_bool = s == Scalar::Bool;
        let pred = |sp: IntPredicate, up: IntPredicate| if signed { sp } else { up };
        let cmp =
            |p| -> Result<BasicValueEnum<'ctx>> { Ok(bb.build_int_compare(p, x, y, "")?.into()) };
        let minmax = |n: &str| self.call_intr(n, &[a.get_type()], &[a, b]);
        Ok(Some(match op {
            Add if !is_bool => bb.build_int_add(x, y, "")?.into(),
            Sub if !is_bool => bb.build_int_sub(x, y, "")?.into(),
            Mul if !is_bool => bb.build_int_mul(x, y, "")?.into(),
            Min if !is_bool => minmax(if signed { "llvm.smin" } else { "llvm.umin" })?,
            Max if !is_bool => minmax(if signed { "llvm.smax" } else { "llvm.umax" })?,
            And => bb.build_and(x, y, "")?.into(),
            Or => bb.build_or(x, y, "")?.into(),
            Xor => bb.build_xor(x, y, "")?.into(),
            Shl | Shr if !is_bool => {
                let bits = x
                    .get_type()
                    .get_element_type()
                    .into_int_type()
                    .get_bit_width();
                let k = self.splat(
                    self.scalar_ty(s)
                        .into_int_type()
                        .const_int(bits as u64 - 1, false)
                        .into(),
                )?;
                let amt = self.b.build_and(y, k.into_vector_value(), "")?;
                match op {
                    Shl => self.b.build_left_shift(x, amt, "")?.into(),
                    _ => self.b.build_right_shift(x, amt, signed, "")?.into(),
                }
            }
            Eq => cmp(IntPredicate::EQ)?,
            Ne => cmp(IntPredicate::NE)?,
            Lt => cmp(pred(IntPredicate::SLT, IntPredicate::ULT))?,
            Le => cmp(pred(IntPredicate::SLE, IntPredicate::ULE))?,
            Gt => cmp(pred(IntPredicate::SGT, IntPredicate::UGT))?,
            Ge => cmp(pred(IntPredicate::SGE, IntPredicate::UGE))?,
            _ => return Ok(None),
        }))
    }

    /// The scalar lowering's casts, on vectors (f16 and bf16 excluded).
    fn vcast(
        &mut self,
        from: Scalar,
        to: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        if from == to {
            return Ok(x);
        }
        let xv = x.into_vector_value();
        let tt = self.vty(self.scalar_ty(to))?;
        if to == Scalar::Bool {
            let zero = self.vty(self.scalar_ty(from))?.const_zero();
            return Ok(if from.is_float() {
                self.b
                    .build_float_compare(FloatPredicate::UNE, xv, zero, "")?
                    .into()
            } else {
                self.b
                    .build_int_compare(IntPredicate::NE, xv, zero, "")?
                    .into()
            });
        }
        if !from.is_float() && !to.is_float() {
            let width = |t: VectorType<'ctx>| t.get_element_type().into_int_type().get_bit_width();
            let (fb, tb) = (width(xv.get_type()), width(tt));
            return Ok(match fb.cmp(&tb) {
                std::cmp::Ordering::Equal => x,
                std::cmp::Ordering::Greater => self.b.build_int_truncate(xv, tt, "")?.into(),
                std::cmp::Ordering::Less if from.is_signed_int() => {
                    self.b.build_int_s_extend(xv, tt, "")?.into()
                }
                std::cmp::Ordering::Less => self.b.build_int_z_extend(xv, tt, "")?.into(),
            });
        }
        if !from.is_float() {
            return Ok(if from.is_signed_int() {
                self.b.build_signed_int_to_float(xv, tt, "")?.into()
            } else {
                self.b.build_unsigned_int_to_float(xv, tt, "")?.into()
            });
        }
        if to.is_float() {
            return Ok(if to == Scalar::F64 {
                self.b.build_float_ext(xv, tt, "")?.into()
            } else {
                self.b.build_float_trunc(xv, tt, "")?.into()
            });
        }
        let name = if to.is_signed_int() {
            "llvm.fptosi.sat"
        } else {
            "llvm.fptoui.sat"
        };
        self.call_intr(name, &[tt.into(), x.get_type()], &[x])
    }

    // ---- memory ----

    /// A varying access to a uniform array: its data pointer, each axis's
    /// index (as the IR value) and stride, the path's offset in the
    /// element, its type and the element's size; `None` when the array
    /// handle itself is varying.
    fn vaccess(&mut self, m: &weft_ir::ir::MemAccess) -> Result<Option<Access<'ctx>>> {
        let Type::Array(at) = self.cur().value_type(m.array) else {
            return self.invalid("memory access on a non-array");
        };
        if self.is_var(m.array) || m.indices.len() != at.ndim as usize {
            return Ok(None);
        }
        let leaves = self.get(m.array)?;
        let nd = at.ndim as usize;
        let axes = m
            .indices
            .iter()
            .enumerate()
            .map(|(k, &ix)| (ix, leaves[1 + nd + k].into_int_value()))
            .collect();
        let Some((poff, ty)) = layout::path_offset(at.elem.into(), &m.path, &self.m.structs) else {
            return self.invalid("bad component path in a memory access");
        };
        Ok(Some(Access {
            data: leaves[0].into_pointer_value(),
            axes,
            poff,
            ty,
            esize: layout::elem_size(at.elem, &self.m.structs),
        }))
    }

    /// An index as `i64`: a vector when `vector`, else the scalar (of a
    /// uniform index, or lane 0 of a varying one).
    fn index64(&mut self, ix: Value, vector: bool) -> Result<BasicValueEnum<'ctx>> {
        let s = self.scalar_of(ix)?;
        let i64t = self.ctx.i64_type();
        let v: BasicValueEnum = if vector {
            self.vget1(ix)?
        } else if self.is_var(ix) {
            let v = self.vget1(ix)?.into_vector_value();
            self.b.build_extract_element(v, self.i32c(0), "")?
        } else {
            self.get1(ix)?
        };
        let wide = |t: BasicTypeEnum<'ctx>| -> Result<BasicTypeEnum<'ctx>> {
            Ok(match t {
                BasicTypeEnum::VectorType(_) => i64t.vec_type(self.width()).into(),
                _ => i64t.into(),
            })
        };
        let to = wide(v.get_type())?;
        Ok(match (s, v) {
            (Scalar::I64 | Scalar::U64, v) => v,
            (s, BasicValueEnum::VectorValue(x)) if s.is_signed_int() => self
                .b
                .build_int_s_extend(x, to.into_vector_type(), "")?
                .into(),
            (_, BasicValueEnum::VectorValue(x)) => self
                .b
                .build_int_z_extend(x, to.into_vector_type(), "")?
                .into(),
            (s, BasicValueEnum::IntValue(x)) if s.is_signed_int() => {
                self.b.build_int_s_extend(x, i64t, "")?.into()
            }
            (_, BasicValueEnum::IntValue(x)) => self.b.build_int_z_extend(x, i64t, "")?.into(),
            _ => return self.invalid("float array index"),
        })
    }

    /// The lanes' byte offsets from the data pointer (`<W x i64>`).
    fn lane_offsets(&mut self, a: &Access<'ctx>) -> Result<VectorValue<'ctx>> {
        let i64v = self.ctx.i64_type().vec_type(self.width());
        let mut off = i64v.const_zero();
        for &(ix, stride) in &a.axes {
            let iv = self.index64(ix, true)?.into_vector_value();
            let st = self.splat(stride.into())?.into_vector_value();
            let o = self.b.build_int_mul(iv, st, "")?;
            off = self.b.build_int_add(off, o, "")?;
        }
        Ok(off)
    }

    /// The slot size shared by every slot of `ty` (4 or 8 bytes, numbers
    /// only), or `None`.
    fn plain_slot_size(&mut self, ty: Type) -> Option<u32> {
        let slots = self.flat(ty);
        let mut size = None;
        for s in slots.iter() {
            let SlotKind::Scalar(sc) = s.kind else {
                return None;
            };
            if matches!(sc, Scalar::Bool | Scalar::F16 | Scalar::BF16)
                || !matches!(sc.size(), 4 | 8)
            {
                return None;
            }
            if size.is_some_and(|z| z != sc.size()) {
                return None;
            }
            size = Some(sc.size());
        }
        size
    }

    /// When exactly one axis's index is varying: branches on whether its
    /// lanes are consecutive (`i, i+1, ...`) and its stride is the
    /// element's size, so that the lanes' elements are consecutive in
    /// memory. Returns the scattered block and the join, with the builder
    /// in the consecutive block, and lane 0's element pointer there.
    fn split_consecutive(
        &mut self,
        a: &Access<'ctx>,
    ) -> Result<Option<(BasicBlock<'ctx>, BasicBlock<'ctx>, PointerValue<'ctx>)>> {
        let varying: Vec<usize> = (0..a.axes.len())
            .filter(|&k| self.is_var(a.axes[k].0))
            .collect();
        let [k] = varying[..] else {
            return Ok(None);
        };
        let (ix, stride) = a.axes[k];
        let iv = self.vget1(ix)?.into_vector_value();
        let it = iv.get_type().get_element_type().into_int_type();
        let i0 = self.b.build_extract_element(iv, self.i32c(0), "")?;
        let steps: Vec<IntValue> = (0..self.width())
            .map(|l| it.const_int(l as u64, false))
            .collect();
        let want = self.b.build_int_add(
            self.splat(i0)?.into_vector_value(),
            VectorType::const_vector(&steps),
            "",
        )?;
        let eq = self.b.build_int_compare(IntPredicate::EQ, iv, want, "")?;
        let all = self
            .call_intr(
                "llvm.vector.reduce.and",
                &[eq.get_type().into()],
                &[eq.into()],
            )?
            .into_int_value();
        let es = self.ctx.i64_type().const_int(a.esize as u64, false);
        let dense_stride = self.b.build_int_compare(IntPredicate::EQ, stride, es, "")?;
        let ok = self.b.build_and(all, dense_stride, "")?;
        let dense = self.new_block("dense")?;
        let sparse = self.new_block("sparse")?;
        let join = self.new_block("mem_end")?;
        self.b.build_conditional_branch(ok, dense, sparse)?;
        self.switch_to(dense);
        let mut off = self.ctx.i64_type().const_zero();
        for &(ix, st) in &a.axes {
            let i = self.index64(ix, false)?.into_int_value();
            let o = self.b.build_int_mul(i, st, "")?;
            off = self.b.build_int_add(off, o, "")?;
        }
        // SAFETY: address arithmetic only; the masked access touches the
        // elements of the mask's lanes.
        let base = unsafe { self.b.build_gep(self.ctx.i8_type(), a.data, &[off], "")? };
        Ok(Some((sparse, join, base)))
    }

    /// The mask of the `p` words of each of the `W` elements: word `k` of
    /// lane `l` is on when `l` is in the mask and `used[k]`.
    fn word_mask(&mut self, p: u32, used: &[bool]) -> Result<VectorValue<'ctx>> {
        let m = self.mask()?;
        let w = self.width();
        let idx: Vec<u32> = (0..w * p).map(|i| i / p).collect();
        let spread = self.b.build_shuffle_vector(
            m,
            m.get_type().get_poison(),
            self.shuffle_mask(&idx),
            "",
        )?;
        if used.iter().all(|&u| u) {
            return Ok(spread);
        }
        let bits: Vec<IntValue> = (0..w * p)
            .map(|i| {
                self.ctx
                    .bool_type()
                    .const_int(used[(i % p) as usize] as u64, false)
            })
            .collect();
        Ok(self
            .b
            .build_and(spread, VectorType::const_vector(&bits), "")?)
    }

    fn vload(&mut self, inst: Inst, m: &weft_ir::ir::MemAccess) -> Result<bool> {
        let Some(acc) = self.vaccess(m)? else {
            return Ok(false);
        };
        let (poff, esize) = (acc.poff, acc.esize);
        let Some(sz) = self.plain_slot_size(acc.ty) else {
            return Ok(false);
        };
        let slots = self.flat(acc.ty);
        let w = self.width();
        let stys: Vec<BasicTypeEnum> = slots.iter().map(|&s| self.slot_ty(s)).collect();
        let vtys: Vec<VectorType> = stys.iter().map(|&t| self.vty(t)).collect::<Result<_>>()?;
        let mask = self.mask()?;
        let p = esize / sz;
        let dense_ok = esize % sz == 0 && poff % sz == 0 && p * w <= 256;
        let split = if dense_ok {
            self.split_consecutive(&acc)?
        } else {
            None
        };
        let mut dense = None;
        if let Some((sparse, join, base)) = split {
            let wt = self.word_type(sz).vec_type(w * p);
            let mut used = vec![false; p as usize];
            for s in slots.iter() {
                used[((poff + s.offset) / sz) as usize] = true;
            }
            let wm = self.word_mask(p, &used)?;
            let all = self.dense_load(wt, base, wm, sz)?;
            let mut outs = Vec::with_capacity(slots.len());
            for (s, vt) in slots.iter().zip(&vtys) {
                let k = (poff + s.offset) / sz;
                let idx: Vec<u32> = (0..w).map(|l| l * p + k).collect();
                let lane = self.b.build_shuffle_vector(
                    all,
                    all.get_type().get_poison(),
                    self.shuffle_mask(&idx),
                    "",
                )?;
                outs.push(self.b.build_bit_cast(lane, *vt, "")?);
            }
            let Some(db) = self.b.get_insert_block() else {
                return Err(Error::Llvm("builder not positioned".into()));
            };
            self.b.build_unconditional_branch(join)?;
            self.switch_to(sparse);
            dense = Some((outs, db, join));
        }
        let off = self.lane_offsets(&acc)?;
        let ptrs = self.vptrs(off, acc.data)?;
        let mut outs = Vec::with_capacity(slots.len());
        for (s, vt) in slots.iter().zip(&vtys) {
            let at = self.voffset(ptrs, poff + s.offset)?;
            let align = self.i32c(sz as u64);
            outs.push(self.call_intr(
                "llvm.masked.gather",
                &[(*vt).into(), at.get_type().into()],
                &[at.into(), align.into(), mask.into(), vt.get_poison().into()],
            )?);
        }
        if let Some((dense_out, db, join)) = dense {
            let Some(sb) = self.b.get_insert_block() else {
                return Err(Error::Llvm("builder not positioned".into()));
            };
            self.b.build_unconditional_branch(join)?;
            self.switch_to(join);
            let mut merged = Vec::with_capacity(outs.len());
            for ((d, s), vt) in dense_out.iter().zip(&outs).zip(&vtys) {
                let phi = self.b.build_phi(*vt, "")?;
                phi.add_incoming(&[(d as &dyn BasicValue, db), (s as &dyn BasicValue, sb)]);
                merged.push(phi.as_basic_value());
            }
            outs = merged;
        }
        self.vdef_results(inst, outs)?;
        Ok(true)
    }

    fn vstore(&mut self, m: &weft_ir::ir::MemAccess, v: Value) -> Result<bool> {
        let Some(acc) = self.vaccess(m)? else {
            return Ok(false);
        };
        let (poff, esize) = (acc.poff, acc.esize);
        let Some(sz) = self.plain_slot_size(acc.ty) else {
            return Ok(false);
        };
        let slots = self.flat(acc.ty);
        let vals = self.vget(v)?;
        let w = self.width();
        let mask = self.mask()?;
        let p = esize / sz;
        let dense_ok = esize % sz == 0 && poff % sz == 0 && p * w <= 256;
        let split = if dense_ok {
            self.split_consecutive(&acc)?
        } else {
            None
        };
        let join = if let Some((sparse, join, base)) = split {
            let word = self.word_type(sz);
            let lanes_t = word.vec_type(w);
            let wt = word.vec_type(w * p);
            let mut used = vec![false; p as usize];
            let mut by_word: Vec<Option<VectorValue>> = vec![None; p as usize];
            for (s, &x) in slots.iter().zip(&vals) {
                let k = ((poff + s.offset) / sz) as usize;
                used[k] = true;
                by_word[k] = Some(self.b.build_bit_cast(x, lanes_t, "")?.into_vector_value());
            }
            // Interleave: word k of lane l is lane l of the slot at word k
            // (words no slot covers are masked off).
            let Some(fill) = by_word.iter().flatten().next().copied() else {
                return self.invalid("a store of no slots");
            };
            // Each slot's lanes widened to `W * p` words, then merged in:
            // word `l * p + k` takes lane `l` of the slot at word `k`.
            let wide_idx: Vec<u32> = (0..w * p).map(|i| i.min(w - 1)).collect();
            let mut all = wt.get_poison();
            for (k, word) in by_word.iter().enumerate() {
                let src = word.unwrap_or(fill);
                let wide = self.b.build_shuffle_vector(
                    src,
                    lanes_t.get_poison(),
                    self.shuffle_mask(&wide_idx),
                    "",
                )?;
                let idx: Vec<u32> = (0..w * p)
                    .map(|i| if i % p == k as u32 { w * p + i / p } else { i })
                    .collect();
                all = self
                    .b
                    .build_shuffle_vector(all, wide, self.shuffle_mask(&idx), "")?;
            }
            let wm = self.word_mask(p, &used)?;
            let whole = used.iter().all(|&u| u);
            self.dense_store(m.array, whole, all, base, wm, sz)?;
            self.b.build_unconditional_branch(join)?;
            self.switch_to(sparse);
            Some(join)
        } else {
            None
        };
        let off = self.lane_offsets(&acc)?;
        let ptrs = self.vptrs(off, acc.data)?;
        for (s, &x) in slots.iter().zip(&vals) {
            let at = self.voffset(ptrs, poff + s.offset)?;
            let align = self.i32c(sz as u64);
            self.call_intr_void(
                "llvm.masked.scatter",
                &[x.get_type(), at.get_type().into()],
                &[x, at.into(), align.into(), mask.into()],
            )?;
        }
        if let Some(join) = join {
            self.b.build_unconditional_branch(join)?;
            self.switch_to(join);
        }
        Ok(true)
    }

    /// The lanes' element pointers: `data + off`.
    fn vptrs(
        &mut self,
        off: VectorValue<'ctx>,
        data: PointerValue<'ctx>,
    ) -> Result<VectorValue<'ctx>> {
        let i64t = self.ctx.i64_type();
        let d = self.b.build_ptr_to_int(data, i64t, "")?;
        let dv = self.splat(d.into())?.into_vector_value();
        let a = self.b.build_int_add(dv, off, "")?;
        let pt = data.get_type().vec_type(self.width());
        Ok(self.b.build_int_to_ptr(a, pt, "")?)
    }

    fn voffset(&mut self, ptrs: VectorValue<'ctx>, by: u32) -> Result<VectorValue<'ctx>> {
        if by == 0 {
            return Ok(ptrs);
        }
        let i64t = self.ctx.i64_type();
        let i64v = i64t.vec_type(self.width());
        let a = self.b.build_ptr_to_int(ptrs, i64v, "")?;
        let k = self
            .splat(i64t.const_int(by as u64, false).into())?
            .into_vector_value();
        let a = self.b.build_int_add(a, k, "")?;
        Ok(self.b.build_int_to_ptr(a, ptrs.get_type(), "")?)
    }

    // ---- reductions ----

    fn begin_accs(&mut self, f: &'m weft_ir::Function) -> Result<()> {
        for i in weft_ir::info::reductions(f) {
            let InstKind::Atomic(op, _, v) = &f.insts[i].kind else {
                continue;
            };
            let Some(s) = f.value_type(*v).as_scalar() else {
                continue;
            };
            if matches!(s, Scalar::F16 | Scalar::BF16 | Scalar::Bool) {
                continue;
            }
            let t = self.scalar_ty(s);
            let vt = self.vty(t)?;
            let acc = self.entry_alloca(vt.into())?;
            let id = self.konst(op.identity(s));
            let idv = self.splat(id)?;
            self.b.build_store(acc, idv)?;
            let pt = self.ctx.ptr_type(self.data_space());
            let addr = self.entry_alloca(pt.into())?;
            self.b.build_store(addr, pt.const_null())?;
            self.vx_mut()?.accs.insert(
                i,
                Acc {
                    acc,
                    addr,
                    op: *op,
                    s,
                },
            );
        }
        Ok(())
    }

    /// A reduction site: the lanes of the mask fold their value into the
    /// accumulator; the (uniform) address is kept for the end.
    fn vreduce(&mut self, inst: Inst) -> Result<()> {
        let InstKind::Atomic(_, m, v) = &self.cur().insts[inst].kind else {
            return self.invalid("a reduction that is not an atomic");
        };
        let Some(a) = self.vx()?.accs.get(&inst) else {
            return self.invalid("an undeclared reduction");
        };
        let (acc, addr_at, op, s) = (a.acc, a.addr, a.op, a.s);
        let (addr, off, _) = self.address(m)?;
        let p = self.offset_ptr(addr, off as u64)?;
        self.b.build_store(addr_at, p)?;
        let x = self.vget1(*v)?;
        let vt = x.get_type();
        let old = self.b.build_load(vt, acc, "")?;
        let Some(bin) = op.combine() else {
            return self.invalid("a reduction with an op that is not one");
        };
        let saved = self.st.flags;
        self.st.flags = MathFlags::NONE;
        let Some(new) = self.vbinary(bin, s, old, x)? else {
            return self.invalid("a reduction op without a vector form");
        };
        self.st.flags = saved;
        let msk = self.mask()?;
        let new = self.b.build_select(msk, new, old, "")?;
        self.b.build_store(acc, new)?;
        // The atomic's old value is unused (a condition of a reduction).
        let rs = self.cur().insts[inst].results.clone();
        for r in rs {
            let t = self.types_of(self.cur().value_type(r));
            let mut slots = Vec::new();
            for ty in t {
                slots.push(poison_of(self.vty(ty)?.into()));
            }
            self.vdef(r, slots)?;
        }
        Ok(())
    }

    /// At the end of the range: each reached reduction combines its lanes
    /// in order and updates memory with one atomic.
    fn finish_accs(&mut self) -> Result<()> {
        let mut sites: Vec<Inst> = self.vx()?.accs.keys().copied().collect();
        sites.sort_unstable();
        for i in sites {
            let Some(a) = self.vx()?.accs.get(&i) else {
                continue;
            };
            let (acc, addr_at, op, s) = (a.acc, a.addr, a.op, a.s);
            let pt = self.ctx.ptr_type(self.data_space());
            let p = self.b.build_load(pt, addr_at, "")?.into_pointer_value();
            let reached = self.b.build_is_not_null(p, "")?;
            let go = self.new_block("reduce")?;
            let done = self.new_block("reduced")?;
            self.b.build_conditional_branch(reached, go, done)?;
            self.switch_to(go);
            let vt = self.vty(self.scalar_ty(s))?;
            let v = self.b.build_load(vt, acc, "")?.into_vector_value();
            let Some(bin) = op.combine() else {
                return self.invalid("a reduction with an op that is not one");
            };
            self.st.flags = MathFlags::NONE;
            let mut t = self.b.build_extract_element(v, self.i32c(0), "")?;
            for l in 1..self.width() {
                let x = self.b.build_extract_element(v, self.i32c(l as u64), "")?;
                t = self.binary(bin, s, t, x)?;
            }
            self.atomic(op, s, p, t)?;
            self.b.build_unconditional_branch(done)?;
            self.switch_to(done);
        }
        Ok(())
    }
}

fn poison_of(t: BasicTypeEnum<'_>) -> BasicValueEnum<'_> {
    match t {
        BasicTypeEnum::IntType(x) => x.get_poison().into(),
        BasicTypeEnum::FloatType(x) => x.get_poison().into(),
        BasicTypeEnum::PointerType(x) => x.get_poison().into(),
        BasicTypeEnum::VectorType(x) => x.get_poison().into(),
        BasicTypeEnum::ArrayType(x) => x.get_poison().into(),
        BasicTypeEnum::StructType(x) => x.get_poison().into(),
        BasicTypeEnum::ScalableVectorType(x) => x.get_poison().into(),
    }
}
