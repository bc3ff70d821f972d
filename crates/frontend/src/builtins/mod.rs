//! Value-level semantics of the kernel language: operators, builtin calls,
//! type constructors and component access on vectors/matrices/quats/
//! transforms/structs, with Warp 1.19's typing rules.
//!
//! # Data model
//!
//! Every entry point receives IR [`Value`]s that the function lowerer has
//! already emitted and appends instructions through a [`FuncBuilder`]. Two
//! kinds of code are produced:
//!
//! * *primitive* operations emitted directly here (`Unary`, `Binary`,
//!   `Cast`, `Select`, `Make`, `Extract`, `Insert`, `Atomic`, `Fma`):
//!   scalar arithmetic, elementwise vector/matrix arithmetic, products that
//!   are generic in shape (matrix × vector, matrix × matrix, outer),
//!   component access and constructors;
//! * calls of `@wp.func`s of the *prelude* ([`prelude_source`]), a module in
//!   the kernel language holding every builtin with a formula (dot, cross,
//!   normalize, inverse, quaternion/transform algebra, random numbers, ...).
//!   Those are emitted through [`FuncCaller::call_prelude`], which the
//!   lowerer implements with its ordinary overload resolution.
//!
//! Operand types must match exactly (Warp never widens implicitly), and every
//! type error is a [`Diagnostic`] that names the operation, the types given
//! and what to write instead (`calls::signatures` lists every builtin's
//! overloads for those messages).
//!
//! # Where each builtin lives
//!
//! * `ops`: operators. Integer `/` truncates, `//` floors (emitted as
//!   quotient, remainder and a sign fix-up), `%` is the C remainder; float
//!   `//` is `floor(a / b)` and `%` is `fmod`; `**` is float-only. Matrix
//!   products follow Warp's evaluation order (`m * v` sums columns, `m * m`
//!   accumulates with `fma` from zero). `q * q` and `t * t` call the prelude.
//! * `construct`: scalar conversions (folded for constants), vectors,
//!   matrices (row-major scalars; vectors are rejected as in Warp 1.19),
//!   quaternions, transforms, spatial vectors, structs.
//! * `access`: components, with `Select` chains for runtime indices.
//! * `calls`: elementwise math (`sin` ... `erfinv`, `abs`, `sign`, `step`,
//!   `min`/`max`, `clamp`, `lerp`, `degrees` ...), `where`, `argmin`/`argmax`,
//!   matrix shaping (`transpose`, `outer`, `diag`, `skew`, `identity`,
//!   `matrix_from_rows`/`cols`), atomics, and dispatch to the prelude for
//!   `dot cross length length_sq normalize smoothstep determinant inverse`,
//!   the `quat_*`/`transform_*`/`spatial_*` algebra and the random
//!   generator.
//! * `prelude` + `prelude.py`: the prelude template; `# @float` blocks are
//!   instantiated per float type (`$F`, `$V3`, `$M33`, `$Q`, `$T`, `$S`
//!   placeholders), so one definition serves float16/32/64.

mod access;
mod arrays;
mod calls;
mod construct;
mod ops;
mod prelude;

#[cfg(test)]
mod tests;

use crate::diag::{Diagnostic, Span};
use ruff_python_ast as ast;
use weft_ir::{Const, FuncBuilder, InstKind, Scalar, StructTable, Type, Value, ValueDef};

pub(crate) use arrays::{array_nonnull, known_nonneg, mem_access};
pub(crate) use calls::{
    advances_rng_state, atomic_type_error, is_builtin, out_args, sets_first_arg,
};
pub(crate) use ops::components;
pub(crate) use prelude::{prelude_source, PRELUDE_PREFIX};

/// Implemented by the function lowerer: calls a func of the prelude with
/// overload resolution on the argument types, emitting an IR `call`.
///
/// Naming: every func of the prelude is named `__weft_<name>` (see
/// [`PRELUDE_PREFIX`]); `name` is that full name. User code cannot define
/// or call names starting with `__weft_` (the lowerer should reject them), so
/// prelude funcs never collide with user funcs. Several prelude funcs share
/// a name and differ by parameter annotation (one per float type and vector
/// length): resolution picks the one whose annotations equal the argument
/// types exactly. The result is the func's return values (one value, or the
/// elements of a returned tuple in order).
pub(crate) trait FuncCaller {
    /// Whether the lowerer knows `v` to be non-negative (a `range` loop's
    /// counter that counts up from a non-negative start): array indices
    /// that are need no wrap for negative values (see `arrays`).
    fn known_nonneg(&self, _v: Value) -> bool {
        false
    }

    /// The Python value of a float literal `v` was lowered from (a float32
    /// constant), if it was: constructors of float64/float16 values take
    /// it instead of the rounded float32.
    fn float_literal(&self, _v: Value) -> Option<f64> {
        None
    }

    fn call_prelude(
        &mut self,
        b: &mut FuncBuilder,
        name: &str,
        args: &[Value],
        span: Span,
    ) -> Result<Vec<Value>, Diagnostic>;
}

/// Lowers a call of builtin `name` (without `wp.`); see [`is_builtin`] for
/// the names.
///
/// Conventions with the lowerer:
///
/// * The result is one value, except:
///   - **random draws** (`randi randu randf randn sample_*`, see
///     [`advances_rng_state`]) return `[result, new_state]`: Warp takes the
///     state by reference, so the lowerer must assign `new_state` back to the
///     variable (or struct field) passed as the first argument;
///   - `atomic_*` return `[old_value]` (the lowerer may ignore it).
/// * Type-valued keyword arguments (`wp.identity(n=3, dtype=float)`) are
///   passed as a constant zero of that scalar type (e.g. an `f32` `Const`);
///   integer arguments that must be compile-time constants (`n=3`) are passed
///   as `Const` instructions.
/// * `atomic_*(arr, i, [j, ...], value)` receive the array handle, the index
///   values and the value, exactly as written.
/// * Bare Python names `min`, `max`, `abs`, `round`, `len`, `pow` resolve to
///   the builtins of the same name.
pub(crate) fn call_builtin(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    name: &str,
    args: &[Value],
    kwargs: &[(String, Value)],
    span: Span,
) -> Result<Vec<Value>, Diagnostic> {
    calls::call_builtin(b, c, name, args, kwargs, span)
}

/// Lowers a type constructor call: `wp.vec3(...)`, `wp.float64(x)`,
/// `int(x)`, `wp.mat33(...)`, `wp.quat(...)`, `wp.transform(p, q)`, and a
/// struct `S(...)` (positional or keyword fields, missing fields zero).
///
/// Scalar conversions of a literal (`wp.float64(1.0e300)`,
/// `wp.uint64(0xBF58...)`) are folded by the lowerer from the literal's exact
/// value. Other `Const` arguments are folded here; an `f32` constant
/// converted to a wider float is taken as the literal it came from, as Warp
/// does (`wp.vec3d(0.1, 0.2, 0.3)` and `x = 0.1; wp.float64(x)` give the
/// doubles nearest 0.1, 0.2, 0.3), while a computed `f32` value widens
/// exactly.
pub(crate) fn construct(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    ty: Type,
    args: &[Value],
    kwargs: &[(String, Value)],
    span: Span,
) -> Result<Value, Diagnostic> {
    construct::construct(b, c, ty, args, kwargs, span)
}

/// `lhs op rhs` for the arithmetic and bitwise operators.
pub(crate) fn binary(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    op: ast::Operator,
    lhs: Value,
    rhs: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    ops::binary(b, c, op, lhs, rhs, span)
}

/// `-x`, `+x`, `~x`, `not x`.
pub(crate) fn unary(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    op: ast::UnaryOp,
    x: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    ops::unary(b, c, op, x, span)
}

/// One comparison `lhs op rhs` (chains are split by the lowerer); `bool`.
pub(crate) fn compare(
    b: &mut FuncBuilder,
    c: &mut dyn FuncCaller,
    op: ast::CmpOp,
    lhs: Value,
    rhs: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    ops::compare(b, c, op, lhs, rhs, span)
}

/// `agg.name` (vector `.x/.y/.z/.w`, struct fields, transform `.p`/`.q`).
pub(crate) fn get_attr(
    b: &mut FuncBuilder,
    agg: Value,
    name: &str,
    span: Span,
) -> Result<Value, Diagnostic> {
    access::get_attr(b, agg, name, span)
}

/// Returns `agg` with `agg.name = v`.
pub(crate) fn set_attr(
    b: &mut FuncBuilder,
    agg: Value,
    name: &str,
    v: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    access::set_attr(b, agg, name, v, span)
}

/// `agg[i]` or `agg[i, j]` (indices constant or dynamic).
pub(crate) fn get_index(
    b: &mut FuncBuilder,
    agg: Value,
    index: &[Value],
    span: Span,
) -> Result<Value, Diagnostic> {
    access::get_index(b, agg, index, span)
}

/// Returns `agg` with `agg[index] = v`.
pub(crate) fn set_index(
    b: &mut FuncBuilder,
    agg: Value,
    index: &[Value],
    v: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    access::set_index(b, agg, index, v, span)
}

// ---------------------------------------------------------------------------
// Helpers shared by the submodules.

/// Warp's spelling of a type, for messages: `float32`, `vec3`, `vec3d`,
/// `mat33`, `quat`, `transformd`, `array(dtype=vec3, ndim=2)`, a struct's
/// name.
pub(crate) fn type_name(t: Type, structs: &StructTable) -> String {
    fn suffix(s: Scalar) -> Option<&'static str> {
        Some(match s {
            Scalar::F32 => "",
            Scalar::F64 => "d",
            Scalar::F16 => "h",
            _ => return None,
        })
    }
    fn int_vec_suffix(s: Scalar) -> Option<&'static str> {
        Some(match s {
            Scalar::I32 => "i",
            Scalar::U32 => "ui",
            Scalar::I64 => "l",
            Scalar::U64 => "ul",
            Scalar::I16 => "s",
            Scalar::U16 => "us",
            Scalar::I8 => "b",
            Scalar::U8 => "ub",
            _ => return None,
        })
    }
    match t {
        Type::Scalar(s) => s.warp_name().to_string(),
        Type::Vec(n, s) if (2..=4).contains(&n) => match suffix(s).or_else(|| int_vec_suffix(s)) {
            Some(x) => format!("vec{n}{x}"),
            None => format!("vector(length={n}, dtype={})", s.warp_name()),
        },
        Type::Vec(n, s) => format!("vector(length={n}, dtype={})", s.warp_name()),
        Type::Mat(r, c, s) if (2..=4).contains(&r) && r == c && suffix(s).is_some() => {
            format!("mat{r}{c}{}", suffix(s).unwrap_or_default())
        }
        Type::Mat(r, c, s) => format!("matrix(shape=({r}, {c}), dtype={})", s.warp_name()),
        Type::Quat(s) => match suffix(s) {
            Some(x) => format!("quat{x}"),
            None => format!("quaternion(dtype={})", s.warp_name()),
        },
        Type::Transform(s) => match suffix(s) {
            Some(x) => format!("transform{x}"),
            None => format!("transformation(dtype={})", s.warp_name()),
        },
        Type::Struct(id) => structs
            .get(id)
            .map_or_else(|| "struct".to_string(), |d| d.name.clone()),
        Type::Array(a) => format!(
            "array(dtype={}, ndim={})",
            type_name(Type::from(a.elem), structs),
            a.ndim
        ),
    }
}

/// The types of `vs`, comma separated, for messages.
pub(crate) fn type_list(b: &FuncBuilder, vs: &[Value]) -> String {
    vs.iter()
        .map(|&v| type_name(b.ty(v), b.structs))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The constant a value was defined by, if it is the result of a `Const`.
pub(crate) fn const_of(b: &FuncBuilder, v: Value) -> Option<Const> {
    match b.func.values[v].def {
        ValueDef::Result(inst, 0) => match b.func.insts[inst].kind {
            InstKind::Const(c) => Some(c),
            _ => None,
        },
        _ => None,
    }
}

/// `t` with its component scalar replaced by `s` (vectors, matrices, quats,
/// transforms and scalars).
pub(crate) fn with_scalar(t: Type, s: Scalar) -> Type {
    match t {
        Type::Scalar(_) => Type::Scalar(s),
        Type::Vec(n, _) => Type::Vec(n, s),
        Type::Mat(r, c, _) => Type::Mat(r, c, s),
        Type::Quat(_) => Type::Quat(s),
        Type::Transform(_) => Type::Transform(s),
        other => other,
    }
}
