//! Scalar arithmetic: unary and binary operations, comparisons, casts and
//! bitcasts, the guarded integer division and remainder (a zero divisor
//! gives 0, a divisor of -1 negates, so neither traps), and the glue that
//! sets an instruction's fast-math flags on the LLVM instructions it
//! produced.

use super::{Lx, Result};
use inkwell::values::{BasicValue, BasicValueEnum, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use weft_ir::ir::{BinaryOp, UnaryOp};
use weft_ir::{MathFlags, MathFn, Scalar};

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    /// Sets the LLVM fast-math flags of the current instruction's
    /// [`MathFlags`] on `v` (when it is a float instruction): `contract` →
    /// `contract`, `afn` → `afn arcp`, `nnan` → `nnan`, `ninf` → `ninf`.
    pub(super) fn fast_flags(&self, v: BasicValueEnum<'ctx>) {
        use inkwell::values::FastMathFlags as F;
        let fl = self.st.flags;
        if fl.is_empty() {
            return;
        }
        let Some(i) = v.as_instruction_value() else {
            return;
        };
        let mut llvm = F::empty();
        if fl.contains(MathFlags::CONTRACT) {
            llvm |= F::AllowContract;
        }
        if fl.contains(MathFlags::APPROX_FUNC) {
            llvm |= F::ApproxFunc | F::AllowReciprocal;
        }
        if fl.contains(MathFlags::NO_NANS) {
            llvm |= F::NoNaNs;
        }
        if fl.contains(MathFlags::NO_INFS) {
            llvm |= F::NoInfs;
        }
        // Not every instruction takes flags (an `fptrunc` of f16 math):
        // those are left as they are.
        let _ = i.set_fast_math_flags(llvm);
    }

    pub(super) fn unary(
        &mut self,
        op: UnaryOp,
        s: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        use UnaryOp::*;
        let fl = s.is_float();
        if let Some(func) = MathFn::of_unary(op) {
            if !fl {
                return self.unsupported(format!("{op:?} on {s}"));
            }
            return self.math(func, s, &[x]);
        }
        Ok(match op {
            Neg if fl => self.b.build_float_neg(x.into_float_value(), "")?.into(),
            Neg if s.is_int() => self.b.build_int_neg(x.into_int_value(), "")?.into(),
            Not if !fl => self.b.build_not(x.into_int_value(), "")?.into(),
            Abs if fl => self.fintr("llvm.fabs", x)?,
            Abs if s.is_signed_int() => {
                let f = self.ctx.bool_type().const_zero();
                self.call_intr("llvm.abs", &[x.get_type()], &[x, f.into()])?
            }
            Abs if s.is_unsigned_int() => x,
            Sqrt if fl => {
                let v = if self.nvptx_approx() && s != Scalar::F64 {
                    self.call_intr("llvm.nvvm.sqrt.approx.f", &[], &[x])?
                } else {
                    self.fintr("llvm.sqrt", x)?
                };
                self.r16(s, v)?
            }
            Floor if fl => self.fintr("llvm.floor", x)?,
            Ceil if fl => self.fintr("llvm.ceil", x)?,
            Trunc if fl => self.fintr("llvm.trunc", x)?,
            Rint if fl => self.fintr("llvm.rint", x)?,
            Round if fl => self.fintr("llvm.round", x)?,
            Floor | Ceil | Trunc | Rint | Round if s.is_int() => x,
            Popcount if s.is_int() => self.fintr("llvm.ctpop", x)?,
            IsNan if fl => {
                let xv = x.into_float_value();
                self.b
                    .build_float_compare(FloatPredicate::UNO, xv, xv, "")?
                    .into()
            }
            IsInf | IsFinite if fl => {
                let a = self.fintr("llvm.fabs", x)?.into_float_value();
                let inf = self.fconst(s, f64::INFINITY);
                let p = if op == IsInf {
                    FloatPredicate::OEQ
                } else {
                    FloatPredicate::OLT
                };
                self.b.build_float_compare(p, a, inf, "")?.into()
            }
            IsNan | IsInf if s.is_int() || s == Scalar::Bool => {
                self.ctx.bool_type().const_zero().into()
            }
            IsFinite if s.is_int() || s == Scalar::Bool => {
                self.ctx.bool_type().const_int(1, false).into()
            }
            _ => return self.unsupported(format!("{op:?} on {s}")),
        })
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        if s.is_float() {
            self.float_binary(op, s, a, b)
        } else {
            self.int_binary(op, s, a.into_int_value(), b.into_int_value())
        }
    }

    pub(super) fn float_binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        use BinaryOp::*;
        let (fa, fb) = (a.into_float_value(), b.into_float_value());
        let cmp = |lx: &Self, p: FloatPredicate| -> Result<BasicValueEnum<'ctx>> {
            Ok(lx.b.build_float_compare(p, fa, fb, "")?.into())
        };
        let v: BasicValueEnum = match op {
            Add => self.b.build_float_add(fa, fb, "")?.into(),
            Sub => self.b.build_float_sub(fa, fb, "")?.into(),
            Mul => self.b.build_float_mul(fa, fb, "")?.into(),
            Div => {
                if self.nvptx_approx() && s != Scalar::F64 {
                    self.call_intr("llvm.nvvm.div.approx.f", &[], &[a, b])?
                } else {
                    self.b.build_float_div(fa, fb, "")?.into()
                }
            }
            Rem => return self.math(MathFn::Fmod, s, &[a, b]),
            Pow => return self.math(MathFn::Pow, s, &[a, b]),
            Atan2 => return self.math(MathFn::Atan2, s, &[a, b]),
            Min | Max => return self.fminmax(op == Min, s, a, b),
            Copysign => return self.call_intr("llvm.copysign", &[a.get_type()], &[a, b]),
            Eq => return cmp(self, FloatPredicate::OEQ),
            Ne => return cmp(self, FloatPredicate::UNE),
            Lt => return cmp(self, FloatPredicate::OLT),
            Le => return cmp(self, FloatPredicate::OLE),
            Gt => return cmp(self, FloatPredicate::OGT),
            Ge => return cmp(self, FloatPredicate::OGE),
            And | Or | Xor | Shl | Shr => return self.unsupported(format!("{op:?} on {s}")),
        };
        self.fast_flags(v);
        self.r16(s, v)
    }

    /// Warp's `min`/`max` of floats: C `fmin`/`fmax` (a NaN operand is
    /// ignored), and of equal operands the first (`min(-0.0, 0.0)` is
    /// -0.0, `min(0.0, -0.0)` is 0.0, as Warp 1.19 gives them and the
    /// interpreter and the other backends compute them): `minnum`, then
    /// `a` where `a == b`.
    pub(super) fn fminmax(
        &mut self,
        is_min: bool,
        _s: Scalar,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        // Scalars, or vectors of them (the vector tier).
        let name = if is_min { "llvm.minnum" } else { "llvm.maxnum" };
        let m = self.call_intr(name, &[a.get_type()], &[a, b])?;
        let bb = &self.b;
        Ok(match (a, b) {
            (BasicValueEnum::VectorValue(va), BasicValueEnum::VectorValue(vb)) => {
                let eq = bb.build_float_compare(FloatPredicate::OEQ, va, vb, "")?;
                bb.build_select(eq, a, m, "")?
            }
            _ => {
                let (fa, fb) = (a.into_float_value(), b.into_float_value());
                let eq = bb.build_float_compare(FloatPredicate::OEQ, fa, fb, "")?;
                bb.build_select(eq, a, m, "")?
            }
        })
    }

    pub(super) fn int_binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: IntValue<'ctx>,
        b: IntValue<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        use BinaryOp::*;
        let signed = s.is_signed_int();
        let is_bool = s == Scalar::Bool;
        let t = a.get_type();
        let bb = &self.b;
        let pred = |sp: IntPredicate, up: IntPredicate| if signed { sp } else { up };
        let minmax = |lx: &Self, n: &str| lx.call_intr(n, &[t.into()], &[a.into(), b.into()]);
        Ok(match op {
            Add if !is_bool => bb.build_int_add(a, b, "")?.into(),
            Sub if !is_bool => bb.build_int_sub(a, b, "")?.into(),
            Mul if !is_bool => bb.build_int_mul(a, b, "")?.into(),
            Div | Rem if !is_bool => {
                let zero = bb.build_int_compare(IntPredicate::EQ, b, t.const_zero(), "")?;
                let one = t.const_int(1, false);
                let zv = t.const_zero();
                if signed {
                    let m1 = bb.build_int_compare(IntPredicate::EQ, b, t.const_all_ones(), "")?;
                    let bad = bb.build_or(zero, m1, "")?;
                    let safe = bb.build_select(bad, one, b, "")?.into_int_value();
                    if op == Rem {
                        bb.build_int_signed_rem(a, safe, "")?.into()
                    } else {
                        let q = bb.build_int_signed_div(a, safe, "")?;
                        let neg = bb.build_int_neg(a, "")?;
                        let q = bb.build_select(m1, neg, q, "")?;
                        bb.build_select(zero, zv.into(), q, "")?
                    }
                } else {
                    let safe = bb.build_select(zero, one, b, "")?.into_int_value();
                    if op == Rem {
                        bb.build_int_unsigned_rem(a, safe, "")?.into()
                    } else {
                        let q = bb.build_int_unsigned_div(a, safe, "")?;
                        bb.build_select(zero, zv, q, "")?
                    }
                }
            }
            Min if signed => minmax(self, "llvm.smin")?,
            Max if signed => minmax(self, "llvm.smax")?,
            Min => minmax(self, "llvm.umin")?,
            Max => minmax(self, "llvm.umax")?,
            And => bb.build_and(a, b, "")?.into(),
            Or => bb.build_or(a, b, "")?.into(),
            Xor => bb.build_xor(a, b, "")?.into(),
            Shl | Shr if !is_bool => {
                let mask = t.const_int(t.get_bit_width() as u64 - 1, false);
                let amt = bb.build_and(b, mask, "")?;
                match op {
                    Shl => bb.build_left_shift(a, amt, "")?.into(),
                    _ => bb.build_right_shift(a, amt, signed, "")?.into(),
                }
            }
            Eq => bb.build_int_compare(IntPredicate::EQ, a, b, "")?.into(),
            Ne => bb.build_int_compare(IntPredicate::NE, a, b, "")?.into(),
            Lt => bb
                .build_int_compare(pred(IntPredicate::SLT, IntPredicate::ULT), a, b, "")?
                .into(),
            Le => bb
                .build_int_compare(pred(IntPredicate::SLE, IntPredicate::ULE), a, b, "")?
                .into(),
            Gt => bb
                .build_int_compare(pred(IntPredicate::SGT, IntPredicate::UGT), a, b, "")?
                .into(),
            Ge => bb
                .build_int_compare(pred(IntPredicate::SGE, IntPredicate::UGE), a, b, "")?
                .into(),
            _ => return self.unsupported(format!("{op:?} on {s}")),
        })
    }

    pub(super) fn cast(
        &mut self,
        from: Scalar,
        to: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        if from == to {
            return Ok(x);
        }
        let tt = self.scalar_ty(to);
        if to == Scalar::Bool {
            return Ok(if from.is_float() {
                let z = self.fconst(from, 0.0);
                self.b
                    .build_float_compare(FloatPredicate::UNE, x.into_float_value(), z, "")?
                    .into()
            } else {
                let xi = x.into_int_value();
                self.b
                    .build_int_compare(IntPredicate::NE, xi, xi.get_type().const_zero(), "")?
                    .into()
            });
        }
        if !from.is_float() && !to.is_float() {
            let xi = x.into_int_value();
            let (fb, tb) = (
                xi.get_type().get_bit_width(),
                tt.into_int_type().get_bit_width(),
            );
            return Ok(match fb.cmp(&tb) {
                std::cmp::Ordering::Equal => x,
                std::cmp::Ordering::Greater => self
                    .b
                    .build_int_truncate(xi, tt.into_int_type(), "")?
                    .into(),
                std::cmp::Ordering::Less if from.is_signed_int() => self
                    .b
                    .build_int_s_extend(xi, tt.into_int_type(), "")?
                    .into(),
                std::cmp::Ordering::Less => self
                    .b
                    .build_int_z_extend(xi, tt.into_int_type(), "")?
                    .into(),
            });
        }
        if !from.is_float() {
            // int/bool -> float; f16 goes through f64 so it rounds once.
            let xi = x.into_int_value();
            let target = if to == Scalar::F16 {
                self.ctx.f64_type()
            } else {
                tt.into_float_type()
            };
            let v = if from.is_signed_int() {
                self.b.build_signed_int_to_float(xi, target, "")?
            } else {
                self.b.build_unsigned_int_to_float(xi, target, "")?
            };
            return match to {
                Scalar::F16 => self.f64_to_f16(v.into()),
                // bf16, as Warp, through f32.
                Scalar::BF16 => self.r16(to, v.into()),
                _ => Ok(v.into()),
            };
        }
        let xf = x.into_float_value();
        if to.is_float() {
            return match (from, to) {
                (Scalar::F16 | Scalar::BF16, Scalar::F32) => Ok(x),
                (_, Scalar::F64) => Ok(self.b.build_float_ext(xf, self.ctx.f64_type(), "")?.into()),
                (Scalar::F64, Scalar::F32) => Ok(self
                    .b
                    .build_float_trunc(xf, self.ctx.f32_type(), "")?
                    .into()),
                (Scalar::F32 | Scalar::BF16, Scalar::F16) => self.f16_round(x),
                (Scalar::F64, Scalar::BF16) => {
                    let f = self.b.build_float_trunc(xf, self.ctx.f32_type(), "")?;
                    self.r16(to, f.into())
                }
                (_, Scalar::BF16) => self.r16(to, x),
                _ => self.f64_to_f16(x),
            };
        }
        // float -> int: truncate, saturate, NaN -> 0.
        let name = if to.is_signed_int() {
            "llvm.fptosi.sat"
        } else {
            "llvm.fptoui.sat"
        };
        self.call_intr(name, &[tt, x.get_type()], &[x])
    }

    pub(super) fn bitcast(
        &mut self,
        from: Scalar,
        to: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        if from.size() != to.size() || from == Scalar::Bool || to == Scalar::Bool {
            return self.invalid(format!("bitcast from {from} to {to}"));
        }
        if from == to || (!from.is_float() && !to.is_float()) {
            return Ok(x);
        }
        if matches!(from, Scalar::F16 | Scalar::BF16) {
            let b = self.half_to_bits(from, x)?;
            if to.is_float() {
                return self.bits_to_half(to, b);
            }
            return Ok(b.into());
        }
        if matches!(to, Scalar::F16 | Scalar::BF16) {
            return self.bits_to_half(to, x.into_int_value());
        }
        Ok(self.b.build_bit_cast(x, self.scalar_ty(to), "")?)
    }
}
