//! The adjoint of each operation, with Warp 1.19's formulas and its choices
//! at non-differentiable points (`native/builtin.h`, `native/array.h`):
//! `abs` sends `+adj` at 0, `min`/`max` send the adjoint to the operand the
//! forward picked (the second on a tie), `fmod` only to its first operand,
//! rounding has none, `sqrt`/`cbrt`/`exp`/`tanh`/`div` use the forward
//! result, `tan`/`asin`/`acos`/`atan2` add nothing where their derivative is
//! infinite. Array reads add their adjoint to the adjoint array atomically;
//! a store moves the adjoint array's element into the stored value's
//! adjoint and clears it (unless `retain_grad`); `atomic_add`/`sub` read it
//! without clearing; `atomic_min`/`max` pass it to the value that is now
//! in the array.

use super::sweep::{ArrayAdj, Sweep, R};
use weft_ir::{
    AtomicOp, BinaryOp, Const, FuncId, Inst, InstKind, MemAccess, Scalar, Type, UnaryOp, Value,
    ValueDef,
};

impl Sweep<'_> {
    /// The adjoint of an operation (no regions, no call).
    pub(super) fn reverse_op(&mut self, i: Inst) -> R<()> {
        let kind = self.src.insts[i].kind.clone();
        let result = self.src.results(i).first().copied();
        match &kind {
            InstKind::Store(m, v) => return self.reverse_store(i, m, *v),
            InstKind::Atomic(op, m, v) => return self.reverse_atomic(i, *op, m, *v),
            _ => {}
        }
        let Some(r) = result else {
            return Ok(());
        };
        let Some(g) = self.adj.get(r) else {
            return Ok(());
        };
        match kind {
            InstKind::Unary(op, x) => self.reverse_unary(i, op, x, r, g),
            InstKind::Binary(op, a, b) => self.reverse_binary(i, op, a, b, r, g),
            InstKind::Fma(a, b, c) => {
                if self.tracked(a) {
                    let pb = self.pv(i, b)?;
                    let t = self.b().binary(BinaryOp::Mul, pb, g);
                    self.accum(a, t);
                }
                if self.tracked(b) {
                    let pa = self.pv(i, a)?;
                    let t = self.b().binary(BinaryOp::Mul, pa, g);
                    self.accum(b, t);
                }
                self.accum(c, g);
                Ok(())
            }
            InstKind::Cast(x, _) => {
                let from = self.sty(x).as_scalar().unwrap_or(Scalar::Bool);
                let to = self.sty(r).as_scalar().unwrap_or(Scalar::Bool);
                if from.is_float() && to.is_float() {
                    let c = self.b().cast(g, from);
                    self.accum(x, c);
                }
                Ok(())
            }
            InstKind::Select(c, a, b) => {
                let pc = self.pv(i, c)?;
                let ty = self.sty(r);
                if self.tracked(a) {
                    let z = self.zero(ty);
                    let t = self.b().select(pc, g, z);
                    self.accum(a, t);
                }
                if self.tracked(b) {
                    let z = self.zero(ty);
                    let t = self.b().select(pc, z, g);
                    self.accum(b, t);
                }
                Ok(())
            }
            InstKind::Make(_, parts) => {
                for (k, p) in parts.into_iter().enumerate() {
                    if self.tracked(p) {
                        let c = self.b().extract(g, vec![k as u32]);
                        self.accum(p, c);
                    }
                }
                Ok(())
            }
            InstKind::Extract(agg, path) => {
                self.accum_path(agg, &path, g);
                Ok(())
            }
            InstKind::Insert(agg, path, v) => {
                if self.tracked(v) {
                    let c = self.b().extract(g, path.clone());
                    self.accum(v, c);
                }
                if self.tracked(agg) {
                    // Warp's in-place write leaves the overwritten
                    // component's adjoint in place.
                    let rest = if self.src.insts[i].inplace {
                        g
                    } else {
                        let ct = self.sty(v);
                        let z = self.zero(ct);
                        self.b().insert(g, path, z)
                    };
                    self.accum(agg, rest);
                }
                Ok(())
            }
            InstKind::Load(m) => self.reverse_load(i, &m, g),
            // Constants, thread ids, shapes, bit casts: no adjoint.
            _ => Ok(()),
        }
    }

    fn reverse_unary(&mut self, i: Inst, op: UnaryOp, x: Value, r: Value, g: Value) -> R<()> {
        let Some(s) = self.sty(x).as_scalar().filter(|s| s.is_float()) else {
            return Ok(());
        };
        if !self.tracked(x) {
            return Ok(());
        }
        use UnaryOp::*;
        let px = self.pv(i, x)?;
        let c = |s2: &mut Self, v: f64| s2.fconst(s, v);
        let contribution = match op {
            Neg => Some(self.b().unary(Neg, g)),
            Abs => {
                let z = c(self, 0.0);
                let neg = self.b().binary(BinaryOp::Lt, px, z);
                let ng = self.b().unary(Neg, g);
                Some(self.b().select(neg, ng, g))
            }
            Sqrt => {
                let ret = self.pv(i, r)?;
                let (h, one) = (c(self, 0.5), c(self, 1.0));
                let inv = self.b().binary(BinaryOp::Div, one, ret);
                let k = self.b().binary(BinaryOp::Mul, h, inv);
                Some(self.b().binary(BinaryOp::Mul, k, g))
            }
            Cbrt => {
                let ret = self.pv(i, r)?;
                let third = c(self, 1.0 / 3.0);
                let one = c(self, 1.0);
                let sq = self.b().binary(BinaryOp::Mul, ret, ret);
                let inv = self.b().binary(BinaryOp::Div, one, sq);
                let k = self.b().binary(BinaryOp::Mul, third, inv);
                Some(self.b().binary(BinaryOp::Mul, k, g))
            }
            Floor | Ceil | Trunc | Round | Rint => None,
            Sin => {
                let k = self.b().unary(Cos, px);
                Some(self.b().binary(BinaryOp::Mul, k, g))
            }
            Cos => {
                let k = self.b().unary(Sin, px);
                let t = self.b().binary(BinaryOp::Mul, k, g);
                Some(self.b().unary(Neg, t))
            }
            Tan => {
                // Nothing where cos x = 0.
                let cx = self.b().unary(Cos, px);
                let (one, z) = (c(self, 1.0), c(self, 0.0));
                let sq = self.b().binary(BinaryOp::Mul, cx, cx);
                let inv = self.b().binary(BinaryOp::Div, one, sq);
                let t = self.b().binary(BinaryOp::Mul, inv, g);
                let ok = self.b().binary(BinaryOp::Ne, cx, z);
                Some(self.b().select(ok, t, z))
            }
            Asin | Acos => {
                // d = sqrt(1 - x²); nothing unless d > 0.
                let (one, z) = (c(self, 1.0), c(self, 0.0));
                let xx = self.b().binary(BinaryOp::Mul, px, px);
                let t = self.b().binary(BinaryOp::Sub, one, xx);
                let d = self.b().unary(Sqrt, t);
                let inv = self.b().binary(BinaryOp::Div, one, d);
                let mut t = self.b().binary(BinaryOp::Mul, inv, g);
                if op == Acos {
                    t = self.b().unary(Neg, t);
                }
                let ok = self.b().binary(BinaryOp::Gt, d, z);
                Some(self.b().select(ok, t, z))
            }
            Atan => {
                let one = c(self, 1.0);
                let xx = self.b().binary(BinaryOp::Mul, px, px);
                let d = self.b().binary(BinaryOp::Add, xx, one);
                Some(self.b().binary(BinaryOp::Div, g, d))
            }
            Sinh => {
                let k = self.b().unary(Cosh, px);
                Some(self.b().binary(BinaryOp::Mul, k, g))
            }
            Cosh => {
                let k = self.b().unary(Sinh, px);
                Some(self.b().binary(BinaryOp::Mul, k, g))
            }
            Tanh => {
                let ret = self.pv(i, r)?;
                let one = c(self, 1.0);
                let sq = self.b().binary(BinaryOp::Mul, ret, ret);
                let k = self.b().binary(BinaryOp::Sub, one, sq);
                Some(self.b().binary(BinaryOp::Mul, k, g))
            }
            Exp => {
                let ret = self.pv(i, r)?;
                Some(self.b().binary(BinaryOp::Mul, ret, g))
            }
            Exp2 => {
                let ret = self.pv(i, r)?;
                let ln2 = c(self, std::f64::consts::LN_2);
                let k = self.b().binary(BinaryOp::Mul, ln2, ret);
                Some(self.b().binary(BinaryOp::Mul, k, g))
            }
            Log | Log2 | Log10 => {
                let one = c(self, 1.0);
                let inv = self.b().binary(BinaryOp::Div, one, px);
                let k = match op {
                    Log => inv,
                    _ => {
                        let base = if op == Log2 { 2.0f64 } else { 10.0 };
                        let ln = c(self, base.ln());
                        let il = self.b().binary(BinaryOp::Div, one, ln);
                        self.b().binary(BinaryOp::Mul, inv, il)
                    }
                };
                Some(self.b().binary(BinaryOp::Mul, k, g))
            }
            Erf | Erfc => {
                // 2/sqrt(pi) * exp(-x²)
                let k = c(self, std::f64::consts::FRAC_2_SQRT_PI);
                let nx = self.b().unary(Neg, px);
                let e = self.b().binary(BinaryOp::Mul, nx, px);
                let e = self.b().unary(Exp, e);
                let k = self.b().binary(BinaryOp::Mul, k, e);
                let t = self.b().binary(BinaryOp::Mul, k, g);
                Some(if op == Erfc {
                    self.b().unary(Neg, t)
                } else {
                    t
                })
            }
            Erfinv => {
                // sqrt(pi)/2 * exp(ret²)
                let ret = self.pv(i, r)?;
                let k = c(self, std::f64::consts::PI.sqrt() / 2.0);
                let e = self.b().binary(BinaryOp::Mul, ret, ret);
                let e = self.b().unary(Exp, e);
                let k = self.b().binary(BinaryOp::Mul, k, e);
                Some(self.b().binary(BinaryOp::Mul, k, g))
            }
            Not | Popcount | IsNan | IsInf | IsFinite => None,
        };
        if let Some(t) = contribution {
            self.accum(x, t);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn reverse_binary(
        &mut self,
        i: Inst,
        op: BinaryOp,
        a: Value,
        b: Value,
        r: Value,
        g: Value,
    ) -> R<()> {
        let Some(s) = self.sty(a).as_scalar().filter(|s| s.is_float()) else {
            return Ok(());
        };
        if op.is_comparison() {
            return Ok(());
        }
        use BinaryOp::*;
        let (pa, pb) = (self.pv(i, a)?, self.pv(i, b)?);
        let (ta, tb) = (self.tracked(a), self.tracked(b));
        let z = self.fconst(s, 0.0);
        // (to a, to b); `None`: nothing.
        let (ca, cb) = match op {
            Add => (Some(g), Some(g)),
            Sub => (Some(g), Some(self.b().unary(UnaryOp::Neg, g))),
            Mul => (
                ta.then(|| self.b().binary(Mul, pb, g)),
                tb.then(|| self.b().binary(Mul, pa, g)),
            ),
            Div => {
                let ret = self.pv(i, r)?;
                let ca = ta.then(|| self.b().binary(Div, g, pb));
                let cb = tb.then(|| {
                    let t = self.b().binary(Mul, g, ret);
                    let t = self.b().binary(Div, t, pb);
                    self.b().unary(UnaryOp::Neg, t)
                });
                (ca, cb)
            }
            Rem => (Some(g), None),
            Min | Max => {
                // NaN a → b; NaN b → a; else the one picked, b on a tie.
                let an = self.b().unary(UnaryOp::IsNan, pa);
                let bn = self.b().unary(UnaryOp::IsNan, pb);
                let cmp = if op == Min { Lt } else { Gt };
                let wins = self.b().binary(cmp, pa, pb);
                let nbn = self.b().unary(UnaryOp::Not, bn);
                let to_a = self.b().select(nbn, wins, bn);
                let f = self.b().bconst(false);
                let to_a = self.b().select(an, f, to_a);
                let ca = self.b().select(to_a, g, z);
                let cb = self.b().select(to_a, z, g);
                (Some(ca), Some(cb))
            }
            Pow => {
                let ret = self.pv(i, r)?;
                let ca = ta.then(|| {
                    let one = self.fconst(s, 1.0);
                    let bm1 = self.b().binary(Sub, pb, one);
                    let p = self.b().binary(Pow, pa, bm1);
                    let t = self.b().binary(Mul, pb, p);
                    self.b().binary(Mul, t, g)
                });
                let cb = tb.then(|| {
                    let l = self.b().unary(UnaryOp::Log, pa);
                    let t = self.b().binary(Mul, l, ret);
                    self.b().binary(Mul, t, g)
                });
                (ca, cb)
            }
            Atan2 => {
                // atan2(y = a, x = b): d = x² + y²; nothing unless d > 0.
                let xx = self.b().binary(Mul, pb, pb);
                let yy = self.b().binary(Mul, pa, pa);
                let d = self.b().binary(Add, xx, yy);
                let ok = self.b().binary(Gt, d, z);
                let ya = self.b().binary(Div, pb, d);
                let ya = self.b().binary(Mul, ya, g);
                let xb = self.b().binary(Div, pa, d);
                let xb = self.b().binary(Mul, xb, g);
                let xb = self.b().unary(UnaryOp::Neg, xb);
                (
                    Some(self.b().select(ok, ya, z)),
                    Some(self.b().select(ok, xb, z)),
                )
            }
            Copysign => {
                let one = self.fconst(s, 1.0);
                let sa = self.b().binary(Copysign, one, pa);
                let sb = self.b().binary(Copysign, one, pb);
                let same = self.b().binary(Eq, sa, sb);
                let ng = self.b().unary(UnaryOp::Neg, g);
                (Some(self.b().select(same, g, ng)), None)
            }
            _ => (None, None),
        };
        if let Some(c) = ca {
            self.accum(a, c);
        }
        if let Some(c) = cb {
            self.accum(b, c);
        }
        Ok(())
    }

    /// The access `m` into the adjoint array of `m.array` (replayed
    /// indices), and the array's gradient.
    fn adj_access(&mut self, i: Inst, m: &MemAccess) -> R<(MemAccess, ArrayAdj)> {
        let Some(&aa) = self.arrays.get(&m.array) else {
            return Err(self.unsupported(i, "an access to an array that is not a parameter"));
        };
        let mut am = m.clone();
        am.array = aa.grad;
        for x in &mut am.indices {
            *x = self.index_pv(i, *x)?;
        }
        Ok((am, aa))
    }

    /// The primal of an array index. The frontend's wrap of a negative
    /// index, `select(i < 0, i + n, i)` (possibly of `cast(i)`), is part of
    /// the access in Warp (`wp::index` adds the shape): in a reversed
    /// dynamic loop it wraps the carried variable's updated value, so it is
    /// rebuilt here from the primal of `i`.
    fn index_pv(&mut self, inst: Inst, v: Value) -> R<Value> {
        if let Some(p) = self.primal.get(v) {
            return Ok(p);
        }
        let def = match self.src.values[v].def {
            ValueDef::Result(d, 0) => self.src.insts[d].kind.clone(),
            _ => return self.rv(inst, v),
        };
        let is_zero = |s: &Self, z: Value| {
            matches!(s.src.values[z].def, ValueDef::Result(d, 0)
                if matches!(s.src.insts[d].kind, InstKind::Const(c) if c.as_i128() == 0))
        };
        let op_of = |s: &Self, x: Value| match s.src.values[x].def {
            ValueDef::Result(d, 0) => match s.src.insts[d].kind {
                InstKind::Binary(op, a, b) => Some((op, a, b)),
                _ => None,
            },
            _ => None,
        };
        match def {
            InstKind::Cast(x, to) => {
                let xp = self.index_pv(inst, x)?;
                if xp == self.rv(inst, x)? {
                    return self.rv(inst, v);
                }
                Ok(self.b().cast(xp, to))
            }
            InstKind::Select(c, j, k) => {
                let wrap = matches!(op_of(self, c), Some((BinaryOp::Lt, a, z)) if a == k && is_zero(self, z))
                    && matches!(op_of(self, j), Some((BinaryOp::Add, a, _)) if a == k);
                if !wrap {
                    return self.rv(inst, v);
                }
                let kp = self.index_pv(inst, k)?;
                if kp == self.rv(inst, k)? {
                    return self.rv(inst, v);
                }
                let Some((_, _, n)) = op_of(self, j) else {
                    return self.rv(inst, v);
                };
                let n = self.rv(inst, n)?;
                let s = self.sty(k).as_scalar().unwrap_or(Scalar::I32);
                let zero = self.b().konst(Const::from_i128(s, 0));
                let neg = self.b().binary(BinaryOp::Lt, kp, zero);
                let wrapped = self.b().binary(BinaryOp::Add, kp, n);
                Ok(self.b().select(neg, wrapped, kp))
            }
            _ => self.rv(inst, v),
        }
    }

    /// Whether the elements at `m` carry a gradient (float data).
    fn access_tracked(&self, m: &MemAccess) -> bool {
        let Type::Array(a) = self.sty(m.array) else {
            return false;
        };
        Type::from(a.elem)
            .project_path(&m.path, self.structs())
            .is_some_and(|t| super::sweep::has_float(t, self.structs()))
    }

    /// `x[i]`: the adjoint is added to the adjoint array, atomically — or
    /// with a plain read and write when the element is the thread's own
    /// ([`ArrayAdj::owned`]).
    fn reverse_load(&mut self, i: Inst, m: &MemAccess, g: Value) -> R<()> {
        if !self.access_tracked(m) {
            return Ok(());
        }
        let (am, aa) = self.adj_access(i, m)?;
        let own = match aa.owned {
            None => None,
            Some(None) => Some(self.b().bconst(true)),
            Some(Some(c)) => Some(self.rv(i, c)?),
        };
        let add = |s: &mut Self| {
            let old = s.b().load(am.clone());
            let new = s.add_any(old, g);
            s.b().store(am.clone(), new);
            Ok(Vec::new())
        };
        let atomic = |s: &mut Self| {
            s.b().atomic(AtomicOp::Add, am.clone(), g);
            Ok(Vec::new())
        };
        self.emit_if(
            aa.present,
            &[],
            &[],
            &mut |s| match own {
                Some(o) => s.emit_if(o, &[], &[], &mut |s| add(s), &mut |s| atomic(s)),
                None => atomic(s),
            },
            &mut |_| Ok(Vec::new()),
        )?;
        Ok(())
    }

    /// `y[i] = v`: `adj_v += y.grad[i]`, then `y.grad[i] = 0` unless the
    /// array retains its gradient.
    fn reverse_store(&mut self, i: Inst, m: &MemAccess, v: Value) -> R<()> {
        if !self.access_tracked(m) {
            return Ok(());
        }
        let (am, aa) = self.adj_access(i, m)?;
        let ty = self.sty(v);
        let tracked = self.tracked(v);
        let got = self.emit_if(
            aa.present,
            if tracked {
                std::slice::from_ref(&ty)
            } else {
                &[]
            },
            &[],
            &mut |s| {
                let g = s.b().load(am.clone());
                let keep = aa.retain;
                s.emit_if(keep, &[], &[], &mut |_| Ok(Vec::new()), &mut |s| {
                    let z = s.zero(ty);
                    s.b().store(am.clone(), z);
                    Ok(Vec::new())
                })?;
                Ok(if tracked { vec![g] } else { Vec::new() })
            },
            &mut |s| {
                Ok(if tracked {
                    vec![s.zero(ty)]
                } else {
                    Vec::new()
                })
            },
        )?;
        if let Some(&g) = got.first() {
            self.accum(v, g);
        }
        Ok(())
    }

    /// `atomic_add/sub(a, i, v)`: `adj_v ±= a.grad[i]` (not cleared);
    /// `atomic_min/max`: `adj_v += a.grad[i]` where `v` equals `a[i]` now.
    fn reverse_atomic(&mut self, i: Inst, op: AtomicOp, m: &MemAccess, v: Value) -> R<()> {
        if !self.access_tracked(m) || !self.tracked(v) {
            return Ok(());
        }
        let (am, aa) = self.adj_access(i, m)?;
        let ty = self.sty(v);
        let pvv = self.pv(i, v)?;
        let mut pm = m.clone();
        pm.array = self.pv(i, m.array)?;
        pm.indices = am.indices.clone();
        let got = self.emit_if(
            aa.present,
            std::slice::from_ref(&ty),
            &[],
            &mut |s| {
                let g = s.b().load(am.clone());
                let c = match op {
                    AtomicOp::Add => g,
                    AtomicOp::Sub => s.neg_any(g),
                    AtomicOp::Min | AtomicOp::Max => {
                        let now = s.b().load(pm.clone());
                        s.where_equal(now, pvv, g)
                    }
                    _ => s.zero(ty),
                };
                Ok(vec![c])
            },
            &mut |s| Ok(vec![s.zero(ty)]),
        )?;
        self.accum(v, got[0]);
        Ok(())
    }

    /// `-a` for a scalar or, component by component, an aggregate.
    fn neg_any(&mut self, a: Value) -> Value {
        let ty = self.dst.value_type(a);
        match ty {
            Type::Scalar(s) if s.is_float() => self.b().unary(UnaryOp::Neg, a),
            Type::Scalar(_) => a,
            _ => {
                let parts: Vec<Value> = (0..ty.arity(self.structs()))
                    .map(|k| {
                        let x = self.b().extract(a, vec![k]);
                        self.neg_any(x)
                    })
                    .collect();
                self.b().make(ty, parts)
            }
        }
    }

    /// Component by component: `g` where `x == y` (or both are NaN), else 0.
    fn where_equal(&mut self, x: Value, y: Value, g: Value) -> Value {
        let ty = self.dst.value_type(g);
        match ty {
            Type::Scalar(s) if s.is_float() => {
                let eq = self.b().binary(BinaryOp::Eq, x, y);
                let xn = self.b().unary(UnaryOp::IsNan, x);
                let yn = self.b().unary(UnaryOp::IsNan, y);
                let nn = self.b().binary(BinaryOp::And, xn, yn);
                let take = self.b().binary(BinaryOp::Or, eq, nn);
                let z = self.fconst(s, 0.0);
                self.b().select(take, g, z)
            }
            Type::Scalar(_) => g,
            _ => {
                let parts: Vec<Value> = (0..ty.arity(self.structs()))
                    .map(|k| {
                        let (a, b, c) = (
                            self.b().extract(x, vec![k]),
                            self.b().extract(y, vec![k]),
                            self.b().extract(g, vec![k]),
                        );
                        self.where_equal(a, b, c)
                    })
                    .collect();
                self.b().make(ty, parts)
            }
        }
    }

    /// The adjoint of a call: the callee's adjoint (custom or generated)
    /// with the primal arguments, the adjoint arrays of the array
    /// arguments and the results' adjoints; its results are added to the
    /// arguments' adjoints.
    pub(super) fn reverse_call(&mut self, i: Inst, f: FuncId, args: &[Value]) -> R<()> {
        let callee = &self.ctx.src.funcs[f];
        // `wp.grad(g)(..)` is a constant to the backward sweep (Warp's rule).
        if callee.grad_of.is_some() {
            return Ok(());
        }
        let results = self.src.results(i).to_vec();
        let adj_rets: Vec<Option<Value>> = results.iter().map(|&r| self.adj.get(r)).collect();
        let arrays: Vec<usize> = (0..callee.params.len())
            .filter(|&k| callee.params[k].ty.is_array())
            .collect();
        if arrays.is_empty() && adj_rets.iter().all(Option::is_none) {
            return Ok(());
        }
        let target = self.adjoint_of(i, f)?;
        let mut cargs = Vec::new();
        for &a in args {
            cargs.push(self.pv(i, a)?);
        }
        let mut flags = Vec::new();
        for &k in &arrays {
            let Some(&aa) = self.arrays.get(&args[k]) else {
                return Err(self.unsupported(i, "an array argument that is not a parameter"));
            };
            cargs.push(aa.grad);
            flags.push(aa.retain_flag);
        }
        cargs.extend(flags);
        for (k, g) in adj_rets.into_iter().enumerate() {
            let v = match g {
                Some(g) => g,
                None => {
                    let ty = self.sty(results[k]);
                    self.zero(ty)
                }
            };
            cargs.push(v);
        }
        let rtys: Vec<Type> = callee
            .params
            .iter()
            .filter(|p| !p.ty.is_array())
            .map(|p| p.ty)
            .collect();
        let ci = self.b().call(target, cargs, &rtys);
        let outs = self.dst.results(ci).to_vec();
        let by_value = (0..callee.params.len()).filter(|&k| !callee.params[k].ty.is_array());
        for (k, out) in by_value.zip(outs) {
            self.accum(args[k], out);
        }
        Ok(())
    }
}
