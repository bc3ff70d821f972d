//! Kernel signatures: what a launch checks its arguments against.
//!
//! A [`KernelSig`] is the verifier's [`KernelInfo`] of a kernel (its
//! parameters as the user sees them, the argument block layout, the SoA
//! parameters and the array-length rules, see [`weft_ir::info`]; reached
//! through `Deref`) with the struct table its types refer to, shared by
//! every kernel of a program.

use std::sync::Arc;
use weft_ir::{KernelInfo, StructTable};

pub use weft_ir::{IndexRange, LengthRule};

/// The signature of a kernel as checked by a launch.
#[derive(Clone, Debug)]
pub struct KernelSig {
    pub info: KernelInfo,
    pub structs: Arc<StructTable>,
}

impl KernelSig {
    /// The signature of a kernel the verifier described as `info`.
    pub fn new(info: KernelInfo, structs: Arc<StructTable>) -> KernelSig {
        KernelSig { info, structs }
    }
}

impl std::ops::Deref for KernelSig {
    type Target = KernelInfo;
    fn deref(&self) -> &KernelInfo {
        &self.info
    }
}
