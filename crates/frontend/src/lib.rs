//! # weft-frontend — Warp kernel source to Weft IR
//!
//! (Being built: see ARCHITECTURE.md.)

pub mod diag;
pub(crate) mod builtins;

pub use diag::{Diagnostic, Span};
