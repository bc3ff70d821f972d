//! Kernel signatures: what the runtime knows about a kernel it launches.
//!
//! A [`KernelSig`] is taken from the IR of a compiled module: the kernel's
//! parameters (names and types), the struct table their types refer to, the
//! argument block layout, and a conservative set of *length requirements*.
//!
//! # The array-length rule
//!
//! [`weft_ir::InstKind::ThreadId`] is the thread's linear index, which takes
//! every value in `0..product(dim)`. If the kernel's body region, before
//! anything that could leave the function early (a `return`, or an `if`/
//! `loop` that contains one), accesses an array parameter with `ThreadId`
//! itself (or an integer widening of it) as the index of some axis, then
//! every thread performs that access, so the array's length on that axis
//! must be at least `product(dim)`; a launch that violates this is rejected
//! with [`LaunchError::ArrayTooShort`](crate::LaunchError::ArrayTooShort).
//! Nothing else is inferred: an access under a condition, in a loop, through
//! derived indices or after an early-exit guard (`if i >= n: return`) proves
//! nothing about which indices are used, so such arrays are not checked.

use std::sync::Arc;
use weft_ir::layout::{arg_layout, ArgLayout};
use weft_ir::{FuncId, Function, InstKind, Module, Param, Region, StructTable, Value, ValueDef};

/// The signature of a kernel as checked by `launch`.
#[derive(Clone, Debug)]
pub struct KernelSig {
    pub name: String,
    pub params: Vec<Param>,
    pub structs: Arc<StructTable>,
    pub layout: ArgLayout,
    /// `(param index, axis)`: the array parameter's length on `axis` must
    /// be at least the launch's thread count (see the module docs).
    pub tid_indexed: Vec<(usize, u8)>,
}

impl KernelSig {
    /// The signature of kernel `func` of `module`.
    pub fn from_module(module: &Module, func: FuncId, structs: Arc<StructTable>) -> KernelSig {
        let f = &module.funcs[func];
        let types: Vec<_> = f.params.iter().map(|p| p.ty).collect();
        KernelSig {
            name: f.name.clone(),
            params: f.params.clone(),
            layout: arg_layout(&types, &structs),
            structs,
            tid_indexed: tid_indexed_accesses(f),
        }
    }
}

/// `(param index, axis)` pairs of the array-length rule (module docs).
pub fn tid_indexed_accesses(f: &Function) -> Vec<(usize, u8)> {
    let params = f.param_values();
    let mut out = Vec::new();
    for &inst in &f.regions[f.body].insts {
        let kind = &f.insts[inst].kind;
        let mem = match kind {
            InstKind::Load(m) | InstKind::Store(m, _) | InstKind::Atomic(_, m, _) => Some(m),
            _ => None,
        };
        if let Some(m) = mem {
            if let Some(p) = params.iter().position(|&v| v == m.array) {
                for (axis, &idx) in m.indices.iter().enumerate() {
                    if is_thread_id(f, idx) && !out.contains(&(p, axis as u8)) {
                        out.push((p, axis as u8));
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

/// Whether `v` is the thread index or an integer widening of it.
fn is_thread_id(f: &Function, v: Value) -> bool {
    let ValueDef::Result(inst, _) = f.values[v].def else {
        return false;
    };
    match &f.insts[inst].kind {
        InstKind::ThreadId => true,
        InstKind::Cast(x, to) => {
            // ThreadId is in 0..=i32::MAX: every integer type of 32 bits
            // or more holds it unchanged.
            to.is_int() && to.bits() >= 32 && is_thread_id(f, *x)
        }
        _ => false,
    }
}

fn contains_return(f: &Function, r: Region) -> bool {
    f.regions[r].insts.iter().any(|&i| {
        let k = &f.insts[i].kind;
        matches!(k, InstKind::Return(_)) || k.regions().iter().any(|&s| contains_return(f, s))
    })
}
