//! `*x` call arguments, as Warp's `unpack_starred`: a vector, quaternion or
//! matrix (its components, or its rows), a constant slice of one, or a
//! constant slice of a 1-D array with an explicit stop and non-negative
//! bounds and step, becomes one argument per element (`x[k]`).

use super::*;

/// Python's `slice(lo, hi, step).indices(len)` followed by `range`.
fn slice_indices(lo: Option<i128>, hi: Option<i128>, step: i128, len: i128) -> Vec<i128> {
    let fix = |v: i128, min: i128, max: i128| {
        let v = if v < 0 { v + len } else { v };
        v.clamp(min, max)
    };
    let (start, stop) = if step > 0 {
        (
            lo.map_or(0, |v| fix(v, 0, len)),
            hi.map_or(len, |v| fix(v, 0, len)),
        )
    } else {
        (
            lo.map_or(len - 1, |v| fix(v, -1, len - 1)),
            hi.map_or(-1, |v| fix(v, -1, len - 1)),
        )
    };
    let mut out = Vec::new();
    let mut k = start;
    while (step > 0 && k < stop) || (step < 0 && k > stop) {
        out.push(k);
        k += step;
    }
    out
}

impl<'a, 'c> FnLower<'a, 'c> {
    /// `c` with each starred argument replaced by its elements, or `None`
    /// when it has none. An operand that is not a variable is evaluated
    /// once, into a temporary bound in `env` and listed in `temps` (the
    /// caller removes them after the call).
    pub(super) fn expand_starred(
        &mut self,
        b: &mut FuncBuilder,
        c: &ast::ExprCall,
        temps: &mut Vec<String>,
    ) -> Res<Option<ast::ExprCall>> {
        if !c.arguments.args.iter().any(Expr::is_starred_expr) {
            return Ok(None);
        }
        let mut args = Vec::new();
        for a in c.arguments.args.iter() {
            let Expr::Starred(s) = a else {
                args.push(a.clone());
                continue;
            };
            let (base, slice) = match &*s.value {
                Expr::Subscript(sub) => match &*sub.slice {
                    Expr::Slice(sl) => (&*sub.value, Some(sl)),
                    _ => (&*s.value, None),
                },
                e => (e, None),
            };
            let name = match base {
                Expr::Name(n) if self.env.contains_key(n.id.as_str()) => n.id.to_string(),
                _ => {
                    let v = self.val(b, base)?;
                    let t = format!("__weft_star{}", temps.len());
                    self.env.insert(t.clone(), v);
                    temps.push(t.clone());
                    t
                }
            };
            let ty = b.ty(self.env[&name]);
            let len = match ty {
                Type::Vec(n, _) | Type::Mat(n, _, _) => Some(n as i128),
                Type::Quat(_) => Some(4),
                Type::Array(at) if slice.is_some() => {
                    if at.ndim != 1 {
                        return Err(err(
                            s.range(),
                            format!(
                                "starred expressions with slices are only supported for 1D arrays, got {}D array",
                                at.ndim
                            ),
                        )
                        .with_label("here"));
                    }
                    None
                }
                Type::Array(_) => {
                    return Err(err(
                        s.range(),
                        "starred expressions apply to arrays only if they are sliced with bounds known at compile-time",
                    )
                    .with_label("an unsliced array")
                    .with_help("unpack a slice with constant bounds, e.g. `*a[0:3]`"))
                }
                t => {
                    return Err(err(
                        s.range(),
                        format!(
                            "starred expressions are only supported for arrays (with slice), vectors, quaternions, and matrices, got {}",
                            self.tyname(t)
                        ),
                    )
                    .with_label("cannot be unpacked"))
                }
            };
            let idx = match slice {
                None => (0..len.unwrap_or(0)).collect(),
                Some(sl) => {
                    let lo = sl
                        .lower
                        .as_deref()
                        .map(|e| self.slice_const(e))
                        .transpose()?;
                    let hi = sl
                        .upper
                        .as_deref()
                        .map(|e| self.slice_const(e))
                        .transpose()?;
                    let step = sl
                        .step
                        .as_deref()
                        .map(|e| self.slice_const(e))
                        .transpose()?;
                    let step = step.unwrap_or(1);
                    if step == 0 {
                        return Err(err(sl.range(), "slice step cannot be zero").with_label("here"));
                    }
                    match len {
                        Some(n) => slice_indices(lo, hi, step, n),
                        None => {
                            let Some(hi) = hi else {
                                return Err(err(
                                    sl.range(),
                                    "starred expression on arrays requires explicit upper bound (e.g., *array[0:3], not *array[0:])",
                                )
                                .with_label("no upper bound"));
                            };
                            let lo = lo.unwrap_or(0);
                            if lo < 0 || hi < 0 {
                                return Err(err(
                                    sl.range(),
                                    "starred expression slice bounds cannot be negative for arrays",
                                )
                                .with_label("negative bound"));
                            }
                            if step < 0 {
                                return Err(err(
                                    sl.range(),
                                    "starred expression slice step cannot be negative for arrays",
                                )
                                .with_label("negative step"));
                            }
                            (lo..hi).step_by(step as usize).collect()
                        }
                    }
                }
            };
            let range = s.range();
            for k in idx {
                let Ok(k) = u32::try_from(k) else {
                    return Err(err(range, "slice index out of range").with_label("here"));
                };
                args.push(Expr::Subscript(ast::ExprSubscript {
                    node_index: Default::default(),
                    range,
                    value: Box::new(Expr::Name(ast::ExprName {
                        node_index: Default::default(),
                        range: base.range(),
                        id: name.as_str().into(),
                        ctx: ast::ExprContext::Load,
                    })),
                    slice: Box::new(Expr::NumberLiteral(ast::ExprNumberLiteral {
                        node_index: Default::default(),
                        range,
                        value: Number::Int(ast::Int::from(k)),
                    })),
                    ctx: ast::ExprContext::Load,
                }));
            }
        }
        let mut out = c.clone();
        out.arguments.args = args.into_boxed_slice();
        Ok(Some(out))
    }

    /// A slice bound: an integer known at compile time.
    fn slice_const(&self, e: &Expr) -> Res<i128> {
        let ev = ConstEval {
            imports: &self.m.imports,
            consts: &self.m.consts,
        };
        match ev.eval(e) {
            Ok(CVal::Int(v)) => Ok(v),
            Ok(_) => {
                Err(err(e.range(), "slice component must be an integer").with_label("not an int"))
            }
            Err(_) => Err(
                err(e.range(), "slice component must be a compile-time constant")
                    .with_label("not a constant"),
            ),
        }
    }
}
