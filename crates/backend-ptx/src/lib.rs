//! # weft-backend-ptx — the LLVM backend: PTX (NVPTX) and an LLVM host JIT
//!
//! One lowering ([`lower`](crate::lower)) turns a [`weft_ir::Module`] into an
//! LLVM module for one of two targets:
//!
//! * **NVPTX** ([`emit_ptx`]): each kernel is a `ptx_kernel` taking the
//!   argument block of [`weft_ir::layout`] by value as one `.param` byte
//!   array (align 8). The runtime packs the block exactly as for the CPU,
//!   with device pointers in `ArrayDesc.data`. Threads run a grid-stride
//!   loop: `i = ctaid.x * ntid.x + tid.x; while i < Π dim { body; i +=
//!   nctaid.x * ntid.x }`, so any launch size works with any grid.
//! * **Host** ([`compile_host`], the `llvm-cpu` backend): each kernel is
//!   `extern "C" fn(args, start, end)` ([`KernelEntry`], the Cranelift
//!   backend's ABI) looping over `start..end`, JIT-compiled by MCJIT.
//!   Transcendentals, `f16` conversions and `print` call the same Rust
//!   functions as the Cranelift backend's shims, so `llvm-cpu` and `cpu`
//!   agree bit for bit.
//!
//! Only the target-specific parts differ: the thread loop, the address
//! space of array data (`global` on NVPTX), math calls (libdevice on NVPTX,
//! shims on the host), `f16` conversions and `print` (`vprintf` on NVPTX).
//! See `docs/ptx.md` for the full mapping and the math policy.

mod host;
mod lower;
mod nvptx;
mod trap;

pub use host::{compile_host, HostOptions, LlvmCpuArtifact, LlvmCpuKernel};
pub use nvptx::{
    arch_for_compute_capability, emit_ptx, find_libdevice, find_ptxas, ptxas_info, PtxArtifact,
    PtxKernelInfo, SUPPORTED_ARCHS,
};
pub use trap::{decode_trap_record, TRAP_GLOBAL, TRAP_RECORD_SIZE};
pub use weft_backend_cpu::KernelEntry;

use std::path::PathBuf;
use weft_ir::Loc;

/// Options of [`emit_ptx`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PtxOptions {
    /// Target architecture, `sm_70` … `sm_90` (default `sm_80`).
    pub arch: String,
    /// Approximate math: `sin.approx`, `ex2.approx`, `lg2.approx`,
    /// `rsqrt.approx`, approximate division and FMA contraction (f32).
    pub fast_math: bool,
    /// `libdevice.10.bc`; `None` searches for it (see [`find_libdevice`]).
    pub libdevice: Option<PathBuf>,
    /// LLVM optimization level, 0..=3.
    pub opt_level: u8,
    /// Emit `.file`/`.loc` line info pointing into the kernel source.
    pub line_info: bool,
}

impl Default for PtxOptions {
    fn default() -> Self {
        PtxOptions {
            arch: "sm_80".into(),
            fast_math: false,
            libdevice: None,
            opt_level: 3,
            line_info: true,
        }
    }
}

/// The target of [`emit_llvm_ir`].
#[derive(Clone, Debug)]
pub enum Target {
    Ptx(PtxOptions),
    Host(HostOptions),
}

/// Errors of this backend.
#[derive(thiserror::Error, Debug)]
pub enum PtxError {
    /// An operation this backend does not implement.
    #[error("the LLVM backend does not support {what} (line {})", loc.line)]
    Unsupported { what: String, loc: Loc },
    /// IR that breaks an invariant of the IR.
    #[error("invalid IR: {what} (line {})", loc.line)]
    Invalid { what: String, loc: Loc },
    /// A math function needs libdevice on NVPTX and none was found; Weft
    /// never falls back to approximate instructions silently.
    #[error(
        "{what} (line {}) needs libdevice.10.bc on NVPTX and none was found: set WEFT_LIBDEVICE or CUDA_HOME, or enable fast math",
        loc.line
    )]
    NoLibdevice { what: String, loc: Loc },
    /// libdevice could not be loaded or linked.
    #[error("libdevice {path}: {msg}")]
    Libdevice { path: PathBuf, msg: String },
    /// A bad option (architecture, opt level).
    #[error("bad option: {0}")]
    Option(String),
    /// LLVM failed (a bug of this backend, or of LLVM).
    #[error("LLVM: {0}")]
    Llvm(String),
    /// `ptxas` was not found.
    #[error("ptxas not found (set WEFT_PTXAS, put it on PATH, or install nvidia-cuda-nvcc-cu12 into .venv)")]
    PtxasNotFound,
    /// `ptxas` rejected the PTX or could not run.
    #[error("ptxas: {0}")]
    Ptxas(String),
}

impl From<inkwell::builder::BuilderError> for PtxError {
    fn from(e: inkwell::builder::BuilderError) -> Self {
        PtxError::Llvm(format!("builder: {e}"))
    }
}

/// The textual LLVM IR of `m` for `target`, after the optimization
/// pipeline of the options' `opt_level` (0: as lowered).
pub fn emit_llvm_ir(m: &weft_ir::Module, target: &Target) -> Result<String, PtxError> {
    match target {
        Target::Ptx(o) => nvptx::llvm_ir(m, o),
        Target::Host(o) => host::llvm_ir(m, o),
    }
}
