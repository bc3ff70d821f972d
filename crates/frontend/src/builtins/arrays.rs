//! Array element addresses with Warp's index semantics.
//!
//! Warp 1.19 indexes arrays with Python's rule: an index `i` in `-n..0`
//! along an axis of size `n` addresses `i + n` (`a[-1]` is the last
//! element; `wp::index` in `native/array.h` adds the shape to a negative
//! index). Every array access the frontend emits goes through
//! [`mem_access`], which wraps each index that may be negative:
//!
//! ```text
//! j = select(i < 0, i + shape(a, k), i)
//! ```
//!
//! An index outside `-n..n` is out of bounds, as in Warp: unchecked builds
//! do not test it, `--checked` reports it (the `bounds-check` pass tests the
//! wrapped index, so `a[-n - 1]` is reported as index `-1`).
//!
//! The wrap is left out where the index is known to be non-negative
//! ([`known_nonneg`]): unsigned integers, non-negative constants, thread
//! indices, launch dimensions, array shapes, the counter of a `range` loop
//! that starts at such a value and steps up, and arithmetic that keeps
//! these non-negative, so the common `a[i]` with `i = wp.tid()` is
//! unchanged.

use weft_ir::{BinaryOp, Const, FuncBuilder, InstKind, MemAccess, Scalar, Type, Value, ValueDef};

/// How deep [`known_nonneg`] looks through the definitions of a value.
const DEPTH: u32 = 12;

/// Whether `v` is known to be non-negative: see the module docs. `extra`
/// says so for values the caller knows about (loop counters).
pub(crate) fn known_nonneg(b: &FuncBuilder, v: Value, extra: &dyn Fn(Value) -> bool) -> bool {
    nonneg(b, v, extra, DEPTH)
}

fn nonneg(b: &FuncBuilder, v: Value, extra: &dyn Fn(Value) -> bool, depth: u32) -> bool {
    let s = match b.ty(v) {
        Type::Scalar(s) => s,
        _ => return false,
    };
    if s.is_unsigned_int() || s == Scalar::Bool || extra(v) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let rec = |x: Value| nonneg(b, x, extra, depth - 1);
    match b.func.values[v].def {
        ValueDef::Result(inst, k) => match &b.func.insts[inst].kind {
            InstKind::Const(c) => c.as_i128() >= 0,
            InstKind::ThreadId | InstKind::LaunchDim(_) | InstKind::ArrayShape(..) => true,
            InstKind::Binary(op, x, y) => match op {
                BinaryOp::Add | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Min | BinaryOp::Shl => {
                    rec(*x) && rec(*y)
                }
                BinaryOp::Rem | BinaryOp::Shr => rec(*x),
                BinaryOp::And => rec(*x) || rec(*y),
                BinaryOp::Max => rec(*x) || rec(*y),
                _ => false,
            },
            InstKind::Select(_, x, y) => rec(*x) && rec(*y),
            InstKind::Cast(x, _) => match b.ty(*x).as_scalar() {
                Some(Scalar::Bool) => true,
                Some(f) if f.is_unsigned_int() => f.size() < s.size(),
                Some(f) if f.is_signed_int() => f.size() <= s.size() && rec(*x),
                _ => false,
            },
            InstKind::If {
                then_region,
                else_region,
                ..
            } => [*then_region, *else_region].iter().all(|&r| {
                let last = b.func.regions[r].insts.last().copied();
                match last.map(|i| &b.func.insts[i].kind) {
                    Some(InstKind::Yield(vs)) => vs.get(k as usize).is_some_and(|&y| rec(y)),
                    // A region that does not fall through yields nothing.
                    Some(InstKind::Break(_) | InstKind::Continue(_) | InstKind::Return(_))
                    | Some(InstKind::Trap(..)) => true,
                    _ => false,
                }
            }),
            _ => false,
        },
        ValueDef::Param(..) => false,
    }
}

/// `i` as an index of axis `axis` of `arr` with Python's rule for negative
/// indices (see the module docs).
pub(crate) fn wrap_index(
    b: &mut FuncBuilder,
    arr: Value,
    axis: u8,
    i: Value,
    extra: &dyn Fn(Value) -> bool,
) -> Value {
    if known_nonneg(b, i, extra) {
        return i;
    }
    let Some(s) = b.ty(i).as_scalar().filter(|s| s.is_signed_int()) else {
        return i;
    };
    // Narrow indices wrap in i32 (the shape may not fit their type).
    let (i, s) = if s.size() < 4 {
        (b.cast(i, Scalar::I32), Scalar::I32)
    } else {
        (i, s)
    };
    let zero = b.konst(Const::from_i128(s, 0));
    let neg = b.binary(BinaryOp::Lt, i, zero);
    let mut n = b.array_shape(arr, axis);
    if s != Scalar::I32 {
        n = b.cast(n, s);
    }
    let j = b.binary(BinaryOp::Add, i, n);
    b.select(neg, j, i)
}

/// The access `arr[indices]` (one index per dimension, checked by the
/// caller), each index wrapped by [`wrap_index`].
pub(crate) fn mem_access(
    b: &mut FuncBuilder,
    arr: Value,
    indices: &[Value],
    extra: &dyn Fn(Value) -> bool,
) -> MemAccess {
    let indices = indices
        .iter()
        .enumerate()
        .map(|(k, &i)| wrap_index(b, arr, k as u8, i, extra))
        .collect();
    MemAccess {
        array: arr,
        indices,
        path: Vec::new(),
    }
}

/// Whether array `arr` is non-null, Warp's truth value of an array
/// (`where(arr, a, b)`, `not arr`, `if arr:`; `arr.data != nullptr` in
/// `native/array.h`). Every array Weft passes has data exactly when it has
/// elements (as Warp's arrays: an empty one owns no allocation, and there
/// are no empty views), so this is `shape[k] != 0` along every axis.
pub(crate) fn array_nonnull(b: &mut FuncBuilder, arr: Value) -> Value {
    let Type::Array(at) = b.ty(arr) else {
        return b.konst(Const::from_i128(Scalar::Bool, 0));
    };
    let zero = b.konst(Const::from_i128(Scalar::I32, 0));
    let mut acc = None;
    for k in 0..at.ndim {
        let n = b.array_shape(arr, k);
        let nz = b.binary(BinaryOp::Ne, n, zero);
        acc = Some(match acc {
            None => nz,
            Some(a) => b.binary(BinaryOp::And, a, nz),
        });
    }
    acc.unwrap_or_else(|| b.konst(Const::from_i128(Scalar::Bool, 1)))
}
