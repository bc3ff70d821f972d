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

mod arithmetic;
mod control;
mod memory;
mod reduce;

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
    /// Streaming stores ([`memory::streamed_params`]): per array param written
    /// only, whether this launch's array is large enough
    /// ([`super::TargetCfg::stream_min_bytes`]) for its full, aligned
    /// vector stores to bypass the cache.
    streams: HashMap<Value, IntValue<'ctx>>,
    /// Lowering the loop over whole vectors of a 1-D launch
    /// ([`Lx::vthread_loop`]).
    whole: bool,
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

    fn cur_block(&self) -> Result<BasicBlock<'ctx>> {
        self.b
            .get_insert_block()
            .ok_or_else(|| Error::Llvm("builder not positioned".into()))
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
