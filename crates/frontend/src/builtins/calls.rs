//! Builtin function calls (`wp.sin`, `wp.dot`, `wp.atomic_add`, ...): type
//! checking, overload selection and lowering, either to primitive IR here or
//! to a prelude func through [`FuncCaller`].

use super::construct::convert;
use super::ops::{self, components, is_math_agg, map1, map2, mat_vec, num_const, prelude1, reduce};
use super::{const_of, type_list, FuncCaller, PRELUDE_PREFIX};
use crate::diag::{Diagnostic, Span};
use ruff_python_ast as ast;
use weft_ir::{AtomicOp, BinaryOp, FuncBuilder, Scalar, Type, UnaryOp, Value};

/// Builtins lowered to a single unary IR op on floats (elementwise on
/// float vectors).
const FLOAT_UNARY: &[(&str, UnaryOp)] = &[
    ("sin", UnaryOp::Sin),
    ("cos", UnaryOp::Cos),
    ("tan", UnaryOp::Tan),
    ("atan", UnaryOp::Atan),
    ("sinh", UnaryOp::Sinh),
    ("cosh", UnaryOp::Cosh),
    ("tanh", UnaryOp::Tanh),
    ("exp", UnaryOp::Exp),
    ("log", UnaryOp::Log),
    ("log2", UnaryOp::Log2),
    ("log10", UnaryOp::Log10),
    ("sqrt", UnaryOp::Sqrt),
    ("cbrt", UnaryOp::Cbrt),
    ("floor", UnaryOp::Floor),
    ("ceil", UnaryOp::Ceil),
    ("trunc", UnaryOp::Trunc),
    ("round", UnaryOp::Round),
    ("rint", UnaryOp::Rint),
    ("erf", UnaryOp::Erf),
    ("erfc", UnaryOp::Erfc),
    ("erfinv", UnaryOp::Erfinv),
];

/// Random draws: they return `[result, new_state]`.
const RNG_DRAWS: &[&str] = &[
    "randi",
    "randu",
    "randf",
    "randn",
    "sample_triangle",
    "sample_unit_ring",
    "sample_unit_disk",
    "sample_unit_sphere_surface",
    "sample_unit_sphere",
    "sample_unit_hemisphere_surface",
    "sample_unit_hemisphere",
    "sample_unit_square",
    "sample_unit_cube",
    "poisson",
    "sample_cdf",
];

/// Builtins that are calls of a prelude func of the same name with the
/// arguments unchanged.
const PRELUDE_DIRECT: &[&str] = &[
    "dot",
    "length",
    "length_sq",
    "normalize",
    "cross",
    "smoothstep",
    "determinant",
    "inverse",
    "quat_inverse",
    "quat_rotate",
    "quat_rotate_inv",
    "quat_to_matrix",
    "quat_from_matrix",
    "quat_from_axis_angle",
    "quat_rpy",
    "quat_slerp",
    "quat_to_rpy",
    "transform_point",
    "transform_vector",
    "transform_multiply",
    "transform_inverse",
    "transform_to_matrix",
    "transform_from_matrix",
    "spatial_cross",
    "spatial_cross_dual",
    "velocity_at_point",
    "transform_twist",
    "transform_wrench",
];

/// Builtins that are calls of a prelude func of the same name whose
/// overloads check the argument types themselves; the last argument of
/// those in [`DEFAULT_ONE`] defaults to 1.0 of the vector's scalar type.
const PRELUDE_TYPED: &[&str] = &[
    "norm_huber",
    "norm_pseudo_huber",
    "smooth_normalize",
    "quat_to_axis_angle",
    "transform_compose",
    "transform_decompose",
    "quat_twist",
    "quat_twist_angle",
    "quat_twist_angle_signed",
    "quat_from_euler",
    "quat_to_euler",
    "lower_bound",
    "erfcinv",
    "spatial_adjoint",
    "dense_gemm",
    "dense_chol",
    "dense_subs",
    "dense_solve",
    "svd3",
    "svd2",
    "qr3",
    "eig3",
    "noise",
    "pnoise",
    "curlnoise",
];

/// `delta: float = 1.0` (Warp's `math.py`).
const DEFAULT_ONE: &[&str] = &["norm_huber", "norm_pseudo_huber", "smooth_normalize"];

/// Builtins whose approximate GPU intrinsics Warp replaces by exact
/// arithmetic on the CPU, and Weft on every backend: the builtin they
/// compute.
fn approx_builtin(name: &str) -> Option<&'static str> {
    match name {
        "inverse_approx" => Some("inverse"),
        "div_approx" => Some("div"),
        _ => None,
    }
}

/// Whether `name` (without the `wp.` prefix) is a builtin function.
pub(crate) fn is_builtin(name: &str) -> bool {
    FLOAT_UNARY.iter().any(|(n, _)| *n == name)
        || RNG_DRAWS.contains(&name)
        || PRELUDE_DIRECT.contains(&name)
        || PRELUDE_TYPED.contains(&name)
        || sets_first_arg(name)
        || approx_builtin(name).is_some()
        || matches!(
            name,
            "asin"
                | "acos"
                | "abs"
                | "sign"
                | "step"
                | "nonzero"
                | "frac"
                | "isnan"
                | "isinf"
                | "isfinite"
                | "bit_count"
                | "degrees"
                | "radians"
                | "pow"
                | "atan2"
                | "copysign"
                | "min"
                | "max"
                | "clamp"
                | "argmin"
                | "argmax"
                | "lerp"
                | "mod"
                | "div"
                | "floordiv"
                | "mul"
                | "add"
                | "sub"
                | "neg"
                | "where"
                | "outer"
                | "cw_mul"
                | "cw_div"
                | "transpose"
                | "trace"
                | "ddot"
                | "diag"
                | "get_diag"
                | "skew"
                | "matrix_from_cols"
                | "matrix_from_rows"
                | "identity"
                | "quat_identity"
                | "transform_identity"
                | "transform_get_translation"
                | "transform_get_rotation"
                | "rand_init"
                | "len"
                | "atomic_add"
                | "atomic_sub"
                | "atomic_min"
                | "atomic_max"
                | "atomic_and"
                | "atomic_or"
                | "atomic_xor"
                | "atomic_exch"
                | "atomic_cas"
                | "block_dim"
                | "select"
                | "norm_l1"
                | "norm_l2"
                | "spatial_top"
                | "spatial_bottom"
                | "spatial_dot"
        )
}

/// Whether builtin `name` draws random numbers: it then returns
/// `[result, new_state]` and the lowerer stores `new_state` back into the
/// variable passed as the first argument (Warp passes the state by
/// reference).
pub(crate) fn advances_rng_state(name: &str) -> bool {
    RNG_DRAWS.contains(&name)
}

/// Builtins that modify their first argument in place and return nothing:
/// they return `[new_value]`, which the lowerer stores back into the
/// variable passed (an array element is a copy in Warp, so it is not
/// written).
pub(crate) fn sets_first_arg(name: &str) -> bool {
    matches!(name, "transform_set_translation" | "transform_set_rotation")
}

/// Builtins with a form that writes its results into variables passed
/// after the inputs (`wp.svd3(A, U, sigma, V)`): with `nargs` arguments,
/// the number of inputs when the call is that form. The value form
/// (`U, sigma, V = wp.svd3(A)`) computes the results.
pub(crate) fn out_args(name: &str, nargs: usize) -> Option<usize> {
    match (name, nargs) {
        ("svd3" | "svd2", 4) | ("qr3" | "eig3" | "quat_to_axis_angle", 3) => Some(1),
        _ => None,
    }
}

/// "no overload of `wp.name` accepts (types)" with the overloads listed.
fn no_overload(b: &FuncBuilder, name: &str, args: &[Value], span: Span) -> Diagnostic {
    let d = Diagnostic::error(
        span,
        format!(
            "no overload of `wp.{name}` accepts ({})",
            type_list(b, args)
        ),
    )
    .with_label(format!("arguments: ({})", type_list(b, args)));
    let sigs = signatures(name);
    if sigs.is_empty() {
        d
    } else {
        d.with_help(format!("`wp.{name}` is defined as: {}", sigs.join("; ")))
    }
}

/// The overloads of builtin `name` that exist, for messages (Warp's
/// spelling: `Float` is any float type, `Scalar` any number type).
pub(crate) fn signatures(name: &str) -> Vec<String> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match name {
        n if FLOAT_UNARY.iter().any(|(u, _)| *u == n) || matches!(n, "asin" | "acos" | "frac") => {
            vec![format!("{n}(x: Float)")]
        }
        "abs" | "sign" => vec![format!("{name}(x: Scalar)"), format!("{name}(x: vector)")],
        "step" | "nonzero" => vec![format!("{name}(x: Scalar)")],
        "isnan" | "isinf" | "isfinite" => vec![
            format!("{name}(x: Float) -> bool"),
            format!("{name}(x: vector | matrix | quat) -> bool"),
        ],
        "bit_count" => s(&["bit_count(x: Int) -> int32"]),
        "degrees" | "radians" => vec![format!("{name}(x: Float)")],
        "pow" | "atan2" | "copysign" => vec![format!("{name}(x: Float, y: Float)")],
        "min" | "max" => vec![
            format!("{name}(a: Scalar, b: Scalar)"),
            format!("{name}(a: vector, b: vector)"),
            format!("{name}(a: vector) -> Scalar"),
        ],
        "clamp" => s(&["clamp(x: Scalar, a: Scalar, b: Scalar) (no vector overload in Warp 1.19)"]),
        "argmin" | "argmax" => vec![format!("{name}(a: vector) -> uint32")],
        "lerp" => s(&[
            "lerp(a: Float, b: Float, t: Float)",
            "lerp(a: vector | matrix | quat, b: same, t: Float) (one float type throughout)",
        ]),
        "mod" | "div" | "floordiv" | "mul" | "add" | "sub" => vec![format!("{name}(a, b)")],
        "neg" => s(&["neg(x)"]),
        "where" => s(&[
            "where(cond: bool or integer, value_if_true: T, value_if_false: T)",
            "where(arr: array, value_if_true: T, value_if_false: T) (arr non-null)",
        ]),
        "outer" => s(&["outer(a: vector, b: vector) -> matrix"]),
        "cw_mul" | "cw_div" => vec![
            format!("{name}(a: vector, b: vector)"),
            format!("{name}(a: matrix, b: matrix)"),
        ],
        "transpose" => s(&["transpose(m: matrix)"]),
        "trace" | "get_diag" => vec![format!("{name}(m: square matrix)")],
        "ddot" => vec!["ddot(a: matRxC, b: matRxC)".to_string()],
        "diag" => s(&["diag(d: vector) -> matrix"]),
        "skew" => s(&["skew(vec: vec3)"]),
        "matrix_from_cols" | "matrix_from_rows" => {
            vec![format!("{name}(*vectors: vector) (all of the same type)")]
        }
        "identity" => s(&["identity(n: int constant, dtype: float type)"]),
        "quat_identity" | "transform_identity" => {
            vec![format!("{name}(dtype: float type = float32)")]
        }
        "transform_get_translation" | "transform_get_rotation" => {
            vec![format!("{name}(xform: transform)")]
        }
        "rand_init" => s(&[
            "rand_init(seed: int32) -> uint32",
            "rand_init(seed: int32, offset: int32) -> uint32",
        ]),
        "randi" => s(&[
            "randi(state: uint32) -> int32",
            "randi(state: uint32, low: int32, high: int32) -> int32",
        ]),
        "randu" => s(&[
            "randu(state: uint32) -> uint32",
            "randu(state: uint32, low: uint32, high: uint32) -> uint32",
        ]),
        "randf" => s(&[
            "randf(state: uint32) -> float32",
            "randf(state: uint32, low: float32, high: float32) -> float32",
        ]),
        "randn" => s(&["randn(state: uint32) -> float32"]),
        n if RNG_DRAWS.contains(&n) => vec![format!("{n}(state: uint32)")],
        "len" => s(&["len(a: vector | matrix | quat | transform | array)"]),
        "block_dim" => s(&["block_dim() -> int32"]),
        "atomic_cas" => s(&[
            "atomic_cas(arr: array, i: Int, [j, k, l: Int,] compare: element type, value: element type) -> old value",
        ]),
        "norm_l1" | "norm_l2" => vec![format!("{name}(v: vector of floats)")],
        "dot" => s(&["dot(a: vecN, b: vecN) (same type)", "dot(a: quat, b: quat)"]),
        "length" | "length_sq" | "normalize" => {
            vec![
                format!("{name}(a: vecN of floats)"),
                format!("{name}(q: quat)"),
            ]
        }
        "cross" => s(&["cross(a: vec3, b: vec3)"]),
        "smoothstep" => s(&["smoothstep(edge0: Float, edge1: Float, x: Float)"]),
        "determinant" | "inverse" => vec![format!("{name}(m: matNN) (N = 2, 3, 4)")],
        "quat_inverse" | "quat_to_matrix" | "quat_to_rpy" => vec![format!("{name}(q: quat)")],
        "quat_rotate" | "quat_rotate_inv" => vec![format!("{name}(q: quat, p: vec3)")],
        "quat_from_matrix" => s(&["quat_from_matrix(m: mat33)", "quat_from_matrix(m: mat44)"]),
        "quat_from_axis_angle" => s(&["quat_from_axis_angle(axis: vec3, angle: Float)"]),
        "quat_rpy" => s(&["quat_rpy(roll: Float, pitch: Float, yaw: Float)"]),
        "quat_slerp" => s(&["quat_slerp(q0: quat, q1: quat, t: Float)"]),
        "transform_point" | "transform_vector" => vec![
            format!("{name}(xform: transform, v: vec3)"),
            format!("{name}(mat: mat44, v: vec3)"),
        ],
        "transform_multiply" => s(&["transform_multiply(a: transform, b: transform)"]),
        "transform_inverse" | "transform_to_matrix" => vec![format!("{name}(xform: transform)")],
        "transform_from_matrix" => s(&["transform_from_matrix(mat: mat44) -> transform"]),
        "spatial_top" | "spatial_bottom" => vec![format!("{name}(a: spatial_vector) -> vec3")],
        "spatial_dot" => s(&["spatial_dot(a: spatial_vector, b: spatial_vector)"]),
        "spatial_cross" | "spatial_cross_dual" => {
            vec![format!("{name}(a: spatial_vector, b: spatial_vector)")]
        }
        "velocity_at_point" => s(&["velocity_at_point(qd: spatial_vector, r: vec3) -> vec3"]),
        "transform_twist" | "transform_wrench" => {
            vec![format!(
                "{name}(t: transform, x: spatial_vector) -> spatial_vector"
            )]
        }
        n if n.starts_with("atomic_") => vec![format!(
            "{n}(arr: array, i: Int, [j, k, l: Int,] value: element type) -> old value"
        )],
        _ => Vec::new(),
    }
}

fn float_of(t: Type) -> Option<Scalar> {
    t.scalar_of().filter(|s| s.is_float())
}

/// Scalar or vector/matrix/quat of floats.
fn is_float_num(t: Type) -> bool {
    float_of(t).is_some() && (t.is_scalar() || is_math_agg(t))
}

/// Scalar or vector/matrix of numbers (not bool).
fn is_num(t: Type) -> bool {
    t.scalar_of().is_some_and(|s| s != Scalar::Bool) && (t.is_scalar() || is_math_agg(t))
}

pub(crate) fn call_builtin(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    name: &str,
    args: &[Value],
    kwargs: &[(String, Value)],
    span: Span,
) -> Result<Vec<Value>, Diagnostic> {
    if !kwargs.is_empty() && !matches!(name, "identity" | "quat_identity" | "transform_identity") {
        return Err(Diagnostic::error(
            span,
            format!(
                "`wp.{name}` takes no keyword arguments (got `{}`)",
                kwargs[0].0
            ),
        )
        .with_help("pass the arguments positionally"));
    }
    let tys: Vec<Type> = args.iter().map(|&v| b.ty(v)).collect();
    let one = |v: Value| Ok(vec![v]);

    if let Some((_, op)) = FLOAT_UNARY.iter().find(|(n, _)| *n == name) {
        return match tys.as_slice() {
            [Type::Scalar(s)] if s.is_float() => one(b.unary(*op, args[0])),
            _ => Err(no_overload(b, name, args, span)),
        };
    }
    if RNG_DRAWS.contains(&name) {
        return rng_draw(b, c, name, args, span);
    }
    // Integer vectors (the prelude holds the float overloads): dot and
    // length_sq are a0*b0 + a1*b1 + ..., wrapping; cross is Warp's formula.
    let int_vec = |t: &Type| matches!(t, Type::Vec(_, s) if s.is_int());
    match (name, tys.as_slice()) {
        ("dot", [x, y]) | ("cross", [x, y]) if int_vec(x) && x == y => {
            if name == "cross" {
                let Type::Vec(3, s) = *x else {
                    return Err(no_overload(b, name, args, span));
                };
                let a = components(b, args[0]);
                let c2 = components(b, args[1]);
                let term = |b: &mut FuncBuilder, i: usize, j: usize| {
                    let p = b.binary(BinaryOp::Mul, a[i], c2[j]);
                    let q = b.binary(BinaryOp::Mul, a[j], c2[i]);
                    b.binary(BinaryOp::Sub, p, q)
                };
                let xyz = vec![term(b, 1, 2), term(b, 2, 0), term(b, 0, 1)];
                return one(b.make(Type::Vec(3, s), xyz));
            }
            let p = map2(b, args[0], args[1], |b, x, y| b.binary(BinaryOp::Mul, x, y));
            return one(reduce(b, p, |b, x, y| b.binary(BinaryOp::Add, x, y)));
        }
        ("length_sq", [x]) if int_vec(x) => {
            let p = map2(b, args[0], args[0], |b, x, y| b.binary(BinaryOp::Mul, x, y));
            return one(reduce(b, p, |b, x, y| b.binary(BinaryOp::Add, x, y)));
        }
        _ => {}
    }
    if PRELUDE_DIRECT.contains(&name) {
        return prelude_direct(b, c, name, args, span);
    }
    if sets_first_arg(name) {
        // xform = (p[0], p[1], p[2], q[0], q[1], q[2], q[3]) with p or q replaced.
        let ok = match (name, tys.as_slice()) {
            ("transform_set_translation", [Type::Transform(s), Type::Vec(3, s2)]) => s == s2,
            ("transform_set_rotation", [Type::Transform(s), Type::Quat(s2)]) => s == s2,
            _ => false,
        };
        let Type::Transform(s) = tys.first().copied().filter(|_| ok).unwrap_or(Type::F32) else {
            return Err(no_overload(b, name, args, span));
        };
        let mut parts = components(b, args[0]);
        let new = components(b, args[1]);
        let at = if name == "transform_set_translation" {
            0
        } else {
            3
        };
        parts.splice(at..at + new.len(), new);
        return one(b.make(Type::Transform(s), parts));
    }
    if let Some(exact) = approx_builtin(name) {
        return call_builtin(b, c, exact, args, kwargs, span);
    }
    if PRELUDE_TYPED.contains(&name) {
        let mut args = args.to_vec();
        if let (true, [v]) = (DEFAULT_ONE.contains(&name), tys.as_slice()) {
            if let Some(s) = float_of(*v) {
                args.push(num_const(b, s, 1.0));
            }
        }
        if name == "curlnoise" && (2..5).contains(&args.len()) {
            // octaves: uint32 = 1, lacunarity: float32 = 2.0, gain: float32 = 0.5
            let defaults = [(Scalar::U32, 1.0), (Scalar::F32, 2.0), (Scalar::F32, 0.5)];
            for &(s, v) in &defaults[args.len() - 2..] {
                args.push(num_const(b, s, v));
            }
        }
        let full = format!("{}{name}", super::PRELUDE_PREFIX);
        return c.call_prelude(b, &full, &args, span);
    }

    match name {
        "asin" | "acos" => match tys.as_slice() {
            // Warp clamps the argument to [-1, 1].
            [Type::Scalar(s)] if s.is_float() => {
                let op = if name == "asin" {
                    UnaryOp::Asin
                } else {
                    UnaryOp::Acos
                };
                one(map1(b, args[0], |b, x| {
                    let s = b.ty(x).as_scalar().unwrap_or(Scalar::F32);
                    let lo = b.fconst(s, -1.0);
                    let hi = b.fconst(s, 1.0);
                    let m = b.binary(BinaryOp::Max, x, lo);
                    let m = b.binary(BinaryOp::Min, m, hi);
                    b.unary(op, m)
                }))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "abs" => match tys.as_slice() {
            [t] if is_num(*t) && matches!(t, Type::Scalar(_) | Type::Vec(..)) => {
                let unsigned = t.scalar_of().is_some_and(|s| s.is_unsigned_int());
                one(if unsigned {
                    args[0]
                } else {
                    map1(b, args[0], |b, x| b.unary(UnaryOp::Abs, x))
                })
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "sign" => match tys.as_slice() {
            [t] if is_num(*t) && matches!(t, Type::Scalar(_) | Type::Vec(..)) => {
                one(map1(b, args[0], |b, x| sign_like(b, name, x)))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "step" | "nonzero" => match tys.as_slice() {
            [t @ Type::Scalar(_)] if is_num(*t) => one(sign_like(b, name, args[0])),
            _ => Err(no_overload(b, name, args, span)),
        },
        // A prelude func: its adjoint is Warp's (none; `__weft_frac__adjoint`).
        "frac" => match tys.as_slice() {
            [Type::Scalar(s)] if s.is_float() => {
                c.call_prelude(b, &format!("{PRELUDE_PREFIX}frac"), args, span)
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "isnan" | "isinf" | "isfinite" => match tys.as_slice() {
            [t] if is_float_num(*t) => {
                let op = match name {
                    "isnan" => UnaryOp::IsNan,
                    "isinf" => UnaryOp::IsInf,
                    _ => UnaryOp::IsFinite,
                };
                // Aggregates: one bool, any NaN/inf, all finite (as Warp;
                // no `quat<bool>` is made on the way, there is no such type).
                let comb = if op == UnaryOp::IsFinite {
                    BinaryOp::And
                } else {
                    BinaryOp::Or
                };
                let mut flags = components(b, args[0]).into_iter();
                let Some(first) = flags.next() else {
                    return Err(no_overload(b, name, args, span));
                };
                let first = b.unary(op, first);
                one(flags.fold(first, |acc, x| {
                    let f = b.unary(op, x);
                    b.binary(comb, acc, f)
                }))
            }
            [Type::Scalar(s)] if s.is_int() => one(b.bconst(name == "isfinite")),
            _ => Err(no_overload(b, name, args, span)),
        },
        "bit_count" => match tys.as_slice() {
            [Type::Scalar(s)] if s.is_int() => {
                let p = b.unary(UnaryOp::Popcount, args[0]);
                one(convert(b, p, Scalar::I32))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "degrees" | "radians" => match tys.as_slice() {
            [Type::Scalar(s)] if s.is_float() => {
                // Warp multiplies by a double constant: the product is
                // formed in double and rounded back.
                let k = if name == "degrees" {
                    57.295_779_513_082_32
                } else {
                    0.017_453_292_519_943_295
                };
                let x = convert(b, args[0], Scalar::F64);
                let kc = b.fconst(Scalar::F64, k);
                let p = b.binary(BinaryOp::Mul, x, kc);
                one(convert(b, p, *s))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "pow" | "atan2" | "copysign" => match tys.as_slice() {
            [Type::Scalar(s), Type::Scalar(s2)] if s.is_float() && s == s2 => {
                let op = match name {
                    "pow" => BinaryOp::Pow,
                    "atan2" => BinaryOp::Atan2,
                    _ => BinaryOp::Copysign,
                };
                one(b.binary(op, args[0], args[1]))
            }
            [Type::Scalar(s), Type::Scalar(s2)] if s != s2 => Err(ops::mismatch(
                b,
                &format!("`wp.{name}`"),
                args[0],
                args[1],
                span,
            )),
            _ => Err(no_overload(b, name, args, span)),
        },
        "min" | "max" => {
            let op = if name == "min" {
                BinaryOp::Min
            } else {
                BinaryOp::Max
            };
            match tys.as_slice() {
                [t, t2]
                    if t == t2 && is_num(*t) && matches!(t, Type::Scalar(_) | Type::Vec(..)) =>
                {
                    one(map2(b, args[0], args[1], |b, x, y| b.binary(op, x, y)))
                }
                [Type::Scalar(_), Type::Scalar(_)] => Err(ops::mismatch(
                    b,
                    &format!("`wp.{name}`"),
                    args[0],
                    args[1],
                    span,
                )),
                // Float vectors of 2 to 4: a prelude func, whose adjoint is
                // Warp's (to the first extremum, `argmin`/`argmax`).
                [Type::Vec(2..=4, s)] if s.is_float() => {
                    c.call_prelude(b, &format!("{PRELUDE_PREFIX}{name}"), args, span)
                }
                [Type::Vec(..)] if is_num(tys[0]) => {
                    one(reduce(b, args[0], |b, x, y| b.binary(op, x, y)))
                }
                _ => Err(no_overload(b, name, args, span)),
            }
        }
        "clamp" => match tys.as_slice() {
            [Type::Scalar(s), Type::Scalar(s1), Type::Scalar(s2)]
                if s == s1 && s == s2 && *s != Scalar::Bool =>
            {
                let m = b.binary(BinaryOp::Max, args[1], args[0]);
                one(b.binary(BinaryOp::Min, m, args[2]))
            }
            [Type::Scalar(_), Type::Scalar(_), Type::Scalar(_)] => {
                let odd = if tys[1] != tys[0] { args[1] } else { args[2] };
                Err(ops::mismatch(b, "`wp.clamp`", args[0], odd, span))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "norm_l1" | "norm_l2" => match tys.as_slice() {
            [Type::Vec(_, s)] if s.is_float() => {
                if name == "norm_l2" {
                    return prelude_direct(b, c, "length", args, span);
                }
                let zero = num_const(b, *s, 0.0);
                let mut acc = zero;
                for x in components(b, args[0]) {
                    let a = b.unary(UnaryOp::Abs, x);
                    acc = b.binary(BinaryOp::Add, acc, a);
                }
                one(acc)
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "spatial_top" | "spatial_bottom" => match tys.as_slice() {
            [Type::Vec(6, s)] => {
                let start = if name == "spatial_top" { 0 } else { 3 };
                let parts = (start..start + 3)
                    .map(|i| b.extract(args[0], vec![i]))
                    .collect();
                one(b.make(Type::Vec(3, *s), parts))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "spatial_dot" => match tys.as_slice() {
            [Type::Vec(6, s), t2] if s.is_float() && *t2 == tys[0] => {
                prelude_direct(b, c, "dot", args, span)
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "argmin" | "argmax" => match tys.as_slice() {
            [Type::Vec(_, s)] if *s != Scalar::Bool => {
                one(arg_extremum(b, args[0], name == "argmin"))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "lerp" => match tys.as_slice() {
            [ta, tb, Type::Scalar(s)]
                if ta == tb && is_float_num(*ta) && float_of(*ta) == Some(*s) =>
            {
                let t = args[2];
                let one_c = num_const(b, *s, 1.0);
                let omt = b.binary(BinaryOp::Sub, one_c, t);
                let v = map2(b, args[0], args[1], |b, x, y| {
                    let p = b.binary(BinaryOp::Mul, x, omt);
                    let q = b.binary(BinaryOp::Mul, y, t);
                    b.binary(BinaryOp::Add, p, q)
                });
                one(v)
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "mod" | "div" | "floordiv" | "mul" | "add" | "sub" => match args {
            [x, y] => {
                let op = match name {
                    "mod" => ast::Operator::Mod,
                    "div" => ast::Operator::Div,
                    "floordiv" => ast::Operator::FloorDiv,
                    "mul" => ast::Operator::Mult,
                    "add" => ast::Operator::Add,
                    _ => ast::Operator::Sub,
                };
                one(ops::binary(b, c, op, *x, *y, span)?)
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "neg" => match args {
            [x] => one(ops::unary(b, c, ast::UnaryOp::USub, *x, span)?),
            _ => Err(no_overload(b, name, args, span)),
        },
        "where" => match tys.as_slice() {
            [Type::Scalar(cs), ta, tb] if ta == tb && !ta.is_array() && !cs.is_float() => {
                let cond = if *cs == Scalar::Bool {
                    args[0]
                } else {
                    convert(b, args[0], Scalar::Bool)
                };
                one(b.select(cond, args[1], args[2]))
            }
            [Type::Array(_), ta, tb] if ta == tb && !ta.is_array() => {
                // `where(arr, a, b)`: `a` when the array is non-null
                let cond = super::arrays::array_nonnull(b, args[0]);
                one(b.select(cond, args[1], args[2]))
            }
            [Type::Scalar(_), Type::Scalar(_), Type::Scalar(_)] => {
                Err(ops::mismatch(b, "`wp.where`", args[1], args[2], span))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "outer" => match tys.as_slice() {
            [Type::Vec(n, s), Type::Vec(m, s2)] if s == s2 && *s != Scalar::Bool => {
                let xs = components(b, args[0]);
                let ys = components(b, args[1]);
                let mut parts = Vec::new();
                for &x in &xs {
                    for &y in &ys {
                        parts.push(b.binary(BinaryOp::Mul, x, y));
                    }
                }
                one(ops::assemble(b, Type::Mat(*n, *m, *s), parts))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "cw_mul" | "cw_div" => match tys.as_slice() {
            [t, t2] if t == t2 && matches!(t, Type::Vec(..) | Type::Mat(..)) && is_num(*t) => {
                let op = if name == "cw_mul" {
                    BinaryOp::Mul
                } else {
                    BinaryOp::Div
                };
                one(map2(b, args[0], args[1], |b, x, y| b.binary(op, x, y)))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "transpose" => match tys.as_slice() {
            [Type::Mat(r, cc, s)] => {
                let xs = components(b, args[0]);
                let mut parts = Vec::new();
                for j in 0..*cc as usize {
                    for i in 0..*r as usize {
                        parts.push(xs[i * *cc as usize + j]);
                    }
                }
                one(ops::assemble(b, Type::Mat(*cc, *r, *s), parts))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "trace" | "get_diag" => match tys.as_slice() {
            [Type::Mat(r, cc, s)] if r == cc => {
                let d: Vec<Value> = (0..*r as u32)
                    .map(|i| b.extract(args[0], vec![i, i]))
                    .collect();
                if name == "get_diag" {
                    return one(b.make(Type::Vec(*r, *s), d));
                }
                let mut acc = d[0];
                for &x in &d[1..] {
                    acc = b.binary(BinaryOp::Add, acc, x);
                }
                one(acc)
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        // Warp's `r = muladd(a_ij, b_ij, r)` from 0, row by row: a fused
        // multiply-add for float32/float64, `r + a * b` for float16 and ints.
        "ddot" => match tys.as_slice() {
            [Type::Mat(r, cc, s), t] if *t == tys[0] => {
                let mut acc = num_const(b, *s, 0.0);
                for i in 0..*r as u32 {
                    for j in 0..*cc as u32 {
                        let x = b.extract(args[0], vec![i, j]);
                        let y = b.extract(args[1], vec![i, j]);
                        acc = super::ops::muladd(b, *s, x, y, acc);
                    }
                }
                one(acc)
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "diag" => match tys.as_slice() {
            [Type::Vec(n, s)] => {
                let xs = components(b, args[0]);
                let z = num_const(b, *s, 0.0);
                let n = *n as usize;
                let parts = (0..n * n)
                    .map(|k| if k / n == k % n { xs[k / n] } else { z })
                    .collect();
                one(ops::assemble(b, Type::Mat(n as u8, n as u8, *s), parts))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "skew" => match tys.as_slice() {
            [Type::Vec(3, s)] if s.is_float() => {
                let a = components(b, args[0]);
                let z = num_const(b, *s, 0.0);
                let n: Vec<Value> = a.iter().map(|&x| b.unary(UnaryOp::Neg, x)).collect();
                let parts = vec![z, n[2], a[1], a[2], z, n[0], n[1], a[0], z];
                one(ops::assemble(b, Type::Mat(3, 3, *s), parts))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "matrix_from_cols" | "matrix_from_rows" => {
            let ok = match tys.first() {
                Some(t @ Type::Vec(..)) => tys.iter().all(|x| x == t),
                _ => false,
            };
            if !ok || args.len() > 16 {
                return Err(no_overload(b, name, args, span));
            }
            let Type::Vec(n, s) = tys[0] else {
                return Err(no_overload(b, name, args, span));
            };
            if name == "matrix_from_rows" {
                one(b.make(Type::Mat(args.len() as u8, n, s), args.to_vec()))
            } else {
                let cols: Vec<Vec<Value>> = args.iter().map(|&v| components(b, v)).collect();
                let k = args.len();
                let mut parts = Vec::new();
                for i in 0..n as usize {
                    for col in &cols {
                        parts.push(col[i]);
                    }
                }
                one(ops::assemble(b, Type::Mat(n, k as u8, s), parts))
            }
        }
        "identity" => {
            let n = kwarg_or_pos(kwargs, args, "n", 0);
            let dt = kwarg_or_pos(kwargs, args, "dtype", 1);
            let n = n.and_then(|v| const_of(b, v)).map(|c| c.as_i128());
            let s = match dt {
                Some(v) => b.ty(v).as_scalar(),
                None => Some(Scalar::F32),
            };
            match (n, s) {
                (Some(n @ 1..=16), Some(s)) if s.is_float() => {
                    let n = n as usize;
                    let zero = num_const(b, s, 0.0);
                    let onev = num_const(b, s, 1.0);
                    let parts = (0..n * n)
                        .map(|k| if k / n == k % n { onev } else { zero })
                        .collect();
                    one(ops::assemble(b, Type::Mat(n as u8, n as u8, s), parts))
                }
                _ => Err(no_overload(b, name, args, span)
                    .with_help("write e.g. `wp.identity(n=3, dtype=float)`")),
            }
        }
        "quat_identity" | "transform_identity" => {
            let dt = kwarg_or_pos(kwargs, args, "dtype", 0);
            let s = match dt {
                Some(v) => b.ty(v).as_scalar(),
                None => Some(Scalar::F32),
            };
            match s {
                Some(s) if s.is_float() => {
                    let z = num_const(b, s, 0.0);
                    let o = num_const(b, s, 1.0);
                    one(if name == "quat_identity" {
                        b.make(Type::Quat(s), vec![z, z, z, o])
                    } else {
                        b.make(Type::Transform(s), vec![z, z, z, z, z, z, o])
                    })
                }
                _ => Err(no_overload(b, name, args, span)),
            }
        }
        "transform_get_translation" | "transform_get_rotation" => match tys.as_slice() {
            [Type::Transform(_)] => {
                let attr = if name == "transform_get_translation" {
                    "p"
                } else {
                    "q"
                };
                one(super::access::get_attr(b, args[0], attr, span)?)
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "rand_init" => {
            let ok = !args.is_empty() && args.len() <= 2 && tys.iter().all(|t| *t == Type::I32);
            if !ok {
                return Err(no_overload(b, name, args, span));
            }
            let full = format!("{PRELUDE_PREFIX}rand_init");
            c.call_prelude(b, &full, args, span)
        }
        "len" => match tys.as_slice() {
            [Type::Array(_)] => one(b.array_shape(args[0], 0)),
            [t] if is_math_agg(*t) => {
                let n = t.arity(b.structs) as i64;
                one(b.iconst(Scalar::I32, n))
            }
            _ => Err(no_overload(b, name, args, span)),
        },
        "block_dim" if args.is_empty() => one(b.block_dim()),
        "block_dim" => Err(no_overload(b, name, args, span)),
        n if n.starts_with("atomic_") => atomic(b, c, name, args, span),
        "select" => Err(
            Diagnostic::error(span, "`wp.select` was removed in Warp 1.19")
                .with_label("removed builtin")
                .with_help(
                    "use `wp.where(cond, value_if_true, value_if_false)` (note the argument order)",
                ),
        ),
        _ => Err(
            Diagnostic::error(span, format!("`wp.{name}` is not a supported builtin"))
                .with_help("see the language reference (docs/) for the builtins Weft supports"),
        ),
    }
}

fn kwarg_or_pos(
    kwargs: &[(String, Value)],
    args: &[Value],
    name: &str,
    pos: usize,
) -> Option<Value> {
    kwargs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| *v)
        .or_else(|| args.get(pos).copied())
}

/// `sign`, `step`, `nonzero` on one scalar, with Warp's definitions.
fn sign_like(b: &mut FuncBuilder, name: &str, x: Value) -> Value {
    let s = b.ty(x).as_scalar().unwrap_or(Scalar::F32);
    let zero = num_const(b, s, 0.0);
    let onev = num_const(b, s, 1.0);
    match name {
        "sign" => {
            if s.is_unsigned_int() {
                return onev;
            }
            let neg = b.binary(BinaryOp::Lt, x, zero);
            let m1 = num_const(b, s, -1.0);
            b.select(neg, m1, onev)
        }
        "step" => {
            let neg = b.binary(BinaryOp::Lt, x, zero);
            b.select(neg, onev, zero)
        }
        _ => {
            let z = b.binary(BinaryOp::Eq, x, zero);
            b.select(z, zero, onev)
        }
    }
}

/// Index of the smallest (largest) component, skipping NaNs, first on ties;
/// 0 when every component is NaN. `uint32`.
fn arg_extremum(b: &mut FuncBuilder, v: Value, min: bool) -> Value {
    let xs = components(b, v);
    let is_float = b.ty(xs[0]).as_scalar().is_some_and(|s| s.is_float());
    let cmp = if min { BinaryOp::Lt } else { BinaryOp::Gt };
    let mut idx = b.iconst(Scalar::U32, 0);
    let mut best = xs[0];
    let mut found = if is_float {
        let n = b.unary(UnaryOp::IsNan, xs[0]);
        Some(b.unary(UnaryOp::Not, n))
    } else {
        None
    };
    for (i, &x) in xs.iter().enumerate().skip(1) {
        let better = b.binary(cmp, x, best);
        let take = match found {
            Some(f) => {
                // Take x if it is not NaN and nothing was found yet, or if
                // it beats the best (a NaN never compares true).
                let nan = b.unary(UnaryOp::IsNan, x);
                let ok = b.unary(UnaryOp::Not, nan);
                let nf = b.unary(UnaryOp::Not, f);
                let first = b.binary(BinaryOp::And, ok, nf);
                let t = b.binary(BinaryOp::Or, first, better);
                found = Some(b.binary(BinaryOp::Or, f, ok));
                t
            }
            None => better,
        };
        let ic = b.iconst(Scalar::U32, i as i64);
        idx = b.select(take, ic, idx);
        best = b.select(take, x, best);
    }
    idx
}

/// A builtin implemented by a prelude func of the same name.
fn prelude_direct(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    name: &str,
    args: &[Value],
    span: Span,
) -> Result<Vec<Value>, Diagnostic> {
    let tys: Vec<Type> = args.iter().map(|&v| b.ty(v)).collect();
    if let Some(v) = generic_length_vector(b, name, args, &tys) {
        return Ok(vec![v]);
    }
    let f = |t: &Type| float_of(*t);
    let same = tys
        .windows(2)
        .all(|w| f(&w[0]).is_some() && f(&w[0]) == f(&w[1]));
    let ok = same
        && match (name, tys.as_slice()) {
            ("dot", [Type::Vec(n, _), Type::Vec(m, _)]) => n == m && (2..=4).contains(n),
            ("dot", [Type::Quat(_), Type::Quat(_)]) => true,
            ("length" | "length_sq" | "normalize", [Type::Vec(n, _)]) => (2..=4).contains(n),
            ("length" | "length_sq" | "normalize", [Type::Quat(s)]) => s.is_float(),
            ("cross", [Type::Vec(3, _), Type::Vec(3, _)]) => true,
            ("smoothstep", [Type::Scalar(_), Type::Scalar(_), Type::Scalar(_)]) => true,
            ("determinant" | "inverse", [Type::Mat(r, cc, s)]) => {
                r == cc && (2..=4).contains(r) && s.is_float()
            }
            ("quat_inverse" | "quat_to_matrix", [Type::Quat(s)]) => s.is_float(),
            ("quat_rotate" | "quat_rotate_inv", [Type::Quat(_), Type::Vec(3, _)]) => true,
            ("quat_from_matrix", [Type::Mat(r, cc, s)]) => {
                r == cc && (*r == 3 || *r == 4) && s.is_float()
            }
            ("quat_from_axis_angle", [Type::Vec(3, _), Type::Scalar(_)]) => true,
            ("quat_rpy", [Type::Scalar(_), Type::Scalar(_), Type::Scalar(_)]) => true,
            ("quat_slerp", [Type::Quat(_), Type::Quat(_), Type::Scalar(_)]) => true,
            ("transform_point" | "transform_vector", [Type::Transform(_), Type::Vec(3, _)]) => true,
            ("transform_point" | "transform_vector", [Type::Mat(4, 4, s), Type::Vec(3, _)]) => {
                // mul(m, vec4(p, 1 or 0)).xyz, emitted here.
                let w = num_const(b, *s, if name == "transform_point" { 1.0 } else { 0.0 });
                let mut parts = components(b, args[1]);
                parts.push(w);
                let v4 = b.make(Type::Vec(4, *s), parts);
                let r = mat_vec(b, args[0], v4, 4, 4, *s);
                let xyz = (0..3).map(|i| b.extract(r, vec![i])).collect();
                return Ok(vec![b.make(Type::Vec(3, *s), xyz)]);
            }
            ("transform_multiply", [Type::Transform(_), Type::Transform(_)]) => true,
            ("transform_inverse" | "transform_to_matrix", [Type::Transform(_)]) => true,
            ("transform_from_matrix", [Type::Mat(4, 4, _)]) => true,
            ("quat_to_rpy", [Type::Quat(_)]) => true,
            ("spatial_cross" | "spatial_cross_dual", [Type::Vec(6, s), Type::Vec(6, _)]) => {
                *s != Scalar::BF16
            }
            ("velocity_at_point", [Type::Vec(6, s), Type::Vec(3, _)]) => {
                !matches!(s, Scalar::F16 | Scalar::BF16)
            }
            ("transform_twist" | "transform_wrench", [Type::Transform(s), Type::Vec(6, _)]) => {
                !matches!(s, Scalar::F16 | Scalar::BF16)
            }
            _ => false,
        };
    if !ok {
        let mut d = no_overload(b, name, args, span);
        if tys
            .iter()
            .filter_map(|t| t.scalar_of())
            .any(|s| !s.is_float())
        {
            d = d
                .with_help("these builtins take float types (float16, bfloat16, float32, float64)");
        } else if !same && tys.len() > 1 {
            d = d.with_help(concat!(
                "all arguments must have the same float type; ",
                "convert with e.g. `wp.float64(x)` or `wp.vec3d(v)`"
            ));
        }
        return Err(d);
    }
    Ok(vec![prelude1(b, c, name, args, span)?])
}

/// `dot`, `length`, `length_sq`, `normalize` of float vectors whose length
/// has no prelude overload (`wp.types.vector(length=N, ...)`, N not 2..4),
/// emitted directly with Warp's generic formulas: `dot` sums `a[i] * b[i]`
/// in order, `length = sqrt(dot(a, a))`, `normalize(a) = a / length(a)` or
/// zero.
fn generic_length_vector(
    b: &mut FuncBuilder,
    name: &str,
    args: &[Value],
    tys: &[Type],
) -> Option<Value> {
    let (n, s) = match tys.first()? {
        Type::Vec(n, s) if s.is_float() && !(2..=4).contains(n) => (*n, *s),
        _ => return None,
    };
    let dot = |b: &mut FuncBuilder, x: Value, y: Value| {
        let p = map2(b, x, y, |b, p, q| b.binary(BinaryOp::Mul, p, q));
        reduce(b, p, |b, p, q| b.binary(BinaryOp::Add, p, q))
    };
    match (name, tys) {
        ("dot", [_, t2]) if *t2 == tys[0] => Some(dot(b, args[0], args[1])),
        ("length_sq", [_]) => Some(dot(b, args[0], args[0])),
        ("length", [_]) => {
            let d = dot(b, args[0], args[0]);
            Some(b.unary(UnaryOp::Sqrt, d))
        }
        ("normalize", [_]) => {
            let d = dot(b, args[0], args[0]);
            let l = b.unary(UnaryOp::Sqrt, d);
            let zero = num_const(b, s, 0.0);
            let pos = b.binary(BinaryOp::Gt, l, zero);
            let q = map1(b, args[0], |b, x| b.binary(BinaryOp::Div, x, l));
            let z = ops::zero_of(b, Type::Vec(n, s));
            Some(b.select(pos, q, z))
        }
        _ => None,
    }
}

/// Random draws: `[result, new_state]`.
fn rng_draw(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    name: &str,
    args: &[Value],
    span: Span,
) -> Result<Vec<Value>, Diagnostic> {
    let tys: Vec<Type> = args.iter().map(|&v| b.ty(v)).collect();
    let st = Type::U32;
    let ok = match (name, tys.as_slice()) {
        (_, [t]) => *t == st,
        ("randi", [t, lo, hi]) => *t == st && *lo == Type::I32 && *hi == Type::I32,
        ("randu", [t, lo, hi]) => *t == st && *lo == st && *hi == st,
        ("randf", [t, lo, hi]) => *t == st && *lo == Type::F32 && *hi == Type::F32,
        ("poisson", [t, lam]) => *t == st && *lam == Type::F32,
        ("sample_cdf", [t, Type::Array(a)]) => {
            *t == st && a.ndim == 1 && Type::from(a.elem) == Type::F32
        }
        _ => false,
    };
    if !ok {
        return Err(no_overload(b, name, args, span)
            .with_help("the state comes from `wp.rand_init(seed)` and is a `uint32` variable"));
    }
    let full = format!("{PRELUDE_PREFIX}{name}");
    let rs = c.call_prelude(b, &full, args, span)?;
    if rs.len() != 2 {
        return Err(Diagnostic::error(
            span,
            format!("internal error: prelude func `{full}` must return (value, state)"),
        ));
    }
    Ok(rs)
}

/// `atomic_*(arr, i, [j, ...], value)` and `atomic_cas(arr, i, [j, ...],
/// compare, value)`: the old value.
fn atomic(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    name: &str,
    args: &[Value],
    span: Span,
) -> Result<Vec<Value>, Diagnostic> {
    let op = match name {
        "atomic_add" => AtomicOp::Add,
        "atomic_sub" => AtomicOp::Sub,
        "atomic_min" => AtomicOp::Min,
        "atomic_max" => AtomicOp::Max,
        "atomic_and" => AtomicOp::And,
        "atomic_or" => AtomicOp::Or,
        "atomic_xor" => AtomicOp::Xor,
        "atomic_exch" => AtomicOp::Exchange,
        // Checked as an exchange: the same element types, message and list.
        "atomic_cas" => AtomicOp::Exchange,
        _ => {
            return Err(
                Diagnostic::error(span, format!("`wp.{name}` is not a supported builtin"))
                    .with_help(
                        "the atomics are atomic_{add, sub, min, max, and, or, xor, exch, cas}",
                    ),
            )
        }
    };
    let cas = name == "atomic_cas";
    // The operands after the indices: `value`, or `compare, value`.
    let operands = if cas { 2 } else { 1 };
    let (Some(&arr), Some(&val)) = (args.first(), args.last()) else {
        return Err(no_overload(b, name, args, span));
    };
    let Type::Array(at) = b.ty(arr) else {
        return Err(no_overload(b, name, args, span));
    };
    let indices = &args[1..args.len().saturating_sub(operands)];
    if args.len() < 1 + operands || indices.len() != at.ndim as usize {
        let then = if cas {
            "the compare value and the new value"
        } else {
            "the value"
        };
        return Err(no_overload(b, name, args, span).with_help(format!(
            "the array has {} dimension(s): pass {} index(es) and then {then}",
            at.ndim, at.ndim
        )));
    }
    for &i in indices {
        if !b.ty(i).as_scalar().is_some_and(|s| s.is_int()) {
            return Err(no_overload(b, name, args, span).with_help("indices must be integers"));
        }
    }
    let elem = Type::from(at.elem);
    // `compare` first: Warp checks `value` in Python and `compare` when
    // C++ deduces the element type; both must be the element type.
    for (&v, what) in args[1 + indices.len()..].iter().zip(["compare", "value"]) {
        if b.ty(v) != elem {
            let what = if cas { what } else { "value" };
            let en = super::type_name(elem, b.structs);
            let vn = super::type_name(b.ty(v), b.structs);
            let fix = match elem {
                Type::Scalar(es) => ops::literal_help(b, v, es),
                _ => None,
            }
            .unwrap_or_else(|| format!("wp.{en}(...)"));
            return Err(Diagnostic::error(
                span,
                format!("`wp.{name}` on an array of {en} needs a {en} {what}, got {vn}"),
            )
            .with_label(vn)
            .with_help(format!("Warp does not convert the {what}: write `{fix}`")));
        }
    }
    if let Some(help) = atomic_type_error(op, elem) {
        return Err(no_overload(b, name, args, span).with_help(help));
    }
    if let Some(msg) = atomic_call_dtype_error(name, op, elem, b.structs) {
        return Err(Diagnostic::error(span, msg).with_label("unsupported array dtype"));
    }
    if cas && !elem.is_scalar() {
        // Warp's CPU compares and stores the whole element without
        // atomicity; its CUDA code has no such overload.
        return Err(Diagnostic::error(
            span,
            format!(
                "`wp.atomic_cas` on an array of {} is not supported",
                super::type_name(elem, b.structs)
            ),
        )
        .with_label("vector or matrix element")
        .with_help(
            "Warp compiles it for the CPU only, and not atomically; compare-and-swap a scalar array",
        ));
    }
    let m = super::arrays::mem_access(b, arr, indices, &|v| c.known_nonneg(v));
    if cas {
        return Ok(vec![b.atomic_cas(m, args[1 + indices.len()], val)]);
    }
    Ok(vec![b.atomic(op, m, val)])
}

/// Why atomic `op` cannot update a value of type `elem`, if it cannot.
pub(crate) fn atomic_type_error(op: AtomicOp, elem: Type) -> Option<&'static str> {
    let s = elem.scalar_of();
    let valid = (elem.is_scalar() || is_math_agg(elem))
        && match op {
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => s.is_some_and(|s| s.is_int()),
            AtomicOp::Exchange => true,
            _ => s.is_some_and(|s| s != Scalar::Bool),
        };
    (!valid).then_some(match op {
        AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => "bitwise atomics take integer arrays",
        _ => "atomics take arrays of numbers, vectors or matrices",
    })
}

/// Warp's rule for the scalar types of `wp.atomic_*` calls (its
/// `create_atomic_op_value_func`), with Warp's message. `a[i] += v` on the
/// other types is not an atomic in Warp and does not come here.
fn atomic_call_dtype_error(
    name: &str,
    op: AtomicOp,
    elem: Type,
    structs: &weft_ir::StructTable,
) -> Option<String> {
    use Scalar as S;
    let s = elem.scalar_of()?;
    let wide_int = matches!(s, S::I32 | S::U32 | S::I64 | S::U64);
    let (ok, list) = match op {
        AtomicOp::Add | AtomicOp::Sub => (
            wide_int || matches!(s, S::F16 | S::BF16 | S::F32 | S::F64),
            "[u]int32, [u]int64, float16, bfloat16, float32, or float64",
        ),
        AtomicOp::Min | AtomicOp::Max => (
            wide_int || matches!(s, S::BF16 | S::F32 | S::F64),
            "[u]int32, [u]int64, bfloat16, float32, or float64",
        ),
        AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => (wide_int, "[u]int32 or [u]int64"),
        _ => (
            wide_int || matches!(s, S::F32 | S::F64),
            "[u]int32, [u]int64, float32, or float64",
        ),
    };
    (!ok).then(|| {
        format!(
            "{name}() operations only work on arrays with {list} as the underlying scalar types, but got {} (with scalar type {})",
            super::type_name(elem, structs),
            super::type_name(Type::Scalar(s), structs)
        )
    })
}

/// Names (without the prefix) of every prelude func the builtins call.
#[cfg(test)]
pub(crate) fn prelude_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = PRELUDE_DIRECT.to_vec();
    v.extend_from_slice(PRELUDE_TYPED);
    v.extend_from_slice(RNG_DRAWS);
    v.extend(["rand_init", "quat_mul", "transform_multiply"]);
    v
}
