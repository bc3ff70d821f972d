//! Device arrays: typed, shaped, strided memory owned by the runtime.
//!
//! An [`Array`] owns 16-byte aligned storage holding elements in the C
//! layout of [`weft_ir::layout`], with a shape of 1–4 axes (each fitting an
//! `i32`, as in the kernel ABI's [`weft_ir::layout::ArrayDesc`]) and byte
//! strides. Arrays made by the constructors here are contiguous in C order.
//!
//! Kernels write arrays through shared references (a launch takes `&Array`,
//! and the same array may be passed to several parameters), so the storage is
//! interior-mutable (`UnsafeCell`). `Array` is therefore `Send` but not
//! `Sync`: a launch runs to completion on the calling thread before anything
//! else can look at the array, and the host only ever copies data in and
//! out.

use crate::dtype::{Dtype, Element, ScalarElem};
use std::cell::UnsafeCell;
use weft_ir::types::MAX_DIMS;
use weft_ir::ElemType;

/// Errors of array construction and typed access.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArrayError {
    #[error("an array has 1 to 4 axes, got {0}")]
    Rank(usize),
    #[error("array axis {axis} has length {len}, more than the 2^31-1 the kernel ABI allows")]
    AxisTooLong { axis: usize, len: usize },
    #[error("array of shape {shape:?} of {dtype} is too large")]
    TooLarge { shape: Vec<usize>, dtype: String },
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
}

/// One 16-byte, 16-aligned storage unit.
#[derive(Copy, Clone, Default)]
#[repr(C, align(16))]
struct Chunk([u8; 16]);

/// A typed array; see the module docs.
pub struct Array {
    dtype: Dtype,
    shape: Vec<usize>,
    strides: Vec<i64>,
    storage: Vec<UnsafeCell<Chunk>>,
    /// Bytes of element data in `storage`.
    len_bytes: usize,
}

impl std::fmt::Debug for Array {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Array")
            .field("dtype", &self.dtype.to_string())
            .field("shape", &self.shape)
            .field("strides", &self.strides)
            .finish()
    }
}

impl Clone for Array {
    fn clone(&self) -> Array {
        let bytes = self.to_bytes();
        let mut a = Array::alloc(self.dtype.clone(), self.shape.clone(), bytes.len());
        a.write_raw(&bytes);
        a
    }
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
    /// size of `shape` × element size.
    fn alloc(dtype: Dtype, shape: Vec<usize>, len_bytes: usize) -> Array {
        let esize = dtype.size() as i64;
        let mut strides = vec![0i64; shape.len()];
        let mut s = esize;
        for k in (0..shape.len()).rev() {
            strides[k] = s;
            s *= shape[k] as i64;
        }
        let storage = (0..len_bytes.div_ceil(16))
            .map(|_| UnsafeCell::new(Chunk::default()))
            .collect();
        Array {
            dtype,
            shape,
            strides,
            storage,
            len_bytes,
        }
    }

    /// A zero-filled array.
    pub fn zeros(dtype: Dtype, shape: &[usize]) -> Result<Array, ArrayError> {
        let n = check_shape(shape, &dtype)?;
        Ok(Array::alloc(dtype, shape.to_vec(), n))
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
        let mut a = Array::alloc(dtype, shape.to_vec(), n);
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

    pub fn dtype(&self) -> &Dtype {
        &self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// Byte strides, one per axis.
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

    /// Base pointer of the storage, for the kernel ABI. Writes through it
    /// are allowed: the storage is made of `UnsafeCell`s.
    pub(crate) fn data_ptr(&self) -> *mut u8 {
        UnsafeCell::raw_get(self.storage.as_ptr()).cast::<u8>()
    }
    /// Byte length of the storage region the elements occupy.
    pub(crate) fn byte_len(&self) -> usize {
        self.len_bytes
    }

    fn write_raw(&mut self, bytes: &[u8]) {
        debug_assert!(bytes.len() <= self.len_bytes);
        // SAFETY: `&mut self` excludes every other access; the storage holds
        // at least `len_bytes >= bytes.len()` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.data_ptr(), bytes.len());
        }
    }

    /// Overwrites the contents from C-order, C-layout bytes.
    pub fn copy_from_bytes(&mut self, bytes: &[u8]) -> Result<(), ArrayError> {
        if bytes.len() != self.len() * self.dtype.size() {
            return Err(ArrayError::Length {
                shape: self.shape.clone(),
                expected: self.len() * self.dtype.size(),
                got: bytes.len(),
                unit: "bytes",
            });
        }
        let esize = self.dtype.size();
        if esize == 0 {
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
        let n = self.len();
        (0..n).map(move |mut i| {
            let mut off = 0i64;
            for k in (0..self.shape.len()).rev() {
                let idx = i % self.shape[k];
                i /= self.shape[k];
                off += idx as i64 * self.strides[k];
            }
            off as usize
        })
    }

    /// The elements' bytes, in C order and C layout.
    pub fn to_bytes(&self) -> Vec<u8> {
        let esize = self.dtype.size();
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
        if !self.dtype.same_as(&want) {
            return Err(ArrayError::Type {
                array: self.dtype.to_string(),
                asked: want.to_string(),
            });
        }
        let bytes = self.to_bytes();
        Ok(bytes
            .chunks_exact(self.dtype.size().max(1))
            .map(T::get)
            .collect())
    }

    /// All scalars of a non-struct array, in order.
    pub fn to_scalars<T: ScalarElem>(&self) -> Result<Vec<T>, ArrayError> {
        check_scalar_of::<T>(&self.dtype)?;
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

    #[test]
    fn value_sizes_are_checked() {
        let d = Dtype::new(ElemType::Vec(3, Scalar::F32));
        assert!(Value::from_bytes(d.clone(), vec![0; 12]).is_ok());
        assert!(Value::from_bytes(d, vec![0; 8]).is_err());
    }
}
