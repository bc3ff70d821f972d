//! The tools' error: the library's, a conformance case's, or a
//! benchmark's. `weft-conform` is the lowest of the tool crates, so the
//! others (`weft-devtools`, `weft-cli`) return this one type.

use crate::CaseError;

/// Any error of the tools over the library: the library's, or a
/// conformance case's, or a benchmark's.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Weft(#[from] weft::Error),
    /// A conformance case that cannot be loaded or run as described.
    #[error(transparent)]
    Case(#[from] CaseError),
    /// A benchmark that cannot run (e.g. its thread pool).
    #[error("bench: {0}")]
    Bench(String),
}

impl Error {
    /// Whether a device's backend cannot express the kernel
    /// ([`weft::Error::is_unsupported`]).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Error::Weft(e) if e.is_unsupported())
    }
    /// The error as text; frontend diagnostics are rendered rustc-style
    /// (with ANSI colors if `color`).
    pub fn render(&self, color: bool) -> String {
        match self {
            Error::Weft(e) => e.render(color),
            e => format!("error: {e}"),
        }
    }
    /// An I/O error about `path`.
    pub fn io(path: impl Into<std::path::PathBuf>, source: std::io::Error) -> Error {
        weft::Error::io(path, source).into()
    }
}

/// The library's errors convert through [`weft::Error`].
macro_rules! via_weft {
    ($($t:ty),*) => {$(
        impl From<$t> for Error {
            fn from(e: $t) -> Error {
                Error::Weft(e.into())
            }
        }
    )*};
}
via_weft!(
    weft::RuntimeError,
    weft::LaunchError,
    weft::ArrayError,
    weft::PassError
);
