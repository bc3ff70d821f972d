//! Unary operations: the transcendentals and the exactness helpers that
//! make them correctly rounded or special-value exact, and the intrinsics
//! chosen instead under `afn` (fast math); with them negation, `abs`,
//! rounding, classification and the integer and bool unary operations.

use super::arithmetic::wrap;
use super::{is_wide_int, Emitter, R};
use weft_ir::{Loc, MathFlags, Scalar, UnaryOp};

impl<'a> Emitter<'a> {
    pub(super) fn unary(&mut self, op: UnaryOp, s: Scalar, x: String, loc: Loc) -> R<String> {
        use UnaryOp::*;
        let h = |e: &mut Self, n: &'static str| e.helpers.call(n);
        if s.is_float() {
            let d = s == Scalar::F64;
            let e = match op {
                Neg => format!("(-{x})"),
                Abs => format!("abs({x})"),
                IsNan | IsInf | IsFinite => {
                    let n: &'static str = match (op, d) {
                        (IsNan, false) => "weft_isnan32",
                        (IsNan, true) => "weft_isnan64",
                        (IsInf, false) => "weft_isinf32",
                        (IsInf, true) => "weft_isinf64",
                        (_, false) => "weft_isfinite32",
                        (_, true) => "weft_isfinite64",
                    };
                    return Ok(format!("{}({x})", h(self, n)));
                }
                Sqrt if d => format!("{}({x})", h(self, "weft_sqrt64")),
                Floor | Ceil | Trunc | Round | Rint if d => {
                    let n = match op {
                        Floor => "weft_floor64",
                        Ceil => "weft_ceil64",
                        Trunc => "weft_trunc64",
                        Round => "weft_round64",
                        _ => "weft_rint64",
                    };
                    format!("{}({x})", h(self, n))
                }
                Round => format!("{}({x})", h(self, "weft_round32")),
                Rint => format!("{}({x})", h(self, "weft_rint32")),
                _ if d => {
                    return Err(self.unsupported(
                        format!("{} on float64 (HLSL has no double-precision {op:?}; float32 would lose precision)", format!("{op:?}").to_lowercase()),
                        loc,
                    ))
                }
                // `afn`: the intrinsics, without the exactness helpers.
                // (asin/acos keep NaN outside [-1, 1] unless `nnan`).
                Asin | Acos
                    if self.allows(MathFlags::APPROX_FUNC)
                        && !self.allows(MathFlags::NO_NANS) =>
                {
                    let n = if op == Asin {
                        "weft_asin32_afn"
                    } else {
                        "weft_acos32_afn"
                    };
                    format!("{}({x})", h(self, n))
                }
                Log | Log2 | Log10 | Exp | Asin | Acos | Atan
                    if self.allows(MathFlags::APPROX_FUNC) =>
                {
                    format!("{}({x})", format!("{op:?}").to_lowercase())
                }
                Log => format!("{}({x})", h(self, "weft_log32")),
                Log2 => format!("{}({x})", h(self, "weft_log2_32")),
                Log10 => format!("{}({x})", h(self, "weft_log10_32")),
                Exp => format!("{}({x})", h(self, "weft_exp32")),
                Sqrt | Floor | Ceil | Trunc | Sin | Cos | Tan | Sinh | Cosh | Tanh | Exp2 => {
                    format!("{}({x})", format!("{op:?}").to_lowercase())
                }
                Cbrt => format!("{}({x})", h(self, "weft_cbrt32")),
                Asin => format!("{}({x})", h(self, "weft_asin32")),
                Acos => format!("{}({x})", h(self, "weft_acos32")),
                Atan => format!("{}({x})", h(self, "weft_atan32")),
                Erf => format!("{}({x})", h(self, "weft_erf32")),
                Erfc => format!("{}({x})", h(self, "weft_erfc32")),
                Erfinv => format!("{}({x})", h(self, "weft_erfinv32")),
                Not | Popcount => return Err(self.invalid(format!("{op:?} on a float"))),
            };
            return Ok(self.f16(s, e));
        }
        if s == Scalar::Bool {
            return match op {
                Not => Ok(format!("(!{x})")),
                IsNan | IsInf => Ok("false".into()),
                IsFinite => Ok("true".into()),
                Abs | Floor | Ceil | Trunc | Round | Rint => Ok(x),
                _ => Err(self.invalid(format!("{op:?} on bool"))),
            };
        }
        if is_wide_int(s) {
            return Ok(match op {
                Neg => format!("{}({x})", h(self, "weft_i64_neg")),
                Not => format!("(~{x})"),
                Abs if s == Scalar::I64 => format!("{}({x})", h(self, "weft_i64_abs")),
                Popcount => format!("{}({x})", h(self, "weft_i64_popcount")),
                IsNan | IsInf => "false".into(),
                IsFinite => "true".into(),
                Abs | Floor | Ceil | Trunc | Round | Rint => x,
                _ => return Err(self.invalid(format!("{op:?} on an integer"))),
            });
        }
        let signed = s.is_signed_int();
        Ok(match op {
            Neg if signed => wrap(s, format!("(-{x})")),
            Neg => wrap(s, format!("(0u - {x})")),
            Not => wrap(s, format!("(~{x})")),
            Abs if signed => wrap(s, format!("abs({x})")),
            Popcount => {
                let mask = match s.bits() {
                    8 => "0xffu",
                    16 => "0xffffu",
                    _ => "0xffffffffu",
                };
                if signed {
                    format!("(int)countbits((uint){x} & {mask})")
                } else {
                    format!("countbits({x})")
                }
            }
            IsNan | IsInf => "false".into(),
            IsFinite => "true".into(),
            Abs | Floor | Ceil | Trunc | Round | Rint => x,
            _ => return Err(self.invalid(format!("{op:?} on an integer"))),
        })
    }
}
