//! # weft-backend-cpu — the CPU backend (Cranelift JIT)
//!
//! [`compile`] turns every kernel of a verified [`weft_ir::Module`] into
//! native code for the host, JIT-compiled by Cranelift; [`Artifact::kernel`]
//! hands out the entry points. [`emit_text`] shows the Cranelift IR
//! instead. The same shape as every backend: [`Options`], [`Error`],
//! [`Artifact`], `compile(module, info, options)`, `emit_text(...)`.
//!
//! ```
//! use weft_ir::ir::{BinaryOp, MemAccess};
//! use weft_ir::layout::{arg_layout, ArrayDesc};
//! use weft_ir::{ArrayType, ElemType, FuncBuilder, FuncKind, Function, Module, Param, Scalar, Type};
//!
//! // kernel double(x: array1<f32>): x[tid] = x[tid] + x[tid]
//! let mut m = Module::new();
//! let arr = Type::Array(ArrayType { elem: ElemType::Scalar(Scalar::F32), ndim: 1 });
//! let mut f = Function::new("double", FuncKind::Kernel, vec![Param { name: "x".into(), ty: arr }], vec![]);
//! let x = f.param_values()[0];
//! {
//!     let mut b = FuncBuilder::new(&mut f, &m.structs);
//!     let i = b.thread_id();
//!     let at = MemAccess { array: x, indices: vec![i], path: vec![] };
//!     let v = b.load(at.clone());
//!     let d = b.binary(BinaryOp::Add, v, v);
//!     b.store(at, d);
//!     b.return_(vec![]);
//! }
//! m.funcs.push(f);
//!
//! let info = weft_ir::verify::verify_module(&m).unwrap();
//! let art = weft_backend_cpu::compile(&m, &info, &Default::default()).unwrap();
//! let k = art.kernel("double").unwrap();
//! let mut data = vec![1.0f32, 2.0, 3.0];
//! let layout = arg_layout(&[arr], &m.structs);
//! #[repr(C)]
//! struct Block { dims: [i32; 4], x: ArrayDesc }
//! assert_eq!(layout.offsets[0], 16);
//! let block = Block {
//!     dims: [3, 1, 1, 1],
//!     x: ArrayDesc { data: data.as_mut_ptr() as *mut u8, shape: [3, 1, 1, 1], strides: [4, 0, 0, 0] },
//! };
//! // SAFETY: the block is laid out as `arg_layout` says; `data` outlives the call.
//! unsafe { (k.entry)(&block as *const Block as *const u8, 0, 3) };
//! assert_eq!(data, [2.0, 4.0, 6.0]);
//! ```
//!
//! # ABI
//!
//! A kernel becomes `unsafe extern "C" fn(args: *const u8, start: i64, end: i64)`
//! ([`KernelEntry`]). It runs the threads with linear indices
//! `start..end`, in order. `args` points to the argument block of
//! [`weft_ir::layout`]: the launch dims (`4 × i32`) at offset 0, then each
//! parameter at its [`arg_layout`](weft_ir::layout::arg_layout) offset, an
//! array as an [`ArrayDesc`](weft_ir::layout::ArrayDesc). Out-of-range
//! indices are not checked.
//!
//! # How the IR maps to Cranelift
//!
//! * **Values.** Each IR value is the flat list of its scalar leaves (in
//!   [`layout::leaves`](weft_ir::layout::leaves) order); an array handle is
//!   `data: i64, shape[ndim]: i32, strides[ndim]: i64`. `Make`, `Extract`,
//!   `Insert` and `Select` therefore cost nothing but the per-leaf `select`.
//!   `bool` is an `i8` (0/1); `f16` is an `f32` holding an `f16` value:
//!   loads and stores convert, and every rounding operation on `f16` rounds
//!   its `f32` result to `f16` (as the interpreter does).
//! * **Kernel frame.** The entry block loads the parameters from the
//!   argument block (loads marked read-only and movable), then runs a
//!   rotated loop over the thread index; `ThreadId` is that index as `i32`.
//!   `Return` in a kernel jumps to the loop latch (next thread). A parameter
//!   is loaded once per launch if the kernel uses it before or inside its
//!   first loop; one first used after that loop is loaded once per thread,
//!   just before the top-level instruction that first uses it, so that it
//!   does not hold a register across the loop (in the N-body kernel this
//!   removes every spill from the inner loop). Unused parameters are never
//!   loaded. Non-zero float constants inside a loop (the thread loop
//!   included) are read-only loads from a constant pool the artifact owns,
//!   which Cranelift hoists; an `f32const` would be rebuilt through a
//!   general register on every iteration.
//! * **Two thread loops.** If the kernel uses arrays, the entry checks
//!   whether each one's innermost stride equals its element size. If all
//!   do, a version of the thread loop runs in which those strides are
//!   constants (addresses fold into x86 addressing modes) and, for small
//!   loop-free kernels, four threads are handled per iteration (each copy's
//!   `return` jumps to the next copy); otherwise the general version runs.
//!   The body is therefore translated up to six times; compile time stays
//!   well under a millisecond for the seed's kernels.
//! * **SIMD stage.** In the unit-stride version of a 1-D launch, a body of
//!   lane-exact `f32`/`i32` arithmetic on 1-D arrays indexed by the thread
//!   id (saxpy and the like; whatever folds to constants once the launch
//!   dims past axis 0 are 1, such as the frontend's thread-index
//!   decomposition and its `if`, is folded with the interpreter's own
//!   `eval_*`) first runs four threads per 128-bit vector instruction,
//!   lane `k` being thread `i + k`; the scalar loops finish the
//!   remainder. Results are bit-identical to the scalar code; a launch
//!   whose stored array overlaps another array at a different base (shifted
//!   views of one buffer) skips this stage, so threads still behave as run
//!   in order. The
//!   general SPMD-on-SIMD design of DESIGN.md (masks, any body) replaces
//!   this later.
//! * **Control flow.** A region is translated into the current block.
//!   `If` becomes `brif` to two fresh blocks and a merge block whose params
//!   are the flattened results (`Yield` jumps there). `Loop` becomes a header
//!   block with the flattened body params and an exit block with the
//!   flattened results: `Continue` jumps to the header, `Break` to the exit of
//!   the innermost loop.
//! * **Arithmetic.** Integer ops wrap. Division and remainder never trap:
//!   the divisor is replaced by 1 when it is 0 or -1 and the result fixed up
//!   (`x / 0 = 0`, `x % 0 = 0`, `MIN / -1 = MIN`); the remainder is
//!   `a - q·b`, so `a / b` and `a % b` in one region (the 2-D thread index
//!   decomposition) cost one division. Shifts take the amount
//!   modulo the width (Cranelift's semantics). Float `Min`/`Max` are C
//!   `fmin`/`fmax`: Cranelift's NaN-propagating `fmin` plus selects that
//!   ignore a NaN operand (the sign of `min(+0, -0)` is unspecified, as in C
//!   and Rust). `Round` (half away from zero) is `trunc` plus a
//!   step; `Rint` is `nearest`. Float→int casts saturate with NaN→0
//!   (`fcvt_to_*_sat`, clamped for 8/16-bit targets). No `a*b+c` is ever
//!   contracted: only `Fma` becomes `fma`.
//! * **Shims.** Transcendentals, `pow`, `atan2`, float `%` (fmod), `f16`
//!   conversions and `Print` call `extern "C"` functions of this crate
//!   ([`weft_abi::shims`], also mapped by the LLVM host JIT) that use the same Rust functions as the interpreter
//!   (`std`, `weft_ir::interp::{erf, erfc, erfinv, format_printf}`,
//!   `weft_ir::f16`); the tests compare every operation with the
//!   interpreter bit for bit.
//! * **Memory.** The address of `a[i, j, ..]` is `data + Σ idx_k·stride_k`
//!   (indices sign- or zero-extended to `i64`) plus the byte offset of the
//!   component path; each leaf is one load or store. Atomics are per scalar
//!   leaf: `atomic_rmw` for integers, a compare-and-swap loop for float
//!   add/sub/min/max.
//! * **Calls.** Funcs reachable from a kernel through `Call` are compiled
//!   as Cranelift functions taking hidden `(args, thread index)` then the
//!   flattened params, returning the flattened results.

mod fastmath;
pub mod gdbjit;
mod lower;
mod shims;

pub use weft_abi::KernelEntry;
/// The one optimization level (`weft_ir::OptLevel`).
pub use weft_ir::OptLevel;

use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module as _};
use lower::{FnTx, ModCtx, ModDecls};
use rayon::prelude::*;
use std::collections::HashMap;
use weft_ir::{FuncId, FuncKind, Loc, ModuleInfo, SourcePos};

/// Options of [`compile`] and [`emit_text`].
#[derive(Copy, Clone, Debug)]
pub struct Options {
    /// [`OptLevel::O0`]: Cranelift's `opt_level=none`; O1 and O2: `speed`.
    pub opt_level: OptLevel,
    /// Run Cranelift's verifier on the generated code.
    pub verify: bool,
    /// Debug build: statement hooks for the debugger
    /// ([`weft_abi::debug`]); off by default, and then nothing of it is in
    /// the generated code.
    pub debug: bool,
    /// Debug info for gdb ([`gdbjit`]): DWARF line tables into the kernel's
    /// source and the locations of its variables, registered through the
    /// GDB JIT interface; one thread loop (no unit-stride copy). Off by
    /// default, and then nothing changes.
    /// Above [`OptLevel::O0`] Cranelift hoists loop-invariant code out of
    /// loops with its source line, so a breakpoint on such a line may land
    /// outside the loop: O0 keeps every line in place.
    pub debug_info: bool,
    /// Functions with more Cranelift instructions than this use Cranelift's
    /// single-pass register allocator (default
    /// [`SINGLE_PASS_REGALLOC_INSTS`]; 0: every function, `usize::MAX`:
    /// none).
    pub single_pass_regalloc_above: usize,
    /// Cancel checks for a wall-clock limit ([`weft_abi::cancel`]): each
    /// loop back-edge polls the deadline and ends the thread once it has
    /// passed. Off by default, and then nothing of it is in the generated
    /// code.
    pub cancel_checks: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            opt_level: OptLevel::O2,
            verify: cfg!(debug_assertions),
            debug: false,
            debug_info: false,
            single_pass_regalloc_above: SINGLE_PASS_REGALLOC_INSTS,
            cancel_checks: false,
        }
    }
}

/// Errors of the CPU backend.
#[derive(thiserror::Error, Debug)]
pub enum Error {
    /// An operation this backend does not implement.
    #[error("{pos}: the CPU backend does not support {what}")]
    Unsupported { what: String, pos: SourcePos },
    /// IR that breaks an invariant of the IR (the verifier would reject it).
    #[error("{pos}: invalid IR for the CPU backend: {what}")]
    Invalid { what: String, pos: SourcePos },
    /// The host is not supported by Cranelift.
    #[error("unsupported host: {0}")]
    Host(String),
    /// Cranelift failed (a verifier error is a bug of this backend).
    #[error("code generation failed: {0}")]
    Codegen(String),
}

impl Error {
    /// Whether the backend cannot express the module ([`Error::Unsupported`]).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Error::Unsupported { .. })
    }
}

/// A kernel of an [`Artifact`]. The entry point is valid while the
/// artifact lives.
#[derive(Copy, Clone, Debug)]
pub struct Kernel {
    pub entry: KernelEntry,
    pub func: FuncId,
}

/// The JIT-compiled code of a module. Owns the executable memory: dropping
/// it frees the code, after which no [`KernelEntry`] of it may be called.
pub struct Artifact {
    module: Option<JITModule>,
    kernels: HashMap<String, Kernel>,
    /// Bytes the code points at (print formats).
    _data: Vec<Box<[u8]>>,
    /// The debug info registered with gdb ([`Options::debug_info`]).
    gdb: Option<gdbjit::Registration>,
}

// SAFETY: after `finalize_definitions` the JIT module is never touched
// again except by `Drop` (which has `&mut self`); the code and `_data` are
// immutable, and the entry points are plain function pointers. So sharing
// or moving the artifact between threads cannot race on the module's
// interior state.
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
    /// The ELF object registered with gdb (with [`Options::debug_info`]).
    pub fn gdb_image(&self) -> Option<&[u8]> {
        self.gdb.as_ref().map(|g| g.image())
    }
}

impl Drop for Artifact {
    fn drop(&mut self) {
        // Unregister from gdb before the code goes.
        drop(self.gdb.take());
        if let Some(m) = self.module.take() {
            // SAFETY: the artifact owns the module and every pointer into its
            // code is documented to be valid only while the artifact lives.
            unsafe { m.free_memory() };
        }
    }
}

impl std::fmt::Debug for Artifact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Artifact")
            .field("kernels", &self.kernels.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Compiles every kernel of a verified module `m` (and the funcs they
/// call) to host code; `info` is what the verifier returned.
pub fn compile(m: &weft_ir::Module, _info: &ModuleInfo, opts: &Options) -> Result<Artifact, Error> {
    let (mut module, ids, data, _, mut dbg) = build(m, opts, false)?;
    module
        .finalize_definitions()
        .map_err(|e| Error::Codegen(e.to_string()))?;
    let gdb = if opts.debug_info {
        for (info, id) in &mut dbg.funcs {
            info.addr = module.get_finalized_function(*id) as u64;
            if let Some(u) = dbg.unwind.remove(id) {
                info.fde = Some(u.to_fde(cranelift_codegen::gimli::write::Address::Constant(
                    info.addr,
                )));
            }
        }
        let funcs: Vec<_> = dbg.funcs.into_iter().map(|(f, _)| f).collect();
        let dir = std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| "/".into());
        let image = gdbjit::build_image(
            &m.files,
            &m.structs,
            &dir,
            &funcs,
            module.isa().create_systemv_cie(),
        )?;
        Some(gdbjit::register(image))
    } else {
        None
    };
    let mut kernels = HashMap::new();
    for (fid, f) in m.kernels() {
        let Some(&id) = ids.get(&fid) else { continue };
        let ptr = module.get_finalized_function(id);
        // SAFETY: `id` was defined with the kernel signature
        // `(i64, i64, i64) -> ()` in the host's default (C) calling
        // convention, which is `KernelEntry`'s.
        let entry = unsafe { std::mem::transmute::<*const u8, KernelEntry>(ptr) };
        kernels.insert(f.name.clone(), Kernel { entry, func: fid });
    }
    Ok(Artifact {
        module: Some(module),
        kernels,
        _data: data,
        gdb,
    })
}

/// The Cranelift IR (before optimization) of every kernel of a verified
/// module `m` and the funcs they call.
pub fn emit_text(m: &weft_ir::Module, _info: &ModuleInfo, opts: &Options) -> Result<String, Error> {
    let (module, _, _, text, _) = build(m, opts, true)?;
    // SAFETY: nothing was finalized; no pointer into the module escapes.
    unsafe { module.free_memory() };
    Ok(text)
}

/// The default of [`Options::single_pass_regalloc_above`]: functions with
/// more Cranelift instructions than this are register-allocated by
/// Cranelift's single-pass allocator instead of the backtracking one: the
/// backtracking allocator's time grows faster than linearly on straight-line
/// code of tens of thousands of values (issue 18: a 20,000-statement kernel),
/// while the single pass is linear at the cost of more spills. The seed's
/// kernels and every conformance kernel are far below it (a few hundred to a
/// few thousand instructions), so their code is unchanged.
pub const SINGLE_PASS_REGALLOC_INSTS: usize = 40_000;

/// The host ISA with Weft's settings; `single_pass` selects the register
/// allocator ([`SINGLE_PASS_REGALLOC_INSTS`]).
fn host_isa(
    opts: &Options,
    single_pass: bool,
) -> Result<std::sync::Arc<dyn cranelift_codegen::isa::TargetIsa>, Error> {
    let mut fb = settings::builder();
    let set = |fb: &mut settings::Builder, k: &str, v: &str| {
        fb.set(k, v)
            .map_err(|e| Error::Codegen(format!("setting {k}={v}: {e}")))
    };
    set(
        &mut fb,
        "opt_level",
        match opts.opt_level {
            OptLevel::O0 => "none",
            OptLevel::O1 | OptLevel::O2 => "speed",
        },
    )?;
    set(
        &mut fb,
        "enable_verifier",
        if opts.verify { "true" } else { "false" },
    )?;
    set(&mut fb, "is_pic", "false")?;
    set(&mut fb, "use_colocated_libcalls", "false")?;
    set(&mut fb, "enable_multi_ret_implicit_sret", "true")?;
    if single_pass {
        set(&mut fb, "regalloc_algorithm", "single_pass")?;
    }
    cranelift_native::builder()
        .map_err(|e| Error::Host(e.to_string()))?
        .finish(settings::Flags::new(fb))
        .map_err(|e| Error::Host(e.to_string()))
}

fn new_module(opts: &Options) -> Result<JITModule, Error> {
    let isa = host_isa(opts, false)?;
    let mut jb = JITBuilder::with_isa(isa, default_libcall_names());
    for s in weft_abi::shims::table() {
        jb.symbol(&s.name, s.ptr());
    }
    Ok(JITModule::new(jb))
}

type Built = (
    JITModule,
    HashMap<FuncId, cranelift_module::FuncId>,
    Vec<Box<[u8]>>,
    String,
    DebugInfo,
);

/// What [`build`] keeps for [`gdbjit`] (with [`Options::debug_info`]):
/// each function's info (its address still 0) and unwind info.
#[derive(Default)]
struct DebugInfo {
    funcs: Vec<(gdbjit::FuncInfo, cranelift_module::FuncId)>,
    unwind: HashMap<cranelift_module::FuncId, cranelift_codegen::isa::unwind::systemv::UnwindInfo>,
}

/// One function as [`build`]'s parallel stage leaves it: its machine code
/// and relocations (or, with `want_text`, its Cranelift IR text), with
/// what its translation added beside the code.
struct Compiled {
    fid: FuncId,
    id: cranelift_module::FuncId,
    code: Vec<u8>,
    align: u64,
    relocs: Vec<cranelift_module::ModuleReloc>,
    /// Its Cranelift IR text (with `want_text`; nothing is compiled then).
    text: String,
    data: Vec<Box<[u8]>>,
    /// With [`Options::debug_info`]: its info for gdb and unwind info.
    debug: Option<(
        gdbjit::FuncInfo,
        Option<cranelift_codegen::isa::unwind::systemv::UnwindInfo>,
    )>,
}

fn build(m: &weft_ir::Module, opts: &Options, want_text: bool) -> Result<Built, Error> {
    let mut module = new_module(opts)?;
    let mut decls = ModDecls {
        m,
        shim_ids: HashMap::new(),
        func_ids: HashMap::new(),
        debug: opts.debug,
        debug_info: opts.debug_info,
        cancel_checks: opts.cancel_checks,
    };
    let mut dbg = DebugInfo::default();
    let cg = |e: cranelift_module::ModuleError| Error::Codegen(e.to_string());

    for s in weft_abi::shims::table() {
        let sig = shims::signature(s, module.make_signature());
        let id = module
            .declare_function(&s.name, Linkage::Import, &sig)
            .map_err(cg)?;
        decls.shim_ids.insert(s.shim, id);
    }

    let funcs = m.reachable_funcs();
    let mut sigs = Vec::with_capacity(funcs.len());
    for &fid in &funcs {
        let f = &m.funcs[fid];
        let (sig, linkage) = match f.kind {
            FuncKind::Kernel => (lower::kernel_signature(&module), Linkage::Export),
            FuncKind::Func => (lower::func_signature(m, &module, f), Linkage::Local),
        };
        let name = format!("weft_{}_{}", fid.as_u32(), f.name);
        let id = module.declare_function(&name, linkage, &sig).map_err(cg)?;
        decls.func_ids.insert(fid, id);
        sigs.push(sig);
    }

    // Translate and compile the functions in parallel (rayon; each reads
    // only the declarations, and each worker reuses its contexts), then
    // define them in order.
    let (isa, cfg) = (module.isa(), module.target_config());
    let shared = (module.declarations(), isa);
    let above = opts.single_pass_regalloc_above;
    let single_pass = std::sync::OnceLock::new();
    let done = funcs
        .par_iter()
        .zip(sigs)
        .map_init(
            || {
                (
                    FunctionBuilderContext::new(),
                    cranelift_codegen::Context::new(),
                )
            },
            |(fctx, ctx), (&fid, sig)| {
                let f = &m.funcs[fid];
                let id = decls.func_ids[&fid];
                let mut cx = ModCtx::new(&decls);
                ctx.clear();
                ctx.func.signature = sig;
                ctx.func.name = cranelift_codegen::ir::UserFuncName::user(0, id.as_u32());
                if opts.debug_info {
                    ctx.func.collect_debug_info();
                }
                let b = cranelift_frontend::FunctionBuilder::new(&mut ctx.func, fctx);
                let mut tx = FnTx::new(&mut cx, shared, f, b);
                match f.kind {
                    FuncKind::Kernel => tx.kernel_into()?,
                    FuncKind::Func => tx.func_into()?,
                }
                tx.finish(cfg);
                let mut out = Compiled {
                    fid,
                    id,
                    code: Vec::new(),
                    align: 1,
                    relocs: Vec::new(),
                    text: String::new(),
                    data: std::mem::take(&mut cx.data),
                    debug: None,
                };
                if want_text {
                    let kind = match f.kind {
                        FuncKind::Kernel => "kernel",
                        FuncKind::Func => "func",
                    };
                    out.text = format!("; {kind} {}\n{}\n", f.name, ctx.func.display());
                    return Ok(out);
                }
                let isa = if ctx.func.dfg.num_insts() > above {
                    match single_pass.get_or_init(|| host_isa(opts, true)) {
                        Ok(sp) => &**sp,
                        Err(e) => return Err(Error::Host(e.to_string())),
                    }
                } else {
                    isa
                };
                ctx.compile(isa, &mut Default::default())
                    .map_err(|e| Error::Codegen(format!("{}: {:?}", f.name, e.inner)))?;
                let Some(cc) = ctx.compiled_code() else {
                    return Err(Error::Codegen(format!("{}: not compiled", f.name)));
                };
                out.code = cc.code_buffer().to_vec();
                out.align = cc.buffer.alignment as u64;
                out.relocs = cc
                    .buffer
                    .relocs()
                    .iter()
                    .map(|r| cranelift_module::ModuleReloc::from_mach_reloc(r, &ctx.func, id))
                    .collect();
                if opts.debug_info {
                    out.debug = Some(debug_info(&cx, f, fid, cc, isa));
                }
                Ok(out)
            },
        )
        .collect::<Result<Vec<_>, Error>>()?;
    if want_text {
        let text = done.iter().map(|t| t.text.as_str()).collect();
        return Ok((module, decls.func_ids, vec![], text, dbg));
    }
    let mut data = Vec::new();
    for t in done {
        module
            .define_function_bytes(t.id, t.align, &t.code, &t.relocs)
            .map_err(|e| Error::Codegen(format!("{}: {e:?}", m.funcs[t.fid].name)))?;
        data.extend(t.data);
        if let Some((info, unwind)) = t.debug {
            if let Some(u) = unwind {
                dbg.unwind.insert(t.id, u);
            }
            dbg.funcs.push((info, t.id));
        }
    }
    Ok((module, decls.func_ids, data, String::new(), dbg))
}

/// The gdb info of `f`, compiled to `cc` (its address still 0), and its
/// unwind info.
fn debug_info(
    cx: &ModCtx,
    f: &weft_ir::Function,
    fid: FuncId,
    cc: &cranelift_codegen::CompiledCode,
    isa: &dyn cranelift_codegen::isa::TargetIsa,
) -> (
    gdbjit::FuncInfo,
    Option<cranelift_codegen::isa::unwind::systemv::UnwindInfo>,
) {
    let rows = cc
        .buffer
        .get_srclocs_sorted()
        .iter()
        .map(|s| {
            let loc = (!s.loc.is_default())
                .then(|| cx.srclocs.get(s.loc.bits() as usize).copied())
                .flatten()
                .unwrap_or(Loc::NONE);
            (s.start, s.end, loc)
        })
        .collect();
    let unwind = match cc.create_unwind_info(isa) {
        Ok(Some(cranelift_codegen::isa::unwind::UnwindInfo::SystemV(u))) => Some(u),
        _ => None,
    };
    let info = gdbjit::FuncInfo {
        name: f.name.clone(),
        symbol: format!("weft_{}_{}", fid.as_u32(), f.name),
        loc: f.loc,
        addr: 0,
        size: cc.code_info().total_size as u64,
        rows,
        vars: variables(&cx.labels, f, cc, isa),
        fde: None,
    };
    (info, unwind)
}

/// The variables of `f` (labelled by the lowering, `lower/debug.rs`; [`gdbjit::VarInfo`])
/// and where Cranelift put the leaves of each of their values.
fn variables(
    labels: &[(usize, String, weft_ir::Type, u32, u32)],
    f: &weft_ir::Function,
    cc: &cranelift_codegen::CompiledCode,
    isa: &dyn cranelift_codegen::isa::TargetIsa,
) -> Vec<gdbjit::VarInfo> {
    use cranelift_codegen::LabelValueLoc;
    let key = std::ptr::from_ref(f) as usize;
    let mut vars: Vec<gdbjit::VarInfo> = Vec::new();
    let mut keys: Vec<Vec<u32>> = Vec::new();
    for (id, (k, name, ty, leaf, value)) in labels.iter().enumerate() {
        if *k != key {
            continue;
        }
        let i = match vars.iter().position(|v| &v.name == name) {
            Some(i) => i,
            None => {
                vars.push(gdbjit::VarInfo {
                    name: name.clone(),
                    ty: *ty,
                    param: false,
                    values: Vec::new(),
                });
                keys.push(Vec::new());
                vars.len() - 1
            }
        };
        let j = match keys[i].iter().position(|x| x == value) {
            Some(j) => j,
            None => {
                keys[i].push(*value);
                vars[i].values.push(Vec::new());
                keys[i].len() - 1
            }
        };
        let leaves = &mut vars[i].values[j];
        if leaves.len() <= *leaf as usize {
            leaves.resize(*leaf as usize + 1, Vec::new());
        }
        let label = cranelift_codegen::ir::ValueLabel::from_u32(id as u32);
        for r in cc.value_labels_ranges.get(&label).into_iter().flatten() {
            let loc = match r.loc {
                LabelValueLoc::Reg(reg) => match isa.map_regalloc_reg_to_dwarf(reg) {
                    Ok(n) => gdbjit::LeafLoc::Reg(n),
                    Err(_) => continue,
                },
                LabelValueLoc::CFAOffset(o) => gdbjit::LeafLoc::Cfa(o),
            };
            leaves[*leaf as usize].push((r.start, r.end, loc));
        }
    }
    // Parameters first, in order.
    let param = |v: &gdbjit::VarInfo| f.params.iter().position(|p| p.name == v.name);
    for v in &mut vars {
        v.param = param(v).is_some();
    }
    vars.sort_by_key(|v| param(v).unwrap_or(usize::MAX));
    vars
}
