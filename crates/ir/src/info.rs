//! What the verifier proves about a module, for the backends and the
//! runtime: [`ModuleInfo`].
//!
//! [`crate::verify::verify_module`] returns it for a module it accepts, so
//! that no backend re-derives these facts (from the IR or from its own
//! output):
//!
//! * per kernel, a [`KernelInfo`]: its parameters (names and types, as the
//!   user sees them), the argument block layout, the parameters laid out
//!   structure of arrays, a conservative set of *length requirements*, and
//!   whether it has traps or calls, and what a deterministic launch of it
//!   takes ([`crate::determinism`]);
//! * for the module: whether every call is inlined (no kernel reaches a
//!   `call`) and whether any kernel has a `trap` (bounds-checked mode).
//!
//! # SoA parameters
//!
//! The `soa` pass rewrites an SoA parameter `p: array(T, d)` to
//! `p: array(S, d + 1)` (`S` the scalar of `T`; the last axis is the plane)
//! and records it in [`Function::soa_params`]. The info shows the
//! parameter as the user sees it, `array(T, d)`, with
//! [`KernelInfo::param_layout`] [`ArrayLayout::Soa`]: a launch takes an
//! array of `T` with `d` axes in SoA layout, and passes the kernel the
//! descriptor of its planes. Length rules are about the user's axes.
//!
//! # The array-length rule
//!
//! [`weft_ir::InstKind::ThreadId`] is the thread's linear index, which takes
//! every value in `0..product(dim)`; `wp.tid()` with several results is
//! lowered to `rem`/`div` of it by [`weft_ir::InstKind::LaunchDim`]s, from
//! the last axis to the first. The runtime tracks which values provably
//! take *every* value of a range across the launch's threads:
//!
//! * `thread_id` takes all of `0..d0*d1*d2*d3` ([`IndexRange::Linear`]
//!   with every axis in its set);
//! * if `x` takes all of `0..N`, `N` the product of the launch dims of a
//!   set of axes holding `a`, then `x rem launch_dim(a)` takes all of
//!   `0..d(a)` ([`IndexRange::Axis`]) and `x div launch_dim(a)` all of
//!   `0..N/d(a)` (the set without `a`);
//! * `x div P`, `P` a product of the launch dims of axes `S` all in the set,
//!   takes all of `0..N/prod(S)` (the set without `S`);
//! * `if P == 1 { yield x } else { yield x div P }` (how a `wp.tid()` with
//!   fewer results than launch axes skips the division when the trailing
//!   axes are 1) takes the range of the `else` value: when `P == 1` both
//!   ranges have the same size;
//! * an integer cast to 32 bits or more keeps the range.
//!
//! If the kernel's body region, before anything that could leave the
//! function early (a `return`, or an `if`/`loop` containing one), accesses an
//! array parameter with such a value as the index of some axis, then every
//! thread performs that access and together they use every index of the
//! range, so the array's length on that axis must be at least the range's
//! size; a launch that violates this is rejected with
//! [`LaunchError::ArrayTooShort`](crate::LaunchError::ArrayTooShort) instead
//! of reading or writing out of bounds. Nothing else is inferred: an access
//! under a condition, in a loop, through other arithmetic or after an
//! early-exit guard (`if i >= n: return`) proves nothing about which indices
//! are used, so such arrays are not checked.

use crate::determinism::Determinism;
use crate::layout::{arg_layout, ArgLayout};
use crate::{
    ArrayLayout, ArrayType, AtomicOp, BinaryOp, FuncId, Function, Inst, InstKind, Module, Param,
    Region, SoaParam, Type, Value, ValueDef,
};

/// A range of indices that the threads of a launch use in full.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IndexRange {
    /// `0..` the product of the launch dims of the axes in this bit set
    /// (bit `a` for axis `a`); `Linear(0b1111)` is the thread id's range.
    Linear(u8),
    /// `0..d(a)`: one component of `wp.tid()`.
    Axis(u8),
}

impl IndexRange {
    /// The range's size for launch dims `dims` (padded with 1s).
    pub fn size(self, dims: &[usize; 4]) -> usize {
        match self {
            IndexRange::Linear(set) => (0..4)
                .filter(|a| set & (1 << a) != 0)
                .map(|a| dims[a])
                .product(),
            IndexRange::Axis(a) => dims[a as usize],
        }
    }
}

/// An array-length requirement (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LengthRule {
    /// Index of the array parameter.
    pub param: usize,
    pub axis: u8,
    pub range: IndexRange,
}

/// What the verifier knows of one kernel (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct KernelInfo {
    pub func: FuncId,
    pub name: String,
    /// The parameters as the user sees them (an SoA parameter with its
    /// user type `array(T, d)`, see the module docs).
    pub params: Vec<Param>,
    /// The argument block's layout (of the kernel's own parameter types).
    pub layout: ArgLayout,
    /// Array-length requirements (see the module docs).
    pub length_rules: Vec<LengthRule>,
    /// The parameters the `soa` pass laid out structure of arrays.
    pub soa_params: Vec<SoaParam>,
    /// Whether the kernel, or a func it reaches, has a `trap`.
    pub has_traps: bool,
    /// Whether the kernel calls a func (calls are not all inlined).
    pub calls: bool,
    /// What a deterministic launch of it takes (see
    /// [`crate::determinism`]).
    pub determinism: Determinism,
}

impl KernelInfo {
    /// The info of kernel `func` of `module` (`None` if there is no such
    /// function). Meant for verified modules; on others it never panics,
    /// but says less.
    pub fn of(module: &Module, func: FuncId) -> Option<KernelInfo> {
        let f = module.funcs.get(func)?;
        // Descriptors have one size whatever the array type, so the
        // layout of the lowered types is the layout of the user's.
        let types: Vec<_> = f.params.iter().map(|p| p.ty).collect();
        let mut params = f.params.clone();
        for sp in &f.soa_params {
            if let Some(p) = params.get_mut(sp.param as usize) {
                p.ty = Type::Array(ArrayType {
                    elem: sp.elem,
                    ndim: sp.ndim,
                });
            }
        }
        let mut rules = length_rules(f);
        // A rule on an SoA parameter's plane axis says nothing of the user's.
        rules.retain(|r| {
            f.soa_params
                .iter()
                .find(|sp| sp.param as usize == r.param)
                .is_none_or(|sp| r.axis < sp.ndim)
        });
        let reach = reachable(module, func);
        Some(KernelInfo {
            func,
            name: f.name.clone(),
            params,
            layout: arg_layout(&types, &module.structs),
            length_rules: rules,
            soa_params: f.soa_params.clone(),
            has_traps: reach.iter().any(|&g| {
                module
                    .funcs
                    .get(g)
                    .is_some_and(|g| any_inst(g, |k| matches!(k, InstKind::Trap(..))))
            }),
            calls: any_inst(f, |k| matches!(k, InstKind::Call(..))),
            determinism: Determinism::of(module, func),
        })
    }
    /// The layout in which parameter `i` takes its array (AoS unless the
    /// `soa` pass lowered it).
    pub fn param_layout(&self, i: usize) -> ArrayLayout {
        if self.soa_params.iter().any(|sp| sp.param as usize == i) {
            ArrayLayout::Soa
        } else {
            ArrayLayout::Aos
        }
    }
}

/// What the verifier knows of a module (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModuleInfo {
    /// Every kernel, in the module's order.
    pub kernels: Vec<KernelInfo>,
    /// No kernel calls a func: every call was inlined (backends that need
    /// this, such as HLSL, check it here).
    pub inlined: bool,
    /// Some kernel has a `trap` (the module was compiled bounds-checked):
    /// device targets then carry a trap record.
    pub has_traps: bool,
}

impl ModuleInfo {
    /// The info of `module` (which should verify: this does not check it).
    pub fn of(module: &Module) -> ModuleInfo {
        let kernels: Vec<_> = module
            .kernels()
            .filter_map(|(id, _)| KernelInfo::of(module, id))
            .collect();
        ModuleInfo {
            inlined: kernels.iter().all(|k| !k.calls),
            has_traps: kernels.iter().any(|k| k.has_traps),
            kernels,
        }
    }
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// `func` and every function it reaches through calls, each once.
pub(crate) fn reachable(m: &Module, func: FuncId) -> Vec<FuncId> {
    let mut out = vec![func];
    let mut k = 0;
    while k < out.len() {
        let mut callees = Vec::new();
        if let Some(f) = m.funcs.get(out[k]) {
            any_inst(f, |kind| {
                if let InstKind::Call(g, _) = kind {
                    callees.push(*g);
                }
                false
            });
        }
        for g in callees {
            if m.funcs.get(g).is_some() && !out.contains(&g) {
                out.push(g);
            }
        }
        k += 1;
    }
    out
}

/// The kind of instruction `i` of `f`, if it exists.
fn kind(f: &Function, i: crate::Inst) -> Option<&InstKind> {
    f.insts.get(i).map(|d| &d.kind)
}

/// The definition of value `v` of `f`, if it exists.
fn def(f: &Function, v: Value) -> Option<ValueDef> {
    f.values.get(v).map(|d| d.def)
}

/// Regions nest at most this deep here (deeper only in a module the
/// verifier would reject: a region inside itself).
const MAX_NESTING: u32 = 1000;

/// Whether some instruction of `f`'s body (in any region nested in it)
/// satisfies `p`.
fn any_inst(f: &Function, mut p: impl FnMut(&InstKind) -> bool) -> bool {
    fn walk(f: &Function, r: Region, p: &mut dyn FnMut(&InstKind) -> bool, depth: u32) -> bool {
        depth < MAX_NESTING
            && f.regions.get(r).is_some_and(|rd| {
                rd.insts.iter().any(|&i| {
                    kind(f, i).is_some_and(|k| {
                        p(k) || k.regions().into_iter().any(|s| walk(f, s, p, depth + 1))
                    })
                })
            })
    }
    walk(f, f.body, &mut p, 0)
}

/// The array-length requirements of a kernel (module docs).
pub fn length_rules(f: &Function) -> Vec<LengthRule> {
    let mut out = Vec::new();
    let Some(body) = f.regions.get(f.body) else {
        return out;
    };
    let params = &body.params;
    for &inst in &body.insts {
        let Some(kind) = kind(f, inst) else { break };
        if let Some(m) = kind.mem_access() {
            if let Some(param) = params.iter().position(|&v| v == m.array) {
                for (axis, &idx) in m.indices.iter().enumerate() {
                    if let Some(range) = full_range(f, idx, 0) {
                        let rule = LengthRule {
                            param,
                            axis: axis as u8,
                            range,
                        };
                        if !out.contains(&rule) {
                            out.push(rule);
                        }
                    }
                }
            }
        }
        if matches!(kind, InstKind::Return(_))
            || kind.regions().iter().any(|&r| contains_return(f, r, 0))
        {
            break;
        }
    }
    out
}

/// The set of axes (bit `a` for axis `a`) whose launch dims multiply to `v`:
/// a `launch_dim`, or a `mul` of such products over disjoint sets.
fn launch_dims_set(f: &Function, v: Value, depth: u32) -> Option<u8> {
    let ValueDef::Result(i, _) = def(f, v)? else {
        return None;
    };
    if depth > 8 {
        return None;
    }
    match *kind(f, i)? {
        InstKind::LaunchDim(a) if a < 4 => Some(1 << a),
        InstKind::Binary(BinaryOp::Mul, x, y) => {
            let (a, b) = (
                launch_dims_set(f, x, depth + 1)?,
                launch_dims_set(f, y, depth + 1)?,
            );
            (a & b == 0).then_some(a | b)
        }
        _ => None,
    }
}

/// The value yielded as result `index` by an `if` region, if the region ends
/// in a `yield`.
fn yielded(f: &Function, r: Region, index: u32) -> Option<Value> {
    let &last = f.regions.get(r)?.insts.last()?;
    match kind(f, last)? {
        InstKind::Yield(vs) => vs.get(index as usize).copied(),
        _ => None,
    }
}

/// If `cond` is `P == 1` (either operand order) with `P` a product of launch
/// dims, the set of `P`'s axes.
fn trivial_dims_test(f: &Function, cond: Value) -> Option<u8> {
    let ValueDef::Result(i, _) = def(f, cond)? else {
        return None;
    };
    let InstKind::Binary(BinaryOp::Eq, x, y) = *kind(f, i)? else {
        return None;
    };
    let is_one = |v: Value| match def(f, v) {
        Some(ValueDef::Result(j, _)) => {
            matches!(kind(f, j), Some(InstKind::Const(c)) if c.ty.is_int() && c.as_i128() == 1)
        }
        _ => false,
    };
    if is_one(y) {
        launch_dims_set(f, x, 0)
    } else if is_one(x) {
        launch_dims_set(f, y, 0)
    } else {
        None
    }
}

/// The range `v` takes in full over the launch, if it is one of the forms
/// of the module docs.
fn full_range(f: &Function, v: Value, depth: u32) -> Option<IndexRange> {
    let ValueDef::Result(inst, result) = def(f, v)? else {
        return None;
    };
    if depth > 16 {
        return None;
    }
    match kind(f, inst)? {
        InstKind::ThreadId => Some(IndexRange::Linear(0b1111)),
        // ThreadId is in 0..=i32::MAX: every integer type of 32 bits or more
        // holds the range unchanged.
        InstKind::Cast(x, to) if to.is_int() && to.bits() >= 32 => full_range(f, *x, depth + 1),
        InstKind::Binary(op @ (BinaryOp::Rem | BinaryOp::Div), x, d) => {
            let IndexRange::Linear(set) = full_range(f, *x, depth + 1)? else {
                return None;
            };
            let axes = launch_dims_set(f, *d, 0)?;
            if set & axes != axes {
                return None;
            }
            match op {
                BinaryOp::Div => Some(IndexRange::Linear(set & !axes)),
                _ if axes.count_ones() == 1 => Some(IndexRange::Axis(axes.trailing_zeros() as u8)),
                _ => None,
            }
        }
        InstKind::If {
            cond,
            then_region,
            else_region,
        } => {
            let axes = trivial_dims_test(f, *cond)?;
            let then_v = yielded(f, *then_region, result)?;
            let else_v = yielded(f, *else_region, result)?;
            let IndexRange::Linear(outer) = full_range(f, then_v, depth + 1)? else {
                return None;
            };
            let IndexRange::Linear(inner) = full_range(f, else_v, depth + 1)? else {
                return None;
            };
            (inner & axes == 0 && inner | axes == outer).then_some(IndexRange::Linear(inner))
        }
        _ => None,
    }
}
/// Whether region `r` (or one nested in it) has a `return`.
fn contains_return(f: &Function, r: Region, depth: u32) -> bool {
    depth < MAX_NESTING
        && f.regions.get(r).is_some_and(|rd| {
            rd.insts.iter().any(|&i| {
                kind(f, i).is_some_and(|k| {
                    matches!(k, InstKind::Return(_))
                        || k.regions()
                            .iter()
                            .any(|&s| contains_return(f, s, depth + 1))
                })
            })
        })
}

/// The *reductions* of kernel `f`: the `atomic` instructions whose address
/// is the same for every thread, so that a host backend may accumulate
/// them per worker and combine each worker's total once (Taichi's atomic
/// demotion). An atomic qualifies when
///
/// * its op is `add`, `min`, `max`, `and`, `or` or `xor` (associative and
///   commutative; float `add` is reassociated, which atomics from many
///   threads already are) on a scalar, and its result (the old value) is
///   unused;
/// * its indices are *uniform*: computed from constants, by-value kernel
///   parameters, `launch_dim` and array shapes only;
/// * its array is a kernel parameter that nothing else reads, writes or
///   passes on: every other use is an `array_shape` or another qualifying
///   atomic with the same op (so no thread can observe the array between
///   the atomics, and their order cannot matter).
pub fn reductions(f: &Function) -> Vec<Inst> {
    let Some(body) = f.regions.get(f.body) else {
        return Vec::new();
    };
    let params = &body.params;
    let mut insts = Vec::new();
    for_each_inst(f, &mut |i| insts.push(i));
    let uniform = |v: Value| -> bool {
        let mut stack = vec![v];
        let mut steps = 0;
        while let Some(v) = stack.pop() {
            steps += 1;
            if steps > 256 {
                return false;
            }
            let Some(vd) = f.values.get(v) else {
                return false;
            };
            match vd.def {
                ValueDef::Param(r, _) => {
                    if r != f.body || vd.ty.is_array() {
                        return false;
                    }
                }
                ValueDef::Result(i, _) => match kind(f, i) {
                    Some(
                        InstKind::Const(_) | InstKind::LaunchDim(_) | InstKind::ArrayShape(..),
                    ) => {}
                    Some(
                        k @ (InstKind::Unary(..)
                        | InstKind::Binary(..)
                        | InstKind::Cast(..)
                        | InstKind::Select(..)),
                    ) => stack.extend(k.args()),
                    _ => return false,
                },
            }
        }
        true
    };
    let used = used_values(f, &insts);
    let by_array = atomic_only_arrays(f, &insts, |i, op, m, v| {
        let ok = matches!(
            op,
            AtomicOp::Add
                | AtomicOp::Min
                | AtomicOp::Max
                | AtomicOp::And
                | AtomicOp::Or
                | AtomicOp::Xor
        ) && params.contains(&m.array)
            && f.values.get(v).is_some_and(|d| d.ty.as_scalar().is_some())
            && f.insts[i].results.iter().all(|r| !used.contains(r))
            && m.indices.iter().all(|&x| uniform(x));
        ok.then_some(op)
    });
    let mut out: Vec<Inst> = by_array
        .into_values()
        .flatten()
        .flat_map(|(_, sites)| sites)
        .collect();
    out.sort();
    out
}

/// The values that some instruction of `insts` uses.
pub(crate) fn used_values(f: &Function, insts: &[Inst]) -> std::collections::HashSet<Value> {
    insts
        .iter()
        .filter_map(|&i| kind(f, i))
        .flat_map(|k| k.args())
        .collect()
}

/// The arrays of `f` that atomics use, each with its atomics when every
/// use of it is an `array_shape` or an atomic (of `insts`, all of `f`'s)
/// into it that `class` gives one class; `None` for an array used
/// otherwise (loaded, stored, passed to a call, an index or value of an
/// atomic, an atomic `class` refuses, or atomics of two classes).
pub(crate) fn atomic_only_arrays<C: PartialEq>(
    f: &Function,
    insts: &[Inst],
    class: impl Fn(Inst, AtomicOp, &crate::MemAccess, Value) -> Option<C>,
) -> std::collections::HashMap<Value, Option<(C, Vec<Inst>)>> {
    use std::collections::HashMap;
    let mut by_array: HashMap<Value, Option<(C, Vec<Inst>)>> = HashMap::new();
    for &i in insts {
        let Some(k) = kind(f, i) else { continue };
        if let InstKind::Atomic(op, m, v) = k {
            let c = (!m.indices.contains(&m.array) && *v != m.array)
                .then(|| class(i, *op, m, *v))
                .flatten();
            match (by_array.get_mut(&m.array), c) {
                (None, Some(c)) => {
                    by_array.insert(m.array, Some((c, vec![i])));
                }
                (Some(Some((o, sites))), Some(c)) if *o == c => sites.push(i),
                (Some(e), _) => *e = None,
                (None, None) => {
                    by_array.insert(m.array, None);
                }
            }
            for x in m.indices.iter().chain([v]) {
                if f.values.get(*x).is_some_and(|d| d.ty.is_array()) {
                    by_array.insert(*x, None);
                }
            }
            continue;
        }
        let shape_of = match k {
            InstKind::ArrayShape(a, _) => Some(*a),
            _ => None,
        };
        for a in k.args() {
            if Some(a) != shape_of && f.values.get(a).is_some_and(|d| d.ty.is_array()) {
                by_array.insert(a, None);
            }
        }
    }
    by_array
}

/// Calls `p` with every instruction of `f`'s body, nested regions
/// included, in order (instructions left in the arena by a pass but in no
/// region are not visited).
pub fn for_each_inst(f: &Function, p: &mut dyn FnMut(Inst)) {
    for_each_inst_in(f, f.body, p);
}

/// Calls `p` with every instruction of region `r` of `f` and of the
/// regions nested in it, in program order (an instruction before those of
/// its regions); regions nested more than 1000 deep are not visited, as in
/// the other walks of this module.
pub fn for_each_inst_in(f: &Function, r: Region, p: &mut dyn FnMut(Inst)) {
    fn walk(f: &Function, r: Region, p: &mut dyn FnMut(Inst), depth: u32) {
        if depth >= MAX_NESTING {
            return;
        }
        let Some(rd) = f.regions.get(r) else { return };
        for &i in &rd.insts {
            p(i);
            if let Some(k) = kind(f, i) {
                for s in k.regions() {
                    walk(f, s, p, depth + 1);
                }
            }
        }
    }
    walk(f, r, p, 0);
}
