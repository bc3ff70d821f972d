//! The host target (`llvm-cpu`): the shared lowering, LLVM's O3 pipeline
//! and MCJIT.
//!
//! Kernels have the Cranelift backend's ABI ([`KernelEntry`]). Math, `f16`
//! conversions, `print` and bounds-check traps call the Cranelift backend's
//! own `extern "C"` shims (`weft_backend_cpu::shims`), which use the same
//! Rust functions as the reference interpreter (`std` math,
//! `weft_ir::interp::{erf, erfc, erfinv, format_printf}`, `weft_ir::f16`), so
//! both CPU backends agree bit for bit.

use crate::lower::{self, HostFn, TargetCfg, TargetKind};
use crate::{KernelEntry, PtxError};
use inkwell::context::Context;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;
use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::sync::OnceLock;
use weft_ir::FuncId;

/// Options of [`compile_host`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct HostOptions {
    /// LLVM optimization level, 0..=3 (default 3).
    pub opt_level: u8,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions { opt_level: 3 }
    }
}

/// A kernel of an [`LlvmCpuArtifact`]; the entry point is valid while the
/// artifact lives.
#[derive(Copy, Clone, Debug)]
pub struct LlvmCpuKernel {
    pub entry: KernelEntry,
    pub func: FuncId,
}

/// The owned LLVM state behind an artifact. Field order is drop order:
/// the engine (which owns the module and the code) before the context.
struct Jit {
    ee: ManuallyDrop<ExecutionEngine<'static>>,
    module: ManuallyDrop<Module<'static>>,
    ctx: ManuallyDrop<Box<Context>>,
}

impl Drop for Jit {
    fn drop(&mut self) {
        // SAFETY: each field is dropped exactly once, here, in dependency
        // order: the module handle (owned by the engine) and the engine
        // before the context they were created in.
        unsafe {
            ManuallyDrop::drop(&mut self.module);
            ManuallyDrop::drop(&mut self.ee);
            ManuallyDrop::drop(&mut self.ctx);
        }
    }
}

/// JIT-compiled host code of a module. Dropping it frees the code, after
/// which no [`KernelEntry`] of it may be called.
pub struct LlvmCpuArtifact {
    kernels: HashMap<String, LlvmCpuKernel>,
    _jit: Jit,
}

// SAFETY: after construction the LLVM context, module and engine are never
// touched again except by `Drop` (which has `&mut self`); the generated code
// is immutable and the entry points are plain function pointers, so moving
// or sharing the artifact between threads cannot race on LLVM state.
unsafe impl Send for LlvmCpuArtifact {}
// SAFETY: as above; `&self` methods read only `kernels`.
unsafe impl Sync for LlvmCpuArtifact {}

impl LlvmCpuArtifact {
    /// The kernel named `name`, if the module has one.
    pub fn kernel(&self, name: &str) -> Option<LlvmCpuKernel> {
        self.kernels.get(name).copied()
    }
    /// Names of the compiled kernels.
    pub fn kernel_names(&self) -> impl Iterator<Item = &str> {
        self.kernels.keys().map(|s| s.as_str())
    }
}

impl std::fmt::Debug for LlvmCpuArtifact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlvmCpuArtifact")
            .field("kernels", &self.kernels.keys().collect::<Vec<_>>())
            .finish()
    }
}

fn init_native() -> Result<(), PtxError> {
    static INIT: OnceLock<Result<(), String>> = OnceLock::new();
    INIT.get_or_init(|| Target::initialize_native(&InitializationConfig::default()))
        .clone()
        .map_err(PtxError::Llvm)
}

/// The host CPU's name and feature string, as LLVM reports them.
pub(crate) fn host_cpu() -> Option<&'static (String, String)> {
    static CPU: OnceLock<(String, String)> = OnceLock::new();
    Some(CPU.get_or_init(|| {
        (
            TargetMachine::get_host_cpu_name().to_string(),
            TargetMachine::get_host_cpu_features().to_string(),
        )
    }))
}

fn host_machine(opt: u8) -> Result<TargetMachine, PtxError> {
    init_native()?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| PtxError::Llvm(e.to_string()))?;
    let (cpu, features) = host_cpu().cloned().unwrap_or_default();
    target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            opt_level(opt)?,
            RelocMode::Default,
            CodeModel::JITDefault,
        )
        .ok_or_else(|| PtxError::Llvm("cannot create the host target machine".into()))
}

pub(crate) fn opt_level(o: u8) -> Result<OptimizationLevel, PtxError> {
    Ok(match o {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        3 => OptimizationLevel::Aggressive,
        _ => return Err(PtxError::Option(format!("opt_level {o} (expected 0..=3)"))),
    })
}

const HOST_CFG: TargetCfg = TargetCfg {
    kind: TargetKind::Host,
    fast_math: false,
    libdevice: false,
    debug: false,
};

/// Lowers and optimizes `m` for the host into `module`.
fn build<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    m: &weft_ir::Module,
    opts: &HostOptions,
) -> Result<lower::Lowered, PtxError> {
    let tm = host_machine(opts.opt_level)?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let lowered = lower::lower(ctx, module, m, HOST_CFG)?;
    module
        .verify()
        .map_err(|e| PtxError::Llvm(format!("invalid LLVM IR: {e}")))?;
    if opts.opt_level > 0 {
        let passes = format!("default<O{}>", opts.opt_level);
        module
            .run_passes(&passes, &tm, PassBuilderOptions::create())
            .map_err(|e| PtxError::Llvm(e.to_string()))?;
    }
    Ok(lowered)
}

/// Textual LLVM IR for the host.
pub(crate) fn llvm_ir(m: &weft_ir::Module, opts: &HostOptions) -> Result<String, PtxError> {
    let ctx = Context::create();
    let module = ctx.create_module("weft");
    build(&ctx, &module, m, opts)?;
    Ok(module.print_to_string().to_string())
}

/// Compiles every kernel of `m` (and the funcs they call) to host code
/// through LLVM and MCJIT.
pub fn compile_host(m: &weft_ir::Module, opts: &HostOptions) -> Result<LlvmCpuArtifact, PtxError> {
    let ctx = Box::new(Context::create());
    // SAFETY: the context lives on the heap and is dropped only by `Jit`'s
    // `Drop`, after the module and engine that borrow it; the box is never
    // moved out of or replaced, so the reference stays valid that long.
    let cref: &'static Context = unsafe { &*(ctx.as_ref() as *const Context) };
    let module = cref.create_module("weft");
    let lowered = build(cref, &module, m, opts)?;
    let ee = module
        .create_jit_execution_engine(opt_level(opts.opt_level)?)
        .map_err(|e| PtxError::Llvm(e.to_string()))?;
    for h in &lowered.host_fns {
        if let Some(fv) = module.get_function(&h.symbol()) {
            ee.add_global_mapping(&fv, shim_addr(*h)?);
        }
    }
    let mut kernels = HashMap::new();
    for k in &lowered.kernels {
        let addr = ee
            .get_function_address(&k.symbol)
            .map_err(|e| PtxError::Llvm(format!("{}: {e}", k.symbol)))?;
        if addr == 0 {
            return Err(PtxError::Llvm(format!("{}: null entry", k.symbol)));
        }
        // SAFETY: the symbol was defined with the host kernel signature
        // `void(ptr, i64, i64)` in the C calling convention, which is
        // `KernelEntry`'s; the code lives as long as the engine (owned by
        // the artifact).
        let entry = unsafe { std::mem::transmute::<usize, KernelEntry>(addr) };
        kernels.insert(
            k.name.clone(),
            LlvmCpuKernel {
                entry,
                func: k.func,
            },
        );
    }
    Ok(LlvmCpuArtifact {
        kernels,
        _jit: Jit {
            ee: ManuallyDrop::new(ee),
            module: ManuallyDrop::new(module),
            ctx: ManuallyDrop::new(ctx),
        },
    })
}

/// The address of the Cranelift backend's shim for a host helper.
fn shim_addr(h: HostFn) -> Result<usize, PtxError> {
    let name = h.symbol();
    weft_backend_cpu::shims::address(&name)
        .map(|p| p as usize)
        .ok_or_else(|| PtxError::Llvm(format!("no host shim {name}")))
}
