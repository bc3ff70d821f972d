//! The `llvm-cpu` device's compiler: the LLVM backend's host JIT.
//!
//! [`weft_backend_ptx::compile_host`] lowers a module through the same LLVM
//! lowering as the PTX path and JIT-compiles it for the host. Its kernels
//! have the Cranelift backend's ABI (`extern "C" fn(args, start, end)`), so
//! the `llvm-cpu` device packs and launches exactly like `cpu`: one argument
//! block, the thread range split across the rayon pool.

use crate::backend::KernelEntry;
use crate::error::BackendError;
use weft_ir::Module;

/// A module JIT-compiled by LLVM for the host.
pub struct LlvmCpuProgram {
    artifact: weft_backend_ptx::LlvmCpuArtifact,
}

impl LlvmCpuProgram {
    /// The entry point of kernel `name`; valid while `self` lives.
    pub fn entry(&self, name: &str) -> Option<KernelEntry> {
        self.artifact.kernel(name).map(|k| k.entry)
    }
}

/// Compiles `m` for the host with LLVM (O3).
pub fn compile(m: &Module) -> Result<LlvmCpuProgram, BackendError> {
    let opts = weft_backend_ptx::HostOptions::default();
    let artifact = weft_backend_ptx::compile_host(m, &opts)?;
    Ok(LlvmCpuProgram { artifact })
}
