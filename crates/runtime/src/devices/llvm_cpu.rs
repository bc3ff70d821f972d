//! The `llvm-cpu` device: the LLVM backend's lowering (the one PTX comes
//! from) JIT-compiled for the host, with the host ABI of `cpu`, so it runs
//! and launches exactly like `cpu`.

use crate::error::RuntimeError;
use crate::hal::host::{HostDevice, HostJit, HostRun};
use crate::policy;
use crate::hal::{CodeTier, DeviceOptions, DynDevice, OpenFn};
use std::sync::Arc;
use weft_abi::KernelEntry;
use weft_ir::{Module, ModuleInfo};

pub(super) const OPEN: Option<OpenFn> = Some(open);

fn open(_ordinal: usize, opts: &DeviceOptions) -> Result<Arc<dyn DynDevice>, RuntimeError> {
    Ok(Arc::new(HostDevice(
        Llvm(policy::llvm_options(opts)),
        HostRun::of(opts),
    )))
}

struct Llvm(weft_backend_llvm::host::Options);

impl HostJit for Llvm {
    const NAME: &'static str = "llvm-cpu";
    type Code = weft_backend_llvm::host::Artifact;

    fn compile(&self, module: &Module, info: &ModuleInfo) -> Result<Self::Code, RuntimeError> {
        weft_backend_llvm::host::compile(module, info, &self.0)
            .map_err(|e| RuntimeError::backend(Self::NAME, e.is_unsupported(), e))
    }

    fn entry(code: &Self::Code, name: &str) -> Option<KernelEntry> {
        code.kernel(name).map(|k| k.entry)
    }

    fn tier(code: &Arc<Self::Code>, name: &str) -> CodeTier {
        CodeTier::Llvm {
            lanes: code.kernel(name).map_or(1, |k| k.lanes),
        }
    }
}
