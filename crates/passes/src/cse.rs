//! `cse`: common-subexpression elimination by scoped value numbering.
//!
//! One program-order walk per function keeps a table from an instruction's
//! *key* (its operation and operands, after substitution) to the value that
//! first computed it. The table is scoped by region: entries made inside a
//! region are dropped when the walk leaves it, so a value is only reused
//! where its definition dominates — earlier in the same region or in an
//! enclosing one.
//!
//! * Pure instructions are numbered: `const`, `unary`, `binary`, `fma`,
//!   `cast`, `bitcast`, `select`, `make`, `extract`, `insert`, `thread_id`,
//!   `launch_dim`, `array_shape`. Operands of commutative integer and bool
//!   operations (`add`, `mul`, `and`, `or`, `xor`, `min`, `max`, `eq`, `ne`)
//!   are put in a canonical order; float operations are never reordered (a
//!   NaN's payload depends on the operand order).
//! * `load`s are numbered together with a *memory epoch*, bumped by every
//!   `store`, `atomic` and impure `call` and after every `if` or `loop` that
//!   contains one; a loop body that writes starts a fresh epoch, since its
//!   second iteration runs after its own writes. So a load is only replaced
//!   by an identical earlier load with no possible write in between.
//!
//! A replaced instruction is unlinked and its result substituted.

use crate::{walk, Pass, PassError};
use std::collections::{HashMap, HashSet};
use weft_ir::{
    BinaryOp, Const, FuncId, Function, Inst, InstKind, Module, Region, Scalar, Type, UnaryOp, Value,
};

/// Common-subexpression elimination (see the module docs).
#[derive(Debug, Default)]
pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let pure = crate::dce::pure_funcs(m);
        let mut changed = false;
        for f in m.funcs.values_mut() {
            changed |= cse_func(f, &pure);
        }
        Ok(changed)
    }
}

/// The value-numbering key of an instruction.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum Key {
    Const(Const),
    Unary(UnaryOp, Value),
    Binary(BinaryOp, Value, Value),
    Fma(Value, Value, Value),
    Cast(Value, Scalar),
    Bitcast(Value, Scalar),
    Select(Value, Value, Value),
    Make(Type, Vec<Value>),
    Extract(Value, Vec<u32>),
    Insert(Value, Vec<u32>, Value),
    ThreadId,
    LaunchDim(u8),
    BlockDim,
    ArrayShape(Value, u8),
    Load(Value, Vec<Value>, Vec<u32>, u32),
}

/// Whether `a op b == b op a` bit for bit.
fn commutes(op: BinaryOp, ty: Type) -> bool {
    use BinaryOp::*;
    let int_or_bool = matches!(ty, Type::Scalar(s) if !s.is_float());
    int_or_bool && matches!(op, Add | Mul | And | Or | Xor | Min | Max | Eq | Ne)
}

fn key(f: &Function, kind: &InstKind, epoch: u32) -> Option<Key> {
    Some(match kind {
        InstKind::Const(c) => Key::Const(*c),
        InstKind::Unary(op, a) => Key::Unary(*op, *a),
        InstKind::Binary(op, a, b) => {
            let (a, b) = if commutes(*op, f.value_type(*a)) && b < a {
                (*b, *a)
            } else {
                (*a, *b)
            };
            Key::Binary(*op, a, b)
        }
        InstKind::Fma(a, b, c) => Key::Fma(*a, *b, *c),
        InstKind::Cast(a, s) => Key::Cast(*a, *s),
        InstKind::Bitcast(a, s) => Key::Bitcast(*a, *s),
        InstKind::Select(c, a, b) => Key::Select(*c, *a, *b),
        InstKind::Make(t, vs) => Key::Make(*t, vs.clone()),
        InstKind::Extract(a, p) => Key::Extract(*a, p.clone()),
        InstKind::Insert(a, p, v) => Key::Insert(*a, p.clone(), *v),
        InstKind::ThreadId => Key::ThreadId,
        InstKind::LaunchDim(d) => Key::LaunchDim(*d),
        InstKind::BlockDim => Key::BlockDim,
        InstKind::ArrayShape(a, d) => Key::ArrayShape(*a, *d),
        InstKind::Load(m) => Key::Load(m.array, m.indices.clone(), m.path.clone(), epoch),
        _ => return None,
    })
}

/// Whether an instruction writes memory (a store, an atomic, an impure
/// call), itself or anywhere in its regions.
pub(crate) fn writes_memory(f: &Function, inst: Inst, pure: &HashSet<FuncId>) -> bool {
    let own = |k: &InstKind| match k {
        k if k.writes_array() => true,
        InstKind::Call(callee, _) => !pure.contains(callee),
        _ => false,
    };
    if own(&f.insts[inst].kind) {
        return true;
    }
    let mut w = false;
    for r in f.insts[inst].kind.regions() {
        walk::for_each_inst(f, r, &mut |i| w |= own(&f.insts[i].kind));
    }
    w
}

/// Eliminates common subexpressions in one function, given the module's
/// pure funcs ([`crate::dce::pure_funcs`]); returns whether it changed.
pub fn cse_func(f: &mut Function, pure: &HashSet<FuncId>) -> bool {
    let mut g = Gvn {
        pure,
        table: HashMap::new(),
        log: Vec::new(),
        subst: HashMap::new(),
        epoch: 0,
        changed: false,
    };
    g.region(f, f.body);
    walk::substitute(f, &g.subst);
    g.changed
}

struct Gvn<'a> {
    pure: &'a HashSet<FuncId>,
    table: HashMap<Key, Value>,
    /// Keys inserted, in order (popped when their region is left).
    log: Vec<Key>,
    subst: HashMap<Value, Value>,
    epoch: u32,
    changed: bool,
}

impl Gvn<'_> {
    fn region(&mut self, f: &mut Function, r: Region) {
        let mark = self.log.len();
        let old = std::mem::take(&mut f.regions[r].insts);
        let mut kept = Vec::with_capacity(old.len());
        for inst in old {
            let subst = &self.subst;
            f.insts[inst].kind.map_args(|v| walk::resolve(subst, v));
            match f.insts[inst].kind.clone() {
                InstKind::If {
                    then_region,
                    else_region,
                    ..
                } => {
                    self.region(f, then_region);
                    self.region(f, else_region);
                    if writes_memory(f, inst, self.pure) {
                        self.epoch += 1;
                    }
                }
                InstKind::Loop { body, .. } => {
                    let writes = writes_memory(f, inst, self.pure);
                    if writes {
                        self.epoch += 1;
                    }
                    self.region(f, body);
                    if writes {
                        self.epoch += 1;
                    }
                }
                InstKind::Store(..)
                | InstKind::Atomic(..)
                | InstKind::AtomicCas(..)
                | InstKind::Call(..)
                    if writes_memory(f, inst, self.pure) =>
                {
                    self.epoch += 1;
                }
                kind => {
                    if let (Some(k), &[res]) =
                        (key(f, &kind, self.epoch), f.insts[inst].results.as_slice())
                    {
                        match self.table.get(&k) {
                            Some(&v) if f.value_type(v) == f.value_type(res) => {
                                self.subst.insert(res, v);
                                self.changed = true;
                                continue;
                            }
                            Some(_) => {}
                            None => {
                                self.table.insert(k.clone(), res);
                                self.log.push(k);
                            }
                        }
                    }
                }
            }
            kept.push(inst);
        }
        f.regions[r].insts = kept;
        for k in self.log.drain(mark..) {
            self.table.remove(&k);
        }
    }
}
