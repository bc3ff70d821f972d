//! The two targets around the shared lowering ([`crate::lower`]): each
//! makes its LLVM target machine, describes itself to the lowering in a
//! [`crate::lower::TargetCfg`] (the lowering never asks the machine it
//! runs on), runs its pass pipeline and emits its artifact.
//!
//! * [`nvptx`]: PTX for NVIDIA GPUs (`cuda`).
//! * [`host`]: native code for this machine, JIT-compiled (`llvm-cpu`,
//!   and the `cpu` device's vector tier).

pub mod host;
pub(crate) mod nvptx;
