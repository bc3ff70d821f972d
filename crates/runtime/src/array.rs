//! Device arrays: typed, shaped, strided memory owned by the runtime.
//!
//! An [`Array`] owns 64-byte aligned storage ([`crate::hostmem`]: 2 MiB
//! aligned and on transparent huge pages from 4 MiB) holding elements in the C
//! layout of [`weft_ir::layout`], with a shape of 1–4 axes (each fitting an
//! `i32`, as in the kernel ABI's [`weft_ir::layout::ArrayDesc`]) and byte
//! strides. Arrays made by the constructors here are contiguous in C order.
//!
//! # Layout
//!
//! An array has a [`ArrayLayout`]. An AoS array (the default, Warp's) stores
//! each element whole, in its C layout. An SoA array (structure of arrays,
//! for element types made of one scalar type: see [`Dtype::soa_scalar`])
//! stores each scalar slot of the element (in [`weft_ir::layout::slots`]
//! order) as its own plane: `k` planes one after the other, each
//! C-contiguous over the array's shape. A kernel compiled with that
//! parameter in SoA layout (the `soa` pass, `Function::soa_params`) receives
//! it as an array of scalars with one more axis, the plane: shape
//! `[shape..., k]`, byte strides `[plane strides..., plane stride]`
//! ([`Array::desc_shape_strides`]). Only that raw storage is planar:
//! everything the host sees ([`Array::to_bytes`], [`Array::to_vec`],
//! [`Array::to_scalars`], [`Array::copy_from_bytes`]) is AoS-shaped and
//! C-ordered in either layout, so an SoA array reads back exactly the data
//! of its AoS twin. [`Array::to_layout`] converts.
//!
//! Kernels write arrays through shared references (a launch takes `&Array`,
//! and the same array may be passed to several parameters), so the storage is
//! interior-mutable ([`HostMem`], an `UnsafeCell` in effect). `Array` is therefore `Send` but not
//! `Sync`: a launch runs to completion on the calling thread before anything
//! else can look at the array, and the host only ever copies data in and
//! out.
//!
//! # Gradients
//!
//! An array made with [`Array::requires_grad`] carries a gradient: a second
//! array of the same dtype, shape and layout, zero at first, that adjoint
//! launches (`weft::Tape`) accumulate into, as Warp's `array.grad`. With
//! [`Array::with_retain_grad`] a store's adjoint reads it without clearing
//! it (Warp's `retain_grad=True`; see `docs/autodiff.md`).

use crate::dtype::{Dtype, Element, ScalarElem};
use crate::hostmem::HostMem;
use std::cell::{Cell, Ref, RefCell, RefMut};
use weft_ir::types::MAX_DIMS;
use weft_ir::{ArrayLayout, ElemType};

/// Errors of array construction and typed access.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArrayError {
    #[error("an array has 1 to 4 axes, got {0}")]
    Rank(usize),
    #[error("array axis {axis} has length {len}, more than the 2^31-1 the kernel ABI allows")]
    AxisTooLong { axis: usize, len: usize },
    #[error("array of shape {shape:?} of {dtype} is too large")]
    TooLarge { shape: Vec<usize>, dtype: String },
    /// The allocator refused the array's storage.
    #[error(
        "out of memory: cannot allocate {bytes} bytes for an array of shape {shape:?} of {dtype}"
    )]
    OutOfMemory {
        shape: Vec<usize>,
        dtype: String,
        bytes: usize,
    },
    #[error("array data has {got} {unit}, shape {shape:?} needs {expected}")]
    Length {
        shape: Vec<usize>,
        expected: usize,
        got: usize,
        unit: &'static str,
    },
    #[error("element type mismatch: the array holds {array}, asked for {asked}")]
    Type { array: String, asked: String },
    #[error("value of type {dtype} needs {expected} bytes, got {got}")]
    ValueSize {
        dtype: String,
        expected: usize,
        got: usize,
    },
    /// A copy between a host and a device array that differ.
    #[error("copy between arrays of different type, shape or layout: {dst} vs {src}")]
    Mismatch { dst: String, src: String },
    /// The array cannot be laid out structure of arrays.
    #[error("an array{ndim} of {dtype} cannot be laid out SoA: {reason}")]
    NotSoa {
        dtype: String,
        ndim: usize,
        reason: &'static str,
    },
}

/// What a host or device array is, apart from where its storage lives: the
/// element type, the storage layout, the shape and the byte strides.
/// [`Array`] and [`crate::DeviceArray`] each hold one and expose it with
/// `meta()` and the same accessors.
#[derive(Debug, Clone)]
pub struct ArrayMeta {
    pub(crate) dtype: Dtype,
    pub(crate) layout: ArrayLayout,
    pub(crate) shape: Vec<usize>,
    /// Byte strides per axis: of the elements (AoS), or of the scalars
    /// within one plane (SoA).
    pub(crate) strides: Vec<i64>,
}

impl ArrayMeta {
    pub fn dtype(&self) -> &Dtype {
        &self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The storage layout (module docs).
    pub fn layout(&self) -> ArrayLayout {
        self.layout
    }
    /// Byte strides of the storage, one per axis: between elements (AoS),
    /// or between scalars of one plane (SoA).
    pub fn strides(&self) -> &[i64] {
        &self.strides
    }
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The check of a copy between a device array (`self`) and a host
    /// array: the same type, shape, strides and layout, or the two
    /// described (`(dst, src)`) for the device's mismatch error.
    pub(crate) fn check_like(&self, host: &ArrayMeta) -> Result<(), (String, String)> {
        if !self.dtype.same_as(&host.dtype)
            || self.shape != host.shape
            || self.strides != host.strides
            || self.layout != host.layout
        {
            return Err((self.describe(), host.describe()));
        }
        Ok(())
    }

    /// Of an SoA array: the number of planes and the byte distance between
    /// planes; `None` for AoS (as [`Array::soa_planes`]).
    pub(crate) fn soa_planes(&self) -> Option<(usize, i64)> {
        soa_planes(&self.dtype, self.layout, &self.shape)
    }

    /// The array as launch checks and packing see it, its data at `data`.
    pub(crate) fn view(&self, data: u64) -> crate::hal::args::ArgView<'_> {
        crate::hal::args::ArgView::Array {
            dtype: &self.dtype,
            shape: &self.shape,
            strides: &self.strides,
            data,
            planes: self.soa_planes(),
        }
    }

    /// A zero-filled host array of this type, shape and layout (a device
    /// array's host copy).
    pub(crate) fn host_zeros(&self) -> Result<Array, ArrayError> {
        Array::zeros_with_layout(self.dtype.clone(), &self.shape, self.layout)
    }

    /// `vec3f[1024]`, with ` (SoA)` for an SoA array.
    pub(crate) fn describe(&self) -> String {
        let (dtype, shape) = (&self.dtype, &self.shape);
        match self.layout {
            ArrayLayout::Aos => format!("{dtype}{shape:?}"),
            ArrayLayout::Soa => format!("{dtype}{shape:?} (SoA)"),
        }
    }
}

/// The accessors of an array type that holds an [`ArrayMeta`] in a field
/// `meta`: `meta()` and, delegating to it, `dtype()`, `shape()`,
/// `layout()`, `strides()`, `ndim()`, `len()`, `is_empty()`.
macro_rules! meta_accessors {
    () => {
        /// The element type, layout, shape and strides.
        pub fn meta(&self) -> &$crate::array::ArrayMeta {
            &self.meta
        }
        pub fn dtype(&self) -> &$crate::Dtype {
            self.meta.dtype()
        }
        pub fn shape(&self) -> &[usize] {
            self.meta.shape()
        }
        /// The storage layout (as [`ArrayMeta::layout`](crate::array::ArrayMeta::layout)).
        pub fn layout(&self) -> $crate::ArrayLayout {
            self.meta.layout()
        }
        /// Byte strides, one per axis (as [`ArrayMeta::strides`](crate::array::ArrayMeta::strides)).
        pub fn strides(&self) -> &[i64] {
            self.meta.strides()
        }
        pub fn ndim(&self) -> usize {
            self.meta.ndim()
        }
        /// Number of elements.
        pub fn len(&self) -> usize {
            self.meta.len()
        }
        pub fn is_empty(&self) -> bool {
            self.meta.is_empty()
        }
    };
}
pub(crate) use meta_accessors;

/// A typed array; see the module docs.
pub struct Array {
    meta: ArrayMeta,
    storage: HostMem,
    /// Bytes of element data in `storage`.
    len_bytes: usize,
    /// The gradient, if the array requires one.
    grad: Option<Box<Grad>>,
}

/// An array's gradient (see the module docs).
#[derive(Debug)]
struct Grad {
    array: RefCell<Array>,
    retain: Cell<bool>,
}

impl std::fmt::Debug for Array {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Array")
            .field("dtype", &self.meta.dtype.to_string())
            .field("layout", &self.meta.layout)
            .field("shape", &self.meta.shape)
            .field("strides", &self.meta.strides)
            .finish()
    }
}

impl Clone for Array {
    fn clone(&self) -> Array {
        let mut a = Array::alloc(
            self.meta.dtype.clone(),
            self.meta.layout,
            self.meta.shape.clone(),
            self.len_bytes,
        );
        a.meta.strides = self.meta.strides.clone();
        a.write_raw(self.raw());
        a.grad = self.grad.as_ref().map(|g| {
            Box::new(Grad {
                array: RefCell::new(g.array.borrow().clone()),
                retain: g.retain.clone(),
            })
        });
        a
    }
}

/// The storage of an SoA array: the scalar's size, the byte offset in the
/// AoS element of each plane's slot, the elements per plane, the byte
/// distance between planes and the storage size.
struct Planes {
    scalar: usize,
    offsets: Vec<usize>,
    n: usize,
    stride: usize,
    bytes: usize,
}

/// Planes of this size or more are [`PLANE_SKEW`] bytes further apart than
/// a multiple of the page size.
const SKEW_FROM: usize = 4096;
/// See [`plane_stride`].
const PLANE_SKEW: usize = 320;

/// The byte distance between the planes of `bytes` bytes each: `bytes` for
/// small planes; else rounded up to a multiple of 4 KiB plus 5 cache lines,
/// so that one index of the `k` planes falls in different cache sets and
/// page offsets. (With planes exactly a power of two apart, a 2^22-particle
/// update ran 2-3x slower than AoS on the CPU: every plane's `x[i]` mapped
/// to one L1 set, and its loads waited on the stores to the others, which
/// the CPU takes for aliasing "4K" apart; skewed, it runs as fast as AoS.)
fn plane_stride(bytes: usize) -> Option<usize> {
    if bytes < SKEW_FROM {
        Some(bytes)
    } else {
        bytes
            .checked_next_multiple_of(4096)?
            .checked_add(PLANE_SKEW)
    }
}

/// The planes of an SoA array of `dtype` and `shape` (a checked shape), or
/// why it cannot be SoA.
fn planes_of(dtype: &Dtype, shape: &[usize]) -> Result<Planes, ArrayError> {
    let ndim = shape.len();
    let err = |reason| ArrayError::NotSoa {
        dtype: dtype.to_string(),
        ndim,
        reason,
    };
    let Some(s) = dtype.soa_scalar() else {
        return Err(err(match dtype.elem() {
            ElemType::Scalar(_) => "its elements are scalars (SoA is for vectors, matrices, quaternions, transforms and structs)",
            _ => "its element's scalars are not all of one type",
        }));
    };
    if ndim >= MAX_DIMS {
        return Err(err(
            "an SoA array has at most 3 axes (the kernel ABI's 4th axis selects the plane)",
        ));
    }
    let scalar = s.size() as usize;
    let offsets: Vec<usize> = dtype.leaves().iter().map(|l| l.offset as usize).collect();
    let n: usize = shape.iter().product();
    let too_large = || ArrayError::TooLarge {
        shape: shape.to_vec(),
        dtype: dtype.to_string(),
    };
    let plane = n.checked_mul(scalar).ok_or_else(too_large)?;
    let stride = plane_stride(plane).ok_or_else(too_large)?;
    let bytes = stride
        .checked_mul(offsets.len().saturating_sub(1))
        .and_then(|b| b.checked_add(plane))
        .filter(|&b| b <= isize::MAX as usize / 2)
        .ok_or_else(too_large)?;
    Ok(Planes {
        scalar,
        offsets,
        n,
        stride,
        bytes,
    })
}

/// Of an SoA array of `dtype` and `shape`: the number of planes and the
/// byte distance between planes; `None` for AoS (or an array that cannot
/// be SoA, which no constructor makes).
pub(crate) fn soa_planes(
    dtype: &Dtype,
    layout: ArrayLayout,
    shape: &[usize],
) -> Option<(usize, i64)> {
    match layout {
        ArrayLayout::Aos => None,
        ArrayLayout::Soa => {
            let p = planes_of(dtype, shape).ok()?;
            Some((p.offsets.len(), p.stride as i64))
        }
    }
}

/// The storage size of an SoA array of `dtype` and `shape`, or why it
/// cannot be SoA.
pub(crate) fn soa_bytes(dtype: &Dtype, shape: &[usize]) -> Result<usize, ArrayError> {
    planes_of(dtype, shape).map(|p| p.bytes)
}

/// The byte strides and storage size of an array of `dtype` and `shape` in
/// `layout`, as [`Array::zeros_with_layout`] makes it (the same checks), for
/// device arrays that mirror host ones.
pub(crate) fn storage_of(
    dtype: &Dtype,
    shape: &[usize],
    layout: ArrayLayout,
) -> Result<(Vec<i64>, usize), ArrayError> {
    let mut bytes = check_shape(shape, dtype)?;
    let unit = match layout {
        ArrayLayout::Aos => dtype.size(),
        ArrayLayout::Soa => {
            bytes = soa_bytes(dtype, shape)?;
            dtype.soa_scalar().map_or(1, |s| s.size() as usize)
        }
    };
    Ok((c_strides(shape, unit), bytes))
}

/// C-order byte strides of `shape` for items of `unit` bytes.
pub(crate) fn c_strides(shape: &[usize], unit: usize) -> Vec<i64> {
    let mut strides = vec![0i64; shape.len()];
    let mut s = unit as i64;
    for k in (0..shape.len()).rev() {
        strides[k] = s;
        s *= shape[k] as i64;
    }
    strides
}

/// `p.n` AoS elements of `esize` bytes → the storage of `p`.
fn aos_to_soa(aos: &[u8], esize: usize, p: &Planes) -> Vec<u8> {
    let (s, n) = (p.scalar, p.n);
    let mut out = vec![0u8; p.bytes];
    if n == 0 {
        return out;
    }
    for (j, &off) in p.offsets.iter().enumerate() {
        let plane = &mut out[j * p.stride..j * p.stride + n * s];
        for (i, dst) in plane.chunks_exact_mut(s).enumerate() {
            let src = i * esize + off;
            dst.copy_from_slice(&aos[src..src + s]);
        }
    }
    out
}

/// The inverse of [`aos_to_soa`] (padding bytes zero).
fn soa_to_aos(soa: &[u8], esize: usize, p: &Planes) -> Vec<u8> {
    let (s, n) = (p.scalar, p.n);
    let mut out = vec![0u8; n * esize];
    if n == 0 {
        return out;
    }
    for (j, &off) in p.offsets.iter().enumerate() {
        let plane = &soa[j * p.stride..j * p.stride + n * s];
        for (i, src) in plane.chunks_exact(s).enumerate() {
            let dst = i * esize + off;
            out[dst..dst + s].copy_from_slice(src);
        }
    }
    out
}

fn check_shape(shape: &[usize], dtype: &Dtype) -> Result<usize, ArrayError> {
    if shape.is_empty() || shape.len() > MAX_DIMS {
        return Err(ArrayError::Rank(shape.len()));
    }
    for (axis, &len) in shape.iter().enumerate() {
        if len > i32::MAX as usize {
            return Err(ArrayError::AxisTooLong { axis, len });
        }
    }
    shape
        .iter()
        .try_fold(dtype.size(), |acc, &n| acc.checked_mul(n))
        .filter(|&b| b <= isize::MAX as usize / 2)
        .ok_or_else(|| ArrayError::TooLarge {
            shape: shape.to_vec(),
            dtype: dtype.to_string(),
        })
}

impl Array {
    /// Allocates zeroed contiguous storage; `len_bytes` must be the checked
    /// size of `shape` × element size (SoA: the planes' [`soa_bytes`], the
    /// `dtype` eligible). Storage the allocator refuses is
    /// [`ArrayError::OutOfMemory`], never an abort.
    fn try_alloc(
        dtype: Dtype,
        layout: ArrayLayout,
        shape: Vec<usize>,
        len_bytes: usize,
    ) -> Result<Array, ArrayError> {
        let Some(storage) = HostMem::zeroed(len_bytes) else {
            return Err(ArrayError::OutOfMemory {
                shape,
                dtype: dtype.to_string(),
                bytes: len_bytes,
            });
        };
        let unit = match layout {
            ArrayLayout::Aos => dtype.size(),
            ArrayLayout::Soa => dtype.soa_scalar().map_or(1, |s| s.size() as usize),
        };
        let strides = c_strides(&shape, unit);
        Ok(Array {
            meta: ArrayMeta {
                dtype,
                layout,
                shape,
                strides,
            },
            storage,
            len_bytes,
            grad: None,
        })
    }

    /// [`Array::try_alloc`] of the size of an array that exists (a clone, a
    /// gradient): like `Vec`'s clone, an allocation failure here aborts.
    fn alloc(dtype: Dtype, layout: ArrayLayout, shape: Vec<usize>, len_bytes: usize) -> Array {
        match Array::try_alloc(dtype, layout, shape, len_bytes) {
            Ok(a) => a,
            Err(_) => std::alloc::handle_alloc_error(
                std::alloc::Layout::from_size_align(len_bytes.max(1), crate::hostmem::LINE)
                    .unwrap_or(std::alloc::Layout::new::<u8>()),
            ),
        }
    }

    /// The array with a zero gradient of its dtype, shape and layout (a
    /// fresh one if it had one).
    pub fn requires_grad(mut self) -> Array {
        let g = Array::alloc(
            self.meta.dtype.clone(),
            self.meta.layout,
            self.meta.shape.clone(),
            self.len_bytes,
        );
        let retain = self.retains_grad();
        self.grad = Some(Box::new(Grad {
            array: RefCell::new(g),
            retain: Cell::new(retain),
        }));
        self
    }
    /// Sets whether stores keep the gradient (`retain_grad`); nothing if
    /// the array has no gradient.
    pub fn with_retain_grad(self, retain: bool) -> Array {
        if let Some(g) = &self.grad {
            g.retain.set(retain);
        }
        self
    }
    /// Whether the array carries a gradient.
    pub fn has_grad(&self) -> bool {
        self.grad.is_some()
    }
    /// Whether stores keep the gradient (`retain_grad`).
    pub fn retains_grad(&self) -> bool {
        self.grad.as_ref().is_some_and(|g| g.retain.get())
    }
    /// The gradient, if any (borrowed; a launch may take it as an argument).
    pub fn grad(&self) -> Option<Ref<'_, Array>> {
        self.grad.as_ref().map(|g| g.array.borrow())
    }
    /// The gradient, mutably (e.g. to seed it). `None` without a gradient,
    /// or while it is borrowed.
    pub fn grad_mut(&self) -> Option<RefMut<'_, Array>> {
        self.grad
            .as_ref()
            .and_then(|g| g.array.try_borrow_mut().ok())
    }
    /// Sets the gradient to zero (nothing without one).
    pub fn zero_grad(&self) {
        if let Some(mut g) = self.grad_mut() {
            let n = g.len_bytes;
            g.write_raw(&vec![0u8; n]);
        }
    }

    /// A zero-filled array.
    pub fn zeros(dtype: Dtype, shape: &[usize]) -> Result<Array, ArrayError> {
        let n = check_shape(shape, &dtype)?;
        Array::try_alloc(dtype, ArrayLayout::Aos, shape.to_vec(), n)
    }

    /// A zero-filled array in `layout`; SoA is an error
    /// ([`ArrayError::NotSoa`]) for scalar elements, structs mixing scalar
    /// types, and 4 axes.
    pub fn zeros_with_layout(
        dtype: Dtype,
        shape: &[usize],
        layout: ArrayLayout,
    ) -> Result<Array, ArrayError> {
        let mut n = check_shape(shape, &dtype)?;
        if layout == ArrayLayout::Soa {
            n = soa_bytes(&dtype, shape)?;
        }
        Array::try_alloc(dtype, layout, shape.to_vec(), n)
    }

    /// A copy of the array in `layout` (the same elements; a plain clone
    /// when it already is in that layout).
    pub fn to_layout(&self, layout: ArrayLayout) -> Result<Array, ArrayError> {
        if layout == self.meta.layout {
            return Ok(self.clone());
        }
        let mut a = Array::zeros_with_layout(self.meta.dtype.clone(), &self.meta.shape, layout)?;
        a.copy_from_bytes(&self.to_bytes())?;
        if let Some(g) = &self.grad {
            let ga = g.array.borrow().to_layout(layout)?;
            a.grad = Some(Box::new(Grad {
                array: RefCell::new(ga),
                retain: g.retain.clone(),
            }));
        }
        Ok(a)
    }

    /// An array from its elements' bytes in C layout and C order.
    pub fn from_bytes(dtype: Dtype, bytes: &[u8], shape: &[usize]) -> Result<Array, ArrayError> {
        let n = check_shape(shape, &dtype)?;
        if bytes.len() != n {
            return Err(ArrayError::Length {
                shape: shape.to_vec(),
                expected: n,
                got: bytes.len(),
                unit: "bytes",
            });
        }
        let mut a = Array::try_alloc(dtype, ArrayLayout::Aos, shape.to_vec(), n)?;
        a.write_raw(bytes);
        Ok(a)
    }

    /// An array of `T` elements in C order: `from_slice::<f32>(&x, &[n])`,
    /// `from_slice::<[f32; 3]>(&pos, &[n])` for `vec3`.
    pub fn from_slice<T: Element>(data: &[T], shape: &[usize]) -> Result<Array, ArrayError> {
        let dtype = Dtype::new(T::elem_type());
        let n = check_shape(shape, &dtype)?;
        let count = n / dtype.size().max(1);
        if data.len() != count {
            return Err(ArrayError::Length {
                shape: shape.to_vec(),
                expected: count,
                got: data.len(),
                unit: "elements",
            });
        }
        let mut bytes = Vec::with_capacity(n);
        data.iter().for_each(|x| x.put(&mut bytes));
        Array::from_bytes(dtype, &bytes, shape)
    }

    /// An array of a non-struct element type from its scalars in order (e.g.
    /// a `mat33` array from 9 `f32` per element). `T` must be the element's
    /// scalar type.
    pub fn from_scalars<T: ScalarElem>(
        dtype: Dtype,
        data: &[T],
        shape: &[usize],
    ) -> Result<Array, ArrayError> {
        check_scalar_of::<T>(&dtype)?;
        let mut bytes = Vec::with_capacity(std::mem::size_of_val(data));
        data.iter().for_each(|x| x.put(&mut bytes));
        let n = check_shape(shape, &dtype)?;
        if bytes.len() != n {
            return Err(ArrayError::Length {
                shape: shape.to_vec(),
                expected: n / std::mem::size_of::<T>().max(1),
                got: data.len(),
                unit: "scalars",
            });
        }
        Array::from_bytes(dtype, &bytes, shape)
    }

    meta_accessors!();

    /// Of an SoA array: the number of planes (the element's scalar slots)
    /// and the byte distance between planes; `None` for AoS.
    pub fn soa_planes(&self) -> Option<(usize, i64)> {
        self.meta.soa_planes()
    }
    /// The shape and byte strides of the array descriptor a kernel receives:
    /// the array's own for AoS; for SoA one more axis, the plane
    /// (`[shape..., k]`, `[strides..., plane stride]`).
    pub fn desc_shape_strides(&self) -> (Vec<usize>, Vec<i64>) {
        let (mut shape, mut strides) = (self.meta.shape.clone(), self.meta.strides.clone());
        if let Some((k, stride)) = self.soa_planes() {
            shape.push(k);
            strides.push(stride);
        }
        (shape, strides)
    }

    /// Base pointer of the storage: the elements as kernels address them
    /// (AoS: C order at [`Array::strides`]). Valid while the array lives;
    /// for embedders that share the memory (the Python package's NumPy
    /// views). Writes through it are allowed, as for kernels.
    pub fn as_ptr(&self) -> *mut u8 {
        self.data_ptr()
    }
    /// Base pointer of the storage, for the kernel ABI. Writes through it
    /// are allowed: the storage ([`HostMem`]) is interior-mutable memory.
    pub(crate) fn data_ptr(&self) -> *mut u8 {
        self.storage.ptr()
    }
    /// Byte length of the storage region the elements occupy.
    pub(crate) fn byte_len(&self) -> usize {
        self.len_bytes
    }

    /// The storage bytes the elements occupy, as kernels address them (in
    /// the array's layout): what a device copy of the array holds. The
    /// slice must not outlive a use that cannot launch.
    pub(crate) fn raw(&self) -> &[u8] {
        // SAFETY: `Array` is not `Sync` and launches are synchronous, so
        // nothing writes the storage while this shared borrow is used; the
        // storage holds at least `len_bytes` bytes.
        unsafe { std::slice::from_raw_parts(self.data_ptr().cast_const(), self.len_bytes) }
    }

    /// The storage bytes, writable through a shared borrow (the storage is
    /// interior-mutable memory, [`HostMem`]), for a device copying results back.
    ///
    /// # Safety
    /// Nothing else may read or write the storage while the slice lives
    /// (the array is lent to a synchronous launch that has finished on the
    /// device, or was just made by the caller).
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn raw_mut(&self) -> &mut [u8] {
        // SAFETY: the storage holds `len_bytes` bytes ([`HostMem`]); the
        // caller guarantees exclusive use.
        unsafe { std::slice::from_raw_parts_mut(self.data_ptr(), self.len_bytes) }
    }

    pub(crate) fn write_raw(&mut self, bytes: &[u8]) {
        debug_assert!(bytes.len() <= self.len_bytes);
        // SAFETY: `&mut self` excludes every other access; the storage holds
        // at least `len_bytes >= bytes.len()` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.data_ptr(), bytes.len());
        }
    }

    /// Overwrites the contents from C-order, C-layout bytes.
    pub fn copy_from_bytes(&mut self, bytes: &[u8]) -> Result<(), ArrayError> {
        if bytes.len() != self.len() * self.meta.dtype.size() {
            return Err(ArrayError::Length {
                shape: self.meta.shape.clone(),
                expected: self.len() * self.meta.dtype.size(),
                got: bytes.len(),
                unit: "bytes",
            });
        }
        let esize = self.meta.dtype.size();
        if esize == 0 {
            return Ok(());
        }
        if self.meta.layout == ArrayLayout::Soa {
            let p = planes_of(&self.meta.dtype, &self.meta.shape)?;
            let planar = aos_to_soa(bytes, esize, &p);
            self.write_raw(&planar);
            return Ok(());
        }
        for (i, off) in self.offsets().enumerate() {
            // SAFETY: `&mut self` excludes other access; `off` is a valid
            // element offset inside the storage (see `offsets`).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes[i * esize..].as_ptr(),
                    self.data_ptr().add(off),
                    esize,
                );
            }
        }
        Ok(())
    }

    /// Byte offsets of the elements in C order.
    fn offsets(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).map(|i| self.offset_of(i))
    }

    /// The byte offset of element `i` (C order) of an AoS array.
    fn offset_of(&self, mut i: usize) -> usize {
        let mut off = 0i64;
        for k in (0..self.meta.shape.len()).rev() {
            let idx = i % self.meta.shape[k];
            i /= self.meta.shape[k];
            off += idx as i64 * self.meta.strides[k];
        }
        off as usize
    }

    /// Element `i` (in C order) as C-layout bytes, in either layout;
    /// `None` past the end.
    pub fn element_bytes(&self, i: usize) -> Option<Vec<u8>> {
        if i >= self.len() {
            return None;
        }
        let esize = self.meta.dtype.size();
        let raw = self.raw();
        if self.meta.layout == ArrayLayout::Soa {
            let p = planes_of(&self.meta.dtype, &self.meta.shape).ok()?;
            let mut out = vec![0u8; esize];
            for (j, &off) in p.offsets.iter().enumerate() {
                let at = j * p.stride + i * p.scalar;
                out.get_mut(off..off + p.scalar)?
                    .copy_from_slice(raw.get(at..at + p.scalar)?);
            }
            return Some(out);
        }
        let off = self.offset_of(i);
        raw.get(off..off + esize).map(<[u8]>::to_vec)
    }

    /// The elements' bytes, in C order and C layout (in either layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let esize = self.meta.dtype.size();
        if self.meta.layout == ArrayLayout::Soa {
            if let Ok(p) = planes_of(&self.meta.dtype, &self.meta.shape) {
                return soa_to_aos(self.raw(), esize, &p);
            }
        }
        let mut out = Vec::with_capacity(self.len() * esize);
        let base = self.data_ptr().cast_const();
        for off in self.offsets() {
            // SAFETY: `Array` is not `Sync` and launches are synchronous, so
            // nothing writes the storage while this shared borrow reads it;
            // `off + esize <= len_bytes`.
            let elem = unsafe { std::slice::from_raw_parts(base.add(off), esize) };
            out.extend_from_slice(elem);
        }
        out
    }

    /// The elements as `T` (which must be the element type).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, ArrayError> {
        let want = Dtype::new(T::elem_type());
        if !self.meta.dtype.same_as(&want) {
            return Err(ArrayError::Type {
                array: self.meta.dtype.to_string(),
                asked: want.to_string(),
            });
        }
        let bytes = self.to_bytes();
        Ok(bytes
            .chunks_exact(self.meta.dtype.size().max(1))
            .map(T::get)
            .collect())
    }

    /// All scalars of a non-struct array, in order.
    pub fn to_scalars<T: ScalarElem>(&self) -> Result<Vec<T>, ArrayError> {
        check_scalar_of::<T>(&self.meta.dtype)?;
        let w = std::mem::size_of::<T>();
        Ok(self.to_bytes().chunks_exact(w).map(T::get).collect())
    }
}

fn check_scalar_of<T: ScalarElem>(dtype: &Dtype) -> Result<(), ArrayError> {
    let ok = match dtype.elem() {
        ElemType::Struct(_) => false,
        e => weft_ir::Type::from(e).scalar_of() == Some(T::SCALAR),
    };
    if ok {
        Ok(())
    } else {
        Err(ArrayError::Type {
            array: dtype.to_string(),
            asked: format!("{} scalars", T::SCALAR),
        })
    }
}

/// A by-value kernel argument: its type and its bytes in C layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    dtype: Dtype,
    bytes: Vec<u8>,
}

impl Value {
    pub fn new<T: Element>(v: T) -> Value {
        let mut bytes = Vec::new();
        v.put(&mut bytes);
        Value {
            dtype: Dtype::new(T::elem_type()),
            bytes,
        }
    }
    /// A value from its C-layout bytes (structs: with padding).
    pub fn from_bytes(dtype: Dtype, bytes: Vec<u8>) -> Result<Value, ArrayError> {
        if bytes.len() != dtype.size() {
            return Err(ArrayError::ValueSize {
                dtype: dtype.to_string(),
                expected: dtype.size(),
                got: bytes.len(),
            });
        }
        Ok(Value { dtype, bytes })
    }
    pub fn dtype(&self) -> &Dtype {
        &self.dtype
    }
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// One kernel argument of a launch.
#[derive(Clone, Debug)]
pub enum Arg<'a> {
    Array(&'a Array),
    Value(Value),
}

impl<'a> Arg<'a> {
    pub fn array(a: &'a Array) -> Arg<'a> {
        Arg::Array(a)
    }
    pub fn value(v: Value) -> Arg<'a> {
        Arg::Value(v)
    }
    /// Any [`Element`] by value: `Arg::of([1.0f32, 0.0, 0.0])` is a `vec3`.
    pub fn of<T: Element>(v: T) -> Arg<'a> {
        Arg::Value(Value::new(v))
    }
    pub fn f32(v: f32) -> Arg<'a> {
        Arg::of(v)
    }
    pub fn f64(v: f64) -> Arg<'a> {
        Arg::of(v)
    }
    pub fn i32(v: i32) -> Arg<'a> {
        Arg::of(v)
    }
    pub fn i64(v: i64) -> Arg<'a> {
        Arg::of(v)
    }
    pub fn u32(v: u32) -> Arg<'a> {
        Arg::of(v)
    }
    pub fn u64(v: u64) -> Arg<'a> {
        Arg::of(v)
    }
    pub fn bool(v: bool) -> Arg<'a> {
        Arg::of(v)
    }
    pub fn vec3(v: [f32; 3]) -> Arg<'a> {
        Arg::of(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::Scalar;

    #[test]
    fn round_trips_typed_data() {
        let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        assert_eq!(a.strides(), &[12, 4]);
        assert_eq!(
            a.to_vec::<f32>().unwrap(),
            vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        );
        assert!(a.to_vec::<f64>().is_err());
        assert_eq!(a.data_ptr() as usize % 16, 0);
        let v = Array::from_slice(&[[1i32, 2, 3], [4, 5, 6]], &[2]).unwrap();
        assert_eq!(v.dtype().to_string(), "vec3<i32>");
        assert_eq!(v.to_scalars::<i32>().unwrap(), vec![1, 2, 3, 4, 5, 6]);
        let c = v.clone();
        assert_eq!(c.to_vec::<[i32; 3]>().unwrap(), vec![[1, 2, 3], [4, 5, 6]]);
    }

    #[test]
    fn rejects_bad_shapes() {
        let d = Dtype::scalar(Scalar::F32);
        assert_eq!(
            Array::zeros(d.clone(), &[]).unwrap_err(),
            ArrayError::Rank(0)
        );
        assert!(Array::zeros(d.clone(), &[1, 1, 1, 1, 1]).is_err());
        assert!(Array::zeros(d.clone(), &[1 << 31]).is_err());
        assert!(Array::from_slice(&[1.0f32; 3], &[4]).is_err());
        let z = Array::zeros(d, &[0, 3]).unwrap();
        assert!(z.is_empty());
        assert!(z.to_bytes().is_empty());
    }

    #[test]
    fn arrays_move_between_threads() {
        let a = Array::from_slice(&[1u8, 2, 3], &[3]).unwrap();
        let b = std::thread::spawn(move || a.to_vec::<u8>().unwrap())
            .join()
            .unwrap();
        assert_eq!(b, vec![1, 2, 3]);
    }

    /// An AoS array of `dtype` and `shape` whose scalar `i` (of `f32`
    /// type) is `i`, and its SoA copy.
    fn aos_and_soa(dtype: Dtype, shape: &[usize]) -> (Array, Array) {
        let n: usize = shape.iter().product::<usize>() * dtype.leaves().len();
        let bytes: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
        let aos = Array::from_bytes(dtype, &bytes, shape).unwrap();
        let soa = aos.to_layout(ArrayLayout::Soa).unwrap();
        (aos, soa)
    }

    /// The scalars of plane `j` of an SoA array's raw storage.
    fn plane(a: &Array, j: usize) -> Vec<f32> {
        let (k, stride) = a.soa_planes().unwrap();
        assert!(j < k);
        let raw = a.raw();
        let start = j * stride as usize;
        raw[start..start + 4 * a.len()]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn soa_round_trips() {
        let cases = [
            (ElemType::Vec(3, Scalar::F32), vec![5]),
            (ElemType::Mat(3, 3, Scalar::F32), vec![4]),
            (ElemType::Quat(Scalar::F32), vec![3]),
            (ElemType::Transform(Scalar::F32), vec![2]),
            (ElemType::Vec(3, Scalar::F32), vec![3, 4]),
            (ElemType::Vec(2, Scalar::F32), vec![2, 3, 2]),
        ];
        for (elem, shape) in cases {
            let d = Dtype::new(elem);
            let k = d.leaves().len();
            let (aos, soa) = aos_and_soa(d, &shape);
            let n = aos.len();
            assert_eq!(soa.layout(), ArrayLayout::Soa);
            assert_eq!(soa.shape(), aos.shape());
            assert_eq!(soa.to_bytes(), aos.to_bytes(), "{elem:?} {shape:?}");
            assert_eq!(soa.to_scalars::<f32>(), aos.to_scalars::<f32>());
            assert_eq!(soa.soa_planes(), Some((k, 4 * n as i64)));
            // Plane j holds slot j of every element, in C order.
            for j in 0..k {
                let want: Vec<f32> = (0..n).map(|i| (i * k + j) as f32).collect();
                assert_eq!(plane(&soa, j), want);
            }
            // The descriptor a kernel gets: one more axis, the plane.
            let (ds, dst) = soa.desc_shape_strides();
            let mut want_shape = shape.clone();
            want_shape.push(k);
            assert_eq!(ds, want_shape);
            assert_eq!(*dst.last().unwrap(), 4 * n as i64);
            assert_eq!(dst[shape.len() - 1], 4);
            let back = soa.to_layout(ArrayLayout::Aos).unwrap();
            assert_eq!(back.layout(), ArrayLayout::Aos);
            assert_eq!(back.raw(), aos.raw());
            assert_eq!(soa.clone().to_bytes(), aos.to_bytes());
        }
    }

    #[test]
    fn soa_writes_go_through_the_conversion() {
        let d = Dtype::new(ElemType::Vec(3, Scalar::F32));
        let mut soa = Array::zeros_with_layout(d, &[2], ArrayLayout::Soa).unwrap();
        assert_eq!(soa.to_vec::<[f32; 3]>().unwrap(), vec![[0.0; 3]; 2]);
        let src = Array::from_slice(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]], &[2]).unwrap();
        soa.copy_from_bytes(&src.to_bytes()).unwrap();
        assert_eq!(plane(&soa, 0), vec![1.0, 4.0]);
        assert_eq!(plane(&soa, 2), vec![3.0, 6.0]);
        assert_eq!(
            soa.to_vec::<[f32; 3]>().unwrap(),
            vec![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
        );
        assert!(soa.copy_from_bytes(&[0u8; 4]).is_err());
        let e = Array::zeros_with_layout(
            Dtype::new(ElemType::Vec(3, Scalar::F32)),
            &[0],
            ArrayLayout::Soa,
        )
        .unwrap();
        assert!(e.to_bytes().is_empty());
        assert_eq!(e.soa_planes(), Some((3, 0)));
    }

    #[test]
    fn large_planes_are_skewed() {
        // 2^12 vec3: planes of 16 KiB, 16 KiB + 320 bytes apart.
        let n = 1 << 12;
        let (aos, soa) = aos_and_soa(Dtype::new(ElemType::Vec(3, Scalar::F32)), &[n]);
        assert_eq!(soa.soa_planes(), Some((3, (4 * n + PLANE_SKEW) as i64)));
        assert_eq!(soa.byte_len(), 2 * (4 * n + PLANE_SKEW) + 4 * n);
        assert_eq!(soa.to_bytes(), aos.to_bytes());
        assert_eq!(plane(&soa, 2)[5], (5 * 3 + 2) as f32);
        let (_, ds) = soa.desc_shape_strides();
        assert_eq!(ds, vec![4, (4 * n + PLANE_SKEW) as i64]);
        // 1000 mat33 of f64: 8000-byte planes, the next 4 KiB multiple + skew.
        let d = Dtype::new(ElemType::Mat(3, 3, Scalar::F64));
        let a = Array::zeros_with_layout(d, &[10, 100], ArrayLayout::Soa).unwrap();
        let stride = 8000usize.next_multiple_of(4096) + PLANE_SKEW;
        assert_eq!(a.soa_planes(), Some((9, stride as i64)));
        assert_eq!(a.strides(), &[800, 8]);
    }

    #[test]
    fn soa_structs() {
        use std::sync::Arc;
        use weft_ir::{Field, StructDef, StructTable, Type};
        let mut st = StructTable::new();
        let one = st.push(StructDef {
            name: "One".into(),
            fields: vec![Field {
                name: "m".into(),
                ty: Type::F32,
            }],
        });
        let body = st.push(StructDef {
            name: "Body".into(),
            fields: vec![
                Field {
                    name: "x".into(),
                    ty: Type::Vec(3, Scalar::F32),
                },
                Field {
                    name: "m".into(),
                    ty: Type::F32,
                },
            ],
        });
        let mixed = st.push(StructDef {
            name: "Mixed".into(),
            fields: vec![
                Field {
                    name: "x".into(),
                    ty: Type::F32,
                },
                Field {
                    name: "n".into(),
                    ty: Type::I32,
                },
            ],
        });
        let st = Arc::new(st);
        for (id, k) in [(one, 1), (body, 4)] {
            let d = Dtype::with_structs(ElemType::Struct(id), st.clone());
            let (aos, soa) = aos_and_soa(d, &[3, 2]);
            assert_eq!(soa.to_bytes(), aos.to_bytes());
            assert_eq!(soa.soa_planes().unwrap().0, k);
            assert_eq!(plane(&soa, k - 1)[1], (k + k - 1) as f32);
        }
        let d = Dtype::with_structs(ElemType::Struct(mixed), st);
        let err = Array::zeros_with_layout(d, &[4], ArrayLayout::Soa).unwrap_err();
        assert!(matches!(err, ArrayError::NotSoa { .. }));
        assert!(err.to_string().contains("Mixed"), "{err}");
    }

    #[test]
    fn soa_needs_an_eligible_array() {
        let f = Dtype::scalar(Scalar::F32);
        let a = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        assert!(matches!(
            a.to_layout(ArrayLayout::Soa),
            Err(ArrayError::NotSoa { .. })
        ));
        assert!(Array::zeros_with_layout(f, &[2], ArrayLayout::Aos).is_ok());
        let v = Dtype::new(ElemType::Vec(3, Scalar::F32));
        let err = Array::zeros_with_layout(v.clone(), &[1, 1, 1, 1], ArrayLayout::Soa).unwrap_err();
        assert!(err.to_string().contains("at most 3 axes"), "{err}");
        assert!(Array::zeros_with_layout(v, &[1, 1, 1], ArrayLayout::Soa).is_ok());
    }

    #[test]
    fn value_sizes_are_checked() {
        let d = Dtype::new(ElemType::Vec(3, Scalar::F32));
        assert!(Value::from_bytes(d.clone(), vec![0; 12]).is_ok());
        assert!(Value::from_bytes(d, vec![0; 8]).is_err());
    }
}
