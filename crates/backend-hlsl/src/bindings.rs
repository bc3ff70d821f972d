//! The binding layout of an HLSL kernel: which register holds which
//! parameter, and where every value lives in the constant buffer.
//!
//! # Resources
//!
//! * `b0` (Vulkan: set 0, binding 0): one constant buffer, declared in HLSL
//!   as `uint4 weft_cb[N]` — a plain run of [`CBufferLayout::size`] bytes
//!   whose contents are described by [`CBufferLayout`].
//! * `u<k>` (Vulkan: set 0, binding `k + 1`): the `k`-th array parameter of
//!   the kernel (in declaration order, counting arrays only), a
//!   `RWByteAddressBuffer` over the array's bytes. The shader addresses
//!   elements with the byte strides of the constant buffer, so any dtype,
//!   shape and stride works; the buffer must be at least 4 bytes long and
//!   its size a multiple of 4 (round the allocation up).
//! * `u<K>` (Vulkan: set 0, binding `K + 1`), `K` = the number of array
//!   parameters: the trap record of bounds-checked mode
//!   ([`BindingLayout::trap`]), a `RWByteAddressBuffer` of
//!   [`TRAP_RECORD_SIZE`] bytes. Only kernels that contain a
//!   `weft_ir::InstKind::Trap` (compiled with checks) have it; see
//!   [`TrapBinding`] for its contents.
//!
//! # Constant buffer
//!
//! Every offset is in bytes from the start of the buffer, little-endian:
//!
//! | offset | contents |
//! | --- | --- |
//! | 0 | launch dims, 4 × `i32` (axes past the launch's dimensionality are 1) |
//! | 16 | launch total: the product of the dims, `u32` |
//! | 20 | dispatch base: the linear thread index of this dispatch's thread 0, `u32` |
//! | 24 | zero: 8 bytes of 0, which shaders read as an opaque floating-point zero ([`CB_ZERO`]) |
//! | 32 | per array parameter, in order: `shape: [u32; 4]` then `strides: [u32; 4]` (bytes; unused axes: shape 1, stride 0) — see [`CBufferArray`] |
//! | … | every scalar leaf of every non-array parameter, in parameter order then path order — see [`CBufferField`] |
//!
//! Leaf encoding: a scalar of 4 bytes or fewer fills one 4-byte slot at a
//! 4-byte-aligned offset — `bool`, `u8`, `u16` zero-extended to 32 bits,
//! `i8`, `i16` sign-extended, `f16` its binary16 bits zero-extended, `i32`,
//! `u32`, `f32` as they are. A 64-bit scalar fills 8 bytes at an 8-aligned
//! offset, low word first. The total size is rounded up to 16 bytes.
//!
//! [`BindingLayout::pack_cbuffer`] fills the buffer from the kernel argument
//! block of `weft_ir::layout` (the ABI shared with the other backends).

use crate::HlslError;
use weft_ir::layout::{self, ARRAY_DESC_SHAPE, ARRAY_DESC_STRIDES};
use weft_ir::{Function, InstKind, Loc, Region, Scalar, StructTable, TrapKind, Type};

/// Byte offset of the launch dims (`[i32; 4]`) in the constant buffer.
pub const CB_LAUNCH_DIM: u32 = 0;
/// Byte offset of the launch total (`u32`).
pub const CB_LAUNCH_TOTAL: u32 = 16;
/// Byte offset of the dispatch base (`u32`).
pub const CB_DISPATCH_BASE: u32 = 20;
/// Byte offset of 8 zero bytes: the shader's float zero constants (`0.0`,
/// `-0.0` in f16/f32/f64) read them from here, so that no compiler can
/// fold `x + 0.0` to `x` (lavapipe does, in spite of
/// `SignedZeroInfNanPreserve`; see docs/hlsl.md).
pub const CB_ZERO: u32 = 24;
/// Byte offset of the first array's shape.
pub const CB_ARRAYS: u32 = 32;

/// Where resources and values live; see the module docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingLayout {
    /// The constant buffer `b0`.
    pub cbuffer: CBufferLayout,
    /// HLSL register of the constant buffer: `b0`.
    pub cbuffer_register: u32,
    /// Vulkan descriptor set and binding of the constant buffer: (0, 0).
    pub cbuffer_set: u32,
    pub cbuffer_binding: u32,
    /// One per array parameter, in parameter order.
    pub arrays: Vec<ArrayBinding>,
    /// Size of the constant buffer in bytes (= `cbuffer.size`).
    pub total_cbuffer_size: u32,
    /// The trap record of a kernel compiled with bounds checks; `None`
    /// (and no such resource in the shader) otherwise.
    pub trap: Option<TrapBinding>,
}

/// The trap record of bounds-checked mode: a `RWByteAddressBuffer` of
/// [`TRAP_RECORD_SIZE`] bytes that the host zeroes before a launch and
/// reads after it ([`decode_trap_record`]). Little-endian, the same layout
/// as the NVPTX backend's `__weft_trap` plus the thread index:
///
/// | offset | field | |
/// |---|---|---|
/// | 0  | `u32 flag`   | 0: no failure; the first failing thread sets it to 1 (`InterlockedCompareExchange`) |
/// | 4  | `u32 code`   | [`TrapKind::code`] |
/// | 8  | `u32 file`   | index into the module's files |
/// | 12 | `u32 line`   | |
/// | 16 | `u32 col`    | |
/// | 20 | `u32 thread` | linear thread index of the failing thread |
/// | 24 | `i64 index`  | out of bounds: the index |
/// | 32 | `i64 size`   | out of bounds: the axis's size |
///
/// Only the thread that wins the flag writes the other fields; every
/// failing thread then returns without touching memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrapBinding {
    /// HLSL register `u<register>` (after the arrays').
    pub register: u32,
    /// Vulkan descriptor set (always 0).
    pub set: u32,
    /// Vulkan binding (`register + 1`).
    pub binding: u32,
}

/// Size of the trap record in bytes (see [`TrapBinding`]).
pub const TRAP_RECORD_SIZE: usize = 40;

/// A failure read back from a trap record (see [`TrapBinding`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TrapReport {
    pub kind: TrapKind,
    /// Location of the failed check (`file` indexes the module's files).
    pub loc: Loc,
    /// Linear index of the failing thread.
    pub thread: u32,
    /// Out of bounds: the index and the axis's size (0 otherwise).
    pub index: i64,
    pub size: i64,
}

/// The failure a trap record holds: `None` when its flag is clear, the
/// bytes are too short or the code is unknown.
pub fn decode_trap_record(bytes: &[u8]) -> Option<TrapReport> {
    let u32_at = |o: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(o..o + 4)?.try_into().ok()?))
    };
    let i64_at = |o: usize| -> Option<i64> {
        Some(i64::from_le_bytes(bytes.get(o..o + 8)?.try_into().ok()?))
    };
    if u32_at(0)? == 0 {
        return None;
    }
    Some(TrapReport {
        kind: TrapKind::from_code(u32_at(4)?)?,
        loc: Loc::new(u32_at(8)?, u32_at(12)?, u32_at(16)?),
        thread: u32_at(20)?,
        index: i64_at(24)?,
        size: i64_at(32)?,
    })
}

/// Whether region `r` of `f` (or a region nested in it) has a `trap`.
fn has_trap(f: &Function, r: Region) -> bool {
    f.regions.get(r).is_some_and(|rd| {
        rd.insts.iter().any(|&i| {
            let k = &f.insts[i].kind;
            matches!(k, InstKind::Trap(..)) || k.regions().into_iter().any(|s| has_trap(f, s))
        })
    })
}

/// An array parameter bound as a `RWByteAddressBuffer`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayBinding {
    /// The parameter's name.
    pub param: String,
    /// Index of the parameter in the kernel's parameter list.
    pub param_index: usize,
    /// HLSL register `u<register>`.
    pub register: u32,
    /// Vulkan descriptor set (always 0).
    pub set: u32,
    /// Vulkan binding (`register + 1`; binding 0 is the constant buffer).
    pub binding: u32,
    /// Byte size of one element (C layout, as `weft_ir::layout`).
    pub elem_size: u32,
    /// Dimensionality of the array (1..=4).
    pub ndim: u8,
}

/// The contents of the constant buffer; see the module docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CBufferLayout {
    /// Offset of the launch dims, `[i32; 4]` ([`CB_LAUNCH_DIM`]).
    pub launch_dim_offset: u32,
    /// Offset of the launch total, `u32` ([`CB_LAUNCH_TOTAL`]).
    pub launch_total_offset: u32,
    /// Offset of the dispatch base, `u32` ([`CB_DISPATCH_BASE`]).
    pub dispatch_base_offset: u32,
    /// Shape and strides of each array parameter, in parameter order.
    pub arrays: Vec<CBufferArray>,
    /// Every scalar leaf of every non-array parameter.
    pub fields: Vec<CBufferField>,
    /// Total size in bytes, a multiple of 16.
    pub size: u32,
}

/// Shape and byte strides of one array parameter in the constant buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CBufferArray {
    pub param: String,
    pub param_index: usize,
    /// Offset of `shape: [u32; 4]`.
    pub shape_offset: u32,
    /// Offset of `strides: [u32; 4]`, in bytes, two's complement.
    pub strides_offset: u32,
    /// Offset of this parameter's `ArrayDesc` in the kernel argument block.
    pub arg_offset: u32,
}

/// One scalar leaf of a non-array parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CBufferField {
    pub param: String,
    pub param_index: usize,
    /// Path of the leaf inside the parameter's type (empty for a scalar),
    /// as in `weft_ir::layout::leaves`.
    pub path: Vec<u32>,
    /// Byte offset in the constant buffer.
    pub offset: u32,
    pub scalar: Scalar,
    /// Byte offset of this leaf in the kernel argument block.
    pub arg_offset: u32,
}

impl CBufferField {
    /// Bytes the leaf occupies in the constant buffer: 8 for 64-bit
    /// scalars, 4 otherwise.
    pub fn slot_size(&self) -> u32 {
        slot_size(self.scalar)
    }
}

fn slot_size(s: Scalar) -> u32 {
    if s.size() == 8 {
        8
    } else {
        4
    }
}

/// One dispatch of a launch split by [`BindingLayout::dispatches`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// Value of the dispatch base for this dispatch (a linear thread index).
    pub base: u32,
    /// Workgroups in x (`vkCmdDispatch(groups_x, 1, 1)`), at most 65 535.
    pub groups_x: u32,
}

/// The most workgroups one dispatch may have in x (D3D12 and Vulkan's
/// guaranteed minimum).
pub const MAX_GROUPS_X: u32 = 65_535;

/// Splits a launch of `total` threads into dispatches of at most
/// [`MAX_GROUPS_X`] workgroups of `group_size` threads; empty for 0.
pub fn dispatches(total: u32, group_size: u32) -> Vec<Dispatch> {
    let g = group_size.max(1) as u64;
    let groups = (total as u64).div_ceil(g);
    let mut out = Vec::new();
    let mut first = 0u64;
    while first < groups {
        let n = (groups - first).min(MAX_GROUPS_X as u64);
        out.push(Dispatch {
            base: (first * g) as u32,
            groups_x: n as u32,
        });
        first += n;
    }
    out
}

impl BindingLayout {
    /// Computes the layout of a kernel's parameters.
    pub(crate) fn new(f: &Function, structs: &StructTable) -> BindingLayout {
        let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
        let args = layout::arg_layout(&types, structs);
        let mut arrays = Vec::new();
        let mut cb_arrays = Vec::new();
        let mut off = CB_ARRAYS;
        for (i, p) in f.params.iter().enumerate() {
            if let Type::Array(a) = p.ty {
                let register = arrays.len() as u32;
                arrays.push(ArrayBinding {
                    param: p.name.clone(),
                    param_index: i,
                    register,
                    set: 0,
                    binding: register + 1,
                    elem_size: layout::elem_size(a.elem, structs),
                    ndim: a.ndim,
                });
                cb_arrays.push(CBufferArray {
                    param: p.name.clone(),
                    param_index: i,
                    shape_offset: off,
                    strides_offset: off + 16,
                    arg_offset: args.offsets[i],
                });
                off += 32;
            }
        }
        let mut fields = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            if p.ty.is_array() {
                continue;
            }
            for leaf in layout::leaves(p.ty, structs) {
                let size = slot_size(leaf.scalar);
                off = layout::align_to(off, size);
                fields.push(CBufferField {
                    param: p.name.clone(),
                    param_index: i,
                    path: leaf.path,
                    offset: off,
                    scalar: leaf.scalar,
                    arg_offset: args.offsets[i] + leaf.offset,
                });
                off += size;
            }
        }
        let size = layout::align_to(off, 16);
        let trap = has_trap(f, f.body).then(|| TrapBinding {
            register: arrays.len() as u32,
            set: 0,
            binding: arrays.len() as u32 + 1,
        });
        BindingLayout {
            cbuffer: CBufferLayout {
                launch_dim_offset: CB_LAUNCH_DIM,
                launch_total_offset: CB_LAUNCH_TOTAL,
                dispatch_base_offset: CB_DISPATCH_BASE,
                arrays: cb_arrays,
                fields,
                size,
            },
            cbuffer_register: 0,
            cbuffer_set: 0,
            cbuffer_binding: 0,
            arrays,
            total_cbuffer_size: size,
            trap,
        }
    }

    /// Fills the constant buffer from a kernel argument block laid out by
    /// `weft_ir::layout::arg_layout` (launch bounds, then the parameters;
    /// array data pointers are ignored), for the dispatch whose first
    /// thread is `dispatch_base`. Fails if the block is too short, the launch
    /// total exceeds `u32`, or a stride does not fit in 32 bits.
    pub fn pack_cbuffer(&self, arg_block: &[u8], dispatch_base: u32) -> Result<Vec<u8>, HlslError> {
        let cb = &self.cbuffer;
        let mut out = vec![0u8; cb.size as usize];
        let read = |off: u32, n: usize| -> Result<&[u8], HlslError> {
            arg_block
                .get(off as usize..off as usize + n)
                .ok_or_else(|| {
                    HlslError::Pack(format!(
                        "argument block too short: {} bytes",
                        arg_block.len()
                    ))
                })
        };
        let mut total: u64 = 1;
        for axis in 0..4u32 {
            let b = read(axis * 4, 4)?;
            let d = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            if d < 0 {
                return Err(HlslError::Pack(format!("negative launch dim {d}")));
            }
            total *= d as u64;
            put(&mut out, cb.launch_dim_offset + axis * 4, b);
        }
        let total = u32::try_from(total)
            .map_err(|_| HlslError::Pack(format!("launch of {total} threads exceeds u32")))?;
        put(&mut out, cb.launch_total_offset, &total.to_le_bytes());
        put(
            &mut out,
            cb.dispatch_base_offset,
            &dispatch_base.to_le_bytes(),
        );
        for a in &cb.arrays {
            for axis in 0..4u32 {
                let s = read(a.arg_offset + ARRAY_DESC_SHAPE + axis * 4, 4)?;
                put(&mut out, a.shape_offset + axis * 4, s);
                let b = read(a.arg_offset + ARRAY_DESC_STRIDES + axis * 8, 8)?;
                let st = i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                if !(i32::MIN as i64..=u32::MAX as i64).contains(&st) {
                    return Err(HlslError::Pack(format!(
                        "stride {st} of array `{}` does not fit in 32 bits",
                        a.param
                    )));
                }
                put(
                    &mut out,
                    a.strides_offset + axis * 4,
                    &(st as u32).to_le_bytes(),
                );
            }
        }
        for f in &cb.fields {
            let b = read(f.arg_offset, f.scalar.size() as usize)?;
            let word: [u8; 8] = match f.scalar {
                Scalar::I8 => (b[0] as i8 as i64).to_le_bytes(),
                Scalar::I16 => (i16::from_le_bytes([b[0], b[1]]) as i64).to_le_bytes(),
                _ => {
                    let mut w = [0u8; 8];
                    w[..b.len()].copy_from_slice(b);
                    w
                }
            };
            put(&mut out, f.offset, &word[..f.slot_size() as usize]);
        }
        Ok(out)
    }

    /// The dispatches of a launch of `total` threads with workgroups of
    /// `group_size` threads; see [`dispatches`].
    pub fn dispatches(&self, total: u32, group_size: u32) -> Vec<Dispatch> {
        dispatches(total, group_size)
    }
}

fn put(out: &mut [u8], off: u32, bytes: &[u8]) {
    out[off as usize..off as usize + bytes.len()].copy_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::{ArrayType, ElemType, FuncKind, Param};

    #[test]
    fn dispatch_split_covers_the_launch() {
        assert!(dispatches(0, 64).is_empty());
        assert_eq!(
            dispatches(100, 64),
            vec![Dispatch {
                base: 0,
                groups_x: 2
            }]
        );
        let d = dispatches(65_536 * 64 + 1, 64);
        assert_eq!(d.len(), 2);
        assert_eq!(
            d[0],
            Dispatch {
                base: 0,
                groups_x: 65_535
            }
        );
        assert_eq!(
            d[1],
            Dispatch {
                base: 65_535 * 64,
                groups_x: 2
            }
        );
    }

    #[test]
    fn trap_records_decode() {
        let mut b = vec![0u8; TRAP_RECORD_SIZE];
        assert_eq!(decode_trap_record(&b), None, "flag clear");
        b[0..4].copy_from_slice(&1u32.to_le_bytes());
        b[4..8].copy_from_slice(&1u32.to_le_bytes());
        b[8..12].copy_from_slice(&2u32.to_le_bytes());
        b[12..16].copy_from_slice(&7u32.to_le_bytes());
        b[16..20].copy_from_slice(&12u32.to_le_bytes());
        b[20..24].copy_from_slice(&99u32.to_le_bytes());
        b[24..32].copy_from_slice(&(-1i64).to_le_bytes());
        b[32..40].copy_from_slice(&16i64.to_le_bytes());
        assert_eq!(
            decode_trap_record(&b),
            Some(TrapReport {
                kind: TrapKind::OutOfBounds { axis: 1 },
                loc: Loc::new(2, 7, 12),
                thread: 99,
                index: -1,
                size: 16,
            })
        );
        assert_eq!(decode_trap_record(&b[..39]), None, "too short");
        b[4..8].copy_from_slice(&0x999u32.to_le_bytes());
        assert_eq!(decode_trap_record(&b), None, "unknown code");
    }

    #[test]
    fn packs_arrays_and_scalars() {
        let st = StructTable::new();
        let arr = Type::Array(ArrayType {
            elem: ElemType::Scalar(Scalar::F32),
            ndim: 2,
        });
        let f = Function::new(
            "k",
            FuncKind::Kernel,
            vec![
                Param {
                    name: "a".into(),
                    ty: arr,
                },
                Param {
                    name: "n".into(),
                    ty: Type::Scalar(Scalar::I8),
                },
                Param {
                    name: "d".into(),
                    ty: Type::F64,
                },
            ],
            vec![],
        );
        let b = BindingLayout::new(&f, &st);
        assert_eq!(b.arrays[0].binding, 1);
        assert_eq!(b.cbuffer.fields[0].offset, 64);
        assert_eq!(b.cbuffer.fields[1].offset, 72);
        assert_eq!(b.total_cbuffer_size, 80);
        assert_eq!(b.trap, None, "no trap record without checks");
        let al = layout::arg_layout(&[arr, Type::Scalar(Scalar::I8), Type::F64], &st);
        let mut block = vec![0u8; al.size as usize];
        block[0..4].copy_from_slice(&3i32.to_le_bytes());
        block[4..8].copy_from_slice(&5i32.to_le_bytes());
        block[8..12].copy_from_slice(&1i32.to_le_bytes());
        block[12..16].copy_from_slice(&1i32.to_le_bytes());
        let a = al.offsets[0] as usize;
        block[a + 8..a + 12].copy_from_slice(&3i32.to_le_bytes());
        block[a + 24..a + 32].copy_from_slice(&20i64.to_le_bytes());
        block[al.offsets[1] as usize] = 0xfe;
        block[al.offsets[2] as usize..][..8].copy_from_slice(&1.5f64.to_le_bytes());
        let cb = b.pack_cbuffer(&block, 128).unwrap();
        assert_eq!(&cb[16..20], &15u32.to_le_bytes());
        assert_eq!(&cb[20..24], &128u32.to_le_bytes());
        assert_eq!(&cb[32..36], &3u32.to_le_bytes());
        assert_eq!(&cb[48..52], &20u32.to_le_bytes());
        assert_eq!(&cb[64..68], &(-2i32).to_le_bytes());
        assert_eq!(&cb[72..80], &1.5f64.to_le_bytes());
        block[a + 24..a + 32].copy_from_slice(&(1i64 << 40).to_le_bytes());
        assert!(matches!(b.pack_cbuffer(&block, 0), Err(HlslError::Pack(_))));
        assert!(matches!(
            b.pack_cbuffer(&block[..8], 0),
            Err(HlslError::Pack(_))
        ));
    }
}
