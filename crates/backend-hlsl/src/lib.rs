//! # weft-backend-hlsl — HLSL compute shaders from Weft's IR
//!
//! [`compile_kernel`] turns one kernel of a verified module (after the pass
//! pipeline: every call inlined) into a [`Shader`]: the source of one HLSL
//! compute shader for shader model 6.0, with entry point `main`, plus its
//! [`BindingLayout`]: which register
//! holds which array and where every launch value and parameter lives in the
//! constant buffer (see [`bindings`] for the exact byte layout a host packs,
//! and [`BindingLayout::pack_cbuffer`] which packs it from the kernel
//! argument block shared with the other backends).
//!
//! [`compile`] does it for every kernel ([`Artifact`]), [`emit_text`]
//! gives their text: the same shape as every backend.
//!
//! [`compile_spirv`] compiles that source to SPIR-V with glslang's HLSL
//! front end (`glslangValidator`, found through `$WEFT_GLSLANG` or `PATH`)
//! and [`validate_spirv`] checks the result with `spirv-val`
//! (`$WEFT_SPIRV_VAL` or `PATH`). A D3D12 application compiles the same
//! source with DXC (`dxc -T cs_6_0 -E main`); see `docs/hlsl.md`.
//!
//! Per-operation fast-math flags ([`weft_ir::MathFlags`], the one source of
//! fast math) are honoured:
//! `contract` drops `precise`, `afn` uses the intrinsics instead of the
//! exactness helpers, `nnan`/`ninf` drop NaN and infinity guards. A kernel
//! with `trap`s (bounds-checked mode) reports through an extra buffer, the
//! trap record ([`TrapBinding`]); one with 64-bit atomics (shader model 6.0
//! has 32-bit ones only) does them under locks of an extra buffer, the lock
//! table ([`LockBinding`]).
//!
//! What HLSL cannot express exactly — float64 transcendentals, an array
//! variable that stands for different array parameters depending on
//! control flow — is an
//! [`Error::Unsupported`] error with the source location, never
//! approximate code.

mod arrays;
pub mod bindings;
mod helpers;
mod lower;
mod names;
mod tools;

pub use bindings::{
    dispatches, ArrayBinding, BindingLayout, CBufferArray, CBufferField, CBufferLayout, Dispatch,
    LockBinding, TrapBinding, LOCK_WORDS, MAX_GROUPS_X, POOL_ALIGN,
};
pub use tools::{compile_spirv, find_glslang, find_spirv_val, validate_spirv};

use weft_ir::{FuncKind, Module, ModuleInfo, SourcePos};

/// Options of [`compile`], [`compile_kernel`] and [`emit_text`]. Fast math
/// is not an option: it is the IR's per-operation flags
/// ([`weft_ir::MathFlags`], set by the `fast-math` pass), as on every
/// backend.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Threads per workgroup (`[numthreads(group_size, 1, 1)]`), 1..=1024.
    pub group_size: u32,
    /// The most storage buffers the shader may bind (Vulkan:
    /// `maxPerStageDescriptorStorageBuffers`). A kernel whose arrays, trap
    /// record and lock table need more binds its arrays through one pooled
    /// buffer ([`BindingLayout::pooled`]).
    pub max_storage_buffers: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            group_size: 64,
            max_storage_buffers: u32::MAX,
        }
    }
}

/// One kernel as an HLSL compute shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shader {
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

impl Shader {
    /// Whether the shader has a trap record (it was compiled with bounds
    /// checks): a host zeroes it before a launch and reads it after.
    pub fn has_trap_record(&self) -> bool {
        self.bindings.trap.is_some()
    }
}

/// Every kernel of a module as an HLSL compute shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact {
    /// One shader per kernel, in the module's order.
    pub shaders: Vec<Shader>,
}

impl Artifact {
    /// The shader of kernel `name`.
    pub fn shader(&self, name: &str) -> Option<&Shader> {
        self.shaders.iter().find(|s| s.kernel == name)
    }
}

/// Errors of the HLSL backend.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// An operation HLSL cannot express exactly.
    #[error("{pos}: the HLSL backend does not support {what}")]
    Unsupported { what: String, pos: SourcePos },
    /// IR that the verifier would reject, or that the pass pipeline should
    /// have removed (a call: run the inliner first).
    #[error("{pos}: invalid IR for the HLSL backend: {what}")]
    Invalid { what: String, pos: SourcePos },
    /// The module has no kernel of that name.
    #[error("no kernel named `{0}` in the module")]
    NoKernel(String),
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

impl Error {
    /// Whether HLSL cannot express the kernel ([`Error::Unsupported`]).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Error::Unsupported { .. })
    }
}

/// The HLSL compute shader of kernel `kernel` of a verified module `m`
/// (`info`: what the verifier returned). Every call must be inlined
/// (`weft_passes::run_pipeline`): a module whose `info` says otherwise is
/// [`Error::Invalid`].
pub fn compile_kernel(
    m: &Module,
    info: &ModuleInfo,
    kernel: &str,
    opts: &Options,
) -> Result<Shader, Error> {
    if !(1..=1024).contains(&opts.group_size) {
        return Err(Error::Option(format!(
            "group_size {} is not in 1..=1024",
            opts.group_size
        )));
    }
    let (Some(k), Some(f)) = (
        info.kernel(kernel),
        m.func_by_name(kernel)
            .and_then(|id| m.funcs.get(id))
            .filter(|f| f.kind == FuncKind::Kernel),
    ) else {
        return Err(Error::NoKernel(kernel.to_string()));
    };
    if k.calls {
        return Err(Error::Invalid {
            what: format!("kernel `{kernel}` calls a func: HLSL needs every call inlined (run the pass pipeline)"),
            pos: m.source_pos(f.loc),
        });
    }
    let locks = lower::needs_lock_table(m, f);
    let bindings = BindingLayout::new(f, &m.structs, k.has_traps, locks, opts.max_storage_buffers);
    let source = lower::emit_kernel(m, f, &bindings, opts)?;
    Ok(Shader {
        kernel: kernel.to_string(),
        source,
        entry: "main".to_string(),
        bindings,
        group_size: opts.group_size,
    })
}

/// Every kernel of a verified module `m` as a shader; the first kernel HLSL
/// cannot express is the error.
pub fn compile(m: &Module, info: &ModuleInfo, opts: &Options) -> Result<Artifact, Error> {
    let shaders = info
        .kernels
        .iter()
        .map(|k| compile_kernel(m, info, &k.name, opts))
        .collect::<Result<_, _>>()?;
    Ok(Artifact { shaders })
}

/// The HLSL of every kernel of a verified module `m`, one after the other,
/// each after a `// ---- kernel NAME ----` line.
pub fn emit_text(m: &Module, info: &ModuleInfo, opts: &Options) -> Result<String, Error> {
    let mut out = String::new();
    for s in compile(m, info, opts)?.shaders {
        out.push_str(&format!("// ---- kernel {} ----\n", s.kernel));
        out.push_str(&s.source);
        if !s.source.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}
