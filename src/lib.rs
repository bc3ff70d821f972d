//! # weft-cli — the `weft` command line
//!
//! A thin layer over the library (`weft`) and the tool crates: the
//! conformance corpus and its runners (`weft-conform`) and the developers'
//! tools (`weft-devtools`: fuzzing, benches, the builtin survey).
//!
//! * [`cmd`]: one module a subcommand, each with its own arguments; the
//!   binary `weft` is [`cmd::main`];
//! * [`debug`], [`line_editor`] and [`dap`]: `weft debug`'s command loop
//!   over the library's debugger, its line editing, and the same debugger
//!   over the Debug Adapter Protocol (`weft dap`).

pub mod cmd;
pub mod dap;
pub mod debug;
pub mod line_editor;

/// The tools' error type ([`weft_conform::Error`]): the library's, a
/// conformance case's, or a benchmark's.
pub use weft_conform::Error;
