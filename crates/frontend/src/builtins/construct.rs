//! Type constructors: scalar conversions, vectors, matrices, quaternions,
//! transforms and structs.

use super::ops::{assemble, components, leaf_paths, map1, num_const, zero_of};
use super::{const_of, type_list, type_name, FuncCaller};
use crate::diag::{Diagnostic, Span};
use weft_ir::{Const, FuncBuilder, Scalar, Type, Value};

/// Converts scalar `v` to `to` with Warp's rules (float→int truncates,
/// narrowing wraps, →bool is "nonzero", bool→number is 0/1). Constants are
/// folded.
pub(crate) fn convert(b: &mut FuncBuilder, v: Value, to: Scalar) -> Value {
    let from = match b.ty(v).as_scalar() {
        Some(s) => s,
        None => return v,
    };
    if from == to {
        return v;
    }
    if let Some(c) = const_of(b, v) {
        if let Some(folded) = fold_cast(c, to) {
            return b.konst(folded);
        }
    }
    b.cast(v, to)
}

/// The IR `Cast` of a constant, when it is exact to compute here.
fn fold_cast(c: Const, to: Scalar) -> Option<Const> {
    if !c.ty.is_float() {
        return Some(if to.is_float() {
            Const::float(to, c.as_f64())
        } else {
            Const::from_i128(to, c.as_i128())
        });
    }
    let f = c.as_f64();
    Some(match to {
        t if t.is_float() => Const::float(t, f),
        Scalar::Bool => Const::bool(f != 0.0),
        Scalar::I8 => Const::int(to, f as i8 as i64),
        Scalar::I16 => Const::int(to, f as i16 as i64),
        Scalar::I32 => Const::int(to, f as i32 as i64),
        Scalar::I64 => Const::int(to, f as i64),
        Scalar::U8 => Const::int(to, f as u8 as i64),
        Scalar::U16 => Const::int(to, f as u16 as i64),
        Scalar::U32 => Const::int(to, f as u32 as i64),
        Scalar::U64 => Const::from_i128(to, f as u64 as i128),
        _ => return None,
    })
}

/// [`convert`], except that a float literal (or a variable still holding
/// one) converted to float64 or float16 takes the literal's Python value,
/// as Warp does: `wp.vec3d(1.00000005)` and `x = 0.1; wp.float64(x)` are
/// the doubles nearest 1.00000005 and 0.1, not widened float32s.
pub(crate) fn convert_lit(b: &mut FuncBuilder, c: &dyn FuncCaller, v: Value, to: Scalar) -> Value {
    if to.is_float() && to != Scalar::F32 && b.ty(v) == Type::F32 {
        if let Some(x) = c.float_literal(v) {
            return b.fconst(to, x);
        }
    }
    convert(b, v, to)
}

/// Converts every component of `v` to scalar type `to` (same shape).
pub(crate) fn convert_agg(b: &mut FuncBuilder, v: Value, to: Scalar) -> Value {
    if b.ty(v).scalar_of() == Some(to) {
        return v;
    }
    map1(b, v, |b, c| convert(b, c, to))
}

fn bad_args(b: &FuncBuilder, ty: Type, args: &[Value], span: Span, forms: &[&str]) -> Diagnostic {
    let tn = type_name(ty, b.structs);
    let d = Diagnostic::error(
        span,
        format!("cannot construct {tn} from ({})", type_list(b, args)),
    )
    .with_label(format!("arguments: ({})", type_list(b, args)));
    d.with_help(format!("{tn} is built as: {}", forms.join(", ")))
}

pub(crate) fn construct(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    ty: Type,
    args: &[Value],
    kwargs: &[(String, Value)],
    span: Span,
) -> Result<Value, Diagnostic> {
    if let Type::Struct(_) = ty {
        return construct_struct(b, ty, args, kwargs, span);
    }
    let args: Vec<Value> = match (ty, kwargs) {
        (_, []) => args.to_vec(),
        (Type::Transform(_), kw) if args.is_empty() => {
            let get = |n: &str| kw.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
            match (get("p"), get("q"), kw.len()) {
                (Some(p), Some(q), 2) => vec![p, q],
                _ => {
                    return Err(
                        Diagnostic::error(span, "transform keywords are `p` and `q`")
                            .with_help("write `wp.transform(p=position, q=rotation)`"),
                    )
                }
            }
        }
        (_, kw) => {
            return Err(Diagnostic::error(
                span,
                format!(
                    "unexpected keyword argument `{}` for {}",
                    kw[0].0,
                    type_name(ty, b.structs)
                ),
            )
            .with_help("pass the components positionally"))
        }
    };
    let tys: Vec<Type> = args.iter().map(|&v| b.ty(v)).collect();
    let all_scalars = tys.iter().all(|t| t.is_scalar());
    match ty {
        Type::Scalar(to) => match tys.as_slice() {
            [] => Ok(zero_of(b, ty)),
            [Type::Scalar(_)] => Ok(convert_lit(b, c, args[0], to)),
            _ => Err(bad_args(b, ty, &args, span, &["one scalar argument"])),
        },
        Type::Array(_) => Err(
            Diagnostic::error(span, "arrays cannot be constructed in a kernel")
                .with_help("pass the array to the kernel as a parameter"),
        ),
        _ => {
            let s = ty.scalar_of().unwrap_or(Scalar::F32);
            let n = leaf_paths(ty).len();
            match tys.as_slice() {
                [] => Ok(zero_of(b, ty)),
                // Conversion from the same shape with another scalar type.
                [t] if with_same_shape(*t, ty) => Ok(convert_agg(b, args[0], s)),
                // Fill.
                [Type::Scalar(_)] if !matches!(ty, Type::Quat(_) | Type::Transform(_)) => {
                    let v = convert_lit(b, c, args[0], s);
                    Ok(assemble(b, ty, vec![v; n]))
                }
                _ if all_scalars && args.len() == n => {
                    let parts = args.iter().map(|&v| convert_lit(b, c, v, s)).collect();
                    Ok(assemble(b, ty, parts))
                }
                [Type::Vec(3, _), Type::Scalar(_)] if matches!(ty, Type::Quat(_)) => {
                    let mut parts: Vec<Value> = components(b, args[0])
                        .into_iter()
                        .map(|v| convert(b, v, s))
                        .collect();
                    parts.push(convert_lit(b, c, args[1], s));
                    Ok(b.make(ty, parts))
                }
                // spatial_vector(w, v)
                [Type::Vec(3, _), Type::Vec(3, _)] if matches!(ty, Type::Vec(6, _)) => {
                    let mut parts = components(b, args[0]);
                    parts.extend(components(b, args[1]));
                    let parts = parts.into_iter().map(|v| convert(b, v, s)).collect();
                    Ok(b.make(ty, parts))
                }
                [Type::Vec(3, _), Type::Quat(_)] if matches!(ty, Type::Transform(_)) => {
                    let mut parts = components(b, args[0]);
                    parts.extend(components(b, args[1]));
                    let parts = parts.into_iter().map(|v| convert(b, v, s)).collect();
                    Ok(b.make(ty, parts))
                }
                // transform(p): Warp's `q=None` is the identity rotation.
                [Type::Vec(3, _)] if matches!(ty, Type::Transform(_)) => {
                    let mut parts: Vec<Value> = components(b, args[0])
                        .into_iter()
                        .map(|v| convert(b, v, s))
                        .collect();
                    for w in [0.0, 0.0, 0.0, 1.0] {
                        parts.push(num_const(b, s, w));
                    }
                    Ok(b.make(ty, parts))
                }
                _ if matches!(ty, Type::Mat(..))
                    && tys.iter().all(|t| matches!(t, Type::Vec(..))) =>
                {
                    const HELP: &str = concat!(
                        "passing vectors to a matrix constructor isn't supported: ",
                        "use `wp.matrix_from_rows(...)` or `wp.matrix_from_cols(...)`"
                    );
                    let forms = ["R*C scalars in row-major order"];
                    Err(bad_args(b, ty, &args, span, &forms).with_help(HELP))
                }
                _ => Err(bad_args(b, ty, &args, span, &forms(ty))),
            }
        }
    }
}

fn with_same_shape(a: Type, b: Type) -> bool {
    match (a, b) {
        (Type::Vec(n, _), Type::Vec(m, _)) => n == m,
        (Type::Mat(r, c, _), Type::Mat(r2, c2, _)) => r == r2 && c == c2,
        (Type::Quat(_), Type::Quat(_)) | (Type::Transform(_), Type::Transform(_)) => true,
        _ => false,
    }
}

fn forms(ty: Type) -> Vec<&'static str> {
    match ty {
        Type::Vec(..) => vec![
            "() (zero)",
            "(s) (fill)",
            "(one scalar per component)",
            "(another vector of the same length)",
        ],
        Type::Mat(..) => vec!["() (zero)", "(s) (fill)", "(R*C scalars, row-major)"],
        Type::Quat(_) => vec!["()", "(x, y, z, w)", "(v: vec3, w)"],
        Type::Transform(_) => vec!["()", "(p: vec3)", "(p: vec3, q: quat)", "(7 scalars)"],
        _ => vec![],
    }
}

fn construct_struct(
    b: &mut FuncBuilder,
    ty: Type,
    args: &[Value],
    kwargs: &[(String, Value)],
    span: Span,
) -> Result<Value, Diagnostic> {
    let Type::Struct(id) = ty else {
        return Err(Diagnostic::error(span, "not a struct"));
    };
    let Some(def) = b.structs.get(id) else {
        return Err(Diagnostic::error(span, "unknown struct"));
    };
    let def = def.clone();
    if args.len() > def.fields.len() {
        return Err(Diagnostic::error(
            span,
            format!(
                "struct {} has {} fields, got {} arguments",
                def.name,
                def.fields.len(),
                args.len()
            ),
        ));
    }
    let mut vals: Vec<Option<Value>> = vec![None; def.fields.len()];
    for (i, &a) in args.iter().enumerate() {
        vals[i] = Some(a);
    }
    for (k, v) in kwargs {
        let Some(i) = def.field_index(k) else {
            let names: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
            return Err(
                Diagnostic::error(span, format!("struct {} has no field `{k}`", def.name))
                    .with_help(format!("its fields are: {}", names.join(", "))),
            );
        };
        if vals[i as usize].is_some() {
            return Err(Diagnostic::error(span, format!("field `{k}` given twice")));
        }
        vals[i as usize] = Some(*v);
    }
    let mut parts = Vec::with_capacity(vals.len());
    for (f, v) in def.fields.iter().zip(vals) {
        let v = match v {
            None => zero_of(b, f.ty),
            Some(v) if b.ty(v) == f.ty => v,
            Some(v) => {
                let got = type_name(b.ty(v), b.structs);
                let want = type_name(f.ty, b.structs);
                return Err(Diagnostic::error(
                    span,
                    format!("field `{}` of {} is {want}, got {got}", f.name, def.name),
                )
                .with_help(format!("convert the value, e.g. `wp.{want}(...)`")));
            }
        };
        parts.push(v);
    }
    Ok(b.make(ty, parts))
}
