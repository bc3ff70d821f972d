//! The runtime's only contact with the backends: compile a module for the
//! CPU JIT, find a kernel's entry point, run a kernel in the interpreter.

use crate::error::BackendError;
pub use weft_ir::interp::ArgValue;
use weft_ir::interp::{run_kernel, InterpOptions};
use weft_ir::{FuncId, Module};

pub use weft_backend_cpu::KernelEntry;

/// A module compiled by the CPU backend.
pub struct CpuProgram {
    artifact: weft_backend_cpu::CpuArtifact,
}

impl CpuProgram {
    /// The entry point of kernel `name`; valid while `self` lives.
    pub fn entry(&self, name: &str) -> Option<KernelEntry> {
        self.artifact.kernel(name).map(|k| k.entry)
    }
}

pub fn cpu_compile(m: &Module) -> Result<CpuProgram, BackendError> {
    // WEFT_GDB=1: debug info for gdb, unoptimized so that no code moves
    // across source lines (docs/debugging.md).
    let gdb = std::env::var_os("WEFT_GDB").is_some_and(|v| v == "1");
    let opts = weft_backend_cpu::CpuOptions {
        debug_info: gdb,
        opt_level: match gdb {
            true => weft_backend_cpu::OptLevel::None,
            false => weft_backend_cpu::OptLevel::Speed,
        },
        ..Default::default()
    };
    let artifact = weft_backend_cpu::compile(m, &opts)?;
    Ok(CpuProgram { artifact })
}

/// Runs kernel `func` of `m` in the reference interpreter (`print`
/// instructions write to stdout).
pub fn interp_run(
    m: &Module,
    func: FuncId,
    dim: &[i32],
    args: &mut [ArgValue<'_>],
) -> Result<(), BackendError> {
    let opts = InterpOptions { print: true };
    run_kernel(m, func, dim, args, &opts)?;
    Ok(())
}
