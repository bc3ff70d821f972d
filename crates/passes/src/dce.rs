//! `dce`: dead code elimination by mark and sweep.
//!
//! *Roots* are the instructions with an effect: stores, atomics, prints,
//! calls of impure funcs, returns, loops (a loop is kept even when it
//! computes nothing: it might not terminate) and `if`s that contain an
//! effect or a `break`, `continue` or `return` (control flow that leaves
//! the `if`). A func is *pure* when it has no store, atomic, print or loop
//! and calls only pure funcs; a call of a pure func whose results are
//! unused is dead (this matters when calls are not inlined). Liveness then
//! flows backwards through operands, with structured values handled per
//! component:
//!
//! * an `if` result is live ⇒ the condition and that operand of each
//!   region's `yield` are live;
//! * a loop result is live ⇒ that operand of every `break` of the loop;
//! * a loop body param is live ⇒ its `init` value and that operand of every
//!   `continue` of the loop. A loop-carried value that only feeds itself
//!   (`i = i + 1` with `i` otherwise unused) therefore stays dead.
//!
//! The sweep unlinks every non-root instruction without a live result,
//! drops dead `if` results (and their `yield` operands), dead loop results
//! (and their `break` operands) and dead loop params (with their `init` and
//! `continue` operands), then removes `if`s left without results or effects
//! — including empty ones.

use crate::{walk, Pass, PassError};
use std::collections::{HashMap, HashSet};
use weft_ir::{FuncId, Function, Inst, InstKind, Module, Region, Value, ValueDef};

/// Dead code elimination (see the module docs).
#[derive(Debug, Default)]
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let pure = pure_funcs(m);
        let mut changed = false;
        for f in m.funcs.values_mut() {
            changed |= dce_func(f, &pure);
        }
        Ok(changed)
    }
}

/// The pure funcs of a module (see the module docs); none if the call
/// graph has a cycle.
pub fn pure_funcs(m: &Module) -> HashSet<FuncId> {
    let mut pure = HashSet::new();
    let Ok(order) = crate::callgraph::bottom_up_order(m) else {
        return pure;
    };
    for id in order {
        let f = &m.funcs[id];
        let mut ok = f.kind == weft_ir::FuncKind::Func;
        walk::for_each_inst(f, f.body, &mut |i| {
            ok &= match &f.insts[i].kind {
                InstKind::Call(callee, _) => pure.contains(callee),
                k if k.writes_array() => false,
                InstKind::Print(..) => false,
                InstKind::Loop { .. } => false,
                _ => true,
            }
        });
        if ok {
            pure.insert(id);
        }
    }
    pure
}

/// Whether an instruction has an effect of its own (an `if` is judged by
/// its contents, see [`if_has_effect`]).
fn has_effect(pure: &HashSet<FuncId>, kind: &InstKind) -> bool {
    match kind {
        InstKind::Call(callee, _) => !pure.contains(callee),
        InstKind::Yield(_) | InstKind::If { .. } => false,
        k => k.has_side_effects(),
    }
}

/// Removes dead code from one function, given the module's pure funcs
/// ([`pure_funcs`]); returns whether it changed.
pub fn dce_func(f: &mut Function, pure: &HashSet<FuncId>) -> bool {
    let mut changed = false;
    // Each sweep can expose more dead code only through removed `if`s and
    // loop params; a few rounds reach the fixpoint.
    for _ in 0..16 {
        let live = mark(f, pure);
        if !sweep(f, &live) {
            break;
        }
        changed = true;
    }
    changed
}

/// Structure of a function needed by the marking.
struct Info {
    /// Region → owning instruction.
    owner: HashMap<Region, Inst>,
    /// Loop → (breaks, continues) targeting it.
    exits: HashMap<Inst, (Vec<Inst>, Vec<Inst>)>,
    /// `if`s that are roots (contain an effect or leave the `if`).
    effectful_ifs: HashSet<Inst>,
    pure: HashSet<FuncId>,
}

fn info(f: &Function, pure: &HashSet<FuncId>) -> Info {
    let owner = walk::region_owners(f);
    let mut exits = HashMap::new();
    let mut effectful_ifs = HashSet::new();
    for inst in walk::all_insts(f) {
        match &f.insts[inst].kind {
            InstKind::Loop { body, .. } => {
                exits.insert(inst, walk::loop_exits(f, *body));
            }
            InstKind::If { .. } if if_has_effect(f, pure, inst) => {
                effectful_ifs.insert(inst);
            }
            _ => {}
        }
    }
    Info {
        owner,
        exits,
        effectful_ifs,
        pure: pure.clone(),
    }
}

fn if_has_effect(f: &Function, pure: &HashSet<FuncId>, inst: Inst) -> bool {
    let mut effect = false;
    for r in f.insts[inst].kind.regions() {
        walk::for_each_inst(f, r, &mut |i| effect |= has_effect(pure, &f.insts[i].kind));
    }
    effect
}

fn is_root(info: &Info, f: &Function, inst: Inst) -> bool {
    match &f.insts[inst].kind {
        InstKind::If { .. } => info.effectful_ifs.contains(&inst),
        InstKind::Yield(_) | InstKind::Break(_) | InstKind::Continue(_) => false,
        k => has_effect(&info.pure, k),
    }
}

/// The set of live values.
fn mark(f: &Function, pure: &HashSet<FuncId>) -> (HashSet<Value>, Info) {
    let info = info(f, pure);
    let mut live: HashSet<Value> = HashSet::new();
    let mut work: Vec<Value> = Vec::new();
    let push = |v: Value, live: &mut HashSet<Value>, work: &mut Vec<Value>| {
        if live.insert(v) {
            work.push(v)
        }
    };
    for inst in walk::all_insts(f) {
        if !is_root(&info, f, inst) {
            continue;
        }
        match &f.insts[inst].kind {
            // Loop operands become live per param; an `if` root needs its
            // condition.
            InstKind::Loop { .. } => {}
            InstKind::If { cond, .. } => push(*cond, &mut live, &mut work),
            k => k
                .args()
                .into_iter()
                .for_each(|v| push(v, &mut live, &mut work)),
        }
    }
    while let Some(v) = work.pop() {
        match f.values[v].def {
            ValueDef::Result(inst, idx) => {
                let idx = idx as usize;
                match &f.insts[inst].kind {
                    InstKind::If {
                        cond,
                        then_region,
                        else_region,
                    } => {
                        push(*cond, &mut live, &mut work);
                        for r in [*then_region, *else_region] {
                            if let Some(y) = walk::region_yield(f, r) {
                                if let Some(&a) = f.insts[y].kind.args().get(idx) {
                                    push(a, &mut live, &mut work);
                                }
                            }
                        }
                    }
                    InstKind::Loop { .. } => {
                        for &b in info.exits.get(&inst).map_or(&[][..], |e| &e.0) {
                            if let Some(&a) = f.insts[b].kind.args().get(idx) {
                                push(a, &mut live, &mut work);
                            }
                        }
                    }
                    k => k
                        .args()
                        .into_iter()
                        .for_each(|a| push(a, &mut live, &mut work)),
                }
            }
            ValueDef::Param(r, idx) => {
                let idx = idx as usize;
                let Some(&owner) = info.owner.get(&r) else {
                    continue; // function params
                };
                if let InstKind::Loop { init, .. } = &f.insts[owner].kind {
                    if let Some(&a) = init.get(idx) {
                        push(a, &mut live, &mut work);
                    }
                    for &c in info.exits.get(&owner).map_or(&[][..], |e| &e.1) {
                        if let Some(&a) = f.insts[c].kind.args().get(idx) {
                            push(a, &mut live, &mut work);
                        }
                    }
                }
            }
        }
    }
    (live, info)
}

/// Removes what `mark` found dead; returns whether anything changed.
fn sweep(f: &mut Function, (live, info): &(HashSet<Value>, Info)) -> bool {
    let mut changed = false;
    for inst in walk::all_insts(f) {
        match f.insts[inst].kind.clone() {
            InstKind::If {
                then_region,
                else_region,
                ..
            } => {
                let keep: Vec<bool> = f.insts[inst]
                    .results
                    .iter()
                    .map(|v| live.contains(v))
                    .collect();
                if keep.iter().all(|&k| k) {
                    continue;
                }
                changed = true;
                retain_results(f, inst, &keep);
                for r in [then_region, else_region] {
                    if let Some(y) = walk::region_yield(f, r) {
                        retain_operands(f, y, &keep);
                    }
                }
            }
            InstKind::Loop { body, .. } => {
                let (breaks, conts) = info.exits.get(&inst).cloned().unwrap_or_default();
                let keep_res: Vec<bool> = f.insts[inst]
                    .results
                    .iter()
                    .map(|v| live.contains(v))
                    .collect();
                if !keep_res.iter().all(|&k| k) {
                    changed = true;
                    retain_results(f, inst, &keep_res);
                    breaks
                        .iter()
                        .for_each(|&b| retain_operands(f, b, &keep_res));
                }
                let keep_par: Vec<bool> = f.regions[body]
                    .params
                    .iter()
                    .map(|v| live.contains(v))
                    .collect();
                if !keep_par.iter().all(|&k| k) {
                    changed = true;
                    let mut k = keep_par.iter();
                    f.regions[body]
                        .params
                        .retain(|_| *k.next().unwrap_or(&true));
                    walk::renumber_params(f, body);
                    if let InstKind::Loop { init, .. } = &mut f.insts[inst].kind {
                        let mut k = keep_par.iter();
                        init.retain(|_| *k.next().unwrap_or(&true));
                    }
                    conts.iter().for_each(|&c| retain_operands(f, c, &keep_par));
                }
            }
            _ => {}
        }
    }
    // Unlink dead instructions (after the result pruning above, an `if`
    // without live results or effects is dead).
    let regions: Vec<Region> = std::iter::once(f.body)
        .chain(info.owner.keys().copied())
        .collect();
    for r in regions {
        let before = f.regions[r].insts.len();
        let insts = std::mem::take(&mut f.regions[r].insts);
        let kept: Vec<Inst> = insts
            .into_iter()
            .filter(|&i| {
                is_root(info, f, i)
                    || f.insts[i].kind.is_terminator()
                    || f.insts[i].results.iter().any(|v| live.contains(v))
            })
            .collect();
        changed |= kept.len() != before;
        f.regions[r].insts = kept;
    }
    changed
}

fn retain_results(f: &mut Function, inst: Inst, keep: &[bool]) {
    let mut k = keep.iter();
    f.insts[inst].results.retain(|_| *k.next().unwrap_or(&true));
    walk::renumber_results(f, inst);
}

fn retain_operands(f: &mut Function, term: Inst, keep: &[bool]) {
    if let Some(vs) = walk::term_operands_mut(&mut f.insts[term].kind) {
        let mut k = keep.iter();
        vs.retain(|_| *k.next().unwrap_or(&true));
    }
}
