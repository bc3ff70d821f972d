//! Weft's errors as Python exceptions.

use pyo3::create_exception;
use pyo3::exceptions::PyRuntimeError;
use pyo3::PyErr;

create_exception!(
    _native,
    WeftError,
    PyRuntimeError,
    "Base of the errors raised by Weft."
);
create_exception!(
    _native,
    CompileError,
    WeftError,
    "The kernel source does not compile (the message has rustc-style diagnostics)."
);
create_exception!(
    _native,
    LaunchError,
    WeftError,
    "A launch was refused (arguments do not match the kernel) or failed."
);
create_exception!(
    _native,
    DeviceError,
    WeftError,
    "A device cannot be opened or cannot run the kernel."
);

/// The Python exception of a Weft error, with its rendered message.
pub fn to_py(e: weft::Error) -> PyErr {
    let msg = match &e {
        weft::Error::Frontend(d) => d.render(false),
        e => e.to_string(),
    };
    match e {
        weft::Error::Frontend(_) | weft::Error::Pass(_) | weft::Error::Adjoint(_) => {
            CompileError::new_err(msg)
        }
        weft::Error::Launch(_) | weft::Error::Array(_) | weft::Error::Gradient(_) => {
            LaunchError::new_err(msg)
        }
        _ => DeviceError::new_err(msg),
    }
}

/// [`to_py`] of anything that converts to a Weft error.
pub fn py_err<E: Into<weft::Error>>(e: E) -> PyErr {
    to_py(e.into())
}
