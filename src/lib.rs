//! # weft-cli — the `weft` tool's own modules
//!
//! What the `weft` command line runs on top of the library (`weft`) and
//! the tool crates (`weft-conform`: the corpus and its runners;
//! `weft-devtools`: fuzzing, benches, the builtin survey): none of it is
//! part of the library's API.
//!
//! * [`debug`]: `weft debug`'s command loop over the library's debugger;
//! * [`dap`]: the same debugger over the Debug Adapter Protocol;
//! * [`line_editor`]: line editing and history of `weft debug`.

pub mod dap;
pub mod debug;
pub mod line_editor;

/// The tools' error type ([`weft_conform::Error`]): the library's, a
/// conformance case's, or a benchmark's.
pub use weft_conform::Error;
