//! Module-level collection: imports, `wp.constant`s, `@wp.struct` classes,
//! `@wp.func` overloads and `@wp.kernel`s of one source file (the user's
//! file or the prelude), and annotation → type resolution.

use crate::consts::{dotted, CVal, ConstEval, Imports};
use crate::diag::{Diagnostic, Span};
use crate::lazy_prelude::PreludeIndex;
use crate::typenames;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use weft_ir::{ArrayType, Field, Loc, StructDef, StructId, StructTable, Type};

/// Byte offsets of line starts, for `Loc`s.
pub(crate) struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    pub(crate) fn new(src: &str) -> LineIndex {
        let mut starts = vec![0u32];
        starts.extend(
            src.bytes()
                .enumerate()
                .filter(|&(_, c)| c == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        LineIndex { starts }
    }
    /// 1-based line and (character) column of a byte offset.
    pub(crate) fn line_col(&self, src: &str, off: u32) -> (u32, u32) {
        let line = self.starts.partition_point(|&s| s <= off).max(1);
        let start = self.starts[line - 1] as usize;
        let end = (off as usize).min(src.len()).max(start);
        let col = src
            .get(start..end)
            .map_or(end - start, |s| s.chars().count());
        (line as u32, col as u32 + 1)
    }
}

/// Instance-cache indices of lazily parsed funcs start here (eagerly
/// collected funcs are numbered from 0).
const LAZY_INDEX_BASE: usize = 1 << 20;

/// The declared type of a func parameter. Generic parameters take the type
/// of their argument (one instance per list of argument types).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum ParamTy {
    Type(Type),
    /// `Any`
    Any,
    /// `wp.array(dtype=Any, ndim=N)`: any array of N dimensions.
    AnyArray(u8),
}

impl ParamTy {
    pub(crate) fn is_generic(self) -> bool {
        !matches!(self, ParamTy::Type(_))
    }
    /// Whether an argument of type `t` fits.
    pub(crate) fn accepts(self, t: Type) -> bool {
        match self {
            ParamTy::Type(p) => p == t,
            ParamTy::Any => true,
            ParamTy::AnyArray(n) => matches!(t, Type::Array(a) if a.ndim == n),
        }
    }
}

/// One `@wp.func` definition (an overload).
#[derive(Clone)]
pub(crate) struct FuncDef<'a> {
    pub def: &'a ast::StmtFunctionDef,
    /// Index among all func defs of the file (instance cache key).
    pub index: usize,
    /// Parameter names and types.
    pub params: Vec<(String, ParamTy)>,
    /// Declared return types (`-> T` or `-> tuple[...]`), if annotated.
    pub returns: Option<Vec<Type>>,
}

/// Everything declared at the top level of one file.
pub(crate) struct ModInfo<'a> {
    pub file: u32,
    pub src: &'a str,
    pub lines: LineIndex,
    pub imports: Imports,
    pub consts: HashMap<String, CVal>,
    pub structs: HashMap<String, StructId>,
    /// `@wp.func` overloads by name (see [`ModInfo::func_defs`]).
    funcs: HashMap<String, Rc<[FuncDef<'a>]>>,
    /// For the prelude: funcs parsed and resolved on first use.
    lazy: Option<&'static PreludeIndex>,
    lazy_cache: RefCell<HashMap<String, Option<Rc<[FuncDef<'a>]>>>>,
    pub kernels: Vec<&'a ast::StmtFunctionDef>,
    /// Undecorated Python functions (not callable from kernels).
    pub py_funcs: HashMap<String, Span>,
    /// Undecorated classes (not usable in kernels).
    pub py_classes: HashMap<String, Span>,
    /// Type aliases: `vec5 = wp.types.vector(length=5, dtype=float)`,
    /// `Real = wp.float64`.
    pub type_aliases: HashMap<String, Type>,
    /// Other module-level names (host code): where they are bound and what
    /// they are, for diagnostics when a kernel uses them.
    pub host: HashMap<String, (Span, HostKind)>,
    /// The file's module options (`wp.set_module_options`, the last value
    /// of each key).
    pub options: crate::options::Options,
    /// Kernels in a module of their own (`@wp.kernel(module="unique")`):
    /// that module's options, which replace the file's.
    pub kernel_options: HashMap<String, crate::options::Options>,
    /// `@wp.func_grad(f)` and `@wp.func_replay(f)` definitions, by kind and
    /// the name of `f` (in the prelude: found by name, see
    /// [`ModInfo::custom_defs`]).
    custom: HashMap<(Custom, String), Vec<FuncDef<'a>>>,
    /// `@wp.kernel(enable_backward=...)` of each kernel that has it.
    kernel_backward: HashMap<String, bool>,
}

/// What a `@wp.func_grad` or `@wp.func_replay` definition replaces.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Custom {
    /// `@wp.func_grad(f)`: the adjoint of `f`.
    Grad,
    /// `@wp.func_replay(f)`: `f` when a backward function replays it.
    Replay,
}

impl Custom {
    /// The decorator's name.
    pub(crate) fn decorator(self) -> &'static str {
        match self {
            Custom::Grad => "wp.func_grad",
            Custom::Replay => "wp.func_replay",
        }
    }
    /// The prelude names the custom definitions of its func `__weft_f`
    /// `__weft_f__adjoint` and `__weft_f__replay`.
    fn prelude_suffix(self) -> &'static str {
        match self {
            Custom::Grad => "__adjoint",
            Custom::Replay => "__replay",
        }
    }
}

/// What a host-side module-level name is.
#[derive(Clone, Debug)]
pub(crate) enum HostKind {
    /// `import torch`
    Module,
    /// `from x import y`
    Imported,
    /// `x = <not a compile-time constant>`, with the reason.
    Value(String),
}

impl<'a> ModInfo<'a> {
    pub(crate) fn loc(&self, span: Span) -> Loc {
        let (line, col) = self.lines.line_col(self.src, span.start().into());
        Loc::new(self.file, line, col)
    }
    /// The overloads of func `name`, if it exists.
    pub(crate) fn func_defs(&self, name: &str, table: &StructTable) -> Option<Rc<[FuncDef<'a>]>> {
        if let Some(f) = self.funcs.get(name) {
            return Some(f.clone());
        }
        let lazy = self.lazy?;
        if let Some(f) = self.lazy_cache.borrow().get(name) {
            return f.clone();
        }
        let mut ignored = Vec::new();
        let defs: Vec<FuncDef<'a>> = lazy
            .defs(name)
            .into_iter()
            .filter_map(|(i, def)| func_def(self, table, def, LAZY_INDEX_BASE + i, &mut ignored))
            .collect();
        let defs: Option<Rc<[FuncDef<'a>]>> = (!defs.is_empty()).then(|| defs.into());
        self.lazy_cache
            .borrow_mut()
            .insert(name.to_string(), defs.clone());
        defs
    }
    /// The `kind` definitions of func `name` (each an overload to match by
    /// its leading parameter types).
    pub(crate) fn custom_defs(
        &self,
        kind: Custom,
        name: &str,
        table: &StructTable,
    ) -> Option<Rc<[FuncDef<'a>]>> {
        if self.lazy.is_some() {
            return self.func_defs(&format!("{name}{}", kind.prelude_suffix()), table);
        }
        self.custom
            .get(&(kind, name.to_string()))
            .map(|defs| defs.iter().cloned().collect())
    }
    /// The names of the funcs defined in this file (not the lazy ones).
    pub(crate) fn func_names(&self) -> impl Iterator<Item = &str> {
        self.funcs.keys().map(String::as_str)
    }
    /// Whether a func `name` exists (without resolving it).
    pub(crate) fn has_func(&self, name: &str) -> bool {
        self.funcs.contains_key(name) || self.lazy.is_some_and(|l| l.has(name))
    }
    /// Makes the prelude's funcs come from its lazily parsed chunks.
    pub(crate) fn set_lazy(&mut self, index: &'static PreludeIndex) {
        self.lazy = Some(index);
    }
    /// Whether kernel `name` is compiled with fast math (its module's
    /// `fast_math` option, see `options.rs`).
    pub(crate) fn kernel_fast_math(&self, name: &str) -> bool {
        let o = self.kernel_options.get(name).unwrap_or(&self.options);
        o.fast_math.unwrap_or(false)
    }
    /// Whether kernel `name` is compiled for deterministic launches (its
    /// module's `deterministic` option).
    pub(crate) fn kernel_deterministic(&self, name: &str) -> bool {
        let o = self.kernel_options.get(name).unwrap_or(&self.options);
        o.deterministic.unwrap_or(false)
    }
    /// Whether kernel `name` may get a backward function: its decorator's
    /// `enable_backward=`, else its module's `enable_backward` option, else
    /// true (Warp's default).
    pub(crate) fn kernel_backward(&self, name: &str) -> bool {
        let o = self.kernel_options.get(name).unwrap_or(&self.options);
        self.kernel_backward
            .get(name)
            .copied()
            .or(o.enable_backward)
            .unwrap_or(true)
    }
    pub(crate) fn kernel(&self, name: &str) -> Option<&'a ast::StmtFunctionDef> {
        self.kernels
            .iter()
            .copied()
            .find(|k| k.name.id.as_str() == name)
    }
}

enum Decor<'a> {
    Kernel,
    Func,
    Struct,
    /// `@wp.func_grad(f)` / `@wp.func_replay(f)`, with `f`.
    Custom(Custom, &'a Expr),
    None,
    /// Another decorator; `true` if it is a `wp.` one.
    Other(Span, bool),
}

fn decoration<'a>(imports: &Imports, list: &'a [ast::Decorator]) -> Decor<'a> {
    let Some(d) = list.first() else {
        return Decor::None;
    };
    if let Expr::Call(c) = &d.expression {
        let kind = match dotted(&c.func) {
            Some((m, "func_grad")) if imports.is_wp(m) => Some(Custom::Grad),
            Some((m, "func_replay")) if imports.is_wp(m) => Some(Custom::Replay),
            _ => None,
        };
        if let (Some(kind), [target], true) =
            (kind, &c.arguments.args[..], c.arguments.keywords.is_empty())
        {
            return Decor::Custom(kind, target);
        }
    }
    let e = match &d.expression {
        Expr::Call(c) => &*c.func,
        e => e,
    };
    match dotted(e) {
        Some((m, "kernel")) if imports.is_wp(m) => Decor::Kernel,
        Some((m, "func")) if imports.is_wp(m) => Decor::Func,
        Some((m, "struct")) if imports.is_wp(m) => Decor::Struct,
        Some((m, _)) if imports.is_wp(m) => Decor::Other(d.range(), true),
        _ => Decor::Other(d.range(), false),
    }
}

/// Resolves the signature of a `@wp.func`; errors go to `diags`.
fn func_def<'a>(
    m: &ModInfo<'_>,
    table: &StructTable,
    f: &'a ast::StmtFunctionDef,
    index: usize,
    diags: &mut Vec<Diagnostic>,
) -> Option<FuncDef<'a>> {
    let mut params = Vec::new();
    let mut ok = true;
    for p in f.parameters.iter_non_variadic_params() {
        let generic = p
            .parameter
            .annotation
            .as_deref()
            .and_then(|a| generic_param(m, a));
        match param_type(m, table, &p.parameter, "func") {
            _ if generic.is_some() => params.push((
                p.parameter.name.id.to_string(),
                generic.unwrap_or(ParamTy::Any),
            )),
            Ok(t) => params.push((p.parameter.name.id.to_string(), ParamTy::Type(t))),
            Err(d) => {
                diags.push(d);
                ok = false;
            }
        }
    }
    if let Some(v) = f.parameters.vararg.as_ref().or(f.parameters.kwarg.as_ref()) {
        diags.push(
            Diagnostic::error(v.range(), "variadic parameters are not supported")
                .with_label("here"),
        );
        ok = false;
    }
    let returns = match &f.returns {
        None => None,
        Some(r) => match return_types(m, table, r) {
            Ok(t) => Some(t),
            Err(d) => {
                diags.push(d);
                ok = false;
                None
            }
        },
    };
    ok.then_some(FuncDef {
        def: f,
        index,
        params,
        returns,
    })
}

/// Collects the declarations of a parsed file. Struct definitions are added
/// to `table`. Errors are pushed to `diags`; collection goes on after them.
pub(crate) fn collect<'a>(
    file: u32,
    src: &'a str,
    body: &'a [Stmt],
    table: &mut StructTable,
    diags: &mut Vec<Diagnostic>,
) -> ModInfo<'a> {
    let mut m = ModInfo {
        file,
        src,
        lines: LineIndex::new(src),
        imports: Imports::default(),
        consts: HashMap::new(),
        structs: HashMap::new(),
        funcs: HashMap::new(),
        lazy: None,
        lazy_cache: RefCell::new(HashMap::new()),
        kernels: Vec::new(),
        py_funcs: HashMap::new(),
        py_classes: HashMap::new(),
        host: HashMap::new(),
        type_aliases: HashMap::new(),
        options: crate::options::Options::default(),
        kernel_options: HashMap::new(),
        custom: HashMap::new(),
        kernel_backward: HashMap::new(),
    };
    let mut dicts = crate::options::Dicts::new();
    let mut func_count = 0usize;
    let mut funcs: HashMap<String, Vec<FuncDef<'a>>> = HashMap::new();
    for stmt in body {
        match stmt {
            Stmt::Import(imp) => {
                for alias in &imp.names {
                    let name = alias.name.id.as_str();
                    let bound = alias.asname.as_ref().unwrap_or(&alias.name).id.to_string();
                    match name {
                        "warp" => m.imports.wp.push(bound),
                        "numpy" => m.imports.np.push(bound),
                        "math" => m.imports.math.push(bound),
                        // Another module is host code: an error only where a
                        // kernel uses it.
                        _ => {
                            m.host.insert(bound, (alias.range(), HostKind::Module));
                        }
                    }
                }
            }
            Stmt::ImportFrom(imp) => {
                for alias in &imp.names {
                    let bound = alias.asname.as_ref().unwrap_or(&alias.name).id.to_string();
                    m.host.insert(bound, (alias.range(), HostKind::Imported));
                }
            }
            Stmt::Assign(asg) => {
                let [Expr::Name(target)] = asg.targets.as_slice() else {
                    // Host code (tuple targets, attributes, ...).
                    continue;
                };
                // A dict literal may be module options, passed by name.
                match &*asg.value {
                    Expr::Dict(d) => {
                        dicts.insert(target.id.to_string(), d);
                    }
                    _ => {
                        dicts.remove(target.id.as_str());
                    }
                }
                if is_type_expr(&m, &asg.value) {
                    match resolve_type(&m, table, &asg.value) {
                        Ok(t) => {
                            m.type_aliases.insert(target.id.to_string(), t);
                        }
                        Err(d) => diags.push(d),
                    }
                    continue;
                }
                let ev = ConstEval {
                    imports: &m.imports,
                    consts: &m.consts,
                };
                match ev.eval(&asg.value) {
                    Ok(v) => {
                        m.consts.insert(target.id.to_string(), v);
                    }
                    // An explicit `wp.constant` must be a compile-time constant.
                    Err(d) if is_wp_constant(&m.imports, &asg.value) => diags.push(d),
                    Err(d) => {
                        m.consts.remove(target.id.as_str());
                        m.host.insert(
                            target.id.to_string(),
                            (target.range, HostKind::Value(d.message)),
                        );
                    }
                }
            }
            Stmt::FunctionDef(f) if f.is_async => diags.push(
                Diagnostic::error(f.name.range(), "`async def` is not supported")
                    .with_label("async function")
                    .with_help("kernels and funcs are plain `def`s"),
            ),
            Stmt::FunctionDef(f) => match decoration(&m.imports, &f.decorator_list) {
                Decor::Kernel | Decor::Func
                    if file == 0 && f.name.id.starts_with(crate::builtins::PRELUDE_PREFIX) =>
                {
                    diags.push(
                        Diagnostic::error(
                            f.name.range(),
                            "names starting with `__weft_` are reserved",
                        )
                        .with_label("reserved name")
                        .with_help("rename it"),
                    );
                }
                // A later definition of a name replaces the earlier one, as in
                // Python.
                Decor::Kernel => {
                    m.kernels.retain(|k| k.name.id != f.name.id);
                    m.kernels.push(f);
                    let own = f.decorator_list.first().and_then(|d| {
                        crate::options::kernel_options(&m, &dicts, &d.expression, diags)
                    });
                    match own {
                        Some(o) => m.kernel_options.insert(f.name.id.to_string(), o),
                        None => m.kernel_options.remove(f.name.id.as_str()),
                    };
                    match f.decorator_list.first().and_then(|d| {
                        crate::options::kernel_flag(&m, &d.expression, "enable_backward", diags)
                    }) {
                        Some(on) => m.kernel_backward.insert(f.name.id.to_string(), on),
                        None => m.kernel_backward.remove(f.name.id.as_str()),
                    };
                }
                Decor::Func => {
                    let index = func_count;
                    func_count += 1;
                    if let Some(fd) = func_def(&m, table, f, index, diags) {
                        // Overloads by signature; a redefinition with the same
                        // parameter types replaces the earlier one (as Warp).
                        let list = funcs.entry(f.name.id.to_string()).or_default();
                        let same = |o: &FuncDef<'_>| {
                            o.params
                                .iter()
                                .map(|p| p.1)
                                .eq(fd.params.iter().map(|p| p.1))
                        };
                        list.retain(|o| !same(o));
                        list.push(fd);
                    }
                }
                Decor::Custom(kind, target) => {
                    let Expr::Name(n) = target else {
                        diags.push(
                            Diagnostic::error(target.range(), "expected the name of a `@wp.func`")
                                .with_label("not a func name")
                                .with_help(format!("write `@{}(my_func)`", kind.decorator())),
                        );
                        continue;
                    };
                    if !funcs.contains_key(n.id.as_str()) {
                        diags.push(
                            Diagnostic::error(
                                n.range,
                                format!("`{}` is not a `@wp.func` defined before it", n.id),
                            )
                            .with_label("unknown func")
                            .with_help(format!(
                                "`@{}` takes a `@wp.func` of this file, defined above it",
                                kind.decorator()
                            )),
                        );
                        continue;
                    }
                    let index = func_count;
                    func_count += 1;
                    if let Some(fd) = func_def(&m, table, f, index, diags) {
                        m.custom
                            .entry((kind, n.id.to_string()))
                            .or_default()
                            .push(fd);
                    }
                }
                Decor::Other(span, true) => diags.push(
                    Diagnostic::error(span, "unsupported Warp decorator")
                        .with_label("not supported by this compiler")
                        .with_help("use `@wp.kernel` or `@wp.func`"),
                ),
                Decor::Struct => diags.push(
                    Diagnostic::error(
                        f.name.range(),
                        "`@wp.struct` decorates a class, not a function",
                    )
                    .with_label("a function")
                    .with_help("use `@wp.kernel` or `@wp.func`"),
                ),
                // Another decorator: a host-side function.
                Decor::Other(_, false) | Decor::None => {
                    m.py_funcs.insert(f.name.id.to_string(), f.name.range());
                }
            },
            Stmt::ClassDef(c) => match decoration(&m.imports, &c.decorator_list) {
                Decor::Struct => {
                    if let Some(d) = collect_struct(&mut m, table, c) {
                        diags.push(d);
                    }
                }
                // A plain class is host code; using it in a kernel is an
                // error there.
                _ => {
                    m.py_classes.insert(c.name.id.to_string(), c.name.range());
                }
            },
            // `wp.set_module_options({...})`: the file's module options,
            // read wherever the statement is (Warp reads them when it
            // compiles the module).
            Stmt::Expr(e) if file == 0 => {
                if let Expr::Call(call) = &*e.value {
                    if crate::options::is_set_module_options(&m, call) {
                        let o = crate::options::set_module_options(&m, &dicts, call, diags);
                        m.options.update(o);
                    }
                }
            }
            // Everything else at module level is host code (launches,
            // allocations, `if __name__ == "__main__":`, ...), which the
            // compiler does not run.
            _ => {}
        }
    }
    m.funcs = funcs.into_iter().map(|(k, v)| (k, v.into())).collect();
    m
}

fn is_wp_constant(imports: &Imports, e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if matches!(dotted(&c.func), Some((w, "constant")) if imports.is_wp(w)))
}

fn collect_struct(
    m: &mut ModInfo<'_>,
    table: &mut StructTable,
    c: &ast::StmtClassDef,
) -> Option<Diagnostic> {
    let mut fields: Vec<Field> = Vec::new();
    for s in c.body.iter() {
        match s {
            Stmt::AnnAssign(a) => {
                let Expr::Name(n) = &*a.target else {
                    return Some(Diagnostic::error(a.target.range(), "expected a field name"));
                };
                // A default value (`x: float = 1.0`) is accepted and, as in
                // Warp's kernels, not used: `S()` zero-initialises.
                let ty = match resolve_type(m, table, &a.annotation) {
                    Ok(t) => t,
                    Err(d) => return Some(d),
                };
                if ty.is_array() {
                    return Some(
                        Diagnostic::error(a.annotation.range(), "struct fields cannot be arrays")
                            .with_label("array field")
                            .with_help("pass the array to the kernel as its own parameter"),
                    );
                }
                if fields.iter().any(|f| f.name == n.id.as_str()) {
                    return Some(Diagnostic::error(
                        n.range,
                        format!("duplicate field `{}`", n.id),
                    ));
                }
                fields.push(Field {
                    name: n.id.to_string(),
                    ty,
                });
            }
            Stmt::Pass(_) => {}
            Stmt::Expr(e) if matches!(&*e.value, Expr::StringLiteral(_)) => {}
            other => {
                return Some(
                    Diagnostic::error(other.range(), "unsupported statement in a struct")
                        .with_label("here")
                        .with_help("a `@wp.struct` declares fields as `name: type`"),
                )
            }
        }
    }
    let mut name = c.name.id.to_string();
    while table.values().any(|d| d.name == name) {
        name.push('_');
    }
    let id = table.push(StructDef { name, fields });
    m.structs.insert(c.name.id.to_string(), id);
    None
}

fn param_type(
    m: &ModInfo<'_>,
    table: &StructTable,
    p: &ast::Parameter,
    what: &str,
) -> Result<Type, Diagnostic> {
    match &p.annotation {
        Some(a) => resolve_type(m, table, a),
        None => Err(Diagnostic::error(
            p.range(),
            format!("{what} parameter `{}` has no type annotation", p.name.id),
        )
        .with_label("missing annotation")
        .with_help(format!(
            "annotate it, e.g. `{}: float` or `{}: wp.array(dtype=float)`",
            p.name.id, p.name.id
        ))),
    }
}

/// `Any`, `typing.Any` or `wp.Any` (a generic parameter).
fn is_any(m: &ModInfo<'_>, e: &Expr) -> bool {
    match e {
        Expr::Name(n) => n.id.as_str() == "Any",
        _ => matches!(dotted(e), Some((w, "Any")) if w == "typing" || m.imports.is_wp(w)),
    }
}

/// `Any`, or an array type whose `dtype` is `Any`.
fn generic_param(m: &ModInfo<'_>, e: &Expr) -> Option<ParamTy> {
    if is_any(m, e) {
        return Some(ParamTy::Any);
    }
    let (dtype, mut ndim) = match e {
        Expr::Call(c) => {
            let (w, name) = dotted(&c.func)?;
            let ndim = array_ndim(name).filter(|_| m.imports.is_wp(w))?;
            let mut dtype = c.arguments.args.first();
            let mut nd = ndim;
            for kw in c.arguments.keywords.iter() {
                match kw.arg.as_ref().map(|a| a.id.as_str()) {
                    Some("dtype") => dtype = Some(&kw.value),
                    Some("ndim") => {
                        if let Expr::NumberLiteral(n) = &kw.value {
                            if let ast::Number::Int(i) = &n.value {
                                nd = i.as_u8().filter(|n| (1..=4).contains(n))?;
                            }
                        }
                    }
                    _ => {}
                }
            }
            (dtype?, nd)
        }
        Expr::Subscript(s) => {
            let (w, name) = dotted(&s.value)?;
            (&*s.slice, array_ndim(name).filter(|_| m.imports.is_wp(w))?)
        }
        _ => return None,
    };
    if !is_any(m, dtype) {
        return None;
    }
    ndim = ndim.clamp(1, 4);
    Some(ParamTy::AnyArray(ndim))
}

/// Resolves a kernel param annotation.
pub(crate) fn kernel_param(
    m: &ModInfo<'_>,
    table: &StructTable,
    p: &ast::Parameter,
) -> Result<Type, Diagnostic> {
    if let Some(a) = p.annotation.as_deref().filter(|a| is_any(m, a)) {
        return Err(
            Diagnostic::error(a.range(), "kernel parameters cannot be generic")
                .with_label("`Any`")
                .with_help("give the parameter a concrete type"),
        );
    }
    param_type(m, table, p, "kernel")
}

fn return_types(m: &ModInfo<'_>, table: &StructTable, e: &Expr) -> Result<Vec<Type>, Diagnostic> {
    if matches!(e, Expr::NoneLiteral(_)) {
        return Ok(Vec::new());
    }
    if let Expr::Subscript(s) = e {
        let is_tuple = match &*s.value {
            Expr::Name(n) => matches!(n.id.as_str(), "tuple" | "Tuple"),
            other => matches!(dotted(other), Some(("typing", "Tuple"))),
        };
        if is_tuple {
            let elts: Vec<&Expr> = match &*s.slice {
                Expr::Tuple(t) => t.elts.iter().collect(),
                other => vec![other],
            };
            return elts
                .into_iter()
                .map(|x| resolve_type(m, table, x))
                .collect();
        }
    }
    Ok(vec![resolve_type(m, table, e)?])
}

pub(crate) fn plain_class(span: Span, name: &str, at: Span) -> Diagnostic {
    Diagnostic::error(span, format!("`{name}` is a plain Python class"))
        .with_label("not a Warp type")
        .with_secondary(at, "defined without a decorator")
        .with_help("decorate the class with `@wp.struct` and declare its fields with annotations")
}

fn unknown_type(span: Span) -> Diagnostic {
    Diagnostic::error(span, "unknown type")
        .with_label("not a Warp type")
        .with_help(
            "use `float`, `int`, `bool`, `wp.float64`, `wp.vec3`, `wp.mat33`, `wp.quat`, `wp.transform`, \
             a `@wp.struct` or `wp.array(dtype=...)`",
        )
}

/// Resolves a type expression: annotations, `dtype=` arguments.
pub(crate) fn resolve_type(
    m: &ModInfo<'_>,
    table: &StructTable,
    e: &Expr,
) -> Result<Type, Diagnostic> {
    let span = e.range();
    match e {
        Expr::Name(n) => {
            let name = n.id.as_str();
            if let Some(t) = typenames::py_type(name) {
                return Ok(t);
            }
            if let Some(&id) = m.structs.get(name) {
                return Ok(Type::Struct(id));
            }
            if let Some(&t) = m.type_aliases.get(name) {
                return Ok(t);
            }
            if let Some(&at) = m.py_classes.get(name) {
                return Err(plain_class(span, name, at));
            }
            Err(unknown_type(span))
        }
        Expr::Attribute(_) => match dotted(e) {
            Some((w, name)) if m.imports.is_wp(w) => {
                typenames::wp_type(name).ok_or_else(|| unknown_type(span))
            }
            _ => Err(unknown_type(span)),
        },
        Expr::Call(c) if generic_ctor(m, &c.func).is_some() => {
            let kind = generic_ctor(m, &c.func);
            let matrix = kind == Some(GenericCtor::Matrix);
            let ev = ConstEval {
                imports: &m.imports,
                consts: &m.consts,
            };
            let mut dims: Vec<i128> = Vec::new();
            let mut dtype = None;
            // Warp's parameters: `vector(length, dtype)`, `matrix(shape,
            // dtype)`, `quaternion(dtype)`, `transformation(dtype)`.
            let params: &[&str] = match kind {
                Some(GenericCtor::Quat | GenericCtor::Transform) => &["dtype"],
                Some(GenericCtor::Matrix) => &["shape", "dtype"],
                _ => &["length", "dtype"],
            };
            let positional = params.iter().copied().zip(c.arguments.args.iter());
            let keywords = c
                .arguments
                .keywords
                .iter()
                .filter_map(|kw| Some((kw.arg.as_ref()?.id.as_str(), &kw.value)));
            for (param, value) in positional.chain(keywords) {
                match param {
                    "length" => dims.push(ev.eval(value)?.as_int().unwrap_or(0)),
                    "shape" => match value {
                        Expr::Tuple(t) => {
                            for x in &t.elts {
                                dims.push(ev.eval(x)?.as_int().unwrap_or(0));
                            }
                        }
                        other => dims.push(ev.eval(other)?.as_int().unwrap_or(0)),
                    },
                    "dtype" => dtype = Some(resolve_type(m, table, value)?),
                    _ => {}
                }
            }
            let scalar = match dtype {
                Some(Type::Scalar(s)) => s,
                None => weft_ir::Scalar::F32,
                Some(_) => {
                    return Err(Diagnostic::error(
                        span,
                        "vector and matrix components must be scalars",
                    )
                    .with_label("here"))
                }
            };
            let ok = |n: i128| (1..=16).contains(&n);
            if matches!(kind, Some(GenericCtor::Quat | GenericCtor::Transform)) {
                if !scalar.is_float() {
                    return Err(Diagnostic::error(
                        span,
                        "quaternion and transformation components must be floats",
                    )
                    .with_label("here"));
                }
                return Ok(if kind == Some(GenericCtor::Quat) {
                    Type::Quat(scalar)
                } else {
                    Type::Transform(scalar)
                });
            }
            match (matrix, dims.as_slice()) {
                (false, [n]) if ok(*n) => Ok(Type::Vec(*n as u8, scalar)),
                (true, [r, c]) if ok(*r) && ok(*c) => Ok(Type::Mat(*r as u8, *c as u8, scalar)),
                _ => Err(
                    Diagnostic::error(span, "unsupported vector/matrix shape").with_label(
                        "expected `length=N` (vectors) or `shape=(R, C)` (matrices), 1 to 16",
                    ),
                ),
            }
        }
        Expr::Call(c) => {
            let Some((w, name)) = dotted(&c.func) else {
                return Err(unknown_type(span));
            };
            if !m.imports.is_wp(w) {
                return Err(unknown_type(span));
            }
            let Some(mut ndim) = array_ndim(name) else {
                return Err(unknown_type(span));
            };
            let mut dtype = c.arguments.args.first();
            for kw in c.arguments.keywords.iter() {
                match kw.arg.as_ref().map(|a| a.id.as_str()) {
                    Some("dtype") => dtype = Some(&kw.value),
                    Some("ndim") => {
                        let ev = ConstEval {
                            imports: &m.imports,
                            consts: &m.consts,
                        };
                        ndim = match ev.eval(&kw.value)?.as_int() {
                            Some(n @ 1..=4) => n as u8,
                            _ => {
                                return Err(Diagnostic::error(
                                    kw.value.range(),
                                    "`ndim` must be 1, 2, 3 or 4",
                                )
                                .with_label("here"))
                            }
                        };
                    }
                    _ => {}
                }
            }
            let dtype = dtype.ok_or_else(|| {
                Diagnostic::error(span, "array type without `dtype`")
                    .with_label("here")
                    .with_help("write e.g. `wp.array(dtype=float)`")
            })?;
            array_of(m, table, dtype, ndim)
        }
        Expr::Subscript(s) => {
            let Some((w, name)) = dotted(&s.value) else {
                return Err(unknown_type(span));
            };
            let Some(ndim) = array_ndim(name).filter(|_| m.imports.is_wp(w)) else {
                return Err(unknown_type(span));
            };
            array_of(m, table, &s.slice, ndim)
        }
        Expr::StringLiteral(_) => {
            Err(Diagnostic::error(span, "string annotations are not supported").with_label("here"))
        }
        _ => Err(unknown_type(span)),
    }
}

/// The parameterised type constructors: `wp.types.vector`/`wp.vec`,
/// `wp.types.matrix`/`wp.mat`, `wp.types.quaternion`/`wp.quaternion` and
/// `wp.types.transformation`/`wp.transformation`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum GenericCtor {
    Vector,
    Matrix,
    Quat,
    Transform,
}

/// Which parameterised type constructor `f` names, if any.
pub(crate) fn generic_ctor(m: &ModInfo<'_>, f: &Expr) -> Option<GenericCtor> {
    let Expr::Attribute(a) = f else {
        return None;
    };
    let last = a.attr.id.as_str();
    let base_ok = match &*a.value {
        Expr::Name(n) => m.imports.is_wp(n.id.as_str()),
        inner => matches!(dotted(inner), Some((w, "types")) if m.imports.is_wp(w)),
    };
    if !base_ok {
        return None;
    }
    match last {
        "vector" | "vec" => Some(GenericCtor::Vector),
        "matrix" | "mat" => Some(GenericCtor::Matrix),
        "quaternion" => Some(GenericCtor::Quat),
        "transformation" => Some(GenericCtor::Transform),
        _ => None,
    }
}

/// Whether a module-level value is a type (a type alias).
fn is_type_expr(m: &ModInfo<'_>, e: &Expr) -> bool {
    match e {
        Expr::Name(n) => {
            typenames::py_type(n.id.as_str()).is_some()
                || m.structs.contains_key(n.id.as_str())
                || m.type_aliases.contains_key(n.id.as_str())
        }
        Expr::Attribute(_) => {
            matches!(dotted(e), Some((w, t)) if m.imports.is_wp(w) && typenames::wp_type(t).is_some())
        }
        Expr::Call(c) => generic_ctor(m, &c.func).is_some(),
        _ => false,
    }
}

fn array_ndim(name: &str) -> Option<u8> {
    Some(match name {
        "array" | "array1d" => 1,
        "array2d" => 2,
        "array3d" => 3,
        "array4d" => 4,
        _ => return None,
    })
}

fn array_of(
    m: &ModInfo<'_>,
    table: &StructTable,
    dtype: &Expr,
    ndim: u8,
) -> Result<Type, Diagnostic> {
    let elem = resolve_type(m, table, dtype)?;
    let elem = elem.as_elem().ok_or_else(|| {
        Diagnostic::error(dtype.range(), "arrays of arrays are not supported").with_label("here")
    })?;
    Ok(Type::Array(ArrayType { elem, ndim }))
}
