//! `simplify`: constant folding and exact algebraic simplification.
//!
//! Rewrites, applied in one program-order walk per function (each
//! rewritten instruction is simplified again until it is stable):
//!
//! * `unary`/`binary`/`fma`/`cast`/`bitcast` of constants fold to a
//!   constant computed by the interpreter's scalar code (see
//!   [`crate::fold`]);
//! * identities that are exact for every input: integer `x+0`, `0+x`,
//!   `x-0`, `x-x`, `x*1`, `x*0`, `x/1`, `x/-1` (`-x`), `x%1`, `x%-1`, `x|0`, `x^0`, `x^x`, `x&0`, `x&!0`,
//!   `x&x`, `x|x`, `min/max(x,x)`, shifts by 0 and comparisons of a value
//!   with itself; bool `x&true`, `x&false`, `x|false`, `x|true`,
//!   `x^false`; float `x*1.0`, `1.0*x`, `x/1.0` (never `x+0.0`: `-0.0+0.0`
//!   is `+0.0`); casts to the same type; `not not x`, `neg neg x`;
//! * `select` with a constant condition or equal arms; `select(c, true,
//!   false)` is `c`, `select(c, false, true)` is `not c`;
//! * aggregates: `extract` of `make` or of `insert` forwards the component,
//!   an `extract` through a disjoint `insert` skips it, an `insert` over an
//!   `insert` of the same (or a covered) path skips the inner one, an
//!   `insert` into a `make` makes a new `make`, `make` of the components of
//!   one value of that type is that value, `insert` of a component
//!   extracted from the same place is a no-op;
//! * `if` with a constant condition is replaced by the taken region (its
//!   `yield` values replace the `if`'s results; if it ends in `break`,
//!   `continue` or `return`, the rest of the enclosing region is dead and
//!   dropped); `if not c` swaps its regions; an `if` whose regions only
//!   yield becomes `select`s;
//! * a loop without `continue` whose only `break` ends its body (the
//!   inliner's wrapper, once its early returns are folded away) is replaced
//!   by its body.
//!
//! Replaced instructions are unlinked from their region; their values are
//! substituted everywhere.

use crate::{fold, walk, Pass, PassError};
use std::collections::HashMap;
use weft_ir::{
    BinaryOp, Const, Function, Inst, InstKind, Module, Region, Scalar, StructTable, Type, UnaryOp,
    Value, ValueDef,
};

/// The simplifier (see the module docs).
#[derive(Debug, Default)]
pub struct Simplify;

impl Pass for Simplify {
    fn name(&self) -> &'static str {
        "simplify"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        for f in m.funcs.values_mut() {
            changed |= simplify_func(f, &m.structs);
        }
        Ok(changed)
    }
}

/// Simplifies one function; returns whether it changed.
pub fn simplify_func(f: &mut Function, structs: &StructTable) -> bool {
    let mut s = Simplifier {
        structs,
        subst: HashMap::new(),
        changed: false,
    };
    s.region(f, f.body);
    walk::substitute(f, &s.subst);
    s.changed
}

enum Action {
    /// Nothing to do.
    Keep,
    /// The instruction's kind was rewritten in place; simplify it again.
    Rewritten,
    /// The instruction's single result equals this value; drop it.
    Replace(Value),
}

struct Simplifier<'a> {
    structs: &'a StructTable,
    subst: HashMap<Value, Value>,
    changed: bool,
}

impl Simplifier<'_> {
    fn region(&mut self, f: &mut Function, r: Region) {
        let mut i = 0;
        // Bounded so that a rewrite cycle (a bug) cannot hang compilation.
        let mut budget = 64 * (f.regions[r].insts.len() + 16);
        while i < f.regions[r].insts.len() && budget > 0 {
            budget -= 1;
            let inst = f.regions[r].insts[i];
            let subst = &self.subst;
            f.insts[inst].kind.map_args(|v| walk::resolve(subst, v));
            if let InstKind::If {
                cond,
                then_region,
                else_region,
            } = f.insts[inst].kind
            {
                if let Some(c) = const_of(f, cond) {
                    let taken = if c.bits != 0 {
                        then_region
                    } else {
                        else_region
                    };
                    self.inline_taken(f, r, i, inst, taken);
                    continue;
                }
                if let Some(InstKind::Unary(UnaryOp::Not, c)) = def_kind(f, cond) {
                    // `if not c { a } else { b }` is `if c { b } else { a }`.
                    f.insts[inst].kind = InstKind::If {
                        cond: *c,
                        then_region: else_region,
                        else_region: then_region,
                    };
                    self.changed = true;
                    continue;
                }
                if self.if_to_select(f, r, i, inst) {
                    continue;
                }
            }
            if self.unwrap_single_pass_loop(f, r, i, inst) {
                continue;
            }
            match self.inst(f, inst) {
                Action::Keep => {}
                Action::Rewritten => {
                    self.changed = true;
                    continue;
                }
                Action::Replace(v) => {
                    self.changed = true;
                    if let Some(&res) = f.insts[inst].results.first() {
                        self.subst.insert(res, v);
                    }
                    f.regions[r].insts.remove(i);
                    continue;
                }
            }
            for sub in f.insts[inst].kind.regions() {
                self.region(f, sub);
            }
            // Simplifying the body may have made the loop single-pass.
            if self.unwrap_single_pass_loop(f, r, i, inst) {
                continue;
            }
            i += 1;
        }
    }

    /// Replaces the `if` at index `i` of `r` by the instructions of its
    /// taken region.
    fn inline_taken(&mut self, f: &mut Function, r: Region, i: usize, inst: Inst, taken: Region) {
        self.changed = true;
        let mut body = f.regions[taken].insts.clone();
        let yielded = body.last().and_then(|&t| match &f.insts[t].kind {
            InstKind::Yield(vs) => Some(vs.clone()),
            _ => None,
        });
        match yielded {
            Some(vs) => {
                body.pop();
                for (&res, v) in f.insts[inst].results.iter().zip(vs) {
                    self.subst.insert(res, v);
                }
                f.regions[r].insts.splice(i..=i, body);
            }
            None => {
                // The taken region leaves through break/continue/return:
                // everything after the `if` is unreachable.
                let insts = &mut f.regions[r].insts;
                insts.truncate(i);
                insts.extend(body);
            }
        }
    }

    /// A loop without `continue` runs its body once. When its only `break`
    /// ends the body (or it has none: every path returns), the body replaces
    /// the loop: params become the init values, results the `break`'s
    /// values (with no `break`, the rest of `r` is unreachable and dropped).
    fn unwrap_single_pass_loop(
        &mut self,
        f: &mut Function,
        r: Region,
        i: usize,
        inst: Inst,
    ) -> bool {
        let InstKind::Loop { init, body } = &f.insts[inst].kind else {
            return false;
        };
        let (init, body) = (init.clone(), *body);
        let (breaks, conts) = walk::loop_exits(f, body);
        if !conts.is_empty() || breaks.len() > 1 {
            return false;
        }
        let mut insts = f.regions[body].insts.clone();
        let last = insts.last().copied();
        let params = f.regions[body].params.clone();
        if params.len() != init.len() {
            return false;
        }
        match breaks.first() {
            Some(&b) if Some(b) == last => {
                let InstKind::Break(vals) = f.insts[b].kind.clone() else {
                    return false;
                };
                insts.pop();
                for (&res, v) in f.insts[inst].results.iter().zip(vals) {
                    self.subst.insert(res, v);
                }
                for (p, v) in params.into_iter().zip(init) {
                    self.subst.insert(p, v);
                }
                f.regions[r].insts.splice(i..=i, insts);
            }
            Some(_) => return false,
            None => {
                for (p, v) in params.into_iter().zip(init) {
                    self.subst.insert(p, v);
                }
                let rinsts = &mut f.regions[r].insts;
                rinsts.truncate(i);
                rinsts.extend(insts);
            }
        }
        self.changed = true;
        true
    }

    /// `if c { yield as } else { yield bs }` with nothing else in either
    /// region becomes `select(c, a, b)` per result.
    fn if_to_select(&mut self, f: &mut Function, r: Region, i: usize, inst: Inst) -> bool {
        let InstKind::If {
            cond,
            then_region,
            else_region,
        } = f.insts[inst].kind
        else {
            return false;
        };
        let only_yield = |reg: Region| -> Option<Vec<Value>> {
            match f.regions[reg].insts.as_slice() {
                [y] => match &f.insts[*y].kind {
                    InstKind::Yield(vs) => Some(vs.clone()),
                    _ => None,
                },
                _ => None,
            }
        };
        let (Some(a), Some(b)) = (only_yield(then_region), only_yield(else_region)) else {
            return false;
        };
        let results = f.insts[inst].results.to_vec();
        if results.iter().any(|&v| f.value_type(v).is_array()) {
            return false;
        }
        let loc = f.insts[inst].loc;
        let mut new = Vec::new();
        for ((res, a), b) in results.into_iter().zip(a).zip(b) {
            let v = if a == b {
                a
            } else {
                let ty = f.value_type(res);
                let s = f.create_inst(InstKind::Select(cond, a, b), &[ty], loc);
                new.push(s);
                f.insts[s].results[0]
            };
            self.subst.insert(res, v);
        }
        f.regions[r].insts.splice(i..=i, new);
        self.changed = true;
        true
    }

    fn inst(&mut self, f: &mut Function, inst: Inst) -> Action {
        let kind = f.insts[inst].kind.clone();
        let action = match kind {
            InstKind::Unary(op, x) => match const_of(f, x).and_then(|c| fold::unary(op, c)) {
                Some(c) => rewrite_const(f, inst, c),
                // `not not x` and `neg neg x` are `x` (wrapping, and exact
                // for floats, NaN included: the sign flips twice).
                None => match def_kind(f, x) {
                    Some(InstKind::Unary(op2, y))
                        if *op2 == op && matches!(op, UnaryOp::Not | UnaryOp::Neg) =>
                    {
                        Action::Replace(*y)
                    }
                    _ => Action::Keep,
                },
            },
            InstKind::Binary(op, a, b) => self.binary(f, inst, op, a, b),
            InstKind::Fma(a, b, c) => match (const_of(f, a), const_of(f, b), const_of(f, c)) {
                (Some(x), Some(y), Some(z)) => match fold::fma(x, y, z) {
                    Some(k) => rewrite_const(f, inst, k),
                    None => Action::Keep,
                },
                _ => Action::Keep,
            },
            InstKind::Cast(x, to) => {
                if f.value_type(x) == Type::Scalar(to) {
                    Action::Replace(x)
                } else {
                    match const_of(f, x).and_then(|c| fold::cast(c, to)) {
                        Some(c) => rewrite_const(f, inst, c),
                        None => Action::Keep,
                    }
                }
            }
            InstKind::Bitcast(x, to) => {
                if f.value_type(x) == Type::Scalar(to) {
                    Action::Replace(x)
                } else {
                    match const_of(f, x).and_then(|c| fold::bitcast(c, to)) {
                        Some(c) => rewrite_const(f, inst, c),
                        None => Action::Keep,
                    }
                }
            }
            InstKind::Select(c, a, b) => match (const_of(f, c), const_of(f, a), const_of(f, b)) {
                (Some(k), _, _) => Action::Replace(if k.bits != 0 { a } else { b }),
                _ if a == b => Action::Replace(a),
                // select(c, true, false) is c.
                (None, Some(x), Some(y)) if x == Const::bool(true) && y == Const::bool(false) => {
                    Action::Replace(c)
                }
                (None, Some(x), Some(y)) if x == Const::bool(false) && y == Const::bool(true) => {
                    rewrite(f, inst, InstKind::Unary(UnaryOp::Not, c))
                }
                _ => Action::Keep,
            },
            InstKind::Extract(agg, path) => self.extract(f, inst, agg, path),
            InstKind::Insert(agg, path, v) => self.insert(f, inst, agg, path, v),
            InstKind::Make(ty, parts) => self.make(f, ty, &parts),
            _ => Action::Keep,
        };
        // Only replace the single result, and never by a value of another
        // type.
        match (action, f.insts[inst].results.as_slice()) {
            (Action::Replace(v), &[res]) if f.value_type(v) == f.value_type(res) => {
                Action::Replace(v)
            }
            (Action::Replace(_), _) => Action::Keep,
            (a, _) => a,
        }
    }

    fn binary(&mut self, f: &mut Function, inst: Inst, op: BinaryOp, a: Value, b: Value) -> Action {
        let (ca, cb) = (const_of(f, a), const_of(f, b));
        if let (Some(x), Some(y)) = (ca, cb) {
            if let Some(c) = fold::binary(op, x, y) {
                return rewrite_const(f, inst, c);
            }
        }
        let Type::Scalar(t) = f.value_type(a) else {
            return Action::Keep;
        };
        let is =
            |c: Option<Const>, v: i128| c.is_some_and(|c| !c.ty.is_float() && c.as_i128() == v);
        let all_ones = |c: Option<Const>| {
            c.is_some_and(|c| c.ty.is_int() && Const::from_i128(t, -1).bits == c.bits)
        };
        let fone = |c: Option<Const>| c.is_some_and(|c| c.ty.is_float() && c.as_f64() == 1.0);
        use BinaryOp::*;
        if t.is_int() {
            let zero = Const::int(t, 0);
            return match op {
                Add if is(cb, 0) => Action::Replace(a),
                Add if is(ca, 0) => Action::Replace(b),
                Sub if is(cb, 0) => Action::Replace(a),
                Sub | Xor if a == b => rewrite_const(f, inst, zero),
                Mul if is(cb, 1) => Action::Replace(a),
                Mul if is(ca, 1) => Action::Replace(b),
                Mul if is(ca, 0) || is(cb, 0) => rewrite_const(f, inst, zero),
                Div if is(cb, 1) => Action::Replace(a),
                // Wrapping: `MIN / -1` is `MIN`, as is `-MIN`.
                Div if is(cb, -1) => rewrite(f, inst, InstKind::Unary(UnaryOp::Neg, a)),
                Rem if is(cb, 1) || is(cb, -1) => rewrite_const(f, inst, zero),
                Or | Xor if is(cb, 0) => Action::Replace(a),
                Or | Xor if is(ca, 0) => Action::Replace(b),
                And if is(ca, 0) || is(cb, 0) => rewrite_const(f, inst, zero),
                And if all_ones(cb) => Action::Replace(a),
                And if all_ones(ca) => Action::Replace(b),
                And | Or | Min | Max if a == b => Action::Replace(a),
                Shl | Shr if is(cb, 0) => Action::Replace(a),
                Eq | Le | Ge if a == b => rewrite_const(f, inst, Const::bool(true)),
                Ne | Lt | Gt if a == b => rewrite_const(f, inst, Const::bool(false)),
                _ => Action::Keep,
            };
        }
        if t == Scalar::Bool {
            return match op {
                And if is(cb, 1) => Action::Replace(a),
                And if is(ca, 1) => Action::Replace(b),
                And if is(ca, 0) || is(cb, 0) => rewrite_const(f, inst, Const::bool(false)),
                Or | Xor if is(cb, 0) => Action::Replace(a),
                Or | Xor if is(ca, 0) => Action::Replace(b),
                Or if is(ca, 1) || is(cb, 1) => rewrite_const(f, inst, Const::bool(true)),
                And | Or if a == b => Action::Replace(a),
                _ => Action::Keep,
            };
        }
        match op {
            Mul if fone(cb) => Action::Replace(a),
            Mul if fone(ca) => Action::Replace(b),
            Div if fone(cb) => Action::Replace(a),
            _ => Action::Keep,
        }
    }

    fn extract(&mut self, f: &mut Function, inst: Inst, agg: Value, path: Vec<u32>) -> Action {
        let Some((&first, rest)) = path.split_first() else {
            return Action::Replace(agg);
        };
        match def_kind(f, agg) {
            Some(InstKind::Make(_, parts)) => match parts.get(first as usize) {
                Some(&p) if rest.is_empty() => Action::Replace(p),
                Some(&p) => rewrite(f, inst, InstKind::Extract(p, rest.to_vec())),
                None => Action::Keep,
            },
            Some(InstKind::Insert(base, ipath, v)) => {
                let (base, v, ipath) = (*base, *v, ipath.clone());
                if ipath == path {
                    Action::Replace(v)
                } else if path.starts_with(&ipath) {
                    rewrite(f, inst, InstKind::Extract(v, path[ipath.len()..].to_vec()))
                } else if ipath.starts_with(&path) {
                    // The extracted part contains the inserted one.
                    Action::Keep
                } else {
                    rewrite(f, inst, InstKind::Extract(base, path))
                }
            }
            _ => Action::Keep,
        }
    }

    fn insert(
        &mut self,
        f: &mut Function,
        inst: Inst,
        agg: Value,
        path: Vec<u32>,
        v: Value,
    ) -> Action {
        if path.is_empty() {
            return Action::Replace(v);
        }
        if let Some(InstKind::Extract(src, p)) = def_kind(f, v) {
            if *src == agg && *p == path {
                return Action::Replace(agg);
            }
        }
        match def_kind(f, agg) {
            Some(InstKind::Insert(base, ipath, _)) if ipath.starts_with(&path) => {
                let base = *base;
                rewrite(f, inst, InstKind::Insert(base, path, v))
            }
            Some(InstKind::Make(ty, parts))
                if path.len() == 1 && (path[0] as usize) < parts.len() =>
            {
                let (ty, mut parts) = (*ty, parts.clone());
                parts[path[0] as usize] = v;
                rewrite(f, inst, InstKind::Make(ty, parts))
            }
            _ => Action::Keep,
        }
    }

    fn make(&mut self, f: &Function, ty: Type, parts: &[Value]) -> Action {
        if parts.is_empty() || parts.len() as u32 != ty.arity(self.structs) {
            return Action::Keep;
        }
        let mut src = None;
        for (k, &p) in parts.iter().enumerate() {
            match def_kind(f, p) {
                Some(InstKind::Extract(x, path))
                    if path.as_slice() == [k as u32]
                        && f.value_type(*x) == ty
                        && src.is_none_or(|s| s == *x) =>
                {
                    src = Some(*x)
                }
                _ => return Action::Keep,
            }
        }
        src.map_or(Action::Keep, Action::Replace)
    }
}

fn rewrite(f: &mut Function, inst: Inst, kind: InstKind) -> Action {
    // The `inplace` mark belongs to the `insert` being replaced.
    f.insts[inst].inplace &= matches!(kind, InstKind::Insert(..));
    f.insts[inst].kind = kind;
    Action::Rewritten
}

fn rewrite_const(f: &mut Function, inst: Inst, c: Const) -> Action {
    // Only when the constant's type is the result's (always, for valid IR).
    if !matches!(f.insts[inst].results.as_slice(), &[r] if f.value_type(r) == Type::Scalar(c.ty)) {
        return Action::Keep;
    }
    rewrite(f, inst, InstKind::Const(c))
}

/// The defining instruction's kind of a single-result instruction's value.
fn def_kind(f: &Function, v: Value) -> Option<&InstKind> {
    match f.values[v].def {
        ValueDef::Result(i, 0) if f.insts[i].results.len() == 1 => Some(&f.insts[i].kind),
        _ => None,
    }
}

/// The constant a value is defined by, if any.
pub fn const_of(f: &Function, v: Value) -> Option<Const> {
    match def_kind(f, v) {
        Some(InstKind::Const(c)) => Some(*c),
        _ => None,
    }
}
