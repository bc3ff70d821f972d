//! `cpu` in a build with the `llvm` feature: a module starts on
//! Cranelift's code (compiled in milliseconds) and moves to the LLVM
//! vector tier (`docs/vector.md`) once its launches have run
//! [`TIER_UP_AFTER`] in all. The vector tier is compiled on a background
//! thread meanwhile; each launch runs whichever code is ready. Both tiers
//! compute the same bits (`tests/vector_tier.rs`), except the order of
//! float atomic adds. A module with fast math stays on Cranelift (the two
//! compilers approximate differently), and so does one the vector compile
//! fails on.

use crate::error::RuntimeError;
use crate::hal::host::HostJit;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use weft_abi::KernelEntry;
use weft_backend_ptx::host;
use weft_ir::{Module, ModuleInfo};

/// Run time on Cranelift's code after which a module's vector tier is
/// compiled: about the vector tier's compile time, so that a module never
/// spends much more on the second compile than it has run.
pub const TIER_UP_AFTER: Duration = Duration::from_millis(20);

/// The tiered JIT: Cranelift first, then LLVM's vector tier.
pub(super) struct Tiered {
    pub scalar: weft_backend_cpu::Options,
    pub vector: host::Options,
}

/// A module's code in both tiers.
pub(super) struct TieredCode {
    scalar: weft_backend_cpu::Artifact,
    /// What the vector compile needs; `None` when the module stays scalar.
    source: Option<(Module, ModuleInfo, host::Options)>,
    spent_ns: AtomicU64,
    started: AtomicBool,
    vector: OnceLock<Option<host::Artifact>>,
}

impl TieredCode {
    /// Starts the vector compile on a thread of its own (once).
    fn tier_up(code: &Arc<TieredCode>) {
        if code.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let c = code.clone();
        let spawned = std::thread::Builder::new()
            .name("weft-tier-up".into())
            .spawn(move || {
                let art = c
                    .source
                    .as_ref()
                    .and_then(|(m, info, o)| host::compile(m, info, o).ok());
                let _ = c.vector.set(art);
            });
        if spawned.is_err() {
            // No thread: the module stays on Cranelift's code.
            let _ = code.vector.set(None);
        }
    }
}

/// True if a module may move to the vector tier: no fast math anywhere
/// (a flag on an instruction or the function attribute).
fn vector_eligible(m: &Module) -> bool {
    m.funcs.values().all(|f| {
        !f.fast_math && f.insts.values().all(|d| d.flags.is_empty())
    })
}

impl HostJit for Tiered {
    const NAME: &'static str = "cpu";
    type Code = TieredCode;
    const TIERED: bool = true;

    fn compile(&self, module: &Module, info: &ModuleInfo) -> Result<TieredCode, RuntimeError> {
        let scalar = weft_backend_cpu::compile(module, info, &self.scalar)
            .map_err(|e| RuntimeError::backend(Self::NAME, e.is_unsupported(), e))?;
        let source = vector_eligible(module).then(|| (module.clone(), info.clone(), self.vector.clone()));
        Ok(TieredCode {
            scalar,
            source,
            spent_ns: AtomicU64::new(0),
            started: AtomicBool::new(false),
            vector: OnceLock::new(),
        })
    }

    fn entry(code: &TieredCode, name: &str) -> Option<KernelEntry> {
        code.scalar.kernel(name).map(|k| k.entry)
    }

    fn current(code: &Arc<TieredCode>, name: &str, loaded: KernelEntry) -> KernelEntry {
        match code.vector.get() {
            Some(Some(a)) => a.kernel(name).map_or(loaded, |k| k.entry),
            _ => loaded,
        }
    }

    fn ran(code: &Arc<TieredCode>, took: Duration) {
        if code.source.is_none() || code.started.load(Ordering::Acquire) {
            return;
        }
        let ns = took.as_nanos().min(u64::MAX as u128) as u64;
        let spent = code.spent_ns.fetch_add(ns, Ordering::AcqRel).saturating_add(ns);
        if spent >= TIER_UP_AFTER.as_nanos() as u64 {
            TieredCode::tier_up(code);
        }
    }
}
