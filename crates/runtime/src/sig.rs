//! Kernel signatures: what the runtime knows about a kernel it launches.
//!
//! A [`KernelSig`] is taken from the IR of a compiled module: the kernel's
//! parameters (names and types), the struct table their types refer to, the
//! argument block layout, the parameters laid out structure of arrays, and
//! a conservative set of *length requirements*.
//!
//! # SoA parameters
//!
//! The `soa` pass rewrites an SoA parameter `p: array(T, d)` to
//! `p: array(S, d + 1)` (`S` the scalar of `T`; the last axis is the plane)
//! and records it in [`Function::soa_params`]. The signature shows the
//! parameter as the user sees it, `array(T, d)`, with
//! [`KernelSig::param_layout`] [`ArrayLayout::Soa`]: a launch takes an
//! [`crate::Array`] of `T` with `d` axes in SoA layout, and passes the
//! kernel the descriptor of its planes
//! ([`crate::Array::desc_shape_strides`]). Length rules are about the user's
//! axes.
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

use std::sync::Arc;
use weft_ir::layout::{arg_layout, ArgLayout};
use weft_ir::{
    ArrayLayout, ArrayType, BinaryOp, FuncId, Function, InstKind, Module, Param, Region, SoaParam,
    StructTable, Type, Value, ValueDef,
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

/// The signature of a kernel as checked by `launch`.
#[derive(Clone, Debug)]
pub struct KernelSig {
    pub name: String,
    /// The parameters as the user sees them (an SoA parameter with its
    /// user type `array(T, d)`, see the module docs).
    pub params: Vec<Param>,
    pub structs: Arc<StructTable>,
    pub layout: ArgLayout,
    /// Array-length requirements (see the module docs).
    pub length_rules: Vec<LengthRule>,
    /// The parameters the `soa` pass laid out structure of arrays.
    pub soa_params: Vec<SoaParam>,
}

impl KernelSig {
    /// The signature of kernel `func` of `module`.
    pub fn from_module(module: &Module, func: FuncId, structs: Arc<StructTable>) -> KernelSig {
        let f = &module.funcs[func];
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
        KernelSig {
            name: f.name.clone(),
            params,
            layout: arg_layout(&types, &structs),
            structs,
            length_rules: rules,
            soa_params: f.soa_params.clone(),
        }
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

/// The array-length requirements of a kernel (module docs).
pub fn length_rules(f: &Function) -> Vec<LengthRule> {
    let params = f.param_values();
    let mut out = Vec::new();
    for &inst in &f.regions[f.body].insts {
        let kind = &f.insts[inst].kind;
        let mem = match kind {
            InstKind::Load(m) | InstKind::Store(m, _) | InstKind::Atomic(_, m, _) => Some(m),
            _ => None,
        };
        if let Some(m) = mem {
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
            || kind.regions().iter().any(|&r| contains_return(f, r))
        {
            break;
        }
    }
    out
}

/// The set of axes (bit `a` for axis `a`) whose launch dims multiply to `v`:
/// a `launch_dim`, or a `mul` of such products over disjoint sets.
fn launch_dims_set(f: &Function, v: Value, depth: u32) -> Option<u8> {
    let ValueDef::Result(i, _) = f.values[v].def else {
        return None;
    };
    if depth > 8 {
        return None;
    }
    match f.insts[i].kind {
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
    let &last = f.regions[r].insts.last()?;
    match &f.insts[last].kind {
        InstKind::Yield(vs) => vs.get(index as usize).copied(),
        _ => None,
    }
}

/// If `cond` is `P == 1` (either operand order) with `P` a product of launch
/// dims, the set of `P`'s axes.
fn trivial_dims_test(f: &Function, cond: Value) -> Option<u8> {
    let ValueDef::Result(i, _) = f.values[cond].def else {
        return None;
    };
    let InstKind::Binary(BinaryOp::Eq, x, y) = f.insts[i].kind else {
        return None;
    };
    let is_one = |v: Value| match f.values[v].def {
        ValueDef::Result(j, _) => {
            matches!(f.insts[j].kind, InstKind::Const(c) if c.ty.is_int() && c.as_i128() == 1)
        }
        ValueDef::Param(..) => false,
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
    let ValueDef::Result(inst, result) = f.values[v].def else {
        return None;
    };
    if depth > 16 {
        return None;
    }
    match &f.insts[inst].kind {
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
fn contains_return(f: &Function, r: Region) -> bool {
    f.regions[r].insts.iter().any(|&i| {
        let k = &f.insts[i].kind;
        matches!(k, InstKind::Return(_)) || k.regions().iter().any(|&s| contains_return(f, s))
    })
}
