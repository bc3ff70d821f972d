//! Fuzzing and differential testing (`docs/reliability.md`).
//!
//! * [`targets`]: the bodies of the coverage-guided fuzz targets of
//!   `fuzz/` (cargo fuzz), one function per target, each panicking only
//!   when an invariant of a layer is broken; `tests/fuzz_targets.rs`
//!   replays their seed corpora and the inputs that once found bugs
//!   through the same functions.
//! * [`seeds`]: the seed inputs of each target, derived from the
//!   conformance corpus (`weft fuzz-seeds`).
//! * [`progen`]: a deterministic generator of random well-typed,
//!   race-free Warp kernels with their inputs.
//! * [`diff`]: `weft fuzz-diff`: generated programs run on several
//!   backends and compared with the interpreter.

pub mod diff;
pub mod progen;
pub mod seeds;
pub mod targets;
