//! The host shims ([`weft_abi::shims`]) as Cranelift declares them.

use cranelift_codegen::ir::types::{F32, F64, I32, I64};
use cranelift_codegen::ir::{AbiParam, Signature};
pub(crate) use weft_abi::shims::Shim;
use weft_abi::shims::{AbiType, ShimInfo};

fn cl_type(t: AbiType) -> cranelift_codegen::ir::Type {
    match t {
        AbiType::I32 => I32,
        AbiType::I64 => I64,
        AbiType::F32 => F32,
        AbiType::F64 => F64,
    }
}

/// Adds the shim's C signature to `sig` (made by the module, so in the
/// host's calling convention).
pub(crate) fn signature(s: &ShimInfo, mut sig: Signature) -> Signature {
    sig.params
        .extend(s.params.iter().map(|&t| AbiParam::new(cl_type(t))));
    sig.returns
        .extend(s.returns.iter().map(|&t| AbiParam::new(cl_type(t))));
    sig
}
