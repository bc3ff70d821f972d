//! The backward function of one kernel or func: the replay of the forward
//! computation and the reverse sweep, region by region (see the module
//! docs of [`super`] for the structure and Warp's rules).
//!
//! Three maps from source values to values of the generated function are
//! kept, each scoped to the generated region being filled:
//!
//! * `replay`: the recomputed value of a source value;
//! * `primal`: the value the adjoint formulas read for a source value where
//!   it differs from its replay (a loop-carried variable in a reversed
//!   dynamic loop, which Warp mutates in place);
//! * `adj`: the adjoint accumulated so far (absent: zero).
//!
//! An instruction that may leave the region early (an `if` holding a
//! `return`, `break` or `continue`) makes the replay produce an *exit code*
//! ([`Exit`]); the rest of the region is then replayed and reversed under
//! `if code == 0`, as Warp's `goto` into the reverse sweep does.

use super::scoped::{Mark, ScopedMap};
use super::{AdjointError, Ctx};
use std::collections::{BTreeSet, HashMap};
use weft_ir::{
    BinaryOp, FuncBuilder, FuncId, Function, Inst, InstKind, Loc, Region, Scalar, StructTable,
    Type, Value, ValueDef,
};

pub(super) type R<T> = Result<T, AdjointError>;

/// The scoped maps' marks ([`Sweep::marks`]).
#[derive(Copy, Clone)]
pub(super) struct Marks([Mark; 4]);

/// How a replayed sequence ended (the `i32` exit code).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Exit {
    /// Fell through to its end (a loop body: reached its final `continue`).
    Normal = 0,
    Return = 1,
    Break = 2,
    Continue = 3,
}

/// The gradient of an array parameter of the function being generated.
#[derive(Copy, Clone)]
pub(super) struct ArrayAdj {
    /// The adjoint array (same type as the primal array).
    pub grad: Value,
    /// `bool`: the adjoint array was given (its first axis is not empty).
    pub present: Value,
    /// `bool`: the primal array has `retain_grad` (stores do not consume).
    pub retain: Value,
    /// The same as the `i32` parameter it was read from (passed on to the
    /// adjoints of funcs).
    pub retain_flag: Value,
    /// When every access of the kernel to this array is at the thread's own
    /// index ([`super::owned`]): the source condition under which that index
    /// is one-to-one (`None` in the value: always). Its gradient then needs
    /// no atomics.
    pub owned: Option<Option<Value>>,
}

/// The dynamic loop whose iteration is being reversed.
#[derive(Clone)]
pub(super) struct IterCtx {
    /// The source loop's body params and how many lead (the counter).
    pub params: Vec<Value>,
    pub k0: usize,
    /// The generated state params (the carried variables' current values,
    /// one per source param from `k0` on).
    pub state: Vec<Value>,
    /// The loop's header `if` (range loops: skipped, the reversed counter
    /// is always in range).
    pub skip: Option<Inst>,
}

/// What a replayed or reversed sequence produced: its exit code (`None`:
/// it cannot exit early and fell through), the values it exits a loop
/// iteration with, and the values it yields (an `if` region).
pub(super) struct Out {
    pub code: Option<Value>,
    pub args: Vec<Value>,
    pub yields: Vec<Value>,
}

pub(super) struct Sweep<'a> {
    pub ctx: &'a Ctx<'a>,
    pub src: &'a Function,
    pub dst: Function,
    pub region: Region,
    pub loc: Loc,
    pub replay: ScopedMap,
    pub primal: ScopedMap,
    pub adj: ScopedMap,
    /// Exact mode: the trip count (`i64`) of each replayed loop.
    pub counts: ScopedMap<Inst>,
    pub arrays: HashMap<Value, ArrayAdj>,
    /// Adjoints of the results of the `if` whose region is being reversed.
    pub yield_adj: Vec<Option<Value>>,
    /// Adjoints of the function's return values (funcs).
    pub ret_adj: Vec<Value>,
    pub iter: Option<IterCtx>,
    /// Dynamic loops are differentiated exactly, keeping at most this many
    /// states per loop ([`super::AdjointOptions::exact_loops`]); `None`:
    /// Warp's rule.
    pub exact: Option<u32>,
}

impl<'a> Sweep<'a> {
    pub(super) fn new(ctx: &'a Ctx<'a>, src: &'a Function, dst: Function) -> Sweep<'a> {
        let region = dst.body;
        Sweep {
            ctx,
            src,
            dst,
            region,
            loc: src.loc,
            replay: ScopedMap::default(),
            primal: ScopedMap::default(),
            adj: ScopedMap::default(),
            counts: ScopedMap::default(),
            arrays: HashMap::new(),
            yield_adj: Vec::new(),
            ret_adj: Vec::new(),
            iter: None,
            exact: ctx.exact_loops,
        }
    }

    pub(super) fn structs(&self) -> &'a StructTable {
        &self.ctx.src.structs
    }

    /// A builder appending to the current region at the current location.
    pub(super) fn b(&mut self) -> FuncBuilder<'_> {
        let structs: &'a StructTable = &self.ctx.src.structs;
        let mut b = FuncBuilder::new(&mut self.dst, structs);
        b.switch_to(self.region);
        b.set_loc(self.loc);
        b
    }

    pub(super) fn unsupported(&self, inst: Inst, what: impl Into<String>) -> AdjointError {
        AdjointError::Unsupported {
            what: what.into(),
            func: self.src.name.clone(),
            pos: self.ctx.src.source_pos(self.src.insts[inst].loc),
        }
    }

    // ---- values ----

    pub(super) fn sty(&self, v: Value) -> Type {
        self.src.value_type(v)
    }

    /// The replayed value of source value `v`.
    pub(super) fn rv(&self, inst: Inst, v: Value) -> R<Value> {
        self.replay
            .get(v)
            .ok_or_else(|| self.unsupported(inst, "a value the replay did not compute"))
    }

    /// The value adjoint formulas read for `v` (see the module docs).
    pub(super) fn pv(&self, inst: Inst, v: Value) -> R<Value> {
        match self.primal.get(v) {
            Some(p) => Ok(p),
            None => self.rv(inst, v),
        }
    }

    /// Whether `v` carries an adjoint: its type holds a float, it is not an
    /// array handle and not a constant.
    pub(super) fn tracked(&self, v: Value) -> bool {
        let ty = self.sty(v);
        if ty.is_array() || !has_float(ty, self.structs()) {
            return false;
        }
        !matches!(self.src.values[v].def, ValueDef::Result(i, _)
            if matches!(self.src.insts[i].kind, InstKind::Const(_)))
    }

    /// Adds `c` to the adjoint of `v` (nothing if `v` is not tracked).
    pub(super) fn accum(&mut self, v: Value, c: Value) {
        if !self.tracked(v) {
            return;
        }
        let n = match self.adj.get(v) {
            None => c,
            Some(a) => self.add_any(a, c),
        };
        self.adj.set(v, n);
    }

    /// Adds `c` to component `path` of the adjoint of aggregate `v`.
    pub(super) fn accum_path(&mut self, v: Value, path: &[u32], c: Value) {
        if !self.tracked(v) {
            return;
        }
        let ty = self.sty(v);
        let base = match self.adj.get(v) {
            Some(a) => a,
            None => self.zero(ty),
        };
        let cur = self.b().extract(base, path.to_vec());
        let sum = self.add_any(cur, c);
        let n = self.b().insert(base, path.to_vec(), sum);
        self.adj.set(v, n);
    }

    /// The adjoint of `v`, zero if none was accumulated.
    pub(super) fn adj_or_zero(&mut self, v: Value) -> Value {
        match self.adj.get(v) {
            Some(a) => a,
            None => {
                let ty = self.sty(v);
                self.zero(ty)
            }
        }
    }

    pub(super) fn zero(&mut self, ty: Type) -> Value {
        let structs: &'a StructTable = &self.ctx.src.structs;
        super::splat(&mut self.b(), ty, structs, 0)
    }

    /// `a + b` for scalars and, component by component, aggregates.
    pub(super) fn add_any(&mut self, a: Value, b: Value) -> Value {
        let ty = self.dst.value_type(a);
        match ty {
            Type::Scalar(s) if s.is_float() => self.b().binary(BinaryOp::Add, a, b),
            // Integer components of a struct adjoint stay zero.
            Type::Scalar(_) => a,
            _ => {
                let n = ty.arity(self.structs());
                let parts: Vec<Value> = (0..n)
                    .map(|k| {
                        let x = self.b().extract(a, vec![k]);
                        let y = self.b().extract(b, vec![k]);
                        self.add_any(x, y)
                    })
                    .collect();
                self.b().make(ty, parts)
            }
        }
    }

    pub(super) fn fconst(&mut self, s: Scalar, v: f64) -> Value {
        self.b().fconst(s, v)
    }

    pub(super) fn i32c(&mut self, v: i64) -> Value {
        self.b().iconst(Scalar::I32, v)
    }

    /// `code == k` for an exit code.
    pub(super) fn code_is(&mut self, code: Value, k: Exit) -> Value {
        let c = self.i32c(k as i64);
        self.b().binary(BinaryOp::Eq, code, c)
    }

    // ---- structured emission ----

    /// Emits `if cond` whose branches run `then_f`/`else_f`, each returning
    /// `extra.len()` values of types `extra` (the `if`'s first results); the
    /// adjoints of `touched` that either branch changes become further
    /// results. A branch that ends in a terminator of its own yields nothing.
    pub(super) fn emit_if(
        &mut self,
        cond: Value,
        extra: &[Type],
        touched: &[Value],
        then_f: &mut dyn FnMut(&mut Self) -> R<Vec<Value>>,
        else_f: &mut dyn FnMut(&mut Self) -> R<Vec<Value>>,
    ) -> R<Vec<Value>> {
        let (inst, tr, er) = self.b().if_(cond, extra);
        let outer = self.region;
        let before: Vec<Option<Value>> = touched.iter().map(|&k| self.adj.get(k)).collect();
        let mut ends = Vec::new();
        for (k, r) in [(0, tr), (1, er)] {
            self.region = r;
            let marks = self.marks();
            let vs = if k == 0 { then_f(self)? } else { else_f(self)? };
            let open = !self.b().is_terminated();
            let after: Vec<Option<Value>> = touched.iter().map(|&k| self.adj.get(k)).collect();
            ends.push((r, open, vs, after, self.region));
            self.restore(marks);
        }
        // The touched adjoints some open branch changed.
        let changed: Vec<usize> = (0..touched.len())
            .filter(|&k| ends.iter().any(|e| e.1 && e.3[k] != before[k]))
            .collect();
        for (_, open, mut vs, after, last) in ends {
            if !open {
                continue;
            }
            self.region = last;
            for &k in &changed {
                let v = match after[k] {
                    Some(v) => v,
                    None => {
                        let ty = self.sty(touched[k]);
                        self.zero(ty)
                    }
                };
                vs.push(v);
            }
            self.b().yield_(vs);
        }
        self.region = outer;
        let mut results = self.dst.results(inst).to_vec();
        for &k in &changed {
            let ty = self.sty(touched[k]);
            let r = crate::walk::add_result(&mut self.dst, inst, ty);
            results.push(r);
            self.adj.set(touched[k], r);
        }
        results.truncate(extra.len());
        Ok(results)
    }

    /// Where the scoped maps are, to come back to when the generated region
    /// being filled is left.
    pub(super) fn marks(&self) -> Marks {
        Marks([
            self.replay.mark(),
            self.primal.mark(),
            self.adj.mark(),
            self.counts.mark(),
        ])
    }
    pub(super) fn restore(&mut self, m: Marks) {
        self.replay.restore(m.0[0]);
        self.primal.restore(m.0[1]);
        self.adj.restore(m.0[2]);
        self.counts.restore(m.0[3]);
    }

    /// The tracked source values that `insts` (and the regions in them) use
    /// but do not define, sorted.
    pub(super) fn outer_uses(&self, insts: &[Inst]) -> Vec<Value> {
        let mut defined = BTreeSet::new();
        let mut used = BTreeSet::new();
        fn go(
            f: &Function,
            insts: &[Inst],
            defined: &mut BTreeSet<Value>,
            used: &mut BTreeSet<Value>,
        ) {
            for &i in insts {
                let d = &f.insts[i];
                used.extend(d.kind.args());
                defined.extend(d.results.iter().copied());
                for r in d.kind.regions() {
                    defined.extend(f.regions[r].params.iter().copied());
                    go(f, &f.regions[r].insts, defined, used);
                }
            }
        }
        go(self.src, insts, &mut defined, &mut used);
        used.into_iter()
            .filter(|v| !defined.contains(v) && self.tracked(*v))
            .collect()
    }

    /// The adjoints the reverse of `insts` may change: those of the values
    /// they use from outside, and, at the `top` of a reversed loop body,
    /// those of the carried variables (the final `continue` moves them).
    pub(super) fn touched(&self, insts: &[Inst], top: bool) -> Vec<Value> {
        let mut t = self.outer_uses(insts);
        if let (true, Some(it)) = (top, &self.iter) {
            for &p in &it.params[it.k0..] {
                if self.tracked(p) && !t.contains(&p) {
                    t.push(p);
                }
            }
        }
        t
    }

    /// Whether instruction `i` may leave the sequence it is in: an `if`
    /// with a `return`, `break` or `continue` in it (not inside a nested
    /// loop). Range loops' headers do not count (see [`IterCtx::skip`]).
    pub(super) fn may_exit(&self, i: Inst) -> bool {
        if self.iter.as_ref().is_some_and(|it| it.skip == Some(i)) {
            return false;
        }
        fn region_exits(f: &Function, r: Region) -> bool {
            f.regions[r].insts.iter().any(|&i| match &f.insts[i].kind {
                InstKind::Return(_) | InstKind::Break(_) | InstKind::Continue(_) => true,
                InstKind::If {
                    then_region,
                    else_region,
                    ..
                } => region_exits(f, *then_region) || region_exits(f, *else_region),
                _ => false,
            })
        }
        match &self.src.insts[i].kind {
            InstKind::If {
                then_region,
                else_region,
                ..
            } => region_exits(self.src, *then_region) || region_exits(self.src, *else_region),
            _ => false,
        }
    }

    /// The types of the values an exit leaves a loop iteration with (the
    /// carried state), empty outside a reversed loop.
    pub(super) fn exit_types(&self) -> Vec<Type> {
        self.iter
            .as_ref()
            .map(|it| it.state.iter().map(|&s| self.dst.value_type(s)).collect())
            .unwrap_or_default()
    }

    /// The exit values of an exit that changes no carried variable.
    pub(super) fn default_exit_args(&self) -> Vec<Value> {
        self.iter
            .as_ref()
            .map(|it| it.state.clone())
            .unwrap_or_default()
    }

    // ---- replay ----

    /// Replays instructions `insts` (a whole region, terminator included),
    /// skipping side effects and dynamic loops. `top`: the region is the
    /// body of the loop being reversed (its final `continue` is its normal
    /// end). `yield_tys`: the types the region yields (an `if` region).
    pub(super) fn replay_seq(&mut self, insts: &[Inst], top: bool, yield_tys: &[Type]) -> R<Out> {
        for (k, &i) in insts.iter().enumerate() {
            self.loc = self.src.insts[i].loc;
            if self.src.insts[i].kind.is_terminator() {
                return self.replay_terminator(i, top, yield_tys);
            }
            if self.may_exit(i) {
                let (code, args) = self.replay_exiting_if(i)?;
                let rest = &insts[k + 1..];
                let mut tys = vec![Type::I32];
                tys.extend(self.exit_types());
                tys.extend_from_slice(yield_tys);
                let go = self.code_is(code, Exit::Normal);
                let n_args = args.len();
                let out = self.emit_if(
                    go,
                    &tys,
                    &[],
                    &mut |s| {
                        let o = s.replay_seq(rest, top, yield_tys)?;
                        Ok(s.pack(o, yield_tys))
                    },
                    &mut |s| {
                        let mut vs = vec![code];
                        vs.extend(args.iter().copied());
                        for &t in yield_tys {
                            vs.push(s.zero(t));
                        }
                        Ok(vs)
                    },
                )?;
                return Ok(Out {
                    code: Some(out[0]),
                    args: out[1..1 + n_args].to_vec(),
                    yields: out[1 + n_args..].to_vec(),
                });
            }
            self.replay_inst(i)?;
        }
        Err(self.unsupported(
            insts.last().copied().unwrap_or(Inst::from_u32(0)),
            "a region without a terminator",
        ))
    }

    /// Packs an [`Out`] as yield values: code (0 when `None`), exit args
    /// (the defaults when missing), yields (zeros when missing).
    pub(super) fn pack(&mut self, o: Out, yield_tys: &[Type]) -> Vec<Value> {
        let code = match o.code {
            Some(c) => c,
            None => self.i32c(Exit::Normal as i64),
        };
        let mut vs = vec![code];
        if o.args.len() == self.exit_types().len() {
            vs.extend(o.args);
        } else {
            vs.extend(self.default_exit_args());
        }
        if o.yields.len() == yield_tys.len() {
            vs.extend(o.yields);
        } else {
            for &t in yield_tys {
                vs.push(self.zero(t));
            }
        }
        vs
    }

    fn replay_terminator(&mut self, i: Inst, top: bool, yield_tys: &[Type]) -> R<Out> {
        let kind = self.src.insts[i].kind.clone();
        let map =
            |s: &Self, vs: &[Value]| -> R<Vec<Value>> { vs.iter().map(|&v| s.rv(i, v)).collect() };
        let (code, args, yields) = match &kind {
            InstKind::Yield(vs) => (None, Vec::new(), map(self, vs)?),
            InstKind::Return(_) => (Some(Exit::Return), self.default_exit_args(), Vec::new()),
            InstKind::Continue(vs) => {
                let k0 = self.iter.as_ref().map_or(0, |it| it.k0);
                let args = map(self, vs.get(k0..).unwrap_or(&[]))?;
                (
                    if top { None } else { Some(Exit::Continue) },
                    args,
                    Vec::new(),
                )
            }
            InstKind::Break(vs) => (Some(Exit::Break), map(self, vs)?, Vec::new()),
            _ => return Err(self.unsupported(i, "a trap")),
        };
        let _ = yield_tys;
        let code = code.map(|c| self.i32c(c as i64));
        Ok(Out { code, args, yields })
    }

    /// Replays an `if` that may exit; returns its exit code and exit args
    /// (its own results are mapped in `replay`).
    fn replay_exiting_if(&mut self, i: Inst) -> R<(Value, Vec<Value>)> {
        let InstKind::If {
            cond,
            then_region,
            else_region,
        } = self.src.insts[i].kind.clone()
        else {
            return Err(self.unsupported(i, "an early exit that is not in an `if`"));
        };
        let rtys: Vec<Type> = self.src.results(i).iter().map(|&r| self.sty(r)).collect();
        let c = self.rv(i, cond)?;
        let mut tys = rtys.clone();
        tys.push(Type::I32);
        tys.extend(self.exit_types());
        let src = self.src;
        let branch = |s: &mut Self, r: Region| -> R<Vec<Value>> {
            let o = s.replay_seq(&src.regions[r].insts, false, &rtys)?;
            let packed = s.pack(o, &rtys);
            // (code, args, yields) → (yields, code, args)
            let n_args = packed.len() - 1 - rtys.len();
            let mut vs = packed[1 + n_args..].to_vec();
            vs.extend_from_slice(&packed[..1 + n_args]);
            Ok(vs)
        };
        let out = self.emit_if(c, &tys, &[], &mut |s| branch(s, then_region), &mut |s| {
            branch(s, else_region)
        })?;
        let n = rtys.len();
        for (k, &r) in self.src.results(i).iter().enumerate() {
            self.replay.set(r, out[k]);
        }
        Ok((out[n], out[n + 1..].to_vec()))
    }

    /// Replays one instruction that cannot exit.
    pub(super) fn replay_inst(&mut self, i: Inst) -> R<()> {
        let d = &self.src.insts[i];
        self.loc = d.loc;
        let results: Vec<Value> = d.results.to_vec();
        let kind = d.kind.clone();
        match &kind {
            // Side effects are not replayed.
            InstKind::Store(..) | InstKind::Print(..) => return Ok(()),
            // An atomic's result (the old value) is the element as it is
            // now (Warp leaves it undefined).
            InstKind::Atomic(_, m, _) | InstKind::AtomicCas(m, ..) => {
                let mut m = m.clone();
                m.array = self.rv(i, m.array)?;
                for x in &mut m.indices {
                    *x = self.rv(i, *x)?;
                }
                let v = self.b().load(m);
                self.replay.set(results[0], v);
                return Ok(());
            }
            // Exact mode: the loop runs (without its side effects).
            InstKind::Loop { .. } if self.exact.is_some() => {
                let fin = self.replay_loop(i, None)?;
                for (&r, v) in results.iter().zip(fin.state) {
                    self.replay.set(r, v);
                }
                return Ok(());
            }
            // Dynamic loops are skipped: their carried variables keep
            // their values from before the loop (Warp's rule 1).
            InstKind::Loop { init, body } => {
                let k0 = self.carried_offset(i, *body)?;
                for (k, &r) in results.iter().enumerate() {
                    let v = self.rv(i, init[k0 + k])?;
                    self.replay.set(r, v);
                }
                return Ok(());
            }
            InstKind::If {
                cond,
                then_region,
                else_region,
            } => {
                let rtys: Vec<Type> = results.iter().map(|&r| self.sty(r)).collect();
                let c = self.rv(i, *cond)?;
                let src = self.src;
                let (tr, er) = (*then_region, *else_region);
                let out = self.emit_if(
                    c,
                    &rtys,
                    &[],
                    &mut |s| Ok(s.replay_seq(&src.regions[tr].insts, false, &rtys)?.yields),
                    &mut |s| Ok(s.replay_seq(&src.regions[er].insts, false, &rtys)?.yields),
                )?;
                for (&r, v) in results.iter().zip(out) {
                    self.replay.set(r, v);
                }
                return Ok(());
            }
            _ => {}
        }
        let mut kind = kind;
        let mut bad = None;
        kind.map_args(|v| match self.replay.get(v) {
            Some(n) => n,
            None => {
                bad = Some(v);
                v
            }
        });
        if bad.is_some() {
            return Err(self.unsupported(i, "a value the replay did not compute"));
        }
        if let InstKind::Call(f, _) = &mut kind {
            *f = self.ctx.replay_of(*f);
        }
        let tys: Vec<Type> = results.iter().map(|&r| self.sty(r)).collect();
        let flags = self.src.insts[i].flags;
        let inplace = self.src.insts[i].inplace;
        let ni = self.b().ins(kind, &tys);
        self.dst.insts[ni].flags = flags;
        self.dst.insts[ni].inplace = inplace;
        for (k, &r) in results.iter().enumerate() {
            let v = self.dst.results(ni)[k];
            if let Some(n) = self.src.value_name(r) {
                self.dst.value_names[v] = n.to_string();
            }
            self.replay.set(r, v);
        }
        Ok(())
    }

    // ---- replay + reverse ----

    /// Replays `insts` (a whole region) and then runs their adjoints in
    /// reverse order; see the module docs for early exits.
    pub(super) fn bwd_seq(&mut self, insts: &[Inst], top: bool) -> R<Out> {
        for (k, &i) in insts.iter().enumerate() {
            self.loc = self.src.insts[i].loc;
            if self.src.insts[i].kind.is_terminator() {
                let out = self.replay_terminator(i, top, &[])?;
                let skips = out.code.is_some()
                    && self.exact.is_none()
                    && matches!(
                        self.src.insts[i].kind,
                        InstKind::Break(_) | InstKind::Continue(_)
                    );
                // A `break`/`continue` skips its iteration's adjoint (Warp
                // jumps over it; the exact mode does not).
                if !skips {
                    self.reverse_terminator(i, top, &out)?;
                    for &j in insts[..k].iter().rev() {
                        self.reverse_inst(j)?;
                    }
                }
                return Ok(out);
            }
            if self.may_exit(i) {
                let (code, args) = self.replay_exiting_if(i)?;
                let rest = &insts[k + 1..];
                let touched = self.touched(rest, top);
                let mut tys = vec![Type::I32];
                tys.extend(self.exit_types());
                let n_args = args.len();
                let go = self.code_is(code, Exit::Normal);
                let out = self.emit_if(
                    go,
                    &tys,
                    &touched,
                    &mut |s| {
                        let o = s.bwd_seq(rest, top)?;
                        let mut vs = s.pack(o, &[]);
                        vs.truncate(1 + n_args);
                        Ok(vs)
                    },
                    &mut |_| {
                        let mut vs = vec![code];
                        vs.extend(args.iter().copied());
                        Ok(vs)
                    },
                )?;
                let code = out[0];
                let args = out[1..].to_vec();
                if top && self.exact.is_none() {
                    // The carried variables now hold what the iteration
                    // left in them (Warp's in-place assignments).
                    if let Some(it) = self.iter.clone() {
                        for (j, &a) in args.iter().enumerate() {
                            self.primal.set(it.params[it.k0 + j], a);
                        }
                    }
                }
                // The adjoint of this instruction and of what precedes it,
                // unless the iteration left by `break`/`continue`.
                let prefix = &insts[..=k];
                if self.iter.is_some() && self.exact.is_none() {
                    let touched = self.touched(prefix, top);
                    let brk = self.code_is(code, Exit::Break);
                    let cont = self.code_is(code, Exit::Continue);
                    let skip = self.b().binary(BinaryOp::Or, brk, cont);
                    self.emit_if(skip, &[], &touched, &mut |_| Ok(Vec::new()), &mut |s| {
                        s.reverse_all(prefix)?;
                        Ok(Vec::new())
                    })?;
                } else {
                    self.reverse_all(prefix)?;
                }
                return Ok(Out {
                    code: Some(code),
                    args,
                    yields: Vec::new(),
                });
            }
            self.replay_inst(i)?;
        }
        Err(self.unsupported(
            insts.last().copied().unwrap_or(Inst::from_u32(0)),
            "a region without a terminator",
        ))
    }

    fn reverse_all(&mut self, insts: &[Inst]) -> R<()> {
        for &j in insts.iter().rev() {
            self.reverse_inst(j)?;
        }
        Ok(())
    }

    /// The adjoint of a region's terminator (the first reverse statement).
    fn reverse_terminator(&mut self, i: Inst, top: bool, out: &Out) -> R<()> {
        match self.src.insts[i].kind.clone() {
            InstKind::Yield(vs) => {
                for (k, v) in vs.into_iter().enumerate() {
                    if let Some(g) = self.yield_adj.get(k).copied().flatten() {
                        self.accum(v, g);
                    }
                }
            }
            InstKind::Return(vs) => {
                for (k, v) in vs.into_iter().enumerate() {
                    if let Some(&g) = self.ret_adj.get(k) {
                        self.accum(v, g);
                    }
                }
            }
            // Exact mode: an iteration's exit passes the adjoints of the
            // values it leaves in the carried variables on to those values.
            InstKind::Continue(vs) | InstKind::Break(vs) if self.exact.is_some() => {
                let Some(it) = self.iter.clone() else {
                    return Ok(());
                };
                let skip = match self.src.insts[i].kind {
                    InstKind::Continue(_) => it.k0,
                    _ => 0,
                };
                let carried = &it.params[it.k0..];
                let gs: Vec<Option<Value>> = carried.iter().map(|&p| self.adj.get(p)).collect();
                for &p in carried {
                    self.adj.remove(p);
                }
                for (&v, g) in vs.iter().skip(skip).zip(gs) {
                    if let Some(g) = g {
                        self.accum(v, g);
                    }
                }
            }
            // The end of a reversed loop body: Warp's `assign(var, new)` of
            // each carried variable, whose adjoint moves the variable's
            // adjoint to the new value and clears it; the adjoints of the
            // body then read the variables' new values.
            InstKind::Continue(vs) if top => {
                let Some(it) = self.iter.clone() else {
                    return Ok(());
                };
                for (j, &a) in out.args.iter().enumerate() {
                    self.primal.set(it.params[it.k0 + j], a);
                }
                for (j, &v) in vs.iter().enumerate().skip(it.k0) {
                    let p = it.params[j];
                    if v == p || !self.tracked(p) {
                        continue;
                    }
                    let g = self.adj.get(p);
                    self.adj.remove(p);
                    if self.tracked(v) {
                        match g {
                            Some(g) => self.adj.set(v, g),
                            None => self.adj.remove(v),
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The adjoint of one (non-terminator) instruction.
    pub(super) fn reverse_inst(&mut self, i: Inst) -> R<()> {
        self.loc = self.src.insts[i].loc;
        match self.src.insts[i].kind.clone() {
            InstKind::If {
                cond,
                then_region,
                else_region,
            } => self.reverse_if(i, cond, then_region, else_region),
            InstKind::Loop { .. } => self.reverse_loop(i),
            InstKind::Call(f, args) => self.reverse_call(i, f, &args),
            _ => self.reverse_op(i),
        }
    }

    /// The adjoint of an `if`: the same `if`, each branch replayed again
    /// and reversed (the replay's branch values are not visible here).
    fn reverse_if(&mut self, i: Inst, cond: Value, tr: Region, er: Region) -> R<()> {
        if self.iter.as_ref().is_some_and(|it| it.skip == Some(i)) {
            return Ok(());
        }
        let results = self.src.results(i).to_vec();
        let adj_in: Vec<Option<Value>> = results.iter().map(|&r| self.adj.get(r)).collect();
        let c = self.rv(i, cond)?;
        let src = self.src;
        let mut insts = src.regions[tr].insts.clone();
        insts.extend_from_slice(&src.regions[er].insts);
        // Exact mode: a `break`/`continue` in a branch moves the carried
        // variables' adjoints on to the values it leaves in them.
        let exits = self.exact.is_some() && self.may_exit(i);
        let touched = self.touched(&insts, exits);
        let saved = std::mem::replace(&mut self.yield_adj, adj_in.clone());
        let r = self.emit_if(
            c,
            &[],
            &touched,
            &mut |s| {
                s.yield_adj = adj_in.clone();
                s.bwd_seq(&src.regions[tr].insts, false).map(|_| Vec::new())
            },
            &mut |s| {
                s.yield_adj = adj_in.clone();
                s.bwd_seq(&src.regions[er].insts, false).map(|_| Vec::new())
            },
        );
        self.yield_adj = saved;
        r.map(drop)
    }

    /// The adjoint function (custom or generated) of `f`, in the output.
    pub(super) fn adjoint_of(&self, i: Inst, f: FuncId) -> R<FuncId> {
        self.ctx
            .adjoint_of(f)
            .ok_or_else(|| self.unsupported(i, "a call of a func without an adjoint"))
    }
}

/// Whether values of type `ty` carry a float somewhere (vectors, matrices,
/// quaternions, transforms of floats; structs with a float field).
pub(super) fn has_float(ty: Type, structs: &StructTable) -> bool {
    match ty {
        Type::Array(_) => false,
        Type::Struct(id) => structs
            .get(id)
            .is_some_and(|d| d.fields.iter().any(|f| has_float(f.ty, structs))),
        t => t.scalar_of().is_some_and(Scalar::is_float),
    }
}
