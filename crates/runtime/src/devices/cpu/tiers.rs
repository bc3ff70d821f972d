//! `cpu` in a build with the `llvm` feature: a module starts on
//! Cranelift's code (compiled in milliseconds) and moves to the LLVM
//! vector tier (`docs/vector.md`) once its launches have run
//! [`DeviceOptions::tier_up`](crate::DeviceOptions::tier_up) in all
//! (default [`TIER_UP_AFTER`](crate::policy::TIER_UP_AFTER); zero compiles it
//! with the module): the launch
//! that crosses it compiles the vector tier before it returns, and every
//! later launch runs the vector code. Both tiers
//! compute the same bits (`tests/vector_tier.rs`), except the order of
//! float atomic adds and the `f32` transcendentals the vector tier inlines
//! (correctly rounded, within 1–2 ulp of the scalar tier's glibc shims:
//! `weft_abi::precise`). A module with fast math stays on Cranelift (the
//! two compilers approximate differently), so does a deterministic one
//! (when it would move depends on the clock, and the tiers differ in those
//! bits), and one the vector compile fails on.

use crate::error::RuntimeError;
use crate::hal::host::HostJit;
use crate::hal::CodeTier;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use weft_abi::KernelEntry;
use weft_backend_llvm::host;
use weft_ir::{Module, ModuleInfo};

#[cfg(test)]
use crate::policy::TIER_UP_AFTER;

/// The tiered JIT: Cranelift first, then LLVM's vector tier once a module
/// has run `tier_up`.
pub(super) struct Tiered {
    pub scalar: weft_backend_cpu::Options,
    pub vector: host::Options,
    pub tier_up: Duration,
}

/// A module's code in both tiers.
pub(super) struct TieredCode {
    scalar: weft_backend_cpu::Artifact,
    /// What the vector compile needs; `None` when the module stays scalar.
    source: Option<(Module, ModuleInfo, host::Options)>,
    spent_ns: AtomicU64,
    /// [`Tiered::tier_up`] in nanoseconds.
    tier_up_ns: u64,
    started: AtomicBool,
    vector: OnceLock<Option<host::Artifact>>,
}

impl TieredCode {
    /// Compiles the vector tier (once), on the calling thread: the launch
    /// that crossed the threshold returns after it. (A background thread
    /// could still be inside LLVM when the process exits, and LLVM's static
    /// destructors do not wait for it.)
    /// Kernel `name` of the vector tier, once it is compiled.
    fn vector_kernel(&self, name: &str) -> Option<host::Kernel> {
        match self.vector.get() {
            Some(Some(a)) => a.kernel(name),
            _ => None,
        }
    }

    fn tier_up(code: &TieredCode) {
        if code.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let art = code
            .source
            .as_ref()
            .and_then(|(m, info, o)| host::compile(m, info, o).ok());
        let _ = code.vector.set(art);
    }
}

impl HostJit for Tiered {
    const NAME: &'static str = "cpu";
    type Code = TieredCode;
    const TIERED: bool = true;

    fn compile(&self, module: &Module, info: &ModuleInfo) -> Result<TieredCode, RuntimeError> {
        let scalar = weft_backend_cpu::compile(module, info, &self.scalar)
            .map_err(|e| RuntimeError::backend(Self::NAME, e.is_unsupported(), e))?;
        let source = crate::policy::vector_eligible(module).then(|| (module.clone(), info.clone(), self.vector.clone()));
        let code = TieredCode {
            scalar,
            source,
            spent_ns: AtomicU64::new(0),
            tier_up_ns: self.tier_up.as_nanos().min(u64::MAX as u128) as u64,
            started: AtomicBool::new(false),
            vector: OnceLock::new(),
        };
        if code.tier_up_ns == 0 && code.source.is_some() {
            TieredCode::tier_up(&code);
        }
        Ok(code)
    }

    fn entry(code: &TieredCode, name: &str) -> Option<KernelEntry> {
        code.scalar.kernel(name).map(|k| k.entry)
    }

    fn current(code: &Arc<TieredCode>, name: &str, loaded: KernelEntry) -> KernelEntry {
        code.vector_kernel(name).map_or(loaded, |k| k.entry)
    }

    fn tier(code: &Arc<TieredCode>, name: &str) -> CodeTier {
        code.vector_kernel(name)
            .map_or(CodeTier::Cranelift, |k| CodeTier::Llvm { lanes: k.lanes })
    }

    fn ran(code: &Arc<TieredCode>, took: Duration) {
        if code.source.is_none() || code.started.load(Ordering::Acquire) {
            return;
        }
        let ns = took.as_nanos().min(u64::MAX as u128) as u64;
        let spent = code.spent_ns.fetch_add(ns, Ordering::AcqRel).saturating_add(ns);
        if spent >= code.tier_up_ns {
            TieredCode::tier_up(code);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"kernel @scale(v0 "a": array1<f32>, v1 "k": f32) {
  v2 "i": i32 = thread_id
  v3: f32 = load v0[v2]
  v4: f32 = mul v3, v1
  store v0[v2], v4
  return
}"#;

    fn jit() -> Tiered {
        Tiered {
            scalar: weft_backend_cpu::Options::default(),
            vector: host::Options {
                vector: true,
                ..Default::default()
            },
            tier_up: TIER_UP_AFTER,
        }
    }

    fn compiled(src: &str) -> Arc<TieredCode> {
        let m = weft_ir::text::parse_module(src).expect("parses");
        let info = weft_ir::verify::verify_module(&m).expect("verifies");
        Arc::new(jit().compile(&m, &info).expect("compiles"))
    }

    #[test]
    fn a_hot_module_moves_to_the_vector_tier() {
        let code = compiled(SRC);
        let loaded = Tiered::entry(&code, "scale").expect("entry");
        // Cold: short launches keep the Cranelift code and start nothing.
        Tiered::ran(&code, Duration::from_millis(1));
        assert!(!code.started.load(Ordering::Acquire));
        assert_eq!(Tiered::current(&code, "scale", loaded) as usize, loaded as usize);
        // Hot: the vector tier is compiled, and launches switch to it.
        Tiered::ran(&code, TIER_UP_AFTER);
        assert!(code.started.load(Ordering::Acquire));
        assert!(matches!(code.vector.get(), Some(Some(_))), "the vector tier compiled");
        assert_ne!(Tiered::current(&code, "scale", loaded) as usize, loaded as usize);
    }

    #[test]
    fn fast_math_modules_stay_on_cranelift() {
        let code = compiled(&SRC.replace("v4: f32 = mul v3, v1", "v4: f32 = mul v3, v1 fast(afn)"));
        assert!(code.source.is_none());
        Tiered::ran(&code, TIER_UP_AFTER * 2);
        assert!(!code.started.load(Ordering::Acquire));
    }

    #[test]
    fn deterministic_modules_stay_on_cranelift() {
        let code = compiled(&SRC.replace(") {", ") deterministic {"));
        assert!(code.source.is_none());
        Tiered::ran(&code, TIER_UP_AFTER * 2);
        assert!(!code.started.load(Ordering::Acquire));
    }
}
