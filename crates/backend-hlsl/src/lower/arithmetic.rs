//! Arithmetic: binary operations and comparisons, casts and bitcasts, the
//! canonical form of narrow integers and of f16, integer division through
//! the guarded helpers, and the glue between `precise` and the fast-math
//! flags.

use super::{is_wide_int, Emitter, R};
use weft_ir::{BinaryOp, InstKind, Loc, MathFlags, Scalar, Type, Value, ValueDef};

/// Keeps a value of a narrow type in its canonical form after arithmetic.
pub(super) fn wrap(s: Scalar, e: String) -> String {
    match s {
        Scalar::I8 => format!("(((int)({e}) << 24) >> 24)"),
        Scalar::I16 => format!("(((int)({e}) << 16) >> 16)"),
        Scalar::U8 => format!("(({e}) & 0xffu)"),
        Scalar::U16 => format!("(({e}) & 0xffffu)"),
        _ => e,
    }
}

impl<'a> Emitter<'a> {
    /// Whether values of type `t` are declared `precise`: floating-point
    /// values, so that no compiler reassociates, contracts or assumes away
    /// NaNs, infinities and signed zeros (operations with fast-math flags
    /// are exempted by [`Self::precise_value`]).
    fn precise(&self, t: Type) -> bool {
        t.scalar_of().is_some_and(|s| s.is_float())
    }

    /// Whether the local of `v` is declared `precise`. In a function where
    /// some operation carries `contract`, only the results of float
    /// operations without it are: `precise` spreads to every computation
    /// that feeds the variable (in DXC and glslang alike), so a `precise`
    /// select, vector or loop variable would forbid contracting the
    /// operations it gathers. Those do no arithmetic of their own; each
    /// operation's own declaration keeps it exact or not. Without any
    /// `contract` every float value is `precise`, as before.
    pub(super) fn precise_value(&self, v: Value) -> bool {
        if !self.precise(self.vty(v)) {
            return false;
        }
        if !self.fast_fn {
            return true;
        }
        match self.f.values[v].def {
            ValueDef::Result(i, _) if self.f.accepts_math_flags(i) => {
                let d = &self.f.insts[i];
                !d.flags.contains(MathFlags::CONTRACT)
                    || (self.times_zero(&d.kind)
                        && !d.flags.contains(MathFlags::NO_NANS | MathFlags::NO_INFS))
            }
            _ => false,
        }
    }

    /// Whether `k` multiplies by a constant zero. Such a product stays
    /// `precise` under `contract` (fusing it gains nothing): without
    /// `precise`, Mesa and DXC fold `x * 0.0` to `0.0`, dropping the NaN of
    /// an infinite or NaN `x`, which only `nnan` + `ninf` allow.
    fn times_zero(&self, k: &InstKind) -> bool {
        let zero = |v: Value| match self.f.values[v].def {
            ValueDef::Result(i, _) => matches!(
                self.f.insts[i].kind,
                InstKind::Const(c) if c.ty.is_float() && f64::from_bits(c.bits) == 0.0
            ),
            _ => false,
        };
        matches!(*k, InstKind::Binary(BinaryOp::Mul, a, b) if zero(a) || zero(b))
    }

    /// Whether the current instruction may assume `flag`.
    pub(super) fn allows(&self, flag: MathFlags) -> bool {
        self.flags.contains(flag)
    }

    /// `e` rounded to `s` when `s` is `f16` or `bf16` (whose values live
    /// in floats).
    pub(super) fn f16(&mut self, s: Scalar, e: String) -> String {
        match s {
            Scalar::F16 => format!("{}({e})", self.helpers.call("weft_f16")),
            Scalar::BF16 => format!("{}({e})", self.helpers.call("weft_bf16")),
            _ => e,
        }
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: String,
        b: String,
        loc: Loc,
    ) -> R<String> {
        use BinaryOp::*;
        let infix = |o: &str| format!("({a} {o} {b})");
        if s.is_float() {
            let d = s == Scalar::F64;
            let e = match op {
                Add => infix("+"),
                Sub => infix("-"),
                // Float zero constants are opaque (`float_zero`), so no
                // compiler folds `x * 0.0`, `x / 0.0` or `x + 0.0`.
                Mul => infix("*"),
                Div if d && !self.allows(MathFlags::NO_NANS | MathFlags::NO_INFS) => {
                    format!("{}({a}, {b})", self.helpers.call("weft_div64"))
                }
                Div => infix("/"),
                Rem => {
                    let n = if d { "weft_fmod64" } else { "weft_fmod32" };
                    format!("{}({a}, {b})", self.helpers.call(n))
                }
                // `nnan`: the hardware min/max (undefined on NaN).
                Min | Max if self.allows(MathFlags::NO_NANS) => {
                    format!("{}({a}, {b})", if op == Min { "min" } else { "max" })
                }
                Min | Max => {
                    let n = match (op, d) {
                        (Min, false) => "weft_fmin32",
                        (Min, true) => "weft_fmin64",
                        (_, false) => "weft_fmax32",
                        (_, true) => "weft_fmax64",
                    };
                    format!("{}({a}, {b})", self.helpers.call(n))
                }
                Copysign => {
                    let n = if d { "weft_copysign64" } else { "weft_copysign32" };
                    format!("{}({a}, {b})", self.helpers.call(n))
                }
                Pow | Atan2 if d => {
                    return Err(self.unsupported(
                        format!(
                            "{} on float64 (HLSL has no double-precision {}; float32 would lose precision)",
                            if op == Pow { "pow" } else { "atan2" },
                            if op == Pow { "pow" } else { "atan2" }
                        ),
                        loc,
                    ))
                }
                Pow if self.allows(MathFlags::NO_NANS | MathFlags::NO_INFS) => {
                    format!("{}({a}, {b})", self.helpers.call("weft_pow32_fast"))
                }
                Pow => format!("{}({a}, {b})", self.helpers.call("weft_pow32")),
                Atan2 if self.allows(MathFlags::APPROX_FUNC) => {
                    format!("{}({a}, {b})", self.helpers.call("weft_atan2_32_afn"))
                }
                Atan2 => format!("{}({a}, {b})", self.helpers.call("weft_atan2_32")),
                Eq => return Ok(infix("==")),
                Ne if self.allows(MathFlags::NO_NANS) => return Ok(infix("!=")),
                Ne => return Ok(format!("(!({a} == {b}))")),
                Lt => return Ok(infix("<")),
                Le => return Ok(infix("<=")),
                Gt => return Ok(infix(">")),
                Ge => return Ok(infix(">=")),
                And | Or | Xor | Shl | Shr => return Err(self.invalid(format!("{op:?} on floats"))),
            };
            return Ok(self.f16(s, e));
        }
        if s == Scalar::Bool {
            return Ok(match op {
                And | Min | Mul => infix("&&"),
                Or | Max => infix("||"),
                Xor | Ne => infix("!="),
                Eq => infix("=="),
                Lt => format!("((int){a} < (int){b})"),
                Le => format!("((int){a} <= (int){b})"),
                Gt => format!("((int){a} > (int){b})"),
                Ge => format!("((int){a} >= (int){b})"),
                _ => return Err(self.invalid(format!("{op:?} on bools"))),
            });
        }
        let signed = s.is_signed_int();
        if is_wide_int(s) {
            let call = |e: &mut Self, n: &'static str| format!("{}({a}, {b})", e.helpers.call(n));
            let lt = if signed { "weft_i64_lt" } else { "weft_u64_lt" };
            return Ok(match op {
                Add => call(self, "weft_i64_add"),
                Sub => call(self, "weft_i64_sub"),
                Mul => call(self, "weft_i64_mul"),
                Div => call(
                    self,
                    if signed {
                        "weft_i64_div"
                    } else {
                        "weft_u64_div"
                    },
                ),
                Rem => call(
                    self,
                    if signed {
                        "weft_i64_rem"
                    } else {
                        "weft_u64_rem"
                    },
                ),
                Min => call(
                    self,
                    if signed {
                        "weft_i64_min"
                    } else {
                        "weft_u64_min"
                    },
                ),
                Max => call(
                    self,
                    if signed {
                        "weft_i64_max"
                    } else {
                        "weft_u64_max"
                    },
                ),
                And => infix("&"),
                Or => infix("|"),
                Xor => infix("^"),
                Shl => format!("{}({a}, {b}.x)", self.helpers.call("weft_i64_shl")),
                Shr => {
                    let n = if signed {
                        "weft_i64_shr"
                    } else {
                        "weft_u64_shr"
                    };
                    format!("{}({a}, {b}.x)", self.helpers.call(n))
                }
                Eq => call(self, "weft_i64_eq"),
                Ne => format!("(!{})", call(self, "weft_i64_eq")),
                Lt => call(self, lt),
                Gt => format!("{}({b}, {a})", self.helpers.call(lt)),
                Le => format!("(!{}({b}, {a}))", self.helpers.call(lt)),
                Ge => format!("(!{}({a}, {b}))", self.helpers.call(lt)),
                Pow | Atan2 | Copysign => return Err(self.invalid(format!("{op:?} on integers"))),
            });
        }
        let width_mask = s.bits() - 1;
        Ok(match op {
            Add => wrap(s, infix("+")),
            Sub => wrap(s, infix("-")),
            Mul => wrap(s, infix("*")),
            Div | Rem => {
                let n = match (op, signed) {
                    (Div, true) => "weft_div_i32",
                    (Div, false) => "weft_div_u32",
                    (_, true) => "weft_rem_i32",
                    (_, false) => "weft_rem_u32",
                };
                wrap(s, format!("{}({a}, {b})", self.helpers.call(n)))
            }
            Min => format!("min({a}, {b})"),
            Max => format!("max({a}, {b})"),
            And => infix("&"),
            Or => infix("|"),
            Xor => infix("^"),
            Shl => wrap(s, format!("({a} << ((uint){b} & {width_mask}u))")),
            Shr => format!("({a} >> ((uint){b} & {width_mask}u))"),
            Eq => infix("=="),
            Ne => infix("!="),
            Lt => infix("<"),
            Le => infix("<="),
            Gt => infix(">"),
            Ge => infix(">="),
            Pow | Atan2 | Copysign => return Err(self.invalid(format!("{op:?} on integers"))),
        })
    }

    pub(super) fn cast(&mut self, x: String, from: Scalar, to: Scalar) -> String {
        use Scalar::*;
        if from == to {
            return x;
        }
        let h = |e: &mut Self, n: &'static str| e.helpers.call(n);
        match (from, to) {
            (_, Bool) => match from {
                F16 | F32 | F64 | BF16 => format!("(!({x} == 0.0))"),
                I64 | U64 => format!("(({x}.x | {x}.y) != 0u)"),
                _ => format!("({x} != 0)"),
            },
            // The zero of a false is the constant buffer's: a literal one
            // lets lavapipe fold `y * float(b)` to 0.0 once it knows `b`
            // is false, dropping the NaN of an infinite `y` (fuzz seed
            // 31221364).
            (Bool, F64) => format!("({x} ? 1.0L : {})", self.opaque_zero(F64)),
            (Bool, F16 | F32 | BF16) => format!("({x} ? 1.0 : {})", self.opaque_zero(F32)),
            (Bool, I64 | U64) => format!("uint2({x} ? 1u : 0u, 0u)"),
            (Bool, _) if to.is_signed_int() => format!("({x} ? 1 : 0)"),
            (Bool, _) => format!("({x} ? 1u : 0u)"),
            // int -> int
            (I64 | U64, I64 | U64) => x,
            (I64 | U64, _) if to.is_int() => {
                let lo = format!("{x}.x");
                wrap(
                    to,
                    if to.is_signed_int() {
                        format!("(int){lo}")
                    } else {
                        lo
                    },
                )
            }
            (_, I64 | U64) if from.is_int() => {
                if from.is_signed_int() {
                    format!("uint2((uint){x}, {x} < 0 ? 0xffffffffu : 0u)")
                } else {
                    format!("uint2({x}, 0u)")
                }
            }
            _ if from.is_int() && to.is_int() => {
                let c = if to.is_signed_int() {
                    format!("(int){x}")
                } else {
                    format!("(uint){x}")
                };
                if to.bits() < from.bits() || to.is_signed_int() != from.is_signed_int() {
                    wrap(to, c)
                } else {
                    c
                }
            }
            // int -> float, plus the constant buffer's opaque zero (exact:
            // no int converts to -0.0): lavapipe folds `y * float(i)` to
            // 0.0 (or a select) once it knows `i` is 0, dropping the NaN
            // of an infinite `y` (fuzz seed 36221354).
            (I64, _) | (U64, _) => {
                let n = if from == I64 {
                    "weft_i64_to_f64"
                } else {
                    "weft_u64_to_f64"
                };
                let d = format!("{}({x})", h(self, n));
                match to {
                    F64 => format!("({d} + {})", self.opaque_zero(F64)),
                    F32 => format!("((float){d} + {})", self.opaque_zero(F32)),
                    _ => {
                        let z = self.opaque_zero(F32);
                        self.f16(to, format!("((float){d} + {z})"))
                    }
                }
            }
            (_, F64) if from.is_int() => format!("((double){x} + {})", self.opaque_zero(F64)),
            (_, F32) if from.is_int() => format!("((float){x} + {})", self.opaque_zero(F32)),
            (_, F16 | BF16) if from.is_int() => {
                let z = self.opaque_zero(F32);
                self.f16(to, format!("((float){x} + {z})"))
            }
            // float -> float
            (F16 | BF16, F32) => x,
            (F16 | F32 | BF16, F64) => format!("(double){x}"),
            (F64, F32) => format!("(float){x}"),
            (F64, F16 | BF16) => self.f16(to, format!("(float){x}")),
            (F32 | BF16, F16) | (F32 | F16, BF16) => self.f16(to, x),
            // float -> int
            _ => {
                let d = from == F64;
                match to {
                    I64 | U64 => {
                        let n = if to == I64 {
                            "weft_f64_to_i64"
                        } else {
                            "weft_f64_to_u64"
                        };
                        let arg = if d { x } else { format!("(double){x}") };
                        format!("{}({arg})", h(self, n))
                    }
                    _ => {
                        let n = match (d, to.is_signed_int()) {
                            (false, true) => "weft_f32_to_i32",
                            (false, false) => "weft_f32_to_u32",
                            (true, true) => "weft_f64_to_i32",
                            (true, false) => "weft_f64_to_u32",
                        };
                        let c = format!("{}({x})", h(self, n));
                        match to {
                            I8 => format!("clamp({c}, -128, 127)"),
                            I16 => format!("clamp({c}, -32768, 32767)"),
                            U8 => format!("min({c}, 255u)"),
                            U16 => format!("min({c}, 65535u)"),
                            _ => c,
                        }
                    }
                }
            }
        }
    }

    pub(super) fn bitcast(&mut self, x: String, from: Scalar, to: Scalar) -> R<String> {
        use Scalar::*;
        if from.size() != to.size() || from == Bool || to == Bool {
            return Err(self.invalid(format!("bitcast {from} -> {to}")));
        }
        Ok(match (from, to) {
            _ if from == to => x,
            (F32, I32) => format!("asint({x})"),
            (F32, U32) => format!("asuint({x})"),
            (I32 | U32, F32) => format!("asfloat({x})"),
            (F64, I64 | U64) => format!("{}({x})", self.helpers.call("weft_bits64")),
            (I64 | U64, F64) => format!("asdouble({x}.x, {x}.y)"),
            (F16, U16) => format!("f32tof16({x})"),
            (F16, I16) => wrap(I16, format!("(int)f32tof16({x})")),
            (I16 | U16, F16) => format!("f16tof32((uint){x} & 0xffffu)"),
            (BF16, U16) => format!("{}({x})", self.helpers.call("weft_bf16_bits")),
            (BF16, I16) => {
                let b = format!("(int){}({x})", self.helpers.call("weft_bf16_bits"));
                wrap(I16, b)
            }
            (I16 | U16, BF16) => format!("{}((uint){x})", self.helpers.call("weft_bf16_to_f32")),
            (F16, BF16) => format!("{}(f32tof16({x}))", self.helpers.call("weft_bf16_to_f32")),
            (BF16, F16) => format!("f16tof32({}({x}))", self.helpers.call("weft_bf16_bits")),
            _ => self.cast(x, from, to),
        })
    }
}
