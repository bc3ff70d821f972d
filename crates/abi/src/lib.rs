//! # weft-abi — the host ABI below every backend
//!
//! What compiled kernels and the runtime agree on, written once:
//!
//! * [`KernelEntry`]: the entry point of a host-compiled kernel (`cpu`,
//!   `llvm-cpu`): `unsafe extern "C" fn(args, start, end)` runs the
//!   threads with linear indices `start..end` in order; `args` points to
//!   the argument block of [`weft_ir::layout`] (launch dims, then the
//!   parameters; arrays as [`weft_ir::layout::ArrayDesc`]).
//! * [`shims`]: the `extern "C"` functions host code calls (math, `f16`,
//!   `print`, traps, debug hooks) — one table of symbol names, addresses
//!   and signatures.
//! * [`trap`]: the bounds-checked mode's report: one [`trap::TrapRecord`],
//!   the host's thread-local slot, and the device record's byte layout with
//!   its encoder and decoder (NVPTX and HLSL write it, `cuda` and `vulkan`
//!   read it).
//! * [`cancel`]: the wall-clock limit of host launches: a per-thread
//!   deadline and the cancel-check shim at loop back-edges.
//! * [`debug`]: the debugger's statement-hook descriptor and the recording
//!   of one thread.
//! * [`fastmath`]: the backend-neutral `f32` approximations of fast math
//!   (`afn`), written once over an operations trait that each backend
//!   implements, with their coefficients.
//! * [`precise`]: inline `f64`-evaluated forms of the precise `f32`
//!   transcendentals for the vector tier, over an operations trait in the
//!   same way, with the lanes they cover (the rest take the shims).
//!
//! Backends depend on this crate, never on each other.

pub mod cancel;
pub mod debug;
pub mod fastmath;
pub mod precise;
pub mod shims;
pub mod trap;

/// A host-compiled kernel's entry point; see the crate docs.
pub type KernelEntry = unsafe extern "C" fn(args: *const u8, start: i64, end: i64);
