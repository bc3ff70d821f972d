//! The runtime's only contact with the backends: compile a module for the
//! CPU JIT, find a kernel's entry point, run a kernel in the interpreter.

use crate::error::BackendError;
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
    let opts = weft_backend_cpu::CpuOptions::default();
    let artifact = weft_backend_cpu::compile(m, &opts)?;
    Ok(CpuProgram { artifact })
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Unavailable(&'static str);

/// An argument for the interpreter.
pub enum InterpArg<'a> {
    Array {
        data: &'a mut [u8],
        shape: [i32; 4],
        strides: [i64; 4],
    },
    Value(Vec<u8>),
}

pub fn interp_run(
    _m: &Module,
    _func: FuncId,
    _dim: &[i32],
    _args: Vec<InterpArg<'_>>,
) -> Result<(), BackendError> {
    Err(Box::new(Unavailable("the interpreter is not built yet")))
}
