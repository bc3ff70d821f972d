//! # weft-ir — Weft's intermediate representation
//!
//! One structured SSA IR is shared by the frontend, the passes, every backend
//! and the reference interpreter:
//!
//! * [`types`]: scalar and aggregate types, struct definitions;
//! * [`ir`]: modules, functions, regions, instructions, values (the data
//!   model — start there);
//! * [`builder`]: a cursor that appends instructions;
//! * [`layout`]: memory layout of types and the kernel argument block (the
//!   ABI every backend and the runtime share);
//! * [`mathfn`]: the float math functions backends compute by library calls;
//! * [`verify`]: the verifier (its docs list every invariant), which
//!   returns the [`info::ModuleInfo`] backends and the runtime rely on;
//! * [`opt`]: the one optimization level type ([`OptLevel`]);
//! * [`uniform`]: which values are uniform or varying under SPMD
//!   execution (the vectorizing CPU tier);
//! * [`text`]: the text form — printer and parser, which round-trip;
//! * [`interp`]: the reference interpreter, the oracle backends are tested
//!   against.
//!
//! See `docs/ir.md` for the text syntax and semantics.

pub mod builder;
pub mod determinism;
pub mod f16;
pub mod info;
pub mod interp;
pub mod ir;
pub mod layout;
pub mod mathfn;
pub mod opt;
pub mod text;
pub mod types;
pub mod uniform;
pub mod verify;

pub use builder::FuncBuilder;
pub use determinism::{Accumulation, Determinism};
pub use info::{IndexRange, KernelInfo, LengthRule, ModuleInfo};
pub use ir::*;
pub use mathfn::MathFn;
pub use opt::{OptLevel, ParseOptLevelError};
pub use types::{ArrayType, DisplayType, ElemType, Field, Scalar, StructDef, StructTable, Type};
