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
use crate::{llvm_level, parts, Error, KernelEntry};
use inkwell::basic_block::BasicBlock;
use inkwell::context::Context;
use inkwell::execution_engine::ExecutionEngine;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::values::{FunctionValue, InstructionOpcode, InstructionValue, Operand};
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
    /// Cancel checks for a wall-clock limit ([`weft_abi::cancel`]): each
    /// loop back-edge polls the deadline and ends the thread once it has
    /// passed. Off by default, and then nothing of it is in the code.
    pub cancel_checks: bool,
    /// The vector tier (`docs/vector.md`): each kernel it takes runs
    /// [`native_width`] consecutive threads per vector register. Off by
    /// default here; the `llvm-cpu` device turns it on.
    pub vector: bool,
    /// The vector tier computes the precise `f32` transcendentals inline
    /// ([`weft_abi::precise`]) instead of calling the shims lane by lane:
    /// 4× faster code, but each inlined call site costs LLVM tens of
    /// milliseconds to compile (`docs/vector.md`), so it is opt-in.
    pub inline_math: bool,
    /// The vector tier stores into an array the kernel only writes with
    /// streaming (non-temporal) stores, bypassing the caches, when the
    /// launch's array is at least this many bytes (x86-64; `docs/vector.md`,
    /// "Streaming stores"); 0: never. 0 by default here; the host devices
    /// use [`stream_min_bytes`] (`WEFT_STREAM_STORES=0` turns that off).
    pub stream_min_bytes: u64,
}

/// The size from which an array written only is stored around the
/// caches: the host's last-level cache (Linux: the largest cache
/// `/sys/devices/system/cpu/cpu0/cache` lists), else 32 MiB. An array
/// that large cannot stay in the cache for the next launch or kernel
/// anyway, so fetching its lines before writing them (a normal store's
/// read-for-ownership) only adds a third of saxpy-like traffic; below
/// it, the written data may still be in the cache when it is read next.
pub fn stream_min_bytes() -> u64 {
    static N: OnceLock<u64> = OnceLock::new();
    *N.get_or_init(|| llc_bytes().unwrap_or(32 << 20))
}

/// [`stream_min_bytes`] when `on`, else 0 (never).
pub fn stream_min_bytes_if(on: bool) -> u64 {
    if on {
        stream_min_bytes()
    } else {
        0
    }
}

/// The largest cache of CPU 0, in bytes (Linux sysfs).
fn llc_bytes() -> Option<u64> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("size")).ok())
        .filter_map(|s| {
            let s = s.trim();
            let (n, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit())?);
            let n: u64 = n.parse().ok()?;
            Some(match unit {
                "K" => n << 10,
                "M" => n << 20,
                "G" => n << 30,
                _ => return None,
            })
        })
        .max()
}

/// A kernel of an [`Artifact`]; the entry point is valid while the
/// artifact lives.
#[derive(Copy, Clone, Debug)]
pub struct Kernel {
    pub entry: KernelEntry,
    pub func: FuncId,
    /// Threads per vector in its code: the vector tier's width
    /// ([`native_width`]) when the tier took the kernel, else 1.
    pub lanes: u32,
}

/// The owned LLVM state behind an artifact. Field order is drop order:
/// the engine (which owns the module and the code) before the context.
struct Jit {
    ee: ManuallyDrop<ExecutionEngine<'static>>,
    module: ManuallyDrop<Module<'static>>,
    ctx: ManuallyDrop<Box<Context>>,
}

// SAFETY: a `Jit` is built on one thread and afterwards only dropped (on
// whichever thread drops the artifact); an LLVM context is not bound to a
// thread, only never to be used by two at once, and nothing else touches
// this one.
unsafe impl Send for Jit {}

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
    /// One engine per part ([`crate::parts`]).
    _jits: Vec<Jit>,
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

/// LLVM 19's `default<O3>` for the host without its SLP vectorizer: the
/// text `opt -passes='default<O3>' -print-pipeline-passes` prints, less
/// `slp-vectorizer` (`scripts/llvm-host-pipeline.sh` writes it).
///
/// LLVM 19.1's SLP vectorizer miscompiles a run of scalar stores that
/// repeat values and hold a constant: it merges them into one vector
/// store whose shuffle leaves the constant's lane `poison`
/// (`tests/fuzz_regressions/fuzz_32220745`, `docs/reliability.md`). The
/// vector tier writes its vectors itself, and the pass-builder option that
/// should drop the pass (`SLPVectorization`) leaves it in LLVM 19's
/// pipeline, so the host names its passes.
pub const HOST_O3_PASSES: &str = include_str!("host_o3.passes");

/// LLVM's optimization pipeline for a Weft level on the host (`None`: no
/// pipeline): [`crate::llvm_pipeline`]'s, with [`HOST_O3_PASSES`] at O2.
fn host_pipeline(o: OptLevel) -> Option<&'static str> {
    match o {
        OptLevel::O2 => Some(HOST_O3_PASSES.trim_end()),
        _ => crate::llvm_pipeline(o),
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

/// Whether the host CPU has the feature `f` (LLVM's name: `avx2`, `fma`).
pub(crate) fn host_has(f: &str) -> bool {
    let features = host_cpu().map(|c| c.1.as_str()).unwrap_or("");
    features.split(',').any(|x| x == format!("+{f}"))
}

/// Threads per vector in the vector tier: the host's vector width in
/// 32-bit lanes (16 with AVX-512F, 8 with AVX2, else 4: SSE, NEON).
pub fn native_width() -> u32 {
    if host_has("avx512f") {
        16
    } else if host_has("avx2") {
        8
    } else {
        4
    }
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

/// Lowers and optimizes the kernels `kernels` of `m` for the host into
/// `module`.
fn build<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    m: &weft_ir::Module,
    opts: &Options,
    kernels: &[FuncId],
) -> Result<lower::Lowered, Error> {
    let tm = host_machine(opts.opt_level)?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let cfg = TargetCfg {
        kind: TargetKind::Host,
        libdevice: false,
        debug: false,
        cancel_checks: opts.cancel_checks,
        vector_width: if opts.vector { native_width() } else { 0 },
        inline_math: opts.inline_math,
        stream_min_bytes: opts.stream_min_bytes,
        cpu: host_cpu().map(|(name, features)| (name.as_str(), features.as_str())),
        fma: host_has("fma"),
    };
    let lowered = lower::lower(ctx, module, m, cfg, kernels)?;
    module
        .verify()
        .map_err(|e| Error::Llvm(format!("invalid LLVM IR: {e}")))?;
    if let Some(passes) = host_pipeline(opts.opt_level) {
        module
            .run_passes(passes, &tm, PassBuilderOptions::create())
            .map_err(|e| Error::Llvm(e.to_string()))?;
    }
    Ok(lowered)
}

/// A function with more calls than this (after optimization) is
/// code-generated with LLVM's fast instruction selector and register
/// allocator (LLVM's code generation level O0; the IR is optimized at the
/// level asked for either way), its blocks split every
/// [`FAST_CODEGEN_BLOCK`] instructions. LLVM's greedy register allocator
/// takes time quadratic in the calls of a function (every call is a
/// register mask that each long live range is checked against): 2 s of the
/// 3.5 s a 20 000-call kernel takes, against 0.4 s in all with the fast
/// path. A function that makes so many calls spends its time in them, so
/// the simpler register allocation costs it little.
pub const FAST_CODEGEN_CALLS: usize = 2000;

/// Most instructions per block under the fast code generation (its
/// register allocator works block by block and is quadratic in a block's
/// size).
pub const FAST_CODEGEN_BLOCK: usize = 256;

/// The code generation level for `module`: `opt`'s, or O0 when a function
/// has more than [`FAST_CODEGEN_CALLS`] calls (and then its blocks are
/// split).
fn codegen_level<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    opt: OptLevel,
) -> inkwell::OptimizationLevel {
    let funcs = || std::iter::successors(module.get_first_function(), |f| f.get_next_function());
    if opt == OptLevel::O0 || funcs().all(|f| calls(f) <= FAST_CODEGEN_CALLS) {
        return llvm_level(opt);
    }
    let b = ctx.create_builder();
    for f in funcs() {
        for bb in f.get_basic_blocks() {
            split_block(ctx, &b, f, bb, FAST_CODEGEN_BLOCK);
        }
    }
    inkwell::OptimizationLevel::None
}

/// The calls (of functions, not intrinsics) in `f`.
fn calls(f: FunctionValue<'_>) -> usize {
    let mut n = 0;
    for bb in f.get_basic_block_iter() {
        for i in bb.get_instructions() {
            let callee = inkwell::values::CallSiteValue::try_from(i)
                .ok()
                .and_then(|c| c.get_called_fn_value());
            if callee.is_some_and(|c| c.get_intrinsic_id() == 0) {
                n += 1;
            }
        }
    }
    n
}

/// Splits `bb` of `f` into blocks of at most `max` instructions (plus a
/// branch), chained by unconditional branches: each chunk from the top
/// moves into a new block placed before the rest, which takes over the
/// predecessors (and the phis).
fn split_block<'ctx>(
    ctx: &'ctx Context,
    b: &inkwell::builder::Builder<'ctx>,
    f: FunctionValue<'ctx>,
    bb: BasicBlock<'ctx>,
    max: usize,
) {
    let insts: Vec<InstructionValue<'ctx>> = bb.get_instructions().collect();
    // The phis stay at the top of the first chunk; only what follows them
    // is counted (a block of many phis and few other instructions needs no
    // split).
    let phis = insts
        .iter()
        .take_while(|i| i.get_opcode() == InstructionOpcode::Phi)
        .count();
    if max == 0 || insts.len() - phis <= max + 1 {
        return;
    }
    // The terminators with `bb` as a successor, and at which operands.
    let mut preds = Vec::new();
    for p in f.get_basic_block_iter() {
        if let Some(t) = p.get_terminator() {
            for k in 0..t.get_num_operands() {
                if matches!(t.get_operand(k), Some(Operand::Block(s)) if s == bb) {
                    preds.push((t, k));
                }
            }
        }
    }
    let mut start = 0;
    let mut end = phis + max;
    // Each chunk leaves at least `max` instructions and the terminator
    // (`end < insts.len()` throughout: the block holds more than
    // `phis + max + 1`, and a chunk is taken only while more than `max`
    // follow it).
    while insts.len().saturating_sub(end) > max {
        let head = ctx.prepend_basic_block(bb, "split");
        for &(t, k) in &preds {
            set_successor(t, k, head);
        }
        b.position_at_end(head);
        for i in &insts[start..end] {
            i.remove_from_basic_block();
            b.insert_instruction(i, None);
        }
        let Ok(br) = b.build_unconditional_branch(bb) else {
            return;
        };
        preds = vec![(br, 0)];
        start = end;
        end += max;
    }
}

/// Makes operand `k` (a block) of the terminator `t` branch to `to`.
fn set_successor<'ctx>(t: InstructionValue<'ctx>, k: u32, to: BasicBlock<'ctx>) {
    use inkwell::llvm_sys::core::{LLVMGetNumSuccessors, LLVMGetSuccessor, LLVMSetSuccessor};
    use inkwell::values::AsValueRef;
    let Some(Operand::Block(from)) = t.get_operand(k) else {
        return;
    };
    // SAFETY: `t` is a live terminator instruction (successor indices are
    // below its successor count) and `to` a block of the same function.
    unsafe {
        let n = LLVMGetNumSuccessors(t.as_value_ref());
        for s in 0..n {
            if LLVMGetSuccessor(t.as_value_ref(), s) == from.as_mut_ptr() {
                LLVMSetSuccessor(t.as_value_ref(), s, to.as_mut_ptr());
            }
        }
    }
}

/// The LLVM IR for the host of a verified module `m`, after optimization.
pub fn emit_text(m: &weft_ir::Module, _info: &ModuleInfo, opts: &Options) -> Result<String, Error> {
    let ctx = Context::create();
    let module = ctx.create_module("weft");
    let kernels: Vec<FuncId> = m.kernels().map(|(id, _)| id).collect();
    build(&ctx, &module, m, opts, &kernels)?;
    Ok(module.print_to_string().to_string())
}

/// Compiles every kernel of a verified module `m` (and the funcs they
/// call) to host code through LLVM and MCJIT; `info` is what the verifier
/// returned. The kernels are compiled in parts ([`crate::parts`]), each in
/// its own LLVM context and engine, in parallel.
pub fn compile(m: &weft_ir::Module, _info: &ModuleInfo, opts: &Options) -> Result<Artifact, Error> {
    let parts = parts::split(m);
    let mut kernels = HashMap::new();
    let mut jits = Vec::new();
    for (jit, ks) in parts::each(&parts, |_, ks| compile_part(m, ks, opts))? {
        kernels.extend(ks);
        jits.push(jit);
    }
    Ok(Artifact {
        kernels,
        _jits: jits,
    })
}

/// Compiles the kernels `part` of `m` into an engine of their own.
fn compile_part(
    m: &weft_ir::Module,
    part: &[FuncId],
    opts: &Options,
) -> Result<(Jit, Vec<(String, Kernel)>), Error> {
    let ctx = Box::new(Context::create());
    // SAFETY: the context lives on the heap and is dropped only by `Jit`'s
    // `Drop`, after the module and engine that borrow it; the box is never
    // moved out of or replaced, so the reference stays valid that long.
    let cref: &'static Context = unsafe { &*(ctx.as_ref() as *const Context) };
    let module = cref.create_module("weft");
    let lowered = build(cref, &module, m, opts, part)?;
    let level = codegen_level(cref, &module, opts.opt_level);
    let ee = module
        .create_jit_execution_engine(level)
        .map_err(|e| Error::Llvm(e.to_string()))?;
    for h in &lowered.host_fns {
        if let Some(fv) = module.get_function(&h.symbol()) {
            ee.add_global_mapping(&fv, shim_addr(*h)?);
        }
    }
    let mut kernels = Vec::new();
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
        kernels.push((
            k.name.clone(),
            Kernel {
                entry,
                func: k.func,
                lanes: k.lanes,
            },
        ));
    }
    let jit = Jit {
        ee: ManuallyDrop::new(ee),
        module: ManuallyDrop::new(module),
        ctx: ManuallyDrop::new(ctx),
    };
    Ok((jit, kernels))
}

/// The address of a host shim ([`weft_abi::shims`]).
fn shim_addr(h: Shim) -> Result<usize, Error> {
    h.info()
        .map(|s| s.addr)
        .ok_or_else(|| Error::Llvm(format!("no host shim {}", h.symbol())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::values::BasicValue;

    /// A function `i32 f(i32 a, i32 b)`: an entry block branching to a loop
    /// block that starts with `phis` phis and then has `adds` additions
    /// and a conditional branch back to itself or to the exit.
    fn looped<'ctx>(
        ctx: &'ctx Context,
        module: &Module<'ctx>,
        phis: usize,
        adds: usize,
    ) -> (FunctionValue<'ctx>, BasicBlock<'ctx>) {
        let i32t = ctx.i32_type();
        let f = module.add_function("f", i32t.fn_type(&[i32t.into(), i32t.into()], false), None);
        let (entry, body, exit) = (
            ctx.append_basic_block(f, "entry"),
            ctx.append_basic_block(f, "body"),
            ctx.append_basic_block(f, "exit"),
        );
        let b = ctx.create_builder();
        let a = f.get_nth_param(0).unwrap().into_int_value();
        let c = f.get_nth_param(1).unwrap().into_int_value();
        b.position_at_end(entry);
        b.build_unconditional_branch(body).unwrap();
        b.position_at_end(body);
        let ps: Vec<_> = (0..phis).map(|_| b.build_phi(i32t, "p").unwrap()).collect();
        let mut x = ps[0].as_basic_value().into_int_value();
        for _ in 0..adds {
            x = b.build_int_add(x, c, "t").unwrap();
        }
        for p in &ps {
            p.add_incoming(&[(&a, entry), (&x.as_basic_value_enum(), body)]);
        }
        let done = b
            .build_int_compare(inkwell::IntPredicate::SGT, x, c, "done")
            .unwrap();
        b.build_conditional_branch(done, exit, body).unwrap();
        b.position_at_end(exit);
        b.build_return(Some(&x)).unwrap();
        (f, body)
    }

    /// Splitting keeps the function valid, every instruction once, and
    /// each block's instructions after its phis within `2 * max` (chunks
    /// of `max` and a branch, and the rest), also for a block whose phis take it past `max` with fewer than
    /// `max` other instructions (that case indexed past the block's end).
    #[test]
    fn split_block_handles_blocks_of_many_phis() {
        for (phis, adds, max) in [
            (3, 5, 4),
            (5, 4, 4),
            (6, 6, 4),
            (2, 40, 8),
            (40, 3, 8),
            (40, 30, 8),
            (1, 9, 4),
        ] {
            let ctx = Context::create();
            let module = ctx.create_module("t");
            let (f, body) = looped(&ctx, &module, phis, adds);
            let before = body.get_instructions().count();
            split_block(&ctx, &ctx.create_builder(), f, body, max);
            module
                .verify()
                .unwrap_or_else(|e| panic!("{phis} phis, {adds} adds, max {max}: {e}"));
            let blocks = f.get_basic_blocks();
            let after: usize = blocks
                .iter()
                .filter(|bb| {
                    bb.get_name().to_bytes() != b"entry" && bb.get_name().to_bytes() != b"exit"
                })
                .map(|bb| {
                    let n = bb.get_instructions().count();
                    let p = bb
                        .get_instructions()
                        .take_while(|i| i.get_opcode() == InstructionOpcode::Phi)
                        .count();
                    assert!(n - p <= 2 * max, "a block of {} after {p} phis", n - p);
                    // The added branches are not the block's instructions.
                    n - usize::from(*bb != body)
                })
                .sum();
            assert_eq!(after, before, "{phis} phis, {adds} adds, max {max}");
        }
    }
}
