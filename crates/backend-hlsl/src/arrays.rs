//! Which kernel parameter every array value stands for.
//!
//! HLSL buffers are resources, not values: a shader cannot hold "an array"
//! in a variable. In the IR an array is a value like any other, and arrays
//! do flow through block params and region results: the frontend carries a
//! Python variable through a loop (a loop param, `continue`/`break`
//! operands, loop results) or an `if` (`yield`, results) whenever the body
//! assigns to it, and `a[i] = x` counts as an assignment to `a`. Those
//! values are always the kernel parameter they started as, but nothing in
//! the pass pipeline removes such invariant params.
//!
//! [`resolve`] follows every array-typed param and result back to the one
//! kernel parameter it stands for; the emitter then addresses that
//! parameter's buffer and emits no variable for the array value. An array
//! value that may stand for two different parameters (chosen by control
//! flow) is reported: HLSL has no way to select a buffer at run time.

use std::collections::HashMap;
use weft_ir::{Function, InstKind, Loc, Region, Value};

/// An array value that stands for more than one kernel parameter.
pub(crate) struct Ambiguous {
    pub loc: Loc,
    pub name: String,
}

/// The exits a region's terminators assign to.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    /// The innermost loop's params (`continue`) and results (`break`).
    lp: Option<(&'a [Value], &'a [Value])>,
    /// The enclosing `if`'s results (`yield`).
    yields: Option<&'a [Value]>,
}

/// Maps every array-typed value defined as a block param or an
/// `if`/`loop` result to the kernel parameter it stands for (kernel
/// parameters map to themselves). Values that no parameter reaches are
/// absent.
pub(crate) fn resolve(f: &Function) -> Result<HashMap<Value, Value>, Ambiguous> {
    let is_array = |v: Value| f.value_type(v).is_array();
    // (target, source, location of the instruction linking them)
    let mut edges: Vec<(Value, Value, Loc)> = Vec::new();
    collect(
        f,
        f.body,
        Ctx {
            lp: None,
            yields: None,
        },
        &mut edges,
    );
    edges.retain(|&(t, _, _)| is_array(t));
    let mut of: HashMap<Value, Value> = f
        .param_values()
        .iter()
        .copied()
        .filter(|&v| is_array(v))
        .map(|v| (v, v))
        .collect();
    // Each round resolves at least one more value or stops: at most one
    // round per edge.
    let mut changed = true;
    while changed {
        changed = false;
        for &(t, s, loc) in &edges {
            let Some(&p) = of.get(&s) else { continue };
            match of.get(&t) {
                None => {
                    of.insert(t, p);
                    changed = true;
                }
                Some(&q) if q != p => {
                    let name = f
                        .value_name(t)
                        .map_or_else(|| format!("{t}"), str::to_string);
                    return Err(Ambiguous { loc, name });
                }
                Some(_) => {}
            }
        }
    }
    Ok(of)
}

fn collect<'a>(f: &'a Function, r: Region, ctx: Ctx<'a>, out: &mut Vec<(Value, Value, Loc)>) {
    let Some(rd) = f.regions.get(r) else { return };
    for &i in &rd.insts {
        let d = &f.insts[i];
        let link = |targets: &[Value], vs: &[Value], out: &mut Vec<_>| {
            out.extend(targets.iter().zip(vs).map(|(&t, &s)| (t, s, d.loc)));
        };
        match &d.kind {
            InstKind::If {
                then_region,
                else_region,
                ..
            } => {
                let inner = Ctx {
                    yields: Some(&d.results[..]),
                    ..ctx
                };
                collect(f, *then_region, inner, out);
                collect(f, *else_region, inner, out);
            }
            InstKind::Loop { init, body } => {
                let Some(brd) = f.regions.get(*body) else {
                    continue;
                };
                link(&brd.params, init, out);
                let inner = Ctx {
                    lp: Some((&brd.params[..], &d.results[..])),
                    yields: None,
                };
                collect(f, *body, inner, out);
            }
            InstKind::Yield(vs) => {
                if let Some(t) = ctx.yields {
                    link(t, vs, out);
                }
            }
            InstKind::Continue(vs) => {
                if let Some((p, _)) = ctx.lp {
                    link(p, vs, out);
                }
            }
            InstKind::Break(vs) => {
                if let Some((_, res)) = ctx.lp {
                    link(res, vs, out);
                }
            }
            _ => {}
        }
    }
}
