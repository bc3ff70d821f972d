//! The `cpu` device: kernels JIT-compiled by Cranelift
//! (`weft-backend-cpu`), run on all cores, arrays in host memory. With the
//! `llvm` feature, hot modules move to LLVM's vector tier ([`tiers`]).

#[cfg(feature = "llvm")]
mod tiers;

use crate::error::RuntimeError;
use crate::hal::host::{HostDevice, HostJit, HostRun};
use crate::policy;
use crate::hal::{CodeTier, DeviceOptions, DynDevice, OpenFn};
use std::sync::Arc;
use weft_abi::KernelEntry;
use weft_ir::{Module, ModuleInfo};

pub(super) const OPEN: Option<OpenFn> = Some(open);

fn open(_ordinal: usize, opts: &DeviceOptions) -> Result<Arc<dyn DynDevice>, RuntimeError> {
    Ok(device(opts))
}

/// The device with `opts`; opening it cannot fail (a host Cranelift does
/// not support is reported when a module is compiled). Hot modules move to
/// the vector tier where [`policy::vector_tier`] gives one.
pub(super) fn device(opts: &DeviceOptions) -> Arc<dyn DynDevice> {
    let run = HostRun::of(opts);
    let cl = policy::cranelift_options(opts);
    #[cfg(feature = "llvm")]
    if let Some(vector) = policy::vector_tier(opts) {
        let tiered = tiers::Tiered {
            scalar: cl,
            vector,
            tier_up: opts.tier_up,
        };
        return Arc::new(HostDevice(tiered, run));
    }
    Arc::new(HostDevice(Cranelift(cl), run))
}

struct Cranelift(weft_backend_cpu::Options);

impl HostJit for Cranelift {
    const NAME: &'static str = "cpu";
    type Code = weft_backend_cpu::Artifact;

    fn compile(&self, module: &Module, info: &ModuleInfo) -> Result<Self::Code, RuntimeError> {
        weft_backend_cpu::compile(module, info, &self.0)
            .map_err(|e| RuntimeError::backend(Self::NAME, e.is_unsupported(), e))
    }

    fn entry(code: &Self::Code, name: &str) -> Option<KernelEntry> {
        code.kernel(name).map(|k| k.entry)
    }

    fn tier(_code: &Arc<Self::Code>, _name: &str) -> CodeTier {
        CodeTier::Cranelift
    }
}
