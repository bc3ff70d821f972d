//! The `cpu` device: kernels JIT-compiled by Cranelift
//! (`weft-backend-cpu`), run on all cores, arrays in host memory. With the
//! `llvm` feature, hot modules move to LLVM's vector tier ([`tiers`]).

#[cfg(feature = "llvm")]
mod tiers;

use crate::error::RuntimeError;
use crate::hal::host::{HostDevice, HostJit};
use crate::hal::{CodeTier, DeviceOptions, DynDevice, OpenFn};
use std::sync::Arc;
use weft_abi::KernelEntry;
use weft_ir::{Module, ModuleInfo};

pub(super) const OPEN: Option<OpenFn> = Some(open);

fn open(_ordinal: usize, opts: &DeviceOptions) -> Result<Arc<dyn DynDevice>, RuntimeError> {
    Ok(device(opts))
}

/// The device with `opts`; opening it cannot fail (a host Cranelift does
/// not support is reported when a module is compiled).
pub(super) fn device(opts: &DeviceOptions) -> Arc<dyn DynDevice> {
    let timeout = opts.timeout;
    let cl = weft_backend_cpu::Options {
        opt_level: opts.opt_level,
        debug_info: opts.debug_info,
        cancel_checks: opts.timeout.is_some(),
        ..Default::default()
    };
    // The vector tier takes over hot modules, unless asked for off or for
    // code that must stay as compiled (debug info, cancel checks, -O0).
    #[cfg(feature = "llvm")]
    if opts.vector && !opts.debug_info && timeout.is_none() && opts.opt_level != weft_ir::OptLevel::O0 {
        let vector = weft_backend_ptx::host::Options {
            opt_level: opts.opt_level,
            vector: true,
            inline_math: opts.inline_math,
            stream_min_bytes: weft_backend_ptx::host::stream_min_bytes_if(opts.stream_stores),
            ..Default::default()
        };
        let tiered = tiers::Tiered {
            scalar: cl,
            vector,
            tier_up: opts.tier_up,
        };
        return Arc::new(HostDevice(tiered, timeout));
    }
    Arc::new(HostDevice(Cranelift(cl), timeout))
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
