//! Host arrays (`weft.Array`): a Weft [`weft::Array`] owned by Python,
//! its memory shared with NumPy views through `__array_interface__`.

use crate::dtype::PyDtype;
use crate::error::py_err;
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::cell::Ref;
use weft::ir::ElemType;

/// Where an array's elements live.
enum Store {
    Own(weft::Array),
    /// The gradient of another array (`a.grad`).
    GradOf(Py<PyArray>),
}

/// A host array. Not shared across threads (`unsendable`): launches run
/// on the calling thread with the GIL held.
#[pyclass(name = "Array", module = "weft._native", unsendable)]
pub struct PyArray {
    store: Store,
}

/// An array lent to a launch: the array itself, or its parent whose
/// gradient it is.
pub enum Lent<'py> {
    Own(PyRef<'py, PyArray>),
    Grad(PyRef<'py, PyArray>),
}

impl<'py> Lent<'py> {
    pub fn of(a: PyRef<'py, PyArray>, py: Python<'py>) -> PyResult<Lent<'py>> {
        Ok(match &a.store {
            Store::Own(_) => Lent::Own(a),
            Store::GradOf(p) => Lent::Grad(p.bind(py).try_borrow()?),
        })
    }
}

/// A borrow of a lent array's storage for the launch's duration.
pub enum Held<'a> {
    Plain(&'a weft::Array),
    Grad(Ref<'a, weft::Array>),
}

impl Held<'_> {
    pub fn array(&self) -> &weft::Array {
        match self {
            Held::Plain(a) => a,
            Held::Grad(g) => g,
        }
    }
}

impl<'py> Lent<'py> {
    pub fn hold(&self) -> PyResult<Held<'_>> {
        match self {
            Lent::Own(a) => Ok(Held::Plain(a.own()?)),
            Lent::Grad(p) => p
                .own()?
                .grad()
                .map(Held::Grad)
                .ok_or_else(|| PyRuntimeError::new_err("the array has no gradient")),
        }
    }
}

impl PyArray {
    fn own(&self) -> PyResult<&weft::Array> {
        match &self.store {
            Store::Own(a) => Ok(a),
            Store::GradOf(_) => Err(PyRuntimeError::new_err("a gradient has no gradient")),
        }
    }
    /// Runs `f` on the array's storage (its own, or its parent's gradient).
    fn with<R>(&self, py: Python<'_>, f: impl FnOnce(&weft::Array) -> R) -> PyResult<R> {
        match &self.store {
            Store::Own(a) => Ok(f(a)),
            Store::GradOf(p) => {
                let p = p.bind(py).try_borrow()?;
                let g = p
                    .own()?
                    .grad()
                    .ok_or_else(|| PyRuntimeError::new_err("the array has no gradient"))?;
                Ok(f(&g))
            }
        }
    }
    fn new(a: weft::Array, requires_grad: bool) -> PyArray {
        PyArray {
            store: Store::Own(if requires_grad { a.requires_grad() } else { a }),
        }
    }
}

fn check_shape(shape: &[usize]) -> PyResult<()> {
    if shape.is_empty() || shape.len() > 4 {
        return Err(PyValueError::new_err(format!(
            "an array has 1 to 4 dimensions, got shape {shape:?}"
        )));
    }
    Ok(())
}

#[pymethods]
impl PyArray {
    /// A zero-filled array.
    #[staticmethod]
    #[pyo3(signature = (dtype, shape, requires_grad=false))]
    fn zeros(dtype: &PyDtype, shape: Vec<usize>, requires_grad: bool) -> PyResult<PyArray> {
        check_shape(&shape)?;
        let a = weft::Array::zeros(dtype.inner.clone(), &shape).map_err(py_err)?;
        Ok(PyArray::new(a, requires_grad))
    }
    /// A copy of a C-contiguous NumPy array holding exactly the bytes of
    /// `shape` elements of `dtype`.
    #[staticmethod]
    #[pyo3(signature = (dtype, data, shape, requires_grad=false))]
    fn from_numpy(
        dtype: &PyDtype,
        data: &Bound<'_, PyUntypedArray>,
        shape: Vec<usize>,
        requires_grad: bool,
    ) -> PyResult<PyArray> {
        check_shape(&shape)?;
        let mut a = weft::Array::zeros(dtype.inner.clone(), &shape).map_err(py_err)?;
        a.copy_from_bytes(numpy_bytes(data)?).map_err(py_err)?;
        Ok(PyArray::new(a, requires_grad))
    }
    /// Overwrites the elements from a C-contiguous NumPy array of the same
    /// byte size.
    fn assign_numpy(&mut self, py: Python<'_>, data: &Bound<'_, PyUntypedArray>) -> PyResult<()> {
        let bytes = numpy_bytes(data)?;
        match &mut self.store {
            Store::Own(a) => a.copy_from_bytes(bytes).map_err(py_err),
            Store::GradOf(p) => {
                let p = p.bind(py).try_borrow()?;
                let mut g = p
                    .own()?
                    .grad_mut()
                    .ok_or_else(|| PyRuntimeError::new_err("the array has no gradient"))?;
                g.copy_from_bytes(bytes).map_err(py_err)
            }
        }
    }
    /// The element type.
    fn dtype(&self, py: Python<'_>) -> PyResult<PyDtype> {
        self.with(py, |a| PyDtype {
            inner: a.dtype().clone(),
        })
    }
    fn shape(&self, py: Python<'_>) -> PyResult<Vec<usize>> {
        self.with(py, |a| a.shape().to_vec())
    }
    /// Byte strides.
    fn strides(&self, py: Python<'_>) -> PyResult<Vec<i64>> {
        self.with(py, |a| a.strides().to_vec())
    }
    /// The address of the first element (valid while this object lives).
    fn ptr(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |a| a.as_ptr() as usize)
    }
    fn has_grad(&self, py: Python<'_>) -> PyResult<bool> {
        match &self.store {
            Store::Own(a) => Ok(a.has_grad()),
            Store::GradOf(_) => {
                let _ = py;
                Ok(false)
            }
        }
    }
    /// The gradient, an array viewing the storage of this one's gradient.
    fn grad(slf: Bound<'_, PyArray>) -> PyResult<Option<PyArray>> {
        let has = matches!(&slf.try_borrow()?.store, Store::Own(a) if a.has_grad());
        Ok(has.then(|| PyArray {
            store: Store::GradOf(slf.unbind()),
        }))
    }
    /// Zeroes the gradient, if any.
    fn zero_grad(&self) {
        if let Store::Own(a) = &self.store {
            a.zero_grad();
        }
    }
    /// Whether the element type is a struct.
    fn is_struct(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, |a| matches!(a.dtype().elem(), ElemType::Struct(_)))
    }
}

/// The data of a C-contiguous NumPy array.
fn numpy_bytes<'a>(data: &'a Bound<'_, PyUntypedArray>) -> PyResult<&'a [u8]> {
    if !data.is_c_contiguous() {
        return Err(PyValueError::new_err("the NumPy array is not C-contiguous"));
    }
    let n = data.len() * data.dtype().itemsize();
    if n == 0 {
        return Ok(&[]);
    }
    // SAFETY: `data` is a live, C-contiguous NumPy array of `n` bytes whose
    // data pointer is valid for reads while the borrow of `data` lasts; the
    // GIL is held, so no Python code resizes it meanwhile.
    Ok(unsafe {
        let raw = data.as_array_ptr();
        std::slice::from_raw_parts((*raw).fields.data as *const u8, n)
    })
}
