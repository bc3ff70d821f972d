//! Expressions: literals, names and constants, attributes, subscripts,
//! operators, comparisons, short-circuit `and`/`or`, conditional expressions.

use super::*;

fn unsupported_expr(e: &Expr) -> Option<(&'static str, &'static str)> {
    Some(match e {
        Expr::Lambda(_) => (
            "lambda expressions are not supported",
            "define a `@wp.func` instead",
        ),
        Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => (
            "comprehensions are not supported",
            "write a `for` loop, or use a vector type such as `wp.vec3(...)`",
        ),
        Expr::List(_) => (
            "lists are not supported in kernels",
            "use a vector or matrix type (`wp.vec3(...)`), or an array parameter",
        ),
        Expr::Dict(_) | Expr::Set(_) => (
            "dicts and sets are not supported in kernels",
            "use a `@wp.struct` or separate variables",
        ),
        Expr::Await(_) => ("`await` is not supported", "kernels are not async"),
        Expr::Yield(_) | Expr::YieldFrom(_) => (
            "`yield` is not supported in kernels",
            "write results into an array parameter",
        ),
        Expr::Named(_) => (
            "assignment expressions (`:=`) are not supported",
            "assign in a separate statement",
        ),
        Expr::Starred(_) => (
            "starred expressions are only supported as call arguments",
            "unpack into a call, e.g. `wp.vec3(*v)`, or index the elements",
        ),
        Expr::Slice(_) => ("slices are not supported", "index one element at a time"),
        Expr::StringLiteral(_) | Expr::FString(_) | Expr::TString(_) | Expr::BytesLiteral(_) => (
            "strings are only allowed as arguments of `print`/`wp.printf`",
            "remove the string",
        ),
        Expr::NoneLiteral(_) => (
            "`None` is not supported in kernels",
            "use a value of a Warp type",
        ),
        Expr::EllipsisLiteral(_) | Expr::IpyEscapeCommand(_) => {
            ("this expression is not supported", "remove it")
        }
        _ => return None,
    })
}

pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != cb) as usize)
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

impl<'a, 'c> FnLower<'a, 'c> {
    pub(super) fn val(&mut self, b: &mut FuncBuilder, e: &Expr) -> Res<Value> {
        let v = self.expr(b, e, 1)?;
        self.single(v, e.range())
    }

    /// Indices of an array access: integers.
    pub(super) fn array_indices(&mut self, b: &mut FuncBuilder, slice: &Expr) -> Res<Vec<Value>> {
        let idx = self.indices(b, slice)?;
        self.check_int_indices(b, &idx, slice.range())?;
        Ok(idx)
    }

    fn check_int_indices(&self, b: &FuncBuilder, idx: &[Value], span: Span) -> Res<()> {
        for &i in idx {
            if !b.ty(i).as_scalar().is_some_and(Scalar::is_int) {
                return Err(err(
                    span,
                    format!(
                        "array index must be an integer, found {}",
                        self.tyname(b.ty(i))
                    ),
                )
                .with_label("bad index")
                .with_help("convert it with `int(...)`"));
            }
        }
        Ok(())
    }

    pub(super) fn indices(&mut self, b: &mut FuncBuilder, slice: &Expr) -> Res<Vec<Value>> {
        match slice {
            Expr::Tuple(t) => t.elts.iter().map(|x| self.val(b, x)).collect(),
            x => Ok(vec![self.val(b, x)?]),
        }
    }

    /// Lowers an expression; `arity` is the number of assignment targets
    /// (for `wp.tid()`).
    pub(super) fn expr(&mut self, b: &mut FuncBuilder, e: &Expr, arity: usize) -> Res<Ev> {
        grow(|| self.expr_inner(b, e, arity))
    }

    fn expr_inner(&mut self, b: &mut FuncBuilder, e: &Expr, arity: usize) -> Res<Ev> {
        let span = e.range();
        if let Some((msg, help)) = unsupported_expr(e) {
            return Err(err(span, msg)
                .with_label("not supported in kernels")
                .with_help(help));
        }
        match e {
            Expr::NumberLiteral(n) => {
                self.at(b, span);
                match &n.value {
                    Number::Int(i) => match i.as_i64().filter(|&x| x <= i32::MAX as i64) {
                        Some(x) => Ok(Ev::V(b.iconst(Scalar::I32, x))),
                        None => Err(err(span, "integer literal does not fit in int32")
                            .with_label("too large")
                            .with_help(
                                "wrap it in a wider type, e.g. `wp.int64(...)` or `wp.uint64(...)`",
                            )),
                    },
                    Number::Float(f) => {
                        let v = b.fconst(Scalar::F32, *f);
                        self.literals.insert(v, *f);
                        Ok(Ev::V(v))
                    }
                    Number::Complex { .. } => {
                        Err(err(span, "complex numbers are not supported").with_label("here"))
                    }
                }
            }
            Expr::BooleanLiteral(x) => {
                self.at(b, span);
                Ok(Ev::V(b.bconst(x.value)))
            }
            Expr::Name(n) => self.name_ref(b, n),
            Expr::Attribute(a) => self.attribute(b, e, a),
            Expr::Subscript(s) => match self.adjoint_slot(e)? {
                Some(k) => self
                    .env
                    .get(&k)
                    .copied()
                    .map(Ev::V)
                    .ok_or_else(Diagnostic::reported),
                None => self.subscript(b, s),
            },
            Expr::Call(c) => self.call(b, c, arity),
            Expr::Tuple(t) => {
                let mut vs = Vec::new();
                for x in &t.elts {
                    vs.push(self.val(b, x)?);
                }
                Ok(Ev::Tuple(vs))
            }
            Expr::BinOp(x) => {
                let l = self.val(b, &x.left)?;
                let r = self.val(b, &x.right)?;
                self.at(b, span);
                Ok(Ev::V(builtins::binary(b, self, x.op, l, r, span)?))
            }
            // `-2147483648` is an int32 literal although `2147483648` is not.
            Expr::UnaryOp(x)
                if x.op == ast::UnaryOp::USub
                    && matches!(&*x.operand, Expr::NumberLiteral(n) if matches!(&n.value, Number::Int(i) if i.as_i64() == Some(1 << 31))) =>
            {
                self.at(b, span);
                Ok(Ev::V(b.iconst(Scalar::I32, i32::MIN as i64)))
            }
            Expr::UnaryOp(x) => {
                let v = self.val(b, &x.operand)?;
                self.at(b, span);
                if let (ast::UnaryOp::USub | ast::UnaryOp::UAdd, Some(f)) =
                    (x.op, self.literals.get(&v).copied())
                {
                    let r = builtins::unary(b, self, x.op, v, span)?;
                    let f = if x.op == ast::UnaryOp::USub { -f } else { f };
                    self.literals.insert(r, f);
                    return Ok(Ev::V(r));
                }
                if x.op == ast::UnaryOp::Not {
                    let t = self.truthy(b, v, x.operand.range())?;
                    return Ok(Ev::V(builtins::unary(b, self, x.op, t, span)?));
                }
                Ok(Ev::V(builtins::unary(b, self, x.op, v, span)?))
            }
            Expr::Compare(c) => {
                let mut left = self.val(b, &c.left)?;
                let mut acc: Option<Value> = None;
                for (op, rhs) in c.ops.iter().zip(c.comparators.iter()) {
                    let r = self.val(b, rhs)?;
                    self.at(b, span);
                    let v = builtins::compare(b, self, *op, left, r, span)?;
                    acc = Some(match acc {
                        None => v,
                        Some(a) => b.binary(BinaryOp::And, a, v),
                    });
                    left = r;
                }
                acc.map(Ev::V).ok_or_else(|| err(span, "empty comparison"))
            }
            Expr::BoolOp(x) => self.bool_op(b, x.op, &x.values, span).map(Ev::V),
            Expr::If(x) => {
                let c = self.cond(b, &x.test)?;
                let r = self.branches(
                    b,
                    c,
                    span,
                    &mut |l, b| l.val(b, &x.body).map(Some),
                    &mut |l, b| l.val(b, &x.orelse).map(Some),
                )?;
                r.map(Ev::V)
                    .ok_or_else(|| err(span, "conditional expression has no value"))
            }
            _ => Err(err(span, "unsupported expression").with_label("here")),
        }
    }

    fn bool_op(
        &mut self,
        b: &mut FuncBuilder,
        op: ast::BoolOp,
        values: &[Expr],
        span: Span,
    ) -> Res<Value> {
        let Some((first, rest)) = values.split_first() else {
            return Err(err(span, "empty boolean expression"));
        };
        let a = self.cond(b, first)?;
        if rest.is_empty() {
            return Ok(a);
        }
        // `a and rest` = if a { rest } else { false }; `a or rest` = if a { true } else { rest }.
        let is_and = op == ast::BoolOp::And;
        let mut rest_f = |l: &mut Self, b: &mut FuncBuilder| l.bool_op(b, op, rest, span).map(Some);
        let mut konst_f = |l: &mut Self, b: &mut FuncBuilder| {
            l.at(b, span);
            Ok(Some(b.bconst(!is_and)))
        };
        let r = if is_and {
            self.branches(b, a, span, &mut rest_f, &mut konst_f)?
        } else {
            self.branches(b, a, span, &mut konst_f, &mut rest_f)?
        };
        r.ok_or_else(|| err(span, "boolean expression has no value"))
    }

    pub(super) fn unknown_name(&self, span: Span, name: &str) -> Diagnostic {
        if self.poisoned.contains(name) {
            return Diagnostic::reported();
        }
        if let Some(&at) = self.maybe.get(name) {
            return err(
                span,
                format!("variable `{name}` is not defined on all paths"),
            )
            .with_label("may be undefined here")
            .with_secondary(at, "defined only on some paths through this")
            .with_help(format!("assign `{name}` before the branch or loop"));
        }
        if self.m.has_func(name) || self.m.kernel(name).is_some() {
            return err(span, format!("`{name}` is a function, not a value"))
                .with_label("here")
                .with_help(format!("call it: `{name}(...)`"));
        }
        if let Some((at, kind)) = self.m.host.get(name) {
            use crate::module::HostKind;
            let (msg, label, help) = match kind {
                HostKind::Module => (
                    format!("module `{name}` cannot be used in a kernel"),
                    "imported here".to_string(),
                    "kernels may use `warp`, and `numpy`/`math` constants and functions that are Warp builtins".to_string(),
                ),
                HostKind::Imported => (
                    format!("`{name}` is imported from a host module"),
                    "imported here".to_string(),
                    "use `wp.<name>` for Warp's types and builtins".to_string(),
                ),
                HostKind::Value(why) => (
                    format!("`{name}` is not a compile-time constant"),
                    "assigned here".to_string(),
                    format!("kernels can read module-level values that are compile-time constants ({why}); declare it with `wp.constant(...)`"),
                ),
            };
            return err(span, msg)
                .with_label("used in a kernel")
                .with_secondary(*at, label)
                .with_help(help);
        }
        if self.m.structs.contains_key(name) {
            return err(span, format!("`{name}` is a struct type, not a value"))
                .with_label("here")
                .with_help(format!("construct one: `{name}()`"));
        }
        let mut d = err(span, format!("unknown name `{name}`")).with_label("not defined");
        let cands = self.env.keys().chain(self.m.consts.keys());
        if let Some(best) = cands
            .filter(|c| edit_distance(c, name) <= 2.max(name.len() / 3))
            .min_by_key(|c| edit_distance(c, name))
        {
            d = d.with_help(format!("did you mean `{best}`?"));
        } else {
            d = d.with_help("define it before use, or declare a module-level `wp.constant`");
        }
        d
    }

    fn name_ref(&mut self, b: &mut FuncBuilder, n: &ast::ExprName) -> Res<Ev> {
        let name = n.id.as_str();
        if let Some(&v) = self.env.get(name) {
            return Ok(Ev::V(v));
        }
        if let Some((arr, idx)) = self.views.get(name) {
            return Ok(Ev::View(*arr, idx.clone()));
        }
        if let Some(&k) = self.tuples.get(name) {
            let vs: Option<Vec<Value>> = (0..k)
                .map(|i| self.env.get(&format!("{name}.{i}")).copied())
                .collect();
            if let Some(vs) = vs {
                return Ok(Ev::Tuple(vs));
            }
            if let Some(&at) = (0..k).find_map(|i| self.maybe.get(&format!("{name}.{i}"))) {
                self.maybe.insert(name.to_string(), at);
            }
        }
        if let Some(c) = self.m.consts.get(name) {
            self.at(b, n.range);
            return Ok(Ev::V(self.materialize(b, c)));
        }
        Err(self.unknown_name(n.range, name))
    }

    fn attribute(&mut self, b: &mut FuncBuilder, e: &Expr, a: &ast::ExprAttribute) -> Res<Ev> {
        let span = a.range();
        let attr = a.attr.id.as_str();
        if let Some((m, _)) = dotted(e) {
            if !self.env.contains_key(m) {
                let imp = &self.m.imports;
                if imp.is_wp(m) || imp.is_np(m) || imp.is_math(m) {
                    let ev = ConstEval {
                        imports: imp,
                        consts: &self.m.consts,
                    };
                    return match ev.eval(e) {
                        Ok(c) => {
                            self.at(b, span);
                            Ok(Ev::V(self.materialize(b, &c)))
                        }
                        Err(_) => Err(err(span, format!("`{m}.{attr}` is not a value"))
                            .with_label("unknown attribute")
                            .with_help(if imp.is_wp(m) {
                                "call builtins as `wp.name(...)`; see Warp's list of builtins"
                            } else {
                                "only constants such as `np.pi` may be used from numpy/math"
                            })),
                    };
                }
            }
        }
        let base = self.expr(b, &a.value, 1)?;
        let v = match base {
            Ev::V(v) => v,
            other => {
                return Err(err(span, format!("no attribute `{attr}` here")).with_label(
                    match other {
                        Ev::Tuple(_) => "on a tuple",
                        _ => "on an array",
                    },
                ))
            }
        };
        let ty = b.ty(v);
        self.at(b, span);
        match ty {
            Type::Array(_) if attr == "shape" => Ok(Ev::Shape(v)),
            Type::Array(_) => Err(err(
                a.attr.range(),
                format!("arrays have no attribute `{attr}`"),
            )
            .with_label("unknown attribute")
            .with_help("arrays have `.shape`")),
            Type::Struct(id) => {
                let Some(i) = self.structs.get(id).and_then(|d| d.field_index(attr)) else {
                    return Err(self.no_field(a.attr.range(), ty, attr));
                };
                Ok(Ev::V(b.extract(v, vec![i])))
            }
            _ => Ok(Ev::V(builtins::get_attr(b, v, attr, span)?)),
        }
    }

    fn subscript(&mut self, b: &mut FuncBuilder, s: &ast::ExprSubscript) -> Res<Ev> {
        let span = s.range();
        let base = self.expr(b, &s.value, 1)?;
        let idx = self.indices(b, &s.slice)?;
        self.at(b, span);
        match base {
            Ev::V(v) if b.ty(v).is_array() => self.index_array(b, v, Vec::new(), idx, span),
            Ev::View(arr, prev) => self.index_array(b, arr, prev, idx, span),
            Ev::V(v) => Ok(Ev::V(builtins::get_index(b, v, &idx, span)?)),
            Ev::Shape(_) | Ev::Tuple(_) if idx.len() != 1 => {
                Err(err(span, "expected one index").with_label("here"))
            }
            Ev::Shape(arr) => {
                let Type::Array(at) = b.ty(arr) else {
                    return Err(err(span, "not an array"));
                };
                match is_const(b, idx[0]).map(|c| c.as_i128()) {
                    Some(k) if (0..at.ndim as i128).contains(&k) => {
                        Ok(Ev::V(b.array_shape(arr, k as u8)))
                    }
                    Some(k) => Err(err(
                        s.slice.range(),
                        format!(
                            "shape index {k} out of range for an array of {} dimensions",
                            at.ndim
                        ),
                    )
                    .with_label("out of range")),
                    None => Err(
                        err(s.slice.range(), "`shape` must be indexed with a constant")
                            .with_label("not a constant"),
                    ),
                }
            }
            Ev::Tuple(vs) => match is_const(b, idx[0]).map(|c| c.as_i128()) {
                Some(k) if (0..vs.len() as i128).contains(&k) => Ok(Ev::V(vs[k as usize])),
                _ => Err(err(
                    s.slice.range(),
                    "tuples must be indexed with an in-range constant",
                )
                .with_label("here")),
            },
        }
    }

    fn index_array(
        &mut self,
        b: &mut FuncBuilder,
        arr: Value,
        mut prev: Vec<Value>,
        idx: Vec<Value>,
        span: Span,
    ) -> Res<Ev> {
        let Type::Array(at) = b.ty(arr) else {
            return Err(err(span, "not an array"));
        };
        prev.extend(idx);
        self.check_int_indices(b, &prev, span)?;
        let nd = at.ndim as usize;
        if prev.len() < nd {
            return Ok(Ev::View(arr, prev));
        }
        if prev.len() > nd {
            return Err(self.bad_index_count(span, at.ndim, prev.len()));
        }
        let m = self.mem_access(b, arr, &prev);
        Ok(Ev::V(b.load(m)))
    }
}
