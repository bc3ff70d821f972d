//! The vector tier's precise `f32` math ([`weft_abi::precise`]): the
//! backend-neutral algorithm in `<W x double>` lanes ([`VecOps`]), and the
//! lanes it does not cover finished by the scalar shim, one call per such
//! lane, in a loop over the lanes that runs only when some active lane
//! needs it.

use super::{Lx, Result};
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::types::VectorType;
use inkwell::values::{BasicValueEnum, VectorValue};
use inkwell::FloatPredicate;
use weft_abi::precise::{self, Cmp, Inline};
use weft_ir::{MathFlags, MathFn, Scalar};

/// Whether the vector tier computes `f` on `s` inline under the
/// instruction's `flags` (fast math keeps its own approximations).
pub(crate) fn inlines(f: MathFn, s: Scalar, flags: MathFlags) -> bool {
    s == Scalar::F32 && !flags.contains(MathFlags::APPROX_FUNC) && precise::vectorizes(f)
}

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    /// `f` of the `<W x float>` `args` under the current mask: the inline
    /// form, the lanes it does not cover by the shim. `None` when `f` has
    /// no inline form here.
    pub(super) fn vmath(
        &mut self,
        f: MathFn,
        s: Scalar,
        args: &[VectorValue<'ctx>],
        mask: VectorValue<'ctx>,
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        if !self.cfg.inline_math || !inlines(f, s, self.st.flags) {
            return Ok(None);
        }
        let Some(x) = args.first() else {
            return Ok(None);
        };
        let w = x.get_type().get_size();
        let mut o = VecOps {
            lx: self,
            b: &self.b,
            ctx: self.ctx,
            w,
            fused: self.cfg.fma,
        };
        let a: Vec<BasicValueEnum> = args.iter().map(|&v| v.into()).collect();
        let Some(Inline { value, covered }) = precise::emit(&mut o, f, &a)? else {
            return Ok(None);
        };
        // The active lanes it does not cover (select, not `and`: inactive
        // lanes may hold poison).
        let mt = mask.get_type();
        let not_cov = self.b.build_not(covered.into_vector_value(), "")?;
        let bad = self
            .b
            .build_select(mask, not_cov, mt.const_zero(), "")?
            .into_vector_value();
        // A loop over the lanes (cold: the code stays one call's size
        // whatever the width).
        let vt = value.get_type();
        let out = self.entry_alloca(vt)?;
        self.b.build_store(out, value)?;
        let Some(from) = self.b.get_insert_block() else {
            return Err(crate::Error::Llvm("builder not positioned".into()));
        };
        let head = self.new_block("vmath_shim")?;
        let call = self.new_block("vmath_lane")?;
        let latch = self.new_block("vmath_next")?;
        let join = self.new_block("vmath_end")?;
        let any = self.any(bad)?;
        self.b.build_conditional_branch(any, head, join)?;
        self.switch_to(head);
        let i32t = self.ctx.i32_type();
        let i = self.b.build_phi(i32t, "")?;
        let li = i.as_basic_value().into_int_value();
        let bit = self.b.build_extract_element(bad, li, "")?.into_int_value();
        self.b.build_conditional_branch(bit, call, latch)?;
        self.switch_to(call);
        let mut lane = Vec::with_capacity(args.len());
        for &v in args {
            lane.push(self.b.build_extract_element(v, li, "")?);
        }
        let r = self.math(f, s, &lane)?;
        let acc = self.b.build_load(vt, out, "")?.into_vector_value();
        let acc = self.b.build_insert_element(acc, r, li, "")?;
        self.b.build_store(out, acc)?;
        self.b.build_unconditional_branch(latch)?;
        self.switch_to(latch);
        let next = self.b.build_int_add(li, i32t.const_int(1, false), "")?;
        let more = self.b.build_int_compare(
            inkwell::IntPredicate::ULT,
            next,
            i32t.const_int(w as u64, false),
            "",
        )?;
        self.b.build_conditional_branch(more, head, join)?;
        i.add_incoming(&[(&i32t.const_zero(), from), (&next, latch)]);
        self.switch_to(join);
        Ok(Some(self.b.build_load(value.get_type(), out, "")?))
    }
}

/// [`precise::Ops`] in LLVM IR on `W`-lane vectors: `f32`, `f64`, `i64`
/// and `i1` masks. `fma` is `llvm.fma` when the host has FMA (`fused`),
/// else a multiply and an add; nothing gets fast-math flags, so LLVM keeps
/// the algorithm's operations.
struct VecOps<'l, 'a, 'ctx, 'm> {
    lx: &'l Lx<'a, 'ctx, 'm>,
    b: &'l Builder<'ctx>,
    ctx: &'ctx Context,
    w: u32,
    fused: bool,
}

type V<'ctx> = BasicValueEnum<'ctx>;

impl<'ctx> VecOps<'_, '_, 'ctx, '_> {
    fn f(v: V<'ctx>) -> VectorValue<'ctx> {
        v.into_vector_value()
    }
    fn f64v(&self) -> VectorType<'ctx> {
        self.ctx.f64_type().vec_type(self.w)
    }
    fn i64v(&self) -> VectorType<'ctx> {
        self.ctx.i64_type().vec_type(self.w)
    }
    fn intr(&self, name: &str, args: &[V<'ctx>]) -> Result<V<'ctx>> {
        self.lx.call_intr(name, &[args[0].get_type()], args)
    }
    fn splat_f(&self, x: f64) -> V<'ctx> {
        let c = self.ctx.f64_type().const_float(x);
        VectorType::const_vector(&vec![c; self.w as usize]).into()
    }
    fn splat_i(&self, x: i64) -> V<'ctx> {
        let c = self.ctx.i64_type().const_int(x as u64, true);
        VectorType::const_vector(&vec![c; self.w as usize]).into()
    }
    fn int(v: V<'ctx>) -> VectorValue<'ctx> {
        v.into_vector_value()
    }
}

impl<'ctx> precise::Ops for VecOps<'_, '_, 'ctx, '_> {
    type V = V<'ctx>;
    type E = crate::Error;
    fn widen(&mut self, a: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_float_ext(Self::f(a), self.f64v(), "")?.into())
    }
    fn narrow(&mut self, a: V<'ctx>) -> Result<V<'ctx>> {
        let t = self.ctx.f32_type().vec_type(self.w);
        Ok(self.b.build_float_trunc(Self::f(a), t, "")?.into())
    }
    fn fconst(&mut self, x: f64) -> Result<V<'ctx>> {
        Ok(self.splat_f(x))
    }
    fn iconst(&mut self, x: i64) -> Result<V<'ctx>> {
        Ok(self.splat_i(x))
    }
    fn fadd(&mut self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_float_add(Self::f(a), Self::f(b), "")?.into())
    }
    fn fsub(&mut self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_float_sub(Self::f(a), Self::f(b), "")?.into())
    }
    fn fmul(&mut self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_float_mul(Self::f(a), Self::f(b), "")?.into())
    }
    fn fdiv(&mut self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_float_div(Self::f(a), Self::f(b), "")?.into())
    }
    fn fneg(&mut self, a: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_float_neg(Self::f(a), "")?.into())
    }
    fn fabs(&mut self, a: V<'ctx>) -> Result<V<'ctx>> {
        self.intr("llvm.fabs", &[a])
    }
    fn sqrt(&mut self, a: V<'ctx>) -> Result<V<'ctx>> {
        self.intr("llvm.sqrt", &[a])
    }
    fn fma(&mut self, a: V<'ctx>, b: V<'ctx>, c: V<'ctx>) -> Result<V<'ctx>> {
        if self.fused {
            return self.intr("llvm.fma", &[a, b, c]);
        }
        let p = self.b.build_float_mul(Self::f(a), Self::f(b), "")?;
        Ok(self.b.build_float_add(p, Self::f(c), "")?.into())
    }
    fn fcmp(&mut self, cc: Cmp, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        let p = match cc {
            Cmp::Le => FloatPredicate::OLE,
            Cmp::Lt => FloatPredicate::OLT,
        };
        Ok(self
            .b
            .build_float_compare(p, Self::f(a), Self::f(b), "")?
            .into())
    }
    fn ieq(&mut self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self
            .b
            .build_int_compare(inkwell::IntPredicate::EQ, Self::int(a), Self::int(b), "")?
            .into())
    }
    fn and(&mut self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_and(Self::int(a), Self::int(b), "")?.into())
    }
    fn select(&mut self, m: V<'ctx>, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_select(Self::int(m), a, b, "")?)
    }
    fn bits(&mut self, a: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_bit_cast(a, self.i64v(), "")?)
    }
    fn float(&mut self, a: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_bit_cast(a, self.f64v(), "")?)
    }
    fn iadd(&mut self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_int_add(Self::int(a), Self::int(b), "")?.into())
    }
    fn isub(&mut self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_int_sub(Self::int(a), Self::int(b), "")?.into())
    }
    fn iand(&mut self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_and(Self::int(a), Self::int(b), "")?.into())
    }
    fn ixor(&mut self, a: V<'ctx>, b: V<'ctx>) -> Result<V<'ctx>> {
        Ok(self.b.build_xor(Self::int(a), Self::int(b), "")?.into())
    }
    fn shl(&mut self, a: V<'ctx>, n: u32) -> Result<V<'ctx>> {
        let n = Self::int(self.splat_i(n as i64));
        Ok(self.b.build_left_shift(Self::int(a), n, "")?.into())
    }
    fn sshr(&mut self, a: V<'ctx>, n: u32) -> Result<V<'ctx>> {
        let n = Self::int(self.splat_i(n as i64));
        Ok(self.b.build_right_shift(Self::int(a), n, true, "")?.into())
    }
}
