//! `inline`: replaces every `call` by a copy of the callee's body.
//!
//! Functions are processed bottom-up over the call graph, so a callee is
//! call-free by the time it is copied. The copy gets fresh values, insts and
//! regions; the callee's params are mapped to the call's arguments; every
//! copied instruction keeps the callee's source [`Loc`](weft_ir::Loc)
//! (a line table then points into the callee's source).
//!
//! How `return` becomes control flow in the caller:
//!
//! * **Splice** — the callee's only `return` is the last instruction of its
//!   body: the copied instructions go in front of the call, and the call's
//!   results are replaced by the returned values.
//! * **Wrap** — otherwise the call instruction becomes a loop without
//!   carried values, `loop { body }`, whose results are the call's results,
//!   and each `return vs` becomes `break vs`. This is a single iteration:
//!   every path of the body ends in a `return`. A `return` nested inside one
//!   of the callee's own loops cannot break the wrapper directly (a `break`
//!   targets its innermost loop), so that loop gets extra results — a
//!   "returned" flag and the returned values — its `return`s become `break`s
//!   that set the flag, its other `break`s pass `false` and zeros, and the
//!   code after it is guarded: `if flag { return rets } else { rest }`,
//!   where the new `return` is lowered the same way one level further out.
//!
//! Funcs that are no longer called afterwards are removed from the module
//! (kernels always stay); function ids are renumbered accordingly.

use crate::{callgraph, walk, Pass, PassError};
use std::collections::HashMap;
use weft_ir::{
    Const, FuncId, FuncKind, Function, Inst, InstData, InstKind, Module, Region, RegionData,
    StructTable, Type, Value, ValueData, ValueDef,
};

/// The inliner (see the module docs).
#[derive(Debug)]
pub struct Inline {
    /// Remove funcs that are not called after inlining (default true).
    pub remove_dead_funcs: bool,
}

impl Default for Inline {
    fn default() -> Self {
        Inline {
            remove_dead_funcs: true,
        }
    }
}

impl Pass for Inline {
    fn name(&self) -> &'static str {
        "inline"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let order = callgraph::bottom_up_order(m)?;
        let mut changed = false;
        for caller in order {
            changed |= inline_calls_in(m, caller)?;
        }
        if self.remove_dead_funcs {
            changed |= remove_uncalled_funcs(m);
        }
        Ok(changed)
    }
}

/// Inlines every call in `caller` (its callees must be call-free, or at
/// least not call `caller`).
pub fn inline_calls_in(m: &mut Module, caller: FuncId) -> Result<bool, PassError> {
    let mut func = std::mem::replace(
        &mut m.funcs[caller],
        Function::new("", FuncKind::Func, Vec::new(), Vec::new()),
    );
    let result = inline_all(m, &mut func);
    m.funcs[caller] = func;
    result
}

fn inline_all(m: &Module, func: &mut Function) -> Result<bool, PassError> {
    // Check every call first, so that a bad one leaves the function as is.
    let mut calls = Vec::new();
    collect_calls(func, func.body, &mut calls);
    for &(_, call) in &calls {
        let InstKind::Call(callee_id, args) = &func.insts[call].kind else {
            continue;
        };
        let malformed = |msg: String| PassError::Malformed {
            pass: "inline".into(),
            func: func.name.clone(),
            msg,
        };
        let callee = m.funcs.get(*callee_id).ok_or_else(|| {
            malformed(format!(
                "call to a function that does not exist ({callee_id})"
            ))
        })?;
        let n_results = func.insts[call].results.len();
        if args.len() != callee.params.len() || n_results != callee.returns.len() {
            return Err(malformed(format!(
                "call to `{}` does not match its signature ({} args, {n_results} results)",
                callee.name,
                args.len(),
            )));
        }
    }
    let mut seen = std::collections::HashSet::new();
    let regions: Vec<Region> = calls
        .iter()
        .map(|&(r, _)| r)
        .filter(|&r| seen.insert(r))
        .collect();
    // Spliced calls' results → the callee's returned values (copies),
    // substituted once at the end.
    let mut subst = HashMap::new();
    for r in regions {
        let old = std::mem::take(&mut func.regions[r].insts);
        let mut new = Vec::with_capacity(old.len());
        for inst in old {
            let InstKind::Call(callee_id, args) = func.insts[inst].kind.clone() else {
                new.push(inst);
                continue;
            };
            let callee = &m.funcs[callee_id];
            match inline_call(func, &m.structs, inst, callee, &args, &mut subst)? {
                Some(copied) => new.extend(copied),
                None => new.push(inst),
            }
        }
        func.regions[r].insts = new;
    }
    walk::substitute(func, &subst);
    Ok(!calls.is_empty())
}

fn collect_calls(func: &Function, r: Region, out: &mut Vec<(Region, Inst)>) {
    for &inst in &func.regions[r].insts {
        if matches!(func.insts[inst].kind, InstKind::Call(..)) {
            out.push((r, inst));
        }
        for sub in func.insts[inst].kind.regions() {
            collect_calls(func, sub, out);
        }
    }
}

/// Copies instructions of one function into another with fresh entities
/// (also used by `unroll`, copying from a snapshot of the same function).
pub(crate) struct Copier<'a> {
    pub(crate) src: &'a Function,
    /// Source value → copied value (seed it with the params' images).
    pub(crate) vmap: HashMap<Value, Value>,
}

impl Copier<'_> {
    pub(crate) fn value(&self, v: Value) -> Value {
        // Every operand is defined before its use in program order, so it is
        // mapped by now; an unmapped one is left as is for the verifier.
        self.vmap.get(&v).copied().unwrap_or(v)
    }

    fn new_value(&mut self, dst: &mut Function, old: Value, def: ValueDef) -> Value {
        let v = dst.values.push(ValueData {
            ty: self.src.values[old].ty,
            def,
        });
        if let Some(name) = self.src.value_name(old) {
            dst.value_names[v] = name.to_string();
        }
        self.vmap.insert(old, v);
        v
    }

    /// Copies a nested region (params and instructions) into a new region.
    fn copy_region(&mut self, dst: &mut Function, r: Region) -> Region {
        let nr = dst.regions.push(RegionData::default());
        for (i, &p) in self.src.regions[r].params.iter().enumerate() {
            let v = self.new_value(dst, p, ValueDef::Param(nr, i as u32));
            dst.regions[nr].params.push(v);
        }
        let insts = self.copy_insts(dst, &self.src.regions[r].insts);
        dst.regions[nr].insts = insts;
        nr
    }

    pub(crate) fn copy_insts(&mut self, dst: &mut Function, insts: &[Inst]) -> Vec<Inst> {
        insts.iter().map(|&i| self.copy_inst(dst, i)).collect()
    }

    fn copy_inst(&mut self, dst: &mut Function, inst: Inst) -> Inst {
        let data = &self.src.insts[inst];
        let mut kind = data.kind.clone();
        kind.map_args(|v| self.value(v));
        match &mut kind {
            InstKind::If {
                then_region,
                else_region,
                ..
            } => {
                *then_region = self.copy_region(dst, *then_region);
                *else_region = self.copy_region(dst, *else_region);
            }
            InstKind::Loop { body, .. } => *body = self.copy_region(dst, *body),
            _ => {}
        }
        let ni = dst.insts.push(InstData {
            kind,
            results: Default::default(),
            loc: data.loc,
            flags: data.flags,
            inplace: data.inplace,
        });
        for (k, &r) in data.results.iter().enumerate() {
            let v = self.new_value(dst, r, ValueDef::Result(ni, k as u32));
            dst.insts[ni].results.push(v);
        }
        ni
    }
}

/// When the callee can be spliced (its only `return` ends its body): the
/// returned values and the instructions before the `return`.
fn splice_parts(callee: &Function) -> Option<(&[Value], &[Inst])> {
    let mut returns = 0;
    walk::for_each_inst(callee, callee.body, &mut |i| {
        returns += matches!(callee.insts[i].kind, InstKind::Return(_)) as usize
    });
    let (last, rest) = callee.regions[callee.body].insts.split_last()?;
    match &callee.insts[*last].kind {
        InstKind::Return(rets) if returns == 1 => Some((rets, rest)),
        _ => None,
    }
}

/// Inlines one call. Spliced: returns the instructions that replace the
/// call in its region and records its results in `subst`. Wrapped: the call
/// instruction itself became the wrapper loop (`None`).
fn inline_call(
    func: &mut Function,
    structs: &StructTable,
    call: Inst,
    callee: &Function,
    args: &[Value],
    subst: &mut HashMap<Value, Value>,
) -> Result<Option<Vec<Inst>>, PassError> {
    let mut cp = Copier {
        src: callee,
        vmap: callee
            .param_values()
            .iter()
            .copied()
            .zip(args.iter().copied())
            .collect(),
    };
    if let Some((rets, rest)) = splice_parts(callee) {
        let copied = cp.copy_insts(func, rest);
        for (&res, &ret) in func.insts[call].results.iter().zip(rets) {
            subst.insert(res, cp.value(ret));
        }
        func.insts[call].results.clear();
        return Ok(Some(copied));
    }
    let wrapper = func.regions.push(RegionData::default());
    let insts = cp.copy_insts(func, &callee.regions[callee.body].insts);
    func.regions[wrapper].insts = insts;
    let mut lower = LowerReturns {
        structs,
        ret_types: callee.returns.clone(),
        func_name: callee.name.clone(),
    };
    lower.region(func, wrapper, &mut None)?;
    func.insts[call].kind = InstKind::Loop {
        init: Vec::new(),
        body: wrapper,
    };
    Ok(None)
}

/// The callee loop a `return` is nested in, while lowering.
struct LoopCtx {
    inst: Inst,
    breaks: Vec<Inst>,
    returns: Vec<Inst>,
}

struct LowerReturns<'a> {
    structs: &'a StructTable,
    ret_types: Vec<Type>,
    func_name: String,
}

impl LowerReturns<'_> {
    /// Lowers the `return`s of region `r`, which is (nested in) the body of
    /// `ctx`'s loop, or of the wrapper when `ctx` is `None`.
    fn region(
        &mut self,
        f: &mut Function,
        r: Region,
        ctx: &mut Option<LoopCtx>,
    ) -> Result<(), PassError> {
        let mut i = 0;
        while i < f.regions[r].insts.len() {
            let inst = f.regions[r].insts[i];
            match f.insts[inst].kind.clone() {
                InstKind::If {
                    then_region,
                    else_region,
                    ..
                } => {
                    self.region(f, then_region, ctx)?;
                    self.region(f, else_region, ctx)?;
                }
                InstKind::Loop { body, .. } => {
                    let mut inner = Some(LoopCtx {
                        inst,
                        breaks: Vec::new(),
                        returns: Vec::new(),
                    });
                    self.region(f, body, &mut inner)?;
                    if let Some(inner) = inner.filter(|c| !c.returns.is_empty()) {
                        i = self.extend_loop(f, r, i, inner)?;
                    }
                }
                InstKind::Break(_) => {
                    if let Some(c) = ctx {
                        c.breaks.push(inst)
                    }
                }
                InstKind::Return(vs) => match ctx {
                    None => f.insts[inst].kind = InstKind::Break(vs),
                    Some(c) => c.returns.push(inst),
                },
                _ => {}
            }
            i += 1;
        }
        Ok(())
    }

    /// Gives loop `l` (at index `i` of region `r`) a returned flag and the
    /// returned values as extra results, and guards the rest of `r`.
    /// Returns the index of the loop after the insertions.
    fn extend_loop(
        &mut self,
        f: &mut Function,
        r: Region,
        mut i: usize,
        l: LoopCtx,
    ) -> Result<usize, PassError> {
        let loc = f.insts[l.inst].loc;
        let orig_types: Vec<Type> = f.insts[l.inst]
            .results
            .iter()
            .map(|&v| f.value_type(v))
            .collect();
        let mut pre = Vec::new();
        let konst = |f: &mut Function, b: bool, pre: &mut Vec<Inst>| {
            let k = f.create_inst(InstKind::Const(Const::bool(b)), &[Type::BOOL], loc);
            pre.push(k);
            f.insts[k].results[0]
        };
        let vfalse = konst(f, false, &mut pre);
        let vtrue = konst(f, true, &mut pre);
        let zeros = |f: &mut Function, tys: &[Type], pre: &mut Vec<Inst>| {
            tys.iter()
                .map(|&ty| {
                    let (insts, v) =
                        walk::zero_value(f, self.structs, ty, loc).ok_or_else(|| {
                            PassError::Unsupported {
                                pass: "inline".into(),
                                func: self.func_name.clone(),
                                msg: "an early return of an array from inside a loop, or a \
                                      loop result of array type around one"
                                    .into(),
                            }
                        })?;
                    pre.extend(insts);
                    Ok(v)
                })
                .collect::<Result<Vec<_>, PassError>>()
        };
        let zero_orig = zeros(f, &orig_types, &mut pre)?;
        let zero_rets = zeros(f, &self.ret_types.clone(), &mut pre)?;
        let n_pre = pre.len();
        f.regions[r].insts.splice(i..i, pre);
        i += n_pre;

        for b in l.breaks {
            if let InstKind::Break(vs) = &mut f.insts[b].kind {
                vs.push(vfalse);
                vs.extend(zero_rets.iter().copied());
            }
        }
        for ret in l.returns {
            if let InstKind::Return(rets) = &f.insts[ret].kind {
                let mut vs = zero_orig.clone();
                vs.push(vtrue);
                vs.extend(rets.iter().copied());
                f.insts[ret].kind = InstKind::Break(vs);
            }
        }
        let flag = walk::add_result(f, l.inst, Type::BOOL);
        let rets: Vec<Value> = self
            .ret_types
            .clone()
            .into_iter()
            .map(|ty| walk::add_result(f, l.inst, ty))
            .collect();

        // Guard the rest of the region: if flag { return rets } else { rest }.
        let tail: Vec<Inst> = f.regions[r].insts.split_off(i + 1);
        let Some((&term, rest)) = tail.split_last() else {
            return Err(PassError::Malformed {
                pass: "inline".into(),
                func: self.func_name.clone(),
                msg: "region does not end in a terminator".into(),
            });
        };
        let term_vals = walk::term_operands_mut(&mut f.insts[term].kind)
            .map(|vs| vs.clone())
            .ok_or_else(|| PassError::Malformed {
                pass: "inline".into(),
                func: self.func_name.clone(),
                msg: "region does not end in a terminator".into(),
            })?;
        let then_r = f.new_region();
        let ret = f.create_inst(InstKind::Return(rets), &[], loc);
        f.regions[then_r].insts.push(ret);
        let else_r = f.new_region();
        let term_loc = f.insts[term].loc;
        let y = f.create_inst(InstKind::Yield(term_vals.clone()), &[], term_loc);
        f.regions[else_r].insts = rest.to_vec();
        f.regions[else_r].insts.push(y);
        let tys: Vec<Type> = term_vals.iter().map(|&v| f.value_type(v)).collect();
        let guard = f.create_inst(
            InstKind::If {
                cond: flag,
                then_region: then_r,
                else_region: else_r,
            },
            &tys,
            loc,
        );
        let guard_results: Vec<Value> = f.insts[guard].results.to_vec();
        if let Some(vs) = walk::term_operands_mut(&mut f.insts[term].kind) {
            *vs = guard_results;
        }
        f.regions[r].insts.push(guard);
        f.regions[r].insts.push(term);
        // The `if` (at i + 1) is visited next by the caller's walk, which
        // lowers its regions; the terminator follows it.
        Ok(i)
    }
}

/// Removes the funcs (not kernels) that no instruction calls, renumbering
/// function ids. Returns whether any was removed.
pub fn remove_uncalled_funcs(m: &mut Module) -> bool {
    let mut changed = false;
    while remove_uncalled_once(m) {
        changed = true;
    }
    changed
}

fn remove_uncalled_once(m: &mut Module) -> bool {
    let g = callgraph::call_graph(m);
    let keep: Vec<bool> = m
        .funcs
        .iter()
        .map(|(id, f)| {
            f.kind == FuncKind::Kernel
                || g.neighbors_directed(
                    petgraph::graph::NodeIndex::new(id.as_u32() as usize),
                    petgraph::Direction::Incoming,
                )
                .any(|n| g[n] != id)
        })
        .collect();
    if keep.iter().all(|&k| k) {
        return false;
    }
    let old = std::mem::take(&mut m.funcs);
    let mut remap = HashMap::new();
    for ((id, f), k) in old.into_iter().zip(keep) {
        if k {
            remap.insert(id, m.funcs.push(f));
        }
    }
    for f in m.funcs.values_mut() {
        for data in f.insts.values_mut() {
            if let InstKind::Call(callee, _) = &mut data.kind {
                if let Some(&n) = remap.get(callee) {
                    *callee = n;
                }
            }
        }
    }
    true
}
