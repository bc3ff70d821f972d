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

type Res<T> = Result<T, Diagnostic>;
type Kwargs = Vec<(String, Value)>;
/// A lowered branch: its region, final environment, whether it diverged,
/// and its expression value (ternaries).
type BranchOut = (Region, BTreeMap<String, Value>, bool, Option<Value>);

/// Maximum trip count of a loop that is unrolled (Warp's `max_unroll`).
const MAX_UNROLL: i128 = 16;

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
    loops: Vec<LoopFrame>,
    dead: bool,
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
    for p in def.parameters.iter_non_variadic_params() {
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
    if !errs.is_empty() {
        return Err(errs);
    }
    let (slot, name) = ctx.alloc(def.name.id.as_str());
    let mut func = Function::new(&name, FuncKind::Kernel, params.clone(), Vec::new());
    func.loc = m.loc(def.name.range());
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
        l.body(&mut b, def, &params)
    };
    match res {
        Ok(()) => {
            ctx.funcs[slot as usize] = Some(func);
            Ok(())
        }
        Err(d) => {
            ctx.funcs[slot as usize] = Some(func);
            Err(vec![d])
        }
    }
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
        let rets = l.ret.map(|r| r.0).unwrap_or_default();
        r.map(|()| rets)
    };
    match res {
        Ok(rets) => {
            func.returns = rets.clone();
            ctx.funcs[slot as usize] = Some(func);
            ctx.returns[slot as usize] = rets;
            ctx.instances.insert(key, InstState::Done(slot));
            Ok(slot)
        }
        Err(d) => {
            func.returns = Vec::new();
            ctx.funcs[slot as usize] = Some(func);
            let msgs = vec![d.message.clone()];
            ctx.instances.insert(key, InstState::Failed(msgs));
            Err(vec![d])
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

/// Names (re)bound anywhere in `body` (not inside nested defs), including
/// the roots of component assignments (`v[0] = x` rebinds `v`) and RNG
/// states passed to random draws (`wp.randf(state)` advances `state`).
fn assigned_names(body: &[Stmt], out: &mut BTreeSet<String>) {
    use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
    fn target(e: &Expr, out: &mut BTreeSet<String>) {
        match e {
            Expr::Name(n) => {
                out.insert(n.id.to_string());
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|x| target(x, out)),
            Expr::List(t) => t.elts.iter().for_each(|x| target(x, out)),
            Expr::Attribute(a) => target(&a.value, out),
            Expr::Subscript(s) => target(&s.value, out),
            _ => {}
        }
    }
    struct Finder<'o>(&'o mut BTreeSet<String>);
    impl<'a> Visitor<'a> for Finder<'_> {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            grow(|| self.visit_stmt_inner(s))
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            grow(|| self.visit_expr_inner(e))
        }
    }
    impl<'a> Finder<'_> {
        fn visit_stmt_inner(&mut self, s: &'a Stmt) {
            match s {
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => return,
                Stmt::Assign(a) => a.targets.iter().for_each(|t| target(t, self.0)),
                Stmt::AugAssign(a) => target(&a.target, self.0),
                Stmt::AnnAssign(a) => target(&a.target, self.0),
                Stmt::For(f) => target(&f.target, self.0),
                _ => {}
            }
            walk_stmt(self, s);
        }
        fn visit_expr_inner(&mut self, e: &'a Expr) {
            if let Expr::Call(c) = e {
                let callee = match &*c.func {
                    Expr::Attribute(a) => Some(a.attr.id.as_str()),
                    Expr::Name(n) => Some(n.id.as_str()),
                    _ => None,
                };
                if callee.is_some_and(builtins::advances_rng_state) {
                    if let Some(first) = c.arguments.args.first() {
                        target(first, self.0);
                    }
                }
            }
            walk_expr(self, e);
        }
    }
    let mut f = Finder(out);
    for s in body {
        f.visit_stmt(s);
    }
}

/// Whether `body` has a `break`/`continue` for this loop level.
fn has_break_continue(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Break(_) | Stmt::Continue(_) => true,
        Stmt::If(i) => {
            has_break_continue(&i.body)
                || i.elif_else_clauses
                    .iter()
                    .any(|c| has_break_continue(&c.body))
        }
        _ => false,
    })
}

fn unsupported_expr(e: &Expr) -> Option<(&'static str, &'static str)> {
    Some(match e {
        Expr::Lambda(_) => (
            "lambda expressions are not supported",
            "define a `@wp.func` instead",
        ),
        Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => (
            "comprehensions are not supported",
            "write a `for` loop, or use a vector type such as `wp.vec3(...)`",
        ),
        Expr::List(_) => (
            "lists are not supported in kernels",
            "use a vector or matrix type (`wp.vec3(...)`), or an array parameter",
        ),
        Expr::Dict(_) | Expr::Set(_) => (
            "dicts and sets are not supported in kernels",
            "use a `@wp.struct` or separate variables",
        ),
        Expr::Await(_) => ("`await` is not supported", "kernels are not async"),
        Expr::Yield(_) | Expr::YieldFrom(_) => (
            "`yield` is not supported in kernels",
            "write results into an array parameter",
        ),
        Expr::Named(_) => (
            "assignment expressions (`:=`) are not supported",
            "assign in a separate statement",
        ),
        Expr::Starred(_) => (
            "starred expressions are not supported",
            "pass arguments one by one",
        ),
        Expr::Slice(_) => ("slices are not supported", "index one element at a time"),
        Expr::StringLiteral(_) | Expr::FString(_) | Expr::TString(_) | Expr::BytesLiteral(_) => (
            "strings are only allowed as arguments of `print`/`wp.printf`",
            "remove the string",
        ),
        Expr::NoneLiteral(_) => (
            "`None` is not supported in kernels",
            "use a value of a Warp type",
        ),
        Expr::EllipsisLiteral(_) | Expr::IpyEscapeCommand(_) => {
            ("this expression is not supported", "remove it")
        }
        _ => return None,
    })
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
            dead: false,
        }
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
        self.stmts(b, &def.body)?;
        if !b.is_terminated() {
            self.at(b, def.range());
            let rets = self.ret.as_ref().map(|r| r.0.clone()).unwrap_or_default();
            let mut vs = Vec::new();
            for t in rets {
                vs.push(zero(b, t, def.name.range())?);
            }
            b.return_(vs);
        }
        Ok(())
    }

    fn stmts(&mut self, b: &mut FuncBuilder, body: &[Stmt]) -> Res<()> {
        for s in body {
            if self.dead {
                break;
            }
            self.at(b, s.range());
            self.stmt(b, s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, b: &mut FuncBuilder, s: &Stmt) -> Res<()> {
        grow(|| self.stmt_inner(b, s))
    }

    fn stmt_inner(&mut self, b: &mut FuncBuilder, s: &Stmt) -> Res<()> {
        let span = s.range();
        match s {
            Stmt::Expr(e) => {
                if matches!(&*e.value, Expr::StringLiteral(_)) {
                    return Ok(());
                }
                self.expr(b, &e.value, 1).map(|_| ())
            }
            Stmt::Pass(_) => Ok(()),
            Stmt::Assign(a) => {
                for t in &a.targets {
                    self.check_target(t)?;
                }
                let n = match a.targets.first() {
                    Some(Expr::Tuple(t)) => t.elts.len(),
                    _ => 1,
                };
                let v = self.expr(b, &a.value, n)?;
                for t in &a.targets {
                    self.assign(b, t, v.clone(), a.value.range())?;
                }
                Ok(())
            }
            // Warp rejects annotated assignments in kernels; so do we.
            Stmt::AnnAssign(a) => Err(err(
                span,
                "annotated assignments are not supported in kernels",
            )
            .with_label("annotated assignment")
            .with_help(format!(
                "give the value its type instead: `{} = float(...)`",
                self.m
                    .src
                    .get(usize::from(a.target.range().start())..usize::from(a.target.range().end()))
                    .unwrap_or("x")
            ))),
            Stmt::AugAssign(a) => self.aug_assign(b, a),
            Stmt::If(i) => self.if_stmt(b, &i.test, &i.body, &i.elif_else_clauses),
            Stmt::For(f) => self.for_stmt(b, f),
            Stmt::While(w) => {
                if !w.orelse.is_empty() {
                    return Err(
                        err(w.orelse[0].range(), "`while ... else` is not supported")
                            .with_label("here"),
                    );
                }
                self.loop_(b, None, &w.body, Some(&w.test))
            }
            Stmt::Break(_) | Stmt::Continue(_) => {
                let is_break = matches!(s, Stmt::Break(_));
                let Some(frame) = self.loops.last() else {
                    return Err(err(
                        span,
                        format!(
                            "`{}` outside a loop",
                            if is_break { "break" } else { "continue" }
                        ),
                    )
                    .with_label("not in a loop"));
                };
                let mut vs: Vec<Value> = Vec::new();
                if !is_break {
                    vs.extend(frame.next);
                }
                for n in &frame.carried {
                    vs.push(self.env[n]);
                }
                if is_break {
                    b.break_(vs);
                } else {
                    b.continue_(vs);
                }
                self.dead = true;
                Ok(())
            }
            Stmt::Return(r) => self.return_(b, r),
            Stmt::FunctionDef(f) => Err(err(
                f.name.range(),
                "nested function definitions are not supported",
            )
            .with_label("defined inside a function")
            .with_help("define it at module level with `@wp.func`")),
            Stmt::ClassDef(c) => Err(err(
                c.name.range(),
                "class definitions are not supported inside functions",
            )
            .with_label("here")
            .with_help("define a `@wp.struct` at module level")),
            Stmt::Import(_) | Stmt::ImportFrom(_) => {
                Err(err(span, "`import` inside a function is not supported")
                    .with_label("here")
                    .with_help("import modules at the top of the file"))
            }
            Stmt::Global(_) | Stmt::Nonlocal(_) => Err(err(
                span,
                "`global`/`nonlocal` are not supported",
            )
            .with_label("here")
            .with_help(
                "kernels cannot assign module-level names; write results into an array parameter",
            )),
            Stmt::Delete(_) => Err(err(span, "`del` is not supported").with_label("here")),
            Stmt::Try(_) => Err(err(keyword(span, 3), "`try` is not supported in kernels")
                .with_label("exceptions do not exist on the device")
                .with_help("check conditions with `if` instead")),
            Stmt::With(_) => Err(err(keyword(span, 4), "`with` is not supported in kernels")
                .with_label("here")
                .with_help("remove the `with` block and keep its body")),
            Stmt::Raise(_) => Err(err(keyword(span, 5), "`raise` is not supported in kernels")
                .with_label("exceptions do not exist on the device")),
            Stmt::Assert(_) => Ok(()),
            Stmt::Match(_) => Err(err(keyword(span, 5), "`match` is not supported")
                .with_label("here")
                .with_help("use `if`/`elif`/`else`")),
            Stmt::TypeAlias(_) | Stmt::IpyEscapeCommand(_) => {
                Err(err(span, "unsupported statement").with_label("here"))
            }
        }
    }

    fn check_target(&self, t: &Expr) -> Res<()> {
        match t {
            Expr::Name(n) => {
                let name = n.id.as_str();
                if self.array_params.contains(name) {
                    return Err(err(
                        n.range,
                        format!("cannot assign to array parameter `{name}`"),
                    )
                    .with_label("array parameters cannot be rebound")
                    .with_help(format!("to write elements, index it: `{name}[i] = ...`")));
                }
                if !self.env.contains_key(name) && self.m.consts.contains_key(name) {
                    return Err(err(
                        n.range,
                        format!("cannot assign to global constant `{name}`"),
                    )
                    .with_label("module-level name")
                    .with_help(
                        "kernels cannot modify globals; use a local variable with another name",
                    ));
                }
                Ok(())
            }
            Expr::Tuple(t) => t.elts.iter().try_for_each(|e| self.check_target(e)),
            Expr::List(t) => t.elts.iter().try_for_each(|e| self.check_target(e)),
            Expr::Attribute(_) | Expr::Subscript(_) => Ok(()),
            Expr::Starred(_) => {
                Err(err(t.range(), "starred assignment is not supported").with_label("here"))
            }
            _ => Err(err(t.range(), "cannot assign to this expression")
                .with_label("not a variable, element or field")),
        }
    }

    // ---------------------------------------------------------------- assignment

    fn assign(&mut self, b: &mut FuncBuilder, t: &Expr, v: Ev, vspan: Span) -> Res<()> {
        match t {
            Expr::Name(n) => {
                let v = match v {
                    Ev::Tuple(vs) if vs.len() > 1 => {
                        return Err(err(
                            vspan,
                            format!("cannot assign {} values to one name", vs.len()),
                        )
                        .with_label("this has several values")
                        .with_help("unpack them: `a, b = ...`"))
                    }
                    other => self.single(other, vspan)?,
                };
                let name = n.id.as_str();
                if let Some(&old) = self.env.get(name) {
                    let (ot, nt) = (b.ty(old), b.ty(v));
                    if ot != nt && !ot.is_array() {
                        return Err(err(
                            t.range(),
                            format!(
                                "variable `{name}` changes type from {} to {}",
                                self.tyname(ot),
                                self.tyname(nt)
                            ),
                        )
                        .with_label("assigned here")
                        .with_help(format!(
                            "a variable keeps one type; convert explicitly, e.g. `{}(...)`",
                            self.ctor_name(ot)
                        )));
                    }
                }
                self.name(b, v, name);
                self.env.insert(name.to_string(), v);
                self.maybe.remove(name);
                Ok(())
            }
            Expr::Tuple(_) | Expr::List(_) => {
                let elts: &[Expr] = match t {
                    Expr::Tuple(x) => &x.elts,
                    Expr::List(x) => &x.elts,
                    _ => &[],
                };
                let vs = match v {
                    Ev::Tuple(vs) => vs,
                    Ev::V(v) => {
                        return Err(err(
                            vspan,
                            format!(
                                "cannot unpack one value of type {} into {} names",
                                self.tyname(b.ty(v)),
                                elts.len()
                            ),
                        )
                        .with_label("one value"))
                    }
                    _ => return Err(err(vspan, "cannot unpack this value").with_label("here")),
                };
                if vs.len() != elts.len() {
                    return Err(err(
                        vspan,
                        format!(
                            "expected {} values to unpack, found {}",
                            elts.len(),
                            vs.len()
                        ),
                    )
                    .with_label(format!("{} values", vs.len())));
                }
                for (e, v) in elts.iter().zip(vs) {
                    self.assign(b, e, Ev::V(v), vspan)?;
                }
                Ok(())
            }
            Expr::Attribute(_) | Expr::Subscript(_) => {
                let v = self.single(v, vspan)?;
                self.store_place(b, t, v)
            }
            _ => Err(err(t.range(), "cannot assign to this expression").with_label("here")),
        }
    }

    fn single(&self, v: Ev, span: Span) -> Res<Value> {
        match v {
            Ev::V(v) => Ok(v),
            Ev::Tuple(vs) if vs.is_empty() => Err(err(span, "this expression has no value")
                .with_label("returns nothing")
                .with_help("only funcs that `return` a value can be used in an expression")),
            Ev::Tuple(vs) => Err(err(span, format!("expected one value, found {}", vs.len()))
                .with_label("several values")
                .with_help("unpack them: `a, b = ...`")),
            Ev::View(..) => Err(self.partial_index(span)),
            Ev::Shape(_) => {
                Err(err(span, "`shape` must be indexed").with_label("write `.shape[0]`"))
            }
        }
    }

    fn partial_index(&self, span: Span) -> Diagnostic {
        err(span, "array indexed with too few indices")
            .with_label("this is part of an array")
            .with_help("index every dimension: `a[i, j]`")
    }

    /// Resolves `target` rooted in an array element to (array, indices,
    /// constant path) if the component path is compile-time known.
    fn mem_place(&mut self, b: &mut FuncBuilder, e: &Expr) -> Res<Option<(MemAccess, Type)>> {
        match e {
            Expr::Subscript(s) => {
                let base = self.place_base(b, &s.value)?;
                match base {
                    Some(PlaceBase::Array(arr, mut idx)) => {
                        let Type::Array(at) = b.ty(arr) else {
                            return Ok(None);
                        };
                        idx.extend(self.array_indices(b, &s.slice)?);
                        if idx.len() != at.ndim as usize {
                            return Err(self.bad_index_count(s.range(), at.ndim, idx.len()));
                        }
                        Ok(Some((
                            MemAccess {
                                array: arr,
                                indices: idx,
                                path: Vec::new(),
                            },
                            Type::from(at.elem),
                        )))
                    }
                    Some(PlaceBase::Mem(mut m, ty)) => {
                        let idx = self.indices(b, &s.slice)?;
                        let mut ty = ty;
                        for v in idx {
                            let Some(c) = is_const(b, v) else {
                                return Ok(None);
                            };
                            let i = c.as_i128();
                            let n = ty.arity(self.structs) as i128;
                            if matches!(ty, Type::Struct(_)) || !(0..n).contains(&i) {
                                return Ok(None);
                            }
                            m.path.push(i as u32);
                            ty = ty.project(i as u32, self.structs).unwrap_or(ty);
                        }
                        Ok(Some((m, ty)))
                    }
                    None => Ok(None),
                }
            }
            Expr::Attribute(a) => {
                let Some(PlaceBase::Mem(mut m, ty)) = self.place_base(b, &a.value)? else {
                    return Ok(None);
                };
                let Some(i) = self.attr_index(ty, a.attr.id.as_str()) else {
                    return Ok(None);
                };
                m.path.push(i);
                let ty = ty.project(i, self.structs).unwrap_or(ty);
                Ok(Some((m, ty)))
            }
            _ => Ok(None),
        }
    }

    fn attr_index(&self, ty: Type, name: &str) -> Option<u32> {
        match ty {
            Type::Struct(id) => self.structs.get(id)?.field_index(name),
            Type::Vec(n, _) => ["x", "y", "z", "w"]
                .iter()
                .position(|&c| c == name)
                .filter(|&i| i < n as usize)
                .map(|i| i as u32),
            Type::Quat(_) => ["x", "y", "z", "w"]
                .iter()
                .position(|&c| c == name)
                .map(|i| i as u32),
            _ => None,
        }
    }

    fn place_base(&mut self, b: &mut FuncBuilder, e: &Expr) -> Res<Option<PlaceBase>> {
        grow(|| self.place_base_inner(b, e))
    }

    fn place_base_inner(&mut self, b: &mut FuncBuilder, e: &Expr) -> Res<Option<PlaceBase>> {
        if let Expr::Name(n) = e {
            if let Some(&v) = self.env.get(n.id.as_str()) {
                if b.ty(v).is_array() {
                    return Ok(Some(PlaceBase::Array(v, Vec::new())));
                }
            }
            return Ok(None);
        }
        if !matches!(e, Expr::Subscript(_) | Expr::Attribute(_)) {
            return Ok(None);
        }
        if let Expr::Subscript(s) = e {
            if let Some(PlaceBase::Array(arr, mut idx)) = self.place_base(b, &s.value)? {
                let Type::Array(at) = b.ty(arr) else {
                    return Ok(None);
                };
                idx.extend(self.array_indices(b, &s.slice)?);
                if idx.len() < at.ndim as usize {
                    return Ok(Some(PlaceBase::Array(arr, idx)));
                }
                if idx.len() > at.ndim as usize {
                    return Err(self.bad_index_count(s.range(), at.ndim, idx.len()));
                }
                return Ok(Some(PlaceBase::Mem(
                    MemAccess {
                        array: arr,
                        indices: idx,
                        path: Vec::new(),
                    },
                    Type::from(at.elem),
                )));
            }
        }
        Ok(self.mem_place(b, e)?.map(|(m, t)| PlaceBase::Mem(m, t)))
    }

    fn bad_index_count(&self, span: Span, ndim: u8, n: usize) -> Diagnostic {
        err(
            span,
            format!(
                "array of {ndim} dimension{} indexed with {n} indices",
                if ndim == 1 { "" } else { "s" }
            ),
        )
        .with_label(format!(
            "expected {ndim} ind{}",
            if ndim == 1 { "ex" } else { "ices" }
        ))
    }

    /// `target = v` for element/component targets.
    fn store_place(&mut self, b: &mut FuncBuilder, t: &Expr, v: Value) -> Res<()> {
        if let Some((m, ty)) = self.mem_place(b, t)? {
            self.at(b, t.range());
            let v = self.coerce_store(b, v, ty, t.range())?;
            b.store(m, v);
            return Ok(());
        }
        // Read-modify-write of the containing value.
        let (base, new) = match t {
            Expr::Attribute(a) => {
                let cur = self.val(b, &a.value)?;
                self.at(b, t.range());
                let name = a.attr.id.as_str();
                let ct = b.ty(cur);
                if ct.is_array() {
                    return Err(
                        err(t.range(), "cannot assign to an array attribute").with_label("here")
                    );
                }
                let new = if let Type::Struct(id) = ct {
                    let Some(i) = self.structs.get(id).and_then(|d| d.field_index(name)) else {
                        return Err(self.no_field(a.attr.range(), ct, name));
                    };
                    let ft = ct.project(i, self.structs).unwrap_or(ct);
                    let v = self.coerce_store(b, v, ft, t.range())?;
                    b.insert(cur, vec![i], v)
                } else {
                    builtins::set_attr(b, cur, name, v, t.range())?
                };
                (&a.value, new)
            }
            Expr::Subscript(s) => {
                let cur = self.val(b, &s.value)?;
                let idx = self.indices(b, &s.slice)?;
                self.at(b, t.range());
                let new = builtins::set_index(b, cur, &idx, v, t.range())?;
                (&s.value, new)
            }
            _ => return Err(err(t.range(), "cannot assign to this expression").with_label("here")),
        };
        match &**base {
            Expr::Name(n) => {
                if !self.env.contains_key(n.id.as_str()) {
                    return Err(self.unknown_name(n.range, n.id.as_str()));
                }
                self.assign(b, base, Ev::V(new), t.range())
            }
            Expr::Attribute(_) | Expr::Subscript(_) => self.store_place(b, base, new),
            _ => Err(err(base.range(), "cannot assign into a temporary value")
                .with_label("not a variable")
                .with_help("assign it to a variable first")),
        }
    }

    fn coerce_store(&mut self, b: &mut FuncBuilder, v: Value, ty: Type, span: Span) -> Res<Value> {
        let vt = b.ty(v);
        if vt == ty {
            return Ok(v);
        }
        Err(err(
            span,
            format!(
                "cannot store a value of type {} into {}",
                self.tyname(vt),
                self.tyname(ty)
            ),
        )
        .with_label(format!("expected {}", self.tyname(ty)))
        .with_help(format!(
            "convert it explicitly: `{}(...)`",
            self.ctor_name(ty)
        )))
    }

    fn ctor_name(&self, ty: Type) -> String {
        match ty {
            Type::Scalar(Scalar::F32) => "float".into(),
            Type::Scalar(Scalar::I32) => "int".into(),
            _ => format!("wp.{}", self.tyname(ty)),
        }
    }

    fn no_field(&self, span: Span, ty: Type, name: &str) -> Diagnostic {
        let mut d = err(span, format!("{} has no field `{name}`", self.tyname(ty)))
            .with_label("unknown field");
        if let Type::Struct(id) = ty {
            if let Some(def) = self.structs.get(id) {
                let names: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
                d = d.with_help(format!("its fields are: {}", names.join(", ")));
            }
        }
        d
    }

    fn aug_assign(&mut self, b: &mut FuncBuilder, a: &ast::StmtAugAssign) -> Res<()> {
        let span = a.range();
        self.check_target(&a.target)?;
        if let Expr::Name(n) = &*a.target {
            let cur = self.val(b, &a.target)?;
            let rhs = self.val(b, &a.value)?;
            self.at(b, span);
            let v = builtins::binary(b, self, a.op, cur, rhs, span)?;
            return self.assign(b, &Expr::Name(n.clone()), Ev::V(v), span);
        }
        let is_atomic = matches!(a.op, ast::Operator::Add | ast::Operator::Sub);
        if is_atomic {
            let place = self.mem_place(b, &a.target)?;
            let atomic_ok = |t: Type| t.scalar_of().is_some_and(|s| s != Scalar::Bool);
            if let Some((m, ty)) = place.filter(|p| atomic_ok(p.1)) {
                let rhs = self.val(b, &a.value)?;
                self.at(b, span);
                let rhs = self.coerce_store(b, rhs, ty, a.value.range())?;
                let op = if a.op == ast::Operator::Add {
                    AtomicOp::Add
                } else {
                    AtomicOp::Sub
                };
                b.atomic(op, m, rhs);
                return Ok(());
            }
        }
        let cur = self.val(b, &a.target)?;
        let rhs = self.val(b, &a.value)?;
        self.at(b, span);
        let v = builtins::binary(b, self, a.op, cur, rhs, span)?;
        self.store_place(b, &a.target, v)
    }

    // ---------------------------------------------------------------- control flow

    fn cond(&mut self, b: &mut FuncBuilder, e: &Expr) -> Res<Value> {
        let v = self.val(b, e)?;
        self.truthy(b, v, e.range())
    }

    fn truthy(&mut self, b: &mut FuncBuilder, v: Value, span: Span) -> Res<Value> {
        match b.ty(v) {
            Type::BOOL => Ok(v),
            Type::Scalar(s) => {
                self.at(b, span);
                let z = b.konst(Const::from_i128(s, 0));
                Ok(b.binary(BinaryOp::Ne, v, z))
            }
            t => Err(err(
                span,
                format!(
                    "a condition must be a bool or a number, found {}",
                    self.tyname(t)
                ),
            )
            .with_label("not a bool")),
        }
    }

    /// Lowers the two branches of an `if` and merges the environments.
    fn branches(
        &mut self,
        b: &mut FuncBuilder,
        cond: Value,
        span: Span,
        then_f: &mut dyn FnMut(&mut Self, &mut FuncBuilder) -> Res<Option<Value>>,
        else_f: &mut dyn FnMut(&mut Self, &mut FuncBuilder) -> Res<Option<Value>>,
    ) -> Res<Option<Value>> {
        let outer = b.region();
        let env0 = self.env.clone();
        let maybe0 = self.maybe.clone();
        let dead0 = self.dead;
        let tr = b.func.new_region();
        let er = b.func.new_region();
        let mut outs: Vec<BranchOut> = Vec::new();
        let mut branch_maybe: HashMap<String, Span> = HashMap::new();
        for r in [tr, er] {
            b.switch_to(r);
            self.env = env0.clone();
            self.dead = false;
            let res = if r == tr {
                then_f(self, b)?
            } else {
                else_f(self, b)?
            };
            let dead = self.dead || b.is_terminated();
            outs.push((r, std::mem::take(&mut self.env), dead, res));
            branch_maybe.extend(self.maybe.drain());
        }
        b.switch_to(outer);
        self.dead = dead0;
        self.maybe = maybe0;
        self.maybe.extend(branch_maybe);
        let live: Vec<usize> = (0..2).filter(|&i| !outs[i].2).collect();
        // The merged variables: defined on every live branch.
        let mut names: Vec<String> = Vec::new();
        let mut merged = BTreeMap::new();
        if let Some(&first) = live.first() {
            for (n, &v) in &outs[first].1 {
                let everywhere = live.iter().all(|&i| outs[i].1.contains_key(n));
                if !everywhere {
                    self.maybe.insert(n.clone(), span);
                    continue;
                }
                let same = env0.get(n) == Some(&v) && live.iter().all(|&i| outs[i].1[n] == v);
                if same {
                    merged.insert(n.clone(), v);
                } else {
                    let ts: Vec<Type> = live.iter().map(|&i| b.ty(outs[i].1[n])).collect();
                    if ts.iter().any(|&t| t != ts[0]) {
                        return Err(err(
                            span,
                            format!(
                                "variable `{n}` has type {} on one branch and {} on another",
                                self.tyname(ts[0]),
                                self.tyname(ts[ts.len() - 1])
                            ),
                        )
                        .with_label("branches disagree")
                        .with_help("give the variable the same type on every path"));
                    }
                    names.push(n.clone());
                }
            }
            for &i in &live {
                for n in outs[i].1.keys() {
                    if !outs[first].1.contains_key(n) {
                        self.maybe.insert(n.clone(), span);
                    }
                }
            }
        }
        // An expression result (ternary / bool op).
        let has_result = live.iter().any(|&i| outs[i].3.is_some());
        let mut types: Vec<Type> = Vec::new();
        if has_result {
            let ts: Vec<Type> = live
                .iter()
                .filter_map(|&i| outs[i].3)
                .map(|v| b.ty(v))
                .collect();
            if let [a, c] = ts.as_slice() {
                if a != c {
                    return Err(err(span, format!(
                        "the two values of this conditional expression have different types: {} and {}",
                        self.tyname(*a),
                        self.tyname(*c)
                    ))
                    .with_label("types differ")
                    .with_help("convert one of them so both have the same type"));
                }
            }
            let t = live
                .iter()
                .find_map(|&i| outs[i].3)
                .map(|v| b.ty(v))
                .unwrap_or(Type::BOOL);
            types.push(t);
        }
        for n in &names {
            let i = live[0];
            types.push(b.ty(outs[i].1[n]));
        }
        for (r, env, dead, res) in &outs {
            b.switch_to(*r);
            if *dead {
                if !b.is_terminated() {
                    let mut vs = Vec::new();
                    for &t in &types {
                        vs.push(zero(b, t, span)?);
                    }
                    b.yield_(vs);
                }
                continue;
            }
            let mut vs = Vec::new();
            if has_result {
                vs.push(res.ok_or_else(|| err(span, "internal error: a branch has no value"))?);
            }
            for n in &names {
                vs.push(env[n]);
            }
            b.yield_(vs);
        }
        b.switch_to(outer);
        self.at(b, span);
        let inst = b.ins(
            InstKind::If {
                cond,
                then_region: tr,
                else_region: er,
            },
            &types,
        );
        let results = b.func.results(inst).to_vec();
        self.env = merged;
        let mut k = 0;
        let mut out = None;
        if has_result {
            out = Some(results[0]);
            k = 1;
        }
        for (n, &v) in names.iter().zip(&results[k..]) {
            b.name_value(v, n);
            self.env.insert(n.clone(), v);
        }
        let env = &self.env;
        self.maybe.retain(|n, _| !env.contains_key(n));
        if live.is_empty() {
            self.dead = true;
        }
        Ok(out)
    }

    fn if_stmt(
        &mut self,
        b: &mut FuncBuilder,
        test: &Expr,
        body: &[Stmt],
        rest: &[ast::ElifElseClause],
    ) -> Res<()> {
        let c = self.cond(b, test)?;
        let span = test.range();
        self.branches(
            b,
            c,
            span,
            &mut |l, b| l.stmts(b, body).map(|_| None),
            &mut |l, b| {
                match rest.split_first() {
                    None => {}
                    Some((clause, more)) => match &clause.test {
                        Some(t) => {
                            l.at(b, clause.range());
                            l.if_stmt(b, t, &clause.body, more)?
                        }
                        None => l.stmts(b, &clause.body)?,
                    },
                }
                Ok(None)
            },
        )?;
        Ok(())
    }

    fn for_stmt(&mut self, b: &mut FuncBuilder, f: &ast::StmtFor) -> Res<()> {
        if f.is_async {
            return Err(err(f.range(), "`async for` is not supported").with_label("here"));
        }
        if !f.orelse.is_empty() {
            return Err(
                err(f.orelse[0].range(), "`for ... else` is not supported").with_label("here")
            );
        }
        let Expr::Name(var) = &*f.target else {
            return Err(
                err(f.target.range(), "the loop variable must be a single name").with_label("here"),
            );
        };
        let call = match &*f.iter {
            Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "range") => c,
            other => {
                return Err(err(
                    other.range(),
                    "only `for ... in range(...)` loops are supported",
                )
                .with_label("not a range")
                .with_help("iterate over indices: `for i in range(n)`"))
            }
        };
        let args = &call.arguments.args;
        if args.is_empty() || args.len() > 3 || !call.arguments.keywords.is_empty() {
            return Err(err(
                call.range(),
                format!("range() takes 1 to 3 arguments, {} given", args.len()),
            )
            .with_label("here"));
        }
        if self.array_params.contains(var.id.as_str())
            || (!self.env.contains_key(var.id.as_str())
                && self.m.consts.contains_key(var.id.as_str()))
        {
            self.check_target(&f.target)?;
        }
        // Constant bounds → maybe unroll.
        let consts: Option<Vec<i128>> = args
            .iter()
            .map(|a| {
                if self.refs_local(a) {
                    return None;
                }
                let ev = ConstEval {
                    imports: &self.m.imports,
                    consts: &self.m.consts,
                };
                ev.eval(a).ok().and_then(|v| v.as_int())
            })
            .collect();
        if let Some(cs) = consts {
            let (start, stop, step) = match cs.as_slice() {
                [n] => (0, *n, 1),
                [a, n] => (*a, *n, 1),
                [a, n, s] => (*a, *n, *s),
                _ => (0, 0, 1),
            };
            if step == 0 {
                return Err(
                    err(args[2].range(), "range() step must not be zero").with_label("zero")
                );
            }
            let count = if step > 0 {
                ((stop - start).max(0) + step - 1) / step
            } else {
                ((start - stop).max(0) + (-step) - 1) / (-step)
            };
            if count <= MAX_UNROLL && !has_break_continue(&f.body) {
                for k in 0..count {
                    let i = start + k * step;
                    self.at(b, f.target.range());
                    let v = b.iconst(Scalar::I32, i as i64);
                    b.name_value(v, var.id.as_str());
                    self.env.insert(var.id.to_string(), v);
                    self.stmts(b, &f.body)?;
                    if self.dead {
                        break;
                    }
                }
                return Ok(());
            }
        }
        let mut vs = Vec::new();
        for a in args.iter() {
            let v = self.val(b, a)?;
            if !b.ty(v).as_scalar().is_some_and(Scalar::is_int) {
                return Err(err(
                    a.range(),
                    format!("range() needs integers, found {}", self.tyname(b.ty(v))),
                )
                .with_label("not an integer")
                .with_help("convert with `int(...)`"));
            }
            vs.push((v, a.range()));
        }
        let ty = b.ty(vs[0].0);
        if let Some((v, s)) = vs.iter().find(|(v, _)| b.ty(*v) != ty) {
            return Err(err(
                *s,
                format!(
                    "range() arguments have different types ({} and {})",
                    self.tyname(ty),
                    self.tyname(b.ty(*v))
                ),
            )
            .with_label("here"));
        }
        let Type::Scalar(st) = ty else {
            return Err(err(call.range(), "bad range"));
        };
        self.at(b, call.range());
        let (start, stop, step) = match vs.as_slice() {
            [n] => (
                b.konst(Const::from_i128(st, 0)),
                n.0,
                b.konst(Const::from_i128(st, 1)),
            ),
            [a, n] => (a.0, n.0, b.konst(Const::from_i128(st, 1))),
            [a, n, s] => (a.0, n.0, s.0),
            _ => return Err(err(call.range(), "bad range")),
        };
        self.loop_(
            b,
            Some((var.id.as_str(), start, stop, step, call.range())),
            &f.body,
            None,
        )
    }

    fn refs_local(&self, e: &Expr) -> bool {
        grow(|| self.refs_local_inner(e))
    }

    fn refs_local_inner(&self, e: &Expr) -> bool {
        match e {
            Expr::Name(n) => self.env.contains_key(n.id.as_str()),
            Expr::BinOp(x) => self.refs_local(&x.left) || self.refs_local(&x.right),
            Expr::UnaryOp(x) => self.refs_local(&x.operand),
            Expr::Call(c) => c.arguments.args.iter().any(|a| self.refs_local(a)),
            Expr::Attribute(a) => self.refs_local(&a.value),
            _ => false,
        }
    }

    /// A `Loop` region: a range loop (`counter` = (var, start, stop, step))
    /// or a while loop (`test`).
    fn loop_(
        &mut self,
        b: &mut FuncBuilder,
        counter: Option<(&str, Value, Value, Value, Span)>,
        body: &[Stmt],
        test: Option<&Expr>,
    ) -> Res<()> {
        let mut assigned = BTreeSet::new();
        assigned_names(body, &mut assigned);
        if let Some((var, ..)) = counter {
            assigned.remove(var);
        }
        let carried: Vec<String> = assigned
            .into_iter()
            .filter(|n| self.env.contains_key(n))
            .collect();
        let env0 = self.env.clone();
        let mut init: Vec<Value> = Vec::new();
        if let Some((_, start, ..)) = counter {
            init.push(start);
        }
        for n in &carried {
            init.push(self.env[n]);
        }
        let types: Vec<Type> = carried.iter().map(|n| b.ty(self.env[n])).collect();
        let outer = b.region();
        let (inst, body_r, params) = b.loop_(init, &types);
        b.switch_to(body_r);
        let k0 = counter.is_some() as usize;
        for (n, &p) in carried.iter().zip(&params[k0..]) {
            b.name_value(p, n);
            self.env.insert(n.clone(), p);
        }
        // Header: leave when the condition fails.
        let (cond, next, cspan) = match (counter, test) {
            (Some((var, _, stop, step, span)), _) => {
                let c = params[0];
                b.name_value(c, var);
                let st = b.ty(c).as_scalar().unwrap_or(Scalar::I32);
                let sign = is_const(b, step).map(|k| k.as_i128().signum());
                let cond = match sign {
                    Some(1) => b.binary(BinaryOp::Lt, c, stop),
                    Some(-1) => b.binary(BinaryOp::Gt, c, stop),
                    Some(_) => {
                        return Err(err(span, "range() step must not be zero").with_label("zero"))
                    }
                    None => {
                        let z = b.konst(Const::from_i128(st, 0));
                        let pos = b.binary(BinaryOp::Gt, step, z);
                        let lt = b.binary(BinaryOp::Lt, c, stop);
                        let gt = b.binary(BinaryOp::Gt, c, stop);
                        b.select(pos, lt, gt)
                    }
                };
                let next = b.binary(BinaryOp::Add, c, step);
                self.env.insert(var.to_string(), c);
                (cond, Some(next), span)
            }
            (None, Some(t)) => (self.cond(b, t)?, None, t.range()),
            (None, None) => return Err(err(Span::default(), "loop without condition")),
        };
        self.at(b, cspan);
        let (_, tr, er) = b.if_(cond, &[]);
        b.switch_to(tr);
        b.yield_(Vec::new());
        b.switch_to(er);
        let exit_vals: Vec<Value> = params[k0..].to_vec();
        b.break_(exit_vals);
        b.switch_to(body_r);
        self.loops.push(LoopFrame {
            carried: carried.clone(),
            next,
        });
        let dead0 = self.dead;
        self.dead = false;
        let res = self.stmts(b, body);
        self.loops.pop();
        res?;
        if !self.dead && !b.is_terminated() {
            let mut vs: Vec<Value> = Vec::new();
            vs.extend(next);
            for (n, &t) in carried.iter().zip(&types) {
                let v = self.env[n];
                if b.ty(v) != t {
                    return Err(err(
                        cspan,
                        format!(
                            "variable `{n}` changes type from {} to {} inside the loop",
                            self.tyname(t),
                            self.tyname(b.ty(v))
                        ),
                    )
                    .with_label("in this loop")
                    .with_help("a variable keeps one type; convert explicitly"));
                }
                vs.push(v);
            }
            b.continue_(vs);
        } else if !b.is_terminated() {
            b.continue_(params.clone());
        }
        self.dead = dead0;
        b.switch_to(outer);
        // After the loop: names defined inside are gone; carried take results.
        let defined_inside: Vec<String> = self
            .env
            .keys()
            .filter(|k| !env0.contains_key(*k))
            .cloned()
            .collect();
        self.env = env0;
        for n in defined_inside {
            self.maybe.insert(n, cspan);
        }
        let results = b.func.results(inst).to_vec();
        for (n, v) in carried.iter().zip(results) {
            b.name_value(v, n);
            self.env.insert(n.clone(), v);
        }
        Ok(())
    }

    fn return_(&mut self, b: &mut FuncBuilder, r: &ast::StmtReturn) -> Res<()> {
        let span = r.range();
        let vals = match &r.value {
            None => Vec::new(),
            Some(e) => {
                if self.kind == FuncKind::Kernel {
                    return Err(err(e.range(), "kernels cannot return values")
                        .with_label("returned here")
                        .with_help(
                            "write the result into an array parameter; a bare `return` is allowed",
                        ));
                }
                match self.expr(b, e, 1)? {
                    Ev::V(v) => vec![v],
                    Ev::Tuple(vs) => vs,
                    other => vec![self.single(other, e.range())?],
                }
            }
        };
        let types: Vec<Type> = vals.iter().map(|&v| b.ty(v)).collect();
        match &self.ret {
            Some((expected, at, declared)) => {
                if *expected != types {
                    let show = |ts: &[Type]| -> String {
                        if ts.is_empty() {
                            "nothing".to_string()
                        } else {
                            ts.iter()
                                .map(|&t| self.tyname(t))
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    };
                    let d = if *declared {
                        err(
                            span,
                            format!(
                                "return type mismatch: expected {}, found {}",
                                show(expected),
                                show(&types)
                            ),
                        )
                        .with_label(format!("returns {}", show(&types)))
                        .with_secondary(*at, "declared here")
                    } else {
                        err(
                            span,
                            format!(
                                "inconsistent return types: {} here, {} before",
                                show(&types),
                                show(expected)
                            ),
                        )
                        .with_label(format!("returns {}", show(&types)))
                        .with_secondary(*at, format!("returns {}", show(expected)))
                        .with_help("every `return` of a func must return the same types")
                    };
                    return Err(d);
                }
            }
            None => self.ret = Some((types, span, false)),
        }
        self.at(b, span);
        b.return_(vals);
        self.dead = true;
        Ok(())
    }

    // ---------------------------------------------------------------- expressions

    fn val(&mut self, b: &mut FuncBuilder, e: &Expr) -> Res<Value> {
        let v = self.expr(b, e, 1)?;
        self.single(v, e.range())
    }

    /// Indices of an array access: integers.
    fn array_indices(&mut self, b: &mut FuncBuilder, slice: &Expr) -> Res<Vec<Value>> {
        let idx = self.indices(b, slice)?;
        self.check_int_indices(b, &idx, slice.range())?;
        Ok(idx)
    }

    fn check_int_indices(&self, b: &FuncBuilder, idx: &[Value], span: Span) -> Res<()> {
        for &i in idx {
            if !b.ty(i).as_scalar().is_some_and(Scalar::is_int) {
                return Err(err(
                    span,
                    format!(
                        "array index must be an integer, found {}",
                        self.tyname(b.ty(i))
                    ),
                )
                .with_label("bad index")
                .with_help("convert it with `int(...)`"));
            }
        }
        Ok(())
    }

    fn indices(&mut self, b: &mut FuncBuilder, slice: &Expr) -> Res<Vec<Value>> {
        match slice {
            Expr::Tuple(t) => t.elts.iter().map(|x| self.val(b, x)).collect(),
            x => Ok(vec![self.val(b, x)?]),
        }
    }

    /// Lowers an expression; `arity` is the number of assignment targets
    /// (for `wp.tid()`).
    fn expr(&mut self, b: &mut FuncBuilder, e: &Expr, arity: usize) -> Res<Ev> {
        grow(|| self.expr_inner(b, e, arity))
    }

    fn expr_inner(&mut self, b: &mut FuncBuilder, e: &Expr, arity: usize) -> Res<Ev> {
        let span = e.range();
        if let Some((msg, help)) = unsupported_expr(e) {
            return Err(err(span, msg)
                .with_label("not supported in kernels")
                .with_help(help));
        }
        match e {
            Expr::NumberLiteral(n) => {
                self.at(b, span);
                match &n.value {
                    Number::Int(i) => match i.as_i64().filter(|&x| x <= i32::MAX as i64) {
                        Some(x) => Ok(Ev::V(b.iconst(Scalar::I32, x))),
                        None => Err(err(span, "integer literal does not fit in int32")
                            .with_label("too large")
                            .with_help(
                                "wrap it in a wider type, e.g. `wp.int64(...)` or `wp.uint64(...)`",
                            )),
                    },
                    Number::Float(f) => Ok(Ev::V(b.fconst(Scalar::F32, *f))),
                    Number::Complex { .. } => {
                        Err(err(span, "complex numbers are not supported").with_label("here"))
                    }
                }
            }
            Expr::BooleanLiteral(x) => {
                self.at(b, span);
                Ok(Ev::V(b.bconst(x.value)))
            }
            Expr::Name(n) => self.name_ref(b, n),
            Expr::Attribute(a) => self.attribute(b, e, a),
            Expr::Subscript(s) => self.subscript(b, s),
            Expr::Call(c) => self.call(b, c, arity),
            Expr::Tuple(t) => {
                let mut vs = Vec::new();
                for x in &t.elts {
                    vs.push(self.val(b, x)?);
                }
                Ok(Ev::Tuple(vs))
            }
            Expr::BinOp(x) => {
                let l = self.val(b, &x.left)?;
                let r = self.val(b, &x.right)?;
                self.at(b, span);
                Ok(Ev::V(builtins::binary(b, self, x.op, l, r, span)?))
            }
            // `-2147483648` is an int32 literal although `2147483648` is not.
            Expr::UnaryOp(x)
                if x.op == ast::UnaryOp::USub
                    && matches!(&*x.operand, Expr::NumberLiteral(n) if matches!(&n.value, Number::Int(i) if i.as_i64() == Some(1 << 31))) =>
            {
                self.at(b, span);
                Ok(Ev::V(b.iconst(Scalar::I32, i32::MIN as i64)))
            }
            Expr::UnaryOp(x) => {
                let v = self.val(b, &x.operand)?;
                self.at(b, span);
                if x.op == ast::UnaryOp::Not {
                    let t = self.truthy(b, v, x.operand.range())?;
                    return Ok(Ev::V(builtins::unary(b, self, x.op, t, span)?));
                }
                Ok(Ev::V(builtins::unary(b, self, x.op, v, span)?))
            }
            Expr::Compare(c) => {
                let mut left = self.val(b, &c.left)?;
                let mut acc: Option<Value> = None;
                for (op, rhs) in c.ops.iter().zip(c.comparators.iter()) {
                    let r = self.val(b, rhs)?;
                    self.at(b, span);
                    let v = builtins::compare(b, self, *op, left, r, span)?;
                    acc = Some(match acc {
                        None => v,
                        Some(a) => b.binary(BinaryOp::And, a, v),
                    });
                    left = r;
                }
                acc.map(Ev::V).ok_or_else(|| err(span, "empty comparison"))
            }
            Expr::BoolOp(x) => self.bool_op(b, x.op, &x.values, span).map(Ev::V),
            Expr::If(x) => {
                let c = self.cond(b, &x.test)?;
                let r = self.branches(
                    b,
                    c,
                    span,
                    &mut |l, b| l.val(b, &x.body).map(Some),
                    &mut |l, b| l.val(b, &x.orelse).map(Some),
                )?;
                r.map(Ev::V)
                    .ok_or_else(|| err(span, "conditional expression has no value"))
            }
            _ => Err(err(span, "unsupported expression").with_label("here")),
        }
    }

    fn bool_op(
        &mut self,
        b: &mut FuncBuilder,
        op: ast::BoolOp,
        values: &[Expr],
        span: Span,
    ) -> Res<Value> {
        let Some((first, rest)) = values.split_first() else {
            return Err(err(span, "empty boolean expression"));
        };
        let a = self.cond(b, first)?;
        if rest.is_empty() {
            return Ok(a);
        }
        // `a and rest` = if a { rest } else { false }; `a or rest` = if a { true } else { rest }.
        let is_and = op == ast::BoolOp::And;
        let mut rest_f = |l: &mut Self, b: &mut FuncBuilder| l.bool_op(b, op, rest, span).map(Some);
        let mut konst_f = |l: &mut Self, b: &mut FuncBuilder| {
            l.at(b, span);
            Ok(Some(b.bconst(!is_and)))
        };
        let r = if is_and {
            self.branches(b, a, span, &mut rest_f, &mut konst_f)?
        } else {
            self.branches(b, a, span, &mut konst_f, &mut rest_f)?
        };
        r.ok_or_else(|| err(span, "boolean expression has no value"))
    }

    fn unknown_name(&self, span: Span, name: &str) -> Diagnostic {
        if let Some(&at) = self.maybe.get(name) {
            return err(
                span,
                format!("variable `{name}` is not defined on all paths"),
            )
            .with_label("may be undefined here")
            .with_secondary(at, "defined only on some paths through this")
            .with_help(format!("assign `{name}` before the branch or loop"));
        }
        if self.m.has_func(name) || self.m.kernel(name).is_some() {
            return err(span, format!("`{name}` is a function, not a value"))
                .with_label("here")
                .with_help(format!("call it: `{name}(...)`"));
        }
        if let Some((at, kind)) = self.m.host.get(name) {
            use crate::module::HostKind;
            let (msg, label, help) = match kind {
                HostKind::Module => (
                    format!("module `{name}` cannot be used in a kernel"),
                    "imported here".to_string(),
                    "kernels may use `warp`, and `numpy`/`math` constants and functions that are Warp builtins".to_string(),
                ),
                HostKind::Imported => (
                    format!("`{name}` is imported from a host module"),
                    "imported here".to_string(),
                    "use `wp.<name>` for Warp's types and builtins".to_string(),
                ),
                HostKind::Value(why) => (
                    format!("`{name}` is not a compile-time constant"),
                    "assigned here".to_string(),
                    format!("kernels can read module-level values that are compile-time constants ({why}); declare it with `wp.constant(...)`"),
                ),
            };
            return err(span, msg)
                .with_label("used in a kernel")
                .with_secondary(*at, label)
                .with_help(help);
        }
        if self.m.structs.contains_key(name) {
            return err(span, format!("`{name}` is a struct type, not a value"))
                .with_label("here")
                .with_help(format!("construct one: `{name}()`"));
        }
        let mut d = err(span, format!("unknown name `{name}`")).with_label("not defined");
        let cands = self.env.keys().chain(self.m.consts.keys());
        if let Some(best) = cands
            .filter(|c| edit_distance(c, name) <= 2.max(name.len() / 3))
            .min_by_key(|c| edit_distance(c, name))
        {
            d = d.with_help(format!("did you mean `{best}`?"));
        } else {
            d = d.with_help("define it before use, or declare a module-level `wp.constant`");
        }
        d
    }

    fn name_ref(&mut self, b: &mut FuncBuilder, n: &ast::ExprName) -> Res<Ev> {
        let name = n.id.as_str();
        if let Some(&v) = self.env.get(name) {
            return Ok(Ev::V(v));
        }
        if let Some(c) = self.m.consts.get(name) {
            self.at(b, n.range);
            return Ok(Ev::V(materialize(b, c)));
        }
        Err(self.unknown_name(n.range, name))
    }

    fn attribute(&mut self, b: &mut FuncBuilder, e: &Expr, a: &ast::ExprAttribute) -> Res<Ev> {
        let span = a.range();
        let attr = a.attr.id.as_str();
        if let Some((m, _)) = dotted(e) {
            if !self.env.contains_key(m) {
                let imp = &self.m.imports;
                if imp.is_wp(m) || imp.is_np(m) || imp.is_math(m) {
                    let ev = ConstEval {
                        imports: imp,
                        consts: &self.m.consts,
                    };
                    return match ev.eval(e) {
                        Ok(c) => {
                            self.at(b, span);
                            Ok(Ev::V(materialize(b, &c)))
                        }
                        Err(_) => Err(err(span, format!("`{m}.{attr}` is not a value"))
                            .with_label("unknown attribute")
                            .with_help(if imp.is_wp(m) {
                                "call builtins as `wp.name(...)`; see Warp's list of builtins"
                            } else {
                                "only constants such as `np.pi` may be used from numpy/math"
                            })),
                    };
                }
            }
        }
        let base = self.expr(b, &a.value, 1)?;
        let v = match base {
            Ev::V(v) => v,
            other => {
                return Err(err(span, format!("no attribute `{attr}` here")).with_label(
                    match other {
                        Ev::Tuple(_) => "on a tuple",
                        _ => "on an array",
                    },
                ))
            }
        };
        let ty = b.ty(v);
        self.at(b, span);
        match ty {
            Type::Array(_) if attr == "shape" => Ok(Ev::Shape(v)),
            Type::Array(_) => Err(err(
                a.attr.range(),
                format!("arrays have no attribute `{attr}`"),
            )
            .with_label("unknown attribute")
            .with_help("arrays have `.shape`")),
            Type::Struct(id) => {
                let Some(i) = self.structs.get(id).and_then(|d| d.field_index(attr)) else {
                    return Err(self.no_field(a.attr.range(), ty, attr));
                };
                Ok(Ev::V(b.extract(v, vec![i])))
            }
            _ => Ok(Ev::V(builtins::get_attr(b, v, attr, span)?)),
        }
    }

    fn subscript(&mut self, b: &mut FuncBuilder, s: &ast::ExprSubscript) -> Res<Ev> {
        let span = s.range();
        let base = self.expr(b, &s.value, 1)?;
        let idx = self.indices(b, &s.slice)?;
        self.at(b, span);
        match base {
            Ev::V(v) if b.ty(v).is_array() => self.index_array(b, v, Vec::new(), idx, span),
            Ev::View(arr, prev) => self.index_array(b, arr, prev, idx, span),
            Ev::V(v) => Ok(Ev::V(builtins::get_index(b, v, &idx, span)?)),
            Ev::Shape(_) | Ev::Tuple(_) if idx.len() != 1 => {
                Err(err(span, "expected one index").with_label("here"))
            }
            Ev::Shape(arr) => {
                let Type::Array(at) = b.ty(arr) else {
                    return Err(err(span, "not an array"));
                };
                match is_const(b, idx[0]).map(|c| c.as_i128()) {
                    Some(k) if (0..at.ndim as i128).contains(&k) => {
                        Ok(Ev::V(b.array_shape(arr, k as u8)))
                    }
                    Some(k) => Err(err(
                        s.slice.range(),
                        format!(
                            "shape index {k} out of range for an array of {} dimensions",
                            at.ndim
                        ),
                    )
                    .with_label("out of range")),
                    None => Err(
                        err(s.slice.range(), "`shape` must be indexed with a constant")
                            .with_label("not a constant"),
                    ),
                }
            }
            Ev::Tuple(vs) => match is_const(b, idx[0]).map(|c| c.as_i128()) {
                Some(k) if (0..vs.len() as i128).contains(&k) => Ok(Ev::V(vs[k as usize])),
                _ => Err(err(
                    s.slice.range(),
                    "tuples must be indexed with an in-range constant",
                )
                .with_label("here")),
            },
        }
    }

    fn index_array(
        &mut self,
        b: &mut FuncBuilder,
        arr: Value,
        mut prev: Vec<Value>,
        idx: Vec<Value>,
        span: Span,
    ) -> Res<Ev> {
        let Type::Array(at) = b.ty(arr) else {
            return Err(err(span, "not an array"));
        };
        prev.extend(idx);
        self.check_int_indices(b, &prev, span)?;
        let nd = at.ndim as usize;
        if prev.len() < nd {
            return Ok(Ev::View(arr, prev));
        }
        if prev.len() > nd {
            return Err(self.bad_index_count(span, at.ndim, prev.len()));
        }
        Ok(Ev::V(b.load(MemAccess {
            array: arr,
            indices: prev,
            path: Vec::new(),
        })))
    }

    // ---------------------------------------------------------------- calls

    fn call(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall, arity: usize) -> Res<Ev> {
        let span = c.range();
        // Callee.
        if let Some((m, name)) = dotted(&c.func) {
            if !self.env.contains_key(m) {
                let imp = &self.m.imports;
                if imp.is_wp(m) {
                    return self.wp_call(b, c, name, arity);
                }
                if imp.is_np(m) || imp.is_math(m) {
                    // As in Warp, `np.sqrt(x)`/`math.sin(x)` in a kernel are
                    // the builtins of the same name.
                    if builtins::is_builtin(name) {
                        return self.builtin(b, c, name);
                    }
                    let ev = ConstEval {
                        imports: imp,
                        consts: &self.m.consts,
                    };
                    return match ev.eval(&Expr::Call(c.clone())) {
                        Ok(v) => {
                            self.at(b, span);
                            Ok(Ev::V(materialize(b, &v)))
                        }
                        Err(_) => Err(err(
                            span,
                            format!("`{m}.{name}` cannot be called in a kernel"),
                        )
                        .with_label("not a Warp builtin")
                        .with_help("only numpy/math functions that are also Warp builtins may be called in kernels")),
                    };
                }
            }
        }
        let Expr::Name(fname) = &*c.func else {
            let r = c.func.range();
            let text = self
                .m
                .src
                .get(usize::from(r.start())..usize::from(r.end()))
                .unwrap_or("this");
            return Err(err(r, format!("`{text}` cannot be called in a kernel"))
                .with_label("not a Warp builtin, @wp.func or type")
                .with_help(
                    "call Warp builtins as `wp.name(...)` and your own `@wp.func`s by name",
                ));
        };
        let name = fname.id.as_str();
        if self.env.contains_key(name) {
            return Err(err(
                c.func.range(),
                format!("`{name}` is a variable, not a function"),
            )
            .with_label("not callable"));
        }
        if let Some(defs) = self.m.func_defs(name, self.structs) {
            return self.call_func(b, c, name, &defs, self.origin);
        }
        if let Some(&sid) = self.m.structs.get(name) {
            return self.construct_struct(b, c, sid).map(Ev::V);
        }
        if let Some(k) = self.m.kernel(name) {
            return Err(err(
                c.func.range(),
                format!("cannot call kernel `{name}` from a kernel or func"),
            )
            .with_label("a kernel")
            .with_secondary(k.name.range(), "defined as a kernel here")
            .with_help("kernels are launched from the host; make the shared code a `@wp.func`"));
        }
        if let Some(&at) = self.m.py_funcs.get(name) {
            return Err(err(
                c.func.range(),
                format!("`{name}` is a plain Python function"),
            )
            .with_label("not callable from a kernel")
            .with_secondary(at, "defined without a decorator")
            .with_help("decorate it with `@wp.func`"));
        }
        if let Some(&at) = self.m.py_classes.get(name) {
            return Err(crate::module::plain_class(c.func.range(), name, at));
        }
        match name {
            "range" => {
                return Err(err(
                    span,
                    "`range(...)` is only allowed as the iterable of a `for` loop",
                )
                .with_label("here"))
            }
            "print" => return self.print(b, c, false),
            "len" => {
                let [a] = &*c.arguments.args else {
                    return Err(self.arg_count(span, "len", 1, c.arguments.args.len()));
                };
                let v = self.val(b, a)?;
                self.at(b, span);
                return match b.ty(v) {
                    Type::Array(_) => Ok(Ev::V(b.array_shape(v, 0))),
                    Type::Vec(n, _) | Type::Mat(n, _, _) => {
                        Ok(Ev::V(b.iconst(Scalar::I32, n as i64)))
                    }
                    Type::Quat(_) => Ok(Ev::V(b.iconst(Scalar::I32, 4))),
                    Type::Transform(_) => Ok(Ev::V(b.iconst(Scalar::I32, 7))),
                    t => Err(err(a.range(), format!("len() of {}", self.tyname(t)))
                        .with_label("has no length")),
                };
            }
            _ => {}
        }
        if let Some(ty) = typenames::py_type(name) {
            return self.construct(b, c, ty).map(Ev::V);
        }
        if builtins::is_builtin(name) {
            return self.builtin(b, c, name);
        }
        Err(err(c.func.range(), format!("unknown function `{name}`"))
            .with_label("not defined")
            .with_help(
                if builtins::is_builtin(name) || typenames::wp_type(name).is_some() {
                    format!("did you mean `wp.{name}`?")
                } else {
                    "define it with `@wp.func` at module level, or call a builtin as `wp.name(...)`"
                        .to_string()
                },
            ))
    }

    fn arg_count(&self, span: Span, name: &str, expected: usize, found: usize) -> Diagnostic {
        err(
            span,
            format!(
                "`{name}` takes {expected} argument{} but {found} {} given",
                if expected == 1 { "" } else { "s" },
                if found == 1 { "was" } else { "were" }
            ),
        )
        .with_label(format!("expected {expected}"))
    }

    fn args(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall) -> Res<(Vec<Value>, Kwargs)> {
        let mut args = Vec::new();
        for a in c.arguments.args.iter() {
            args.push(self.val(b, a)?);
        }
        let mut kws = Vec::new();
        for k in c.arguments.keywords.iter() {
            let Some(name) = &k.arg else {
                return Err(err(k.range(), "`**kwargs` is not supported").with_label("here"));
            };
            // Type-valued arguments (`dtype=float`) are passed as a zero of
            // that type.
            if let Some(ty) = self.type_arg(&k.value) {
                self.at(b, k.value.range());
                kws.push((name.id.to_string(), zero(b, ty, k.value.range())?));
                continue;
            }
            kws.push((name.id.to_string(), self.val(b, &k.value)?));
        }
        Ok((args, kws))
    }

    /// `float`, `int`, `bool`, `wp.<type>` or a struct name used as a value.
    fn type_arg(&self, e: &Expr) -> Option<Type> {
        match e {
            Expr::Name(n) if !self.env.contains_key(n.id.as_str()) => {
                typenames::py_type(n.id.as_str()).or_else(|| {
                    self.m
                        .structs
                        .get(n.id.as_str())
                        .map(|&id| Type::Struct(id))
                })
            }
            Expr::Attribute(_) => match dotted(e) {
                Some((m, t)) if !self.env.contains_key(m) && self.m.imports.is_wp(m) => {
                    typenames::wp_type(t)
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn wp_call(
        &mut self,
        b: &mut FuncBuilder,
        c: &ast::ExprCall,
        name: &str,
        arity: usize,
    ) -> Res<Ev> {
        let span = c.range();
        match name {
            "tid" => {
                if !c.arguments.args.is_empty() || !c.arguments.keywords.is_empty() {
                    return Err(self.arg_count(
                        span,
                        "wp.tid",
                        0,
                        c.arguments.args.len() + c.arguments.keywords.len(),
                    ));
                }
                if arity > 4 {
                    return Err(err(
                        span,
                        format!("wp.tid() returns at most 4 indices, {arity} requested"),
                    )
                    .with_label("too many targets"));
                }
                self.at(b, span);
                let t = b.thread_id();
                // Warp returns the first `arity` indices of the row-major
                // decomposition of the launch: drop the trailing axes first
                // (a division by their product, skipped when it is 1, which it
                // is whenever the launch has at most `arity` dimensions).
                let mut rest = t;
                if arity < 4 {
                    let mut p = b.launch_dim(arity as u8);
                    for axis in arity + 1..4 {
                        let d = b.launch_dim(axis as u8);
                        p = b.binary(BinaryOp::Mul, p, d);
                    }
                    let one = b.iconst(Scalar::I32, 1);
                    let trivial = b.binary(BinaryOp::Eq, p, one);
                    let (inst, tr, er) = b.if_(trivial, &[Type::I32]);
                    let outer = b.region();
                    b.switch_to(tr);
                    b.yield_(vec![t]);
                    b.switch_to(er);
                    let q = b.binary(BinaryOp::Div, t, p);
                    b.yield_(vec![q]);
                    b.switch_to(outer);
                    rest = b.func.results(inst)[0];
                }
                if arity <= 1 {
                    return Ok(Ev::V(rest));
                }
                let mut out = vec![rest; arity];
                for axis in (1..arity).rev() {
                    let d = b.launch_dim(axis as u8);
                    out[axis] = b.binary(BinaryOp::Rem, rest, d);
                    rest = b.binary(BinaryOp::Div, rest, d);
                }
                out[0] = rest;
                return Ok(Ev::Tuple(out));
            }
            "printf" => return self.print(b, c, true),
            "static" => {
                let [arg] = &*c.arguments.args else {
                    return Err(self.arg_count(span, "wp.static", 1, c.arguments.args.len()));
                };
                if self.refs_local(arg) {
                    return Err(
                        err(arg.range(), "`wp.static` needs a compile-time expression")
                            .with_label("uses a local variable"),
                    );
                }
                let ev = ConstEval {
                    imports: &self.m.imports,
                    consts: &self.m.consts,
                };
                let v = ev.eval(arg)?;
                self.at(b, span);
                return Ok(Ev::V(materialize(b, &v)));
            }
            "constant" => {
                return Err(err(span, "`wp.constant` is only allowed at module level")
                    .with_label("here")
                    .with_help("declare `NAME = wp.constant(...)` at the top of the file"))
            }
            "kernel" | "func" | "struct" | "launch" | "array" | "zeros" | "init" => {
                return Err(err(
                    span,
                    format!("`wp.{name}` cannot be used inside a kernel or func"),
                )
                .with_label("host-side API"))
            }
            _ => {}
        }
        if let Some(ty) = typenames::wp_type(name) {
            return self.construct(b, c, ty).map(Ev::V);
        }
        if builtins::is_builtin(name) {
            return self.builtin(b, c, name);
        }
        Err(err(c.func.range(), format!("unknown builtin `wp.{name}`"))
            .with_label("not a Warp builtin")
            .with_help("see the list of builtins in Warp's documentation (Kernel Reference)"))
    }

    fn builtin(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall, name: &str) -> Res<Ev> {
        let span = c.range();
        let (args, kws) = self.args(b, c)?;
        self.at(b, span);
        let mut vs = builtins::call_builtin(b, self, name, &args, &kws, span)?;
        if builtins::advances_rng_state(name) && vs.len() == 2 {
            // Warp passes the RNG state by reference: store the new state back.
            let state = vs[1];
            vs.truncate(1);
            if let Some(target) = c.arguments.args.first() {
                let assignable = match target {
                    Expr::Name(n) => self.env.contains_key(n.id.as_str()),
                    Expr::Attribute(_) | Expr::Subscript(_) => true,
                    _ => false,
                };
                if assignable {
                    self.assign(b, target, Ev::V(state), span)?;
                }
            }
        }
        Ok(match vs.as_slice() {
            [v] => Ev::V(*v),
            _ => Ev::Tuple(vs),
        })
    }

    fn print(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall, printf: bool) -> Res<Ev> {
        let span = c.range();
        let mut fmt = String::new();
        let mut vals = Vec::new();
        let mut args = c.arguments.args.iter();
        if printf {
            match args.next() {
                Some(Expr::StringLiteral(s)) => fmt.push_str(s.value.to_str()),
                _ => {
                    return Err(
                        err(span, "wp.printf needs a format string first").with_label("here")
                    )
                }
            }
            for a in args {
                let v = self.val(b, a)?;
                if b.ty(v).is_array() {
                    return Err(err(a.range(), "arrays cannot be printed")
                        .with_label("an array")
                        .with_help("print its elements, e.g. `a[i]`"));
                }
                vals.push(v);
            }
        } else {
            for (k, a) in args.enumerate() {
                if k > 0 {
                    fmt.push(' ');
                }
                if let Expr::StringLiteral(s) = a {
                    fmt.push_str(&s.value.to_str().replace('%', "%%"));
                    continue;
                }
                let v = self.val(b, a)?;
                if b.ty(v).is_array() {
                    return Err(err(a.range(), "arrays cannot be printed")
                        .with_label("an array")
                        .with_help("print its elements, e.g. `print(a[i])`"));
                }
                let spec = match b.ty(v).scalar_of() {
                    Some(s) if s.is_float() => "%g",
                    Some(s) if s.is_unsigned_int() => "%u",
                    _ => "%d",
                };
                fmt.push_str(spec);
                vals.push(v);
            }
            fmt.push('\n');
        }
        self.at(b, span);
        b.print(&fmt, vals);
        Ok(Ev::Tuple(Vec::new()))
    }

    /// A type constructor call; scalar constructors of literals are folded
    /// so that `wp.uint64(0x9E37...)` and `wp.float64(0.1)` are exact.
    fn construct(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall, ty: Type) -> Res<Value> {
        let span = c.range();
        if let (Type::Scalar(s), [a], true) =
            (ty, &*c.arguments.args, c.arguments.keywords.is_empty())
        {
            if is_literal(a) {
                let ev = ConstEval {
                    imports: &self.m.imports,
                    consts: &self.m.consts,
                };
                if let Some(k) = ev.eval(a).ok().and_then(|v| to_const(&v, s)) {
                    self.at(b, span);
                    return Ok(b.konst(k));
                }
            }
        }
        let (args, kws) = self.args(b, c)?;
        self.at(b, span);
        builtins::construct(b, self, ty, &args, &kws, span)
    }

    fn construct_struct(
        &mut self,
        b: &mut FuncBuilder,
        c: &ast::ExprCall,
        sid: weft_ir::StructId,
    ) -> Res<Value> {
        let span = c.range();
        let Some(def) = self.structs.get(sid) else {
            return Err(err(span, "unknown struct"));
        };
        let sname = def.name.clone();
        let fields: Vec<(String, Type)> =
            def.fields.iter().map(|f| (f.name.clone(), f.ty)).collect();
        if c.arguments.args.len() > fields.len() {
            return Err(self.arg_count(span, &sname, fields.len(), c.arguments.args.len()));
        }
        let mut vals: Vec<Option<Value>> = vec![None; fields.len()];
        for (i, a) in c.arguments.args.iter().enumerate() {
            let v = self.val(b, a)?;
            vals[i] = Some(self.coerce_store(b, v, fields[i].1, a.range())?);
        }
        for k in c.arguments.keywords.iter() {
            let Some(kn) = &k.arg else {
                return Err(err(k.range(), "`**kwargs` is not supported").with_label("here"));
            };
            let Some(i) = fields.iter().position(|f| f.0 == kn.id.as_str()) else {
                return Err(self.no_field(kn.range(), Type::Struct(sid), kn.id.as_str()));
            };
            let v = self.val(b, &k.value)?;
            vals[i] = Some(self.coerce_store(b, v, fields[i].1, k.value.range())?);
        }
        self.at(b, span);
        let mut parts = Vec::new();
        for (v, (_, t)) in vals.into_iter().zip(&fields) {
            parts.push(match v {
                Some(v) => v,
                None => zero(b, *t, span)?,
            });
        }
        Ok(b.make(Type::Struct(sid), parts))
    }

    /// Calls a user (or prelude) func with overload resolution.
    fn call_func(
        &mut self,
        b: &mut FuncBuilder,
        c: &ast::ExprCall,
        name: &str,
        defs: &[FuncDef<'a>],
        origin: Origin,
    ) -> Res<Ev> {
        let span = c.range();
        let (args, kws) = self.args(b, c)?;
        let arg_spans: Vec<Span> = c.arguments.args.iter().map(|a| a.range()).collect();
        self.at(b, span);
        let vs = self.resolve_and_call(b, name, defs, origin, &args, &arg_spans, &kws, span)?;
        Ok(match vs.as_slice() {
            [v] => Ev::V(*v),
            _ => Ev::Tuple(vs),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn resolve_and_call(
        &mut self,
        b: &mut FuncBuilder,
        name: &str,
        defs: &[FuncDef<'a>],
        origin: Origin,
        args: &[Value],
        arg_spans: &[Span],
        kws: &[(String, Value)],
        span: Span,
    ) -> Res<Vec<Value>> {
        let m = match origin {
            Origin::User => self.mods.user,
            Origin::Prelude => self.mods.prelude.unwrap_or(self.mods.user),
        };
        // Bind arguments to each candidate.
        let mut bound: Vec<Result<Vec<Value>, Diagnostic>> = Vec::new();
        for fd in defs {
            bound.push(self.bind(b, m, fd, name, args, arg_spans, kws, span));
        }
        // Concrete overloads win over generic ones.
        let generic = |fd: &FuncDef<'_>| fd.params.iter().any(|p| p.1.is_none());
        let pick = (0..defs.len())
            .find(|&i| bound[i].is_ok() && !generic(&defs[i]))
            .or_else(|| (0..defs.len()).find(|&i| bound[i].is_ok()));
        let Some(k) = pick else {
            if defs.len() == 1 {
                return Err(bound
                    .pop()
                    .and_then(|r| r.err())
                    .unwrap_or_else(|| err(span, "bad call")));
            }
            let types: Vec<String> = args.iter().map(|&v| self.tyname(b.ty(v))).collect();
            let mut d = err(
                span,
                format!(
                    "no overload of `{name}` matches argument types ({})",
                    types.join(", ")
                ),
            )
            .with_label("no matching overload");
            for fd in defs {
                d = d.with_help(format!("candidate: {}", self.signature(name, fd)));
            }
            return Err(d);
        };
        let Some(Ok(full)) = bound.into_iter().nth(k) else {
            return Err(err(span, "bad call"));
        };
        let fd = &defs[k];
        let ptypes: Vec<Type> = full.iter().map(|&v| b.ty(v)).collect();
        let key = (origin, fd.index, ptypes.clone());
        let slot = match self.ctx.instances.get(&key).cloned() {
            Some(InstState::Done(s)) => s,
            Some(InstState::InProgress) => {
                return Err(err(span, format!("recursive call to `{name}`"))
                    .with_label("recursion")
                    .with_secondary(fd.def.name.range(), "while compiling this func")
                    .with_help("recursion is not supported (GPUs have no call stack to spare); rewrite it as a loop"))
            }
            Some(InstState::Failed(msgs)) => return Err(self.callee_failed(name, origin, &msgs, span)),
            None => {
                let mangled = if defs.len() > 1 || generic(fd) {
                    let ts: Vec<String> = ptypes
                        .iter()
                        .map(|&t| typenames::mangle(t, self.structs))
                        .collect();
                    format!("{name}__{}", ts.join("_"))
                } else {
                    name.to_string()
                };
                match lower_func(self.ctx, self.structs, self.mods, origin, fd, &ptypes, &mangled) {
                    Ok(s) => s,
                    Err(ds) => {
                        let msgs: Vec<String> = ds.iter().filter(|d| !d.is_reported()).map(|d| d.message.clone()).collect();
                        if origin == Origin::User {
                            self.ctx.diags.extend(ds);
                        }
                        return Err(self.callee_failed(name, origin, &msgs, span));
                    }
                }
            }
        };
        let rets = self.ctx.returns[slot as usize].clone();
        self.at(b, span);
        let inst = b.call(FuncId::from_u32(slot), full, &rets);
        Ok(b.func.results(inst).to_vec())
    }

    fn callee_failed(&self, name: &str, origin: Origin, msgs: &[String], span: Span) -> Diagnostic {
        match origin {
            Origin::User => Diagnostic::reported(),
            Origin::Prelude => {
                let mut d = err(
                    span,
                    format!("internal error: prelude func `{name}` failed to compile"),
                )
                .with_label("in this call");
                for m in msgs {
                    d = d.with_help(m.clone());
                }
                d
            }
        }
    }

    fn signature(&self, name: &str, fd: &FuncDef<'_>) -> String {
        let ps: Vec<String> = fd
            .params
            .iter()
            .map(|(n, t)| match t {
                Some(t) => format!("{n}: {}", self.tyname(*t)),
                None => format!("{n}: Any"),
            })
            .collect();
        format!("{name}({})", ps.join(", "))
    }

    #[allow(clippy::too_many_arguments)]
    fn bind(
        &mut self,
        b: &mut FuncBuilder,
        m: &'a ModInfo<'a>,
        fd: &FuncDef<'a>,
        name: &str,
        args: &[Value],
        arg_spans: &[Span],
        kws: &[(String, Value)],
        span: Span,
    ) -> Res<Vec<Value>> {
        let n = fd.params.len();
        if args.len() > n {
            return Err(self.arg_count(span, name, n, args.len()));
        }
        let mut out: Vec<Option<Value>> = vec![None; n];
        for (i, &v) in args.iter().enumerate() {
            out[i] = Some(v);
        }
        for (k, v) in kws {
            let Some(i) = fd.params.iter().position(|p| &p.0 == k) else {
                return Err(err(span, format!("`{name}` has no parameter `{k}`"))
                    .with_label("unknown keyword argument")
                    .with_help(format!("its signature is {}", self.signature(name, fd))));
            };
            if out[i].is_some() {
                return Err(
                    err(span, format!("parameter `{k}` of `{name}` given twice"))
                        .with_label("here"),
                );
            }
            out[i] = Some(*v);
        }
        let pdefs: Vec<&ast::ParameterWithDefault> =
            fd.def.parameters.iter_non_variadic_params().collect();
        let mut full = Vec::new();
        for (i, slot) in out.into_iter().enumerate() {
            let (pname, pty) = &fd.params[i];
            let v = match slot {
                Some(v) => v,
                None => {
                    let Some(def) = pdefs.get(i).and_then(|p| p.default.as_ref()) else {
                        let given = args.len() + kws.len();
                        return Err(err(span, format!("`{name}` takes {n} argument{} but {given} {} given; `{pname}` is missing", if n == 1 { "" } else { "s" }, if given == 1 { "was" } else { "were" }))
                            .with_label(format!("missing `{pname}`"))
                            .with_help(format!("its signature is {}", self.signature(name, fd))));
                    };
                    let ev = ConstEval {
                        imports: &m.imports,
                        consts: &m.consts,
                    };
                    let c = ev.eval(def).map_err(|_| {
                        err(
                            span,
                            format!(
                                "the default value of `{pname}` is not a compile-time constant"
                            ),
                        )
                        .with_label("in this call")
                    })?;
                    let c = match (c, *pty) {
                        (CVal::Agg(t, cs), _) => CVal::Agg(t, cs),
                        (c, Some(Type::Scalar(s))) => to_const(&c, s).map(CVal::Typed).unwrap_or(c),
                        (c, _) => c,
                    };
                    self.at(b, span);
                    materialize(b, &c)
                }
            };
            let Some(pty) = pty else {
                // Generic: takes the argument's type.
                full.push(v);
                continue;
            };
            if b.ty(v) != *pty {
                let at = arg_spans.get(i).copied().unwrap_or(span);
                return Err(err(
                    at,
                    format!(
                        "argument `{pname}` of `{name}` expects {}, found {}",
                        self.tyname(*pty),
                        self.tyname(b.ty(v))
                    ),
                )
                .with_label(format!("expected {}", self.tyname(*pty)))
                .with_help(format!("its signature is {}", self.signature(name, fd))));
            }
            full.push(v);
        }
        Ok(full)
    }
}

enum PlaceBase {
    /// An array with some indices so far.
    Array(Value, Vec<Value>),
    /// A memory location with a constant path, and its type.
    Mem(MemAccess, Type),
}

fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) => true,
        Expr::UnaryOp(u) => {
            matches!(u.op, ast::UnaryOp::USub | ast::UnaryOp::UAdd) && is_literal(&u.operand)
        }
        _ => false,
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

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != cb) as usize)
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

impl FuncCaller for FnLower<'_, '_> {
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
            return Err(err(
                span,
                format!("internal error: the prelude has no func `{name}`"),
            ));
        };
        let spans = vec![span; args.len()];
        self.resolve_and_call(b, name, &defs, Origin::Prelude, args, &spans, &[], span)
    }
}
