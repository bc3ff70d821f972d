//! Weft's errors as Python exceptions.

use pyo3::create_exception;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
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
    "The kernel source does not compile: `FILE:LINE:COL: message` (the rustc-style rendering is the exception's note)."
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

/// The Python exception of a Weft error. A compile error's message is
/// `FILE:LINE:COL: MESSAGE` for each diagnostic (as Warp's messages end with
/// the error's text, which its tests match), and the rustc-style rendering
/// with the source line and caret is attached as the exception's note, so
/// a traceback shows it.
pub fn to_py(e: weft::Error) -> PyErr {
    match e {
        weft::Error::Frontend(d) => {
            let err = CompileError::new_err(short(&d));
            Python::attach(|py| {
                // A note that cannot be attached loses only the rendering.
                let _ = err.value(py).call_method1("add_note", (d.render(false),));
            });
            err
        }
        e @ (weft::Error::Pass(_) | weft::Error::Adjoint(_)) => {
            CompileError::new_err(e.to_string())
        }
        e @ (weft::Error::Launch(_) | weft::Error::Array(_) | weft::Error::Gradient(_)) => {
            LaunchError::new_err(e.to_string())
        }
        e => DeviceError::new_err(e.to_string()),
    }
}

/// `FILE:LINE:COL: MESSAGE` of each diagnostic, one per line.
fn short(d: &weft::Diagnostics) -> String {
    d.items
        .iter()
        .map(|item| {
            let at = usize::from(item.span.start()).min(d.source.len());
            let before = d.source.get(..at).unwrap_or("");
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("{}:{line}:{col}: {}", d.file_name, item.message)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// [`to_py`] of anything that converts to a Weft error.
pub fn py_err<E: Into<weft::Error>>(e: E) -> PyErr {
    to_py(e.into())
}
