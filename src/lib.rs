//! # weft-cli — the `weft` tool's own modules
//!
//! What the `weft` command line runs on top of the library (`weft`): none
//! of it is part of the library's API.
//!
//! * [`conform`]: the conformance corpus format (case.json, npy, struct
//!   repacking, the comparison rule) and the runner of `weft run` /
//!   `weft conform`;
//! * [`compare`] and [`report`]: `weft compare`, every backend against the
//!   interpreter, and its HTML page;
//! * [`bench`], [`gpu_bench`] and [`reference`]: `weft bench` /
//!   `weft bench-gpu` and the hand-written loops they are measured against;
//!   [`grad_bench`]: `weft bench --workload autodiff`;
//! * [`builtins`]: `weft builtins`, Warp's builtin registry against what
//!   each backend compiles (docs/builtins.md);
//! * [`debug`]: `weft debug`'s command loop over the library's debugger;
//! * [`fuzz`]: the fuzz targets' bodies and seeds, the random program
//!   generator and `weft fuzz-diff`;
//! * [`gradcheck`]: `weft gradcheck`, adjoint gradients against finite
//!   differences.

pub mod bench;
pub mod builtins;
pub mod compare;
pub mod conform;
pub mod dap;
pub mod debug;
pub mod fuzz;
pub mod gpu_bench;
pub mod grad_bench;
pub mod gradcheck;
pub mod line_editor;
pub mod reference;
pub mod report;

/// Any error of the tool: the library's, or a conformance case's.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Weft(#[from] weft::Error),
    /// A conformance case that cannot be loaded or run as described.
    #[error(transparent)]
    Case(#[from] conform::CaseError),
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
