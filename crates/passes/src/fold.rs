//! Scalar constant evaluation for `simplify`.
//!
//! Folding must give exactly what the program computes at run time, so
//! these functions follow the IR semantics of `weft_ir::ir` (integers wrap,
//! `x / 0 == 0`, `%` takes the dividend's sign, shift amounts are taken
//! modulo the width). Only integer and bool operations are folded here;
//! float operations are left to run time until they can be evaluated by the
//! interpreter's own scalar code (so that no host math library can make a
//! folded result differ from an unfolded one).

use weft_ir::{BinaryOp, Const, Scalar, UnaryOp};

/// Whether `s` is a type this module folds (integers and bool).
fn foldable(s: Scalar) -> bool {
    !s.is_float()
}

/// The value of an integer or bool constant as an `i128` (exact).
fn int(c: Const) -> i128 {
    c.as_i128()
}

/// `op x`, or `None` when not folded.
pub fn unary(op: UnaryOp, x: Const) -> Option<Const> {
    let t = x.ty;
    if !foldable(t) {
        return None;
    }
    let v = int(x);
    Some(match (op, t) {
        (UnaryOp::Not, Scalar::Bool) => Const::bool(v == 0),
        (UnaryOp::Not, _) => Const::from_i128(t, !v),
        (UnaryOp::Neg, Scalar::Bool) => return None,
        (UnaryOp::Neg, _) => Const::from_i128(t, v.wrapping_neg()),
        (UnaryOp::Abs, _) if t.is_int() => Const::from_i128(t, v.wrapping_abs()),
        (UnaryOp::Popcount, _) if t.is_int() => {
            let mask = if t.bits() == 64 {
                u64::MAX
            } else {
                (1u64 << t.bits()) - 1
            };
            Const::from_i128(t, (x.bits & mask).count_ones() as i128)
        }
        _ => return None,
    })
}

/// `a op b` for operands of the same type, or `None` when not folded.
pub fn binary(op: BinaryOp, a: Const, b: Const) -> Option<Const> {
    let t = a.ty;
    if t != b.ty || !foldable(t) {
        return None;
    }
    let (x, y) = (int(a), int(b));
    let wrap = |v: i128| Some(Const::from_i128(t, v));
    if t == Scalar::Bool {
        let (p, q) = (x != 0, y != 0);
        return Some(Const::bool(match op {
            BinaryOp::And | BinaryOp::Min => p & q,
            BinaryOp::Or | BinaryOp::Max => p | q,
            BinaryOp::Xor | BinaryOp::Ne => p ^ q,
            BinaryOp::Eq => p == q,
            BinaryOp::Lt => !p & q,
            BinaryOp::Le => p <= q,
            BinaryOp::Gt => p & !q,
            BinaryOp::Ge => p >= q,
            _ => return None,
        }));
    }
    let width = t.bits() as u64;
    match op {
        BinaryOp::Add => wrap(x.wrapping_add(y)),
        BinaryOp::Sub => wrap(x.wrapping_sub(y)),
        BinaryOp::Mul => wrap(x.wrapping_mul(y)),
        // Truncating division and remainder with the dividend's sign are
        // Rust's `/` and `%` on i128 (which cannot overflow for 64-bit
        // operands); the result wraps into the type.
        BinaryOp::Div => wrap(if y == 0 { 0 } else { x / y }),
        BinaryOp::Rem => wrap(if y == 0 { 0 } else { x % y }),
        BinaryOp::Min => wrap(x.min(y)),
        BinaryOp::Max => wrap(x.max(y)),
        BinaryOp::And => wrap(x & y),
        BinaryOp::Or => wrap(x | y),
        BinaryOp::Xor => wrap(x ^ y),
        BinaryOp::Shl => {
            let s = (b.bits & (width - 1)) as u32;
            wrap(((a.bits as u128) << s) as i128)
        }
        BinaryOp::Shr => {
            let s = (b.bits & (width - 1)) as u32;
            wrap(x >> s)
        }
        BinaryOp::Eq => Some(Const::bool(x == y)),
        BinaryOp::Ne => Some(Const::bool(x != y)),
        BinaryOp::Lt => Some(Const::bool(x < y)),
        BinaryOp::Le => Some(Const::bool(x <= y)),
        BinaryOp::Gt => Some(Const::bool(x > y)),
        BinaryOp::Ge => Some(Const::bool(x >= y)),
        BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Copysign => None,
    }
}

/// `x as to`, or `None` when not folded.
pub fn cast(x: Const, to: Scalar) -> Option<Const> {
    if !foldable(x.ty) || !foldable(to) {
        return None;
    }
    Some(Const::from_i128(to, int(x)))
}

/// Reinterprets bits between same-size scalars, or `None` when not folded.
pub fn bitcast(x: Const, to: Scalar) -> Option<Const> {
    if !foldable(x.ty) || !foldable(to) || x.ty.size() != to.size() || to == Scalar::Bool {
        return None;
    }
    // The stored bits are already extended from the value; re-extend them
    // for the target's signedness.
    let mask = if to.bits() == 64 {
        u64::MAX
    } else {
        (1u64 << to.bits()) - 1
    };
    Some(Const::from_i128(to, (x.bits & mask) as i128))
}
