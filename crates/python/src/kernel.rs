//! Compiling (`weft.compile`), devices, kernels and launches.

use crate::array::{Held, Lent, PyArray};
use crate::dtype::{pack_value, PyDtype};
use crate::error::{py_err, to_py, LaunchError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;
use weft::ir::Type;
use weft::{Arg, CompileOptions, Compiler, Dtype};

/// A compiled module.
#[pyclass(name = "Module", module = "weft._native", frozen)]
pub struct PyModule {
    inner: Arc<weft::Module>,
}

/// Compiles `source` (a module of Warp's kernel language) named
/// `file_name` in diagnostics. With `cache`, the optimized IR is kept in
/// Weft's disk cache.
#[pyfunction]
#[pyo3(signature = (file_name, source, checked=false, fast_math=false, opt=true, cache=true, deterministic=false))]
#[allow(clippy::too_many_arguments)]
pub fn compile(
    py: Python<'_>,
    file_name: &str,
    source: &str,
    checked: bool,
    fast_math: bool,
    opt: bool,
    cache: bool,
    deterministic: bool,
) -> PyResult<PyModule> {
    let options = CompileOptions {
        checked,
        fast_math,
        opt,
        deterministic,
        ..Default::default()
    };
    let compiler = Compiler::with_options(options);
    let compiler = if cache {
        compiler.with_default_cache()
    } else {
        compiler
    };
    let m = py
        .detach(|| compiler.compile(file_name, source))
        .map_err(to_py)?;
    Ok(PyModule { inner: Arc::new(m) })
}

#[pymethods]
impl PyModule {
    fn kernel_names(&self) -> Vec<String> {
        self.inner.kernel_names()
    }
    /// The module's IR text.
    fn ir(&self) -> String {
        self.inner.ir_text()
    }
    /// The Cranelift IR of the CPU backend.
    fn clif(&self) -> PyResult<String> {
        self.inner.clif_text().map_err(to_py)
    }
    /// The HLSL shader of `kernel`.
    fn hlsl(&self, kernel: &str) -> PyResult<String> {
        self.inner
            .hlsl(kernel, &Default::default())
            .map(|s| s.source)
            .map_err(to_py)
    }
    /// The element types func `name` returns (one per value; a module
    /// compiled with `opt=False` keeps its funcs): what the compiler's
    /// builtin table makes of a call, for builtins called from Python.
    fn func_returns(&self, name: &str) -> PyResult<Vec<PyDtype>> {
        let m = self.inner.ir();
        let f = m
            .func_by_name(name)
            .map(|id| &m.funcs[id])
            .ok_or_else(|| PyValueError::new_err(format!("the module has no func `{name}`")))?;
        let structs = Arc::new(m.structs.clone());
        f.returns
            .iter()
            .map(|t| {
                t.as_elem()
                    .map(|e| PyDtype {
                        inner: Dtype::with_structs(e, structs.clone()),
                    })
                    .ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "func `{name}` returns a {t:?}, which is not a value type"
                        ))
                    })
            })
            .collect()
    }
    /// The element type of struct `name` of the module.
    fn struct_dtype(&self, name: &str) -> PyResult<PyDtype> {
        let structs = Arc::new(self.inner.ir().structs.clone());
        Dtype::struct_named(name, structs)
            .map(|inner| PyDtype { inner })
            .ok_or_else(|| PyValueError::new_err(format!("the module has no struct `{name}`")))
    }
}

/// An opened device.
#[pyclass(name = "Device", module = "weft._native", frozen)]
pub struct PyDevice {
    inner: weft::Device,
}

/// One parameter of a kernel as Python sees it.
struct ParamInfo {
    name: String,
    /// The element type (of the array, or of the value).
    dtype: Dtype,
    /// `Some(ndim)` for an array parameter.
    ndim: Option<u8>,
}

/// A kernel loaded on a device.
#[pyclass(name = "Kernel", module = "weft._native", frozen)]
pub struct PyKernel {
    inner: weft::Kernel,
    module: Arc<weft::Module>,
    params: Vec<ParamInfo>,
}

#[pymethods]
impl PyDevice {
    /// Opens device `name` (`cpu`, `interp`, `llvm-cpu`, `cuda:0`, `vulkan`).
    #[new]
    fn new(name: &str) -> PyResult<PyDevice> {
        Ok(PyDevice {
            inner: weft::Device::open(name).map_err(to_py)?,
        })
    }
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn describe(&self) -> String {
        format!("{:?}", self.inner.describe())
    }
    /// Kernel `name` of `module`, compiled for this device.
    fn load(&self, py: Python<'_>, module: &PyModule, name: &str) -> PyResult<PyKernel> {
        let m = module.inner.clone();
        let k = py.detach(|| self.inner.load(&m, name)).map_err(to_py)?;
        let sig = k.signature();
        let params = sig
            .params
            .iter()
            .filter_map(|p| {
                let (elem, ndim) = match p.ty {
                    Type::Array(a) => (a.elem, Some(a.ndim)),
                    t => (t.as_elem()?, None),
                };
                Some(ParamInfo {
                    name: p.name.clone(),
                    dtype: Dtype::with_structs(elem, sig.structs.clone()),
                    ndim,
                })
            })
            .collect();
        Ok(PyKernel {
            inner: k,
            module: m,
            params,
        })
    }
    /// Runs `kernel` over `dim` with `args` in parameter order: `Array`s
    /// for array parameters; numbers, flat sequences of numbers or `bytes`
    /// (the C layout) for values.
    fn launch(
        &self,
        py: Python<'_>,
        kernel: &PyKernel,
        dim: Vec<usize>,
        args: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        with_args(py, kernel, &args, |a| {
            self.inner.launch(&kernel.inner, &dim, a).map_err(to_py)
        })
    }
    /// Runs the adjoint of a launch of `kernel` with `args` (as `launch`
    /// takes them): arrays with a gradient accumulate into it.
    fn launch_adjoint(
        &self,
        py: Python<'_>,
        kernel: &PyKernel,
        dim: Vec<usize>,
        args: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let adj = self
            .inner
            .load_adjoint(&kernel.module, kernel.inner.name())
            .map_err(to_py)?;
        with_args(py, kernel, &args, |a| {
            self.inner.launch_adjoint(&adj, &dim, a).map_err(to_py)
        })
    }
    fn synchronize(&self) -> PyResult<()> {
        self.inner.synchronize().map_err(to_py)
    }
}

#[pymethods]
impl PyKernel {
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }
    /// The code it runs now, in words (`Cranelift (scalar)`, `LLVM vector
    /// tier (16 lanes)`, `PTX`, ...): on `cpu` it changes once its module
    /// has moved to the vector tier.
    fn tier(&self) -> String {
        self.inner
            .tier()
            .map_or_else(|| "unknown".to_string(), |t| t.to_string())
    }
    /// The parameters: `(name, Dtype, ndim)`, `ndim` `None` for values.
    fn params(&self) -> Vec<(String, PyDtype, Option<u8>)> {
        self.params
            .iter()
            .map(|p| {
                (
                    p.name.clone(),
                    PyDtype {
                        inner: p.dtype.clone(),
                    },
                    p.ndim,
                )
            })
            .collect()
    }
}

/// Converts `args` to launch arguments of `kernel` and runs `f` on them.
fn with_args<R>(
    py: Python<'_>,
    kernel: &PyKernel,
    args: &[Bound<'_, PyAny>],
    f: impl FnOnce(&[Arg<'_>]) -> PyResult<R>,
) -> PyResult<R> {
    let params = &kernel.params;
    if args.len() != params.len() {
        return Err(LaunchError::new_err(format!(
            "kernel `{}` takes {} arguments, got {}",
            kernel.inner.name(),
            params.len(),
            args.len()
        )));
    }
    let named = |p: &ParamInfo, e: PyErr| {
        let ty = e.get_type(py);
        let msg = format!("argument `{}`: {}", p.name, e.value(py));
        PyErr::from_type(ty, msg)
    };
    // Borrow every array first, then build the arguments over the borrows.
    let mut lent = Vec::new();
    let mut values = Vec::new();
    for (p, a) in params.iter().zip(args) {
        if p.ndim.is_some() {
            let arr = a.cast::<PyArray>().map_err(|_| {
                LaunchError::new_err(format!(
                    "argument `{}`: expected an array, got {}",
                    p.name,
                    a.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?;
            lent.push(Lent::of(arr.try_borrow()?, py)?);
        } else {
            values.push(pack_value(&p.dtype, a).map_err(|e| named(p, e))?);
        }
    }
    let held = lent
        .iter()
        .map(|l| l.hold())
        .collect::<PyResult<Vec<Held<'_>>>>()?;
    let (mut held_it, mut val_it) = (held.iter(), values.into_iter());
    let mut launch_args = Vec::with_capacity(params.len());
    for p in params {
        let arg = if p.ndim.is_some() {
            held_it.next().map(|h| Arg::Array(h.array()))
        } else {
            val_it.next().map(Arg::Value)
        };
        launch_args
            .push(arg.ok_or_else(|| py_err(weft::Error::Gradient("argument count".into())))?);
    }
    f(&launch_args)
}
