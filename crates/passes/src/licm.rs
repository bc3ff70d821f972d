//! `licm`: loop-invariant code motion.
//!
//! Loops are processed innermost first. From the top level of a loop's
//! body region (not from `if` regions inside it, which may not run), an
//! instruction moves to just before the loop when every operand is defined
//! outside the loop (or by an instruction already moved) and it is safe to
//! run once instead of on every iteration:
//!
//! * pure instructions (`const`, `unary`, `binary`, `fma`, `cast`,
//!   `bitcast`, `select`, `make`, `extract`, `insert`, `thread_id`,
//!   `launch_dim`, `array_shape`) — none of them can trap (integer division
//!   by zero is defined as 0), so running one the loop would have skipped
//!   is harmless;
//! * a `load`, only when the loop contains no store, atomic or call at all
//!   (nothing in it can write what the load reads), and only from before
//!   the first instruction of the body that can leave the loop (an `if`
//!   holding a `break`, `continue` or `return`, or a nested loop holding a
//!   `return`): such a load runs on every entry to the loop, so moving it
//!   out never adds a memory access the program would not make (an index
//!   the program never uses could be out of bounds).
//!
//! A moved instruction becomes part of the enclosing region, so an
//! enclosing loop may move it further out.

use crate::{walk, Pass, PassError};
use std::collections::HashSet;
use weft_ir::{Function, Inst, InstKind, Module, Region, Value};

/// Loop-invariant code motion (see the module docs).
#[derive(Debug, Default)]
pub struct Licm;

impl Pass for Licm {
    fn name(&self) -> &'static str {
        "licm"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for f in m.funcs.values_mut() {
            changed |= licm_func(f);
        }
        Ok(changed)
    }
}

/// Hoists loop invariants in one function; returns whether it changed.
pub fn licm_func(f: &mut Function) -> bool {
    region(f, f.body)
}

/// Pure instructions: no effect, no trap, result a function of the operands
/// (and of the launch, fixed for a thread).
pub(crate) fn is_pure(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Const(_)
            | InstKind::Unary(..)
            | InstKind::Binary(..)
            | InstKind::Fma(..)
            | InstKind::Cast(..)
            | InstKind::Bitcast(..)
            | InstKind::Select(..)
            | InstKind::Make(..)
            | InstKind::Extract(..)
            | InstKind::Insert(..)
            | InstKind::ThreadId
            | InstKind::LaunchDim(_)
            | InstKind::BlockDim
            | InstKind::ArrayShape(..)
    )
}

fn region(f: &mut Function, r: Region) -> bool {
    let mut changed = false;
    let old = f.regions[r].insts.clone();
    let mut new = Vec::with_capacity(old.len());
    for inst in old {
        for sub in f.insts[inst].kind.regions() {
            changed |= region(f, sub);
        }
        if let InstKind::Loop { body, .. } = f.insts[inst].kind {
            let hoisted = hoist(f, body);
            changed |= !hoisted.is_empty();
            new.extend(hoisted);
        }
        new.push(inst);
    }
    f.regions[r].insts = new;
    changed
}

/// Whether an instruction can leave the enclosing loop: it is, or contains,
/// a `break`, `continue` or `return` (those of nested loops included, to
/// keep it simple).
fn may_exit(f: &Function, inst: Inst) -> bool {
    let term = |k: &InstKind| {
        matches!(
            k,
            InstKind::Break(_) | InstKind::Continue(_) | InstKind::Return(_)
        )
    };
    if term(&f.insts[inst].kind) {
        return true;
    }
    let mut exit = false;
    for r in f.insts[inst].kind.regions() {
        walk::for_each_inst(f, r, &mut |i| exit |= term(&f.insts[i].kind));
    }
    exit
}

/// Removes the invariant instructions from the top level of `body` and
/// returns them, in order.
fn hoist(f: &mut Function, body: Region) -> Vec<Inst> {
    let mut inside: HashSet<Value> = HashSet::new();
    let mut loop_writes = false;
    inside.extend(f.regions[body].params.iter().copied());
    walk::for_each_inst(f, body, &mut |i| {
        inside.extend(f.insts[i].results.iter().copied());
        for r in f.insts[i].kind.regions() {
            inside.extend(f.regions[r].params.iter().copied());
        }
        let k = &f.insts[i].kind;
        loop_writes |= k.writes_array() || matches!(k, InstKind::Call(..));
    });
    let mut hoisted = Vec::new();
    let mut exited = false;
    let insts = std::mem::take(&mut f.regions[body].insts);
    let mut kept = Vec::with_capacity(insts.len());
    for inst in insts {
        let kind = &f.insts[inst].kind;
        let movable =
            is_pure(kind) || (matches!(kind, InstKind::Load(_)) && !loop_writes && !exited);
        if movable && kind.args().iter().all(|v| !inside.contains(v)) {
            for v in &f.insts[inst].results {
                inside.remove(v);
            }
            hoisted.push(inst);
            continue;
        }
        exited |= may_exit(f, inst);
        kept.push(inst);
    }
    f.regions[body].insts = kept;
    hoisted
}
