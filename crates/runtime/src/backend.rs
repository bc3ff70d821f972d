//! The runtime's only contact with the backends: compile a module for the
//! CPU JIT, find a kernel's entry point, run a kernel in the interpreter.

use crate::error::BackendError;
use weft_ir::{FuncId, Module};

/// A CPU kernel entry: runs threads `start..end` on the argument block.
pub type KernelEntry = unsafe extern "C" fn(args: *const u8, start: i64, end: i64);

/// A module compiled by the CPU backend.
pub struct CpuProgram {
    _private: (),
}

impl CpuProgram {
    pub fn entry(&self, _name: &str) -> Option<KernelEntry> {
        None
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Unavailable(&'static str);

pub fn cpu_compile(_m: &Module) -> Result<CpuProgram, BackendError> {
    Err(Box::new(Unavailable("the CPU backend is not built yet")))
}

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
