//! Control flow: `if`/`elif`/`else` (environment merge into `if` results),
//! `for ... in range(...)` (unrolled when constant and short) and `while`
//! loops (loop-carried variables), `break`/`continue`/`return`.

use super::*;

/// A lowered branch: its region, final environment, whether it diverged,
/// and its expression value (ternaries).
type BranchOut = (Region, BTreeMap<String, Value>, bool, Option<Value>);

/// Maximum trip count of a loop that is unrolled (Warp's `max_unroll`).
const MAX_UNROLL: i128 = 16;

/// Names (re)bound anywhere in `body` (not inside nested defs), including
/// the roots of component assignments (`v[0] = x` rebinds `v`) and RNG
/// states passed to random draws (`wp.randf(state)` advances `state`).
pub(super) fn assigned_names(body: &[Stmt], out: &mut BTreeSet<String>) {
    use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
    fn target(e: &Expr, out: &mut BTreeSet<String>) {
        if let Some(x) = super::adjoint::adjoint_target(e) {
            out.insert(super::adjoint::slot_key(x));
            return;
        }
        match e {
            Expr::Name(n) => {
                out.insert(n.id.to_string());
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|x| target(x, out)),
            Expr::List(t) => t.elts.iter().for_each(|x| target(x, out)),
            Expr::Attribute(a) => target(&a.value, out),
            Expr::Subscript(s) => target(&s.value, out),
            _ => {}
        }
    }
    struct Finder<'o>(&'o mut BTreeSet<String>);
    impl<'a> Visitor<'a> for Finder<'_> {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            grow(|| self.visit_stmt_inner(s))
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            grow(|| self.visit_expr_inner(e))
        }
    }
    impl<'a> Finder<'_> {
        fn visit_stmt_inner(&mut self, s: &'a Stmt) {
            match s {
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => return,
                Stmt::Assign(a) => a.targets.iter().for_each(|t| target(t, self.0)),
                Stmt::AugAssign(a) => target(&a.target, self.0),
                Stmt::AnnAssign(a) => target(&a.target, self.0),
                Stmt::For(f) => target(&f.target, self.0),
                _ => {}
            }
            walk_stmt(self, s);
        }
        fn visit_expr_inner(&mut self, e: &'a Expr) {
            if let Expr::Call(c) = e {
                let callee = match &*c.func {
                    Expr::Attribute(a) => Some(a.attr.id.as_str()),
                    Expr::Name(n) => Some(n.id.as_str()),
                    _ => None,
                };
                if callee
                    .is_some_and(|n| builtins::advances_rng_state(n) || builtins::sets_first_arg(n))
                {
                    if let Some(first) = c.arguments.args.first() {
                        target(first, self.0);
                    }
                }
            }
            walk_expr(self, e);
        }
    }
    let mut f = Finder(out);
    for s in body {
        f.visit_stmt(s);
    }
}

/// Whether `body` has a `break`/`continue` for this loop level.
fn has_break_continue(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Break(_) | Stmt::Continue(_) => true,
        Stmt::If(i) => {
            has_break_continue(&i.body)
                || i.elif_else_clauses
                    .iter()
                    .any(|c| has_break_continue(&c.body))
        }
        _ => false,
    })
}

impl<'a, 'c> FnLower<'a, 'c> {
    pub(super) fn cond(&mut self, b: &mut FuncBuilder, e: &Expr) -> Res<Value> {
        let v = self.val(b, e)?;
        self.truthy(b, v, e.range())
    }

    pub(super) fn truthy(&mut self, b: &mut FuncBuilder, v: Value, span: Span) -> Res<Value> {
        match b.ty(v) {
            Type::BOOL => Ok(v),
            Type::Scalar(s) => {
                self.at(b, span);
                let z = b.konst(Const::from_i128(s, 0));
                Ok(b.binary(BinaryOp::Ne, v, z))
            }
            Type::Array(_) => {
                self.at(b, span);
                Ok(builtins::array_nonnull(b, v))
            }
            t => Err(err(
                span,
                format!(
                    "a condition must be a bool or a number, found {}",
                    self.tyname(t)
                ),
            )
            .with_label("not a bool")),
        }
    }

    /// Lowers the two branches of an `if` and merges the environments.
    pub(super) fn branches(
        &mut self,
        b: &mut FuncBuilder,
        cond: Value,
        span: Span,
        then_f: &mut dyn FnMut(&mut Self, &mut FuncBuilder) -> Res<Option<Value>>,
        else_f: &mut dyn FnMut(&mut Self, &mut FuncBuilder) -> Res<Option<Value>>,
    ) -> Res<Option<Value>> {
        let outer = b.region();
        let env0 = self.env.clone();
        let maybe0 = self.maybe.clone();
        let dead0 = self.dead;
        let tr = b.func.new_region();
        let er = b.func.new_region();
        let mut outs: Vec<BranchOut> = Vec::new();
        let mut branch_maybe: HashMap<String, Span> = HashMap::new();
        for r in [tr, er] {
            b.switch_to(r);
            self.env = env0.clone();
            self.dead = false;
            self.nesting += 1;
            let res = if r == tr {
                then_f(self, b)
            } else {
                else_f(self, b)
            };
            self.nesting -= 1;
            let res = res?;
            let dead = self.dead || b.is_terminated();
            outs.push((r, std::mem::take(&mut self.env), dead, res));
            branch_maybe.extend(self.maybe.drain());
        }
        b.switch_to(outer);
        self.dead = dead0;
        self.maybe = maybe0;
        self.maybe.extend(branch_maybe);
        let live: Vec<usize> = (0..2).filter(|&i| !outs[i].2).collect();
        // The merged variables: defined on every live branch.
        let mut names: Vec<String> = Vec::new();
        let mut merged = BTreeMap::new();
        if let Some(&first) = live.first() {
            for (n, &v) in &outs[first].1 {
                let everywhere = live.iter().all(|&i| outs[i].1.contains_key(n));
                if !everywhere {
                    self.maybe.insert(n.clone(), span);
                    continue;
                }
                let same = env0.get(n) == Some(&v) && live.iter().all(|&i| outs[i].1[n] == v);
                if same {
                    merged.insert(n.clone(), v);
                } else {
                    let ts: Vec<Type> = live.iter().map(|&i| b.ty(outs[i].1[n])).collect();
                    if ts.iter().any(|&t| t != ts[0]) {
                        return Err(err(
                            span,
                            format!(
                                "variable `{n}` has type {} on one branch and {} on another",
                                self.tyname(ts[0]),
                                self.tyname(ts[ts.len() - 1])
                            ),
                        )
                        .with_label("branches disagree")
                        .with_help("give the variable the same type on every path"));
                    }
                    names.push(n.clone());
                }
            }
            for &i in &live {
                for n in outs[i].1.keys() {
                    if !outs[first].1.contains_key(n) {
                        self.maybe.insert(n.clone(), span);
                    }
                }
            }
        }
        // An expression result (ternary / bool op).
        let has_result = live.iter().any(|&i| outs[i].3.is_some());
        let mut types: Vec<Type> = Vec::new();
        if has_result {
            let ts: Vec<Type> = live
                .iter()
                .filter_map(|&i| outs[i].3)
                .map(|v| b.ty(v))
                .collect();
            if let [a, c] = ts.as_slice() {
                if a != c {
                    return Err(err(span, format!(
                        "the two values of this conditional expression have different types: {} and {}",
                        self.tyname(*a),
                        self.tyname(*c)
                    ))
                    .with_label("types differ")
                    .with_help("convert one of them so both have the same type"));
                }
            }
            let t = live
                .iter()
                .find_map(|&i| outs[i].3)
                .map(|v| b.ty(v))
                .unwrap_or(Type::BOOL);
            types.push(t);
        }
        for n in &names {
            let i = live[0];
            types.push(b.ty(outs[i].1[n]));
        }
        for (r, env, dead, res) in &outs {
            b.switch_to(*r);
            // The branch's `yield` sits on its last line (the `if`'s in an
            // empty branch), so that a debugger does not stop on a line
            // the branch did not run.
            match b.func.regions[*r]
                .insts
                .last()
                .map(|&i| b.func.insts[i].loc)
            {
                Some(loc) => b.set_loc(loc),
                None => self.at(b, span),
            }
            if *dead {
                if !b.is_terminated() {
                    let mut vs = Vec::new();
                    for &t in &types {
                        vs.push(zero(b, t, span)?);
                    }
                    b.yield_(vs);
                }
                continue;
            }
            let mut vs = Vec::new();
            if has_result {
                vs.push(res.ok_or_else(|| err(span, "internal error: a branch has no value"))?);
            }
            for n in &names {
                vs.push(env[n]);
            }
            b.yield_(vs);
        }
        b.switch_to(outer);
        self.at(b, span);
        let inst = b.ins(
            InstKind::If {
                cond,
                then_region: tr,
                else_region: er,
            },
            &types,
        );
        let results = b.func.results(inst).to_vec();
        self.env = merged;
        let mut k = 0;
        let mut out = None;
        if has_result {
            out = Some(results[0]);
            k = 1;
        }
        for (n, &v) in names.iter().zip(&results[k..]) {
            b.name_value(v, n);
            self.env.insert(n.clone(), v);
        }
        let env = &self.env;
        self.maybe.retain(|n, _| !env.contains_key(n));
        if live.is_empty() {
            self.dead = true;
        }
        Ok(out)
    }

    pub(super) fn if_stmt(
        &mut self,
        b: &mut FuncBuilder,
        test: &Expr,
        body: &[Stmt],
        rest: &[ast::ElifElseClause],
    ) -> Res<()> {
        let c = self.cond(b, test)?;
        let span = test.range();
        self.branches(
            b,
            c,
            span,
            &mut |l, b| l.stmts(b, body).map(|_| None),
            &mut |l, b| {
                match rest.split_first() {
                    None => {}
                    Some((clause, more)) => match &clause.test {
                        Some(t) => {
                            l.at(b, clause.range());
                            l.if_stmt(b, t, &clause.body, more)?
                        }
                        None => l.stmts(b, &clause.body)?,
                    },
                }
                Ok(None)
            },
        )?;
        Ok(())
    }

    pub(super) fn for_stmt(&mut self, b: &mut FuncBuilder, f: &ast::StmtFor) -> Res<()> {
        if f.is_async {
            return Err(err(f.range(), "`async for` is not supported").with_label("here"));
        }
        if !f.orelse.is_empty() {
            return Err(
                err(f.orelse[0].range(), "`for ... else` is not supported").with_label("here")
            );
        }
        let Expr::Name(var) = &*f.target else {
            return Err(
                err(f.target.range(), "the loop variable must be a single name").with_label("here"),
            );
        };
        fn is_call<'e>(e: &'e Expr, name: &str) -> Option<&'e ast::ExprCall> {
            match e {
                Expr::Call(c) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == name) => {
                    Some(c)
                }
                _ => None,
            }
        }
        // `reversed(range(...))`: Warp's `iter_reverse`, always a dynamic
        // loop (Warp unrolls only plain `range`).
        let reversed = is_call(&f.iter, "reversed").and_then(|c| match c.arguments.args.as_ref() {
            [r] if c.arguments.keywords.is_empty() => is_call(r, "range"),
            _ => None,
        });
        let call = match (reversed, &*f.iter) {
            (Some(c), _) => c,
            (None, Expr::Call(c)) if matches!(&*c.func, Expr::Name(n) if n.id.as_str() == "range") => {
                c
            }
            (None, other) => {
                return Err(err(
                    other.range(),
                    "only `for ... in range(...)` loops are supported",
                )
                .with_label("not a range")
                .with_help("iterate over indices: `for i in range(n)` or `reversed(range(n))`"))
            }
        };
        let args = &call.arguments.args;
        if args.is_empty() || args.len() > 3 || !call.arguments.keywords.is_empty() {
            return Err(err(
                call.range(),
                format!("range() takes 1 to 3 arguments, {} given", args.len()),
            )
            .with_label("here"));
        }
        if self.array_params.contains(var.id.as_str())
            || (!self.env.contains_key(var.id.as_str())
                && self.m.consts.contains_key(var.id.as_str()))
        {
            self.check_target(&f.target)?;
        }
        // Constant bounds → maybe unroll.
        let consts: Option<Vec<i128>> = args
            .iter()
            .map(|a| {
                if self.refs_local(a) {
                    return None;
                }
                let ev = ConstEval {
                    imports: &self.m.imports,
                    consts: &self.m.consts,
                };
                ev.eval(a).ok().and_then(|v| v.as_int())
            })
            .collect();
        if let Some(cs) = consts.filter(|_| reversed.is_none()) {
            let (start, stop, step) = match cs.as_slice() {
                [n] => (0, *n, 1),
                [a, n] => (*a, *n, 1),
                [a, n, s] => (*a, *n, *s),
                _ => (0, 0, 1),
            };
            if step == 0 {
                return Err(
                    err(args[2].range(), "range() step must not be zero").with_label("zero")
                );
            }
            let count = if step > 0 {
                ((stop - start).max(0) + step - 1) / step
            } else {
                ((start - stop).max(0) + (-step) - 1) / (-step)
            };
            if count <= MAX_UNROLL && !has_break_continue(&f.body) {
                for k in 0..count {
                    let i = start + k * step;
                    self.at(b, f.target.range());
                    let v = b.iconst(Scalar::I32, i as i64);
                    b.name_value(v, var.id.as_str());
                    self.env.insert(var.id.to_string(), v);
                    self.stmts(b, &f.body)?;
                    if self.dead {
                        break;
                    }
                }
                return Ok(());
            }
        }
        let mut vs = Vec::new();
        for a in args.iter() {
            let v = self.val(b, a)?;
            if !b.ty(v).as_scalar().is_some_and(Scalar::is_int) {
                return Err(err(
                    a.range(),
                    format!("range() needs integers, found {}", self.tyname(b.ty(v))),
                )
                .with_label("not an integer")
                .with_help("convert with `int(...)`"));
            }
            vs.push((v, a.range()));
        }
        let ty = b.ty(vs[0].0);
        if let Some((v, s)) = vs.iter().find(|(v, _)| b.ty(*v) != ty) {
            return Err(err(
                *s,
                format!(
                    "range() arguments have different types ({} and {})",
                    self.tyname(ty),
                    self.tyname(b.ty(*v))
                ),
            )
            .with_label("here"));
        }
        let Type::Scalar(st) = ty else {
            return Err(err(call.range(), "bad range"));
        };
        self.at(b, call.range());
        let (start, stop, step) = match vs.as_slice() {
            [n] => (
                b.konst(Const::from_i128(st, 0)),
                n.0,
                b.konst(Const::from_i128(st, 1)),
            ),
            [a, n] => (a.0, n.0, b.konst(Const::from_i128(st, 1))),
            [a, n, s] => (a.0, n.0, s.0),
            _ => return Err(err(call.range(), "bad range")),
        };
        let (start, stop, step) = if reversed.is_some() {
            reverse_range(b, st, start, stop, step)
        } else {
            (start, stop, step)
        };
        self.loop_(
            b,
            Some((var.id.as_str(), start, stop, step, call.range())),
            &f.body,
            None,
        )
    }

    pub(super) fn refs_local(&self, e: &Expr) -> bool {
        grow(|| self.refs_local_inner(e))
    }

    fn refs_local_inner(&self, e: &Expr) -> bool {
        match e {
            Expr::Name(n) => self.env.contains_key(n.id.as_str()),
            Expr::BinOp(x) => self.refs_local(&x.left) || self.refs_local(&x.right),
            Expr::UnaryOp(x) => self.refs_local(&x.operand),
            Expr::Call(c) => c.arguments.args.iter().any(|a| self.refs_local(a)),
            Expr::Attribute(a) => self.refs_local(&a.value),
            _ => false,
        }
    }

    /// A `Loop` region: a range loop (`counter` = (var, start, stop, step))
    /// or a while loop (`test`).
    pub(super) fn loop_(
        &mut self,
        b: &mut FuncBuilder,
        counter: Option<(&str, Value, Value, Value, Span)>,
        body: &[Stmt],
        test: Option<&Expr>,
    ) -> Res<()> {
        let mut assigned = BTreeSet::new();
        assigned_names(body, &mut assigned);
        // A tuple variable is carried element by element.
        for (t, &k) in &self.tuples {
            if assigned.contains(t) {
                assigned.extend((0..k).map(|i| format!("{t}.{i}")));
            }
        }
        if let Some((var, ..)) = counter {
            assigned.remove(var);
        }
        // Arrays are never rebound (a store into one is not a new value):
        // not carried, so that the loop sees the parameter itself (the
        // `soa` pass rewrites only direct uses of an SoA array).
        let mut carried: Vec<String> = assigned
            .into_iter()
            .filter(|n| self.env.get(n).is_some_and(|&v| !b.ty(v).is_array()))
            .collect();
        // The loop variable keeps its last value after the loop, as in
        // Python and Warp (`for j in range(n): if ...: break` then use `j`):
        // it is carried too, starting at `start` when it did not exist.
        if let Some((var, start, ..)) = counter {
            let fits = self.env.get(var).is_none_or(|&v| b.ty(v) == b.ty(start));
            if fits {
                if !self.env.contains_key(var) {
                    self.env.insert(var.to_string(), start);
                }
                carried.push(var.to_string());
            }
        }
        let env0 = self.env.clone();
        let mut init: Vec<Value> = Vec::new();
        if let Some((_, start, ..)) = counter {
            init.push(start);
        }
        for n in &carried {
            init.push(self.env[n]);
        }
        let types: Vec<Type> = carried.iter().map(|n| b.ty(self.env[n])).collect();
        let outer = b.region();
        let (inst, body_r, params) = b.loop_(init, &types);
        b.switch_to(body_r);
        let k0 = counter.is_some() as usize;
        for (n, &p) in carried.iter().zip(&params[k0..]) {
            b.name_value(p, n);
            self.env.insert(n.clone(), p);
        }
        // Header: leave when the condition fails.
        let (cond, next, cspan) = match (counter, test) {
            (Some((var, start, stop, step, span)), _) => {
                let c = params[0];
                b.name_value(c, var);
                let st = b.ty(c).as_scalar().unwrap_or(Scalar::I32);
                let sign = is_const(b, step).map(|k| k.as_i128().signum());
                let cond = match sign {
                    Some(1) => b.binary(BinaryOp::Lt, c, stop),
                    Some(-1) => b.binary(BinaryOp::Gt, c, stop),
                    Some(_) => {
                        return Err(err(span, "range() step must not be zero").with_label("zero"))
                    }
                    None => {
                        let z = b.konst(Const::from_i128(st, 0));
                        let pos = b.binary(BinaryOp::Gt, step, z);
                        let lt = b.binary(BinaryOp::Lt, c, stop);
                        let gt = b.binary(BinaryOp::Gt, c, stop);
                        b.select(pos, lt, gt)
                    }
                };
                let next = b.binary(BinaryOp::Add, c, step);
                // Inside the body the counter lies between the start and the
                // stop: non-negative when counting up from a non-negative
                // start, or down to a stop of at least -1.
                let nonneg = &self.nonneg;
                let known = |v: Value| builtins::known_nonneg(b, v, &|x| nonneg.contains(&x));
                let up = sign == Some(1) && known(start);
                let down = sign == Some(-1) && is_const(b, stop).is_some_and(|k| k.as_i128() >= -1);
                if up || down {
                    self.nonneg.insert(c);
                }
                self.env.insert(var.to_string(), c);
                (cond, Some(next), span)
            }
            (None, Some(t)) => (self.cond(b, t)?, None, t.range()),
            (None, None) => return Err(err(Span::default(), "loop without condition")),
        };
        self.at(b, cspan);
        let (_, tr, er) = b.if_(cond, &[]);
        b.switch_to(tr);
        b.yield_(Vec::new());
        b.switch_to(er);
        let exit_vals: Vec<Value> = params[k0..].to_vec();
        b.break_(exit_vals);
        b.switch_to(body_r);
        self.loops.push(LoopFrame {
            carried: carried.clone(),
            next,
        });
        let dead0 = self.dead;
        self.dead = false;
        self.nesting += 1;
        let res = self.stmts(b, body);
        self.nesting -= 1;
        self.loops.pop();
        res?;
        if !self.dead && !b.is_terminated() {
            let mut vs: Vec<Value> = Vec::new();
            vs.extend(next);
            for (n, &t) in carried.iter().zip(&types) {
                // Missing only after an error poisoned it.
                let v = self.env.get(n).copied().ok_or_else(Diagnostic::reported)?;
                if b.ty(v) != t {
                    return Err(err(
                        cspan,
                        format!(
                            "variable `{n}` changes type from {} to {} inside the loop",
                            self.tyname(t),
                            self.tyname(b.ty(v))
                        ),
                    )
                    .with_label("in this loop")
                    .with_help("a variable keeps one type; convert explicitly"));
                }
                vs.push(v);
            }
            b.continue_(vs);
        } else if !b.is_terminated() {
            b.continue_(params.clone());
        }
        self.dead = dead0;
        b.switch_to(outer);
        // After the loop: names defined inside are gone; carried take results.
        let defined_inside: Vec<String> = self
            .env
            .keys()
            .filter(|k| !env0.contains_key(*k))
            .cloned()
            .collect();
        self.env = env0;
        for n in defined_inside {
            self.maybe.insert(n, cspan);
        }
        let results = b.func.results(inst).to_vec();
        for (n, v) in carried.iter().zip(results) {
            b.name_value(v, n);
            self.env.insert(n.clone(), v);
        }
        Ok(())
    }

    pub(super) fn return_(&mut self, b: &mut FuncBuilder, r: &ast::StmtReturn) -> Res<()> {
        let span = r.range();
        let vals = match &r.value {
            None if !self.adjoints.is_empty() => self.adjoint_results().unwrap_or_default(),
            Some(e) if !self.adjoints.is_empty() => {
                return Err(err(e.range(), "a custom gradient returns no value")
                    .with_label("returned here")
                    .with_help("accumulate into `wp.adjoint[x]` instead"));
            }
            None => Vec::new(),
            Some(e) => {
                if self.kind == FuncKind::Kernel {
                    return Err(err(e.range(), "kernels cannot return values")
                        .with_label("returned here")
                        .with_help(
                            "write the result into an array parameter; a bare `return` is allowed",
                        ));
                }
                match self.expr(b, e, 1)? {
                    Ev::V(v) => vec![v],
                    Ev::Tuple(vs) => vs,
                    other => vec![self.single(other, e.range())?],
                }
            }
        };
        let types: Vec<Type> = vals.iter().map(|&v| b.ty(v)).collect();
        match &self.ret {
            Some((expected, at, declared)) => {
                if *expected != types {
                    let show = |ts: &[Type]| -> String {
                        if ts.is_empty() {
                            "nothing".to_string()
                        } else {
                            ts.iter()
                                .map(|&t| self.tyname(t))
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    };
                    let d = if *declared {
                        err(
                            span,
                            format!(
                                "return type mismatch: expected {}, found {}",
                                show(expected),
                                show(&types)
                            ),
                        )
                        .with_label(format!("returns {}", show(&types)))
                        .with_secondary(*at, "declared here")
                    } else {
                        err(
                            span,
                            format!(
                                "inconsistent return types: {} here, {} before",
                                show(&types),
                                show(expected)
                            ),
                        )
                        .with_label(format!("returns {}", show(&types)))
                        .with_secondary(*at, format!("returns {}", show(expected)))
                        .with_help("every `return` of a func must return the same types")
                    };
                    return Err(d);
                }
            }
            None => self.ret = Some((types, span, false)),
        }
        self.at(b, span);
        b.return_(vals);
        self.dead = true;
        Ok(())
    }
}

/// `reversed(range(start, stop, step))` as a range: Warp's `iter_reverse`
/// (`native/range.h`). An empty range (or step 0) stays empty; otherwise it
/// starts at the last element, `start + trunc((stop - start ∓ 1) / step) *
/// step`, and stops at `start - step`, stepping by `-step`.
fn reverse_range(
    b: &mut FuncBuilder,
    st: Scalar,
    start: Value,
    stop: Value,
    step: Value,
) -> (Value, Value, Value) {
    use weft_ir::BinaryOp::*;
    let zero = b.konst(Const::from_i128(st, 0));
    let one = b.konst(Const::from_i128(st, 1));
    let pos = b.binary(Gt, step, zero);
    let neg = b.binary(Lt, step, zero);
    let up_empty = b.binary(Ge, start, stop);
    let up_empty = b.binary(And, pos, up_empty);
    let down_empty = b.binary(Le, start, stop);
    let down_empty = b.binary(And, neg, down_empty);
    let zero_step = b.binary(Eq, step, zero);
    let empty = b.binary(Or, up_empty, down_empty);
    let empty = b.binary(Or, empty, zero_step);
    let d = b.binary(Sub, stop, start);
    let d_up = b.binary(Sub, d, one);
    let d_down = b.binary(Add, d, one);
    let d = b.select(pos, d_up, d_down);
    let q = b.binary(Div, d, step);
    let q = b.binary(Mul, q, step);
    let last = b.binary(Add, start, q);
    let before = b.binary(Sub, start, step);
    let rstart = b.select(empty, start, last);
    let rstop = b.select(empty, start, before);
    let rstep = b.binary(Sub, zero, step);
    (rstart, rstop, rstep)
}
