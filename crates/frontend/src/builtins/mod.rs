//! Value-level semantics of the kernel language: operators, builtin calls,
//! type constructors and component access on vectors/matrices/quats/
//! transforms/structs. Builtins that are plain arithmetic are written in
//! the kernel language in `prelude.py` and called through [`FuncCaller`].
//!
//! (Skeleton: filled in by its owner. Every entry point returns a
//! diagnostic until then.)

use crate::diag::{Diagnostic, Span};
use ruff_python_ast as ast;
use weft_ir::{FuncBuilder, Type, Value};

/// Implemented by the function lowerer: calls a func of the prelude with
/// overload resolution on the argument types, emitting an IR `call`.
pub(crate) trait FuncCaller {
    fn call_prelude(
        &mut self,
        b: &mut FuncBuilder,
        name: &str,
        args: &[Value],
        span: Span,
    ) -> Result<Vec<Value>, Diagnostic>;
}

/// The prelude's source text (kernel language), compiled by the frontend
/// like a user module whose funcs are available to builtins.
pub(crate) fn prelude_source() -> &'static str {
    "import warp as wp\n"
}

/// Whether `name` (without the `wp.` prefix) is a builtin function.
pub(crate) fn is_builtin(_name: &str) -> bool {
    false
}

/// Lowers a call of builtin `name` (without `wp.`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn call_builtin(
    _b: &mut FuncBuilder,
    _c: &mut dyn FuncCaller,
    name: &str,
    _args: &[Value],
    _kwargs: &[(String, Value)],
    span: Span,
) -> Result<Vec<Value>, Diagnostic> {
    Err(Diagnostic::error(span, format!("builtin `{name}` is not supported")))
}

/// Lowers a type constructor call: `wp.vec3(...)`, `wp.float64(x)`,
/// `int(x)`, `wp.mat33(...)`, `wp.quat(...)`, `wp.transform(p, q)`.
pub(crate) fn construct(
    _b: &mut FuncBuilder,
    _c: &mut dyn FuncCaller,
    _ty: Type,
    _args: &[Value],
    _kwargs: &[(String, Value)],
    span: Span,
) -> Result<Value, Diagnostic> {
    Err(Diagnostic::error(span, "type construction is not supported yet"))
}

pub(crate) fn binary(
    _b: &mut FuncBuilder,
    _c: &mut dyn FuncCaller,
    _op: ast::Operator,
    _lhs: Value,
    _rhs: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    Err(Diagnostic::error(span, "operator not supported yet"))
}

pub(crate) fn unary(
    _b: &mut FuncBuilder,
    _c: &mut dyn FuncCaller,
    _op: ast::UnaryOp,
    _x: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    Err(Diagnostic::error(span, "operator not supported yet"))
}

pub(crate) fn compare(
    _b: &mut FuncBuilder,
    _c: &mut dyn FuncCaller,
    _op: ast::CmpOp,
    _lhs: Value,
    _rhs: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    Err(Diagnostic::error(span, "comparison not supported yet"))
}

/// `agg.name` (vector `.x/.y/.z/.w`, struct fields, transform `.p`/`.q`).
pub(crate) fn get_attr(
    _b: &mut FuncBuilder,
    _agg: Value,
    name: &str,
    span: Span,
) -> Result<Value, Diagnostic> {
    Err(Diagnostic::error(span, format!("no attribute `{name}`")))
}

/// Returns `agg` with `agg.name = v`.
pub(crate) fn set_attr(
    _b: &mut FuncBuilder,
    _agg: Value,
    name: &str,
    _v: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    Err(Diagnostic::error(span, format!("no attribute `{name}`")))
}

/// `agg[i]` or `agg[i, j]` (indices constant or dynamic).
pub(crate) fn get_index(
    _b: &mut FuncBuilder,
    _agg: Value,
    _index: &[Value],
    span: Span,
) -> Result<Value, Diagnostic> {
    Err(Diagnostic::error(span, "indexing not supported yet"))
}

/// Returns `agg` with `agg[index] = v`.
pub(crate) fn set_index(
    _b: &mut FuncBuilder,
    _agg: Value,
    _index: &[Value],
    _v: Value,
    span: Span,
) -> Result<Value, Diagnostic> {
    Err(Diagnostic::error(span, "indexed assignment not supported yet"))
}
