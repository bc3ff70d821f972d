//! `strength-reduce`: cheaper forms of integer index arithmetic.
//!
//! The lowering of `wp.tid()` over a 2-, 3- or 4-D launch decomposes the
//! linear thread index with a `rem` and a `div` by the same launch
//! dimension per axis; index math written by hand (`i // n`, `i % n`) does
//! the same. Both are divisions, and a division is an order of magnitude
//! slower than a multiply (and guarded against 0 and `MIN / -1` by the
//! backends). When a region computes both `div a, b` and `rem a, b` of an
//! integer type, and `b` is known non-zero, the remainder is rewritten as
//!
//! ```text
//! q = div a, b;  p = mul q, b;  r = sub a, p
//! ```
//!
//! which is exact for every `a` (with wrapping arithmetic, `MIN % -1` and
//! `MIN - (MIN / -1) * -1` are both 0); `cse` then merges the two
//! divisions. A divisor is known non-zero when it is a non-zero constant or
//! a `launch_dim` (every launch dimension is at least 1 in a launch that
//! runs a thread). With `b == 0` the rewrite would be wrong (`a % 0` is 0,
//! `a - 0 * 0` is `a`), so other divisors are left alone.
//!
//! The rest of what is usually called address strength reduction does not
//! exist at this level: array element addresses are computed by the
//! backends from `load`/`store` index lists and the array's strides, which
//! the IR never spells out.

use crate::{simplify::const_of, walk, Pass, PassError};
use std::collections::{HashMap, HashSet};
use weft_ir::{BinaryOp, Function, InstKind, Module, Region, Type, Value, ValueDef};

/// Strength reduction of integer remainders (see the module docs).
#[derive(Debug, Default)]
pub struct StrengthReduce;

impl Pass for StrengthReduce {
    fn name(&self) -> &'static str {
        "strength-reduce"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for f in m.funcs.values_mut() {
            changed |= reduce_func(f);
        }
        Ok(changed)
    }
}

/// Rewrites the eligible remainders of one function; returns whether it
/// changed.
pub fn reduce_func(f: &mut Function) -> bool {
    let mut regions = vec![f.body];
    walk::for_each_inst(f, f.body, &mut |i| {
        regions.extend(f.insts[i].kind.regions())
    });
    let mut subst = HashMap::new();
    let mut changed = false;
    for r in regions {
        changed |= region(f, r, &mut subst);
    }
    walk::substitute(f, &subst);
    changed
}

fn nonzero(f: &Function, v: Value) -> bool {
    if let Some(c) = const_of(f, v) {
        return c.bits != 0;
    }
    match f.values[v].def {
        ValueDef::Result(i, 0) => matches!(f.insts[i].kind, InstKind::LaunchDim(_)),
        _ => false,
    }
}

fn region(f: &mut Function, r: Region, subst: &mut HashMap<Value, Value>) -> bool {
    let int = |f: &Function, v: Value| matches!(f.value_type(v), Type::Scalar(s) if s.is_int());
    let divs: HashSet<(Value, Value)> = f.regions[r]
        .insts
        .iter()
        .filter_map(|&i| match f.insts[i].kind {
            InstKind::Binary(BinaryOp::Div, a, b) if int(f, a) => Some((a, b)),
            _ => None,
        })
        .collect();
    if divs.is_empty() {
        return false;
    }
    let old = f.regions[r].insts.clone();
    let mut new = Vec::with_capacity(old.len());
    let mut changed = false;
    for inst in old {
        let InstKind::Binary(BinaryOp::Rem, a, b) = f.insts[inst].kind else {
            new.push(inst);
            continue;
        };
        let Some(&res) = f.insts[inst].results.first() else {
            new.push(inst);
            continue;
        };
        if !divs.contains(&(a, b)) || !nonzero(f, b) || !int(f, a) {
            new.push(inst);
            continue;
        }
        let (ty, loc) = (f.value_type(res), f.insts[inst].loc);
        let q = f.create_inst(InstKind::Binary(BinaryOp::Div, a, b), &[ty], loc);
        let qv = f.insts[q].results[0];
        let p = f.create_inst(InstKind::Binary(BinaryOp::Mul, qv, b), &[ty], loc);
        let pv = f.insts[p].results[0];
        let s = f.create_inst(InstKind::Binary(BinaryOp::Sub, a, pv), &[ty], loc);
        let sv = f.insts[s].results[0];
        if let Some(name) = f.value_name(res).map(str::to_string) {
            f.value_names[sv] = name;
        }
        subst.insert(res, sv);
        new.extend([q, p, s]);
        changed = true;
    }
    f.regions[r].insts = new;
    changed
}
