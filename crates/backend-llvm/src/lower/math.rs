//! Transcendentals: libdevice `__nv_*` calls (NVPTX), host shim calls,
//! NVPTX approximate instructions under `afn` (`sin.approx`, `rsqrt.approx`,
//! ...), and the host's inlined `f32` approximations through
//! [`weft_abi::fastmath`] ([`HostOps`]).

use super::{Lx, Result, Shim, TargetKind};
use crate::Error;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::values::{BasicValue, BasicValueEnum, FloatValue, IntValue};
use inkwell::AddressSpace;
use inkwell::FloatPredicate;
use weft_ir::ir::{BinaryOp, InstKind, UnaryOp};
use weft_ir::{MathFlags, MathFn, Scalar};

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    /// A math function call: libdevice on NVPTX, a shim on the host.
    pub(super) fn math(
        &mut self,
        func: MathFn,
        s: Scalar,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>> {
        let double = s == Scalar::F64;
        let ft = self.scalar_ty(if double { Scalar::F64 } else { Scalar::F32 });
        if self.host_approx(func, s) {
            let mut o = HostOps {
                b: &self.b,
                ctx: self.ctx,
                contract: self.st.flags.contains(MathFlags::CONTRACT),
            };
            if let Some(v) = weft_abi::fastmath::emit(&mut o, func, args[0])? {
                return Ok(v);
            }
        }
        if self.nvptx_approx() && !double {
            if let Some(v) = self.fast_math_fn(func, args)? {
                return self.r16(s, v);
            }
        }
        let v = match self.cfg.kind {
            TargetKind::Host => {
                let params = vec![ft; func.arity()];
                let f = self.host_fn(Shim::math(func, double), Some(ft), &params);
                self.call(f, args)?
            }
            TargetKind::Nvptx => {
                if !self.cfg.libdevice {
                    // Fast math would do only where it has an approximate
                    // form (and is off, or it would have been taken above).
                    let advice = if !double && nvptx_approximates(func) {
                        ", or enable fast math (`--fast-math`), which approximates it"
                    } else {
                        ""
                    };
                    return Err(Error::NoLibdevice {
                        what: format!("{} on {s}", func.name()),
                        pos: self.m.source_pos(self.st.loc),
                        advice,
                    });
                }
                let name = format!("__nv_{}{}", func.name(), if double { "" } else { "f" });
                match self.libdevice_calls.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, sites)) => *sites += 1,
                    None => self.libdevice_calls.push((name.clone(), 1)),
                }
                let params = vec![ft; func.arity()];
                let f = self.extern_fn(&name, Some(ft), &params);
                self.call(f, args)?
            }
        };
        self.r16(s, v)
    }

    /// f32 approximate instructions (NVPTX fast math), for the functions
    /// of [`nvptx_approximates`], as CUDA's fast-math intrinsics (`__tanf`
    /// is `sin/cos`). `pow` keeps libdevice: its approximation
    /// `2^(y·log2 x)` would lose negative bases.
    pub(super) fn fast_math_fn(
        &mut self,
        func: MathFn,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        let x = args[0];
        let approx = |lx: &Self, n: &str, v: BasicValueEnum<'ctx>| lx.call_intr(n, &[], &[v]);
        let mul = |lx: &Self, v: BasicValueEnum<'ctx>, k: f64| -> Result<BasicValueEnum<'ctx>> {
            Ok(lx
                .b
                .build_float_mul(v.into_float_value(), lx.fconst(Scalar::F32, k), "")?
                .into())
        };
        Ok(Some(match func {
            MathFn::Sin => approx(self, "llvm.nvvm.sin.approx.f", x)?,
            MathFn::Cos => approx(self, "llvm.nvvm.cos.approx.f", x)?,
            MathFn::Exp2 => approx(self, "llvm.nvvm.ex2.approx.f", x)?,
            MathFn::Exp => {
                let y = mul(self, x, std::f64::consts::LOG2_E)?;
                approx(self, "llvm.nvvm.ex2.approx.f", y)?
            }
            MathFn::Log2 => approx(self, "llvm.nvvm.lg2.approx.f", x)?,
            MathFn::Log => {
                let y = approx(self, "llvm.nvvm.lg2.approx.f", x)?;
                mul(self, y, std::f64::consts::LN_2)?
            }
            MathFn::Log10 => {
                let y = approx(self, "llvm.nvvm.lg2.approx.f", x)?;
                mul(self, y, std::f64::consts::LOG10_2)?
            }
            MathFn::Tan => {
                let s = approx(self, "llvm.nvvm.sin.approx.f", x)?;
                let c = approx(self, "llvm.nvvm.cos.approx.f", x)?;
                self.call_intr("llvm.nvvm.div.approx.f", &[], &[s, c])?
            }
            _ => return Ok(None),
        }))
    }

    /// `1 / sqrt(x)` → `rsqrt.approx.f32` under NVPTX fast math.
    pub(super) fn try_rsqrt(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: weft_ir::Value,
        b: weft_ir::Value,
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        if !(self.nvptx_approx() && s == Scalar::F32 && op == BinaryOp::Div) {
            return Ok(None);
        }
        let Some(&x) = self.st.sqrt_of.get(&b) else {
            return Ok(None);
        };
        let f = self.cur();
        let one = matches!(
            f.values[a].def,
            weft_ir::ValueDef::Result(i, _) if matches!(f.insts[i].kind, InstKind::Const(c) if f64::from_bits(c.bits) == 1.0)
        );
        if !one {
            return Ok(None);
        }
        let xv = self.get1(x)?;
        Ok(Some(self.call_intr(
            "llvm.nvvm.rsqrt.approx.f",
            &[],
            &[xv],
        )?))
    }

    /// The host target inlines the `f32` approximation of `func`
    /// ([`weft_abi::fastmath`], the backend-neutral algorithms and
    /// coefficients) for the current instruction (`afn`).
    pub(super) fn host_approx(&self, func: MathFn, s: Scalar) -> bool {
        self.cfg.kind == TargetKind::Host
            && s == Scalar::F32
            && self.st.flags.contains(MathFlags::APPROX_FUNC)
            && weft_abi::fastmath::approximates(func)
    }

    /// NVPTX may use its approximate instructions for the current
    /// instruction (`afn`).
    pub(super) fn nvptx_approx(&self) -> bool {
        self.cfg.kind == TargetKind::Nvptx && self.st.flags.contains(MathFlags::APPROX_FUNC)
    }

    /// NVPTX: the exact `sin(x)` or `cos(x)` of an `x` whose other one the
    /// function also takes, through libdevice's `sincos` (one range
    /// reduction for both, as nvcc does; the same polynomials as `sin` and
    /// `cos`): the pair is computed at the first of the two and reused by
    /// the second while it is lowered into the same block (which the
    /// first then dominates), at most at
    /// [`LIBDEVICE_INLINE_SITES`](crate::libdevice::LIBDEVICE_INLINE_SITES)
    /// sites of a module. `None`: not such a case.
    pub(super) fn sincos(
        &mut self,
        op: UnaryOp,
        x_ir: weft_ir::Value,
        s: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        let want_sin = match op {
            UnaryOp::Sin => true,
            UnaryOp::Cos => false,
            _ => return Ok(None),
        };
        if !self.st.sincos_of.contains(&x_ir) || self.nvptx_approx() {
            return Ok(None);
        }
        let Some(block) = self.b.get_insert_block() else {
            return Ok(None);
        };
        let (sin, cos) = match self.st.sincos.get(&x_ir) {
            Some(&(b, sin, cos)) if b == block => (sin, cos),
            _ => {
                let name = if s == Scalar::F64 {
                    "__nv_sincos"
                } else {
                    "__nv_sincosf"
                };
                // Beyond the sites libdevice functions are inlined at, the
                // separate `sin` and `cos` take over: those become calls of
                // one copy, which only functions with a result can be.
                match self.libdevice_calls.iter_mut().find(|(n, _)| n == name) {
                    Some((_, sites)) if *sites >= crate::libdevice::LIBDEVICE_INLINE_SITES => {
                        return Ok(None)
                    }
                    Some((_, sites)) => *sites += 1,
                    None => self.libdevice_calls.push((name.to_string(), 1)),
                }
                let ft = self.scalar_ty(s);
                let ps = self.entry_alloca(ft)?;
                let pc = self.entry_alloca(ft)?;
                let ptr = self.ctx.ptr_type(AddressSpace::default()).into();
                let f = self.extern_fn(name, None, &[ft, ptr, ptr]);
                self.b
                    .build_call(f, &[x.into(), ps.into(), pc.into()], "")?;
                let sin = self.b.build_load(ft, ps, "")?;
                let cos = self.b.build_load(ft, pc, "")?;
                self.st.sincos.insert(x_ir, (block, sin, cos));
                (sin, cos)
            }
        };
        Ok(Some(if want_sin { sin } else { cos }))
    }
}

/// The `f32`/`f64` values whose exact `sin` and `cos` both appear in `f`
/// (neither with fast-math flags): [`Lx::sincos`]'s candidates.
pub(super) fn sincos_operands(f: &weft_ir::Function) -> std::collections::HashSet<weft_ir::Value> {
    let mut sin = std::collections::HashSet::new();
    let mut cos = std::collections::HashSet::new();
    for d in f.insts.values() {
        if let InstKind::Unary(op @ (UnaryOp::Sin | UnaryOp::Cos), x) = d.kind {
            let exact = d.flags.is_empty();
            let wide = matches!(f.value_type(x).as_scalar(), Some(Scalar::F32 | Scalar::F64));
            if exact && wide {
                if op == UnaryOp::Sin {
                    &mut sin
                } else {
                    &mut cos
                }
                .insert(x);
            }
        }
    }
    sin.intersection(&cos).copied().collect()
}

/// Whether NVPTX fast math has an approximate `f32` form of `func`
/// ([`Lx::fast_math_fn`]; no libdevice needed).
pub(crate) fn nvptx_approximates(func: MathFn) -> bool {
    use MathFn::*;
    matches!(func, Sin | Cos | Tan | Exp | Exp2 | Log | Log2 | Log10)
}

/// [`weft_abi::fastmath::Ops`] in LLVM IR on `f32` (the host
/// target's `afn` path). `fma` is a multiply and an add flagged
/// `contract` when the instruction allows contraction (LLVM fuses them
/// where the host has FMA); nothing else gets fast-math flags, so LLVM
/// keeps the algorithm's order of operations.
struct HostOps<'l, 'ctx> {
    b: &'l Builder<'ctx>,
    ctx: &'ctx Context,
    contract: bool,
}

impl<'ctx> HostOps<'_, 'ctx> {
    fn f(v: BasicValueEnum<'ctx>) -> FloatValue<'ctx> {
        v.into_float_value()
    }
    fn i(v: BasicValueEnum<'ctx>) -> IntValue<'ctx> {
        v.into_int_value()
    }
}

impl<'ctx> weft_abi::fastmath::Ops for HostOps<'_, 'ctx> {
    type V = BasicValueEnum<'ctx>;
    type E = Error;
    fn fconst(&mut self, x: f32) -> Result<Self::V> {
        Ok(self.ctx.f32_type().const_float(x as f64).into())
    }
    fn iconst(&mut self, x: i32) -> Result<Self::V> {
        Ok(self.ctx.i32_type().const_int(x as u32 as u64, false).into())
    }
    fn fadd(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_float_add(Self::f(a), Self::f(b), "")?.into())
    }
    fn fsub(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_float_sub(Self::f(a), Self::f(b), "")?.into())
    }
    fn fmul(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_float_mul(Self::f(a), Self::f(b), "")?.into())
    }
    fn fdiv(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_float_div(Self::f(a), Self::f(b), "")?.into())
    }
    fn fneg(&mut self, a: Self::V) -> Result<Self::V> {
        Ok(self.b.build_float_neg(Self::f(a), "")?.into())
    }
    fn fma(&mut self, a: Self::V, b: Self::V, c: Self::V) -> Result<Self::V> {
        let p = self.b.build_float_mul(Self::f(a), Self::f(b), "")?;
        let s = self.b.build_float_add(p, Self::f(c), "")?;
        if self.contract {
            use inkwell::values::FastMathFlags as F;
            for v in [p, s] {
                if let Some(i) = v.as_instruction_value() {
                    let _ = i.set_fast_math_flags(F::AllowContract);
                }
            }
        }
        Ok(s.into())
    }
    fn fcmp(&mut self, cc: weft_abi::fastmath::Cmp, a: Self::V, b: Self::V) -> Result<Self::V> {
        use weft_abi::fastmath::Cmp;
        let p = match cc {
            Cmp::Lt => FloatPredicate::OLT,
            Cmp::Eq => FloatPredicate::OEQ,
            Cmp::NotLt => FloatPredicate::UGE,
        };
        let c = self.b.build_float_compare(p, Self::f(a), Self::f(b), "")?;
        Ok(self
            .b
            .build_int_s_extend(c, self.ctx.i32_type(), "")?
            .into())
    }
    fn bits(&mut self, a: Self::V) -> Result<Self::V> {
        Ok(self.b.build_bit_cast(a, self.ctx.i32_type(), "")?)
    }
    fn float(&mut self, a: Self::V) -> Result<Self::V> {
        Ok(self.b.build_bit_cast(a, self.ctx.f32_type(), "")?)
    }
    fn iadd(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_int_add(Self::i(a), Self::i(b), "")?.into())
    }
    fn isub(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_int_sub(Self::i(a), Self::i(b), "")?.into())
    }
    fn band(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_and(Self::i(a), Self::i(b), "")?.into())
    }
    fn bxor(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_xor(Self::i(a), Self::i(b), "")?.into())
    }
    fn shl(&mut self, a: Self::V, n: u32) -> Result<Self::V> {
        let n = self.ctx.i32_type().const_int(n as u64, false);
        Ok(self.b.build_left_shift(Self::i(a), n, "")?.into())
    }
    fn sshr(&mut self, a: Self::V, n: u32) -> Result<Self::V> {
        let n = self.ctx.i32_type().const_int(n as u64, false);
        Ok(self.b.build_right_shift(Self::i(a), n, true, "")?.into())
    }
    fn bitselect(&mut self, mask: Self::V, a: Self::V, b: Self::V) -> Result<Self::V> {
        let m = Self::i(mask);
        let x = self.b.build_and(Self::i(a), m, "")?;
        let nm = self.b.build_not(m, "")?;
        let y = self.b.build_and(Self::i(b), nm, "")?;
        Ok(self.b.build_or(x, y, "")?.into())
    }
}
