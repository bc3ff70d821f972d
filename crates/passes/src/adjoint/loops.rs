//! The adjoint of a dynamic loop, by Warp 1.19's rule (`codegen.py`,
//! `end_for`/`end_while`): the replay skipped the loop, so its carried
//! variables hold their values from before it; the reverse sweep then runs
//! the loop again — a `for` over its range backwards, a `while` forwards —
//! and each iteration replays the body (updating the carried variables in
//! place, starting from those values) and then runs the body's adjoint,
//! which reads the variables' updated values. The adjoints of values local
//! to the body start at zero in every iteration.
//!
//! With [`super::AdjointOptions::exact_loops`] (beyond Warp) a dynamic loop
//! is differentiated exactly instead: the replay runs it (counting its
//! iterations), a second run keeps its state every `ceil(n / K)`
//! iterations in `K` slots, and the reverse sweep visits the iterations
//! backwards, recomputing each one's state from the nearest kept one, then
//! running the body's adjoint at that state; an iteration left by `break`
//! or `continue` has the adjoint of what it ran. Memory: `K` states per
//! loop and thread; time: about `n·ceil(n / K) / 2` extra body replays.
//! (A `return` inside such a loop is not supported.)
//!
//! Loops are recognized in the frontend's two forms (`docs/ir.md`, "Loops
//! from the frontend"): a range loop carries its counter as the body's
//! first param (`continue` passes `add(counter, step)`, the header `if`
//! tests `lt`/`gt` against the stop value, or selects between them by the
//! sign of the step); a `while` loop carries only variables, one per result.

use super::sweep::{Exit, IterCtx, Sweep, R};
use weft_ir::{BinaryOp, Inst, InstKind, Region, Scalar, Type, Value, ValueDef};

/// A recognized loop.
enum Form {
    /// `for counter in range(start, stop, step)`: `sign` is the step's
    /// sign when it is a constant; `header` the `if` that leaves the loop.
    Range {
        start: Value,
        stop: Value,
        step: Value,
        sign: Option<i128>,
        header: Inst,
    },
    While,
}

impl Sweep<'_> {
    fn def_kind(&self, v: Value) -> Option<&InstKind> {
        match self.src.values[v].def {
            ValueDef::Result(i, 0) => Some(&self.src.insts[i].kind),
            _ => None,
        }
    }

    fn loop_form(&self, i: Inst, body: Region, k0: usize) -> R<Form> {
        let shape = || self.unsupported(i, "a loop that is not in the frontend's form");
        match k0 {
            0 => return Ok(Form::While),
            1 => {}
            _ => return Err(shape()),
        }
        let InstKind::Loop { init, .. } = &self.src.insts[i].kind else {
            return Err(shape());
        };
        let r = &self.src.regions[body];
        let p0 = r.params[0];
        let last = *r.insts.last().ok_or_else(shape)?;
        let InstKind::Continue(next) = &self.src.insts[last].kind else {
            return Err(shape());
        };
        let step = match next.first().and_then(|&v| self.def_kind(v)) {
            Some(&InstKind::Binary(BinaryOp::Add, a, s)) if a == p0 => s,
            _ => return Err(shape()),
        };
        let sign = match self.def_kind(step) {
            Some(InstKind::Const(c)) => Some(c.as_i128().signum()),
            _ => None,
        };
        let is_header = |h: Inst| match &self.src.insts[h].kind {
            InstKind::If {
                then_region,
                else_region,
                ..
            } => {
                let t = &self.src.regions[*then_region].insts;
                let e = &self.src.regions[*else_region].insts;
                t.len() == 1
                    && matches!(&self.src.insts[t[0]].kind, InstKind::Yield(v) if v.is_empty())
                    && e.len() == 1
                    && matches!(self.src.insts[e[0]].kind, InstKind::Break(_))
            }
            _ => false,
        };
        let header = r
            .insts
            .iter()
            .copied()
            .find(|&h| is_header(h))
            .ok_or_else(shape)?;
        let InstKind::If { cond, .. } = self.src.insts[header].kind else {
            return Err(shape());
        };
        let cmp_stop = |v: Value| match self.def_kind(v) {
            Some(&InstKind::Binary(BinaryOp::Lt | BinaryOp::Gt, a, s)) if a == p0 => Some(s),
            _ => None,
        };
        let stop = match self.def_kind(cond) {
            Some(&InstKind::Select(_, lt, _)) => cmp_stop(lt),
            _ => cmp_stop(cond),
        }
        .ok_or_else(shape)?;
        Ok(Form::Range {
            start: init[0],
            stop,
            step,
            sign,
            header,
        })
    }

    /// The trip count of `range(start, stop, step)` as an `i64`.
    fn trip_count(&mut self, start: Value, stop: Value, step: Value, sign: Option<i128>) -> Value {
        let st = self
            .dst
            .value_type(start)
            .as_scalar()
            .unwrap_or(Scalar::I32);
        let wide = |s: &mut Self, v: Value| {
            if st == Scalar::I64 {
                v
            } else {
                s.b().cast(v, Scalar::I64)
            }
        };
        let (a, z, step) = (wide(self, start), wide(self, stop), wide(self, step));
        let zero = self.b().iconst(Scalar::I64, 0);
        let one = self.b().iconst(Scalar::I64, 1);
        // ceil(n / s) for n > 0, else 0.
        let mut count = |s: &mut Self, n: Value, by: Value| {
            let pos = s.b().binary(BinaryOp::Gt, n, zero);
            let t = s.b().binary(BinaryOp::Add, n, by);
            let t = s.b().binary(BinaryOp::Sub, t, one);
            let q = s.b().binary(BinaryOp::Div, t, by);
            s.b().select(pos, q, zero)
        };
        let up = |s: &mut Self, count: &mut dyn FnMut(&mut Self, Value, Value) -> Value| {
            let n = s.b().binary(BinaryOp::Sub, z, a);
            count(s, n, step)
        };
        let down = |s: &mut Self, count: &mut dyn FnMut(&mut Self, Value, Value) -> Value| {
            let n = s.b().binary(BinaryOp::Sub, a, z);
            let by = s.b().unary(weft_ir::UnaryOp::Neg, step);
            count(s, n, by)
        };
        match sign {
            Some(1) => up(self, &mut count),
            Some(_) => down(self, &mut count),
            None => {
                let u = up(self, &mut count);
                let d = down(self, &mut count);
                let pos = self.b().binary(BinaryOp::Gt, step, zero);
                self.b().select(pos, u, d)
            }
        }
    }

    /// The adjoint of dynamic loop `i` (see the module docs).
    pub(super) fn reverse_loop(&mut self, i: Inst) -> R<()> {
        if self.exact.is_some() {
            return self.reverse_loop_exact(i);
        }
        let InstKind::Loop { init, body } = self.src.insts[i].kind.clone() else {
            return Ok(());
        };
        let src = self.src;
        let params = src.regions[body].params.clone();
        let results = src.results(i).to_vec();
        let k0 = params
            .len()
            .checked_sub(results.len())
            .ok_or_else(|| self.unsupported(i, "a loop with more results than carried values"))?;
        let form = self.loop_form(i, body, k0)?;
        let body_insts = src.regions[body].insts.clone();
        let outer: Vec<Value> = self
            .outer_uses(&body_insts)
            .into_iter()
            .filter(|v| !params.contains(v))
            .collect();
        let tracked: Vec<usize> = (0..results.len())
            .filter(|&k| self.tracked(params[k0 + k]))
            .collect();
        // The carried variables' current values, their adjoints, and the
        // adjoints of outer values the body contributes to.
        let s0: Vec<Value> = results.iter().map(|&r| self.pv(i, r)).collect::<R<_>>()?;
        let a0: Vec<Value> = tracked
            .iter()
            .map(|&k| self.adj_or_zero(results[k]))
            .collect();
        let o0: Vec<Value> = outer.iter().map(|&o| self.adj_or_zero(o)).collect();
        let mut init_vals = Vec::new();
        let range = match form {
            Form::Range {
                start,
                stop,
                step,
                sign,
                header,
            } => {
                let (a, z, s) = (self.pv(i, start)?, self.pv(i, stop)?, self.pv(i, step)?);
                let n = self.trip_count(a, z, s, sign);
                let one = self.b().iconst(Scalar::I64, 1);
                let last = self.b().binary(BinaryOp::Sub, n, one);
                init_vals.push(last);
                Some((a, s, header))
            }
            Form::While => None,
        };
        let nr = init_vals.len();
        init_vals.extend(&s0);
        init_vals.extend(&a0);
        init_vals.extend(&o0);
        let tys: Vec<Type> = init_vals[nr..]
            .iter()
            .map(|&v| self.dst.value_type(v))
            .collect();
        let (li, lbody, lparams) = self.b().loop_(init_vals, &tys);
        let outer_region = self.region;
        let marks = self.marks();
        self.region = lbody;
        let (ns, na) = (s0.len(), a0.len());
        let state: Vec<Value> = lparams[nr..nr + ns].to_vec();
        let adjs = lparams[nr + ns..nr + ns + na].to_vec();
        let outs = lparams[nr + ns + na..].to_vec();
        let mut skip = None;
        if let Some((start, step, header)) = range {
            // Leave when the reversed counter passes the range's start.
            let r = lparams[0];
            let zero = self.b().iconst(Scalar::I64, 0);
            let done = self.b().binary(BinaryOp::Lt, r, zero);
            let exit: Vec<Value> = lparams[nr..].to_vec();
            self.break_if(done, &exit)?;
            let c = self.counter_at(start, step, r);
            self.replay.set(params[0], c);
            skip = Some(header);
        }
        for (j, &s) in state.iter().enumerate() {
            self.replay.set(params[k0 + j], s);
        }
        for (n, &k) in tracked.iter().enumerate() {
            self.adj.set(params[k0 + k], adjs[n]);
        }
        for (o, &v) in outer.iter().zip(&outs) {
            self.adj.set(*o, v);
        }
        let saved = self.iter.replace(IterCtx {
            params: params.clone(),
            k0,
            state: state.clone(),
            skip,
        });
        let out = self.bwd_seq(&body_insts, true);
        let out = match out {
            Ok(o) => o,
            Err(e) => {
                self.iter = saved;
                return Err(e);
            }
        };
        // The next iteration starts from what this one left in the carried
        // variables (unchanged after a `return`).
        let next_state: Vec<Value> = match out.code {
            None => out.args.clone(),
            Some(code) => {
                let ret = self.code_is(code, Exit::Return);
                (0..state.len())
                    .map(|j| self.b().select(ret, state[j], out.args[j]))
                    .collect()
            }
        };
        let mut next: Vec<Value> = Vec::new();
        if nr == 1 {
            let one = self.b().iconst(Scalar::I64, 1);
            next.push(self.b().binary(BinaryOp::Sub, lparams[0], one));
        }
        next.extend(&next_state);
        for &k in &tracked {
            next.push(self.adj_or_zero(params[k0 + k]));
        }
        for &o in &outer {
            next.push(self.adj_or_zero(o));
        }
        if let Some(code) = out.code {
            let brk = self.code_is(code, Exit::Break);
            let exit = next[nr..].to_vec();
            self.break_if(brk, &exit)?;
        }
        self.b().continue_(next);
        self.iter = saved;
        self.restore(marks);
        self.region = outer_region;
        let fin = self.dst.results(li).to_vec();
        // Warp updates the carried variables in place: code before the loop
        // reads their final values.
        for (j, &v) in fin[..ns].iter().enumerate() {
            self.primal.set(init[k0 + j], v);
        }
        for (n, &k) in tracked.iter().enumerate() {
            self.accum(init[k0 + k], fin[ns + n]);
        }
        for (o, &v) in outer.iter().zip(&fin[ns + na..]) {
            self.adj.set(*o, v);
        }
        Ok(())
    }
}

/// What [`Sweep::replay_loop`] computed: the final state (the loop's
/// results), the trip count (`i64`) and, when asked, the kept states.
pub(super) struct Fin {
    pub state: Vec<Value>,
    pub count: Value,
    pub slots: Vec<Vec<Value>>,
}

/// The parts of a loop the exact mode needs.
struct Shape {
    init: Vec<Value>,
    params: Vec<Value>,
    k0: usize,
    body: Vec<Inst>,
    /// Range loops: (start, step), replayed.
    range: Option<(Value, Value)>,
}

impl Sweep<'_> {
    fn shape(&self, i: Inst) -> R<Shape> {
        let InstKind::Loop { init, body } = self.src.insts[i].kind.clone() else {
            return Err(self.unsupported(i, "a loop that is not a loop"));
        };
        let params = self.src.regions[body].params.clone();
        let nres = self.src.results(i).len();
        let k0 = params
            .len()
            .checked_sub(nres)
            .ok_or_else(|| self.unsupported(i, "a loop with more results than carried values"))?;
        if self.has_return(body) {
            return Err(
                self.unsupported(i, "a `return` inside a dynamic loop in the exact loop mode")
            );
        }
        let range = match self.loop_form(i, body, k0)? {
            Form::Range { start, step, .. } => Some((self.rv(i, start)?, self.rv(i, step)?)),
            Form::While => None,
        };
        Ok(Shape {
            init,
            params,
            k0,
            body: self.src.regions[body].insts.clone(),
            range,
        })
    }

    fn has_return(&self, r: Region) -> bool {
        self.src.regions[r].insts.iter().any(|&i| {
            matches!(self.src.insts[i].kind, InstKind::Return(_))
                || self.src.insts[i]
                    .kind
                    .regions()
                    .into_iter()
                    .any(|sub| self.has_return(sub))
        })
    }

    /// `if cond { break exit }` in the loop being generated.
    fn break_if(&mut self, cond: Value, exit: &[Value]) -> R<()> {
        self.emit_if(
            cond,
            &[],
            &[],
            &mut |s| {
                s.b().break_(exit.to_vec());
                Ok(Vec::new())
            },
            &mut |_| Ok(Vec::new()),
        )?;
        Ok(())
    }

    /// `start + k * step` in the counter's type (`k`: `i64`).
    fn counter_at(&mut self, start: Value, step: Value, k: Value) -> Value {
        let st = self
            .dst
            .value_type(start)
            .as_scalar()
            .unwrap_or(Scalar::I32);
        let k = if st == Scalar::I64 {
            k
        } else {
            self.b().cast(k, st)
        };
        let off = self.b().binary(BinaryOp::Mul, k, step);
        self.b().binary(BinaryOp::Add, start, off)
    }

    /// Runs loop `i` forward from `from` (its counter at `from_count`, of
    /// `i64`), without side effects, for at most `limit` iterations (all:
    /// `None`), keeping the state every `stride` iterations in `k` slots
    /// when `keep` is `Some((stride, k))`.
    fn run_loop(
        &mut self,
        i: Inst,
        sh: &Shape,
        from: Vec<Value>,
        from_count: Value,
        limit: Option<Value>,
        keep: Option<(Value, u32)>,
    ) -> R<Fin> {
        let ns = from.len();
        let mut init = Vec::new();
        if let Some((start, step)) = sh.range {
            init.push(self.counter_at(start, step, from_count));
        }
        let nr = init.len();
        init.extend(&from);
        init.push(from_count);
        let nk = keep.map_or(0, |(_, k)| k as usize);
        for _ in 0..nk {
            init.extend(&from);
        }
        let tys: Vec<Type> = init[nr..].iter().map(|&v| self.dst.value_type(v)).collect();
        let (li, lbody, lp) = self.b().loop_(init, &tys);
        let outer = self.region;
        let marks = self.marks();
        self.region = lbody;
        let state = lp[nr..nr + ns].to_vec();
        let t = lp[nr + ns];
        let mut slots: Vec<Vec<Value>> = (0..nk)
            .map(|k| lp[nr + ns + 1 + k * ns..nr + ns + 1 + (k + 1) * ns].to_vec())
            .collect();
        if let Some(limit) = limit {
            let done = self.b().binary(BinaryOp::Ge, t, limit);
            let mut exit = state.clone();
            exit.push(t);
            exit.extend(slots.iter().flatten());
            self.break_if(done, &exit)?;
        }
        if let Some((stride, _)) = keep {
            for (k, slot) in slots.iter_mut().enumerate() {
                let at = self.b().iconst(Scalar::I64, k as i64);
                let at = self.b().binary(BinaryOp::Mul, at, stride);
                let hit = self.b().binary(BinaryOp::Eq, t, at);
                for (j, v) in slot.iter_mut().enumerate() {
                    *v = self.b().select(hit, state[j], *v);
                }
            }
        }
        if nr == 1 {
            self.replay.set(sh.params[0], lp[0]);
        }
        for (j, &s) in state.iter().enumerate() {
            self.replay.set(sh.params[sh.k0 + j], s);
        }
        let saved = self.iter.replace(IterCtx {
            params: sh.params.clone(),
            k0: sh.k0,
            state: state.clone(),
            skip: None,
        });
        let out = self.replay_seq(&sh.body, true, &[]);
        self.iter = saved;
        let out = out?;
        let one = self.b().iconst(Scalar::I64, 1);
        let t1 = self.b().binary(BinaryOp::Add, t, one);
        let mut tail = out.args.clone();
        tail.push(t1);
        tail.extend(slots.iter().flatten());
        if let Some(code) = out.code {
            let brk = self.code_is(code, Exit::Break);
            let exit = tail.clone();
            self.break_if(brk, &exit)?;
        }
        let mut next = Vec::new();
        if nr == 1 {
            let step = sh.range.map_or(lp[0], |r| r.1);
            next.push(self.b().binary(BinaryOp::Add, lp[0], step));
        }
        next.extend(tail);
        self.b().continue_(next);
        self.restore(marks);
        self.region = outer;
        let res = self.dst.results(li).to_vec();
        let _ = i;
        Ok(Fin {
            state: res[..ns].to_vec(),
            count: res[ns],
            slots: (0..nk)
                .map(|k| res[ns + 1 + k * ns..ns + 1 + (k + 1) * ns].to_vec())
                .collect(),
        })
    }

    /// The replay of dynamic loop `i` in the exact mode: the loop run
    /// forward; its trip count is kept for its reverse.
    pub(super) fn replay_loop(&mut self, i: Inst, _keep: Option<(Value, u32)>) -> R<Fin> {
        let sh = self.shape(i)?;
        let from: Vec<Value> = sh.init[sh.k0..]
            .iter()
            .map(|&v| self.rv(i, v))
            .collect::<R<_>>()?;
        let zero = self.b().iconst(Scalar::I64, 0);
        let fin = self.run_loop(i, &sh, from, zero, None, None)?;
        self.counts.set(i, fin.count);
        Ok(fin)
    }

    /// The exact adjoint of dynamic loop `i` (see the module docs).
    fn reverse_loop_exact(&mut self, i: Inst) -> R<()> {
        let sh = self.shape(i)?;
        let k = self.exact.unwrap_or(1).max(1);
        let n = match self.counts.get(i) {
            Some(n) => n,
            None => self.replay_loop(i, None)?.count,
        };
        let from: Vec<Value> = sh.init[sh.k0..]
            .iter()
            .map(|&v| self.rv(i, v))
            .collect::<R<_>>()?;
        // Keep a state every ceil(n / k) iterations.
        let kc = self.b().iconst(Scalar::I64, k as i64);
        let one = self.b().iconst(Scalar::I64, 1);
        let t = self.b().binary(BinaryOp::Add, n, kc);
        let t = self.b().binary(BinaryOp::Sub, t, one);
        let stride = self.b().binary(BinaryOp::Div, t, kc);
        let stride = self.b().binary(BinaryOp::Max, stride, one);
        let zero = self.b().iconst(Scalar::I64, 0);
        let kept = self.run_loop(i, &sh, from.clone(), zero, None, Some((stride, k)))?;
        let results = self.src.results(i).to_vec();
        let tracked: Vec<usize> = (0..results.len())
            .filter(|&j| self.tracked(sh.params[sh.k0 + j]))
            .collect();
        let outer: Vec<Value> = self
            .outer_uses(&sh.body)
            .into_iter()
            .filter(|v| !sh.params.contains(v))
            .collect();
        let mut init = vec![self.b().binary(BinaryOp::Sub, n, one)];
        for &j in &tracked {
            init.push(self.adj_or_zero(results[j]));
        }
        for &o in &outer {
            init.push(self.adj_or_zero(o));
        }
        let tys: Vec<Type> = init[1..].iter().map(|&v| self.dst.value_type(v)).collect();
        let (li, lbody, lp) = self.b().loop_(init, &tys);
        let outer_region = self.region;
        let marks = self.marks();
        self.region = lbody;
        let r = lp[0];
        let na = tracked.len();
        let (adjs, outs) = (lp[1..1 + na].to_vec(), lp[1 + na..].to_vec());
        let done = self.b().binary(BinaryOp::Lt, r, zero);
        let exit = lp[1..].to_vec();
        self.break_if(done, &exit)?;
        // Iteration r's state: from kept state r / stride, recomputed.
        let q = self.b().binary(BinaryOp::Div, r, stride);
        let base = self.b().binary(BinaryOp::Mul, q, stride);
        let ns = from.len();
        let mut start_state = kept.slots[0].clone();
        for (kk, slot) in kept.slots.iter().enumerate().skip(1) {
            let at = self.b().iconst(Scalar::I64, kk as i64);
            let hit = self.b().binary(BinaryOp::Eq, q, at);
            for j in 0..ns {
                start_state[j] = self.b().select(hit, slot[j], start_state[j]);
            }
        }
        let state = self
            .run_loop(i, &sh, start_state, base, Some(r), None)?
            .state;
        if let Some((start, step)) = sh.range {
            let c = self.counter_at(start, step, r);
            self.replay.set(sh.params[0], c);
        }
        for (j, &s) in state.iter().enumerate() {
            self.replay.set(sh.params[sh.k0 + j], s);
        }
        for (m, &j) in tracked.iter().enumerate() {
            self.adj.set(sh.params[sh.k0 + j], adjs[m]);
        }
        for (o, &v) in outer.iter().zip(&outs) {
            self.adj.set(*o, v);
        }
        let saved = self.iter.replace(IterCtx {
            params: sh.params.clone(),
            k0: sh.k0,
            state: state.clone(),
            skip: None,
        });
        let out = self.bwd_seq(&sh.body, true);
        self.iter = saved;
        out?;
        let mut next = vec![self.b().binary(BinaryOp::Sub, r, one)];
        for &j in &tracked {
            next.push(self.adj_or_zero(sh.params[sh.k0 + j]));
        }
        for &o in &outer {
            next.push(self.adj_or_zero(o));
        }
        self.b().continue_(next);
        self.restore(marks);
        self.region = outer_region;
        let fin = self.dst.results(li).to_vec();
        for (m, &j) in tracked.iter().enumerate() {
            self.accum(sh.init[sh.k0 + j], fin[m]);
        }
        for (o, &v) in outer.iter().zip(&fin[na..]) {
            self.adj.set(*o, v);
        }
        Ok(())
    }
}
