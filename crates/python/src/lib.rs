//! The native core of the `weft` Python package (`weft._native`): the
//! Weft library's compiler, devices, host arrays and launches as Python
//! classes. The package's Python side (`python/weft/`) builds Warp's host
//! API (`weft.warp`) on these; see `docs/python.md`.

mod array;
mod buffer;
mod dtype;
mod error;
mod kernel;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<dtype::PyDtype>()?;
    m.add_class::<array::PyArray>()?;
    m.add_class::<buffer::PyBufferExporter>()?;
    m.add_class::<kernel::PyModule>()?;
    m.add_class::<kernel::PyDevice>()?;
    m.add_class::<kernel::PyKernel>()?;
    m.add_function(wrap_pyfunction!(kernel::compile, m)?)?;
    m.add_function(wrap_pyfunction!(device_names, m)?)?;
    m.add_function(wrap_pyfunction!(build_info, m)?)?;
    m.add_function(wrap_pyfunction!(buffer::dlpack_capsule_device, m)?)?;
    m.add("WeftError", py.get_type::<error::WeftError>())?;
    m.add("CompileError", py.get_type::<error::CompileError>())?;
    m.add("LaunchError", py.get_type::<error::LaunchError>())?;
    m.add("DeviceError", py.get_type::<error::DeviceError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// What this build has: `{"version", "features", "devices", "cpu_tiers",
/// "vector_lanes"}` (`vector_lanes`: the vector tier's width, `None`
/// without the `llvm` feature).
#[pyfunction]
fn build_info(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let b = weft::build_info();
    let d = pyo3::types::PyDict::new(py);
    d.set_item("version", b.version)?;
    d.set_item("features", b.features.clone())?;
    d.set_item("devices", b.devices.clone())?;
    let tiers: Vec<String> = b.cpu_tiers.iter().map(|t| t.to_string()).collect();
    d.set_item("cpu_tiers", tiers)?;
    let lanes = b.cpu_tiers.iter().find_map(|t| match t {
        weft::CodeTier::Llvm { lanes } => Some(*lanes),
        _ => None,
    });
    d.set_item("vector_lanes", lanes)?;
    Ok(d)
}

/// The names of the devices this build has.
#[pyfunction]
fn device_names() -> Vec<String> {
    weft::device_names().into_iter().map(String::from).collect()
}
