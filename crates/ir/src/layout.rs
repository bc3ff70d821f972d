//! Memory layout of IR types (C layout, as Warp's) and the kernel argument
//! block shared by every backend and the runtime.
//!
//! # Data layout
//!
//! * scalars: their size, aligned to their size (bool: 1 byte, 0 or 1);
//! * vectors, quaternions, transforms: N packed scalars, aligned as the scalar;
//! * matrices: R×C packed scalars, row-major, aligned as the scalar;
//! * structs: fields in order, each at its alignment; the size is padded to
//!   the largest field alignment.
//!
//! # Kernel argument block
//!
//! A kernel is launched with a pointer to one byte block laid out as a C
//! struct: first [`LaunchBounds`] (the launch dims, 4 × `i32`, 16 bytes), then
//! each parameter in declaration order at its alignment. A scalar, vector,
//! matrix or struct parameter is stored by value in its data layout. An array
//! parameter is an [`ArrayDesc`]: data pointer (8 bytes), `shape: [i32; 4]`,
//! `strides: [i64; 4]` in bytes (56 bytes, align 8); unused axes have shape 1
//! and stride 0.

use crate::types::{ElemType, Scalar, StructTable, Type};

/// Byte size and alignment of a type's in-memory layout. Arrays are laid out
/// as their [`ArrayDesc`].
pub fn size_align(ty: Type, structs: &StructTable) -> (u32, u32) {
    match ty {
        Type::Scalar(s) => (s.size(), s.size()),
        Type::Vec(n, s) => (n as u32 * s.size(), s.size()),
        Type::Mat(r, c, s) => (r as u32 * c as u32 * s.size(), s.size()),
        Type::Quat(s) => (4 * s.size(), s.size()),
        Type::Transform(s) => (7 * s.size(), s.size()),
        Type::Array(_) => (ARRAY_DESC_SIZE, 8),
        Type::Struct(id) => {
            let Some(def) = structs.get(id) else {
                return (0, 1);
            };
            let mut off = 0u32;
            let mut align = 1u32;
            for f in &def.fields {
                let (s, a) = size_align(f.ty, structs);
                off = align_to(off, a) + s;
                align = align.max(a);
            }
            (align_to(off, align), align)
        }
    }
}

pub fn size_of(ty: Type, structs: &StructTable) -> u32 {
    size_align(ty, structs).0
}

pub fn elem_size(e: ElemType, structs: &StructTable) -> u32 {
    size_of(Type::from(e), structs)
}

/// Rounds `off` up to a multiple of `align` (a power of two, or 1).
pub fn align_to(off: u32, align: u32) -> u32 {
    off.div_ceil(align.max(1)) * align.max(1)
}

/// Byte offset of the direct component `index` of an aggregate, and its type.
pub fn component_offset(ty: Type, index: u32, structs: &StructTable) -> Option<(u32, Type)> {
    let comp = ty.project(index, structs)?;
    let off = match ty {
        Type::Struct(id) => {
            let def = structs.get(id)?;
            let mut off = 0u32;
            for (i, f) in def.fields.iter().enumerate() {
                let (s, a) = size_align(f.ty, structs);
                off = align_to(off, a);
                if i as u32 == index {
                    break;
                }
                off += s;
            }
            off
        }
        _ => index * size_of(comp, structs),
    };
    Some((off, comp))
}

/// Byte offset of the component at `path`, and its type.
pub fn path_offset(ty: Type, path: &[u32], structs: &StructTable) -> Option<(u32, Type)> {
    let mut off = 0;
    let mut t = ty;
    for &i in path {
        let (o, c) = component_offset(t, i, structs)?;
        off += o;
        t = c;
    }
    Some((off, t))
}

/// One scalar leaf of a flattened type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// Path from the type's root to this scalar.
    pub path: Vec<u32>,
    pub offset: u32,
    pub scalar: Scalar,
}

/// All scalar leaves of a type in path order (which is also memory order).
/// A scalar has one leaf with an empty path. Arrays have none.
pub fn leaves(ty: Type, structs: &StructTable) -> Vec<Leaf> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    collect_leaves(ty, structs, 0, &mut path, &mut out);
    out
}

fn collect_leaves(
    ty: Type,
    structs: &StructTable,
    base: u32,
    path: &mut Vec<u32>,
    out: &mut Vec<Leaf>,
) {
    match ty {
        Type::Scalar(s) => out.push(Leaf {
            path: path.clone(),
            offset: base,
            scalar: s,
        }),
        Type::Array(_) => {}
        _ => {
            for i in 0..ty.arity(structs) {
                if let Some((off, comp)) = component_offset(ty, i, structs) {
                    path.push(i);
                    collect_leaves(comp, structs, base + off, path, out);
                    path.pop();
                }
            }
        }
    }
}

/// Number of scalar leaves of a type.
pub fn leaf_count(ty: Type, structs: &StructTable) -> usize {
    match ty {
        Type::Scalar(_) => 1,
        Type::Array(_) => 0,
        Type::Vec(n, _) => n as usize,
        Type::Quat(_) => 4,
        Type::Transform(_) => 7,
        Type::Mat(r, c, _) => r as usize * c as usize,
        Type::Struct(_) => leaves(ty, structs).len(),
    }
}

/// What one flat slot of a value holds.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum SlotKind {
    Scalar(Scalar),
    /// An array's data pointer (8 bytes).
    Data,
    /// An array's shape along an axis (`i32`).
    Shape(u8),
    /// An array's byte stride along an axis (`i64`).
    Stride(u8),
}

/// One flat slot of a value: its kind and byte offset in the type's layout.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Slot {
    pub kind: SlotKind,
    pub offset: u32,
}

/// The flat scalar slots of a value in the argument block, arrays as their
/// descriptor's fields (data, then `ndim` shapes, then `ndim` strides), in
/// path order (which is also memory order).
pub fn slots(ty: Type, structs: &StructTable) -> Vec<Slot> {
    let mut out = Vec::new();
    collect_slots(ty, structs, 0, &mut out);
    out
}

fn collect_slots(ty: Type, structs: &StructTable, base: u32, out: &mut Vec<Slot>) {
    match ty {
        Type::Scalar(s) => out.push(Slot {
            kind: SlotKind::Scalar(s),
            offset: base,
        }),
        Type::Array(a) => {
            out.push(Slot {
                kind: SlotKind::Data,
                offset: base,
            });
            for k in 0..a.ndim {
                out.push(Slot {
                    kind: SlotKind::Shape(k),
                    offset: base + ARRAY_DESC_SHAPE + 4 * k as u32,
                });
            }
            for k in 0..a.ndim {
                out.push(Slot {
                    kind: SlotKind::Stride(k),
                    offset: base + ARRAY_DESC_STRIDES + 8 * k as u32,
                });
            }
        }
        _ => {
            for i in 0..ty.arity(structs) {
                if let Some((off, comp)) = component_offset(ty, i, structs) {
                    collect_slots(comp, structs, base + off, out);
                }
            }
        }
    }
}

/// The launch bounds at the start of every argument block.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchBounds {
    /// Launch dims; axes past the launch's dimensionality are 1.
    pub dim: [i32; 4],
}

/// Size of [`LaunchBounds`] in the argument block.
pub const LAUNCH_BOUNDS_SIZE: u32 = 16;

/// An array parameter in the argument block.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ArrayDesc {
    pub data: *mut u8,
    pub shape: [i32; 4],
    /// Byte strides per axis.
    pub strides: [i64; 4],
}

/// Size of [`ArrayDesc`].
pub const ARRAY_DESC_SIZE: u32 = 56;
/// Offset of `shape` in [`ArrayDesc`].
pub const ARRAY_DESC_SHAPE: u32 = 8;
/// Offset of `strides` in [`ArrayDesc`].
pub const ARRAY_DESC_STRIDES: u32 = 24;

/// Where each kernel parameter lives in the argument block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgLayout {
    /// Byte offset of each parameter, in declaration order.
    pub offsets: Vec<u32>,
    /// Total size of the block.
    pub size: u32,
    /// Alignment of the block (at least 8).
    pub align: u32,
}

/// Computes the argument block layout for a kernel's parameter types.
pub fn arg_layout(params: &[Type], structs: &StructTable) -> ArgLayout {
    let mut off = LAUNCH_BOUNDS_SIZE;
    let mut align = 8;
    let mut offsets = Vec::with_capacity(params.len());
    for &t in params {
        let (s, a) = size_align(t, structs);
        off = align_to(off, a);
        offsets.push(off);
        off += s;
        align = align.max(a);
    }
    ArgLayout {
        offsets,
        size: align_to(off, align),
        align,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Field, StructDef};

    #[test]
    fn struct_layout_is_c_aligned() {
        let mut st = StructTable::new();
        let id = st.push(StructDef {
            name: "P".into(),
            fields: vec![
                Field {
                    name: "a".into(),
                    ty: Type::Scalar(Scalar::U8),
                },
                Field {
                    name: "b".into(),
                    ty: Type::Vec(3, Scalar::F32),
                },
                Field {
                    name: "c".into(),
                    ty: Type::Scalar(Scalar::F64),
                },
            ],
        });
        assert_eq!(size_align(Type::Struct(id), &st), (24, 8));
        assert_eq!(
            path_offset(Type::Struct(id), &[1, 2], &st),
            Some((12, Type::F32))
        );
        assert_eq!(
            path_offset(Type::Struct(id), &[2], &st),
            Some((16, Type::F64))
        );
        let l = leaves(Type::Struct(id), &st);
        assert_eq!(l.len(), 5);
        assert_eq!(l[4].offset, 16);
    }

    #[test]
    fn matrix_rows_are_contiguous() {
        let st = StructTable::new();
        let m = Type::Mat(3, 3, Scalar::F32);
        assert_eq!(path_offset(m, &[1, 2], &st), Some((20, Type::F32)));
        assert_eq!(std::mem::size_of::<ArrayDesc>() as u32, ARRAY_DESC_SIZE);
    }

    #[test]
    fn array_slots_are_descriptor_fields() {
        use crate::types::ArrayType;
        let mut st = StructTable::new();
        let arr = Type::Array(ArrayType {
            elem: ElemType::Scalar(Scalar::F32),
            ndim: 2,
        });
        let id = st.push(StructDef {
            name: "S".into(),
            fields: vec![
                Field {
                    name: "a".into(),
                    ty: Type::Scalar(Scalar::I32),
                },
                Field {
                    name: "b".into(),
                    ty: arr,
                },
            ],
        });
        let kinds: Vec<(SlotKind, u32)> = slots(Type::Struct(id), &st)
            .iter()
            .map(|s| (s.kind, s.offset))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (SlotKind::Scalar(Scalar::I32), 0),
                (SlotKind::Data, 8),
                (SlotKind::Shape(0), 16),
                (SlotKind::Shape(1), 20),
                (SlotKind::Stride(0), 32),
                (SlotKind::Stride(1), 40),
            ]
        );
    }
}
