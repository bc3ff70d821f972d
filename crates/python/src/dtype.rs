//! Element types (`weft.Dtype`) and the packing of Python values into a
//! kernel's by-value arguments.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt};
use weft::ir::{ElemType, Scalar};
use weft::{Dtype, Value};

/// An element type: a scalar, vector, matrix, quaternion, transform or a
/// struct of a compiled module.
#[pyclass(name = "Dtype", module = "weft._native", frozen)]
#[derive(Clone)]
pub struct PyDtype {
    pub inner: Dtype,
}

pub fn scalar_of(name: &str) -> PyResult<Scalar> {
    Scalar::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown scalar type `{name}`")))
}

#[pymethods]
impl PyDtype {
    /// `kind` is `scalar`, `vec`, `mat`, `quat` or `transform`; `scalar` an
    /// IR scalar name (`f32`, `i64`, ...); `a`, `b` the length or shape.
    #[staticmethod]
    #[pyo3(signature = (kind, scalar, a=0, b=0))]
    fn of(kind: &str, scalar: &str, a: u8, b: u8) -> PyResult<PyDtype> {
        let s = scalar_of(scalar)?;
        let elem = match kind {
            "scalar" => ElemType::Scalar(s),
            "vec" if (1..=16).contains(&a) => ElemType::Vec(a, s),
            "mat" if (1..=16).contains(&a) && (1..=16).contains(&b) => ElemType::Mat(a, b, s),
            "quat" => ElemType::Quat(s),
            "transform" => ElemType::Transform(s),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "no element type `{kind}` of {scalar} with sizes {a}, {b}"
                )))
            }
        };
        Ok(PyDtype {
            inner: Dtype::new(elem),
        })
    }
    /// Size in bytes of one element.
    #[getter]
    fn size(&self) -> usize {
        self.inner.size()
    }
    /// The scalar leaves in memory order: `(byte offset, scalar name)`.
    fn leaves(&self) -> Vec<(u32, &'static str)> {
        self.inner
            .leaves()
            .into_iter()
            .map(|l| (l.offset, l.scalar.name()))
            .collect()
    }
    /// The struct's fields `(name, Dtype)`, for a struct element type.
    fn fields(&self) -> Vec<(String, PyDtype)> {
        let ElemType::Struct(id) = self.inner.elem() else {
            return Vec::new();
        };
        let structs = self.inner.structs().clone();
        let Some(def) = structs.get(id) else {
            return Vec::new();
        };
        def.fields
            .iter()
            .filter_map(|f| {
                let elem = f.ty.as_elem()?;
                Some((
                    f.name.clone(),
                    PyDtype {
                        inner: Dtype::with_structs(elem, structs.clone()),
                    },
                ))
            })
            .collect()
    }
    fn __str__(&self) -> String {
        self.inner.to_string()
    }
    fn __repr__(&self) -> String {
        format!("Dtype({})", self.inner)
    }
    fn __eq__(&self, other: &PyDtype) -> bool {
        self.inner.same_as(&other.inner)
    }
}

/// Writes one number as scalar `s`, little-endian. Python ints become
/// integers wrapped to the width (Warp's ctypes conversion); a float for
/// an integer is refused.
fn put_scalar(out: &mut Vec<u8>, s: Scalar, v: &Bound<'_, PyAny>) -> PyResult<()> {
    let is_float = v.is_instance_of::<PyFloat>();
    let is_int = v.is_instance_of::<PyInt>() || v.is_instance_of::<PyBool>();
    if s.is_float() {
        if !is_float && !is_int {
            // NumPy scalars and other numbers convert through `__float__`.
            if v.hasattr("__float__")? {
            } else {
                return Err(PyTypeError::new_err(format!(
                    "expected a number for {}, got {}",
                    s.warp_name(),
                    v.get_type().name()?
                )));
            }
        }
        let x: f64 = v.extract()?;
        match s {
            Scalar::F16 => out.extend_from_slice(&half::f16::from_f64(x).to_le_bytes()),
            Scalar::BF16 => out.extend_from_slice(&half::bf16::from_f64(x).to_le_bytes()),
            Scalar::F32 => out.extend_from_slice(&(x as f32).to_le_bytes()),
            _ => out.extend_from_slice(&x.to_le_bytes()),
        }
        return Ok(());
    }
    if is_float {
        return Err(PyTypeError::new_err(format!(
            "expected an integer for {}, got float",
            s.warp_name()
        )));
    }
    if s == Scalar::Bool {
        out.push(u8::from(v.is_truthy()?));
        return Ok(());
    }
    let int = v.call_method0("__index__").map_err(|_| {
        PyTypeError::new_err(format!(
            "expected an integer for {}, got {}",
            s.warp_name(),
            v.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    // Wrap to 64 bits as ctypes does, then keep the low bytes.
    let bits: u64 = match int.extract::<i64>() {
        Ok(x) => x as u64,
        Err(_) => int.call_method1("__and__", (u64::MAX,))?.extract::<u64>()?,
    };
    out.extend_from_slice(&bits.to_le_bytes()[..s.size() as usize]);
    Ok(())
}

/// The by-value argument of type `dtype` made of `v`: a number (a scalar
/// type), a flat sequence of numbers (the leaves of a vector, matrix,
/// quaternion or transform, in memory order) or `bytes` (the C layout,
/// for structs).
pub fn pack_value(dtype: &Dtype, v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(b) = v.cast::<PyBytes>() {
        return Value::from_bytes(dtype.clone(), b.as_bytes().to_vec())
            .map_err(|e| PyValueError::new_err(e.to_string()));
    }
    let mut bytes = Vec::with_capacity(dtype.size());
    match dtype.elem() {
        ElemType::Scalar(s) => put_scalar(&mut bytes, s, v)?,
        ElemType::Struct(_) => {
            return Err(PyTypeError::new_err(format!(
                "expected a {dtype} struct value, got {}",
                v.get_type().name()?
            )))
        }
        _ => {
            let leaves = dtype.leaves();
            let n = v.len().map_err(|_| {
                PyTypeError::new_err(format!(
                    "expected a {dtype} (a sequence of {} numbers), got {}",
                    leaves.len(),
                    v.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?;
            if n != leaves.len() {
                return Err(PyValueError::new_err(format!(
                    "expected a {dtype} of {} components, got {n}",
                    leaves.len()
                )));
            }
            for (i, leaf) in leaves.iter().enumerate() {
                bytes.resize(leaf.offset as usize, 0);
                put_scalar(&mut bytes, leaf.scalar, &v.get_item(i)?)?;
            }
            bytes.resize(dtype.size(), 0);
        }
    }
    Value::from_bytes(dtype.clone(), bytes).map_err(|e| PyValueError::new_err(e.to_string()))
}
