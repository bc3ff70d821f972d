//! Warp's module options in the source: the module-level statement
//! `wp.set_module_options({...})` and the kernel decorator's
//! `@wp.kernel(module_options={...}, module="unique")`.
//!
//! The options are a dict of constant values: a dict literal, `dict(k=v)`,
//! or a module-level name bound to a dict literal. Every key must be one of
//! Warp's module options ([`KNOWN`]; Warp itself rejects unknown keys in
//! `module_options`), every value a compile-time constant. Of them only
//! `fast_math` (it becomes [`weft_ir::Function::fast_math`] of the kernels it
//! covers), `enable_backward` ([`weft_ir::Function::backward`]) and
//! `deterministic` ([`weft_ir::Function::deterministic`]: a bool, `0`–`2`,
//! or a member of `wp.DeterministicMode`; `NOT_GUARANTEED`/`0` is off, both
//! other modes are on, as this compiler's runs are the same on every
//! machine of one vector width) mean something here; the others are
//! accepted and ignored.
//!
//! Which kernels an option covers follows Warp, where options belong to a
//! module and are read when the module is compiled: `set_module_options`
//! sets the options of the file's module, so it covers every kernel of the
//! file whatever the statement's position (the last value of a key wins);
//! a kernel declared with `module=` (another module, e.g. `"unique"`) is not
//! covered and takes its own `module_options` (Warp requires
//! `module="unique"` for those) or Warp's defaults.

use crate::consts::{dotted, CVal, ConstEval};
use crate::diag::{Diagnostic, Span};
use crate::module::ModInfo;
use ruff_python_ast::{self as ast, Expr};
use ruff_text_size::Ranged;
use std::collections::HashMap;

/// Warp's module option names (`warp.set_module_options`, Warp 1.19).
pub(crate) const KNOWN: &[&str] = &[
    "mode",
    "optimization_level",
    "max_unroll",
    "enable_backward",
    "fast_math",
    "fuse_fp",
    "lineinfo",
    "line_directives",
    "cuda_output",
    "block_dim",
    "enable_mathdx_gemm",
    "enable_mathdx_solver",
    "enable_mathdx_fft",
    "cpu_compiler_flags",
    "compile_time_trace",
    "strip_hash",
    "extra_build_options",
    "deterministic",
    "deterministic_max_records",
    "default_grid_stride",
];

/// The options of one dict that matter to this compiler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Options {
    /// `"fast_math"`, when given.
    pub fast_math: Option<bool>,
    /// `"enable_backward"`, when given.
    pub enable_backward: Option<bool>,
    /// `"deterministic"`, when given (any mode but `NOT_GUARANTEED` is on).
    pub deterministic: Option<bool>,
}

impl Options {
    /// Sets what `later` gives (a later `set_module_options` wins per key).
    pub(crate) fn update(&mut self, later: Options) {
        self.fast_math = later.fast_math.or(self.fast_math);
        self.enable_backward = later.enable_backward.or(self.enable_backward);
        self.deterministic = later.deterministic.or(self.deterministic);
    }
}

/// Module-level names bound to dict literals (`OPTIONS = {...}`), as bound
/// at the current statement.
pub(crate) type Dicts<'a> = HashMap<String, &'a ast::ExprDict>;

/// Whether `call` is `wp.set_module_options(...)`.
pub(crate) fn is_set_module_options(m: &ModInfo<'_>, call: &ast::ExprCall) -> bool {
    matches!(dotted(&call.func), Some((w, "set_module_options")) if m.imports.is_wp(w))
}

/// Reads `wp.set_module_options(options[, module=__name__])`; errors go to
/// `diags`.
pub(crate) fn set_module_options(
    m: &ModInfo<'_>,
    dicts: &Dicts<'_>,
    call: &ast::ExprCall,
    diags: &mut Vec<Diagnostic>,
) -> Options {
    let args = &call.arguments.args;
    let mut dict = args.first();
    let mut ok = args.len() <= 2;
    // `module`: the second positional argument or a keyword.
    let modules = args.get(1).into_iter().map(|a| (Some("module"), a));
    let keywords = call
        .arguments
        .keywords
        .iter()
        .map(|kw| (kw.arg.as_ref().map(|a| a.id.as_str()), &kw.value));
    for (arg, value) in modules.chain(keywords) {
        match arg {
            Some("options") if dict.is_none() => dict = Some(value),
            Some("module") if is_own_module(value) => {}
            Some("module") => {
                diags.push(
                    Diagnostic::error(value.range(), "options of another module")
                        .with_label("not this file's module")
                        .with_help(
                            "this compiler reads the options of the file's own module: \
                             leave out `module=` (or pass `module=__name__`)",
                        ),
                );
                return Options::default();
            }
            _ => ok = false,
        }
    }
    match dict {
        Some(d) if ok => read(m, dicts, d, diags),
        _ => {
            diags.push(
                Diagnostic::error(call.range(), "unsupported `wp.set_module_options` call")
                    .with_label("expected one dict of options")
                    .with_help("write e.g. `wp.set_module_options({\"fast_math\": True})`"),
            );
            Options::default()
        }
    }
}

/// `__name__`: the module the statement is in.
fn is_own_module(e: &Expr) -> bool {
    matches!(e, Expr::Name(n) if n.id.as_str() == "__name__")
}

/// The options of a `@wp.kernel(...)` decorator: `None` when the kernel is
/// in the file's module (it takes the file's options), else the options of
/// its own module (`module="unique"` and its `module_options`, or another
/// module, whose options are Warp's defaults here). Errors go to `diags`.
pub(crate) fn kernel_options(
    m: &ModInfo<'_>,
    dicts: &Dicts<'_>,
    decorator: &Expr,
    diags: &mut Vec<Diagnostic>,
) -> Option<Options> {
    let Expr::Call(call) = decorator else {
        return None;
    };
    let mut module = None;
    let mut options = None;
    for kw in call.arguments.keywords.iter() {
        match kw.arg.as_ref().map(|a| a.id.as_str()) {
            Some("module") => module = Some(&kw.value),
            Some("module_options") => options = Some(&kw.value),
            _ => {}
        }
    }
    let unique = matches!(module, Some(Expr::StringLiteral(s)) if s.value.to_str() == "unique");
    let own = module.is_none_or(is_own_module);
    match options {
        // Warp: `module_options=None` is no options.
        Some(Expr::NoneLiteral(_)) | None if own => None,
        Some(Expr::NoneLiteral(_)) | None => Some(Options::default()),
        Some(o) if unique => Some(read(m, dicts, o, diags)),
        Some(o) => {
            let d = Diagnostic::error(o.range(), "`module_options` without `module=\"unique\"`")
                .with_label("needs a unique module")
                .with_help(
                    "module options apply to a whole module: add `module=\"unique\"` to give \
                     the kernel its own (as Warp requires), or use `wp.set_module_options` \
                     for the file",
                );
            diags.push(match module {
                Some(mo) => d.with_secondary(mo.range(), "another module"),
                None => d,
            });
            None
        }
    }
}

/// A bool keyword of a `@wp.kernel(...)` decorator (`enable_backward=False`),
/// if given; a value that is not a constant bool is an error in `diags`.
pub(crate) fn kernel_flag(
    m: &ModInfo<'_>,
    decorator: &Expr,
    name: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<bool> {
    let Expr::Call(call) = decorator else {
        return None;
    };
    let kw = call
        .arguments
        .keywords
        .iter()
        .find(|kw| kw.arg.as_ref().is_some_and(|a| a.id.as_str() == name))?;
    let ev = ConstEval {
        imports: &m.imports,
        consts: &m.consts,
    };
    match (&kw.value, ev.eval(&kw.value)) {
        // Warp: `None` is the module's setting.
        (Expr::NoneLiteral(_), _) => None,
        (_, Ok(CVal::Bool(b))) => Some(b),
        _ => {
            diags.push(
                Diagnostic::error(
                    kw.value.range(),
                    format!("`{name}` must be `True` or `False`"),
                )
                .with_label("not a bool"),
            );
            None
        }
    }
}

/// The items of an options dict: `{...}`, `dict(k=v, ...)`, or a module-level
/// name bound to a dict literal.
fn items<'e>(dicts: &Dicts<'e>, e: &'e Expr) -> Option<Vec<(Option<&'e Expr>, Span, &'e Expr)>> {
    match e {
        Expr::Dict(d) => Some(dict_items(d)),
        Expr::Name(n) => dicts.get(n.id.as_str()).map(|d| dict_items(d)),
        Expr::Call(c)
            if matches!(&*c.func, Expr::Name(f) if f.id.as_str() == "dict")
                && c.arguments.args.is_empty() =>
        {
            Some(
                c.arguments
                    .keywords
                    .iter()
                    .map(|kw| (None, kw.range(), &kw.value))
                    .collect(),
            )
        }
        _ => None,
    }
}

fn dict_items(d: &ast::ExprDict) -> Vec<(Option<&Expr>, Span, &Expr)> {
    d.items
        .iter()
        .map(|it| {
            let span = it.key.as_ref().map_or(it.value.range(), |k| k.range());
            (it.key.as_ref(), span, &it.value)
        })
        .collect()
}

/// Reads an options dict (see the module docs).
fn read(m: &ModInfo<'_>, dicts: &Dicts<'_>, e: &Expr, diags: &mut Vec<Diagnostic>) -> Options {
    let mut out = Options::default();
    let Some(items) = items(dicts, e) else {
        diags.push(
            Diagnostic::error(e.range(), "module options must be a dict literal")
                .with_label("not a dict of constants")
                .with_help("write e.g. `{\"fast_math\": True}`"),
        );
        return out;
    };
    let keyword_names: Vec<Option<&str>> = match e {
        Expr::Call(c) => c
            .arguments
            .keywords
            .iter()
            .map(|kw| kw.arg.as_ref().map(|a| a.id.as_str()))
            .collect(),
        _ => Vec::new(),
    };
    for (i, (key, span, value)) in items.into_iter().enumerate() {
        let name = match key {
            Some(Expr::StringLiteral(s)) => Some(s.value.to_str()),
            Some(_) => None,
            // `dict(k=v)`: the keyword; `{**other}`: none.
            None => keyword_names.get(i).copied().flatten(),
        };
        let Some(name) = name else {
            diags.push(
                Diagnostic::error(span, "module option names must be string literals")
                    .with_label("not a string literal"),
            );
            continue;
        };
        if !KNOWN.contains(&name) {
            diags.push(
                Diagnostic::error(span, format!("unknown module option `{name}`"))
                    .with_label("not a Warp module option")
                    .with_help(format!("Warp's module options are {}", KNOWN.join(", "))),
            );
            continue;
        }
        let ev = ConstEval {
            imports: &m.imports,
            consts: &m.consts,
        };
        // `wp.DeterministicMode.RUN_TO_RUN` and the other members of
        // Warp's enum (an int enum: 0, 1, 2).
        let mode = match value {
            Expr::Attribute(a) if matches!(crate::consts::dotted(&a.value), Some((w, "DeterministicMode")) if m.imports.is_wp(w)) => {
                match a.attr.id.as_str() {
                    "NOT_GUARANTEED" => Some(false),
                    "RUN_TO_RUN" | "GPU_TO_GPU" => Some(true),
                    _ => None,
                }
            }
            _ => None,
        };
        if name == "deterministic" {
            if let Some(on) = mode {
                out.deterministic = Some(on);
                continue;
            }
        }
        let v = match value {
            Expr::StringLiteral(_) | Expr::NoneLiteral(_) => None,
            other => match ev.eval(other) {
                Ok(v) => Some(v),
                Err(_) => {
                    diags.push(
                        Diagnostic::error(
                            other.range(),
                            format!("the value of module option `{name}` is not a constant"),
                        )
                        .with_label("not a compile-time constant")
                        .with_help(
                            "module options are read at compile time: use a literal \
                             or a module-level constant",
                        ),
                    );
                    continue;
                }
            },
        };
        let slot = match name {
            "fast_math" => &mut out.fast_math,
            "enable_backward" => &mut out.enable_backward,
            "deterministic" => &mut out.deterministic,
            _ => continue,
        };
        match v {
            Some(CVal::Bool(b)) => *slot = Some(b),
            Some(CVal::Int(n)) if name == "deterministic" && (0..=2).contains(&n) => {
                *slot = Some(n != 0)
            }
            _ if name == "deterministic" => diags.push(
                Diagnostic::error(
                    value.range(),
                    "`deterministic` must be a `wp.DeterministicMode`, a bool, or 0, 1 or 2",
                )
                .with_label("not a deterministic mode"),
            ),
            _ => diags.push(
                Diagnostic::error(value.range(), format!("`{name}` must be `True` or `False`"))
                    .with_label("not a bool"),
            ),
        }
    }
    out
}
