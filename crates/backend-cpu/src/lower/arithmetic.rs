//! Scalar arithmetic: unary and binary operations, comparisons, casts and
//! bitcasts, trap-free integer division and remainder, and the contraction
//! of `contract` multiply-adds into `fma`.

use crate::shims::Shim;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F64, I16, I32, I8};
use cranelift_codegen::ir::{self as cl, InstBuilder, MemFlagsData};
use weft_ir::ir::{BinaryOp, InstKind, UnaryOp};
use weft_ir::{Inst, MathFn, Scalar};

use super::{cty, FnTx, Result};

/// Whether the ISA executes `fma` natively: x86-64 with the FMA extension
/// (`has_fma`, as detected by `cranelift_native`), or aarch64/riscv64/s390x
/// where it is part of the base ISA.
fn isa_has_fma(isa: &dyn cranelift_codegen::isa::TargetIsa) -> bool {
    match isa.name() {
        "x64" => isa
            .isa_flags()
            .iter()
            .any(|f| f.name == "has_fma" && f.as_bool() == Some(true)),
        "aarch64" | "riscv64" | "s390x" => true,
        _ => false,
    }
}

/// The operands `(x, y, c, neg_c, neg_x)` of `fma(±x, y, ±c)` that a
/// `contract` `add`/`sub` of a `contract` `mul` may become (see
/// [`FnTx::contract`]); `None` when the pattern does not apply.
#[allow(clippy::type_complexity)]
pub(super) fn contraction(
    f: &weft_ir::Function,
    inst: Inst,
) -> Option<(weft_ir::Value, weft_ir::Value, weft_ir::Value, bool, bool)> {
    use weft_ir::MathFlags;
    let d = &f.insts[inst];
    if !d.flags.contains(MathFlags::CONTRACT) {
        return None;
    }
    let InstKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) = d.kind else {
        return None;
    };
    let product = |v: weft_ir::Value| match f.values.get(v).map(|vd| vd.def) {
        Some(weft_ir::ValueDef::Result(i, 0)) => match f.insts.get(i) {
            Some(m) if m.flags.contains(MathFlags::CONTRACT) => match m.kind {
                InstKind::Binary(BinaryOp::Mul, x, y) => Some((x, y)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    match (op, product(a), product(b)) {
        (BinaryOp::Add, Some((x, y)), _) => Some((x, y, b, false, false)),
        (BinaryOp::Add, None, Some((x, y))) => Some((x, y, a, false, false)),
        (_, Some((x, y)), _) => Some((x, y, b, true, false)),
        (_, None, Some((x, y))) => Some((x, y, a, false, true)),
        _ => None,
    }
}

impl<'a, 'b, 'm> FnTx<'a, 'b, 'm> {
    pub(super) fn with_host_fma(mut self) -> Self {
        self.host_fma = isa_has_fma(self.isa);
        self
    }

    /// `add`/`sub` with `contract` of a `mul` with `contract` as one `fma`
    /// (see [`weft_ir::MathFlags::CONTRACT`]): `a*b + c`, `c + a*b`,
    /// `a*b - c` = `fma(a, b, -c)`, `c - a*b` = `fma(-a, b, c)`. `None`
    /// when the pattern does not apply (or the host has no FMA).
    pub(super) fn contract(&mut self, inst: Inst, s: Scalar) -> Result<Option<cl::Value>> {
        if !self.host_fma || !matches!(s, Scalar::F32 | Scalar::F64) {
            return Ok(None);
        }
        let Some((x, y, c, neg_c, neg_x)) = contraction(self.f, inst) else {
            return Ok(None);
        };
        let (mut xv, yv, mut cv) = (self.get1(x)?, self.get1(y)?, self.get1(c)?);
        if neg_c {
            cv = self.b.ins().fneg(cv);
        }
        if neg_x {
            xv = self.b.ins().fneg(xv);
        }
        Ok(Some(self.b.ins().fma(xv, yv, cv)))
    }

    pub(super) fn unary(&mut self, op: UnaryOp, s: Scalar, x: cl::Value) -> Result<cl::Value> {
        use UnaryOp::*;
        let fl = s.is_float();
        let uf = |f: MathFn| {
            if s == Scalar::F64 {
                Shim::F64Unary(f)
            } else {
                Shim::F32Unary(f)
            }
        };
        let shim_fn = MathFn::of_unary(op);
        if let Some(func) = shim_fn {
            if !fl {
                return self.unsupported(format!("{op:?} on {s}"));
            }
            let v = self.call_shim1(uf(func), &[x])?;
            return self.r16(s, v);
        }
        let ins = self.b.ins();
        Ok(match op {
            Neg if fl => ins.fneg(x),
            Neg if s.is_int() => ins.ineg(x),
            Not if s == Scalar::Bool => ins.bxor_imm_u(x, 1),
            Not if s.is_int() => ins.bnot(x),
            Abs if fl => ins.fabs(x),
            Abs if s.is_signed_int() => ins.iabs(x),
            Abs if s.is_unsigned_int() => x,
            Sqrt if fl => {
                let v = ins.sqrt(x);
                self.r16(s, v)?
            }
            Floor if fl => ins.floor(x),
            Ceil if fl => ins.ceil(x),
            Trunc if fl => ins.trunc(x),
            Rint if fl => ins.nearest(x),
            Floor | Ceil | Trunc | Rint | Round if s.is_int() => x,
            Round if fl => {
                // Half away from zero: trunc, then step away when the
                // fraction is at least one half (x - trunc(x) is exact).
                let t = ins.trunc(x);
                let d = self.b.ins().fsub(x, t);
                let d = self.b.ins().fabs(d);
                let half = self.fconst(s, 0.5);
                let one = self.fconst(s, 1.0);
                let step = self.b.ins().fcopysign(one, x);
                let away = self.b.ins().fadd(t, step);
                let c = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, d, half);
                self.b.ins().select(c, away, t)
            }
            Popcount if s.is_int() => ins.popcnt(x),
            IsNan if fl => ins.fcmp(FloatCC::Unordered, x, x),
            IsInf | IsFinite if fl => {
                let a = ins.fabs(x);
                let inf = self.fconst(s, f64::INFINITY);
                let cc = if op == IsInf {
                    FloatCC::Equal
                } else {
                    FloatCC::LessThan
                };
                self.b.ins().fcmp(cc, a, inf)
            }
            IsNan | IsInf => ins.iconst(I8, 0),
            IsFinite => ins.iconst(I8, 1),
            _ => return self.unsupported(format!("{op:?} on {s}")),
        })
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: cl::Value,
        b: cl::Value,
    ) -> Result<cl::Value> {
        if s.is_float() {
            self.float_binary(op, s, a, b)
        } else {
            self.int_binary(op, s, a, b)
        }
    }

    fn float_binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: cl::Value,
        b: cl::Value,
    ) -> Result<cl::Value> {
        use BinaryOp::*;
        let bf = |f: MathFn| {
            if s == Scalar::F64 {
                Shim::F64Binary(f)
            } else {
                Shim::F32Binary(f)
            }
        };
        let cmp = |cc: FloatCC, tx: &mut Self| tx.b.ins().fcmp(cc, a, b);
        let v = match op {
            Add => self.b.ins().fadd(a, b),
            Sub => self.b.ins().fsub(a, b),
            Mul => self.b.ins().fmul(a, b),
            Div => self.b.ins().fdiv(a, b),
            Rem => self.call_shim1(bf(MathFn::Fmod), &[a, b])?,
            Pow => self.call_shim1(bf(MathFn::Pow), &[a, b])?,
            Atan2 => self.call_shim1(bf(MathFn::Atan2), &[a, b])?,
            Min | Max => {
                // Warp's: C fmin/fmax (a NaN operand is ignored), and of
                // equal operands the first (`min(-0.0, 0.0)` is -0.0,
                // `min(0.0, -0.0)` is 0.0; Cranelift's `fmin` orders -0 < +0).
                let m = if op == Min {
                    self.b.ins().fmin(a, b)
                } else {
                    self.b.ins().fmax(a, b)
                };
                let eq = self.b.ins().fcmp(FloatCC::Equal, a, b);
                let m = self.b.ins().select(eq, a, m);
                let a_nan = self.b.ins().fcmp(FloatCC::Unordered, a, a);
                let b_nan = self.b.ins().fcmp(FloatCC::Unordered, b, b);
                let m = self.b.ins().select(a_nan, b, m);
                return Ok(self.b.ins().select(b_nan, a, m));
            }
            Copysign => return Ok(self.b.ins().fcopysign(a, b)),
            Eq => return Ok(cmp(FloatCC::Equal, self)),
            Ne => return Ok(cmp(FloatCC::NotEqual, self)),
            Lt => return Ok(cmp(FloatCC::LessThan, self)),
            Le => return Ok(cmp(FloatCC::LessThanOrEqual, self)),
            Gt => return Ok(cmp(FloatCC::GreaterThan, self)),
            Ge => return Ok(cmp(FloatCC::GreaterThanOrEqual, self)),
            And | Or | Xor | Shl | Shr => return self.unsupported(format!("{op:?} on {s}")),
        };
        self.r16(s, v)
    }

    /// Quotient and remainder of `a / b` without traps: `x / 0 = 0`,
    /// `x % 0 = 0`, `MIN / -1` wraps, `MIN % -1 = 0`. One division serves
    /// both (the remainder is `a - q·b`), and a pair already computed in a
    /// dominating region is reused: the 2-D/3-D thread index decomposition
    /// divides and takes the remainder by the same launch dim.
    fn div_rem(
        &mut self,
        signed: bool,
        t: cl::Type,
        a: cl::Value,
        b: cl::Value,
    ) -> (cl::Value, cl::Value) {
        if let Some(&qr) = self.divs.get(&(a, b, signed)) {
            return qr;
        }
        let zero = self.b.ins().icmp_imm_u(IntCC::Equal, b, 0);
        let one = self.b.ins().iconst(t, 1);
        let zv = self.b.ins().iconst(t, 0);
        let qr = if signed {
            let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
            let bad = self.b.ins().bor(zero, m1);
            let safe = self.b.ins().select(bad, one, b);
            let raw = self.b.ins().sdiv(a, safe);
            let prod = self.b.ins().imul(raw, safe);
            let r = self.b.ins().isub(a, prod);
            let neg = self.b.ins().ineg(a);
            let q = self.b.ins().select(m1, neg, raw);
            (self.b.ins().select(zero, zv, q), r)
        } else {
            let safe = self.b.ins().select(zero, one, b);
            let raw = self.b.ins().udiv(a, safe);
            let prod = self.b.ins().imul(raw, safe);
            let r = self.b.ins().isub(a, prod);
            (self.b.ins().select(zero, zv, raw), r)
        };
        self.divs.insert((a, b, signed), qr);
        if let Some(scope) = self.div_scopes.last_mut() {
            scope.push((a, b, signed));
        }
        qr
    }

    fn int_binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: cl::Value,
        b: cl::Value,
    ) -> Result<cl::Value> {
        use BinaryOp::*;
        let signed = s.is_signed_int();
        let t = cty(s);
        let is_bool = s == Scalar::Bool;
        let cc = |sc: IntCC, uc: IntCC| if signed { sc } else { uc };
        let ins = self.b.ins();
        Ok(match op {
            Add if !is_bool => ins.iadd(a, b),
            Sub if !is_bool => ins.isub(a, b),
            Mul if !is_bool => ins.imul(a, b),
            Div | Rem if !is_bool => {
                let (q, r) = self.div_rem(signed, t, a, b);
                if op == Div {
                    q
                } else {
                    r
                }
            }
            Min if signed => ins.smin(a, b),
            Max if signed => ins.smax(a, b),
            Min => ins.umin(a, b),
            Max => ins.umax(a, b),
            And => ins.band(a, b),
            Or => ins.bor(a, b),
            Xor => ins.bxor(a, b),
            Shl if !is_bool => ins.ishl(a, b),
            Shr if signed => ins.sshr(a, b),
            Shr if !is_bool => ins.ushr(a, b),
            Eq => ins.icmp(IntCC::Equal, a, b),
            Ne => ins.icmp(IntCC::NotEqual, a, b),
            Lt => ins.icmp(cc(IntCC::SignedLessThan, IntCC::UnsignedLessThan), a, b),
            Le => ins.icmp(
                cc(IntCC::SignedLessThanOrEqual, IntCC::UnsignedLessThanOrEqual),
                a,
                b,
            ),
            Gt => ins.icmp(
                cc(IntCC::SignedGreaterThan, IntCC::UnsignedGreaterThan),
                a,
                b,
            ),
            Ge => ins.icmp(
                cc(
                    IntCC::SignedGreaterThanOrEqual,
                    IntCC::UnsignedGreaterThanOrEqual,
                ),
                a,
                b,
            ),
            _ => return self.unsupported(format!("{op:?} on {s}")),
        })
    }

    pub(super) fn cast(&mut self, from: Scalar, to: Scalar, x: cl::Value) -> Result<cl::Value> {
        if from == to {
            return Ok(x);
        }
        let (ft, tt) = (cty(from), cty(to));
        if to == Scalar::Bool {
            return Ok(if from.is_float() {
                let z = self.fconst(from, 0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, x, z)
            } else {
                self.b.ins().icmp_imm_u(IntCC::NotEqual, x, 0)
            });
        }
        if !from.is_float() && !to.is_float() {
            // int/bool -> int: wrap or extend by the source's signedness.
            return Ok(match ft.bits().cmp(&tt.bits()) {
                std::cmp::Ordering::Equal => x,
                std::cmp::Ordering::Greater => self.b.ins().ireduce(tt, x),
                std::cmp::Ordering::Less if from.is_signed_int() => self.b.ins().sextend(tt, x),
                std::cmp::Ordering::Less => self.b.ins().uextend(tt, x),
            });
        }
        if !from.is_float() {
            // int/bool -> float. f16 goes through f64 so it is rounded once.
            let x = if ft.bits() < 32 {
                if from.is_signed_int() {
                    self.b.ins().sextend(I32, x)
                } else {
                    self.b.ins().uextend(I32, x)
                }
            } else {
                x
            };
            // (bf16, as Warp, through f32.)
            let target = if to == Scalar::F16 { F64 } else { tt };
            let v = if from.is_signed_int() {
                self.b.ins().fcvt_from_sint(target, x)
            } else {
                self.b.ins().fcvt_from_uint(target, x)
            };
            return match to {
                Scalar::F16 => self.call_shim1(Shim::F64ToF16, &[v]),
                Scalar::BF16 => self.r16(to, v),
                _ => Ok(v),
            };
        }
        if to.is_float() {
            return match (from, to) {
                (Scalar::F16 | Scalar::BF16, Scalar::F32) => Ok(x),
                (_, Scalar::F64) => Ok(self.b.ins().fpromote(F64, x)),
                (Scalar::F64, Scalar::F32) => Ok(self.b.ins().fdemote(F32, x)),
                (Scalar::F32 | Scalar::BF16, Scalar::F16) => self.call_shim1(Shim::RoundF16, &[x]),
                (Scalar::F64, Scalar::BF16) => {
                    let f = self.b.ins().fdemote(F32, x);
                    self.r16(to, f)
                }
                (_, Scalar::BF16) => self.r16(to, x),
                _ => self.call_shim1(Shim::F64ToF16, &[x]),
            };
        }
        // float -> int: truncate, saturate, NaN -> 0.
        Ok(match to {
            Scalar::I32 | Scalar::I64 => self.b.ins().fcvt_to_sint_sat(tt, x),
            Scalar::U32 | Scalar::U64 => self.b.ins().fcvt_to_uint_sat(tt, x),
            _ => {
                let (lo, hi) = match to {
                    Scalar::I8 => (i8::MIN as i64, i8::MAX as i64),
                    Scalar::I16 => (i16::MIN as i64, i16::MAX as i64),
                    Scalar::U8 => (0, u8::MAX as i64),
                    _ => (0, u16::MAX as i64),
                };
                let v = self.b.ins().fcvt_to_sint_sat(I32, x);
                let lo = self.b.ins().iconst(I32, lo & 0xffff_ffff);
                let hi = self.b.ins().iconst(I32, hi);
                let v = self.b.ins().smax(v, lo);
                let v = self.b.ins().smin(v, hi);
                self.b.ins().ireduce(tt, v)
            }
        })
    }

    pub(super) fn bitcast(&mut self, from: Scalar, to: Scalar, x: cl::Value) -> Result<cl::Value> {
        if from.size() != to.size() || from == Scalar::Bool || to == Scalar::Bool {
            return self.invalid(format!("bitcast from {from} to {to}"));
        }
        if from == to || (!from.is_float() && !to.is_float()) {
            return Ok(x);
        }
        if matches!(from, Scalar::F16 | Scalar::BF16) {
            let b = self.half_bits(from, x)?;
            let b = self.b.ins().ireduce(I16, b);
            if to.is_float() {
                let w = self.b.ins().uextend(I32, b);
                return self.half_from_bits(to, w);
            }
            return Ok(b);
        }
        if matches!(to, Scalar::F16 | Scalar::BF16) {
            let w = self.b.ins().uextend(I32, x);
            return self.half_from_bits(to, w);
        }
        Ok(self.b.ins().bitcast(cty(to), MemFlagsData::new(), x))
    }
}
