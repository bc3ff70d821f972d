//! Helpers shared by the passes: walking regions, finding the terminators
//! that target a loop, substituting values, building zero values.

use std::collections::HashMap;
use weft_ir::{Const, Function, Inst, InstKind, Loc, Region, StructTable, Type, Value, ValueDef};

/// Every instruction of a region and of the regions nested in it, in
/// program order: the IR's own walker.
pub use weft_ir::info::for_each_inst_in as for_each_inst;

/// All instructions reachable from the function body, in program order.
pub fn all_insts(func: &Function) -> Vec<Inst> {
    let mut out = Vec::new();
    for_each_inst(func, func.body, &mut |i| out.push(i));
    out
}

/// The `break`s and `continue`s that target the loop whose body is `body`:
/// those in `body` and in the `if` regions nested in it, not those inside
/// nested loops.
pub fn loop_exits(func: &Function, body: Region) -> (Vec<Inst>, Vec<Inst>) {
    fn go(func: &Function, r: Region, breaks: &mut Vec<Inst>, conts: &mut Vec<Inst>) {
        for &inst in &func.regions[r].insts {
            match &func.insts[inst].kind {
                InstKind::Break(_) => breaks.push(inst),
                InstKind::Continue(_) => conts.push(inst),
                InstKind::If {
                    then_region,
                    else_region,
                    ..
                } => {
                    go(func, *then_region, breaks, conts);
                    go(func, *else_region, breaks, conts);
                }
                _ => {}
            }
        }
    }
    let (mut b, mut c) = (Vec::new(), Vec::new());
    go(func, body, &mut b, &mut c);
    (b, c)
}

/// The `yield`s of an `if` region: its terminator when that is a `yield`
/// (other terminators leave the `if` without yielding).
pub fn region_yield(func: &Function, r: Region) -> Option<Inst> {
    let last = *func.regions[r].insts.last()?;
    matches!(func.insts[last].kind, InstKind::Yield(_)).then_some(last)
}

/// The operand list of a terminator, mutably.
pub fn term_operands_mut(kind: &mut InstKind) -> Option<&mut Vec<Value>> {
    match kind {
        InstKind::Yield(vs)
        | InstKind::Continue(vs)
        | InstKind::Break(vs)
        | InstKind::Return(vs) => Some(vs),
        _ => None,
    }
}

/// Resolves a value through a substitution map (transitively).
pub fn resolve(map: &HashMap<Value, Value>, mut v: Value) -> Value {
    while let Some(&n) = map.get(&v) {
        v = n;
    }
    v
}

/// Replaces every use of a key of `map` by its (resolved) image, in every
/// instruction of the function.
pub fn substitute(func: &mut Function, map: &HashMap<Value, Value>) {
    if map.is_empty() {
        return;
    }
    for data in func.insts.values_mut() {
        data.kind.map_args(|v| resolve(map, v));
    }
}

/// Appends a new result of type `ty` to `inst`, returning it.
pub fn add_result(func: &mut Function, inst: Inst, ty: Type) -> Value {
    let idx = func.insts[inst].results.len() as u32;
    let v = func.values.push(weft_ir::ValueData {
        ty,
        def: ValueDef::Result(inst, idx),
    });
    func.insts[inst].results.push(v);
    v
}

/// Renumbers the `ValueDef`s of an instruction's results after some were
/// removed.
pub fn renumber_results(func: &mut Function, inst: Inst) {
    let results = func.insts[inst].results.clone();
    for (i, v) in results.into_iter().enumerate() {
        func.values[v].def = ValueDef::Result(inst, i as u32);
    }
}

/// Renumbers the `ValueDef`s of a region's params after some were removed.
pub fn renumber_params(func: &mut Function, r: Region) {
    let params = func.regions[r].params.clone();
    for (i, v) in params.into_iter().enumerate() {
        func.values[v].def = ValueDef::Param(r, i as u32);
    }
}

/// Builds instructions computing the zero value of `ty` (scalars, vectors,
/// matrices, quaternions, transforms, structs of those), returning them and
/// the value. `None` for array handles, which have no zero.
pub fn zero_value(
    func: &mut Function,
    structs: &StructTable,
    ty: Type,
    loc: Loc,
) -> Option<(Vec<Inst>, Value)> {
    let mut insts = Vec::new();
    let v = zero_into(func, structs, ty, loc, &mut insts)?;
    Some((insts, v))
}

fn zero_into(
    func: &mut Function,
    structs: &StructTable,
    ty: Type,
    loc: Loc,
    out: &mut Vec<Inst>,
) -> Option<Value> {
    if let Type::Scalar(s) = ty {
        let i = func.create_inst(InstKind::Const(Const::int(s, 0)), &[ty], loc);
        out.push(i);
        return Some(func.insts[i].results[0]);
    }
    if ty.is_array() {
        return None;
    }
    let mut parts = Vec::new();
    for k in 0..ty.arity(structs) {
        let sub = ty.project(k, structs)?;
        parts.push(zero_into(func, structs, sub, loc, out)?);
    }
    let i = func.create_inst(InstKind::Make(ty, parts), &[ty], loc);
    out.push(i);
    Some(func.insts[i].results[0])
}

/// For every region reachable from the body, the instruction that owns it
/// (the body itself has no owner and is not in the map).
pub fn region_owners(func: &Function) -> HashMap<Region, Inst> {
    let mut map = HashMap::new();
    for_each_inst(func, func.body, &mut |inst| {
        for r in func.insts[inst].kind.regions() {
            map.insert(r, inst);
        }
    });
    map
}
