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
//! their defaults, and is read here and nowhere else, once per process
//! ([`EnvDefaults`]): `WEFT_VECTOR=0`, `WEFT_INLINE_MATH=1`,
//! `WEFT_TIER_UP_MS`, `WEFT_STREAM_STORES=0`, `WEFT_CHUNKS_PER_THREAD`, and
//! `WEFT_HUGE_PAGES=0` (huge pages for large arrays: arrays belong to no
//! device, so this one is process-wide, [`huge_pages`]).

use crate::hal::{CacheLocation, DeviceOptions};
use std::sync::OnceLock;
use std::time::Duration;
use weft_ir::{Module, OptLevel};

/// The default [`DeviceOptions::tier_up`]: about the vector tier's compile
/// time, so that a module never spends much more on the second compile
/// than it has run.
pub const TIER_UP_AFTER: Duration = Duration::from_millis(20);

/// The default [`DeviceOptions::chunks_per_thread`].
pub const CHUNKS_PER_THREAD: usize = 4;

/// The defaults the environment sets, read once ([`env_defaults`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvDefaults {
    /// `WEFT_VECTOR`: anything but `0` (or unset) is on.
    pub vector: bool,
    /// `WEFT_INLINE_MATH`: `1` is on.
    pub inline_math: bool,
    /// `WEFT_TIER_UP_MS`: milliseconds; unset or not a number,
    /// [`TIER_UP_AFTER`].
    pub tier_up: Duration,
    /// `WEFT_STREAM_STORES`: anything but `0` (or unset) is on.
    pub stream_stores: bool,
    /// `WEFT_CHUNKS_PER_THREAD`: 1 to 1024 (clamped); unset or not a
    /// number, [`CHUNKS_PER_THREAD`].
    pub chunks_per_thread: usize,
    /// `WEFT_HUGE_PAGES`: anything but `0` (or unset) is on.
    pub huge_pages: bool,
}

impl EnvDefaults {
    /// The defaults from `var` (the environment's lookup, or a test's).
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> EnvDefaults {
        let on_unless_zero = |k: &str| var(k).is_none_or(|v| v.trim() != "0");
        EnvDefaults {
            vector: on_unless_zero("WEFT_VECTOR"),
            inline_math: var("WEFT_INLINE_MATH").is_some_and(|v| v.trim() == "1"),
            tier_up: var("WEFT_TIER_UP_MS")
                .and_then(|v| v.trim().parse().ok())
                .map_or(TIER_UP_AFTER, Duration::from_millis),
            stream_stores: on_unless_zero("WEFT_STREAM_STORES"),
            chunks_per_thread: var("WEFT_CHUNKS_PER_THREAD")
                .and_then(|v| v.trim().parse::<usize>().ok())
                .map_or(CHUNKS_PER_THREAD, |n| n.clamp(1, 1024)),
            huge_pages: on_unless_zero("WEFT_HUGE_PAGES"),
        }
    }
}

/// The process's [`EnvDefaults`], read from the environment on first use.
pub fn env_defaults() -> &'static EnvDefaults {
    static ENV: OnceLock<EnvDefaults> = OnceLock::new();
    ENV.get_or_init(|| EnvDefaults::from_lookup(|k| std::env::var(k).ok()))
}

/// Whether large host arrays ask for huge pages (`WEFT_HUGE_PAGES`).
pub fn huge_pages() -> bool {
    env_defaults().huge_pages
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> EnvDefaults {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        EnvDefaults::from_lookup(|k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
    }

    #[test]
    fn the_environment_sets_each_default() {
        let none = env(&[]);
        assert!(none.vector && none.stream_stores && none.huge_pages && !none.inline_math);
        assert_eq!(none.tier_up, TIER_UP_AFTER);
        assert_eq!(none.chunks_per_thread, CHUNKS_PER_THREAD);
        let set = env(&[
            ("WEFT_VECTOR", "0"),
            ("WEFT_INLINE_MATH", "1"),
            ("WEFT_TIER_UP_MS", "0"),
            ("WEFT_STREAM_STORES", "0"),
            ("WEFT_CHUNKS_PER_THREAD", "5000"),
            ("WEFT_HUGE_PAGES", " 0 "),
        ]);
        assert!(!set.vector && set.inline_math && !set.stream_stores && !set.huge_pages);
        assert_eq!(set.tier_up, Duration::ZERO);
        assert_eq!(set.chunks_per_thread, 1024, "clamped");
        let bad = env(&[("WEFT_TIER_UP_MS", "soon"), ("WEFT_CHUNKS_PER_THREAD", "0")]);
        assert_eq!(bad.tier_up, TIER_UP_AFTER);
        assert_eq!(bad.chunks_per_thread, 1, "clamped");
    }

    #[cfg(feature = "llvm")]
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
                timeout: Some(Duration::from_secs(1)),
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
