//! # The adjoint pass: reverse-mode automatic differentiation
//!
//! [`adjoint_module`] turns a module as the frontend produced it (calls not
//! inlined, loops in the frontend's forms) into its *backward module*: for
//! each selected kernel `K`, a kernel also named `K` that computes `K`'s
//! adjoint, with Warp 1.19's structure and semantics; for each func it
//! calls, an adjoint func; and the forward funcs they replay. The backward
//! module then goes through the ordinary pass pipeline (which inlines it
//! all) and any backend.
//!
//! ## Conventions
//!
//! * The adjoint kernel of `K(p1, .., pn)` takes `p1, .., pn`, then one
//!   adjoint per parameter, `adj_p1, .., adj_pn` (Warp's `adj_inputs`; the
//!   same types: an array's gradient array, a value's adjoint), then one
//!   `i32` `retain_p` per array parameter (1: the array has `retain_grad`).
//!   An adjoint array whose first axis is empty is *absent* (the array has
//!   no gradient): nothing is read from or written to it; so is one whose
//!   shape is not its primal array's (never indexed out of bounds). A by-value
//!   adjoint is the initial adjoint of that parameter (Warp discards it).
//! * The adjoint of func `f(p..) -> (r..)` (`__weft_adj_f`) takes `f`'s
//!   parameters, the adjoint arrays and `retain` flags of its array
//!   parameters, and one adjoint per return value; it returns one adjoint
//!   per by-value parameter, which the caller adds to its own. A
//!   `@wp.func_grad` ([`weft_ir::Function::custom_adjoint`]) replaces it.
//! * A func with side effects is replayed through a copy without them
//!   (`__weft_replay_f`); a `@wp.func_replay` replaces that.
//!
//! ## Structure (Warp's `codegen.py`)
//!
//! Each backward function first *replays* the forward body: every value is
//! recomputed, array reads included; stores, atomics and prints are
//! skipped (an atomic's result reads the element as it is now); dynamic
//! loops are skipped, so their carried variables keep their values from
//! before the loop. Then the *reverse sweep* runs each instruction's
//! adjoint in reverse order: branches are mirrored (the reverse `if` replays
//! its branch again), calls call adjoints, dynamic loops are reversed by
//! Warp's rule ([`loops`]). Loops with a constant trip count of at most 16
//! were unrolled by the frontend, like Warp's `max_unroll`. A `return`
//! (or, in a reversed loop iteration, a `break`/`continue`) ends the replay
//! where it happens: the reverse sweep starts from that point, as Warp's
//! `goto` into the reverse code does (`break`/`continue` skip the
//! iteration's adjoint). The operation rules are in [`rules`].

mod loops;
mod rules;
mod scoped;
mod sweep;

use std::collections::{HashMap, HashSet};
use sweep::{ArrayAdj, Sweep};
use weft_ir::{
    builder::FuncBuilder, verify::VerifyError, BinaryOp, Const, FuncId, FuncKind, Function,
    InstKind, Module, Param, Region, SourcePos, StructTable, Type, Value,
};

/// Options of [`adjoint_module`].
#[derive(Clone, Debug, Default)]
pub struct AdjointOptions {
    /// The kernels to differentiate, by name; empty: every kernel whose
    /// [`Function::backward`] is set.
    pub kernels: Vec<String>,
    /// Differentiate dynamic loops exactly (beyond Warp, whose rule is only
    /// exact for accumulations; see [`loops`]), keeping at most this many
    /// states of each loop per thread (at least 1): iteration `t`'s state
    /// is recomputed from the nearest kept one. `None` (default): Warp's
    /// rule.
    pub exact_loops: Option<u32>,
}

/// Why a backward module cannot be made.
#[derive(Debug, Clone, thiserror::Error)]
pub enum AdjointError {
    #[error("no kernel named `{0}`")]
    NoKernel(String),
    #[error("kernel `{0}` has no backward: it is compiled with `enable_backward=False`")]
    NoBackward(String),
    /// A construct the adjoint pass cannot differentiate.
    #[error("{pos}: in `{func}`: the adjoint of {what} is not supported")]
    Unsupported {
        what: String,
        func: String,
        pos: SourcePos,
    },
    /// A bug: the backward module does not verify.
    #[error("the backward module does not verify: {0}")]
    Verify(#[from] VerifyError),
}

/// What every generated function needs of the module being built.
pub(crate) struct Ctx<'a> {
    pub src: &'a Module,
    /// Each func of the source → its copy in the output.
    fmap: HashMap<FuncId, FuncId>,
    /// Each func whose adjoint is called → that adjoint in the output.
    adjoints: HashMap<FuncId, FuncId>,
    /// Each func with side effects → its replay in the output.
    replays: HashMap<FuncId, FuncId>,
    /// [`AdjointOptions::exact_loops`].
    pub exact_loops: Option<u32>,
}

impl Ctx<'_> {
    /// What a replay calls for a call of source func `f`.
    pub(crate) fn replay_of(&self, f: FuncId) -> FuncId {
        self.replays
            .get(&f)
            .or_else(|| self.fmap.get(&f))
            .copied()
            .unwrap_or(f)
    }
    pub(crate) fn adjoint_of(&self, f: FuncId) -> Option<FuncId> {
        self.adjoints.get(&f).copied()
    }
}

/// The backward module of `m` (see the module docs).
pub fn adjoint_module(m: &Module, opts: &AdjointOptions) -> Result<Module, AdjointError> {
    let kernels = select_kernels(m, opts)?;
    let roots = kernels.iter().flat_map(|&k| callees(&m.funcs[k])).collect();
    Ok(build(m, opts, roots, Kernels::Adjoints(kernels))?.0)
}

/// What [`build`] makes of the kernels.
enum Kernels {
    /// The adjoints of these kernels.
    Adjoints(Vec<FuncId>),
    /// A copy of every kernel.
    Forward,
}

/// `wp.grad(f)`: gives every func marked [`Function::grad_of`] its body, a
/// call of the adjoint of `f` with the adjoint of each of `f`'s results 1
/// (all components: Warp's `T(1)`), and clears the mark. Adds the adjoint
/// funcs it calls; renumbers the module's functions (funcs first, then the
/// kernels, each in its order). Returns whether there was any.
pub fn expand_grads(m: &mut Module) -> Result<bool, AdjointError> {
    let grads: Vec<(FuncId, FuncId)> = m
        .funcs
        .iter()
        .filter_map(|(id, f)| f.grad_of.map(|g| (id, g)))
        .collect();
    if grads.is_empty() {
        return Ok(false);
    }
    let roots = grads.iter().map(|&(_, f)| f).collect();
    let (mut out, fmap, adjoints) = build(m, &AdjointOptions::default(), roots, Kernels::Forward)?;
    for (g, f) in grads {
        let (gid, target) = (fmap[&g], adjoints[&f]);
        let src = &m.funcs[f];
        let returns = out.funcs[target].returns.clone();
        let gf = &mut out.funcs[gid];
        gf.grad_of = None;
        let body = gf.body;
        gf.regions[body].insts.clear();
        let mut b = FuncBuilder::new(gf, &m.structs);
        b.switch_to(body);
        b.set_loc(src.loc);
        let mut args = b.func.param_values().to_vec();
        for &t in &src.returns {
            args.push(splat(&mut b, t, &m.structs, 1));
        }
        let call = b.call(target, args, &returns);
        let rs = b.func.results(call).to_vec();
        b.return_(rs);
    }
    weft_ir::verify::verify_module(&out)?;
    *m = out;
    Ok(true)
}

/// A value of type `ty` with every scalar component `v`.
pub(super) fn splat(b: &mut FuncBuilder, ty: Type, structs: &StructTable, v: i128) -> Value {
    match ty {
        Type::Scalar(s) => b.konst(Const::from_i128(s, v)),
        _ => {
            let parts: Vec<Value> = (0..ty.arity(structs))
                .map(|k| ty.project(k, structs).unwrap_or(Type::BOOL))
                .map(|t| splat(b, t, structs, v))
                .collect();
            b.make(ty, parts)
        }
    }
}

type Built = (Module, HashMap<FuncId, FuncId>, HashMap<FuncId, FuncId>);

/// The module of every func of `m`, their replays, the adjoints of `roots`
/// and of what those call, and `kernels`; with the map of `m`'s funcs to
/// the output's and of each func to its adjoint there.
fn build(
    m: &Module,
    opts: &AdjointOptions,
    roots: Vec<FuncId>,
    kernels: Kernels,
) -> Result<Built, AdjointError> {
    let mut ctx = Ctx {
        src: m,
        fmap: HashMap::new(),
        adjoints: HashMap::new(),
        replays: HashMap::new(),
        exact_loops: opts.exact_loops.map(|k| k.max(1)),
    };
    let funcs: Vec<FuncId> = m
        .funcs
        .iter()
        .filter(|(_, f)| f.kind == FuncKind::Func)
        .map(|(id, _)| id)
        .collect();
    let mut names: HashSet<String> = HashSet::new();
    for (k, &f) in funcs.iter().enumerate() {
        ctx.fmap.insert(f, FuncId::from_u32(k as u32));
        names.insert(m.funcs[f].name.clone());
    }
    let mut next = funcs.len() as u32;
    let mut alloc = |names: &mut HashSet<String>, base: String| {
        let mut name = base;
        while !names.insert(name.clone()) {
            name.push('_');
        }
        next += 1;
        (FuncId::from_u32(next - 1), name)
    };
    // Replays of the funcs with side effects (without a custom replay).
    let impure = side_effects(m);
    let mut replay_names = Vec::new();
    for &f in &funcs {
        if m.funcs[f].custom_replay.is_some() || !impure.contains(&f) {
            continue;
        }
        let (id, name) = alloc(&mut names, format!("__weft_replay_{}", m.funcs[f].name));
        ctx.replays.insert(f, id);
        replay_names.push((f, name));
    }
    for &f in &funcs {
        if let Some(r) = m.funcs[f].custom_replay {
            ctx.replays.insert(f, ctx.fmap[&r]);
        }
    }
    // Adjoints of the funcs the kernels (and those adjoints) call.
    let mut adjoint_names = Vec::new();
    let mut todo = roots;
    while let Some(f) = todo.pop() {
        // A `wp.grad` is constant to the backward sweep (as in Warp).
        if ctx.adjoints.contains_key(&f) || m.funcs[f].grad_of.is_some() {
            continue;
        }
        match m.funcs[f].custom_adjoint {
            Some(g) => {
                ctx.adjoints.insert(f, ctx.fmap[&g]);
            }
            None => {
                let (id, name) = alloc(&mut names, format!("__weft_adj_{}", m.funcs[f].name));
                ctx.adjoints.insert(f, id);
                adjoint_names.push((f, name));
                todo.extend(callees(&m.funcs[f]));
            }
        }
    }
    let mut out = Module::new();
    out.structs = m.structs.clone();
    out.files = m.files.clone();
    for &f in &funcs {
        let mut copy = m.funcs[f].clone();
        remap_calls(&mut copy, &ctx.fmap);
        copy.custom_adjoint = copy.custom_adjoint.map(|g| ctx.fmap[&g]);
        copy.custom_replay = copy.custom_replay.map(|g| ctx.fmap[&g]);
        copy.grad_of = copy.grad_of.map(|g| ctx.fmap[&g]);
        out.funcs.push(copy);
    }
    for (f, name) in replay_names {
        out.funcs.push(replay_copy(&ctx, f, name));
    }
    for (f, name) in adjoint_names {
        out.funcs.push(func_adjoint(&ctx, f, name)?);
    }
    match kernels {
        Kernels::Adjoints(ks) => {
            for k in ks {
                out.funcs.push(kernel_adjoint(&ctx, k)?);
            }
        }
        Kernels::Forward => {
            for (_, k) in m.funcs.iter().filter(|(_, f)| f.kind == FuncKind::Kernel) {
                let mut copy = k.clone();
                remap_calls(&mut copy, &ctx.fmap);
                out.funcs.push(copy);
            }
        }
    }
    weft_ir::verify::verify_module(&out)?;
    let adjoints = ctx.adjoints.iter().map(|(&f, &a)| (f, a)).collect();
    Ok((out, ctx.fmap, adjoints))
}

fn select_kernels(m: &Module, opts: &AdjointOptions) -> Result<Vec<FuncId>, AdjointError> {
    if opts.kernels.is_empty() {
        return Ok(m
            .kernels()
            .filter(|(_, f)| f.backward)
            .map(|(id, _)| id)
            .collect());
    }
    opts.kernels
        .iter()
        .map(|name| {
            let id = m
                .kernels()
                .find(|(_, f)| &f.name == name)
                .map(|(id, _)| id)
                .ok_or_else(|| AdjointError::NoKernel(name.clone()))?;
            if !m.funcs[id].backward {
                return Err(AdjointError::NoBackward(name.clone()));
            }
            Ok(id)
        })
        .collect()
}

/// The funcs `f` calls.
fn callees(f: &Function) -> Vec<FuncId> {
    crate::walk::all_insts(f)
        .into_iter()
        .filter_map(|i| match &f.insts[i].kind {
            InstKind::Call(g, _) => Some(*g),
            _ => None,
        })
        .collect()
}

/// The funcs with a store, an atomic or a print, in them or in a callee.
fn side_effects(m: &Module) -> HashSet<FuncId> {
    let direct = |f: &Function| {
        crate::walk::all_insts(f).into_iter().any(|i| {
            let k = &f.insts[i].kind;
            k.writes_array() || matches!(k, InstKind::Print(..))
        })
    };
    let mut out: HashSet<FuncId> = m
        .funcs
        .iter()
        .filter(|(_, f)| direct(f))
        .map(|(id, _)| id)
        .collect();
    loop {
        let more: Vec<FuncId> = m
            .funcs
            .iter()
            .filter(|(id, f)| !out.contains(id) && callees(f).iter().any(|g| out.contains(g)))
            .map(|(id, _)| id)
            .collect();
        if more.is_empty() {
            return out;
        }
        out.extend(more);
    }
}

fn remap_calls(f: &mut Function, map: &HashMap<FuncId, FuncId>) {
    for d in f.insts.values_mut() {
        if let InstKind::Call(g, _) = &mut d.kind {
            if let Some(&n) = map.get(g) {
                *g = n;
            }
        }
    }
}

/// `f` without its side effects: stores and prints removed, atomics read
/// the element, calls call replays.
fn replay_copy(ctx: &Ctx<'_>, f: FuncId, name: String) -> Function {
    let mut copy = ctx.src.funcs[f].clone();
    copy.name = name;
    copy.custom_adjoint = None;
    copy.custom_replay = None;
    let regions: Vec<Region> = copy.regions.keys().collect();
    for r in regions {
        let insts = std::mem::take(&mut copy.regions[r].insts);
        copy.regions[r].insts = insts
            .into_iter()
            .filter(|&i| {
                !matches!(
                    copy.insts[i].kind,
                    InstKind::Store(..) | InstKind::Print(..)
                )
            })
            .collect();
    }
    for d in copy.insts.values_mut() {
        match &mut d.kind {
            InstKind::Atomic(_, m, _) | InstKind::AtomicCas(m, ..) => {
                d.kind = InstKind::Load(m.clone())
            }
            InstKind::Call(g, _) => *g = ctx.replay_of(*g),
            _ => {}
        }
    }
    copy
}

/// A parameter name not among `taken`.
fn fresh(taken: &mut HashSet<String>, base: String) -> String {
    let mut n = base;
    while !taken.insert(n.clone()) {
        n.push('_');
    }
    n
}

/// The adjoint parameters appended to `params`: `adj_p` for those `which`
/// selects, then `retain_p` for the arrays.
fn adjoint_params(params: &[Param], which: impl Fn(&Param) -> bool) -> Vec<Param> {
    let mut taken: HashSet<String> = params.iter().map(|p| p.name.clone()).collect();
    let mut out: Vec<Param> = params.to_vec();
    for p in params.iter().filter(|p| which(p)) {
        out.push(Param {
            name: fresh(&mut taken, format!("adj_{}", p.name)),
            ty: p.ty,
        });
    }
    for p in params.iter().filter(|p| p.ty.is_array()) {
        out.push(Param {
            name: fresh(&mut taken, format!("retain_{}", p.name)),
            ty: Type::I32,
        });
    }
    out
}

/// Binds the generated function's parameters: primal values, and the
/// gradients of the array parameters (`grads[k]`: the adjoint array and
/// the retain flag of the `k`-th array parameter).
fn bind_params(s: &mut Sweep<'_>, grads: &[(weft_ir::Value, weft_ir::Value)]) {
    let src_params = s.src.param_values().to_vec();
    let dst_params = s.dst.param_values().to_vec();
    for (k, &p) in src_params.iter().enumerate() {
        s.replay.set(p, dst_params[k]);
    }
    let arrays: Vec<_> = src_params
        .iter()
        .copied()
        .filter(|&p| s.sty(p).is_array())
        .collect();
    for (p, &(grad, flag)) in arrays.into_iter().zip(grads) {
        // Present: the same shape as the primal array, and not empty. An
        // adjoint array of another shape is ignored, never indexed.
        let zero = s.i32c(0);
        let primal = s.replay.get(p).unwrap_or(grad);
        let ndim = match s.sty(p) {
            Type::Array(a) => a.ndim,
            _ => 1,
        };
        let len = s.b().array_shape(grad, 0);
        let mut present = s.b().binary(BinaryOp::Ne, len, zero);
        for axis in 0..ndim {
            let a = s.b().array_shape(grad, axis);
            let b = s.b().array_shape(primal, axis);
            let same = s.b().binary(BinaryOp::Eq, a, b);
            present = s.b().binary(BinaryOp::And, present, same);
        }
        let retain = s.b().binary(BinaryOp::Ne, flag, zero);
        let owned = if s.src.kind == FuncKind::Kernel {
            owned(s.src, p)
        } else {
            None
        };
        s.arrays.insert(
            p,
            ArrayAdj {
                grad,
                present,
                retain,
                retain_flag: flag,
                owned,
            },
        );
    }
}

/// Whether every access of kernel `f` to array parameter `a` is at one
/// index that is the thread's own: `wp.tid()` of a 1-D array, the
/// frontend's `if trailing_dims == 1 { thread_id } else { thread_id / .. }`
/// (one-to-one when the condition holds, which is returned) or the raw
/// thread id (always: `Some(None)`). `None`: accesses at other indices, or
/// the array is passed to a func.
pub(crate) fn owned(f: &Function, a: weft_ir::Value) -> Option<Option<weft_ir::Value>> {
    let mut index = None;
    for i in crate::walk::all_insts(f) {
        let d = &f.insts[i].kind;
        let m = match d {
            InstKind::Call(_, args) if args.contains(&a) => return None,
            d => match d.mem_access() {
                Some(m) => m,
                None => continue,
            },
        };
        if m.array != a {
            continue;
        }
        match (index, m.indices.as_slice()) {
            (None, [x]) => index = Some(*x),
            (Some(y), [x]) if y == *x => {}
            _ => return None,
        }
    }
    let x = index?;
    let def = |v: weft_ir::Value| match f.values[v].def {
        weft_ir::ValueDef::Result(i, 0) => Some(&f.insts[i].kind),
        _ => None,
    };
    let is_tid = |v| matches!(def(v), Some(InstKind::ThreadId));
    if is_tid(x) {
        return Some(None);
    }
    let Some(InstKind::If {
        cond,
        then_region,
        else_region,
    }) = def(x)
    else {
        return None;
    };
    let yielded = |r: Region| match f.regions[r].insts.last().map(|&t| &f.insts[t].kind) {
        Some(InstKind::Yield(vs)) if vs.len() == 1 => Some(vs[0]),
        _ => None,
    };
    let then_tid = yielded(*then_region).is_some_and(is_tid);
    let else_div = yielded(*else_region)
        .and_then(def)
        .is_some_and(|k| matches!(k, InstKind::Binary(BinaryOp::Div, t, _) if is_tid(*t)));
    (then_tid && else_div).then_some(Some(*cond))
}

fn kernel_adjoint(ctx: &Ctx<'_>, k: FuncId) -> Result<Function, AdjointError> {
    let src = &ctx.src.funcs[k];
    let n = src.params.len();
    let params = adjoint_params(&src.params, |_| true);
    let mut dst = Function::new(&src.name, FuncKind::Kernel, params, Vec::new());
    dst.loc = src.loc;
    dst.fast_math = src.fast_math;
    dst.deterministic = src.deterministic;
    dst.layout_hints = src.layout_hints.clone();
    for &(p, l) in &src.layout_hints {
        dst.layout_hints.push((p + n as u32, l));
    }
    let mut s = Sweep::new(ctx, src, dst);
    let dp = s.dst.param_values().to_vec();
    let arrays: Vec<usize> = (0..n).filter(|&p| src.params[p].ty.is_array()).collect();
    let grads: Vec<_> = arrays
        .iter()
        .enumerate()
        .map(|(j, &p)| (dp[n + p], dp[2 * n + j]))
        .collect();
    bind_params(&mut s, &grads);
    // Warp starts a by-value parameter's adjoint at the value passed.
    let sp = src.param_values().to_vec();
    for p in 0..n {
        if !src.params[p].ty.is_array() && s.tracked(sp[p]) {
            s.adj.set(sp[p], dp[n + p]);
        }
    }
    s.bwd_seq(&src.regions[src.body].insts, false)?;
    s.loc = src.loc;
    s.b().return_(Vec::new());
    Ok(s.dst)
}

fn func_adjoint(ctx: &Ctx<'_>, f: FuncId, name: String) -> Result<Function, AdjointError> {
    let src = &ctx.src.funcs[f];
    let n = src.params.len();
    let mut params = adjoint_params(&src.params, |p| p.ty.is_array());
    let mut taken: HashSet<String> = params.iter().map(|p| p.name.clone()).collect();
    for (k, &t) in src.returns.iter().enumerate() {
        let base = if src.returns.len() == 1 {
            "adj_ret".to_string()
        } else {
            format!("adj_ret_{k}")
        };
        params.push(Param {
            name: fresh(&mut taken, base),
            ty: t,
        });
    }
    let by_value: Vec<usize> = (0..n).filter(|&p| !src.params[p].ty.is_array()).collect();
    let returns = by_value.iter().map(|&p| src.params[p].ty).collect();
    let mut dst = Function::new(&name, FuncKind::Func, params, returns);
    dst.loc = src.loc;
    dst.fast_math = src.fast_math;
    dst.deterministic = src.deterministic;
    let mut s = Sweep::new(ctx, src, dst);
    let dp = s.dst.param_values().to_vec();
    let na = n - by_value.len();
    let grads: Vec<_> = (0..na).map(|j| (dp[n + j], dp[n + na + j])).collect();
    bind_params(&mut s, &grads);
    s.ret_adj = dp[n + 2 * na..].to_vec();
    s.bwd_seq(&src.regions[src.body].insts, false)?;
    s.loc = src.loc;
    let sp = src.param_values().to_vec();
    let outs: Vec<_> = by_value.iter().map(|&p| s.adj_or_zero(sp[p])).collect();
    s.b().return_(outs);
    Ok(s.dst)
}
