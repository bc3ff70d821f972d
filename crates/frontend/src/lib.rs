//! # weft-frontend — Warp kernel source to Weft IR
//!
//! [`compile`] turns a Warp module (`@wp.kernel`, `@wp.func`, `@wp.struct`,
//! `wp.constant`) into one [`weft_ir::Module`]:
//!
//! 1. parse with `ruff_python_parser` (a syntax error is one diagnostic);
//! 2. collect module-level declarations (`module.rs`): imports, constants
//!    (evaluated at compile time by `consts.rs`), structs (added to the IR
//!    module's struct table), func overloads and kernels, and Warp's module
//!    options (`wp.set_module_options`, `@wp.kernel(module_options=...)`,
//!    `options.rs`); other module-level code is host code and is not
//!    compiled;
//! 3. lower every kernel (`lower.rs`); funcs — the user's and the prelude's
//!    (builtins written in the kernel language, split once per process and
//!    parsed func by func on first call, `lazy_prelude.rs`) — are lowered on
//!    first call, one IR function per overload.
//!
//! Value-level semantics (operators, builtins, constructors, components)
//! live in `builtins`. Every error is a [`Diagnostic`] pointing into the
//! source; [`Diagnostics::render`] prints them rustc-style. The crate's
//! README lists the language decisions.

mod builtins;
mod consts;
pub mod diag;
mod lazy_prelude;
mod lower;
mod module;
mod options;
mod typenames;

pub use diag::{Diagnostic, Diagnostics, Span};

use ruff_text_size::TextRange;
use weft_ir::{Module, StructTable};

/// The file name of the prelude in [`Module::files`].
pub const PRELUDE_FILE: &str = "<prelude>";

/// Compiles a Warp module to IR: every kernel of the file and every func
/// they call.
pub fn compile(file_name: &str, source: &str) -> Result<Module, Diagnostics> {
    compile_module(file_name, source, false)
}

/// [`compile`], with the custom gradients and replays (`@wp.func_grad`,
/// `@wp.func_replay`) of the funcs it lowers, recorded on them
/// ([`weft_ir::Function::custom_adjoint`]): the input of the adjoint pass.
/// (A forward compile leaves them out: nothing runs them.)
pub fn compile_for_backward(file_name: &str, source: &str) -> Result<Module, Diagnostics> {
    compile_module(file_name, source, true)
}

fn compile_module(file_name: &str, source: &str, custom: bool) -> Result<Module, Diagnostics> {
    let fail = |items: Vec<Diagnostic>| Diagnostics {
        file_name: file_name.to_string(),
        source: source.to_string(),
        items: items.into_iter().filter(|d| !d.is_reported()).collect(),
    };
    let parsed = match ruff_python_parser::parse_module(source) {
        Ok(p) => p,
        Err(e) => {
            let d = Diagnostic::error(e.location, format!("syntax error: {}", e.error))
                .with_label("here");
            return Err(fail(vec![d]));
        }
    };
    let user_ast = parsed.syntax();
    let mut structs = StructTable::new();
    let mut diags = Vec::new();
    let user = module::collect(0, source, &user_ast.body, &mut structs, &mut diags);
    if user.imports.wp.is_empty() {
        diags.push(
            Diagnostic::error(TextRange::default(), "the module does not import warp")
                .with_label("expected `import warp as wp` here")
                .with_help("start the file with `import warp as wp`"),
        );
    }
    // The prelude: split once per process, its funcs parsed on first call.
    let index = lazy_prelude::PreludeIndex::get();
    let mut prelude_diags = Vec::new();
    let mut prelude = module::collect(1, index.src, &index.eager, &mut structs, &mut prelude_diags);
    prelude.set_lazy(index);
    let prelude = Some(prelude);
    if !diags.is_empty() {
        return Err(fail(diags));
    }
    let mods = lower::Mods {
        user: &user,
        prelude: prelude.as_ref(),
    };
    let mut ctx = lower::Ctx::default();
    ctx.custom = custom;
    ctx.file_name = file_name.to_string();
    for k in &user.kernels {
        if let Err(ds) = lower::lower_kernel(&mut ctx, &structs, mods, k) {
            ctx.diags.extend(ds);
        }
    }
    if !ctx.diags.is_empty() {
        let mut items = ctx.diags;
        items.retain(|d| !d.is_reported());
        items.sort_by_key(|d| d.span.start());
        items.dedup();
        return Err(fail(items));
    }
    let mut m = Module::new();
    m.structs = structs;
    m.files = vec![file_name.to_string(), PRELUDE_FILE.to_string()];
    for f in ctx.funcs.into_iter().flatten() {
        m.funcs.push(f);
    }
    Ok(m)
}
