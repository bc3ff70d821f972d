//! Operators: arithmetic, bitwise, unary and comparisons, on scalars and
//! (elementwise or as linear algebra) on vectors, matrices, quaternions and
//! transforms. Also the elementwise helpers the builtins share.

use super::{const_of, type_name, with_scalar, FuncCaller};
use crate::diag::{Diagnostic, Span};
use ruff_python_ast as ast;
use weft_ir::{BinaryOp, Const, FuncBuilder, Scalar, Type, UnaryOp, Value};

// ---------------------------------------------------------------------------
// Components of small aggregates.

/// Whether `t` is a vector, matrix, quaternion or transform.
pub(crate) fn is_math_agg(t: Type) -> bool {
    matches!(
        t,
        Type::Vec(..) | Type::Mat(..) | Type::Quat(_) | Type::Transform(_)
    )
}

/// The leaf paths of a scalar (one empty path) or of a vector/matrix/quat/
/// transform, in memory order.
pub(crate) fn leaf_paths(t: Type) -> Vec<Vec<u32>> {
    match t {
        Type::Vec(n, _) => (0..n as u32).map(|i| vec![i]).collect(),
        Type::Quat(_) => (0..4).map(|i| vec![i]).collect(),
        Type::Transform(_) => (0..7).map(|i| vec![i]).collect(),
        Type::Mat(r, c, _) => (0..r as u32)
            .flat_map(|i| (0..c as u32).map(move |j| vec![i, j]))
            .collect(),
        _ => vec![vec![]],
    }
}

/// The scalar components of `v` (itself for a scalar).
pub(crate) fn components(b: &mut FuncBuilder, v: Value) -> Vec<Value> {
    let t = b.ty(v);
    if t.is_scalar() {
        return vec![v];
    }
    leaf_paths(t).into_iter().map(|p| b.extract(v, p)).collect()
}

/// Builds a value of `t` (scalar, vector, matrix, quat, transform) from its
/// scalar components in memory order.
pub(crate) fn assemble(b: &mut FuncBuilder, t: Type, parts: Vec<Value>) -> Value {
    match t {
        Type::Scalar(_) => parts[0],
        Type::Mat(_, c, s) => {
            let rows = parts
                .chunks(c as usize)
                .map(|row| b.make(Type::Vec(c, s), row.to_vec()))
                .collect();
            b.make(t, rows)
        }
        _ => b.make(t, parts),
    }
}

/// The zero value of any non-array type (structs field by field).
pub(crate) fn zero_of(b: &mut FuncBuilder, t: Type) -> Value {
    match t {
        Type::Scalar(s) => b.konst(Const::from_i128(s, 0)),
        Type::Struct(id) => {
            let fields: Vec<Type> = b
                .structs
                .get(id)
                .map(|d| d.fields.iter().map(|f| f.ty).collect())
                .unwrap_or_default();
            let parts = fields.into_iter().map(|ft| zero_of(b, ft)).collect();
            b.make(t, parts)
        }
        _ => {
            let s = t.scalar_of().unwrap_or(Scalar::F32);
            let z = b.konst(Const::from_i128(s, 0));
            let n = leaf_paths(t).len();
            assemble(b, t, vec![z; n])
        }
    }
}

/// Applies `f` to each scalar component of `x`, giving a value of the same
/// shape whose scalar type is that of `f`'s results.
pub(crate) fn map1(
    b: &mut FuncBuilder,
    x: Value,
    mut f: impl FnMut(&mut FuncBuilder, Value) -> Value,
) -> Value {
    let t = b.ty(x);
    let parts: Vec<Value> = components(b, x).into_iter().map(|c| f(b, c)).collect();
    let s = b.ty(parts[0]).as_scalar().unwrap_or(Scalar::F32);
    assemble(b, with_scalar(t, s), parts)
}

/// Applies `f` pairwise to the components of `x` and `y` (same shape).
pub(crate) fn map2(
    b: &mut FuncBuilder,
    x: Value,
    y: Value,
    mut f: impl FnMut(&mut FuncBuilder, Value, Value) -> Value,
) -> Value {
    let t = b.ty(x);
    let xs = components(b, x);
    let ys = components(b, y);
    let parts: Vec<Value> = xs.into_iter().zip(ys).map(|(p, q)| f(b, p, q)).collect();
    let s = b.ty(parts[0]).as_scalar().unwrap_or(Scalar::F32);
    assemble(b, with_scalar(t, s), parts)
}

/// Applies `f` to every component of `x` with the scalar `s`.
pub(crate) fn map_scalar(
    b: &mut FuncBuilder,
    x: Value,
    s: Value,
    mut f: impl FnMut(&mut FuncBuilder, Value, Value) -> Value,
) -> Value {
    map1(b, x, |b, c| f(b, c, s))
}

/// Folds the components of `x` with `f`, left to right.
pub(crate) fn reduce(
    b: &mut FuncBuilder,
    x: Value,
    mut f: impl FnMut(&mut FuncBuilder, Value, Value) -> Value,
) -> Value {
    let cs = components(b, x);
    let mut acc = cs[0];
    for &c in &cs[1..] {
        acc = f(b, acc, c);
    }
    acc
}

// ---------------------------------------------------------------------------
// Scalar primitives with Warp's semantics.

/// Python floor division on scalars: floors for signed integers, truncates
/// (equivalently) for unsigned ones, `floor(a / b)` for floats.
pub(crate) fn floordiv_scalar(b: &mut FuncBuilder, x: Value, y: Value) -> Value {
    let s = b.ty(x).as_scalar().unwrap_or(Scalar::I32);
    if s.is_float() {
        let q = b.binary(BinaryOp::Div, x, y);
        return b.unary(UnaryOp::Floor, q);
    }
    let q = b.binary(BinaryOp::Div, x, y);
    if !s.is_signed_int() {
        return q;
    }
    // q - 1 when the remainder is nonzero and its sign differs from y's.
    let r = b.binary(BinaryOp::Rem, x, y);
    let zero = b.iconst(s, 0);
    let r_nz = b.binary(BinaryOp::Ne, r, zero);
    let r_neg = b.binary(BinaryOp::Lt, r, zero);
    let y_neg = b.binary(BinaryOp::Lt, y, zero);
    let signs_differ = b.binary(BinaryOp::Ne, r_neg, y_neg);
    let adjust = b.binary(BinaryOp::And, r_nz, signs_differ);
    let one = b.iconst(s, 1);
    let q1 = b.binary(BinaryOp::Sub, q, one);
    b.select(adjust, q1, q)
}

/// A scalar constant of type `s` with value `v` (floats) or `v` truncated.
pub(crate) fn num_const(b: &mut FuncBuilder, s: Scalar, v: f64) -> Value {
    if s.is_float() {
        b.fconst(s, v)
    } else {
        b.konst(Const::from_i128(s, v as i128))
    }
}

/// How a literal constant would be written to have type `s`, for help
/// messages: `wp.float64(2.0)`.
pub(crate) fn literal_help(b: &FuncBuilder, v: Value, want: Scalar) -> Option<String> {
    let c = const_of(b, v)?;
    let text = if c.ty.is_float() {
        let f = f64::from_bits(c.bits);
        let mut t = if c.ty == Scalar::F32 {
            format!("{}", f as f32)
        } else {
            format!("{f}")
        };
        if !t.contains(['.', 'e', 'N', 'i']) {
            t.push_str(".0");
        }
        t
    } else {
        format!("{}", c.as_i128())
    };
    Some(format!("wp.{}({text})", want.warp_name()))
}

/// The error for two scalar operands of different types.
pub(crate) fn mismatch(b: &FuncBuilder, what: &str, x: Value, y: Value, span: Span) -> Diagnostic {
    let (tx, ty) = (b.ty(x), b.ty(y));
    let names = (type_name(tx, b.structs), type_name(ty, b.structs));
    let mut d = Diagnostic::error(
        span,
        format!(
            "{what} needs operands of the same type, got {} and {}",
            names.0, names.1
        ),
    )
    .with_label(format!("{} and {}", names.0, names.1));
    let hint = match (tx.scalar_of(), ty.scalar_of()) {
        (Some(sx), Some(sy)) => literal_help(b, y, sx).or_else(|| literal_help(b, x, sy)),
        _ => None,
    };
    d = match hint {
        Some(h) => d.with_help(format!(
            "Warp never converts operands implicitly (literals are float32/int32): write `{h}`"
        )),
        None => d.with_help(format!(
            "Warp never converts operands implicitly: convert one side, e.g. `wp.{}(x)`",
            tx.scalar_of().unwrap_or(Scalar::F32).warp_name()
        )),
    };
    d
}

fn sym(op: ast::Operator) -> &'static str {
    op.as_str()
}

fn unsupported(
    b: &FuncBuilder,
    op: &str,
    x: Value,
    y: Value,
    span: Span,
    help: &str,
) -> Diagnostic {
    let tx = type_name(b.ty(x), b.structs);
    let ty = type_name(b.ty(y), b.structs);
    let d = Diagnostic::error(
        span,
        format!("operator `{op}` is not defined for {tx} and {ty}"),
    )
    .with_label(format!("{tx} {op} {ty}"));
    if help.is_empty() {
        d
    } else {
        d.with_help(help.to_string())
    }
}

/// The IR op of an arithmetic operator on scalars of type `s`, or why not.
fn scalar_op(op: ast::Operator, s: Scalar) -> Result<Option<BinaryOp>, &'static str> {
    use ast::Operator as O;
    let numeric = s != Scalar::Bool;
    Ok(Some(match op {
        O::Add if numeric => BinaryOp::Add,
        O::Sub if numeric => BinaryOp::Sub,
        O::Mult if numeric => BinaryOp::Mul,
        O::Div if numeric => BinaryOp::Div,
        O::Mod if numeric => BinaryOp::Rem,
        O::FloorDiv if numeric => return Ok(None),
        O::Pow if s.is_float() => BinaryOp::Pow,
        O::Pow if numeric => {
            return Err(concat!(
                "`**` is defined for floats only in Warp 1.19: ",
                "convert the operands, e.g. `float(x) ** 2.0`"
            ))
        }
        O::BitAnd if s.is_int() => BinaryOp::And,
        O::BitOr if s.is_int() => BinaryOp::Or,
        O::BitXor if s.is_int() => BinaryOp::Xor,
        O::LShift if s.is_int() => BinaryOp::Shl,
        O::RShift if s.is_int() => BinaryOp::Shr,
        _ if s == Scalar::Bool => {
            return Err(concat!(
                "bool has no arithmetic or bitwise operators: ",
                "convert with `int(x)`, or use `and`/`or`/`not`"
            ))
        }
        _ => return Err("bitwise operators take integers"),
    }))
}

/// Emits `x op y` for two scalars of the same type (checked by the caller).
fn emit_scalar(b: &mut FuncBuilder, op: Option<BinaryOp>, x: Value, y: Value) -> Value {
    match op {
        Some(op) => b.binary(op, x, y),
        None => floordiv_scalar(b, x, y),
    }
}

/// `lhs op rhs`.
pub(crate) fn binary(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    op: ast::Operator,
    x: Value,
    y: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    use ast::Operator as O;
    let (tx, ty) = (b.ty(x), b.ty(y));
    let what = format!("operator `{}`", sym(op));
    // As in Warp, `x @ y` is `wp.mul(x, y)`, the same as `x * y`.
    let op = if op == O::MatMult { O::Mult } else { op };

    // Scalar op scalar.
    if let (Type::Scalar(sx), Type::Scalar(sy)) = (tx, ty) {
        if sx != sy {
            return Err(mismatch(b, &what, x, y, span));
        }
        let iop = scalar_op(op, sx).map_err(|h| unsupported(b, sym(op), x, y, span, h))?;
        return Ok(emit_scalar(b, iop, x, y));
    }

    let sx = tx.scalar_of();
    let sy = ty.scalar_of();
    // Both sides must share the component type.
    if let (Some(a), Some(bb)) = (sx, sy) {
        if a != bb {
            return Err(mismatch(b, &what, x, y, span));
        }
    }
    let s = match sx.or(sy) {
        Some(s) if is_math_agg(tx) || is_math_agg(ty) => s,
        _ => return Err(unsupported(b, sym(op), x, y, span, "")),
    };
    let iop = scalar_op(op, s).map_err(|h| unsupported(b, sym(op), x, y, span, h))?;

    match (op, tx, ty) {
        // Elementwise on identical shapes.
        (O::Add | O::Sub, _, _) if tx == ty => {
            Ok(map2(b, x, y, |b, p, q| emit_scalar(b, iop, p, q)))
        }
        (O::Mod, Type::Vec(..), Type::Vec(..)) if tx == ty => {
            Ok(map2(b, x, y, |b, p, q| emit_scalar(b, iop, p, q)))
        }
        // Integer vectors and matrices (Warp's bit_and, ..., lshift, rshift).
        (
            O::BitAnd | O::BitOr | O::BitXor | O::LShift | O::RShift,
            Type::Vec(..) | Type::Mat(..),
            _,
        ) if tx == ty => Ok(map2(b, x, y, |b, p, q| emit_scalar(b, iop, p, q))),
        // Aggregate with scalar.
        (O::Mult | O::Div, _, Type::Scalar(_)) if is_math_agg(tx) => {
            Ok(map_scalar(b, x, y, |b, p, q| emit_scalar(b, iop, p, q)))
        }
        (O::Mult, Type::Scalar(_), _) => {
            Ok(map_scalar(b, y, x, |b, p, q| emit_scalar(b, iop, q, p)))
        }
        (O::Div, Type::Scalar(_), Type::Vec(..) | Type::Mat(..) | Type::Quat(_)) => {
            Ok(map_scalar(b, y, x, |b, p, q| emit_scalar(b, iop, q, p)))
        }
        // Linear algebra.
        (O::Mult, Type::Mat(r, k, _), Type::Vec(n, _)) if k == n => Ok(mat_vec(b, x, y, r, k, s)),
        (O::Mult, Type::Vec(n, _), Type::Mat(r, k, _)) if n == r => Ok(vec_mat(b, x, y, r, k, s)),
        (O::Mult, Type::Mat(r, k, _), Type::Mat(k2, cc, _)) if k == k2 => {
            Ok(mat_mat(b, x, y, r, k, cc, s))
        }
        (O::Mult, Type::Quat(_), Type::Quat(_)) => prelude1(b, c, "quat_mul", &[x, y], span),
        (O::Mult, Type::Transform(_), Type::Transform(_)) => {
            prelude1(b, c, "transform_multiply", &[x, y], span)
        }
        (O::Mult, Type::Vec(..), Type::Vec(..)) if tx == ty => Err(unsupported(
            b,
            "*",
            x,
            y,
            span,
            "use `wp.cw_mul(a, b)` for the componentwise product or `wp.dot(a, b)`",
        )),
        (O::Div, _, _) if tx == ty => Err(unsupported(
            b,
            "/",
            x,
            y,
            span,
            "use `wp.cw_div(a, b)` for the componentwise quotient",
        )),
        (O::Mult, Type::Mat(..), Type::Vec(..) | Type::Mat(..))
        | (O::Mult, Type::Vec(..), Type::Mat(..)) => Err(unsupported(
            b,
            "*",
            x,
            y,
            span,
            "the inner dimensions of a matrix product must agree",
        )),
        _ => Err(unsupported(b, sym(op), x, y, span, "")),
    }
}

/// Calls prelude func `__weft_<name>` and returns its single result.
pub(crate) fn prelude1(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    name: &str,
    args: &[Value],
    span: Span,
) -> Result<Value, Diagnostic> {
    let full = format!("{}{name}", super::PRELUDE_PREFIX);
    let rs = c.call_prelude(b, &full, args, span)?;
    rs.first().copied().ok_or_else(|| {
        Diagnostic::error(
            span,
            format!("internal error: prelude func `{full}` returned nothing"),
        )
    })
}

/// `m * v` (column vector): `r = col0 * v0; r += col_i * v_i`, as Warp.
pub(crate) fn mat_vec(b: &mut FuncBuilder, m: Value, v: Value, r: u8, k: u8, s: Scalar) -> Value {
    let vs = components(b, v);
    let rows: Vec<Value> = (0..r as u32)
        .map(|i| {
            let mut acc = None;
            for (j, &vj) in vs.iter().enumerate().take(k as usize) {
                let mij = b.extract(m, vec![i, j as u32]);
                let p = b.binary(BinaryOp::Mul, mij, vj);
                acc = Some(match acc {
                    None => p,
                    Some(a) => b.binary(BinaryOp::Add, a, p),
                });
            }
            acc.unwrap_or_else(|| b.fconst(s, 0.0))
        })
        .collect();
    b.make(Type::Vec(r, s), rows)
}

/// `v * m` (row vector): `r = row0 * v0; r += row_i * v_i`, as Warp.
pub(crate) fn vec_mat(b: &mut FuncBuilder, v: Value, m: Value, r: u8, k: u8, s: Scalar) -> Value {
    let vs = components(b, v);
    let cols: Vec<Value> = (0..k as u32)
        .map(|j| {
            let mut acc = None;
            for (i, &vi) in vs.iter().enumerate().take(r as usize) {
                let mij = b.extract(m, vec![i as u32, j]);
                let p = b.binary(BinaryOp::Mul, mij, vi);
                acc = Some(match acc {
                    None => p,
                    Some(a) => b.binary(BinaryOp::Add, a, p),
                });
            }
            acc.unwrap_or_else(|| b.fconst(s, 0.0))
        })
        .collect();
    b.make(Type::Vec(k, s), cols)
}

/// Warp's `muladd(x, y, acc)`: a fused multiply-add for float32/float64,
/// `acc + x * y` for float16 and the integers.
pub(crate) fn muladd(b: &mut FuncBuilder, s: Scalar, x: Value, y: Value, acc: Value) -> Value {
    if matches!(s, Scalar::F32 | Scalar::F64) {
        b.fma(x, y, acc)
    } else {
        let p = b.binary(BinaryOp::Mul, x, y);
        b.binary(BinaryOp::Add, acc, p)
    }
}

/// `a * b` for matrices: `sum = fma(a_ik, b_kj, sum)` from zero, as Warp.
fn mat_mat(b: &mut FuncBuilder, x: Value, y: Value, r: u8, k: u8, c: u8, s: Scalar) -> Value {
    let xs = components(b, x);
    let ys = components(b, y);
    let mut parts = Vec::with_capacity(r as usize * c as usize);
    for i in 0..r as usize {
        for j in 0..c as usize {
            let mut sum = num_const(b, s, 0.0);
            for l in 0..k as usize {
                let a = xs[i * k as usize + l];
                let bb = ys[l * c as usize + j];
                sum = muladd(b, s, a, bb, sum);
            }
            parts.push(sum);
        }
    }
    assemble(b, Type::Mat(r, c, s), parts)
}

/// `-x`, `+x`, `~x`, `not x`.
pub(crate) fn unary(
    b: &mut FuncBuilder,
    _c: &mut dyn FuncCaller,
    op: ast::UnaryOp,
    x: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    use ast::UnaryOp as U;
    let t = b.ty(x);
    let tn = type_name(t, b.structs);
    let s = t.scalar_of();
    let numeric = s.is_some_and(|s| s != Scalar::Bool) && (t.is_scalar() || is_math_agg(t));
    match op {
        U::USub if numeric && !matches!(t, Type::Transform(_)) => {
            Ok(map1(b, x, |b, c| b.unary(UnaryOp::Neg, c)))
        }
        U::UAdd if numeric => Ok(x),
        U::Invert
            if matches!(t, Type::Scalar(_) | Type::Vec(..) | Type::Mat(..))
                && s.is_some_and(|s| s.is_int()) =>
        {
            Ok(map1(b, x, |b, c| b.unary(UnaryOp::Not, c)))
        }
        U::Not => match t {
            Type::Scalar(Scalar::Bool) => Ok(b.unary(UnaryOp::Not, x)),
            Type::Scalar(s) => {
                let z = num_const(b, s, 0.0);
                Ok(b.binary(BinaryOp::Eq, x, z))
            }
            _ => Err(
                Diagnostic::error(span, format!("`not` is not defined for {tn}"))
                    .with_label(tn)
                    .with_help("`not` takes a bool or a number"),
            ),
        },
        _ => Err(Diagnostic::error(
            span,
            format!("unary operator `{}` is not defined for {tn}", op.as_str()),
        )
        .with_label(tn)
        .with_help(match op {
            U::Invert => "`~` takes an integer",
            _ => "`-`/`+` take numbers, vectors, matrices or quaternions",
        })),
    }
}

/// One comparison.
pub(crate) fn compare(
    b: &mut FuncBuilder,
    _c: &mut dyn FuncCaller,
    op: ast::CmpOp,
    x: Value,
    y: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    use ast::CmpOp as C;
    let iop = match op {
        C::Eq => BinaryOp::Eq,
        C::NotEq => BinaryOp::Ne,
        C::Lt => BinaryOp::Lt,
        C::LtE => BinaryOp::Le,
        C::Gt => BinaryOp::Gt,
        C::GtE => BinaryOp::Ge,
        _ => {
            return Err(Diagnostic::error(
                span,
                format!("comparison `{}` is not supported in kernels", op.as_str()),
            )
            .with_help("use `==`, `!=`, `<`, `<=`, `>` or `>=`"))
        }
    };
    let what = format!("comparison `{}`", op.as_str());
    let (tx, ty) = (b.ty(x), b.ty(y));
    if tx != ty {
        if tx.is_scalar() && ty.is_scalar() {
            return Err(mismatch(b, &what, x, y, span));
        }
        return Err(unsupported(
            b,
            op.as_str(),
            x,
            y,
            span,
            "compare values of the same type",
        ));
    }
    match tx {
        Type::Scalar(_) => Ok(b.binary(iop, x, y)),
        t if is_math_agg(t) && matches!(iop, BinaryOp::Eq | BinaryOp::Ne) => {
            let eqs = map2(b, x, y, |b, p, q| b.binary(BinaryOp::Eq, p, q));
            let all = reduce(b, eqs, |b, p, q| b.binary(BinaryOp::And, p, q));
            Ok(if iop == BinaryOp::Ne {
                b.unary(UnaryOp::Not, all)
            } else {
                all
            })
        }
        _ => Err(unsupported(
            b,
            op.as_str(),
            x,
            y,
            span,
            "only scalars are ordered; vectors, matrices and quaternions compare with `==`/`!=`",
        )),
    }
}
