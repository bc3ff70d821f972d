//! Component access: `.x .y .z .w`, transform `.p`/`.q`, struct fields,
//! `v[i]`, `m[i]` (a row), `m[i, j]`, and the matching updates. Constant
//! indices become `Extract`/`Insert`; a runtime index becomes a chain of
//! `Select`s over the components (negative indices count from the end, as
//! in Warp).

use super::ops::components;
use super::{const_of, type_name};
use crate::diag::{Diagnostic, Span};
use weft_ir::{BinaryOp, Const, FuncBuilder, Scalar, Type, Value};

const XYZW: [&str; 4] = ["x", "y", "z", "w"];

fn no_attr(b: &FuncBuilder, agg: Value, name: &str, span: Span) -> Diagnostic {
    let t = b.ty(agg);
    let tn = type_name(t, b.structs);
    let avail: Vec<String> = match t {
        Type::Vec(n, _) => XYZW[..(n as usize).min(4)]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        Type::Quat(_) => XYZW.iter().map(|s| s.to_string()).collect(),
        Type::Transform(_) => vec!["p".into(), "q".into()],
        Type::Struct(id) => b
            .structs
            .get(id)
            .map(|d| d.fields.iter().map(|f| f.name.clone()).collect())
            .unwrap_or_default(),
        _ => vec![],
    };
    let d =
        Diagnostic::error(span, format!("{tn} has no attribute `{name}`")).with_label(tn.clone());
    if avail.is_empty() {
        d.with_help(match t {
            Type::Mat(..) => "index a matrix with `m[i]` (row) or `m[i, j]`".to_string(),
            _ => format!("{tn} has no attributes"),
        })
    } else {
        d.with_help(format!("{tn} has: {}", avail.join(", ")))
    }
}

/// The component path of attribute `name` on a vector, quat or struct.
fn attr_path(b: &FuncBuilder, t: Type, name: &str) -> Option<u32> {
    match t {
        Type::Vec(n, _) => XYZW
            .iter()
            .position(|&a| a == name)
            .filter(|&i| i < n as usize)
            .map(|i| i as u32),
        Type::Quat(_) => XYZW.iter().position(|&a| a == name).map(|i| i as u32),
        Type::Struct(id) => b.structs.get(id)?.field_index(name),
        _ => None,
    }
}

pub(crate) fn get_attr(
    b: &mut FuncBuilder,
    agg: Value,
    name: &str,
    span: Span,
) -> Result<Value, Diagnostic> {
    let t = b.ty(agg);
    if let Type::Transform(s) = t {
        let range = match name {
            "p" => 0..3,
            "q" => 3..7,
            _ => return Err(no_attr(b, agg, name, span)),
        };
        let ty = if name == "p" {
            Type::Vec(3, s)
        } else {
            Type::Quat(s)
        };
        let parts = range.map(|i| b.extract(agg, vec![i])).collect();
        return Ok(b.make(ty, parts));
    }
    match attr_path(b, t, name) {
        Some(i) => Ok(b.extract(agg, vec![i])),
        None => Err(no_attr(b, agg, name, span)),
    }
}

fn type_mismatch(b: &FuncBuilder, what: &str, want: Type, v: Value, span: Span) -> Diagnostic {
    let want_n = type_name(want, b.structs);
    let got = type_name(b.ty(v), b.structs);
    Diagnostic::error(span, format!("{what} is {want_n}, but the value is {got}"))
        .with_label(got)
        .with_help(format!("convert the value: `wp.{want_n}(...)`"))
}

pub(crate) fn set_attr(
    b: &mut FuncBuilder,
    agg: Value,
    name: &str,
    v: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    let t = b.ty(agg);
    if let Type::Transform(s) = t {
        let (start, want) = match name {
            "p" => (0, Type::Vec(3, s)),
            "q" => (3, Type::Quat(s)),
            _ => return Err(no_attr(b, agg, name, span)),
        };
        if b.ty(v) != want {
            return Err(type_mismatch(b, &format!("`.{name}`"), want, v, span));
        }
        let mut out = agg;
        for (k, c) in components(b, v).into_iter().enumerate() {
            out = b.insert(out, vec![start + k as u32], c);
        }
        return Ok(out);
    }
    let Some(i) = attr_path(b, t, name) else {
        return Err(no_attr(b, agg, name, span));
    };
    let want = t.project(i, b.structs).unwrap_or(t);
    if b.ty(v) != want {
        return Err(type_mismatch(b, &format!("`.{name}`"), want, v, span));
    }
    Ok(b.insert(agg, vec![i], v))
}

/// An index: a constant (already made non-negative and bounds-checked) or
/// a runtime integer value.
enum Idx {
    Const(u32),
    Dyn(Value),
}

fn index_of(b: &FuncBuilder, i: Value, len: u32, span: Span) -> Result<Idx, Diagnostic> {
    let t = b.ty(i);
    if !t.as_scalar().is_some_and(|s| s.is_int()) {
        return Err(Diagnostic::error(
            span,
            format!("index must be an integer, got {}", type_name(t, b.structs)),
        )
        .with_help("convert it with `int(...)`"));
    }
    match const_of(b, i) {
        Some(c) => {
            let k = c.as_i128();
            let k2 = if k < 0 { k + len as i128 } else { k };
            if k2 < 0 || k2 >= len as i128 {
                Err(
                    Diagnostic::error(span, format!("index {k} is out of range for length {len}"))
                        .with_label(format!("valid indices are 0..{len}")),
                )
            } else {
                Ok(Idx::Const(k2 as u32))
            }
        }
        None => Ok(Idx::Dyn(i)),
    }
}

/// `i == k` (or `i == k - len` for signed indices).
fn index_is(b: &mut FuncBuilder, i: Value, k: u32, len: u32) -> Value {
    let s = b.ty(i).as_scalar().unwrap_or(Scalar::I32);
    let kc = b.konst(Const::from_i128(s, k as i128));
    let eq = b.binary(BinaryOp::Eq, i, kc);
    if !s.is_signed_int() {
        return eq;
    }
    let nk = b.konst(Const::from_i128(s, k as i128 - len as i128));
    let eq2 = b.binary(BinaryOp::Eq, i, nk);
    b.binary(BinaryOp::Or, eq, eq2)
}

/// Selects `items[i]` for a runtime `i`.
fn select_dyn(b: &mut FuncBuilder, i: Value, items: &[Value]) -> Value {
    let n = items.len() as u32;
    let mut acc = items[items.len() - 1];
    for k in (0..n - 1).rev() {
        let c = index_is(b, i, k, n);
        acc = b.select(c, items[k as usize], acc);
    }
    acc
}

/// Number of direct components and whether the type is indexable.
fn indexable_len(t: Type) -> Option<u32> {
    match t {
        Type::Vec(n, _) | Type::Mat(n, _, _) => Some(n as u32),
        Type::Quat(_) => Some(4),
        Type::Transform(_) => Some(7),
        _ => None,
    }
}

fn not_indexable(b: &FuncBuilder, agg: Value, span: Span) -> Diagnostic {
    let tn = type_name(b.ty(agg), b.structs);
    let help = match b.ty(agg) {
        Type::Struct(_) => "access struct fields with `.name`",
        _ => "only vectors, matrices, quaternions and transforms are indexed with `[...]`",
    };
    Diagnostic::error(span, format!("{tn} cannot be indexed"))
        .with_label(tn)
        .with_help(help)
}

/// The direct component `i` (a row of a matrix).
fn get1(b: &mut FuncBuilder, agg: Value, i: Value, span: Span) -> Result<Value, Diagnostic> {
    let len = indexable_len(b.ty(agg)).ok_or_else(|| not_indexable(b, agg, span))?;
    Ok(match index_of(b, i, len, span)? {
        Idx::Const(k) => b.extract(agg, vec![k]),
        Idx::Dyn(i) => {
            let items: Vec<Value> = (0..len).map(|k| b.extract(agg, vec![k])).collect();
            select_dyn(b, i, &items)
        }
    })
}

/// `agg` with direct component `i` replaced by `v` (checked by the caller).
fn set1(
    b: &mut FuncBuilder,
    agg: Value,
    i: Value,
    v: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    let len = indexable_len(b.ty(agg)).ok_or_else(|| not_indexable(b, agg, span))?;
    Ok(match index_of(b, i, len, span)? {
        Idx::Const(k) => b.insert(agg, vec![k], v),
        Idx::Dyn(i) => {
            let t = b.ty(agg);
            let items: Vec<Value> = (0..len)
                .map(|k| {
                    let old = b.extract(agg, vec![k]);
                    let c = index_is(b, i, k, len);
                    b.select(c, v, old)
                })
                .collect();
            b.make(t, items)
        }
    })
}

fn arity_error(b: &FuncBuilder, agg: Value, n: usize, span: Span) -> Diagnostic {
    let tn = type_name(b.ty(agg), b.structs);
    Diagnostic::error(
        span,
        format!(
            "{tn} takes {} index(es), got {n}",
            if matches!(b.ty(agg), Type::Mat(..)) {
                "1 or 2"
            } else {
                "1"
            }
        ),
    )
    .with_label(tn)
}

pub(crate) fn get_index(
    b: &mut FuncBuilder,
    agg: Value,
    index: &[Value],
    span: Span,
) -> Result<Value, Diagnostic> {
    match (b.ty(agg), index) {
        (_, [i]) => get1(b, agg, *i, span),
        (Type::Mat(rows, cols, _), [i, j]) => {
            let (i, j) = (*i, *j);
            if let (Idx::Const(a), Idx::Const(c)) = (
                index_of(b, i, rows as u32, span)?,
                index_of(b, j, cols as u32, span)?,
            ) {
                return Ok(b.extract(agg, vec![a, c]));
            }
            let row = get1(b, agg, i, span)?;
            get1(b, row, j, span)
        }
        _ => Err(arity_error(b, agg, index.len(), span)),
    }
}

pub(crate) fn set_index(
    b: &mut FuncBuilder,
    agg: Value,
    index: &[Value],
    v: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    let t = b.ty(agg);
    match (t, index) {
        (_, [i]) => {
            let want = match t {
                Type::Mat(_, c, s) => Type::Vec(c, s),
                _ => match t.scalar_of() {
                    Some(s) if indexable_len(t).is_some() => Type::Scalar(s),
                    _ => return Err(not_indexable(b, agg, span)),
                },
            };
            if b.ty(v) != want {
                return Err(type_mismatch(b, "the component", want, v, span));
            }
            set1(b, agg, *i, v, span)
        }
        (Type::Mat(rows, cols, s), [i, j]) => {
            if b.ty(v) != Type::Scalar(s) {
                return Err(type_mismatch(b, "the component", Type::Scalar(s), v, span));
            }
            if let (Idx::Const(a), Idx::Const(c)) = (
                index_of(b, *i, rows as u32, span)?,
                index_of(b, *j, cols as u32, span)?,
            ) {
                return Ok(b.insert(agg, vec![a, c], v));
            }
            let row = get1(b, agg, *i, span)?;
            let row = set1(b, row, *j, v, span)?;
            set1(b, agg, *i, row, span)
        }
        _ => Err(arity_error(b, agg, index.len(), span)),
    }
}
