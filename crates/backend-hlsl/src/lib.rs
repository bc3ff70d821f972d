//! # weft-backend-hlsl — HLSL compute shaders from Weft's IR
//!
//! [`emit_hlsl`] turns one kernel of a module (after the pass pipeline: every
//! call inlined) into the source of one HLSL compute shader for shader model
//! 6.0, with entry point `main`, plus its [`BindingLayout`]: which register
//! holds which array and where every launch value and parameter lives in the
//! constant buffer (see [`bindings`] for the exact byte layout a host packs,
//! and [`BindingLayout::pack_cbuffer`] which packs it from the kernel
//! argument block shared with the other backends).
//!
//! [`compile_spirv`] compiles that source to SPIR-V with glslang's HLSL
//! front end (`glslangValidator`, found through `$WEFT_GLSLANG` or `PATH`)
//! and [`validate_spirv`] checks the result with `spirv-val`
//! (`$WEFT_SPIRV_VAL` or `PATH`). A D3D12 application compiles the same
//! source with DXC (`dxc -T cs_6_0 -E main`); see `docs/hlsl.md`.
//!
//! Per-operation fast-math flags ([`weft_ir::MathFlags`]) are honoured:
//! `contract` drops `precise`, `afn` uses the intrinsics instead of the
//! exactness helpers, `nnan`/`ninf` drop NaN and infinity guards. A kernel
//! with `trap`s (bounds-checked mode) reports through an extra buffer, the
//! trap record ([`TrapBinding`]).
//!
//! What HLSL cannot express exactly — float64 transcendentals, float64
//! atomics, 64-bit atomics whose old value is used, an array variable that
//! stands for different array parameters depending on control flow — is an
//! [`HlslError::Unsupported`] error with the source location, never
//! approximate code.

mod arrays;
pub mod bindings;
mod helpers;
mod lower;
mod names;
mod tools;

pub use bindings::{
    decode_trap_record, dispatches, ArrayBinding, BindingLayout, CBufferArray, CBufferField,
    CBufferLayout, Dispatch, TrapBinding, TrapReport, MAX_GROUPS_X, TRAP_RECORD_SIZE,
};
pub use tools::{compile_spirv, find_glslang, find_spirv_val, validate_spirv};

use weft_ir::{FuncKind, Loc, Module};

/// Options of [`emit_hlsl`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HlslOptions {
    /// Threads per workgroup (`[numthreads(group_size, 1, 1)]`), 1..=1024.
    pub group_size: u32,
    /// The whole kernel fast: every float operation is emitted as if it
    /// carried `contract` and `afn` ([`weft_ir::MathFlags`]), as the
    /// `fast-math` pass sets them. Off, each operation follows its own
    /// flags (see `docs/hlsl.md`, "Fast math").
    pub fast_math: bool,
}

impl Default for HlslOptions {
    fn default() -> Self {
        HlslOptions {
            group_size: 64,
            fast_math: false,
        }
    }
}

/// One kernel as an HLSL compute shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HlslArtifact {
    /// The kernel's name.
    pub kernel: String,
    /// The HLSL source.
    pub source: String,
    /// The entry point: `main`.
    pub entry: String,
    /// Registers and constant-buffer layout.
    pub bindings: BindingLayout,
    /// Threads per workgroup in x.
    pub group_size: u32,
}

impl HlslArtifact {
    /// Whether the shader has a trap record (it was compiled with bounds
    /// checks): a host zeroes it before a launch and reads it after.
    pub fn has_trap_record(&self) -> bool {
        self.bindings.trap.is_some()
    }
}

/// Errors of the HLSL backend.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
pub enum HlslError {
    /// An operation HLSL cannot express exactly.
    #[error("{file}:{}:{}: the HLSL backend does not support {what}", loc.line, loc.col)]
    Unsupported {
        what: String,
        loc: Loc,
        /// The file `loc` refers to (from the module's file table).
        file: String,
    },
    /// The module has no kernel of that name.
    #[error("no kernel named `{0}` in the module")]
    NoKernel(String),
    /// IR that the verifier would reject, or that the pass pipeline should
    /// have removed (a call: run the inliner first).
    #[error("invalid IR for the HLSL backend: {0}")]
    InvalidIr(String),
    /// An option out of range.
    #[error("invalid option: {0}")]
    Option(String),
    /// An external tool is not installed.
    #[error("{tool} not found (set {env} or put it on PATH; Debian: apt-get install {package})")]
    ToolMissing {
        tool: String,
        env: String,
        package: String,
    },
    /// An external tool failed.
    #[error("{tool} failed: {message}")]
    Tool { tool: String, message: String },
    /// The constant buffer could not be packed from the argument block.
    #[error("cannot pack the constant buffer: {0}")]
    Pack(String),
}

/// Emits the HLSL compute shader of kernel `kernel` of `m`.
///
/// `m` must be verified IR with every call inlined (`weft_passes::run_pipeline`).
pub fn emit_hlsl(m: &Module, kernel: &str, opts: &HlslOptions) -> Result<HlslArtifact, HlslError> {
    if !(1..=1024).contains(&opts.group_size) {
        return Err(HlslError::Option(format!(
            "group_size {} is not in 1..=1024",
            opts.group_size
        )));
    }
    let fid = m
        .func_by_name(kernel)
        .filter(|&id| m.funcs[id].kind == FuncKind::Kernel)
        .ok_or_else(|| HlslError::NoKernel(kernel.to_string()))?;
    let f = &m.funcs[fid];
    let bindings = BindingLayout::new(f, &m.structs);
    let source = lower::emit_kernel(m, f, &bindings, opts)?;
    Ok(HlslArtifact {
        kernel: kernel.to_string(),
        source,
        entry: "main".to_string(),
        bindings,
        group_size: opts.group_size,
    })
}
