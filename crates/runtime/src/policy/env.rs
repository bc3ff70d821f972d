//! The environment's defaults for the host policy's knobs, read once per
//! process (see the module above). A leaf: the array memory
//! (`crate::hostmem`) asks it for huge pages without the device options.

use std::sync::OnceLock;
use std::time::Duration;

/// The default [`DeviceOptions::tier_up`](crate::DeviceOptions::tier_up): about the vector tier's compile
/// time, so that a module never spends much more on the second compile
/// than it has run.
pub const TIER_UP_AFTER: Duration = Duration::from_millis(20);

/// The default [`DeviceOptions::chunks_per_thread`](crate::DeviceOptions::chunks_per_thread).
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
}
