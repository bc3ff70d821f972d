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
//!   [`weft_abi::trap::record::SIZE`] bytes. Only kernels that contain a
//!   `weft_ir::InstKind::Trap` (compiled with checks) have it; see
//!   [`TrapBinding`] for its contents.
//! * next (`u<K>` or `u<K + 1>` after the trap record): the lock table of
//!   64-bit atomics ([`BindingLayout::locks`]), a `RWByteAddressBuffer` of
//!   [`LOCK_WORDS`] zeroed `u32` words. Only kernels with a 64-bit atomic
//!   that is not done word by word have it; see [`LockBinding`].
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

use crate::Error;
use weft_ir::layout::{self, ARRAY_DESC_SHAPE, ARRAY_DESC_STRIDES};
use weft_ir::{Function, Scalar, StructTable, Type};

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
    /// The lock table of a kernel with 64-bit atomics done under a lock;
    /// `None` (and no such resource) otherwise.
    pub locks: Option<LockBinding>,
    /// The arrays share one pooled buffer (`u0`, binding 1): the kernel
    /// would bind more storage buffers than
    /// [`Options::max_storage_buffers`](crate::Options::max_storage_buffers).
    /// Every [`ArrayBinding`] then names the pool's register and binding,
    /// and each array's elements start at its base
    /// ([`CBufferArray::base_offset`]) in the pool.
    pub pooled: bool,
}

/// Alignment in bytes of each array's base in the pool of a pooled kernel.
pub const POOL_ALIGN: u32 = 16;

/// Words in the lock table ([`LockBinding`]): a power of two.
pub const LOCK_WORDS: u32 = 4096;

/// The lock table of 64-bit atomics: a `RWByteAddressBuffer` of
/// 2 × [`LOCK_WORDS`] `u32` words, all 0 when a launch starts. A 64-bit
/// atomic on the element at byte offset `a` of its array's buffer uses
/// lock word `k = (a >> 3) % LOCK_WORDS` (at byte `4k`; 1 = held): it adds
/// 1 to the pending count of `k` (at byte `PENDING + 4k`), takes the lock
/// with a compare-exchange, reads, updates and writes the element,
/// subtracts 1 from the pending count and releases the lock. After a
/// complete launch every word is 0 again; a pending count left non-zero
/// ([`LockBinding::unfinished`]) means a driver ended a lock wait early
/// (lavapipe stops every loop after 65 535 iterations), so that atomic did
/// nothing and the launch's results are wrong. The hash does not depend on
/// which array it is, so one buffer bound to two parameters has one lock
/// per element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockBinding {
    /// HLSL register `u<register>` (after the arrays' and the trap record's).
    pub register: u32,
    /// Vulkan descriptor set (always 0).
    pub set: u32,
    /// Vulkan binding (`register + 1`).
    pub binding: u32,
    /// Size of the table in bytes: `8 * LOCK_WORDS`.
    pub size: u32,
}

impl LockBinding {
    /// Byte offset of the pending counts in the table.
    pub const PENDING: u32 = 4 * LOCK_WORDS;

    /// The atomics of a finished launch that never took their lock: the
    /// sum of the pending counts of `table` (the lock table's bytes).
    pub fn unfinished(table: &[u8]) -> u64 {
        let counts = table.get(Self::PENDING as usize..).unwrap_or_default();
        counts
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as u64)
            .sum()
    }
}

/// The trap record of bounds-checked mode: a `RWByteAddressBuffer` of
/// [`weft_abi::trap::record::SIZE`] bytes in the layout of [`weft_abi::trap::record`]
/// (the one every device target writes), which the host zeroes before a
/// launch and reads after it ([`weft_abi::trap::record::decode`]). The first failing thread
/// claims it with `InterlockedCompareExchange` on the flag; every failing
/// thread then returns without touching memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrapBinding {
    /// HLSL register `u<register>` (after the arrays').
    pub register: u32,
    /// Vulkan descriptor set (always 0).
    pub set: u32,
    /// Vulkan binding (`register + 1`).
    pub binding: u32,
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
    /// Pooled kernels only: offset of the `u32` byte offset of this array's
    /// first byte in the pool (a multiple of [`POOL_ALIGN`]), which the host
    /// writes with [`BindingLayout::pack_pool_bases`].
    pub base_offset: Option<u32>,
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
    /// Computes the layout of a kernel's parameters; `trap`: the kernel has
    /// traps (its `KernelInfo` says so) and gets a trap record; `locks`: it
    /// gets the lock table of 64-bit atomics. When one buffer per array
    /// plus those would exceed `max_storage` storage buffers, the arrays are
    /// pooled ([`BindingLayout::pooled`]).
    pub(crate) fn new(
        f: &Function,
        structs: &StructTable,
        trap: bool,
        locks: bool,
        max_storage: u32,
    ) -> BindingLayout {
        let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
        let args = layout::arg_layout(&types, structs);
        let n_arrays = f.params.iter().filter(|p| p.ty.is_array()).count() as u64;
        let storage = n_arrays + u64::from(trap) + u64::from(locks);
        let pooled = n_arrays > 1 && storage > max_storage as u64;
        let mut arrays = Vec::new();
        let mut cb_arrays = Vec::new();
        let mut off = CB_ARRAYS;
        for (i, p) in f.params.iter().enumerate() {
            if let Type::Array(a) = p.ty {
                let register = if pooled { 0 } else { arrays.len() as u32 };
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
                    base_offset: None,
                });
                off += 32;
            }
        }
        if pooled {
            for a in &mut cb_arrays {
                a.base_offset = Some(off);
                off += 4;
            }
        }
        // Registers after the arrays' (the pool's, when pooled).
        let first_extra = if pooled { 1 } else { arrays.len() as u32 };
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
        let trap = trap.then(|| TrapBinding {
            register: first_extra,
            set: 0,
            binding: first_extra + 1,
        });
        let locks = locks.then(|| {
            let register = first_extra + u32::from(trap.is_some());
            LockBinding {
                register,
                set: 0,
                binding: register + 1,
                size: 8 * LOCK_WORDS,
            }
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
            locks,
            pooled,
        }
    }

    /// The Vulkan bindings of every storage buffer, in register order: the
    /// arrays, then the trap record and the lock table where the kernel
    /// has them.
    pub fn storage_bindings(&self) -> impl Iterator<Item = u32> + '_ {
        let n = if self.pooled { 1 } else { self.arrays.len() };
        let arrays = self.arrays.iter().take(n).map(|a| a.binding);
        arrays
            .chain(self.trap.as_ref().map(|t| t.binding))
            .chain(self.locks.as_ref().map(|l| l.binding))
    }

    /// Fills the constant buffer from a kernel argument block laid out by
    /// `weft_ir::layout::arg_layout` (launch bounds, then the parameters;
    /// array data pointers are ignored), for the dispatch whose first
    /// thread is `dispatch_base`. Fails if the block is too short, the launch
    /// total exceeds `u32`, or a stride does not fit in 32 bits.
    pub fn pack_cbuffer(&self, arg_block: &[u8], dispatch_base: u32) -> Result<Vec<u8>, Error> {
        let cb = &self.cbuffer;
        let mut out = vec![0u8; cb.size as usize];
        let read = |off: u32, n: usize| -> Result<&[u8], Error> {
            arg_block
                .get(off as usize..off as usize + n)
                .ok_or_else(|| {
                    Error::Pack(format!(
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
                return Err(Error::Pack(format!("negative launch dim {d}")));
            }
            total *= d as u64;
            put(&mut out, cb.launch_dim_offset + axis * 4, b);
        }
        let total = u32::try_from(total)
            .map_err(|_| Error::Pack(format!("launch of {total} threads exceeds u32")))?;
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
                    return Err(Error::Pack(format!(
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

    /// Writes the pool bases of a pooled kernel into its packed constant
    /// buffer `cb`: `bases[k]`, the byte offset of array binding `k` in the
    /// pool, a multiple of [`POOL_ALIGN`]. Fails if the kernel is pooled
    /// and `bases` does not have one per array or one is misaligned.
    pub fn pack_pool_bases(&self, cb: &mut [u8], bases: &[u32]) -> Result<(), Error> {
        if !self.pooled {
            return Ok(());
        }
        if bases.len() != self.cbuffer.arrays.len() {
            return Err(Error::Pack(format!(
                "{} pool bases for {} arrays",
                bases.len(),
                self.cbuffer.arrays.len()
            )));
        }
        for (a, &base) in self.cbuffer.arrays.iter().zip(bases) {
            if base % POOL_ALIGN != 0 {
                return Err(Error::Pack(format!(
                    "pool base {base} of array `{}` is not {POOL_ALIGN}-byte aligned",
                    a.param
                )));
            }
            if let Some(off) = a.base_offset {
                put(cb, off, &base.to_le_bytes());
            }
        }
        Ok(())
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
    fn unfinished_sums_the_pending_counts() {
        let mut table = vec![0u8; 8 * LOCK_WORDS as usize];
        assert_eq!(LockBinding::unfinished(&table), 0);
        table[0..4].copy_from_slice(&1u32.to_le_bytes()); // a held lock is not a count
        let pending = LockBinding::PENDING as usize;
        table[pending + 8..pending + 12].copy_from_slice(&2u32.to_le_bytes());
        table[pending + 400..pending + 404].copy_from_slice(&5u32.to_le_bytes());
        assert_eq!(LockBinding::unfinished(&table), 7);
        assert_eq!(LockBinding::unfinished(&[]), 0);
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
        let b = BindingLayout::new(&f, &st, false, false, u32::MAX);
        assert_eq!(b.arrays[0].binding, 1);
        assert_eq!(b.cbuffer.fields[0].offset, 64);
        assert_eq!(b.cbuffer.fields[1].offset, 72);
        assert_eq!(b.total_cbuffer_size, 80);
        assert_eq!(b.trap, None, "no trap record without checks");
        assert_eq!(b.locks, None, "no lock table without 64-bit atomics");
        let both = BindingLayout::new(&f, &st, true, true, u32::MAX);
        assert_eq!(both.trap.as_ref().map(|t| t.binding), Some(2));
        assert_eq!(both.locks.as_ref().map(|l| l.binding), Some(3));
        assert_eq!(both.storage_bindings().collect::<Vec<_>>(), [1, 2, 3]);
        let locks = BindingLayout::new(&f, &st, false, true, u32::MAX);
        assert_eq!(locks.locks.as_ref().map(|l| l.register), Some(1));
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
        assert!(matches!(b.pack_cbuffer(&block, 0), Err(Error::Pack(_))));
        assert!(matches!(
            b.pack_cbuffer(&block[..8], 0),
            Err(Error::Pack(_))
        ));
    }

    #[test]
    fn pools_arrays_past_the_limit() {
        let st = StructTable::new();
        let arr = Type::Array(ArrayType {
            elem: ElemType::Scalar(Scalar::F32),
            ndim: 1,
        });
        let param = |n: &str, ty| Param { name: n.into(), ty };
        let f = Function::new(
            "k",
            FuncKind::Kernel,
            vec![
                param("a", arr),
                param("n", Type::Scalar(Scalar::I32)),
                param("b", arr),
                param("c", arr),
            ],
            vec![],
        );
        // 3 arrays + trap + locks = 5: fits 5, pooled under it.
        let fits = BindingLayout::new(&f, &st, true, true, 5);
        assert!(!fits.pooled);
        assert_eq!(fits.storage_bindings().count(), 5);
        let b = BindingLayout::new(&f, &st, true, true, 4);
        assert!(b.pooled);
        assert!(b.arrays.iter().all(|a| a.register == 0 && a.binding == 1));
        assert_eq!(b.storage_bindings().collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(b.trap.as_ref().map(|t| t.register), Some(1));
        assert_eq!(b.locks.as_ref().map(|l| l.register), Some(2));
        let bases: Vec<_> = b.cbuffer.arrays.iter().map(|a| a.base_offset).collect();
        assert_eq!(bases, [Some(128), Some(132), Some(136)]);
        assert_eq!(b.cbuffer.fields[0].offset, 140);
        let mut cb = vec![0u8; b.cbuffer.size as usize];
        b.pack_pool_bases(&mut cb, &[0, 32, 0]).unwrap();
        assert_eq!(&cb[132..136], &32u32.to_le_bytes());
        assert!(matches!(
            b.pack_pool_bases(&mut cb, &[0, 8, 0]),
            Err(Error::Pack(_))
        ));
        assert!(matches!(
            b.pack_pool_bases(&mut cb, &[0]),
            Err(Error::Pack(_))
        ));
        // Unpooled layouts ignore bases.
        fits.pack_pool_bases(&mut cb, &[]).unwrap();
    }
}
