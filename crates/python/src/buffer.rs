//! `weft._native.BufferExporter`: the buffer protocol (PEP 3118) for
//! `wp.array`, which subclasses it (Python 3.11 has no `__buffer__` for
//! pure Python classes). The Python side describes the memory
//! (`_buffer_spec()`: address, item size, struct format, shape, byte
//! strides and the object that owns the memory); this class checks the
//! consumer's flags against it and fills the `Py_buffer`, zero copy and
//! writable. MPI (mpi4py), `memoryview`, NumPy and the like take a
//! `wp.array` as it is.

use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::ffi::{c_int, c_void, CString};

/// The base class of `wp.array`: exports the buffer `_buffer_spec()`
/// describes. Holds nothing itself.
#[pyclass(name = "BufferExporter", module = "weft._native", subclass, frozen)]
pub struct PyBufferExporter;

/// What one export keeps alive until its release: the format string,
/// shape and strides the `Py_buffer` points at, and the memory's owner
/// (so that `a.free()` during an export does not free the memory).
struct Export {
    format: CString,
    shape: Vec<ffi::Py_ssize_t>,
    strides: Vec<ffi::Py_ssize_t>,
    _owner: Py<PyAny>,
}

/// The memory an array describes (`_buffer_spec()`'s tuple).
struct Spec {
    ptr: usize,
    itemsize: isize,
    format: String,
    shape: Vec<isize>,
    strides: Vec<isize>,
}

impl Spec {
    fn len_bytes(&self) -> Option<isize> {
        self.shape
            .iter()
            .try_fold(self.itemsize, |acc, &n| acc.checked_mul(n))
    }

    /// Whether the elements are laid out row-major (`c`) or column-major
    /// without gaps; axes of length 1 may have any stride.
    fn contiguous(&self, c: bool) -> bool {
        if self.shape.contains(&0) {
            return true;
        }
        let mut expect = self.itemsize;
        let axes: Vec<usize> = if c {
            (0..self.shape.len()).rev().collect()
        } else {
            (0..self.shape.len()).collect()
        };
        for k in axes {
            if self.shape[k] != 1 && self.strides[k] != expect {
                return false;
            }
            expect *= self.shape[k];
        }
        true
    }

    /// Checks the consumer's request (`flags`) against the layout.
    fn check(&self, flags: c_int, what: &str) -> PyResult<()> {
        let has = |f: c_int| flags & f == f;
        let c = self.contiguous(true);
        let refuse = |need: &str| {
            PyBufferError::new_err(format!(
                "{what}: the consumer asked for a {need} buffer; the array's layout (shape {:?}, byte strides {:?}) is not; pass a contiguous copy (.contiguous())",
                self.shape, self.strides
            ))
        };
        if !has(ffi::PyBUF_STRIDES) && !c {
            return Err(refuse("C-contiguous (no strides)"));
        }
        if has(ffi::PyBUF_C_CONTIGUOUS) && !c {
            return Err(refuse("C-contiguous"));
        }
        if has(ffi::PyBUF_F_CONTIGUOUS) && !self.contiguous(false) {
            return Err(refuse("Fortran-contiguous"));
        }
        if has(ffi::PyBUF_ANY_CONTIGUOUS) && !c && !self.contiguous(false) {
            return Err(refuse("contiguous"));
        }
        Ok(())
    }
}

fn read_spec(slf: &Bound<'_, PyBufferExporter>) -> PyResult<(Spec, Py<PyAny>, String)> {
    let what: String = slf
        .call_method0("_buffer_name")
        .and_then(|n| n.extract())
        .unwrap_or_else(|_| "the array".to_string());
    let spec = slf.call_method0("_buffer_spec")?;
    let (ptr, itemsize, format, shape, strides, owner): (
        usize,
        isize,
        String,
        Vec<isize>,
        Vec<isize>,
        Py<PyAny>,
    ) = spec.extract()?;
    let bad = |m: &str| PyBufferError::new_err(format!("{what}: {m}"));
    if itemsize <= 0 {
        return Err(bad("an item size of 0 bytes cannot be exported"));
    }
    if shape.len() != strides.len() || shape.len() > ffi::PyBUF_MAX_NDIM {
        return Err(bad(&format!(
            "shape {shape:?} and strides {strides:?} do not describe a buffer of at most {} dimensions",
            ffi::PyBUF_MAX_NDIM
        )));
    }
    if shape.iter().any(|&n| n < 0) {
        return Err(bad(&format!("negative extent in shape {shape:?}")));
    }
    if ptr == 0 {
        return Err(bad("no memory (null address)"));
    }
    let s = Spec {
        ptr,
        itemsize,
        format,
        shape,
        strides,
    };
    if s.len_bytes().is_none() {
        return Err(bad("the byte size overflows"));
    }
    Ok((s, owner, what))
}

#[pymethods]
impl PyBufferExporter {
    /// Takes and ignores any arguments: the Python subclass's `__init__`
    /// does the construction.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        PyBufferExporter
    }

    /// # Safety
    /// `view` is the `Py_buffer` CPython passes to `bf_getbuffer`.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if view.is_null() {
            return Err(PyBufferError::new_err("no Py_buffer to fill (null view)"));
        }
        // SAFETY: `view` is non-null and is CPython's Py_buffer to fill;
        // the protocol wants `obj` NULL when the export fails, which every
        // early return below does.
        unsafe { (*view).obj = std::ptr::null_mut() };
        let (spec, owner, what) = read_spec(&slf)?;
        spec.check(flags, &what)?;
        let format = CString::new(spec.format.as_str()).map_err(|_| {
            PyBufferError::new_err(format!(
                "{what}: the struct format {:?} holds a NUL byte",
                spec.format
            ))
        })?;
        let len = spec.len_bytes().unwrap_or(0);
        let mut export = Box::new(Export {
            format,
            shape: spec.shape.clone(),
            strides: spec.strides.clone(),
            _owner: owner,
        });
        let ndim = export.shape.len() as c_int;
        let want_format = flags & ffi::PyBUF_FORMAT == ffi::PyBUF_FORMAT;
        let want_nd = flags & ffi::PyBUF_ND == ffi::PyBUF_ND;
        let want_strides = flags & ffi::PyBUF_STRIDES == ffi::PyBUF_STRIDES;
        let format_ptr = if want_format {
            export.format.as_ptr() as *mut _
        } else {
            std::ptr::null_mut()
        };
        let shape_ptr = if want_nd {
            export.shape.as_mut_ptr()
        } else {
            std::ptr::null_mut()
        };
        let strides_ptr = if want_strides {
            export.strides.as_mut_ptr()
        } else {
            std::ptr::null_mut()
        };
        // SAFETY: `view` is non-null and points at the Py_buffer CPython
        // passes to bf_getbuffer, ours to fill. `buf` is the array's
        // memory, `len` bytes from `ptr` as the Python side described it,
        // kept alive by `_owner` in the boxed `Export` (and by `obj`); the
        // format, shape and strides point into that box, which lives
        // (its heap data does not move) until `__releasebuffer__` frees
        // it through `internal`. `obj` gets its own strong reference,
        // which PyBuffer_Release drops.
        unsafe {
            (*view).buf = spec.ptr as *mut c_void;
            (*view).obj = slf.into_any().into_ptr();
            (*view).len = len;
            (*view).itemsize = spec.itemsize;
            (*view).readonly = 0;
            (*view).ndim = if want_nd { ndim } else { 1 };
            (*view).format = format_ptr;
            (*view).shape = shape_ptr;
            (*view).strides = strides_ptr;
            (*view).suboffsets = std::ptr::null_mut();
            (*view).internal = Box::into_raw(export) as *mut c_void;
        }
        Ok(())
    }

    /// # Safety
    /// `view` is a `Py_buffer` `__getbuffer__` filled.
    unsafe fn __releasebuffer__(&self, view: *mut ffi::Py_buffer) {
        if view.is_null() {
            return;
        }
        // SAFETY: `internal` was set by `__getbuffer__` to a leaked
        // `Box<Export>` and is released once (CPython calls
        // bf_releasebuffer once per successful bf_getbuffer); it is reset
        // to null so that a second call would free nothing.
        unsafe {
            let internal = (*view).internal as *mut Export;
            if !internal.is_null() {
                drop(Box::from_raw(internal));
                (*view).internal = std::ptr::null_mut();
            }
        }
    }
}

/// The leading fields of DLPack's `DLTensor` (dlpack.h, ABI-stable since
/// DLPack 0.x): the data pointer and the device.
#[repr(C)]
struct DlTensorHead {
    data: *mut c_void,
    device_type: i32,
    device_id: i32,
}

/// The leading fields of `DLManagedTensorVersioned` (DLPack 1.x): its
/// `DLTensor` comes after the version, the manager context, the deleter
/// and the flags.
#[repr(C)]
struct DlManagedVersionedHead {
    major: u32,
    minor: u32,
    manager_ctx: *mut c_void,
    deleter: *mut c_void,
    flags: u64,
    tensor: DlTensorHead,
}

/// `(device_type, device_id)` of an unconsumed DLPack capsule (named
/// `dltensor` or `dltensor_versioned`), read without consuming it, so
/// that `wp.from_dlpack` can refuse device memory before NumPy takes the
/// capsule. Anything else raises `TypeError`.
#[pyfunction]
pub fn dlpack_capsule_device(capsule: &Bound<'_, PyAny>) -> PyResult<(i32, i32)> {
    use pyo3::exceptions::PyTypeError;
    use pyo3::types::{PyCapsule, PyCapsuleMethods};
    let not_capsule = || {
        PyTypeError::new_err(format!(
            "Expected a valid DLPack capsule, got {}",
            capsule
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_else(|_| "?".into())
        ))
    };
    let cap = capsule.cast::<PyCapsule>().map_err(|_| not_capsule())?;
    if let Ok(p) = cap.pointer_checked(Some(c"dltensor")) {
        // SAFETY: a capsule named "dltensor" holds a DLManagedTensor, whose
        // first field is the DLTensor (DLPack's ABI); we read its data
        // pointer and device, which the producer keeps valid until the
        // capsule is consumed or destroyed (we hold a reference to it).
        let head = unsafe { &*(p.as_ptr() as *const DlTensorHead) };
        return Ok((head.device_type, head.device_id));
    }
    if let Ok(p) = cap.pointer_checked(Some(c"dltensor_versioned")) {
        // SAFETY: a capsule named "dltensor_versioned" holds a
        // DLManagedTensorVersioned (DLPack >= 1.0), laid out as
        // `DlManagedVersionedHead` up to its DLTensor's device; valid as
        // above while we hold the capsule.
        let head = unsafe { &*(p.as_ptr() as *const DlManagedVersionedHead) };
        return Ok((head.tensor.device_type, head.tensor.device_id));
    }
    Err(PyTypeError::new_err(
        "Expected a valid DLPack capsule (named 'dltensor' or 'dltensor_versioned', not yet consumed)",
    ))
}
