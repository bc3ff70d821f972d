//! The host target (`llvm-cpu`): the shared lowering, LLVM's pipeline and
//! MCJIT, with the same shape as every backend: [`Options`], [`Artifact`],
//! [`compile`] and [`emit_text`] (its LLVM IR); errors are the crate's
//! [`Error`].
//!
//! Kernels have the host ABI's entry type ([`KernelEntry`]). Math, `f16`
//! conversions, `print` and bounds-check traps call the host shims
//! ([`weft_abi::shims`], shared with the Cranelift backend), which use the same
//! Rust functions as the reference interpreter (`std` math,
//! `weft_ir::interp::{erf, erfc, erfinv, format_printf}`, `weft_ir::f16`), so
//! both CPU backends agree bit for bit.

use crate::lower::{self, Shim, TargetCfg, TargetKind};
use crate::{llvm_level, llvm_pipeline, Error, KernelEntry};
use inkwell::context::Context;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::sync::OnceLock;
use weft_ir::{FuncId, ModuleInfo, OptLevel};

/// Options of [`compile`] and [`emit_text`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Options {
    /// LLVM's pipeline: O0 none, O1 `default<O1>`, O2 (default)
    /// `default<O3>`.
    pub opt_level: OptLevel,
}

/// A kernel of an [`Artifact`]; the entry point is valid while the
/// artifact lives.
#[derive(Copy, Clone, Debug)]
pub struct Kernel {
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
pub struct Artifact {
    kernels: HashMap<String, Kernel>,
    _jit: Jit,
}

// SAFETY: after construction the LLVM context, module and engine are never
// touched again except by `Drop` (which has `&mut self`); the generated code
// is immutable and the entry points are plain function pointers, so moving
// or sharing the artifact between threads cannot race on LLVM state.
unsafe impl Send for Artifact {}
// SAFETY: as above; `&self` methods read only `kernels`.
unsafe impl Sync for Artifact {}

impl Artifact {
    /// The kernel named `name`, if the module has one.
    pub fn kernel(&self, name: &str) -> Option<Kernel> {
        self.kernels.get(name).copied()
    }
    /// Names of the compiled kernels.
    pub fn kernel_names(&self) -> impl Iterator<Item = &str> {
        self.kernels.keys().map(|s| s.as_str())
    }
}

impl std::fmt::Debug for Artifact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Artifact")
            .field("kernels", &self.kernels.keys().collect::<Vec<_>>())
            .finish()
    }
}

fn init_native() -> Result<(), Error> {
    static INIT: OnceLock<Result<(), String>> = OnceLock::new();
    INIT.get_or_init(|| Target::initialize_native(&InitializationConfig::default()))
        .clone()
        .map_err(Error::Llvm)
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

fn host_machine(opt: OptLevel) -> Result<TargetMachine, Error> {
    init_native()?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| Error::Llvm(e.to_string()))?;
    let (cpu, features) = host_cpu().cloned().unwrap_or_default();
    target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            llvm_level(opt),
            RelocMode::Default,
            CodeModel::JITDefault,
        )
        .ok_or_else(|| Error::Llvm("cannot create the host target machine".into()))
}

const HOST_CFG: TargetCfg = TargetCfg {
    kind: TargetKind::Host,
    libdevice: false,
    debug: false,
};

/// Lowers and optimizes `m` for the host into `module`.
fn build<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    m: &weft_ir::Module,
    opts: &Options,
) -> Result<lower::Lowered, Error> {
    let tm = host_machine(opts.opt_level)?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let lowered = lower::lower(ctx, module, m, HOST_CFG)?;
    module
        .verify()
        .map_err(|e| Error::Llvm(format!("invalid LLVM IR: {e}")))?;
    if let Some(passes) = llvm_pipeline(opts.opt_level) {
        module
            .run_passes(passes, &tm, PassBuilderOptions::create())
            .map_err(|e| Error::Llvm(e.to_string()))?;
    }
    Ok(lowered)
}

/// The LLVM IR for the host of a verified module `m`, after optimization.
pub fn emit_text(m: &weft_ir::Module, _info: &ModuleInfo, opts: &Options) -> Result<String, Error> {
    let ctx = Context::create();
    let module = ctx.create_module("weft");
    build(&ctx, &module, m, opts)?;
    Ok(module.print_to_string().to_string())
}

/// Compiles every kernel of a verified module `m` (and the funcs they
/// call) to host code through LLVM and MCJIT; `info` is what the verifier
/// returned.
pub fn compile(m: &weft_ir::Module, _info: &ModuleInfo, opts: &Options) -> Result<Artifact, Error> {
    let ctx = Box::new(Context::create());
    // SAFETY: the context lives on the heap and is dropped only by `Jit`'s
    // `Drop`, after the module and engine that borrow it; the box is never
    // moved out of or replaced, so the reference stays valid that long.
    let cref: &'static Context = unsafe { &*(ctx.as_ref() as *const Context) };
    let module = cref.create_module("weft");
    let lowered = build(cref, &module, m, opts)?;
    let ee = module
        .create_jit_execution_engine(llvm_level(opts.opt_level))
        .map_err(|e| Error::Llvm(e.to_string()))?;
    for h in &lowered.host_fns {
        if let Some(fv) = module.get_function(&h.symbol()) {
            ee.add_global_mapping(&fv, shim_addr(*h)?);
        }
    }
    let mut kernels = HashMap::new();
    for k in &lowered.kernels {
        let addr = ee
            .get_function_address(&k.symbol)
            .map_err(|e| Error::Llvm(format!("{}: {e}", k.symbol)))?;
        if addr == 0 {
            return Err(Error::Llvm(format!("{}: null entry", k.symbol)));
        }
        // SAFETY: the symbol was defined with the host kernel signature
        // `void(ptr, i64, i64)` in the C calling convention, which is
        // `KernelEntry`'s; the code lives as long as the engine (owned by
        // the artifact).
        let entry = unsafe { std::mem::transmute::<usize, KernelEntry>(addr) };
        kernels.insert(
            k.name.clone(),
            Kernel {
                entry,
                func: k.func,
            },
        );
    }
    Ok(Artifact {
        kernels,
        _jit: Jit {
            ee: ManuallyDrop::new(ee),
            module: ManuallyDrop::new(module),
            ctx: ManuallyDrop::new(ctx),
        },
    })
}

/// The address of a host shim ([`weft_abi::shims`]).
fn shim_addr(h: Shim) -> Result<usize, Error> {
    h.info()
        .map(|s| s.addr)
        .ok_or_else(|| Error::Llvm(format!("no host shim {}", h.symbol())))
}
