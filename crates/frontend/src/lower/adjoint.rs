//! Custom gradients: `@wp.func_grad(f)` and `@wp.func_replay(f)`
//! definitions, lowered next to the overload of `f` they match, and
//! `wp.adjoint[x]` inside a custom gradient.
//!
//! A custom gradient `g(x1, .., xn, adj_ret...)` of `f(x1, .., xn)` takes
//! `f`'s parameters then one adjoint per return value. In its body
//! `wp.adjoint[xi]` is an accumulator, zero on entry, that `+=` (or `=`)
//! updates; the IR function returns the accumulators, one per parameter of
//! `f` ([`weft_ir::Function::custom_adjoint`]), which the adjoint pass adds
//! to the caller's adjoints. (In Warp `wp.adjoint[x]` is the caller's
//! accumulator itself; the two agree for `+=`, the form Warp documents.)
//! A custom replay has `f`'s signature and replaces `f` when a backward
//! function recomputes the forward values.
//!
//! `wp.grad(f)(args)` calls the gradient func of the overload of `f` the
//! arguments pick ([`weft_ir::Function::grad_of`]): it returns the adjoint
//! of each of `f`'s (by-value) parameters, with the adjoint of each result
//! 1, and is a constant to the backward sweep (as in Warp).

use super::*;
use crate::module::Custom;

/// The name prefix of the environment entries holding `wp.adjoint[x]` (a
/// `$` cannot start a Python name, so they never clash with variables).
const SLOT: &str = "$adjoint:";

/// The environment key of `wp.adjoint[x]`.
pub(super) fn slot_key(x: &str) -> String {
    format!("{SLOT}{x}")
}

/// `x` if `e` is `<module>.adjoint[x]` (syntactically; whether the module
/// is `warp` is checked where it is lowered).
pub(super) fn adjoint_target(e: &Expr) -> Option<&str> {
    let Expr::Subscript(s) = e else {
        return None;
    };
    let Expr::Attribute(a) = &*s.value else {
        return None;
    };
    match (&*a.value, &*s.slice) {
        (Expr::Name(_), Expr::Name(x)) if a.attr.id.as_str() == "adjoint" => Some(x.id.as_str()),
        _ => None,
    }
}

/// Lowers the custom gradient and replay of the overload of func `fd`
/// (`ptypes` → `rets`) that was lowered into `slot`, if its module has
/// matching ones, and records them on that function.
#[allow(clippy::too_many_arguments)]
pub(super) fn lower_custom<'a>(
    ctx: &mut Ctx,
    structs: &StructTable,
    mods: Mods<'a>,
    origin: Origin,
    m: &'a ModInfo<'a>,
    fd: &FuncDef<'a>,
    slot: u32,
    ptypes: &[Type],
    rets: &[Type],
) -> Result<(), Vec<Diagnostic>> {
    let fname = fd.def.name.id.as_str();
    for kind in [Custom::Grad, Custom::Replay] {
        let Some(defs) = m.custom_defs(kind, fname, structs) else {
            continue;
        };
        let mut want: Vec<Type> = ptypes.to_vec();
        if kind == Custom::Grad {
            want.extend_from_slice(rets);
        }
        let fits = |g: &FuncDef<'_>| {
            g.params.len() == want.len() && g.params.iter().zip(&want).all(|(p, &t)| p.1.accepts(t))
        };
        let Some(g) = defs.iter().find(|g| fits(g)) else {
            // An overload of `f` without a custom definition is fine; one
            // func with a definition that fits none of it is a mistake.
            if m.func_defs(fname, structs).is_some_and(|o| o.len() == 1) {
                let g = &defs[0];
                let names: Vec<String> = want
                    .iter()
                    .map(|&t| builtins::type_name(t, structs))
                    .collect();
                return Err(vec![err(
                    g.def.name.range(),
                    format!(
                        "the parameters of this `@{}` do not match `{fname}`",
                        kind.decorator()
                    ),
                )
                .with_label("parameters differ")
                .with_secondary(fd.def.name.range(), format!("`{fname}` is defined here"))
                .with_help(format!(
                    "expected parameters of types ({})",
                    names.join(", ")
                ))]);
            }
            continue;
        };
        if kind == Custom::Grad && ptypes.iter().any(|t| t.is_array()) {
            return Err(vec![err(
                g.def.name.range(),
                format!("a custom gradient of `{fname}`, which takes arrays, is not supported"),
            )
            .with_label("custom gradient")
            .with_help(
                "give the func only by-value parameters, or let Weft differentiate it",
            )]);
        }
        let returns = match kind {
            Custom::Grad => ptypes.to_vec(),
            Custom::Replay => rets.to_vec(),
        };
        let gslot = lower_custom_def(ctx, structs, mods, origin, m, kind, g, &want, returns)?;
        let id = weft_ir::FuncId::from_u32(gslot);
        if let Some(f) = ctx.funcs[slot as usize].as_mut() {
            match kind {
                Custom::Grad => f.custom_adjoint = Some(id),
                Custom::Replay => f.custom_replay = Some(id),
            }
        }
    }
    Ok(())
}

/// Lowers one custom definition `g` with parameter types `ptypes`.
#[allow(clippy::too_many_arguments)]
fn lower_custom_def<'a>(
    ctx: &mut Ctx,
    structs: &StructTable,
    mods: Mods<'a>,
    origin: Origin,
    m: &'a ModInfo<'a>,
    kind: Custom,
    g: &FuncDef<'a>,
    ptypes: &[Type],
    returns: Vec<Type>,
) -> Result<u32, Vec<Diagnostic>> {
    let (slot, name) = ctx.alloc(g.def.name.id.as_str());
    let params: Vec<Param> = g
        .params
        .iter()
        .zip(ptypes)
        .map(|((n, _), &t)| Param {
            name: n.clone(),
            ty: t,
        })
        .collect();
    let mut func = Function::new(&name, FuncKind::Func, params.clone(), returns.clone());
    func.loc = m.loc(g.def.name.range());
    let res = {
        let mut b = FuncBuilder::new(&mut func, structs);
        let mut l = FnLower::new(ctx, structs, mods, m, origin, FuncKind::Func);
        l.ret = Some((returns.clone(), g.def.name.range(), true));
        if kind == Custom::Grad {
            l.adjoints = params[..returns.len()]
                .iter()
                .map(|p| (p.name.clone(), p.ty))
                .collect();
        }
        let r = l.body(&mut b, g.def, &params);
        l.take_errors(r)
    };
    ctx.funcs[slot as usize] = Some(func);
    ctx.returns[slot as usize] = returns;
    res.map(|()| slot)
}

impl<'a, 'c> FnLower<'a, 'c> {
    /// Starts a custom gradient's body: every `wp.adjoint[x]` is zero.
    pub(super) fn init_adjoints(&mut self, b: &mut FuncBuilder, span: Span) -> Res<()> {
        for (name, ty) in self.adjoints.clone() {
            self.at(b, span);
            let z = zero(b, ty, span)?;
            self.env.insert(slot_key(&name), z);
        }
        Ok(())
    }

    /// The accumulators a custom gradient returns, in parameter order.
    pub(super) fn adjoint_results(&self) -> Option<Vec<Value>> {
        self.adjoints
            .iter()
            .map(|(n, _)| self.env.get(&slot_key(n)).copied())
            .collect()
    }

    /// The environment key of `e` if it is `wp.adjoint[x]` in a custom
    /// gradient (an error if `x` is not one of its parameters, or outside
    /// a custom gradient).
    pub(super) fn adjoint_slot(&self, e: &Expr) -> Res<Option<String>> {
        let Some(x) = adjoint_target(e) else {
            return Ok(None);
        };
        let Expr::Subscript(s) = e else {
            return Ok(None);
        };
        let Expr::Attribute(a) = &*s.value else {
            return Ok(None);
        };
        if !matches!(&*a.value, Expr::Name(w) if self.m.imports.is_wp(w.id.as_str())) {
            return Ok(None);
        }
        if self.adjoints.is_empty() {
            return Err(err(e.range(), "`wp.adjoint[...]` outside a custom gradient")
                .with_label("not in a `@wp.func_grad`")
                .with_help("`wp.adjoint[x]` is the adjoint of parameter `x` inside a `@wp.func_grad` function"));
        }
        if !self.adjoints.iter().any(|(n, _)| n == x) {
            let names: Vec<&str> = self.adjoints.iter().map(|(n, _)| n.as_str()).collect();
            return Err(err(
                s.slice.range(),
                format!("`{x}` is not a parameter of the differentiated func"),
            )
            .with_label("no adjoint")
            .with_help(format!("the adjoints are of: {}", names.join(", "))));
        }
        Ok(Some(slot_key(x)))
    }
}

impl<'a> FnLower<'a, '_> {
    /// `wp.grad(f)(args)`: `inner` is `wp.grad(f)`.
    pub(super) fn grad_call(
        &mut self,
        b: &mut FuncBuilder,
        c: &ast::ExprCall,
        inner: &ast::ExprCall,
    ) -> Res<Ev> {
        let span = c.range();
        let usage = "`wp.grad` takes one `@wp.func`: `wp.grad(f)(x, y)`";
        let builtin = |at: Span, name: &str| {
            err(
                at,
                format!("`wp.grad` of the builtin `{name}` is not supported"),
            )
            .with_label("a builtin")
            .with_help("wrap the builtin in a `@wp.func` and take the gradient of that")
        };
        if let [e] = &*inner.arguments.args {
            if let Some((m, name)) = dotted(e) {
                if self.m.imports.is_wp(m) && builtins::is_builtin(name) {
                    return Err(builtin(e.range(), name));
                }
            }
        }
        let [Expr::Name(fname)] = &*inner.arguments.args else {
            return Err(
                err(inner.range(), "`wp.grad` of something that is not a func")
                    .with_label("expected `wp.grad(f)`")
                    .with_help(usage),
            );
        };
        if !inner.arguments.keywords.is_empty() {
            return Err(err(inner.range(), "`wp.grad` takes no keyword arguments").with_help(usage));
        }
        let name = fname.id.as_str();
        let Some(defs) = self.m.func_defs(name, self.structs) else {
            return Err(if builtins::is_builtin(name) {
                builtin(fname.range(), name)
            } else {
                err(
                    fname.range(),
                    format!("`wp.grad` of `{name}`, which is not a `@wp.func`"),
                )
                .with_label("not a `@wp.func`")
                .with_help(usage)
            });
        };
        let (args, kws) = self.args(b, c)?;
        let arg_spans: Vec<Span> = c.arguments.args.iter().map(|a| a.range()).collect();
        self.at(b, span);
        let (slot, full) =
            self.resolve(b, name, &defs, self.origin, &args, &arg_spans, &kws, span)?;
        let Some(f) = self.ctx.funcs[slot as usize].as_ref() else {
            return Err(err(span, format!("`wp.grad` of `{name}` inside `{name}`"))
                .with_label("recursion")
                .with_help("recursion is not supported"));
        };
        let params = f.params.clone();
        let ptys: Vec<Type> = params.iter().map(|p| p.ty).collect();
        if let Some(p) = params.iter().find(|p| p.ty.is_array()) {
            return Err(err(
                fname.range(),
                format!("`wp.grad` of `{name}`, which takes an array"),
            )
            .with_label(format!("parameter `{}` is an array", p.name))
            .with_help(
                "`wp.grad` differentiates funcs of values (scalars, vectors, matrices, ...)",
            ));
        }
        if f.returns.is_empty() {
            return Err(err(
                fname.range(),
                format!("cannot compute the gradient of `{name}`, which returns nothing"),
            )
            .with_label("returns no value"));
        }
        let fname_ir = f.name.clone();
        let gslot = match self.ctx.grads.get(&slot) {
            Some(&g) => g,
            None => {
                let (g, gname) = self.ctx.alloc(&format!("__weft_grad_{fname_ir}"));
                let mut gf = Function::new(&gname, FuncKind::Func, params, ptys.clone());
                gf.loc = self.m.loc(span);
                gf.grad_of = Some(FuncId::from_u32(slot));
                // A placeholder body (`expand_grads` replaces it).
                let mut gb = FuncBuilder::new(&mut gf, self.structs);
                let ps = gb.func.param_values().to_vec();
                gb.return_(ps);
                self.ctx.funcs[g as usize] = Some(gf);
                self.ctx.returns[g as usize] = ptys.clone();
                self.ctx.grads.insert(slot, g);
                g
            }
        };
        self.at(b, span);
        let inst = b.call(FuncId::from_u32(gslot), full, &ptys);
        Ok(match b.func.results(inst) {
            [v] => Ev::V(*v),
            vs => Ev::Tuple(vs.to_vec()),
        })
    }
}
