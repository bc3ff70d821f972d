//! # weft-backend-llvm — the LLVM backend: PTX (NVPTX) and an LLVM host JIT
//!
//! One lowering (`lower/`) turns a [`weft_ir::Module`] into an LLVM module
//! for one of two targets (`targets/nvptx.rs`, `targets/host.rs`), which
//! describe themselves to it (the lowering never asks the machine it runs
//! on); on the host, `lower/spmd/` is the CPU's vector tier:
//!
//! * **NVPTX** ([`compile`]): each kernel is a `ptx_kernel` taking the
//!   argument block of [`weft_ir::layout`] by value as one `.param` byte
//!   array (align 8). The runtime packs the block exactly as for the CPU,
//!   with device pointers in `ArrayDesc.data`. Threads run a grid-stride
//!   loop: `i = ctaid.x * ntid.x + tid.x; while i < Π dim { body; i +=
//!   nctaid.x * ntid.x }`, so any launch size works with any grid.
//! * **Host** ([`host::compile`], the `llvm-cpu` backend): each kernel is
//!   `extern "C" fn(args, start, end)` ([`KernelEntry`], the host ABI of
//!   `weft-abi`) looping over `start..end`, JIT-compiled by MCJIT.
//!   Transcendentals, `f16` conversions and `print` call the host shims
//!   (`weft_abi::shims`), like the Cranelift backend, so `llvm-cpu` and
//!   `cpu` agree bit for bit.
//!
//! Each target has the same shape as every backend: `Options`, `Error`,
//! `Artifact`, `compile(module, info, options)` and `emit_text(...)` (PTX
//! here, LLVM IR in [`host`]); [`emit_llvm`] shows NVPTX's LLVM IR.
//!
//! Only the target-specific parts differ: the thread loop, the address
//! space of array data (`global` on NVPTX), math calls (libdevice on NVPTX,
//! shims on the host), `f16` conversions and `print` (`vprintf` on NVPTX).
//! See `docs/ptx.md` for the full mapping and the math policy.

mod libdevice;
mod lower;
mod parts;
mod targets;
mod trap;

pub use libdevice::LIBDEVICE_INLINE_SITES;
pub use parts::{MAX_PARTS, PART_WEIGHT};
pub use targets::host;
pub use targets::nvptx::{
    arch_for_compute_capability, compile, emit_llvm, emit_text, find_libdevice, find_ptxas,
    ptxas_info, Artifact, Kernel, SUPPORTED_ARCHS,
};
pub use trap::TRAP_GLOBAL;
pub use weft_abi::KernelEntry;
/// The one optimization level (`weft_ir::OptLevel`).
pub use weft_ir::OptLevel;

use std::path::PathBuf;
use weft_ir::SourcePos;

/// Options of the NVPTX target ([`compile`], [`emit_text`]). Fast math is
/// not an option: it is the IR's per-operation flags (`weft_ir::MathFlags`,
/// set by the `fast-math` pass), as on every backend.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    /// Target architecture, `sm_70` … `sm_90` (default `sm_80`).
    pub arch: String,
    /// `libdevice.10.bc`; `None` searches for it (see [`find_libdevice`]).
    pub libdevice: Option<PathBuf>,
    /// LLVM's pipeline: O0 none, O1 `default<O1>`, O2 `default<O3>`.
    pub opt_level: OptLevel,
    /// Emit `.file`/`.loc` line info pointing into the kernel source.
    pub line_info: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            arch: "sm_80".into(),
            libdevice: None,
            opt_level: OptLevel::O2,
            line_info: true,
        }
    }
}

/// Errors of this backend (both targets).
#[derive(thiserror::Error, Debug)]
pub enum Error {
    /// An operation this backend does not implement.
    #[error("{pos}: the LLVM backend does not support {what}")]
    Unsupported { what: String, pos: SourcePos },
    /// IR that breaks an invariant of the IR.
    #[error("{pos}: invalid IR for the LLVM backend: {what}")]
    Invalid { what: String, pos: SourcePos },
    /// A math function needs libdevice on NVPTX and none was found; Weft
    /// never falls back to approximate instructions silently. `advice` is
    /// more that would help: enabling fast math, for a function that fast
    /// math approximates without libdevice (else empty).
    #[error(
        "{pos}: {what} needs libdevice.10.bc on NVPTX and none was found: set WEFT_LIBDEVICE or CUDA_HOME{advice}"
    )]
    NoLibdevice {
        what: String,
        pos: SourcePos,
        advice: &'static str,
    },
    /// libdevice could not be loaded or linked.
    #[error("libdevice {path}: {msg}")]
    Libdevice { path: PathBuf, msg: String },
    /// A bad option (architecture).
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

impl Error {
    /// Whether the backend cannot express the module ([`Error::Unsupported`]).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Error::Unsupported { .. })
    }
}

impl From<inkwell::builder::BuilderError> for Error {
    fn from(e: inkwell::builder::BuilderError) -> Self {
        Error::Llvm(format!("builder: {e}"))
    }
}

/// LLVM's code generation level for a Weft level.
pub(crate) fn llvm_level(o: OptLevel) -> inkwell::OptimizationLevel {
    match o {
        OptLevel::O0 => inkwell::OptimizationLevel::None,
        OptLevel::O1 => inkwell::OptimizationLevel::Less,
        OptLevel::O2 => inkwell::OptimizationLevel::Aggressive,
    }
}

/// LLVM's optimization pipeline for a Weft level (`None`: no pipeline);
/// the host's O2 is [`host::HOST_O3_PASSES`].
pub(crate) fn llvm_pipeline(o: OptLevel) -> Option<&'static str> {
    match o {
        OptLevel::O0 => None,
        OptLevel::O1 => Some("default<O1>"),
        OptLevel::O2 => Some("default<O3>"),
    }
}
