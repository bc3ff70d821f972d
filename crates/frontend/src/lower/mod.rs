//! Lowering of kernel and func bodies to structured SSA.
//!
//! Python locals are tracked in an environment (name → SSA value). Control
//! flow follows the IR's structure:
//!
//! * `if`: each branch is lowered with a copy of the environment; a
//!   variable whose value differs between the branches that fall through
//!   becomes a result of the `if` (each branch `yield`s its value). A
//!   variable defined in only some branches is undefined afterwards.
//! * loops: variables assigned in the body that exist before the loop are
//!   carried as block params; `continue`/`break` pass their current values,
//!   the loop's results are their values after it.
//! * `for i in range(C)` with a compile-time trip count ≤ 16 (and no
//!   `break`/`continue`) is unrolled, `i` being a constant in each copy.
//!
//! Funcs are lowered on first call (so callee return types are known at the
//! call), per overload; a call to a func being lowered is recursion.
//!
//! Submodules: `stmt` (assignments and stores), `control` (branches, loops,
//! returns), `expr` (expressions), `call` (calls of every kind).

use crate::builtins::{self, FuncCaller};
use crate::consts::{dotted, to_const, CVal, ConstEval};
use crate::diag::{Diagnostic, Span};
use crate::module::{FuncDef, ModInfo};
use crate::typenames;
use ruff_python_ast::{self as ast, Expr, Number, Stmt};
use ruff_text_size::Ranged;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use weft_ir::{
    AtomicOp, BinaryOp, Const, FuncBuilder, FuncId, FuncKind, Function, InstKind, MemAccess, Param,
    Region, Scalar, StructTable, Type, Value,
};

mod adjoint;
mod call;
mod control;
mod expr;
mod starred;
mod stmt;

type Res<T> = Result<T, Diagnostic>;

/// Which file a func comes from.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Origin {
    User,
    Prelude,
}

#[derive(Clone)]
enum InstState {
    InProgress,
    Done(u32),
    /// Failed; for prelude funcs, the error messages (to re-wrap at every
    /// call site).
    Failed(Vec<String>),
}

/// State shared by all function lowerings of one compile.
#[derive(Default)]
pub(crate) struct Ctx {
    /// Lowered functions in [`FuncId`] order (`None` while being lowered).
    pub funcs: Vec<Option<Function>>,
    /// Return types per function slot (known once lowered).
    returns: Vec<Vec<Type>>,
    /// Instances by (origin, func def index, param types).
    instances: HashMap<(Origin, usize, Vec<Type>), InstState>,
    names: HashSet<String>,
    /// Diagnostics about the user's file.
    pub diags: Vec<Diagnostic>,
    /// Lower `@wp.func_grad`/`@wp.func_replay` definitions (only the
    /// backward module needs them; [`crate::compile_for_backward`]).
    pub custom: bool,
    /// `wp.grad(f)`: the slot of each func instance's gradient func.
    grads: HashMap<u32, u32>,
    /// The user file's name, for messages printed at run time
    /// (`wp.expect_eq` and the others).
    pub file_name: String,
}

impl Ctx {
    fn alloc(&mut self, base: &str) -> (u32, String) {
        let mut name = base.to_string();
        let mut k = 1;
        while self.names.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.names.insert(name.clone());
        self.funcs.push(None);
        self.returns.push(Vec::new());
        ((self.funcs.len() - 1) as u32, name)
    }
}

/// The modules visible to a lowering.
#[derive(Copy, Clone)]
pub(crate) struct Mods<'a> {
    pub user: &'a ModInfo<'a>,
    pub prelude: Option<&'a ModInfo<'a>>,
}

/// An expression's lowered form.
#[derive(Clone, Debug)]
enum Ev {
    V(Value),
    /// Several values: tuple expressions, multi-value returns, `wp.tid()`.
    Tuple(Vec<Value>),
    /// An array indexed with fewer indices than its dimensionality.
    View(Value, Vec<Value>),
    /// `arr.shape`.
    Shape(Value),
}

struct LoopFrame {
    carried: Vec<String>,
    /// The counter's next value (range loops).
    next: Option<Value>,
}

struct FnLower<'a, 'c> {
    ctx: &'c mut Ctx,
    structs: &'c StructTable,
    mods: Mods<'a>,
    m: &'a ModInfo<'a>,
    origin: Origin,
    kind: FuncKind,
    /// Known return types and the span that fixed them.
    ret: Option<(Vec<Type>, Span, bool)>,
    env: BTreeMap<String, Value>,
    /// Variables defined on some paths only: where they were last defined.
    maybe: HashMap<String, Span>,
    array_params: HashSet<String>,
    /// Variables holding an array view (`row = a[i]` of a 2-D array): the
    /// array and the leading indices.
    views: HashMap<String, (Value, Vec<Value>)>,
    /// Variables holding a tuple (`t = f()` of a multi-value func): their
    /// arity. Element `k` of `t` lives in the environment as `t.k`, so
    /// branches and loops treat the elements like any variable.
    tuples: HashMap<String, usize>,
    /// Number of enclosing branches and (non-unrolled) loops.
    nesting: u32,
    loops: Vec<LoopFrame>,
    dead: bool,
    /// Errors of statements lowered so far (lowering goes on after one).
    errors: Vec<Diagnostic>,
    /// Names assigned by a statement that failed: using them later is not
    /// reported again.
    poisoned: HashSet<String>,
    /// Values known to be non-negative that the IR does not show: the
    /// counters of `range` loops counting up from a non-negative start
    /// (array indices that need no wrap, `builtins::arrays`).
    nonneg: HashSet<Value>,
    /// Float32 constants lowered from a float literal (or a float
    /// constant), with the literal's Python value (see
    /// `FuncCaller::float_literal`).
    literals: HashMap<Value, f64>,
    /// In a custom gradient (`@wp.func_grad`): the differentiated func's
    /// parameters, whose `wp.adjoint[x]` the body accumulates (`adjoint.rs`).
    adjoints: Vec<(String, Type)>,
}

/// The span of a statement's leading keyword.
fn keyword(stmt: Span, len: u32) -> Span {
    Span::at(stmt.start(), len.into())
}

/// Runs `f` with at least 128 KiB of stack left, growing the stack in 4 MiB
/// segments when needed: lowering recurses over the syntax tree, whose depth
/// the source chooses.
pub(crate) fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, f)
}

fn err(span: Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(span, msg)
}

/// Lowers kernel `def` of the user module into the next function slot.
pub(crate) fn lower_kernel<'a>(
    ctx: &mut Ctx,
    structs: &StructTable,
    mods: Mods<'a>,
    def: &'a ast::StmtFunctionDef,
) -> Result<(), Vec<Diagnostic>> {
    let m = mods.user;
    let mut params = Vec::new();
    let mut errs = Vec::new();
    let mut spans = Vec::new();
    for p in def.parameters.iter_non_variadic_params() {
        spans.push(p.range());
        if let Some(d) = &p.default {
            errs.push(
                err(d.range(), "kernel parameters cannot have default values")
                    .with_label("remove this default"),
            );
        }
        match crate::module::kernel_param(m, structs, &p.parameter) {
            Ok(t) => params.push(Param {
                name: p.parameter.name.id.to_string(),
                ty: t,
            }),
            Err(d) => errs.push(d),
        }
    }
    if let Some(v) = def
        .parameters
        .vararg
        .as_ref()
        .or(def.parameters.kwarg.as_ref())
    {
        errs.push(err(v.range(), "variadic parameters are not supported").with_label("here"));
    }
    if let Some(r) = &def.returns {
        errs.push(
            err(r.range(), "kernels cannot return values")
                .with_label("remove this annotation")
                .with_help("write results into an array parameter"),
        );
    }
    let layout_hints = if params.len() == spans.len() {
        layout_hints(m.src, &spans, &params, structs, &mut errs)
    } else {
        Vec::new()
    };
    if !errs.is_empty() {
        return Err(errs);
    }
    let (slot, name) = ctx.alloc(def.name.id.as_str());
    let mut func = Function::new(&name, FuncKind::Kernel, params.clone(), Vec::new());
    func.fast_math = m.kernel_fast_math(def.name.id.as_str());
    func.deterministic = m.kernel_deterministic(def.name.id.as_str());
    func.backward = m.kernel_backward(def.name.id.as_str());
    func.loc = m.loc(def.name.range());
    func.layout_hints = layout_hints;
    let array_params = params
        .iter()
        .filter(|p| p.ty.is_array())
        .map(|p| p.name.clone())
        .collect();
    let res = {
        let mut b = FuncBuilder::new(&mut func, structs);
        let mut l = FnLower::new(ctx, structs, mods, m, Origin::User, FuncKind::Kernel);
        l.array_params = array_params;
        l.ret = Some((Vec::new(), def.name.range(), true));
        let r = l.body(&mut b, def, &params);
        l.take_errors(r)
    };
    ctx.funcs[slot as usize] = Some(func);
    res
}

/// The layout hints of a kernel's parameters: a `# weft: layout=soa` (or
/// `layout=aos`) comment on the line where a parameter ends. `spans` are
/// the parameters' source ranges (parallel to `params`). A hint on a
/// non-array parameter, on a line holding several parameters, or with an
/// unknown directive or layout is a diagnostic.
fn layout_hints(
    src: &str,
    spans: &[Span],
    params: &[Param],
    structs: &StructTable,
    errs: &mut Vec<Diagnostic>,
) -> Vec<(u32, weft_ir::ArrayLayout)> {
    let mut out = Vec::new();
    // (comment range, param index) of each param followed by a comment.
    let mut seen: Vec<(Span, usize)> = Vec::new();
    for (i, (span, p)) in spans.iter().zip(params).enumerate() {
        let Some((comment, text)) = line_comment(src, span.end().into()) else {
            continue;
        };
        let Some(directive) = text.trim().strip_prefix("weft:") else {
            continue;
        };
        if let Some(&(_, j)) = seen.iter().find(|(c, _)| *c == comment) {
            errs.push(
                err(comment, "a layout hint on a line with several parameters")
                    .with_secondary(spans[j], "this parameter")
                    .with_secondary(*span, "and this one share the line")
                    .with_help("put the hinted parameter on a line of its own"),
            );
            continue;
        }
        seen.push((comment, i));
        let (key, value) = directive.split_once('=').unwrap_or((directive, ""));
        let (key, value) = (key.trim(), value.trim());
        if key != "layout" {
            errs.push(
                err(
                    comment,
                    format!("unknown weft directive `{}`", directive.trim()),
                )
                .with_label("not a weft directive")
                .with_help("the one directive is `# weft: layout=soa` (or `layout=aos`)"),
            );
            continue;
        }
        let layout = match value {
            "soa" => weft_ir::ArrayLayout::Soa,
            "aos" => weft_ir::ArrayLayout::Aos,
            _ => {
                errs.push(
                    err(comment, format!("unknown array layout `{value}`"))
                        .with_label("expected `soa` or `aos`"),
                );
                continue;
            }
        };
        if !p.ty.is_array() {
            errs.push(
                err(comment, "a layout hint on a parameter that is not an array")
                    .with_label("this hint")
                    .with_secondary(
                        *span,
                        format!(
                            "`{}` is {}",
                            p.name,
                            crate::builtins::type_name(p.ty, structs)
                        ),
                    )
                    .with_help("layouts apply to arrays of vectors, matrices or structs"),
            );
            continue;
        }
        out.push((i as u32, layout));
    }
    out
}

/// The `#` comment on the rest of the line from byte `from`, if any: its
/// range and its text after the `#`. Quotes are skipped, so a `#` inside a
/// string is not a comment.
fn line_comment(src: &str, from: usize) -> Option<(Span, &str)> {
    let rest = src.get(from..)?;
    let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let mut quote: Option<char> = None;
    for (k, c) in line.char_indices() {
        match (quote, c) {
            (None, '#') => {
                let text = line[k + 1..].trim_end_matches('\r');
                let start = (from + k) as u32;
                let end = (from + k + 1 + text.len()) as u32;
                return Some((Span::new(start.into(), end.into()), text));
            }
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            _ => {}
        }
    }
    None
}

/// Lowers a func overload (once; cached), returning its slot.
fn lower_func<'a>(
    ctx: &mut Ctx,
    structs: &StructTable,
    mods: Mods<'a>,
    origin: Origin,
    fd: &FuncDef<'a>,
    ptypes: &[Type],
    mangled: &str,
) -> Result<u32, Vec<Diagnostic>> {
    let m = match origin {
        Origin::User => mods.user,
        Origin::Prelude => match mods.prelude {
            Some(p) => p,
            None => return Err(vec![err(Span::default(), "the prelude is unavailable")]),
        },
    };
    let (slot, name) = ctx.alloc(mangled);
    let key = (origin, fd.index, ptypes.to_vec());
    ctx.instances.insert(key.clone(), InstState::InProgress);
    let params: Vec<Param> = fd
        .params
        .iter()
        .zip(ptypes)
        .map(|((n, _), t)| Param {
            name: n.clone(),
            ty: *t,
        })
        .collect();
    let mut func = Function::new(&name, FuncKind::Func, params.clone(), Vec::new());
    func.loc = m.loc(fd.def.name.range());
    let res = {
        let mut b = FuncBuilder::new(&mut func, structs);
        let mut l = FnLower::new(ctx, structs, mods, m, origin, FuncKind::Func);
        if let Some(r) = &fd.returns {
            l.ret = Some((
                r.clone(),
                fd.def
                    .returns
                    .as_ref()
                    .map_or(fd.def.name.range(), |r| r.range()),
                true,
            ));
        }
        let r = l.body(&mut b, fd.def, &params);
        let r = l.take_errors(r);
        let rets = l.ret.map(|r| r.0).unwrap_or_default();
        r.map(|()| rets)
    };
    match res {
        Ok(rets) => {
            func.returns = rets.clone();
            ctx.funcs[slot as usize] = Some(func);
            ctx.returns[slot as usize] = rets.clone();
            ctx.instances.insert(key, InstState::Done(slot));
            if ctx.custom {
                adjoint::lower_custom(ctx, structs, mods, origin, m, fd, slot, ptypes, &rets)?;
            }
            Ok(slot)
        }
        Err(ds) => {
            func.returns = Vec::new();
            ctx.funcs[slot as usize] = Some(func);
            let msgs = ds
                .iter()
                .filter(|d| !d.is_reported())
                .map(|d| d.message.clone())
                .collect();
            ctx.instances.insert(key, InstState::Failed(msgs));
            Err(ds)
        }
    }
}

fn zero(b: &mut FuncBuilder, ty: Type, span: Span) -> Res<Value> {
    let structs = b.structs;
    Ok(match ty {
        Type::Scalar(s) => b.konst(Const::from_i128(s, 0)),
        Type::Vec(..) | Type::Quat(_) | Type::Transform(_) | Type::Mat(..) | Type::Struct(_) => {
            let n = ty.arity(structs);
            let mut parts = Vec::new();
            for i in 0..n {
                let ct = ty.project(i, structs).unwrap_or(Type::BOOL);
                parts.push(zero(b, ct, span)?);
            }
            b.make(ty, parts)
        }
        Type::Array(_) => {
            return Err(err(
                span,
                "an array variable cannot be reassigned in a branch or loop",
            )
            .with_label("here"))
        }
    })
}

fn is_const(b: &FuncBuilder, v: Value) -> Option<Const> {
    match b.func.values[v].def {
        weft_ir::ValueDef::Result(i, 0) => match b.func.insts[i].kind {
            InstKind::Const(c) => Some(c),
            _ => None,
        },
        _ => None,
    }
}

/// Emits a compile-time value as IR constants.
fn materialize(b: &mut FuncBuilder, c: &CVal) -> Value {
    match c {
        CVal::Int(i) => b.konst(Const::from_i128(Scalar::I32, *i)),
        CVal::Float(f) => b.fconst(Scalar::F32, *f),
        CVal::Bool(x) => b.bconst(*x),
        CVal::Typed(k) => b.konst(*k),
        CVal::Agg(ty, cs) => {
            let scalars: Vec<Value> = cs.iter().map(|&k| b.konst(k)).collect();
            match *ty {
                Type::Mat(r, cn, s) => {
                    let rows: Vec<Value> = (0..r as usize)
                        .map(|i| {
                            let row = scalars[i * cn as usize..(i + 1) * cn as usize].to_vec();
                            b.make(Type::Vec(cn, s), row)
                        })
                        .collect();
                    b.make(*ty, rows)
                }
                t => b.make(t, scalars),
            }
        }
    }
}

impl<'a, 'c> FnLower<'a, 'c> {
    fn new(
        ctx: &'c mut Ctx,
        structs: &'c StructTable,
        mods: Mods<'a>,
        m: &'a ModInfo<'a>,
        origin: Origin,
        kind: FuncKind,
    ) -> Self {
        FnLower {
            ctx,
            structs,
            mods,
            m,
            origin,
            kind,
            ret: None,
            env: BTreeMap::new(),
            maybe: HashMap::new(),
            array_params: HashSet::new(),
            loops: Vec::new(),
            views: HashMap::new(),
            tuples: HashMap::new(),
            nesting: 0,
            dead: false,
            errors: Vec::new(),
            poisoned: HashSet::new(),
            nonneg: HashSet::new(),
            literals: HashMap::new(),
            adjoints: Vec::new(),
        }
    }

    /// All errors of the function: those recorded per statement, then `r`'s.
    fn take_errors(&mut self, r: Res<()>) -> Result<(), Vec<Diagnostic>> {
        let mut errs = std::mem::take(&mut self.errors);
        if let Err(d) = r {
            errs.push(d);
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs)
        }
    }

    /// Emits a compile-time value (see [`materialize`]), remembering the
    /// Python value of a float.
    fn materialize(&mut self, b: &mut FuncBuilder, c: &CVal) -> Value {
        let v = materialize(b, c);
        if let CVal::Float(f) = c {
            self.literals.insert(v, *f);
        }
        v
    }

    fn tyname(&self, t: Type) -> String {
        builtins::type_name(t, self.structs)
    }

    fn at(&self, b: &mut FuncBuilder, span: Span) {
        b.set_loc(self.m.loc(span));
    }

    fn name(&self, b: &mut FuncBuilder, v: Value, name: &str) {
        if b.func.value_name(v).is_none() {
            b.name_value(v, name);
        }
    }

    fn body(
        &mut self,
        b: &mut FuncBuilder,
        def: &'a ast::StmtFunctionDef,
        params: &[Param],
    ) -> Res<()> {
        let vals = b.func.param_values().to_vec();
        for (p, v) in params.iter().zip(vals) {
            self.env.insert(p.name.clone(), v);
        }
        self.at(b, def.name.range());
        self.init_adjoints(b, def.name.range())?;
        self.stmts(b, &def.body)?;
        if !b.is_terminated() {
            self.at(b, def.range());
            if let Some(vs) = self.adjoint_results().filter(|_| !self.adjoints.is_empty()) {
                self.at(b, def.name.range());
                b.return_(vs);
                return Ok(());
            }
            let rets = self.ret.as_ref().map(|r| r.0.clone()).unwrap_or_default();
            let mut vs = Vec::new();
            for t in rets {
                vs.push(zero(b, t, def.name.range())?);
            }
            b.return_(vs);
        }
        Ok(())
    }
}

impl FuncCaller for FnLower<'_, '_> {
    fn known_nonneg(&self, v: Value) -> bool {
        self.nonneg.contains(&v)
    }

    fn float_literal(&self, v: Value) -> Option<f64> {
        self.literals.get(&v).copied()
    }

    fn call_prelude(
        &mut self,
        b: &mut FuncBuilder,
        name: &str,
        args: &[Value],
        span: Span,
    ) -> Result<Vec<Value>, Diagnostic> {
        let Some(p) = self.mods.prelude else {
            return Err(err(
                span,
                format!("internal error: the prelude is unavailable (needed for `{name}`)"),
            ));
        };
        let Some(defs) = p.func_defs(name, self.structs) else {
            let what = if p.has_func(name) {
                "does not parse or has a bad signature"
            } else {
                "does not exist"
            };
            return Err(err(
                span,
                format!("internal error: the prelude func `{name}` {what}"),
            ));
        };
        let spans = vec![span; args.len()];
        self.resolve_and_call(b, name, &defs, Origin::Prelude, args, &spans, &[], span)
    }
}
