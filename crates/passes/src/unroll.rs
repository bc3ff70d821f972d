//! `unroll`: full unrolling of loops with a small constant trip count.
//!
//! The frontend unrolls `range(C)` with a literal `C` ≤ 16 itself; this
//! pass handles the loops whose trip count only becomes constant after
//! inlining and folding (a func's `range(n)` called with a constant `n`,
//! bounds that are `wp.constant`s, ...).
//!
//! A loop is recognised when its body is
//!
//! ```text
//! loop (p0 = init0, ...) {
//!   <head>                          pure code, evaluated for the test
//!   if c { yield } else { break vs }    (or the regions swapped)
//!   <rest>
//!   continue ns
//! }
//! ```
//!
//! with that `break` and that `continue` the only ones of the loop. The
//! trip count is found by running the loop's control on constants: the
//! params whose `init` is a constant are given it, `c` and the next values
//! `ns` are evaluated with the scalar folding of [`crate::fold`] (exactly
//! the run-time arithmetic), and the loop is stepped until `c` says exit —
//! at most `max_trip` times. If `trip × size of the body` is at most
//! `max_insts`, the loop is replaced by `trip` copies of `<head> <rest>`
//! (each copy's params bound to the previous copy's `ns`) followed by one
//! copy of `<head>`, whose `vs` replace the loop's results. The copies'
//! tests become constants for `simplify`; `dce` removes them.
//!
//! Loops are unrolled innermost first.

use crate::inline::Copier;
use crate::{fold, walk, Pass, PassError};
use std::collections::HashMap;
use weft_ir::{Const, Function, Inst, InstKind, Module, Region, Value, ValueDef};

/// Full unrolling of small constant-trip loops (see the module docs).
#[derive(Debug, Clone)]
pub struct Unroll {
    /// Most iterations unrolled (default 16, as Warp).
    pub max_trip: u32,
    /// Most instructions the unrolled copies may add (trip × body size;
    /// default 1024).
    pub max_insts: usize,
}

impl Default for Unroll {
    fn default() -> Self {
        Unroll {
            max_trip: 16,
            max_insts: 1024,
        }
    }
}

impl Pass for Unroll {
    fn name(&self) -> &'static str {
        "unroll"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for f in m.funcs.values_mut() {
            changed |= self.unroll_func(f);
        }
        Ok(changed)
    }
}

impl Unroll {
    /// Unrolls the eligible loops of one function; returns whether it
    /// changed.
    pub fn unroll_func(&self, f: &mut Function) -> bool {
        let mut subst = HashMap::new();
        let changed = self.region(f, f.body, &mut subst);
        walk::substitute(f, &subst);
        changed
    }

    fn region(&self, f: &mut Function, r: Region, subst: &mut HashMap<Value, Value>) -> bool {
        let mut changed = false;
        let old = f.regions[r].insts.clone();
        let mut new = Vec::with_capacity(old.len());
        for inst in old {
            for sub in f.insts[inst].kind.regions() {
                changed |= self.region(f, sub, subst);
            }
            // Operands may name results of loops unrolled before.
            f.insts[inst].kind.map_args(|v| walk::resolve(subst, v));
            if let Some(shape) = self.analyze(f, inst) {
                new.extend(unroll(f, inst, &shape, subst));
                changed = true;
            } else {
                new.push(inst);
            }
        }
        f.regions[r].insts = new;
        changed
    }

    fn analyze(&self, f: &Function, inst: Inst) -> Option<Shape> {
        let InstKind::Loop { init, body } = &f.insts[inst].kind else {
            return None;
        };
        let insts = &f.regions[*body].insts;
        let (breaks, conts) = walk::loop_exits(f, *body);
        let (&[brk], &[cont]) = (breaks.as_slice(), conts.as_slice()) else {
            return None;
        };
        if insts.last() != Some(&cont) {
            return None;
        }
        // The guard: a top-level `if` whose regions are a lone `yield` and
        // a lone `break`.
        let (guard_pos, cond, exit_on) = insts.iter().enumerate().find_map(|(k, &i)| {
            let InstKind::If {
                cond,
                then_region,
                else_region,
            } = &f.insts[i].kind
            else {
                return None;
            };
            let only = |r: Region| match f.regions[r].insts.as_slice() {
                &[x] => Some(x),
                _ => None,
            };
            let (t, e) = (only(*then_region)?, only(*else_region)?);
            let is_yield = |x: Inst| matches!(&f.insts[x].kind, InstKind::Yield(v) if v.is_empty());
            if !f.insts[i].results.is_empty() {
                return None;
            }
            if t == brk && is_yield(e) {
                Some((k, *cond, true))
            } else if e == brk && is_yield(t) {
                Some((k, *cond, false))
            } else {
                None
            }
        })?;
        let InstKind::Continue(next) = &f.insts[cont].kind else {
            return None;
        };
        let params = &f.regions[*body].params;
        if params.len() != init.len() || next.len() != init.len() {
            return None;
        }
        // Step the loop's control on constants.
        let mut env: HashMap<Value, Const> = HashMap::new();
        for (&p, &v) in params.iter().zip(init) {
            if let Some(c) = eval(f, v, &env, 0) {
                env.insert(p, c);
            }
        }
        let mut trip = None;
        for t in 0..=self.max_trip {
            let c = eval(f, cond, &env, 0)?;
            if (c.bits != 0) == exit_on {
                trip = Some(t);
                break;
            }
            let mut next_env = HashMap::new();
            for (&p, &n) in params.iter().zip(next) {
                if let Some(c) = eval(f, n, &env, 0) {
                    next_env.insert(p, c);
                }
            }
            env = next_env;
        }
        let trip = trip?;
        let mut size = 0usize;
        walk::for_each_inst(f, *body, &mut |_| size += 1);
        if (trip as usize).saturating_mul(size) > self.max_insts {
            return None;
        }
        Some(Shape {
            trip,
            guard_pos,
            body: *body,
            init: init.clone(),
        })
    }
}

/// A loop found unrollable.
struct Shape {
    trip: u32,
    guard_pos: usize,
    body: Region,
    init: Vec<Value>,
}

/// The constant value of `v` given constant loop params (`None` when it
/// is not a constant computed by scalar arithmetic).
fn eval(f: &Function, v: Value, env: &HashMap<Value, Const>, depth: u32) -> Option<Const> {
    if let Some(c) = env.get(&v) {
        return Some(*c);
    }
    if depth > 64 {
        return None;
    }
    let ValueDef::Result(inst, 0) = f.values[v].def else {
        return None;
    };
    if f.insts[inst].results.len() != 1 {
        return None;
    }
    let ev = |x: Value| eval(f, x, env, depth + 1);
    match &f.insts[inst].kind {
        InstKind::Const(c) => Some(*c),
        InstKind::Unary(op, a) => fold::unary(*op, ev(*a)?),
        InstKind::Binary(op, a, b) => fold::binary(*op, ev(*a)?, ev(*b)?),
        InstKind::Cast(a, to) => fold::cast(ev(*a)?, *to),
        InstKind::Select(c, a, b) => {
            if ev(*c)?.bits != 0 {
                ev(*a)
            } else {
                ev(*b)
            }
        }
        _ => None,
    }
}

/// Replaces the loop by its unrolled copies; returns the instructions that
/// take its place and records its results in `subst`.
fn unroll(
    f: &mut Function,
    inst: Inst,
    shape: &Shape,
    subst: &mut HashMap<Value, Value>,
) -> Vec<Inst> {
    let snapshot = f.clone();
    let body = &snapshot.regions[shape.body];
    let params = body.params.clone();
    let n = body.insts.len();
    let head = &body.insts[..shape.guard_pos];
    let rest = &body.insts[shape.guard_pos + 1..n - 1];
    let InstKind::Continue(next) = &snapshot.insts[body.insts[n - 1]].kind else {
        return vec![inst];
    };
    let InstKind::If {
        then_region,
        else_region,
        ..
    } = &snapshot.insts[body.insts[shape.guard_pos]].kind
    else {
        return vec![inst];
    };
    let exit_vals = [*then_region, *else_region]
        .iter()
        .find_map(|&r| match snapshot.regions[r].insts.as_slice() {
            &[x] => match &snapshot.insts[x].kind {
                InstKind::Break(vs) => Some(vs.clone()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_default();
    let mut cur = shape.init.clone();
    let mut out = Vec::new();
    for _ in 0..shape.trip {
        let mut cp = Copier {
            src: &snapshot,
            vmap: params.iter().copied().zip(cur.iter().copied()).collect(),
        };
        out.extend(cp.copy_insts(f, head));
        out.extend(cp.copy_insts(f, rest));
        cur = next.iter().map(|&v| cp.value(v)).collect();
    }
    let mut cp = Copier {
        src: &snapshot,
        vmap: params.iter().copied().zip(cur.iter().copied()).collect(),
    };
    out.extend(cp.copy_insts(f, head));
    for (&res, &v) in snapshot.insts[inst].results.iter().zip(&exit_vals) {
        subst.insert(res, cp.value(v));
    }
    out
}
