//! `soa`: structure-of-arrays layout of kernel array parameters.
//!
//! An array of aggregates is stored, by default, as an array of structures
//! (AoS, Warp's layout: each element whole, in its C layout). This pass
//! lays chosen kernel array parameters out as a structure of arrays (SoA):
//! one plane of scalars per scalar slot of the element type. It is the one
//! place that computes SoA addressing; backends see ordinary arrays.
//!
//! # The lowering
//!
//! A parameter `p: arrayD<T>` — `T` an aggregate whose scalar leaves
//! ([`weft_ir::layout::leaves`]) are all of one scalar type `S` (a vector,
//! matrix, quaternion, transform, or a struct of those and of `S`), and
//! `D ≤ 3` — becomes `p: array(D+1)<S>`: the first `D` axes are the user's,
//! the last selects the slot, in leaf (= [`weft_ir::layout::slots`]) order.
//! The kernel records it in [`weft_ir::Function::soa_params`]
//! (`SoaParam { param, elem: T, ndim: D }`); the runtime passes a
//! descriptor with `shape[D]` = the number of slots and `strides[D]` = the
//! byte distance between planes, the user axes' strides being those of a
//! plane.
//!
//! Every use of the parameter is rewritten (`k` is a slot, as an `i32`
//! constant; a path selects a sub-aggregate or a scalar of `T`):
//!
//! * `load p[i..].path` → one `load p[i.., k]` per slot under `path`, then
//!   `make`s (nested as the type needs) rebuilding the value;
//! * `store p[i..].path, v` → `extract` each slot of `v` (`v` itself when it
//!   is a scalar) and `store p[i.., k]`;
//! * `atomic op p[i..].path, v` → one atomic per slot (aggregate atomics
//!   are per component in the IR anyway), the old value rebuilt by `make`s;
//! * `array_shape p, a` (`a < D`) is unchanged.
//!
//! A call that passes the array to a func cannot keep it (the func's
//! parameter is AoS): the kernel's calls are inlined first (all of them,
//! level by level, until no call receives an SoA array), at every
//! optimization level — so at `-O0` a kernel with an SoA array passed to a
//! func is debugged with that func inlined. An SoA array flowing through
//! control flow (`yield`, `break`, `continue`, loop init values) is
//! rejected with [`PassError::Unsupported`]; the frontend never produces it.
//!
//! # Which parameters
//!
//! [`LayoutOptions`]: per parameter, an entry of
//! [`LayoutOptions::params`] wins over the source hint
//! ([`weft_ir::Function::layout_hints`], written `# weft: layout=soa` on
//! the parameter's line), which wins over [`LayoutOptions::default`]. The
//! default only applies to eligible arrays (ineligible ones stay AoS); an
//! explicit request (entry or hint) for an ineligible array is a
//! [`PassError::Layout`] that says why. With nothing SoA the pass does not
//! touch the module.

use crate::{callgraph, inline, walk, Pass, PassError};
use std::collections::{HashMap, HashSet};
use weft_ir::{
    layout, ArrayLayout, ArrayType, Const, DisplayType, ElemType, FuncId, FuncKind, Function, Inst,
    InstKind, Loc, MemAccess, Module, Region, Scalar, SoaParam, StructTable, Type, Value, ValueDef,
};

/// Which kernel array parameters are laid out structure of arrays.
///
/// Precedence, per parameter: an entry of `params` > the source hint
/// ([`weft_ir::Function::layout_hints`]) > `default`. The default value
/// (every field default) keeps every array AoS, and the `soa` pass is then
/// a no-op (unless the source has hints).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayoutOptions {
    /// Layout for every eligible array parameter without a more specific
    /// choice (default [`ArrayLayout::Aos`]). Ineligible arrays (scalar
    /// elements, structs mixing scalar types, 4-d arrays) stay AoS.
    pub default: ArrayLayout,
    /// Per parameter: `(kernel name, param name, layout)`; overrides hints
    /// and `default`. Asking SoA of an ineligible array is an error, and
    /// so is an entry naming a param the kernel does not have; an entry
    /// for a kernel the module does not have is ignored.
    pub params: Vec<(String, String, ArrayLayout)>,
}

impl LayoutOptions {
    /// Whether these options may make any parameter SoA, whatever the
    /// module (the source hints aside): the default is SoA, or an entry
    /// asks for SoA.
    pub fn requests_soa(&self) -> bool {
        self.default == ArrayLayout::Soa
            || self.params.iter().any(|(_, _, l)| *l == ArrayLayout::Soa)
    }
}

/// The `soa` pass (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct Soa {
    pub options: LayoutOptions,
}

impl Pass for Soa {
    fn name(&self) -> &'static str {
        "soa"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        lower_soa(m, &self.options)
    }
}

/// The one scalar type of an SoA-eligible element type, or why it is not
/// eligible (`"struct `Body` mixes f32 and i32 fields"`).
pub fn soa_scalar(elem: ElemType, structs: &StructTable) -> Result<Scalar, String> {
    let ty = Type::from(elem);
    if let ElemType::Scalar(s) = elem {
        return Err(format!("its elements are scalars ({s}), already one plane"));
    }
    let leaves = layout::leaves(ty, structs);
    let Some(first) = leaves.first() else {
        return Err(format!(
            "its element type {} has no scalar fields",
            DisplayType(ty, structs)
        ));
    };
    if let Some(other) = leaves.iter().find(|l| l.scalar != first.scalar) {
        let what = match elem {
            ElemType::Struct(id) => format!(
                "struct `{}`",
                structs.get(id).map_or("?", |d| d.name.as_str())
            ),
            _ => DisplayType(ty, structs).to_string(),
        };
        return Err(format!(
            "{what} mixes {} and {} fields",
            first.scalar, other.scalar
        ));
    }
    Ok(first.scalar)
}

/// Why an array type cannot be laid out SoA, or its scalar.
fn eligible(at: ArrayType, structs: &StructTable) -> Result<Scalar, String> {
    let s = soa_scalar(at.elem, structs)?;
    if at.ndim as usize >= weft_ir::types::MAX_DIMS {
        return Err(format!(
            "it has {} dimensions; SoA needs one more axis for the slots (at most {})",
            at.ndim,
            weft_ir::types::MAX_DIMS - 1
        ));
    }
    Ok(s)
}

/// A kernel array parameter that becomes SoA.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct SoaChoice {
    /// Index into the kernel's params.
    pub param: u32,
    /// The user's element type.
    pub elem: ElemType,
    /// The user's dimensionality.
    pub ndim: u8,
    /// The one scalar type of `elem`.
    pub scalar: Scalar,
}

/// The parameters of kernel `f` that become SoA under `opts` (none for a
/// func, or a kernel already lowered).
pub fn soa_choices(
    m: &Module,
    f: &Function,
    opts: &LayoutOptions,
) -> Result<Vec<SoaChoice>, PassError> {
    let mut out = Vec::new();
    if f.kind != FuncKind::Kernel || !f.soa_params.is_empty() {
        return Ok(out);
    }
    let err = |param: &str, reason: String| PassError::Layout {
        kernel: f.name.clone(),
        param: param.to_string(),
        reason,
    };
    for (_, pname, _) in opts.params.iter().filter(|(k, _, _)| *k == f.name) {
        if !f.params.iter().any(|p| p.name == *pname) {
            return Err(err(pname, "the kernel has no such parameter".into()));
        }
    }
    for (i, p) in f.params.iter().enumerate() {
        let entry = opts
            .params
            .iter()
            .rev()
            .find(|(k, n, _)| *k == f.name && *n == p.name)
            .map(|e| e.2);
        let hint = f
            .layout_hints
            .iter()
            .rev()
            .find(|(pi, _)| *pi as usize == i)
            .map(|h| h.1);
        let explicit = entry.or(hint);
        let layout = explicit.unwrap_or(opts.default);
        if layout != ArrayLayout::Soa {
            continue;
        }
        let Type::Array(at) = p.ty else {
            if explicit.is_some() {
                return Err(err(&p.name, "it is not an array".into()));
            }
            continue;
        };
        match eligible(at, &m.structs) {
            Ok(scalar) => out.push(SoaChoice {
                param: i as u32,
                elem: at.elem,
                ndim: at.ndim,
                scalar,
            }),
            Err(reason) if explicit.is_some() => return Err(err(&p.name, reason)),
            Err(_) => {}
        }
    }
    Ok(out)
}

/// Whether the `soa` pass would change `m` under `opts` (some kernel
/// parameter becomes SoA). Errors as [`lower_soa`] would.
pub fn needs_soa(m: &Module, opts: &LayoutOptions) -> Result<bool, PassError> {
    for (_, f) in m.kernels() {
        if !soa_choices(m, f, opts)?.is_empty() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether any kernel of `m` carries a source layout hint asking for SoA.
pub fn has_soa_hints(m: &Module) -> bool {
    m.kernels()
        .any(|(_, f)| f.layout_hints.iter().any(|(_, l)| *l == ArrayLayout::Soa))
}

/// Runs the pass: lowers the parameters [`soa_choices`] picks in every
/// kernel. Returns whether the module changed.
pub fn lower_soa(m: &mut Module, opts: &LayoutOptions) -> Result<bool, PassError> {
    let mut plan: Vec<(FuncId, Vec<SoaChoice>)> = Vec::new();
    for (id, f) in m.kernels() {
        let c = soa_choices(m, f, opts)?;
        if !c.is_empty() {
            plan.push((id, c));
        }
    }
    if plan.is_empty() {
        return Ok(false);
    }
    let mut inlined = false;
    for (kid, choices) in &plan {
        inlined |= inline_array_calls(m, *kid, choices)?;
        let structs = m.structs.clone();
        lower_kernel(&mut m.funcs[*kid], &structs, choices)?;
    }
    if inlined {
        inline::remove_uncalled_funcs(m);
    }
    Ok(true)
}

/// Inlines the calls of kernel `kid`, level by level, until no call
/// receives one of the chosen array params. Returns whether it inlined.
fn inline_array_calls(
    m: &mut Module,
    kid: FuncId,
    choices: &[SoaChoice],
) -> Result<bool, PassError> {
    let arrays: HashSet<Value> = {
        let f = &m.funcs[kid];
        choices
            .iter()
            .map(|c| f.param_values()[c.param as usize])
            .collect()
    };
    let passes_array = |f: &Function| {
        walk::all_insts(f).into_iter().any(|i| {
            matches!(&f.insts[i].kind, InstKind::Call(_, args)
                if args.iter().any(|a| arrays.contains(a)))
        })
    };
    if !passes_array(&m.funcs[kid]) {
        return Ok(false);
    }
    // Rejects recursion (which would inline forever) before inlining.
    callgraph::bottom_up_order(m)?;
    while passes_array(&m.funcs[kid]) {
        inline::inline_calls_in(m, kid)?;
    }
    Ok(true)
}

/// One SoA array of the kernel being lowered.
#[derive(Clone, Copy)]
struct SoaArray {
    /// The user-visible element type.
    elem: Type,
    scalar: Scalar,
}

fn lower_kernel(
    f: &mut Function,
    structs: &StructTable,
    choices: &[SoaChoice],
) -> Result<(), PassError> {
    let mut arrays: HashMap<Value, SoaArray> = HashMap::new();
    for &SoaChoice {
        param: i,
        elem,
        ndim,
        scalar,
    } in choices
    {
        let v = f.param_values()[i as usize];
        let ty = Type::Array(ArrayType {
            elem: ElemType::Scalar(scalar),
            ndim: ndim + 1,
        });
        f.params[i as usize].ty = ty;
        f.values[v].ty = ty;
        f.soa_params.push(SoaParam {
            param: i,
            elem,
            ndim,
        });
        arrays.insert(
            v,
            SoaArray {
                elem: Type::from(elem),
                scalar,
            },
        );
    }
    f.soa_params.sort_by_key(|p| p.param);
    let mut lw = Lower {
        structs,
        arrays,
        func_name: f.name.clone(),
    };
    lw.region(f, f.body)
}

struct Lower<'a> {
    structs: &'a StructTable,
    arrays: HashMap<Value, SoaArray>,
    func_name: String,
}

impl Lower<'_> {
    fn unsupported(&self, msg: &str) -> PassError {
        PassError::Unsupported {
            pass: "soa".into(),
            func: self.func_name.clone(),
            msg: msg.into(),
        }
    }

    fn malformed(&self, msg: &str) -> PassError {
        PassError::Malformed {
            pass: "soa".into(),
            func: self.func_name.clone(),
            msg: msg.into(),
        }
    }

    fn region(&mut self, f: &mut Function, r: Region) -> Result<(), PassError> {
        let old = std::mem::take(&mut f.regions[r].insts);
        let mut new = Vec::with_capacity(old.len());
        for inst in old {
            for sub in f.insts[inst].kind.regions() {
                self.region(f, sub)?;
            }
            self.inst(f, inst, &mut new)?;
        }
        f.regions[r].insts = new;
        Ok(())
    }

    /// Appends `inst`, or what replaces it, to `out`.
    fn inst(&mut self, f: &mut Function, inst: Inst, out: &mut Vec<Inst>) -> Result<(), PassError> {
        let kind = f.insts[inst].kind.clone();
        let access = kind
            .mem_access()
            .and_then(|m| self.arrays.get(&m.array).map(|arr| (m.clone(), *arr)));
        let Some((m, arr)) = access else {
            // Not an access to an SoA array: it may use one only as the
            // array of `array_shape`.
            let shape_of = match kind {
                InstKind::ArrayShape(a, _) => Some(a),
                _ => None,
            };
            if kind
                .args()
                .iter()
                .any(|a| self.arrays.contains_key(a) && Some(*a) != shape_of)
            {
                return Err(self.unsupported(
                    "an SoA array is used other than by load, store, atomic(_cas) or array_shape \
                     (passed through control flow or to a call)",
                ));
            }
            out.push(inst);
            return Ok(());
        };
        let loc = f.insts[inst].loc;
        if m.indices.iter().any(|i| self.arrays.contains_key(i)) {
            return Err(self.unsupported("an SoA array used as an index"));
        }
        let sub = arr
            .elem
            .project_path(&m.path, self.structs)
            .ok_or_else(|| self.malformed("a memory access path invalid for the element"))?;
        // The slots under `path`: contiguous in leaf order.
        let leaves = layout::leaves(arr.elem, self.structs);
        let first = leaves
            .iter()
            .position(|l| l.path.starts_with(&m.path))
            .ok_or_else(|| self.malformed("a memory access path with no scalar under it"))?;
        let n = layout::leaf_count(sub, self.structs);
        let slots: Vec<(u32, Vec<u32>)> = leaves[first..first + n]
            .iter()
            .map(|l| (first as u32, l.path[m.path.len()..].to_vec()))
            .enumerate()
            .map(|(k, (base, rel))| (base + k as u32, rel))
            .collect();
        let scalar_ty = Type::Scalar(arr.scalar);
        let mut e = Emit { f, out, loc };
        match kind {
            InstKind::Load(_) => {
                let mut parts = Vec::with_capacity(n);
                for (slot, _) in &slots {
                    let access = e.slot_access(&m, *slot);
                    parts.push(e.one(InstKind::Load(access), scalar_ty));
                }
                let result = e.f.insts[inst].results.first().copied();
                e.rebuild(self.structs, sub, &parts, result);
            }
            InstKind::Store(_, v) => {
                for (slot, rel) in &slots {
                    let x = e.component(v, rel, scalar_ty);
                    let access = e.slot_access(&m, *slot);
                    let st = e.f.create_inst(InstKind::Store(access, x), &[], loc);
                    e.out.push(st);
                }
            }
            InstKind::Atomic(op, _, v) => {
                let mut parts = Vec::with_capacity(n);
                for (slot, rel) in &slots {
                    let x = e.component(v, rel, scalar_ty);
                    let access = e.slot_access(&m, *slot);
                    parts.push(e.one(InstKind::Atomic(op, access, x), scalar_ty));
                }
                let result = e.f.insts[inst].results.first().copied();
                if let Some(r) = result {
                    e.rebuild(self.structs, sub, &parts, Some(r));
                }
            }
            InstKind::AtomicCas(_, c, v) => {
                // On a scalar: one slot, the instruction keeps its result.
                let [(slot, _)] = slots.as_slice() else {
                    return Err(self.malformed("atomic_cas on an aggregate"));
                };
                let access = e.slot_access(&m, *slot);
                e.f.insts[inst].kind = InstKind::AtomicCas(access, c, v);
                e.out.push(inst);
            }
            _ => return Err(self.malformed("not a memory access")),
        }
        Ok(())
    }
}

/// Appends new instructions at one location.
struct Emit<'a> {
    f: &'a mut Function,
    out: &'a mut Vec<Inst>,
    loc: Loc,
}

impl Emit<'_> {
    /// A new instruction with one result, appended; returns the result.
    fn one(&mut self, kind: InstKind, ty: Type) -> Value {
        let i = self.f.create_inst(kind, &[ty], self.loc);
        self.out.push(i);
        self.f.insts[i].results[0]
    }

    /// `m` with the slot index appended and the path dropped.
    fn slot_access(&mut self, m: &MemAccess, slot: u32) -> MemAccess {
        let k = self.one(
            InstKind::Const(Const::int(Scalar::I32, slot as i64)),
            Type::I32,
        );
        let mut indices = m.indices.clone();
        indices.push(k);
        MemAccess {
            array: m.array,
            indices,
            path: Vec::new(),
        }
    }

    /// The scalar at `rel` in `v` (`v` itself for an empty path).
    fn component(&mut self, v: Value, rel: &[u32], ty: Type) -> Value {
        if rel.is_empty() {
            v
        } else {
            self.one(InstKind::Extract(v, rel.to_vec()), ty)
        }
    }

    /// Builds a value of type `ty` from its scalar leaves (`parts`, in leaf
    /// order) with nested `make`s. The outermost value is `result` when
    /// given (the replaced instruction's result moves to the new one).
    fn rebuild(&mut self, structs: &StructTable, ty: Type, parts: &[Value], result: Option<Value>) {
        let mut it = parts.iter().copied();
        let v = self.build(structs, ty, &mut it, result.is_some());
        if let (Some(r), Some((inst, idx))) = (result, v) {
            self.f.insts[inst].results[idx as usize] = r;
            self.f.values[r].def = ValueDef::Result(inst, idx);
        }
    }

    /// Builds `ty`; with `detach`, the outermost instruction's result is
    /// left for the caller to replace and `(inst, index)` is returned.
    fn build(
        &mut self,
        structs: &StructTable,
        ty: Type,
        parts: &mut impl Iterator<Item = Value>,
        detach: bool,
    ) -> Option<(Inst, u32)> {
        let v = self.build_value(structs, ty, parts);
        if !detach {
            return None;
        }
        match self.f.values[v].def {
            // The value defined last (a `make`, or a scalar `load`/`atomic`
            // just emitted) is the last instruction appended.
            ValueDef::Result(inst, idx) if self.out.last() == Some(&inst) => Some((inst, idx)),
            _ => None,
        }
    }

    fn build_value(
        &mut self,
        structs: &StructTable,
        ty: Type,
        parts: &mut impl Iterator<Item = Value>,
    ) -> Value {
        if ty.is_scalar() {
            return parts.next().unwrap_or_else(|| Value::from_u32(u32::MAX));
        }
        let comps: Vec<Value> = (0..ty.arity(structs))
            .map(|k| {
                let sub = ty.project(k, structs).unwrap_or(ty);
                self.build_value(structs, sub, parts)
            })
            .collect();
        self.one(InstKind::Make(ty, comps), ty)
    }
}
