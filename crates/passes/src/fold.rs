//! Scalar constant evaluation for `simplify`.
//!
//! Folding must give exactly what the program computes at run time, so
//! every operation is evaluated by the reference interpreter's own scalar
//! code (`weft_ir::interp::eval_*`): integers wrap, `x / 0 == 0`, `%` takes
//! the dividend's sign, shift amounts are taken modulo the width, f16
//! arithmetic is done in f32 and rounded, transcendental functions are the
//! interpreter's. An operation the interpreter does not define is not
//! folded.
//!
//! Nothing with a NaN operand or a NaN result is folded either: NaN
//! payloads and signs are produced by the hardware at run time, and a
//! folded NaN constant could differ from them bit for bit.

use weft_ir::interp;
use weft_ir::{BinaryOp, Const, Scalar, UnaryOp};

fn is_nan(c: Const) -> bool {
    c.ty.is_float() && f64::from_bits(c.bits).is_nan()
}

fn not_nan(c: Const) -> Option<Const> {
    (!is_nan(c)).then_some(c)
}

/// `op x`, or `None` when not folded.
pub fn unary(op: UnaryOp, x: Const) -> Option<Const> {
    if is_nan(x) {
        return None;
    }
    not_nan(interp::eval_unary(op, x)?)
}

/// `a op b` for operands of the same type, or `None` when not folded.
pub fn binary(op: BinaryOp, a: Const, b: Const) -> Option<Const> {
    if is_nan(a) || is_nan(b) {
        return None;
    }
    not_nan(interp::eval_binary(op, a, b)?)
}

/// `fma(a, b, c)`, or `None` when not folded.
pub fn fma(a: Const, b: Const, c: Const) -> Option<Const> {
    if is_nan(a) || is_nan(b) || is_nan(c) {
        return None;
    }
    not_nan(interp::eval_fma(a, b, c)?)
}

/// `x as to`, or `None` when not folded.
pub fn cast(x: Const, to: Scalar) -> Option<Const> {
    if is_nan(x) {
        return None;
    }
    not_nan(interp::eval_cast(x, to))
}

/// Reinterprets bits between same-size scalars, or `None` when not folded.
pub fn bitcast(x: Const, to: Scalar) -> Option<Const> {
    if x.ty == Scalar::Bool || to == Scalar::Bool || is_nan(x) {
        return None;
    }
    not_nan(interp::eval_bitcast(x, to)?)
}
