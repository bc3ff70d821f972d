//! Statements: assignment to names, tuples, array elements and components
//! (constant component paths become memory-access paths), augmented
//! assignment (atomic `+=`/`-=` on array elements).

use super::*;

/// Errors reported per function before lowering it stops.
const MAX_ERRORS: usize = 10;

/// The names a statement binds: assignment targets, and the names of
/// imports, nested definitions and `with ... as x`.
fn bound_names(s: &Stmt) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    super::control::assigned_names(std::slice::from_ref(s), &mut names);
    match s {
        Stmt::Import(i) => names.extend(i.names.iter().map(|a| {
            a.asname
                .as_ref()
                .unwrap_or(&a.name)
                .id
                .split('.')
                .next()
                .unwrap_or_default()
                .to_string()
        })),
        Stmt::ImportFrom(i) => names.extend(
            i.names
                .iter()
                .map(|a| a.asname.as_ref().unwrap_or(&a.name).id.to_string()),
        ),
        Stmt::FunctionDef(f) => {
            names.insert(f.name.id.to_string());
        }
        Stmt::ClassDef(c) => {
            names.insert(c.name.id.to_string());
        }
        Stmt::With(w) => {
            for item in &w.items {
                if let Some(Expr::Name(n)) = item.optional_vars.as_deref() {
                    names.insert(n.id.to_string());
                }
            }
        }
        _ => {}
    }
    names
}

enum PlaceBase {
    /// An array with some indices so far.
    Array(Value, Vec<Value>),
    /// A memory location with a constant path, and its type.
    Mem(MemAccess, Type),
}

impl<'a, 'c> FnLower<'a, 'c> {
    /// `name = (v0, v1, ...)`: a tuple variable (see `FnLower::tuples`).
    fn bind_tuple(
        &mut self,
        b: &mut FuncBuilder,
        n: &ast::ExprName,
        vs: Vec<Value>,
        vspan: Span,
    ) -> Res<()> {
        let name = n.id.as_str();
        let arity = self.tuples.get(name).copied();
        if self.env.contains_key(name) || arity.is_some_and(|k| k != vs.len()) {
            return Err(err(n.range, format!("variable `{name}` changes type"))
                .with_label(format!("assigned {} values here", vs.len()))
                .with_help("a variable keeps one type; use another name"));
        }
        for (k, &v) in vs.iter().enumerate() {
            let slot = format!("{name}.{k}");
            if let Some(&old) = self.env.get(&slot) {
                if b.ty(old) != b.ty(v) {
                    return Err(err(vspan, format!("tuple `{name}` changes element types"))
                        .with_label("assigned here")
                        .with_help("a variable keeps one type; use another name"));
                }
            }
            self.name(b, v, name);
            self.env.insert(slot.clone(), v);
            self.maybe.remove(&slot);
        }
        self.tuples.insert(name.to_string(), vs.len());
        self.maybe.remove(name);
        Ok(())
    }

    /// `name = a[i]` with `a` of more dimensions than indices: `name` is a
    /// view of the array (Warp's semantics), usable where the array
    /// expression itself is.
    fn bind_view(
        &mut self,
        n: &ast::ExprName,
        arr: Value,
        idx: Vec<Value>,
        vspan: Span,
    ) -> Res<()> {
        let name = n.id.as_str();
        if self.nesting > 0 {
            return Err(err(
                vspan,
                "array views can only be created outside branches and loops",
            )
            .with_label("a view of an array")
            .with_help("create the view before the branch or loop, or index every dimension"));
        }
        if self.env.contains_key(name) {
            return Err(err(n.range, format!("`{name}` already holds a value"))
                .with_label("cannot become an array view")
                .with_help("give the view another name"));
        }
        self.views.insert(name.to_string(), (arr, idx));
        Ok(())
    }

    /// Lowers a statement list. An error in one statement is recorded and
    /// lowering goes on with the next (up to [`MAX_ERRORS`] per function),
    /// the names it would have assigned being poisoned so that their uses
    /// are not reported again.
    pub(super) fn stmts(&mut self, b: &mut FuncBuilder, body: &[Stmt]) -> Res<()> {
        for s in body {
            if self.dead {
                break;
            }
            self.at(b, s.range());
            if let Err(d) = self.stmt(b, s) {
                if self.errors.len() + 1 >= MAX_ERRORS {
                    return Err(d);
                }
                self.errors.push(d);
                for n in bound_names(s) {
                    self.env.remove(&n);
                    self.poisoned.insert(n);
                }
            }
        }
        Ok(())
    }

    fn stmt(&mut self, b: &mut FuncBuilder, s: &Stmt) -> Res<()> {
        grow(|| self.stmt_inner(b, s))
    }

    fn stmt_inner(&mut self, b: &mut FuncBuilder, s: &Stmt) -> Res<()> {
        let span = s.range();
        match s {
            Stmt::Expr(e) => {
                if matches!(&*e.value, Expr::StringLiteral(_)) {
                    return Ok(());
                }
                self.expr(b, &e.value, 1).map(|_| ())
            }
            Stmt::Pass(_) => Ok(()),
            Stmt::Assign(a) => {
                for t in &a.targets {
                    self.check_target(t)?;
                }
                let n = match a.targets.first() {
                    Some(Expr::Tuple(t)) => t.elts.len(),
                    _ => 1,
                };
                let v = self.expr(b, &a.value, n)?;
                for t in &a.targets {
                    self.assign(b, t, v.clone(), a.value.range())?;
                }
                Ok(())
            }
            // Warp rejects annotated assignments in kernels; so do we.
            Stmt::AnnAssign(a) => Err(err(
                span,
                "annotated assignments are not supported in kernels",
            )
            .with_label("annotated assignment")
            .with_help(format!(
                "give the value its type instead: `{} = float(...)`",
                self.m
                    .src
                    .get(usize::from(a.target.range().start())..usize::from(a.target.range().end()))
                    .unwrap_or("x")
            ))),
            Stmt::AugAssign(a) => self.aug_assign(b, a),
            Stmt::If(i) => self.if_stmt(b, &i.test, &i.body, &i.elif_else_clauses),
            Stmt::For(f) => self.for_stmt(b, f),
            Stmt::While(w) => {
                if !w.orelse.is_empty() {
                    return Err(
                        err(w.orelse[0].range(), "`while ... else` is not supported")
                            .with_label("here"),
                    );
                }
                self.loop_(b, None, &w.body, Some(&w.test))
            }
            Stmt::Break(_) | Stmt::Continue(_) => {
                let is_break = matches!(s, Stmt::Break(_));
                let Some(frame) = self.loops.last() else {
                    return Err(err(
                        span,
                        format!(
                            "`{}` outside a loop",
                            if is_break { "break" } else { "continue" }
                        ),
                    )
                    .with_label("not in a loop"));
                };
                let mut vs: Vec<Value> = Vec::new();
                if !is_break {
                    vs.extend(frame.next);
                }
                for n in &frame.carried {
                    // Missing only after an error poisoned it.
                    vs.push(self.env.get(n).copied().ok_or_else(Diagnostic::reported)?);
                }
                if is_break {
                    b.break_(vs);
                } else {
                    b.continue_(vs);
                }
                self.dead = true;
                Ok(())
            }
            Stmt::Return(r) => self.return_(b, r),
            Stmt::FunctionDef(f) => Err(err(
                f.name.range(),
                "nested function definitions are not supported",
            )
            .with_label("defined inside a function")
            .with_help("define it at module level with `@wp.func`")),
            Stmt::ClassDef(c) => Err(err(
                c.name.range(),
                "class definitions are not supported inside functions",
            )
            .with_label("here")
            .with_help("define a `@wp.struct` at module level")),
            Stmt::Import(_) | Stmt::ImportFrom(_) => {
                Err(err(span, "`import` inside a function is not supported")
                    .with_label("here")
                    .with_help("import modules at the top of the file"))
            }
            Stmt::Global(_) | Stmt::Nonlocal(_) => Err(err(
                span,
                "`global`/`nonlocal` are not supported",
            )
            .with_label("here")
            .with_help(
                "kernels cannot assign module-level names; write results into an array parameter",
            )),
            Stmt::Delete(_) => Err(err(span, "`del` is not supported").with_label("here")),
            Stmt::Try(_) => Err(err(keyword(span, 3), "`try` is not supported in kernels")
                .with_label("exceptions do not exist on the device")
                .with_help("check conditions with `if` instead")),
            Stmt::With(_) => Err(err(keyword(span, 4), "`with` is not supported in kernels")
                .with_label("here")
                .with_help("remove the `with` block and keep its body")),
            Stmt::Raise(_) => Err(err(keyword(span, 5), "`raise` is not supported in kernels")
                .with_label("exceptions do not exist on the device")),
            Stmt::Assert(_) => Ok(()),
            Stmt::Match(_) => Err(err(keyword(span, 5), "`match` is not supported")
                .with_label("here")
                .with_help("use `if`/`elif`/`else`")),
            Stmt::TypeAlias(_) | Stmt::IpyEscapeCommand(_) => {
                Err(err(span, "unsupported statement").with_label("here"))
            }
        }
    }

    pub(super) fn check_target(&self, t: &Expr) -> Res<()> {
        match t {
            Expr::Name(n) => {
                let name = n.id.as_str();
                if self.array_params.contains(name) {
                    return Err(err(
                        n.range,
                        format!("cannot assign to array parameter `{name}`"),
                    )
                    .with_label("array parameters cannot be rebound")
                    .with_help(format!("to write elements, index it: `{name}[i] = ...`")));
                }
                if !self.env.contains_key(name) && self.m.consts.contains_key(name) {
                    return Err(err(
                        n.range,
                        format!("cannot assign to global constant `{name}`"),
                    )
                    .with_label("module-level name")
                    .with_help(
                        "kernels cannot modify globals; use a local variable with another name",
                    ));
                }
                Ok(())
            }
            Expr::Tuple(t) => t.elts.iter().try_for_each(|e| self.check_target(e)),
            Expr::List(t) => t.elts.iter().try_for_each(|e| self.check_target(e)),
            Expr::Attribute(_) | Expr::Subscript(_) => Ok(()),
            Expr::Starred(_) => {
                Err(err(t.range(), "starred assignment is not supported").with_label("here"))
            }
            _ => Err(err(t.range(), "cannot assign to this expression")
                .with_label("not a variable, element or field")),
        }
    }

    pub(super) fn assign(&mut self, b: &mut FuncBuilder, t: &Expr, v: Ev, vspan: Span) -> Res<()> {
        match t {
            Expr::Name(n) => {
                let v = match v {
                    Ev::View(arr, idx) => return self.bind_view(n, arr, idx, vspan),
                    Ev::Tuple(vs) if vs.len() > 1 => return self.bind_tuple(b, n, vs, vspan),
                    other => self.single(other, vspan)?,
                };
                let name = n.id.as_str();
                if self.tuples.contains_key(name) {
                    return Err(err(n.range, format!("variable `{name}` changes type"))
                        .with_label("holds a tuple")
                        .with_help("a variable keeps one type; use another name"));
                }
                if let Some(&old) = self.env.get(name) {
                    let (ot, nt) = (b.ty(old), b.ty(v));
                    if ot != nt && !ot.is_array() {
                        return Err(err(
                            t.range(),
                            format!(
                                "variable `{name}` changes type from {} to {}",
                                self.tyname(ot),
                                self.tyname(nt)
                            ),
                        )
                        .with_label("assigned here")
                        .with_help(format!(
                            "a variable keeps one type; convert explicitly, e.g. `{}(...)`",
                            self.ctor_name(ot)
                        )));
                    }
                }
                self.name(b, v, name);
                self.env.insert(name.to_string(), v);
                self.maybe.remove(name);
                Ok(())
            }
            Expr::Tuple(_) | Expr::List(_) => {
                let elts: &[Expr] = match t {
                    Expr::Tuple(x) => &x.elts,
                    Expr::List(x) => &x.elts,
                    _ => &[],
                };
                let vs = match v {
                    Ev::Tuple(vs) => vs,
                    Ev::V(v) => {
                        return Err(err(
                            vspan,
                            format!(
                                "cannot unpack one value of type {} into {} names",
                                self.tyname(b.ty(v)),
                                elts.len()
                            ),
                        )
                        .with_label("one value"))
                    }
                    _ => return Err(err(vspan, "cannot unpack this value").with_label("here")),
                };
                if vs.len() != elts.len() {
                    return Err(err(
                        vspan,
                        format!(
                            "expected {} values to unpack, found {}",
                            elts.len(),
                            vs.len()
                        ),
                    )
                    .with_label(format!("{} values", vs.len())));
                }
                for (e, v) in elts.iter().zip(vs) {
                    self.assign(b, e, Ev::V(v), vspan)?;
                }
                Ok(())
            }
            Expr::Subscript(_) if self.adjoint_slot(t)?.is_some() => {
                let v = self.single(v, vspan)?;
                self.set_adjoint(b, t, v)
            }
            Expr::Attribute(_) | Expr::Subscript(_) => {
                let v = self.single(v, vspan)?;
                self.store_place(b, t, v, true)
            }
            _ => Err(err(t.range(), "cannot assign to this expression").with_label("here")),
        }
    }

    pub(super) fn single(&self, v: Ev, span: Span) -> Res<Value> {
        match v {
            Ev::V(v) => Ok(v),
            Ev::Tuple(vs) if vs.is_empty() => Err(err(span, "this expression has no value")
                .with_label("returns nothing")
                .with_help("only funcs that `return` a value can be used in an expression")),
            Ev::Tuple(vs) => Err(err(span, format!("expected one value, found {}", vs.len()))
                .with_label("several values")
                .with_help("unpack them: `a, b = ...`")),
            Ev::View(..) => Err(self.partial_index(span)),
            Ev::Shape(_) => {
                Err(err(span, "`shape` must be indexed").with_label("write `.shape[0]`"))
            }
        }
    }

    fn partial_index(&self, span: Span) -> Diagnostic {
        err(span, "array indexed with too few indices")
            .with_label("this is part of an array")
            .with_help("index every dimension: `a[i, j]`")
    }

    /// Resolves `target` rooted in an array element to (array, indices,
    /// constant path) if the component path is compile-time known.
    fn mem_place(&mut self, b: &mut FuncBuilder, e: &Expr) -> Res<Option<(MemAccess, Type)>> {
        match e {
            Expr::Subscript(s) => {
                let base = self.place_base(b, &s.value)?;
                match base {
                    Some(PlaceBase::Array(arr, mut idx)) => {
                        let Type::Array(at) = b.ty(arr) else {
                            return Ok(None);
                        };
                        idx.extend(self.array_indices(b, &s.slice)?);
                        if idx.len() != at.ndim as usize {
                            return Err(self.bad_index_count(s.range(), at.ndim, idx.len()));
                        }
                        Ok(Some((self.mem_access(b, arr, &idx), Type::from(at.elem))))
                    }
                    Some(PlaceBase::Mem(mut m, ty)) => {
                        let idx = self.indices(b, &s.slice)?;
                        let mut ty = ty;
                        for v in idx {
                            let Some(c) = is_const(b, v) else {
                                return Ok(None);
                            };
                            let i = c.as_i128();
                            let n = ty.arity(self.structs) as i128;
                            if matches!(ty, Type::Struct(_)) || !(0..n).contains(&i) {
                                return Ok(None);
                            }
                            m.path.push(i as u32);
                            ty = ty.project(i as u32, self.structs).unwrap_or(ty);
                        }
                        Ok(Some((m, ty)))
                    }
                    None => Ok(None),
                }
            }
            Expr::Attribute(a) => {
                let Some(PlaceBase::Mem(mut m, ty)) = self.place_base(b, &a.value)? else {
                    return Ok(None);
                };
                let Some(i) = self.attr_index(ty, a.attr.id.as_str()) else {
                    return Ok(None);
                };
                m.path.push(i);
                let ty = ty.project(i, self.structs).unwrap_or(ty);
                Ok(Some((m, ty)))
            }
            _ => Ok(None),
        }
    }

    fn attr_index(&self, ty: Type, name: &str) -> Option<u32> {
        match ty {
            Type::Struct(id) => self.structs.get(id)?.field_index(name),
            Type::Vec(n, _) => ["x", "y", "z", "w"]
                .iter()
                .position(|&c| c == name)
                .filter(|&i| i < n as usize)
                .map(|i| i as u32),
            Type::Quat(_) => ["x", "y", "z", "w"]
                .iter()
                .position(|&c| c == name)
                .map(|i| i as u32),
            _ => None,
        }
    }

    fn place_base(&mut self, b: &mut FuncBuilder, e: &Expr) -> Res<Option<PlaceBase>> {
        grow(|| self.place_base_inner(b, e))
    }

    fn place_base_inner(&mut self, b: &mut FuncBuilder, e: &Expr) -> Res<Option<PlaceBase>> {
        if let Expr::Name(n) = e {
            if let Some(&v) = self.env.get(n.id.as_str()) {
                if b.ty(v).is_array() {
                    return Ok(Some(PlaceBase::Array(v, Vec::new())));
                }
            } else if let Some((arr, idx)) = self.views.get(n.id.as_str()) {
                return Ok(Some(PlaceBase::Array(*arr, idx.clone())));
            }
            return Ok(None);
        }
        if !matches!(e, Expr::Subscript(_) | Expr::Attribute(_)) {
            return Ok(None);
        }
        if let Expr::Subscript(s) = e {
            if let Some(PlaceBase::Array(arr, mut idx)) = self.place_base(b, &s.value)? {
                let Type::Array(at) = b.ty(arr) else {
                    return Ok(None);
                };
                idx.extend(self.array_indices(b, &s.slice)?);
                if idx.len() < at.ndim as usize {
                    return Ok(Some(PlaceBase::Array(arr, idx)));
                }
                if idx.len() > at.ndim as usize {
                    return Err(self.bad_index_count(s.range(), at.ndim, idx.len()));
                }
                let m = self.mem_access(b, arr, &idx);
                return Ok(Some(PlaceBase::Mem(m, Type::from(at.elem))));
            }
        }
        Ok(self.mem_place(b, e)?.map(|(m, t)| PlaceBase::Mem(m, t)))
    }

    /// `arr[indices]` with Python's rule for negative indices
    /// (`builtins::arrays`).
    pub(super) fn mem_access(
        &mut self,
        b: &mut FuncBuilder,
        arr: Value,
        indices: &[Value],
    ) -> MemAccess {
        let nonneg = &self.nonneg;
        builtins::mem_access(b, arr, indices, &|v| nonneg.contains(&v))
    }

    pub(super) fn bad_index_count(&self, span: Span, ndim: u8, n: usize) -> Diagnostic {
        err(
            span,
            format!(
                "array of {ndim} dimension{} indexed with {n} indices",
                if ndim == 1 { "" } else { "s" }
            ),
        )
        .with_label(format!(
            "expected {ndim} ind{}",
            if ndim == 1 { "ex" } else { "ices" }
        ))
    }

    /// `target = v` for element/component targets. `inplace`: a component
    /// write into a local vector, matrix or quaternion is Warp's in-place
    /// write (its `insert`s are marked [`weft_ir::InstData::inplace`], which
    /// only the adjoint reads): every assignment but subscript `+=`/`-=`.
    fn store_place(&mut self, b: &mut FuncBuilder, t: &Expr, v: Value, inplace: bool) -> Res<()> {
        if let Some((m, ty)) = self.mem_place(b, t)? {
            self.at(b, t.range());
            let v = self.expect_type(b, v, ty, t.range())?;
            b.store(m, v);
            return Ok(());
        }
        // Read-modify-write of the containing value.
        let (base, new) = match t {
            Expr::Attribute(a) => {
                let cur = self.val(b, &a.value)?;
                self.at(b, t.range());
                let name = a.attr.id.as_str();
                let ct = b.ty(cur);
                if ct.is_array() {
                    return Err(
                        err(t.range(), "cannot assign to an array attribute").with_label("here")
                    );
                }
                let new = if let Type::Struct(id) = ct {
                    let Some(i) = self.structs.get(id).and_then(|d| d.field_index(name)) else {
                        return Err(self.no_field(a.attr.range(), ct, name));
                    };
                    let ft = ct.project(i, self.structs).unwrap_or(ct);
                    let v = self.expect_type(b, v, ft, t.range())?;
                    b.insert(cur, vec![i], v)
                } else {
                    let first = b.func.insts.len();
                    let new = builtins::set_attr(b, cur, name, v, t.range())?;
                    if inplace {
                        mark_inplace(b, first, cur);
                    }
                    new
                };
                (&a.value, new)
            }
            Expr::Subscript(s) => {
                let cur = self.val(b, &s.value)?;
                let idx = self.indices(b, &s.slice)?;
                self.at(b, t.range());
                let first = b.func.insts.len();
                let new = builtins::set_index(b, cur, &idx, v, t.range())?;
                if inplace {
                    mark_inplace(b, first, cur);
                }
                (&s.value, new)
            }
            _ => return Err(err(t.range(), "cannot assign to this expression").with_label("here")),
        };
        match &**base {
            Expr::Name(n) => {
                if !self.env.contains_key(n.id.as_str()) {
                    return Err(self.unknown_name(n.range, n.id.as_str()));
                }
                self.assign(b, base, Ev::V(new), t.range())
            }
            Expr::Attribute(_) | Expr::Subscript(_) => self.store_place(b, base, new, inplace),
            _ => Err(err(base.range(), "cannot assign into a temporary value")
                .with_label("not a variable")
                .with_help("assign it to a variable first")),
        }
    }

    pub(super) fn expect_type(
        &mut self,
        b: &mut FuncBuilder,
        v: Value,
        ty: Type,
        span: Span,
    ) -> Res<Value> {
        let vt = b.ty(v);
        if vt == ty {
            return Ok(v);
        }
        Err(err(
            span,
            format!(
                "cannot store a value of type {} into {}",
                self.tyname(vt),
                self.tyname(ty)
            ),
        )
        .with_label(format!("expected {}", self.tyname(ty)))
        .with_help(format!(
            "convert it explicitly: `{}(...)`",
            self.ctor_name(ty)
        )))
    }

    fn ctor_name(&self, ty: Type) -> String {
        match ty {
            Type::Scalar(Scalar::F32) => "float".into(),
            Type::Scalar(Scalar::I32) => "int".into(),
            _ => format!("wp.{}", self.tyname(ty)),
        }
    }

    pub(super) fn no_field(&self, span: Span, ty: Type, name: &str) -> Diagnostic {
        let mut d = err(span, format!("{} has no field `{name}`", self.tyname(ty)))
            .with_label("unknown field");
        if let Type::Struct(id) = ty {
            if let Some(def) = self.structs.get(id) {
                let names: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
                d = d.with_help(format!("its fields are: {}", names.join(", ")));
            }
        }
        d
    }

    fn aug_assign(&mut self, b: &mut FuncBuilder, a: &ast::StmtAugAssign) -> Res<()> {
        let span = a.range();
        self.check_target(&a.target)?;
        if let Expr::Name(n) = &*a.target {
            let cur = self.val(b, &a.target)?;
            let rhs = self.val(b, &a.value)?;
            self.at(b, span);
            let v = builtins::binary(b, self, a.op, cur, rhs, span)?;
            return self.assign(b, &Expr::Name(n.clone()), Ev::V(v), span);
        }
        if self.adjoint_slot(&a.target)?.is_some() {
            let cur = self.val(b, &a.target)?;
            let rhs = self.val(b, &a.value)?;
            self.at(b, span);
            let v = builtins::binary(b, self, a.op, cur, rhs, span)?;
            return self.set_adjoint(b, &a.target, v);
        }
        // Warp lowers `+= -= &= |= ^=` on an array element to an atomic
        // (`codegen.py`, `emit_AugAssign`): on a whole element unless the
        // array's scalar type is 8 or 16 bits wide; on a component or field
        // of an element (`a[i].x += v`, `a[i][j] |= k`) when that scalar type
        // has the atomic (add/sub: 32- and 64-bit integers and floats, and
        // float16; and/or/xor: 32- and 64-bit integers). Otherwise, and for
        // the other operators, the element is loaded, updated and stored.
        let atomic_op = match a.op {
            ast::Operator::Add => Some(AtomicOp::Add),
            ast::Operator::Sub => Some(AtomicOp::Sub),
            ast::Operator::BitAnd => Some(AtomicOp::And),
            ast::Operator::BitOr => Some(AtomicOp::Or),
            ast::Operator::BitXor => Some(AtomicOp::Xor),
            _ => None,
        };
        if let Some(op) = atomic_op {
            if let Some((m, ty)) = self.mem_place(b, &a.target)? {
                let root = match b.ty(m.array) {
                    Type::Array(at) => Type::from(at.elem),
                    t => t,
                };
                let small = |s: Option<Scalar>| {
                    matches!(s, Some(Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16))
                };
                let slot_ok = |t: Type| match (op, t.scalar_of()) {
                    (AtomicOp::Add | AtomicOp::Sub, Some(s)) => {
                        s.is_float()
                            || matches!(s, Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64)
                    }
                    (_, Some(s)) => {
                        matches!(s, Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64)
                    }
                    _ => false,
                };
                let whole = m.path.is_empty();
                let atomic = !small(root.scalar_of())
                    && !matches!(root, Type::Struct(_) if whole)
                    && (whole || slot_ok(ty));
                if atomic {
                    let rhs = self.val(b, &a.value)?;
                    self.at(b, span);
                    let rhs = self.expect_type(b, rhs, ty, a.value.range())?;
                    if let Some(help) = builtins::atomic_type_error(op, ty) {
                        return Err(err(
                            span,
                            format!(
                                "operator `{}=` on an array element of type {} (an atomic in Warp)",
                                a.op.as_str(),
                                self.tyname(ty)
                            ),
                        )
                        .with_label("not defined for this type")
                        .with_help(help));
                    }
                    b.atomic(op, m, rhs);
                    return Ok(());
                }
            }
        }
        let cur = self.val(b, &a.target)?;
        let rhs = self.val(b, &a.value)?;
        self.at(b, span);
        let v = builtins::binary(b, self, a.op, cur, rhs, span)?;
        // Warp lowers subscript `+=`/`-=` to exact `add_inplace`/`sub_inplace`,
        // every other form to a read, the operation and an in-place write.
        let exact = matches!(&*a.target, Expr::Subscript(_))
            && matches!(a.op, ast::Operator::Add | ast::Operator::Sub);
        self.store_place(b, &a.target, v, !exact)
    }
}

impl FnLower<'_, '_> {
    /// `wp.adjoint[x] = v` in a custom gradient: `v` must have `x`'s type.
    fn set_adjoint(&mut self, b: &mut FuncBuilder, t: &Expr, v: Value) -> Res<()> {
        let Some(k) = self.adjoint_slot(t)? else {
            return Err(err(t.range(), "not an adjoint"));
        };
        let old = self.env.get(&k).copied().ok_or_else(Diagnostic::reported)?;
        let v = self.expect_type(b, v, b.ty(old), t.range())?;
        self.env.insert(k, v);
        Ok(())
    }
}

/// Marks the `insert`s appended since instruction count `first` as in-place
/// writes when they write into `cur`, a vector, matrix or quaternion.
fn mark_inplace(b: &mut FuncBuilder, first: usize, cur: Value) {
    if !matches!(b.ty(cur), Type::Vec(..) | Type::Mat(..) | Type::Quat(_)) {
        return;
    }
    for d in b.func.insts.values_mut().skip(first) {
        if matches!(d.kind, weft_ir::InstKind::Insert(..)) {
            d.inplace = true;
        }
    }
}
