//! The host devices' code policy, in one place: which code a kernel runs on
//! `cpu` and `llvm-cpu`, how a launch splits over the pool, and every knob
//! of both (`docs/vector.md`, `docs/runtime.md`).
//!
//! * **`cpu`** compiles each module with Cranelift ([`cranelift_options`])
//!   and, in a build with `llvm`, moves a hot module to LLVM's vector tier
//!   ([`vector_tier`]) once its launches have run
//!   [`DeviceOptions::tier_up`] in all; a module with fast math or compiled
//!   deterministic stays on Cranelift ([`vector_eligible`]). Cranelift's own
//!   4-lane stage (`weft-backend-cpu`, `lower/simd.rs`) serves the modules
//!   that never tier up.
//! * **`llvm-cpu`** compiles with LLVM from the start ([`llvm_options`]):
//!   the vector tier when [`DeviceOptions::vector`] is on, else LLVM's
//!   scalar thread loop.
//! * **A launch** runs its thread range in
//!   [`DeviceOptions::chunks_per_thread`] chunks per pool thread.
//!
//! The knobs are fields of [`DeviceOptions`]. The environment only sets
//! their defaults, and is read here (`env.rs`) and nowhere else, once per
//! process ([`EnvDefaults`]): `WEFT_VECTOR=0`, `WEFT_INLINE_MATH=1`,
//! `WEFT_TIER_UP_MS`, `WEFT_STREAM_STORES=0`, `WEFT_CHUNKS_PER_THREAD`, and
//! `WEFT_HUGE_PAGES=0` (huge pages for large arrays: arrays belong to no
//! device, so this one is process-wide, [`huge_pages`]).

pub(crate) mod env;

pub use env::{env_defaults, huge_pages, EnvDefaults, CHUNKS_PER_THREAD, TIER_UP_AFTER};

use crate::hal::{CacheLocation, DeviceOptions};
use weft_ir::{Module, OptLevel};

impl Default for DeviceOptions {
    fn default() -> Self {
        let env = env_defaults();
        DeviceOptions {
            opt_level: OptLevel::O2,
            debug_info: false,
            group_size: 64,
            cache: CacheLocation::Default,
            timeout: None,
            vector: env.vector,
            inline_math: env.inline_math,
            tier_up: env.tier_up,
            stream_stores: env.stream_stores,
            chunks_per_thread: env.chunks_per_thread,
        }
    }
}

/// Cranelift's options for `cpu` under `opts`.
pub fn cranelift_options(opts: &DeviceOptions) -> weft_backend_cpu::Options {
    weft_backend_cpu::Options {
        opt_level: opts.opt_level,
        debug_info: opts.debug_info,
        cancel_checks: opts.timeout.is_some(),
        ..Default::default()
    }
}

/// LLVM's host options under `opts`: `llvm-cpu`'s code, and what
/// `Compiler::host_llvm_ir` shows.
#[cfg(feature = "llvm")]
pub fn llvm_options(opts: &DeviceOptions) -> weft_backend_llvm::host::Options {
    weft_backend_llvm::host::Options {
        opt_level: opts.opt_level,
        cancel_checks: opts.timeout.is_some(),
        vector: opts.vector,
        inline_math: opts.inline_math,
        stream_min_bytes: weft_backend_llvm::host::stream_min_bytes_if(opts.stream_stores),
    }
}

/// The vector tier `cpu` moves hot modules to under `opts`: `None` when
/// asked off, or for code that must stay as compiled (debug info, cancel
/// checks for a timeout, -O0).
#[cfg(feature = "llvm")]
pub fn vector_tier(opts: &DeviceOptions) -> Option<weft_backend_llvm::host::Options> {
    let keep = opts.debug_info || opts.timeout.is_some() || opts.opt_level == OptLevel::O0;
    (opts.vector && !keep).then(|| weft_backend_llvm::host::Options {
        vector: true,
        ..llvm_options(opts)
    })
}

/// True if a module may move to the vector tier: no fast math anywhere
/// (a flag on an instruction or the function attribute; the two compilers
/// approximate differently), and no deterministic function (the tiers
/// differ in float atomic sums and inlined transcendentals, and when the
/// move happens depends on the clock).
pub fn vector_eligible(m: &Module) -> bool {
    m.funcs
        .values()
        .all(|f| !f.fast_math && !f.deterministic && f.insts.values().all(|d| d.flags.is_empty()))
}

#[cfg(all(test, feature = "llvm"))]
mod tests {
    use super::*;

    #[test]
    fn code_that_must_stay_as_compiled_never_tiers_up() {
        let on = DeviceOptions {
            vector: true,
            ..DeviceOptions::default()
        };
        assert!(vector_tier(&on).is_some_and(|o| o.vector));
        for off in [
            DeviceOptions {
                vector: false,
                ..on.clone()
            },
            DeviceOptions {
                debug_info: true,
                ..on.clone()
            },
            DeviceOptions {
                timeout: Some(std::time::Duration::from_secs(1)),
                ..on.clone()
            },
            DeviceOptions {
                opt_level: OptLevel::O0,
                ..on.clone()
            },
        ] {
            assert!(vector_tier(&off).is_none(), "{off:?}");
        }
    }
}
