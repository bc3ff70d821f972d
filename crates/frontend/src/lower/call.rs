//! Calls: `wp.tid()`, builtins, type and struct constructors, `print`,
//! and `@wp.func` calls with overload resolution, defaults, keywords,
//! generic instantiation and recursion detection.

use super::expr::edit_distance;
use super::*;
use crate::module::ParamTy;

type Kwargs = Vec<(String, Value)>;

fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) => true,
        Expr::UnaryOp(u) => {
            matches!(u.op, ast::UnaryOp::USub | ast::UnaryOp::UAdd) && is_literal(&u.operand)
        }
        _ => false,
    }
}

impl<'a, 'c> FnLower<'a, 'c> {
    pub(super) fn call(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall, arity: usize) -> Res<Ev> {
        let mut temps = Vec::new();
        let expanded = self.expand_starred(b, c, &mut temps);
        let r = match expanded {
            Ok(Some(c)) => self.call_expanded(b, &c, arity),
            Ok(None) => self.call_expanded(b, c, arity),
            Err(e) => Err(e),
        };
        for t in temps {
            self.env.remove(&t);
        }
        r
    }

    fn call_expanded(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall, arity: usize) -> Res<Ev> {
        let span = c.range();
        // `wp.grad(f)(args)`.
        if let Expr::Call(inner) = &*c.func {
            if let Some((m, "grad")) = dotted(&inner.func) {
                if !self.env.contains_key(m) && self.m.imports.is_wp(m) {
                    return self.grad_call(b, c, inner);
                }
            }
        }
        // Callee.
        if let Some(kind) = crate::module::generic_ctor(self.m, &c.func) {
            return self.generic_construct(b, c, kind).map(Ev::V);
        }
        if let Some((m, name)) = dotted(&c.func) {
            if !self.env.contains_key(m) {
                let imp = &self.m.imports;
                if imp.is_wp(m) {
                    return self.wp_call(b, c, name, arity);
                }
                if imp.is_np(m) || imp.is_math(m) {
                    // As in Warp, `np.sqrt(x)`/`math.sin(x)` in a kernel are
                    // the builtins of the same name.
                    if builtins::is_builtin(name) {
                        return self.builtin(b, c, name);
                    }
                    let ev = ConstEval {
                        imports: imp,
                        consts: &self.m.consts,
                    };
                    return match ev.eval(&Expr::Call(c.clone())) {
                        Ok(v) => {
                            self.at(b, span);
                            Ok(Ev::V(self.materialize(b, &v)))
                        }
                        Err(_) => Err(err(
                            span,
                            format!("`{m}.{name}` cannot be called in a kernel"),
                        )
                        .with_label("not a Warp builtin")
                        .with_help("only numpy/math functions that are also Warp builtins may be called in kernels")),
                    };
                }
            }
        }
        let Expr::Name(fname) = &*c.func else {
            let r = c.func.range();
            let text = self
                .m
                .src
                .get(usize::from(r.start())..usize::from(r.end()))
                .unwrap_or("this");
            return Err(err(r, format!("`{text}` cannot be called in a kernel"))
                .with_label("not a Warp builtin, @wp.func or type")
                .with_help(
                    "call Warp builtins as `wp.name(...)` and your own `@wp.func`s by name",
                ));
        };
        let name = fname.id.as_str();
        if self.poisoned.contains(name) && !self.env.contains_key(name) {
            // Bound by a statement that already failed.
            return Err(Diagnostic::reported());
        }
        if self.env.contains_key(name) {
            return Err(err(
                c.func.range(),
                format!("`{name}` is a variable, not a function"),
            )
            .with_label("not callable"));
        }
        if let Some(defs) = self.m.func_defs(name, self.structs) {
            return self.call_func(b, c, name, &defs, self.origin);
        }
        if let Some(&sid) = self.m.structs.get(name) {
            return self.construct_struct(b, c, sid).map(Ev::V);
        }
        if let Some(&ty) = self.m.type_aliases.get(name) {
            return match ty {
                Type::Struct(sid) => self.construct_struct(b, c, sid).map(Ev::V),
                ty => self.construct(b, c, ty).map(Ev::V),
            };
        }
        if let Some(k) = self.m.kernel(name) {
            return Err(err(
                c.func.range(),
                format!("cannot call kernel `{name}` from a kernel or func"),
            )
            .with_label("a kernel")
            .with_secondary(k.name.range(), "defined as a kernel here")
            .with_help("kernels are launched from the host; make the shared code a `@wp.func`"));
        }
        if let Some(&at) = self.m.py_funcs.get(name) {
            return Err(err(
                c.func.range(),
                format!("`{name}` is a plain Python function"),
            )
            .with_label("not callable from a kernel")
            .with_secondary(at, "defined without a decorator")
            .with_help("decorate it with `@wp.func`"));
        }
        if let Some(&at) = self.m.py_classes.get(name) {
            return Err(crate::module::plain_class(c.func.range(), name, at));
        }
        match name {
            "range" => {
                return Err(err(
                    span,
                    "`range(...)` is only allowed as the iterable of a `for` loop",
                )
                .with_label("here"))
            }
            "print" => return self.print(b, c, false),
            "len" => {
                let [a] = &*c.arguments.args else {
                    return Err(self.arg_count(span, "len", 1, c.arguments.args.len()));
                };
                let v = self.val(b, a)?;
                self.at(b, span);
                return match b.ty(v) {
                    Type::Array(_) => Ok(Ev::V(b.array_shape(v, 0))),
                    Type::Vec(n, _) | Type::Mat(n, _, _) => {
                        Ok(Ev::V(b.iconst(Scalar::I32, n as i64)))
                    }
                    Type::Quat(_) => Ok(Ev::V(b.iconst(Scalar::I32, 4))),
                    Type::Transform(_) => Ok(Ev::V(b.iconst(Scalar::I32, 7))),
                    t => Err(err(a.range(), format!("len() of {}", self.tyname(t)))
                        .with_label("has no length")),
                };
            }
            _ => {}
        }
        if let Some(ty) = typenames::py_type(name) {
            return self.construct(b, c, ty).map(Ev::V);
        }
        // As in Warp, a name bound to nothing else is looked up among the
        // builtins: `expect_eq(a, b)` is `wp.expect_eq(a, b)`.
        if builtins::is_builtin(name)
            || typenames::wp_type(name).is_some()
            || matches!(
                name,
                "tid" | "printf" | "expect_eq" | "expect_neq" | "expect_near" | "cast"
            )
        {
            return self.wp_call(b, c, name, arity);
        }
        let close = self
            .m
            .func_names()
            .chain(self.m.structs.keys().map(String::as_str))
            .filter(|c| edit_distance(c, name) <= 2.max(name.len() / 3))
            .min_by_key(|c| edit_distance(c, name));
        let help = if let Some(c) = close {
            format!("did you mean `{c}`?")
        } else {
            "define it with `@wp.func` at module level, or call a builtin as `wp.name(...)`"
                .to_string()
        };
        Err(err(c.func.range(), format!("unknown function `{name}`"))
            .with_label("not defined")
            .with_help(help))
    }

    fn arg_count(&self, span: Span, name: &str, expected: usize, found: usize) -> Diagnostic {
        err(
            span,
            format!(
                "`{name}` takes {expected} argument{} but {found} {} given",
                if expected == 1 { "" } else { "s" },
                if found == 1 { "was" } else { "were" }
            ),
        )
        .with_label(format!("expected {expected}"))
    }

    pub(super) fn args(
        &mut self,
        b: &mut FuncBuilder,
        c: &ast::ExprCall,
    ) -> Res<(Vec<Value>, Kwargs)> {
        let mut args = Vec::new();
        for a in c.arguments.args.iter() {
            args.push(self.val(b, a)?);
        }
        let mut kws = Vec::new();
        for k in c.arguments.keywords.iter() {
            let Some(name) = &k.arg else {
                return Err(err(k.range(), "`**kwargs` is not supported").with_label("here"));
            };
            // Type-valued arguments (`dtype=float`) are passed as a zero of
            // that type.
            if let Some(ty) = self.type_arg(&k.value) {
                self.at(b, k.value.range());
                kws.push((name.id.to_string(), zero(b, ty, k.value.range())?));
                continue;
            }
            kws.push((name.id.to_string(), self.val(b, &k.value)?));
        }
        Ok((args, kws))
    }

    /// `float`, `int`, `bool`, `wp.<type>` or a struct name used as a value.
    fn type_arg(&self, e: &Expr) -> Option<Type> {
        match e {
            Expr::Name(n) if !self.env.contains_key(n.id.as_str()) => {
                typenames::py_type(n.id.as_str())
                    .or_else(|| {
                        self.m
                            .structs
                            .get(n.id.as_str())
                            .map(|&id| Type::Struct(id))
                    })
                    .or_else(|| self.m.type_aliases.get(n.id.as_str()).copied())
            }
            Expr::Attribute(_) => match dotted(e) {
                Some((m, t)) if !self.env.contains_key(m) && self.m.imports.is_wp(m) => {
                    typenames::wp_type(t)
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn wp_call(
        &mut self,
        b: &mut FuncBuilder,
        c: &ast::ExprCall,
        name: &str,
        arity: usize,
    ) -> Res<Ev> {
        let span = c.range();
        match name {
            "tid" => {
                if !c.arguments.args.is_empty() || !c.arguments.keywords.is_empty() {
                    return Err(self.arg_count(
                        span,
                        "wp.tid",
                        0,
                        c.arguments.args.len() + c.arguments.keywords.len(),
                    ));
                }
                if arity > 4 {
                    return Err(err(
                        span,
                        format!("wp.tid() returns at most 4 indices, {arity} requested"),
                    )
                    .with_label("too many targets"));
                }
                self.at(b, span);
                let t = b.thread_id();
                // Warp returns the first `arity` indices of the row-major
                // decomposition of the launch: drop the trailing axes first
                // (a division by their product, skipped when it is 1, which it
                // is whenever the launch has at most `arity` dimensions).
                let mut rest = t;
                if arity < 4 {
                    let mut p = b.launch_dim(arity as u8);
                    for axis in arity + 1..4 {
                        let d = b.launch_dim(axis as u8);
                        p = b.binary(BinaryOp::Mul, p, d);
                    }
                    let one = b.iconst(Scalar::I32, 1);
                    let trivial = b.binary(BinaryOp::Eq, p, one);
                    let (inst, tr, er) = b.if_(trivial, &[Type::I32]);
                    let outer = b.region();
                    b.switch_to(tr);
                    b.yield_(vec![t]);
                    b.switch_to(er);
                    let q = b.binary(BinaryOp::Div, t, p);
                    b.yield_(vec![q]);
                    b.switch_to(outer);
                    rest = b.func.results(inst)[0];
                }
                if arity <= 1 {
                    return Ok(Ev::V(rest));
                }
                let mut out = vec![rest; arity];
                for axis in (1..arity).rev() {
                    let d = b.launch_dim(axis as u8);
                    out[axis] = b.binary(BinaryOp::Rem, rest, d);
                    rest = b.binary(BinaryOp::Div, rest, d);
                }
                out[0] = rest;
                return Ok(Ev::Tuple(out));
            }
            "printf" => return self.print(b, c, true),
            "expect_eq" | "expect_neq" | "expect_near" => return self.expect(b, c, name),
            "cast" => return self.bit_cast(b, c).map(Ev::V),
            "static" => {
                let [arg] = &*c.arguments.args else {
                    return Err(self.arg_count(span, "wp.static", 1, c.arguments.args.len()));
                };
                if self.refs_local(arg) {
                    return Err(
                        err(arg.range(), "`wp.static` needs a compile-time expression")
                            .with_label("uses a local variable"),
                    );
                }
                let ev = ConstEval {
                    imports: &self.m.imports,
                    consts: &self.m.consts,
                };
                let v = ev.eval(arg)?;
                self.at(b, span);
                return Ok(Ev::V(self.materialize(b, &v)));
            }
            "constant" => {
                return Err(err(span, "`wp.constant` is only allowed at module level")
                    .with_label("here")
                    .with_help("declare `NAME = wp.constant(...)` at the top of the file"))
            }
            "kernel" | "func" | "struct" | "launch" | "array" | "zeros" | "init" => {
                return Err(err(
                    span,
                    format!("`wp.{name}` cannot be used inside a kernel or func"),
                )
                .with_label("host-side API"))
            }
            _ => {}
        }
        if name == "spatial_vector" {
            return self.spatial_vector(b, c).map(Ev::V);
        }
        if let Some(ty) = typenames::wp_type(name) {
            return self.construct(b, c, ty).map(Ev::V);
        }
        if builtins::is_builtin(name) {
            return self.builtin(b, c, name);
        }
        Err(err(c.func.range(), format!("unknown builtin `wp.{name}`"))
            .with_label("not a Warp builtin")
            .with_help("see the list of builtins in Warp's documentation (Kernel Reference)"))
    }

    fn builtin(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall, name: &str) -> Res<Ev> {
        let span = c.range();
        let (args, kws) = self.args(b, c)?;
        self.at(b, span);
        if let Some(k) = builtins::out_args(name, args.len()) {
            // `wp.svd3(A, U, sigma, V)`: the value form's results are stored
            // into the variables passed after the inputs.
            let vs = builtins::call_builtin(b, self, name, &args[..k], &kws, span)?;
            let outs = &c.arguments.args[k..];
            if vs.len() != outs.len() {
                return Err(err(
                    span,
                    format!("internal error: `wp.{name}` returned {} values", vs.len()),
                ));
            }
            for (target, v) in outs.iter().zip(vs) {
                let declared = match target {
                    Expr::Name(n) => self.env.contains_key(n.id.as_str()),
                    Expr::Attribute(_) | Expr::Subscript(_) => true,
                    _ => false,
                };
                if !declared {
                    return Err(err(
                        target.range(),
                        format!("`wp.{name}` writes its result here"),
                    )
                    .with_label("not a variable")
                    .with_help("pass a variable declared before the call"));
                }
                self.assign(b, target, Ev::V(v), span)?;
            }
            return Ok(Ev::Tuple(Vec::new()));
        }
        let mut vs = builtins::call_builtin(b, self, name, &args, &kws, span)?;
        if builtins::advances_rng_state(name) && vs.len() == 2 {
            // Warp passes the RNG state by reference: store the new state back.
            let state = vs[1];
            vs.truncate(1);
            if let Some(target) = c.arguments.args.first() {
                let assignable = match target {
                    Expr::Name(n) => self.env.contains_key(n.id.as_str()),
                    Expr::Attribute(_) | Expr::Subscript(_) => true,
                    _ => false,
                };
                if assignable {
                    self.assign(b, target, Ev::V(state), span)?;
                }
            }
        }
        if builtins::sets_first_arg(name) {
            // Warp modifies a variable in place; an array element or other
            // expression is a copy there, and is left as it is.
            if let (Some(Expr::Name(n)), [new]) = (c.arguments.args.first(), vs.as_slice()) {
                if self.env.contains_key(n.id.as_str()) {
                    self.assign(b, &Expr::Name(n.clone()), Ev::V(*new), span)?;
                }
            }
            return Ok(Ev::Tuple(Vec::new()));
        }
        Ok(match vs.as_slice() {
            [v] => Ev::V(*v),
            _ => Ev::Tuple(vs),
        })
    }

    fn print(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall, printf: bool) -> Res<Ev> {
        let span = c.range();
        let mut fmt = String::new();
        let mut vals = Vec::new();
        let mut args = c.arguments.args.iter();
        if printf {
            match args.next() {
                Some(Expr::StringLiteral(s)) => fmt.push_str(s.value.to_str()),
                _ => {
                    return Err(
                        err(span, "wp.printf needs a format string first").with_label("here")
                    )
                }
            }
            for a in args {
                let v = self.val(b, a)?;
                if b.ty(v).is_array() {
                    return Err(err(a.range(), "arrays cannot be printed")
                        .with_label("an array")
                        .with_help("print its elements, e.g. `a[i]`"));
                }
                vals.push(v);
            }
        } else {
            for (k, a) in args.enumerate() {
                if k > 0 {
                    fmt.push(' ');
                }
                if let Expr::StringLiteral(s) = a {
                    fmt.push_str(&s.value.to_str().replace('%', "%%"));
                    continue;
                }
                let v = self.val(b, a)?;
                if b.ty(v).is_array() {
                    return Err(err(a.range(), "arrays cannot be printed")
                        .with_label("an array")
                        .with_help("print its elements, e.g. `print(a[i])`"));
                }
                let spec = match b.ty(v).scalar_of() {
                    Some(s) if s.is_float() => "%g",
                    Some(s) if s.is_unsigned_int() => "%u",
                    _ => "%d",
                };
                fmt.push_str(spec);
                vals.push(v);
            }
            fmt.push('\n');
        }
        self.at(b, span);
        b.print(&fmt, vals);
        Ok(Ev::Tuple(Vec::new()))
    }

    /// `wp.expect_eq(a, b)`, `wp.expect_neq(a, b)`, `wp.expect_near(a, b,
    /// tolerance=1e-6)`: when the check fails, Warp's message with the
    /// values is printed, after the file and line of the call; the kernel
    /// goes on (as Warp's, in every mode). `expect_near` compares the
    /// largest absolute component difference with the tolerance.
    fn expect(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall, name: &str) -> Res<Ev> {
        let span = c.range();
        let (args, kws) = self.args(b, c)?;
        let near = name == "expect_near";
        let mut args = args;
        for (k, v) in kws {
            if near && k == "tolerance" && args.len() == 2 {
                args.push(v);
            } else {
                return Err(err(
                    span,
                    format!("unexpected keyword argument `{k}` for `wp.{name}`"),
                )
                .with_label("here"));
            }
        }
        let want = if near { 2..=3 } else { 2..=2 };
        if !want.contains(&args.len()) {
            return Err(self.arg_count(span, &format!("wp.{name}"), *want.end(), args.len()));
        }
        let (ta, tb) = (b.ty(args[0]), b.ty(args[1]));
        let scalar = ta.scalar_of();
        let ok = ta == tb
            && scalar.is_some()
            && (ta.is_scalar()
                || matches!(
                    ta,
                    Type::Vec(..) | Type::Mat(..) | Type::Quat(_) | Type::Transform(_)
                ))
            && (!near || scalar.is_some_and(Scalar::is_float));
        if !ok {
            return Err(err(
                span,
                format!(
                    "no overload of `wp.{name}` accepts ({}, {})",
                    self.tyname(ta),
                    self.tyname(tb)
                ),
            )
            .with_label("here")
            .with_help(if near {
                "both values have one float type (scalars, vectors, matrices, quaternions)"
            } else {
                "both values have one type (scalars, vectors, matrices)"
            }));
        }
        let s = scalar.unwrap_or(Scalar::F32);
        self.at(b, span);
        let xs = builtins::components(b, args[0]);
        let ys = builtins::components(b, args[1]);
        let loc = self.m.loc(span);
        let head = format!("{}:{}: ", self.ctx.file_name.replace('%', "%%"), loc.line);
        let spec = if s.is_float() {
            "%g"
        } else if s.is_unsigned_int() {
            "%u"
        } else {
            "%d"
        };
        // Warp's `print` of a value: a vector's components each followed by
        // a space, a matrix row by row, a quaternion's separated by spaces.
        let show = |b: &mut FuncBuilder, v: Value, spec: &str| -> (String, Vec<Value>) {
            let cs = builtins::components(b, v);
            let text = match b.ty(v) {
                Type::Vec(..) => format!("{}\n", format!("{spec} ").repeat(cs.len())),
                Type::Mat(r, c, _) => {
                    format!("{}\n", format!("{spec} ").repeat(c as usize)).repeat(r as usize)
                }
                Type::Quat(_) | Type::Transform(_) => {
                    format!("{}\n", vec![spec; cs.len()].join(" "))
                }
                _ => format!("{spec}\n"),
            };
            (text, cs)
        };
        let (failed, fmt, vals) = if near {
            let tol = match args.get(2) {
                Some(&t) => self.expect_type(b, t, Type::Scalar(s), span)?,
                None => b.konst(weft_ir::Const::float(s, 1e-6)),
            };
            let mut diff = b.konst(weft_ir::Const::float(s, 0.0));
            for (x, y) in xs.iter().zip(&ys) {
                let d = b.binary(BinaryOp::Sub, *x, *y);
                let d = b.unary(weft_ir::UnaryOp::Abs, d);
                diff = b.binary(BinaryOp::Max, diff, d);
            }
            let failed = b.binary(BinaryOp::Gt, diff, tol);
            let what = if ta.is_scalar() {
                "Absolute difference"
            } else {
                "Max absolute difference"
            };
            let (ex, mut vals) = show(b, args[1], spec);
            let (ac, vs) = show(b, args[0], spec);
            vals.extend(vs);
            vals.insert(0, tol);
            vals.push(diff);
            (
                failed,
                format!(
                    "{head}Error, expect_near() failed with tolerance %g\n    Expected: {ex}    Actual: {ac}    {what}: %g\n"
                ),
                vals,
            )
        } else {
            let mut all = b.bconst(true);
            for (x, y) in xs.iter().zip(&ys) {
                let e = b.binary(BinaryOp::Eq, *x, *y);
                all = b.binary(BinaryOp::And, all, e);
            }
            let failed = if name == "expect_eq" {
                b.unary(weft_ir::UnaryOp::Not, all)
            } else {
                all
            };
            let (ex, mut vals) = show(b, args[1], spec);
            let (ac, vs) = show(b, args[0], spec);
            vals.extend(vs);
            (
                failed,
                format!("{head}Error, {name}() failed:\n\t Expected: {ex}\t Actual: {ac}"),
                vals,
            )
        };
        let (_, then_r, else_r) = b.if_(failed, &[]);
        let outer = b.region();
        b.switch_to(then_r);
        b.print(&fmt, vals);
        b.yield_(vec![]);
        b.switch_to(else_r);
        b.yield_(vec![]);
        b.switch_to(outer);
        Ok(Ev::Tuple(Vec::new()))
    }

    /// `wp.vector(*args, length=, dtype=)`, `wp.matrix(*args, shape=,
    /// dtype=)`, `wp.types.quaternion(..., dtype=)`,
    /// `wp.types.transformation(..., dtype=)` in a kernel: the type from the
    /// keywords, else from the arguments (their scalar type; a vector's
    /// length is their count; a matrix needs `shape`, as in Warp), then the
    /// constructor of that type.
    fn generic_construct(
        &mut self,
        b: &mut FuncBuilder,
        c: &ast::ExprCall,
        kind: crate::module::GenericCtor,
    ) -> Res<Value> {
        use crate::module::GenericCtor as G;
        let span = c.range();
        let mut args = Vec::new();
        for a in c.arguments.args.iter() {
            args.push(self.val(b, a)?);
        }
        let ev = ConstEval {
            imports: &self.m.imports,
            consts: &self.m.consts,
        };
        let (mut dims, mut dtype) = (Vec::new(), None);
        for k in c.arguments.keywords.iter() {
            match k.arg.as_ref().map(|a| a.id.as_str()) {
                Some("length") => dims.push(ev.eval(&k.value)?.as_int().unwrap_or(0)),
                Some("shape") => match &k.value {
                    Expr::Tuple(tu) => {
                        for x in &tu.elts {
                            dims.push(ev.eval(x)?.as_int().unwrap_or(0));
                        }
                    }
                    other => dims.push(ev.eval(other)?.as_int().unwrap_or(0)),
                },
                Some("dtype") => {
                    dtype = match crate::module::resolve_type(self.m, self.structs, &k.value)? {
                        Type::Scalar(s) => Some(s),
                        _ => {
                            return Err(err(k.value.range(), "`dtype` must be a scalar type")
                                .with_label("here"))
                        }
                    }
                }
                _ => {
                    return Err(err(k.range(), "unexpected keyword argument")
                        .with_label("takes `length`/`shape` (vectors, matrices) and `dtype`"))
                }
            }
        }
        let s = dtype
            .or_else(|| args.first().and_then(|&a| b.ty(a).scalar_of()))
            .unwrap_or(Scalar::F32);
        let n = args.len() as i128;
        let bad = || {
            err(span, "cannot tell the shape of this vector or matrix")
                .with_label("here")
                .with_help("give `length=N` (vectors) or `shape=(R, C)` (matrices)")
        };
        let fits = |x: i128| (1..=16).contains(&x);
        let ty = match (kind, dims.as_slice()) {
            (G::Vector, [len]) if fits(*len) => Type::Vec(*len as u8, s),
            (G::Vector, []) if fits(n) => Type::Vec(n as u8, s),
            (G::Matrix, [r, cc]) if fits(*r) && fits(*cc) => Type::Mat(*r as u8, *cc as u8, s),
            (G::Quat, []) => Type::Quat(s),
            (G::Transform, []) => Type::Transform(s),
            _ => return Err(bad()),
        };
        self.at(b, span);
        builtins::construct(b, self, ty, &args, &[], span)
    }

    /// A type constructor call; scalar constructors of literals are folded
    /// so that `wp.uint64(0x9E37...)` and `wp.float64(0.1)` are exact.
    fn construct(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall, ty: Type) -> Res<Value> {
        let span = c.range();
        if let (Type::Scalar(s), [a], true) =
            (ty, &*c.arguments.args, c.arguments.keywords.is_empty())
        {
            if is_literal(a) {
                let ev = ConstEval {
                    imports: &self.m.imports,
                    consts: &self.m.consts,
                };
                if let Some(k) = ev.eval(a).ok().and_then(|v| to_const(&v, s)) {
                    self.at(b, span);
                    return Ok(b.konst(k));
                }
            }
        }
        let (args, kws) = self.args(b, c)?;
        self.at(b, span);
        builtins::construct(b, self, ty, &args, &kws, span)
    }

    /// `wp.cast(a, dtype)`: `a`'s bits as a `dtype` of the same size
    /// (scalars; Warp's `reinterpret_cast`).
    fn bit_cast(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall) -> Res<Value> {
        let span = c.range();
        let [a, t] = &*c.arguments.args else {
            return Err(self.arg_count(span, "wp.cast", 2, c.arguments.args.len()));
        };
        let v = self.val(b, a)?;
        let Some(to) = self.type_arg(t) else {
            return Err(err(t.range(), "`wp.cast` needs a type here").with_label("not a type"));
        };
        let from = b.ty(v);
        match (from, to) {
            (Type::Scalar(f), Type::Scalar(s))
                if f != Scalar::Bool && s != Scalar::Bool && f.size() == s.size() =>
            {
                self.at(b, span);
                Ok(if f == s { v } else { b.bitcast(v, s) })
            }
            _ => Err(err(
                span,
                format!(
                    "`wp.cast` from {} to {} is not supported",
                    builtins::type_name(from, self.structs),
                    builtins::type_name(to, self.structs)
                ),
            )
            .with_label("here")
            .with_help("Weft casts between numeric scalar types of the same size")),
        }
    }

    /// `wp.spatial_vector(..., dtype=float32)`: Warp's builtin takes the
    /// scalar type as a keyword (float32 without it).
    fn spatial_vector(&mut self, b: &mut FuncBuilder, c: &ast::ExprCall) -> Res<Value> {
        let span = c.range();
        let (args, mut kws) = self.args(b, c)?;
        let mut s = Scalar::F32;
        if let Some(i) = kws.iter().position(|(k, _)| k == "dtype") {
            match b.ty(kws[i].1) {
                Type::Scalar(d) if d.is_float() => s = d,
                t => {
                    return Err(
                        err(span, "`dtype` of a spatial vector must be a float type")
                            .with_label(format!("got {}", builtins::type_name(t, self.structs))),
                    )
                }
            }
            kws.remove(i);
        }
        self.at(b, span);
        builtins::construct(b, self, Type::Vec(6, s), &args, &kws, span)
    }

    fn construct_struct(
        &mut self,
        b: &mut FuncBuilder,
        c: &ast::ExprCall,
        sid: weft_ir::StructId,
    ) -> Res<Value> {
        let span = c.range();
        let Some(def) = self.structs.get(sid) else {
            return Err(err(span, "unknown struct"));
        };
        let sname = def.name.clone();
        let fields: Vec<(String, Type)> =
            def.fields.iter().map(|f| (f.name.clone(), f.ty)).collect();
        if c.arguments.args.len() > fields.len() {
            return Err(self.arg_count(span, &sname, fields.len(), c.arguments.args.len()));
        }
        let mut vals: Vec<Option<Value>> = vec![None; fields.len()];
        for (i, a) in c.arguments.args.iter().enumerate() {
            let v = self.val(b, a)?;
            vals[i] = Some(self.expect_type(b, v, fields[i].1, a.range())?);
        }
        for k in c.arguments.keywords.iter() {
            let Some(kn) = &k.arg else {
                return Err(err(k.range(), "`**kwargs` is not supported").with_label("here"));
            };
            let Some(i) = fields.iter().position(|f| f.0 == kn.id.as_str()) else {
                return Err(self.no_field(kn.range(), Type::Struct(sid), kn.id.as_str()));
            };
            let v = self.val(b, &k.value)?;
            vals[i] = Some(self.expect_type(b, v, fields[i].1, k.value.range())?);
        }
        self.at(b, span);
        let mut parts = Vec::new();
        for (v, (_, t)) in vals.into_iter().zip(&fields) {
            parts.push(match v {
                Some(v) => v,
                None => zero(b, *t, span)?,
            });
        }
        Ok(b.make(Type::Struct(sid), parts))
    }

    /// Calls a user (or prelude) func with overload resolution.
    fn call_func(
        &mut self,
        b: &mut FuncBuilder,
        c: &ast::ExprCall,
        name: &str,
        defs: &[FuncDef<'a>],
        origin: Origin,
    ) -> Res<Ev> {
        let span = c.range();
        let (args, kws) = self.args(b, c)?;
        let arg_spans: Vec<Span> = c.arguments.args.iter().map(|a| a.range()).collect();
        self.at(b, span);
        let vs = self.resolve_and_call(b, name, defs, origin, &args, &arg_spans, &kws, span)?;
        if builtins::sets_first_arg(name) {
            // Warp modifies a variable in place; an array element or other
            // expression is a copy there, and is left as it is.
            if let (Some(Expr::Name(n)), [new]) = (c.arguments.args.first(), vs.as_slice()) {
                if self.env.contains_key(n.id.as_str()) {
                    self.assign(b, &Expr::Name(n.clone()), Ev::V(*new), span)?;
                }
            }
            return Ok(Ev::Tuple(Vec::new()));
        }
        Ok(match vs.as_slice() {
            [v] => Ev::V(*v),
            _ => Ev::Tuple(vs),
        })
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn resolve_and_call(
        &mut self,
        b: &mut FuncBuilder,
        name: &str,
        defs: &[FuncDef<'a>],
        origin: Origin,
        args: &[Value],
        arg_spans: &[Span],
        kws: &[(String, Value)],
        span: Span,
    ) -> Res<Vec<Value>> {
        let (slot, full) = self.resolve(b, name, defs, origin, args, arg_spans, kws, span)?;
        let rets = self.ctx.returns[slot as usize].clone();
        self.at(b, span);
        let inst = b.call(FuncId::from_u32(slot), full, &rets);
        Ok(b.func.results(inst).to_vec())
    }

    /// The overload of `name` that a call with these arguments picks,
    /// lowered (its slot), and the arguments bound to its parameters.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn resolve(
        &mut self,
        b: &mut FuncBuilder,
        name: &str,
        defs: &[FuncDef<'a>],
        origin: Origin,
        args: &[Value],
        arg_spans: &[Span],
        kws: &[(String, Value)],
        span: Span,
    ) -> Res<(u32, Vec<Value>)> {
        let m = match origin {
            Origin::User => self.mods.user,
            Origin::Prelude => self.mods.prelude.unwrap_or(self.mods.user),
        };
        // Bind arguments to each candidate.
        let mut bound: Vec<Result<Vec<Value>, Diagnostic>> = Vec::new();
        for fd in defs {
            bound.push(self.bind(b, m, fd, name, args, arg_spans, kws, span));
        }
        // Concrete overloads win over generic ones.
        let generic = |fd: &FuncDef<'_>| fd.params.iter().any(|p| p.1.is_generic());
        let pick = (0..defs.len())
            .find(|&i| bound[i].is_ok() && !generic(&defs[i]))
            .or_else(|| (0..defs.len()).find(|&i| bound[i].is_ok()));
        let Some(k) = pick else {
            if defs.len() == 1 {
                return Err(bound
                    .pop()
                    .and_then(|r| r.err())
                    .unwrap_or_else(|| err(span, "bad call")));
            }
            let types: Vec<String> = args.iter().map(|&v| self.tyname(b.ty(v))).collect();
            let mut d = err(
                span,
                format!(
                    "no overload of `{name}` matches argument types ({})",
                    types.join(", ")
                ),
            )
            .with_label("no matching overload");
            for fd in defs {
                d = d.with_help(format!("candidate: {}", self.signature(name, fd)));
            }
            return Err(d);
        };
        let Some(Ok(full)) = bound.into_iter().nth(k) else {
            return Err(err(span, "bad call"));
        };
        let fd = &defs[k];
        let ptypes: Vec<Type> = full.iter().map(|&v| b.ty(v)).collect();
        let key = (origin, fd.index, ptypes.clone());
        let slot = match self.ctx.instances.get(&key).cloned() {
            Some(InstState::Done(s)) => s,
            Some(InstState::InProgress) => {
                return Err(err(span, format!("recursive call to `{name}`"))
                    .with_label("recursion")
                    .with_secondary(fd.def.name.range(), "while compiling this func")
                    .with_help("recursion is not supported (GPUs have no call stack to spare); rewrite it as a loop"))
            }
            Some(InstState::Failed(msgs)) => return Err(self.callee_failed(name, origin, &msgs, span)),
            None => {
                let mangled = if defs.len() > 1 || generic(fd) {
                    let ts: Vec<String> = ptypes
                        .iter()
                        .map(|&t| typenames::mangle(t, self.structs))
                        .collect();
                    format!("{name}__{}", ts.join("_"))
                } else {
                    name.to_string()
                };
                match lower_func(self.ctx, self.structs, self.mods, origin, fd, &ptypes, &mangled) {
                    Ok(s) => s,
                    Err(ds) => {
                        let msgs: Vec<String> = ds.iter().filter(|d| !d.is_reported()).map(|d| d.message.clone()).collect();
                        if origin == Origin::User {
                            self.ctx.diags.extend(ds);
                        }
                        return Err(self.callee_failed(name, origin, &msgs, span));
                    }
                }
            }
        };
        Ok((slot, full))
    }

    fn callee_failed(&self, name: &str, origin: Origin, msgs: &[String], span: Span) -> Diagnostic {
        match origin {
            Origin::User => Diagnostic::reported(),
            Origin::Prelude => {
                let mut d = err(
                    span,
                    format!("internal error: prelude func `{name}` failed to compile"),
                )
                .with_label("in this call");
                for m in msgs {
                    d = d.with_help(m.clone());
                }
                d
            }
        }
    }

    fn signature(&self, name: &str, fd: &FuncDef<'_>) -> String {
        let ps: Vec<String> = fd
            .params
            .iter()
            .map(|(n, t)| match t {
                ParamTy::Type(t) => format!("{n}: {}", self.tyname(*t)),
                ParamTy::Any => format!("{n}: Any"),
                ParamTy::AnyArray(d) => format!("{n}: array(dtype=Any, ndim={d})"),
            })
            .collect();
        format!("{name}({})", ps.join(", "))
    }

    #[allow(clippy::too_many_arguments)]
    fn bind(
        &mut self,
        b: &mut FuncBuilder,
        m: &'a ModInfo<'a>,
        fd: &FuncDef<'a>,
        name: &str,
        args: &[Value],
        arg_spans: &[Span],
        kws: &[(String, Value)],
        span: Span,
    ) -> Res<Vec<Value>> {
        let n = fd.params.len();
        if args.len() > n {
            return Err(self.arg_count(span, name, n, args.len()));
        }
        let mut out: Vec<Option<Value>> = vec![None; n];
        for (i, &v) in args.iter().enumerate() {
            out[i] = Some(v);
        }
        for (k, v) in kws {
            let Some(i) = fd.params.iter().position(|p| &p.0 == k) else {
                return Err(err(span, format!("`{name}` has no parameter `{k}`"))
                    .with_label("unknown keyword argument")
                    .with_help(format!("its signature is {}", self.signature(name, fd))));
            };
            if out[i].is_some() {
                return Err(
                    err(span, format!("parameter `{k}` of `{name}` given twice"))
                        .with_label("here"),
                );
            }
            out[i] = Some(*v);
        }
        let pdefs: Vec<&ast::ParameterWithDefault> =
            fd.def.parameters.iter_non_variadic_params().collect();
        let mut full = Vec::new();
        for (i, slot) in out.into_iter().enumerate() {
            let (pname, pty) = &fd.params[i];
            let v = match slot {
                Some(v) => v,
                None => {
                    let Some(def) = pdefs.get(i).and_then(|p| p.default.as_ref()) else {
                        let given = args.len() + kws.len();
                        return Err(err(span, format!("`{name}` takes {n} argument{} but {given} {} given; `{pname}` is missing", if n == 1 { "" } else { "s" }, if given == 1 { "was" } else { "were" }))
                            .with_label(format!("missing `{pname}`"))
                            .with_help(format!("its signature is {}", self.signature(name, fd))));
                    };
                    let ev = ConstEval {
                        imports: &m.imports,
                        consts: &m.consts,
                    };
                    let c = ev.eval(def).map_err(|_| {
                        err(
                            span,
                            format!(
                                "the default value of `{pname}` is not a compile-time constant"
                            ),
                        )
                        .with_label("in this call")
                    })?;
                    let c = match (c, *pty) {
                        (CVal::Agg(t, cs), _) => CVal::Agg(t, cs),
                        (c, ParamTy::Type(Type::Scalar(s))) => {
                            to_const(&c, s).map(CVal::Typed).unwrap_or(c)
                        }
                        (c, _) => c,
                    };
                    self.at(b, span);
                    self.materialize(b, &c)
                }
            };
            if pty.accepts(b.ty(v)) {
                full.push(v);
                continue;
            }
            let ParamTy::Type(pty) = pty else {
                let at = arg_spans.get(i).copied().unwrap_or(span);
                return Err(err(
                    at,
                    format!(
                        "argument `{pname}` of `{name}` cannot be {}",
                        self.tyname(b.ty(v))
                    ),
                )
                .with_label("does not fit the generic parameter")
                .with_help(format!("its signature is {}", self.signature(name, fd))));
            };
            {
                let at = arg_spans.get(i).copied().unwrap_or(span);
                return Err(err(
                    at,
                    format!(
                        "argument `{pname}` of `{name}` expects {}, found {}",
                        self.tyname(*pty),
                        self.tyname(b.ty(v))
                    ),
                )
                .with_label(format!("expected {}", self.tyname(*pty)))
                .with_help(format!("its signature is {}", self.signature(name, fd))));
            }
        }
        Ok(full)
    }
}
