//! The native core of the `weft` Python package (`weft._native`): the
//! Weft library's compiler, devices, host arrays and launches as Python
//! classes. The package's Python side (`python/weft/`) builds Warp's host
//! API (`weft.warp`) on these; see `docs/python.md`.

mod array;
mod dtype;
mod error;
mod kernel;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<dtype::PyDtype>()?;
    m.add_class::<array::PyArray>()?;
    m.add_class::<kernel::PyModule>()?;
    m.add_class::<kernel::PyDevice>()?;
    m.add_class::<kernel::PyKernel>()?;
    m.add_function(wrap_pyfunction!(kernel::compile, m)?)?;
    m.add_function(wrap_pyfunction!(device_names, m)?)?;
    m.add("WeftError", py.get_type::<error::WeftError>())?;
    m.add("CompileError", py.get_type::<error::CompileError>())?;
    m.add("LaunchError", py.get_type::<error::LaunchError>())?;
    m.add("DeviceError", py.get_type::<error::DeviceError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// The names of the devices this build has.
#[pyfunction]
fn device_names() -> Vec<String> {
    weft::device_names().into_iter().map(String::from).collect()
}
