//! Scalar semantics of the interpreter: how a scalar is encoded in a 64-bit
//! slot, and every unary, binary, cast and memory operation on scalars.
//!
//! # Slot encoding
//!
//! * `bool`: 0 or 1;
//! * signed integers: the value sign-extended to 64 bits;
//! * unsigned integers: the value zero-extended to 64 bits;
//! * `f16`: its 16 IEEE bits, `f32`: its 32 bits, `f64`: its 64 bits (upper
//!   bits zero).
//!
//! Every operation takes and returns canonical encodings. Operations on a
//! combination the interpreter does not define (e.g. `sin` of an integer) are
//! rejected before execution by [`unary_supported`] / [`binary_supported`];
//! at run time they yield 0 rather than panic.

use super::special;
use crate::f16;
use crate::ir::{AtomicOp, BinaryOp, UnaryOp};
use crate::types::Scalar;

/// Wraps an integer to the canonical encoding of `s` (an integer type);
/// for `bool` the result is `v != 0`, for floats `v` unchanged.
#[inline]
pub(crate) fn wrap(s: Scalar, v: u64) -> u64 {
    match s {
        Scalar::Bool => (v != 0) as u64,
        Scalar::I8 => v as i8 as i64 as u64,
        Scalar::I16 => v as i16 as i64 as u64,
        Scalar::I32 => v as i32 as i64 as u64,
        Scalar::U8 => v as u8 as u64,
        Scalar::U16 => v as u16 as u64,
        Scalar::U32 => v as u32 as u64,
        Scalar::I64 | Scalar::U64 | Scalar::F16 | Scalar::F32 | Scalar::F64 | Scalar::BF16 => v,
    }
}

/// The raw bits of a value as stored in memory (low `size*8` bits).
#[inline]
pub(crate) fn raw_bits(s: Scalar, v: u64) -> u64 {
    match s.size() {
        1 => v & 0xff,
        2 => v & 0xffff,
        4 => v & 0xffff_ffff,
        _ => v,
    }
}

/// Decodes raw memory bits (low `size*8` bits) into the slot encoding.
#[inline]
pub(crate) fn from_raw(s: Scalar, raw: u64) -> u64 {
    match s {
        Scalar::Bool => (raw & 0xff != 0) as u64,
        _ => wrap(s, raw_bits(s, raw)),
    }
}

#[inline]
fn h2f(v: u64) -> f32 {
    f16::f16_to_f32(v as u16)
}

#[inline]
fn f2h(v: f32) -> u64 {
    f16::f32_to_f16(v) as u64
}

#[inline]
fn b2f(v: u64) -> f32 {
    f16::bf16_to_f32(v as u16)
}

#[inline]
fn f2b(v: f32) -> u64 {
    f16::f32_to_bf16(v) as u64
}

#[inline]
fn f32v(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

#[inline]
fn f32b(v: f32) -> u64 {
    v.to_bits() as u64
}

/// The value of a float slot as `f64` (exact).
pub(crate) fn float_to_f64(s: Scalar, v: u64) -> f64 {
    match s {
        Scalar::F16 => f16::f16_to_f64(v as u16),
        Scalar::BF16 => b2f(v) as f64,
        Scalar::F32 => f32v(v) as f64,
        _ => f64::from_bits(v),
    }
}

/// Encodes an `f64` as a float of type `s`, rounding to nearest even.
pub(crate) fn float_from_f64(s: Scalar, x: f64) -> u64 {
    match s {
        Scalar::F16 => f16::f64_to_f16(x) as u64,
        Scalar::BF16 => f16::f64_to_bf16(x) as u64,
        Scalar::F32 => f32b(x as f32),
        _ => x.to_bits(),
    }
}

/// Whether the interpreter defines `op` on operands of type `s`.
pub(crate) fn unary_supported(op: UnaryOp, s: Scalar) -> bool {
    use UnaryOp::*;
    match op {
        IsNan | IsInf | IsFinite => true,
        Not => !s.is_float(),
        Neg | Abs | Floor | Ceil | Trunc | Round | Rint => s != Scalar::Bool,
        Popcount => s.is_int(),
        _ => s.is_float(),
    }
}

/// Whether the interpreter defines `op` on two operands of type `s`.
pub(crate) fn binary_supported(op: BinaryOp, s: Scalar) -> bool {
    use BinaryOp::*;
    match op {
        Eq | Ne | Lt | Le | Gt | Ge | Min | Max => true,
        And | Or | Xor => !s.is_float(),
        Shl | Shr => s.is_int(),
        Pow | Atan2 | Copysign => s.is_float(),
        Add | Sub | Mul | Div | Rem => s != Scalar::Bool,
    }
}

/// Whether the interpreter defines atomic `op` on components of type `s`.
pub(crate) fn atomic_supported(op: AtomicOp, s: Scalar) -> bool {
    match op {
        AtomicOp::Exchange | AtomicOp::Min | AtomicOp::Max => true,
        AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => !s.is_float(),
        AtomicOp::Add | AtomicOp::Sub => s != Scalar::Bool,
    }
}

macro_rules! float_unary {
    ($name:ident, $t:ty, $erf:path, $erfc:path, $erfinv:path) => {
        fn $name(op: UnaryOp, x: $t) -> $t {
            use UnaryOp::*;
            match op {
                Neg => -x,
                Abs => x.abs(),
                Sqrt => x.sqrt(),
                Cbrt => x.cbrt(),
                Floor => x.floor(),
                Ceil => x.ceil(),
                Trunc => x.trunc(),
                Round => x.round(),
                Rint => x.round_ties_even(),
                Sin => x.sin(),
                Cos => x.cos(),
                Tan => x.tan(),
                Asin => x.asin(),
                Acos => x.acos(),
                Atan => x.atan(),
                Sinh => x.sinh(),
                Cosh => x.cosh(),
                Tanh => x.tanh(),
                Exp => x.exp(),
                Exp2 => x.exp2(),
                Log => x.ln(),
                Log2 => x.log2(),
                Log10 => x.log10(),
                Erf => $erf(x),
                Erfc => $erfc(x),
                Erfinv => $erfinv(x),
                // Predicates and integer-only ops are handled by the caller.
                Not | Popcount | IsNan | IsInf | IsFinite => x,
            }
        }
    };
}

float_unary!(
    unary_f32,
    f32,
    special::erf_f32,
    special::erfc_f32,
    special::erfinv_f32
);
float_unary!(unary_f64, f64, special::erf, special::erfc, special::erfinv);

/// `op x` for a scalar of type `s` (the operand type; `Is*` return bool).
pub(crate) fn unary(op: UnaryOp, s: Scalar, x: u64) -> u64 {
    use UnaryOp::*;
    if s.is_float() {
        let f = float_to_f64(s, x);
        match op {
            IsNan => return f.is_nan() as u64,
            IsInf => return f.is_infinite() as u64,
            IsFinite => return f.is_finite() as u64,
            _ => {}
        }
        return match s {
            Scalar::F16 => f2h(unary_f32(op, h2f(x))),
            Scalar::BF16 => f2b(unary_f32(op, b2f(x))),
            Scalar::F32 => f32b(unary_f32(op, f32v(x))),
            _ => unary_f64(op, f).to_bits(),
        };
    }
    match op {
        IsNan | IsInf => 0,
        IsFinite => 1,
        Not if s == Scalar::Bool => (x == 0) as u64,
        Not => wrap(s, !x),
        Neg => wrap(s, x.wrapping_neg()),
        Abs if s.is_signed_int() => wrap(s, (x as i64).wrapping_abs() as u64),
        Popcount => raw_bits(s, x).count_ones() as u64,
        // abs of unsigned, rounding of integers: identity.
        _ => x,
    }
}

macro_rules! float_binary {
    ($name:ident, $t:ty) => {
        /// `a op b` on floats: `Ok(value)`, or `Err(truth)` for comparisons.
        fn $name(op: BinaryOp, a: $t, b: $t) -> Result<$t, bool> {
            use BinaryOp::*;
            Ok(match op {
                Add => a + b,
                Sub => a - b,
                Mul => a * b,
                Div => a / b,
                Rem => a % b,
                // Warp's: a NaN operand ignored, and of equal operands
                // the first (the sign of a zero result is defined).
                Min if a == b => a,
                Max if a == b => a,
                Min => a.min(b),
                Max => a.max(b),
                Pow => a.powf(b),
                Atan2 => a.atan2(b),
                Copysign => a.copysign(b),
                Eq => return Err(a == b),
                Ne => return Err(a != b),
                Lt => return Err(a < b),
                Le => return Err(a <= b),
                Gt => return Err(a > b),
                Ge => return Err(a >= b),
                And | Or | Xor | Shl | Shr => 0.0,
            })
        }
    };
}

float_binary!(binary_f32, f32);
float_binary!(binary_f64, f64);

fn binary_int(op: BinaryOp, s: Scalar, a: u64, b: u64) -> u64 {
    use BinaryOp::*;
    let signed = s.is_signed_int();
    let (sa, sb) = (a as i64, b as i64);
    let shift = (b & (s.bits().max(1) as u64 - 1)) as u32;
    let r = match op {
        Add => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        Div if b == 0 => 0,
        Div if signed => sa.wrapping_div(sb) as u64,
        Div => a / b,
        Rem if b == 0 => 0,
        Rem if signed => sa.wrapping_rem(sb) as u64,
        Rem => a % b,
        Min if signed => sa.min(sb) as u64,
        Min => a.min(b),
        Max if signed => sa.max(sb) as u64,
        Max => a.max(b),
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        Shl => a << shift,
        Shr if signed => (sa >> shift) as u64,
        Shr => a >> shift,
        Eq => return (a == b) as u64,
        Ne => return (a != b) as u64,
        Lt if signed => return (sa < sb) as u64,
        Le if signed => return (sa <= sb) as u64,
        Gt if signed => return (sa > sb) as u64,
        Ge if signed => return (sa >= sb) as u64,
        Lt => return (a < b) as u64,
        Le => return (a <= b) as u64,
        Gt => return (a > b) as u64,
        Ge => return (a >= b) as u64,
        Pow | Atan2 | Copysign => 0,
    };
    wrap(s, r)
}

/// `a op b` for operands of type `s`; comparisons return bool (0/1).
#[inline]
pub(crate) fn binary(op: BinaryOp, s: Scalar, a: u64, b: u64) -> u64 {
    match s {
        Scalar::F32 => {
            // The common cases first, without the detour through `Result`.
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            let r = match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                BinaryOp::Lt => return (x < y) as u64,
                _ => match binary_f32(op, x, y) {
                    Ok(r) => r,
                    Err(c) => return c as u64,
                },
            };
            r.to_bits() as u64
        }
        Scalar::F64 => match binary_f64(op, f64::from_bits(a), f64::from_bits(b)) {
            Ok(r) => r.to_bits(),
            Err(c) => c as u64,
        },
        Scalar::F16 => match binary_f32(op, h2f(a), h2f(b)) {
            Ok(r) => f2h(r),
            Err(c) => c as u64,
        },
        Scalar::BF16 => match binary_f32(op, b2f(a), b2f(b)) {
            Ok(r) => f2b(r),
            Err(c) => c as u64,
        },
        _ => binary_int(op, s, a, b),
    }
}

/// `a * b + c` rounded once (f16: computed in f32, then rounded to f16).
pub(crate) fn fma(s: Scalar, a: u64, b: u64, c: u64) -> u64 {
    match s {
        Scalar::F16 => f2h(h2f(a).mul_add(h2f(b), h2f(c))),
        Scalar::BF16 => f2b(b2f(a).mul_add(b2f(b), b2f(c))),
        Scalar::F32 => f32b(f32v(a).mul_add(f32v(b), f32v(c))),
        Scalar::F64 => f64::from_bits(a)
            .mul_add(f64::from_bits(b), f64::from_bits(c))
            .to_bits(),
        _ => 0,
    }
}

/// Converts `x` of type `from` to type `to` (see [`crate::InstKind::Cast`]).
pub(crate) fn cast(from: Scalar, to: Scalar, x: u64) -> u64 {
    if to == Scalar::Bool {
        return if from.is_float() {
            (float_to_f64(from, x) != 0.0) as u64
        } else {
            (x != 0) as u64
        };
    }
    if from.is_float() {
        let f = float_to_f64(from, x);
        return match to {
            Scalar::F16 | Scalar::F32 | Scalar::F64 | Scalar::BF16 => float_from_f64(to, f),
            // `as` truncates toward zero and saturates; NaN becomes 0.
            Scalar::I8 => f as i8 as i64 as u64,
            Scalar::I16 => f as i16 as i64 as u64,
            Scalar::I32 => f as i32 as i64 as u64,
            Scalar::I64 => f as i64 as u64,
            Scalar::U8 => f as u8 as u64,
            Scalar::U16 => f as u16 as u64,
            Scalar::U32 => f as u32 as u64,
            Scalar::U64 => f as u64,
            Scalar::Bool => 0,
        };
    }
    // From bool or an integer: the encoding is the exact value (as i64 for
    // signed, u64 for unsigned and bool).
    let signed = from.is_signed_int();
    match to {
        // int → f16 via f32: exact below 2^24, and larger values overflow
        // f16 either way, so this rounds once.
        Scalar::F16 | Scalar::F32 | Scalar::BF16 => {
            let f = if signed { x as i64 as f32 } else { x as f32 };
            match to {
                Scalar::F16 => f2h(f),
                Scalar::BF16 => f2b(f),
                _ => f32b(f),
            }
        }
        Scalar::F64 => {
            let f = if signed { x as i64 as f64 } else { x as f64 };
            f.to_bits()
        }
        _ => wrap(to, x),
    }
}

/// Reinterprets the bits of `x` (type `from`) as type `to` of the same size.
pub(crate) fn bitcast(from: Scalar, to: Scalar, x: u64) -> u64 {
    from_raw(to, raw_bits(from, x))
}

/// The new value of an atomic read-modify-write of `old` with `v`.
pub(crate) fn atomic(op: AtomicOp, s: Scalar, old: u64, v: u64) -> u64 {
    match op.update() {
        Some(bop) => binary(bop, s, old, v),
        None => v,
    }
}

/// Reads a scalar from `mem` at byte offset `off` (little-endian, C layout).
/// The caller has checked `off + s.size() <= mem.len()`.
#[inline]
pub(crate) fn read(s: Scalar, mem: &[u8], off: usize) -> u64 {
    use Scalar::*;
    match s {
        F32 => u32::from_le_bytes([mem[off], mem[off + 1], mem[off + 2], mem[off + 3]]) as u64,
        I32 => {
            i32::from_le_bytes([mem[off], mem[off + 1], mem[off + 2], mem[off + 3]]) as i64 as u64
        }
        U32 => u32::from_le_bytes([mem[off], mem[off + 1], mem[off + 2], mem[off + 3]]) as u64,
        Bool => (mem[off] != 0) as u64,
        I8 => mem[off] as i8 as i64 as u64,
        U8 => mem[off] as u64,
        I16 => i16::from_le_bytes([mem[off], mem[off + 1]]) as i64 as u64,
        U16 | F16 | BF16 => u16::from_le_bytes([mem[off], mem[off + 1]]) as u64,
        I64 | U64 | F64 => {
            let mut b = [0u8; 8];
            b.copy_from_slice(&mem[off..off + 8]);
            u64::from_le_bytes(b)
        }
    }
}

/// Writes a scalar to `mem` at byte offset `off`; the caller has checked
/// the range.
#[inline]
pub(crate) fn write(s: Scalar, mem: &mut [u8], off: usize, v: u64) {
    let bytes = v.to_le_bytes();
    match s.size() {
        1 => mem[off] = bytes[0],
        2 => {
            mem[off] = bytes[0];
            mem[off + 1] = bytes[1];
        }
        4 => {
            mem[off] = bytes[0];
            mem[off + 1] = bytes[1];
            mem[off + 2] = bytes[2];
            mem[off + 3] = bytes[3];
        }
        _ => mem[off..off + 8].copy_from_slice(&bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(s: Scalar, v: i64) -> u64 {
        wrap(s, v as u64)
    }

    #[test]
    fn int_division_truncates_and_remainder_follows_dividend() {
        let s = Scalar::I32;
        let div = |a, b| binary(BinaryOp::Div, s, i(s, a), i(s, b)) as i64;
        let rem = |a, b| binary(BinaryOp::Rem, s, i(s, a), i(s, b)) as i64;
        assert_eq!(div(-7, 2), -3);
        assert_eq!(div(7, -2), -3);
        assert_eq!(rem(-7, 2), -1);
        assert_eq!(rem(7, -2), 1);
        assert_eq!(div(5, 0), 0);
        assert_eq!(rem(5, 0), 0);
        assert_eq!(div(i32::MIN as i64, -1), i32::MIN as i64);
        assert_eq!(rem(i32::MIN as i64, -1), 0);
    }

    #[test]
    fn small_ints_wrap() {
        let s = Scalar::I8;
        assert_eq!(binary(BinaryOp::Add, s, i(s, 127), i(s, 1)) as i64, -128);
        let u = Scalar::U8;
        assert_eq!(binary(BinaryOp::Sub, u, 0, 1), 255);
        assert_eq!(binary(BinaryOp::Mul, u, 16, 16), 0);
        assert_eq!(unary(UnaryOp::Not, u, 0), 255);
        assert_eq!(unary(UnaryOp::Neg, Scalar::U32, 1), 0xffff_ffff);
        assert_eq!(
            unary(UnaryOp::Popcount, Scalar::I16, i(Scalar::I16, -1)),
            16
        );
    }

    #[test]
    fn shifts_mod_width_and_arithmetic_on_signed() {
        let s = Scalar::I32;
        assert_eq!(binary(BinaryOp::Shl, s, 1, 33), 2);
        assert_eq!(binary(BinaryOp::Shr, s, i(s, -16), 2) as i64, -4);
        let u = Scalar::U32;
        assert_eq!(binary(BinaryOp::Shr, u, 0x8000_0000, 31), 1);
        assert_eq!(binary(BinaryOp::Shl, u, 0x8000_0001, 1), 2);
        assert_eq!(
            binary(BinaryOp::Shr, Scalar::I8, i(Scalar::I8, -128), 7) as i64,
            -1
        );
    }

    #[test]
    fn float_minmax_ignore_nan_and_comparisons_are_ordered() {
        let s = Scalar::F32;
        let nan = f32b(f32::NAN);
        assert_eq!(f32v(binary(BinaryOp::Min, s, nan, f32b(2.0))), 2.0);
        // Of equal operands the first: min(-0.0, 0.0) is -0.0, min(0.0, -0.0) is 0.0.
        assert!(f32v(binary(BinaryOp::Min, s, f32b(-0.0), f32b(0.0))).is_sign_negative());
        assert!(f32v(binary(BinaryOp::Min, s, f32b(0.0), f32b(-0.0))).is_sign_positive());
        assert!(f32v(binary(BinaryOp::Max, s, f32b(-0.0), f32b(0.0))).is_sign_negative());
        assert_eq!(f32v(binary(BinaryOp::Max, s, f32b(-1.0), nan)), -1.0);
        assert_eq!(binary(BinaryOp::Lt, s, nan, f32b(1.0)), 0);
        assert_eq!(binary(BinaryOp::Eq, s, nan, nan), 0);
        assert_eq!(binary(BinaryOp::Ne, s, nan, nan), 1);
        assert_eq!(f32v(binary(BinaryOp::Rem, s, f32b(-7.5), f32b(2.0))), -1.5);
    }

    #[test]
    fn rounding_modes() {
        let s = Scalar::F32;
        let r = |op, x: f32| f32v(unary(op, s, f32b(x)));
        assert_eq!(r(UnaryOp::Round, 2.5), 3.0);
        assert_eq!(r(UnaryOp::Round, -2.5), -3.0);
        assert_eq!(r(UnaryOp::Rint, 2.5), 2.0);
        assert_eq!(r(UnaryOp::Rint, 3.5), 4.0);
        assert_eq!(r(UnaryOp::Rint, -0.5), -0.0);
        assert_eq!(r(UnaryOp::Trunc, -1.7), -1.0);
    }

    #[test]
    fn casts() {
        let f = |x: f32| f32b(x);
        assert_eq!(cast(Scalar::F32, Scalar::I32, f(-3.9)) as i64, -3);
        assert_eq!(
            cast(Scalar::F32, Scalar::I32, f(3e10)) as i64,
            i32::MAX as i64
        );
        assert_eq!(cast(Scalar::F32, Scalar::I32, f(f32::NAN)), 0);
        assert_eq!(cast(Scalar::F32, Scalar::U8, f(-5.0)), 0);
        assert_eq!(cast(Scalar::F32, Scalar::U8, f(300.0)), 255);
        assert_eq!(
            cast(Scalar::I32, Scalar::I8, i(Scalar::I32, 300)) as i64,
            44
        );
        assert_eq!(cast(Scalar::I32, Scalar::U16, i(Scalar::I32, -1)), 0xffff);
        assert_eq!(
            cast(Scalar::U32, Scalar::I64, 0xffff_ffff) as i64,
            0xffff_ffff
        );
        assert_eq!(cast(Scalar::I8, Scalar::U64, i(Scalar::I8, -1)), u64::MAX);
        assert_eq!(cast(Scalar::I32, Scalar::Bool, 7), 1);
        assert_eq!(cast(Scalar::F32, Scalar::Bool, f(f32::NAN)), 1);
        assert_eq!(cast(Scalar::F32, Scalar::Bool, f(-0.0)), 0);
        assert_eq!(cast(Scalar::Bool, Scalar::F32, 1), f(1.0));
        let x = 0.1f64;
        assert_eq!(f32v(cast(Scalar::F64, Scalar::F32, x.to_bits())), 0.1f32);
        assert_eq!(
            cast(Scalar::U64, Scalar::F32, u64::MAX),
            f(18446744073709551615u64 as f32)
        );
    }

    #[test]
    fn f16_arithmetic_rounds_each_op() {
        let h = |x: f32| f2h(x);
        let s = Scalar::F16;
        // 2048 + 1 is not representable in f16 (11-bit significand): ties to even.
        assert_eq!(h2f(binary(BinaryOp::Add, s, h(2048.0), h(1.0))), 2048.0);
        assert_eq!(h2f(binary(BinaryOp::Add, s, h(2048.0), h(3.0))), 2052.0);
        assert_eq!(
            h2f(binary(BinaryOp::Mul, s, h(300.0), h(300.0))),
            f32::INFINITY
        );
        assert_eq!(h2f(cast(Scalar::F32, s, f32b(0.1))), h2f(h(0.1)));
        assert_eq!(cast(s, Scalar::I32, h(-2.75)) as i64, -2);
    }

    #[test]
    fn memory_round_trip() {
        let mut mem = [0u8; 16];
        write(Scalar::I16, &mut mem, 1, i(Scalar::I16, -2));
        assert_eq!(read(Scalar::I16, &mem, 1) as i64, -2);
        write(Scalar::F64, &mut mem, 8, 1.5f64.to_bits());
        assert_eq!(f64::from_bits(read(Scalar::F64, &mem, 8)), 1.5);
        mem[3] = 2;
        assert_eq!(read(Scalar::Bool, &mem, 3), 1);
        assert_eq!(bitcast(Scalar::F32, Scalar::U32, f32b(1.0)), 0x3f80_0000);
        assert_eq!(bitcast(Scalar::U32, Scalar::I32, 0xffff_ffff) as i64, -1);
    }
}
