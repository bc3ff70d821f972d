//! libdevice: reading and linking `libdevice.10.bc` into an NVPTX module,
//! and the choice between inlining a libdevice function at every call
//! site and calling one copy ([`LIBDEVICE_INLINE_SITES`]).

use crate::lower;
use crate::Error;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::Context;
use inkwell::module::{FlagBehavior, Linkage, Module};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// libdevice bitcode, read once per path.
pub(crate) fn libdevice_bytes(path: &Path) -> Result<std::sync::Arc<Vec<u8>>, Error> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, std::sync::Arc<Vec<u8>>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Ok(c) = cache.lock() {
        if let Some(b) = c.get(path) {
            return Ok(b.clone());
        }
    }
    let bytes = std::fs::read(path).map_err(|e| Error::Libdevice {
        path: path.to_path_buf(),
        msg: e.to_string(),
    })?;
    let arc = std::sync::Arc::new(bytes);
    if let Ok(mut c) = cache.lock() {
        c.insert(path.to_path_buf(), arc.clone());
    }
    Ok(arc)
}
/// Opens bitcode lazily: function bodies are read when first needed.
/// `bytes` must outlive the returned module (it is consumed by linking).
fn lazy_bitcode<'ctx>(ctx: &'ctx Context, bytes: &[u8]) -> Option<Module<'ctx>> {
    use inkwell::context::AsContextRef;
    use inkwell::llvm_sys::bit_reader::LLVMGetBitcodeModuleInContext2;
    use inkwell::llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRange;
    // SAFETY: a non-owning buffer over `bytes` (no NUL terminator needed for
    // bitcode); the caller keeps `bytes` alive as long as the module.
    let mb = unsafe {
        LLVMCreateMemoryBufferWithMemoryRange(
            bytes.as_ptr() as *const std::ffi::c_char,
            bytes.len(),
            c"libdevice".as_ptr(),
            0,
        )
    };
    if mb.is_null() {
        return None;
    }
    let mut raw = std::ptr::null_mut();
    // SAFETY: `ctx` is a live context; LLVM takes ownership of the buffer
    // (the module owns it on success, it is freed on failure), so it is not
    // disposed here.
    let failed = unsafe { LLVMGetBitcodeModuleInContext2((&ctx).as_ctx_ref(), mb, &mut raw) };
    if failed != 0 || raw.is_null() {
        return None;
    }
    // SAFETY: `raw` is a new module of `ctx`, owned by nobody else.
    Some(unsafe { Module::new(raw) })
}

/// Links libdevice into `module`, makes everything but the kernels
/// internal (so unused functions are dropped), sets `__CUDA_FTZ` to 0
/// for NVVMReflect (denormals are kept, as on the CPU), and makes the
/// functions called from many sites calls ([`call_large`]; their names
/// get `suffix`, which makes them unique among the parts of a module).
pub(crate) fn link_libdevice<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    path: &Path,
    lowered: &lower::Lowered,
    suffix: &str,
) -> Result<(), Error> {
    let bytes = libdevice_bytes(path)?;
    let err = |msg: String| Error::Libdevice {
        path: path.to_path_buf(),
        msg,
    };
    let lib = lazy_bitcode(ctx, &bytes).ok_or_else(|| err("not a valid bitcode file".into()))?;
    // Every definition becomes `linkonce_odr`, so the linker brings in (and
    // reads) only the functions the kernels reach, instead of all of them.
    let mut f = lib.get_first_function();
    while let Some(fv) = f {
        let g = fv.as_global_value();
        if !g.is_declaration() && g.get_linkage() == Linkage::External {
            g.set_linkage(Linkage::LinkOnceODR);
        }
        f = fv.get_next_function();
    }
    lib.set_triple(&module.get_triple());
    lib.set_data_layout(&module.get_data_layout());
    module.link_in_module(lib).map_err(|e| err(e.to_string()))?;
    let kernels: Vec<&str> = lowered.kernels.iter().map(|k| k.symbol.as_str()).collect();
    let mut f = module.get_first_function();
    while let Some(fv) = f {
        let name = fv.get_name().to_str().unwrap_or("");
        if fv.count_basic_blocks() > 0 && !kernels.contains(&name) {
            fv.set_linkage(Linkage::Internal);
        }
        f = fv.get_next_function();
    }
    let mut g = module.get_first_global();
    while let Some(gv) = g {
        if gv.get_initializer().is_some() {
            gv.set_linkage(Linkage::Internal);
        }
        g = gv.get_next_global();
    }
    call_large(ctx, module, &lowered.libdevice_calls, suffix)?;
    module.add_basic_value_flag(
        "nvvm-reflect-ftz",
        FlagBehavior::Override,
        ctx.i32_type().const_zero(),
    );
    Ok(())
}

/// The most call sites at which a libdevice function is inlined (module
/// wide). libdevice marks every function `alwaysinline`; a function called
/// from more sites than this is kept as one `.func` that every site calls
/// ([`call_large`]). Inlined copies (about 100 PTX lines each for `sinf`)
/// make code size, and LLVM's time, grow with the number of calls, and
/// superlinearly: minutes for a thousand `sin`s. Below the limit code is as
/// it always was (inlined), so small kernels keep their register use.
pub const LIBDEVICE_INLINE_SITES: usize = 8;

/// Makes each libdevice function of `calls` (name, call sites) called
/// from more than [`LIBDEVICE_INLINE_SITES`] sites a function that every
/// site calls: `noinline` (instead of `alwaysinline`), with external
/// linkage (so it is kept without a visible caller; `.visible .func`) and
/// a PTX declaration ahead of the kernels (`nvptx-libcall-callee`), and
/// each call is a PTX call sequence in inline assembly. An LLVM call would
/// do, but LLVM 19's NVPTX code generation takes time quadratic in the
/// calls of one function (`NVPTXProxyRegErasure` scans the whole function
/// for each call's result; 40 s for 20 000 calls): the inline assembly is
/// the call sequence NVPTX itself emits, without those pseudo registers.
/// Each such function is renamed `NAME{suffix}`.
fn call_large<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    calls: &[(String, usize)],
    suffix: &str,
) -> Result<(), Error> {
    let kind = Attribute::get_named_enum_kind_id;
    for (name, sites) in calls {
        if *sites <= LIBDEVICE_INLINE_SITES {
            continue;
        }
        let Some(f) = module.get_function(name) else {
            continue;
        };
        f.remove_enum_attribute(AttributeLoc::Function, kind("alwaysinline"));
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_enum_attribute(kind("noinline"), 0),
        );
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute("nvptx-libcall-callee", "true"),
        );
        f.set_linkage(Linkage::External);
        let name = format!("{name}{suffix}");
        f.as_global_value().set_name(&name);
        call_through_asm(ctx, &name, f)?;
    }
    Ok(())
}

/// Replaces every call of `f` (a libdevice function of `float`s or
/// `double`s) by inline PTX that calls it: parameters and result in
/// `.param` space, `call.uni`.
fn call_through_asm<'ctx>(
    ctx: &'ctx Context,
    name: &str,
    f: inkwell::values::FunctionValue<'ctx>,
) -> Result<(), Error> {
    use inkwell::types::BasicTypeEnum;
    use inkwell::values::{BasicValue, BasicValueEnum, InstructionOpcode, Operand};
    let fty = f.get_type();
    let ptx_ty = |t: BasicTypeEnum<'ctx>| match t {
        BasicTypeEnum::FloatType(ft) if ft == ctx.f64_type() => Ok(("b64", "f64", "d")),
        BasicTypeEnum::FloatType(ft) if ft == ctx.f32_type() => Ok(("b32", "f32", "f")),
        _ => Err(Error::Llvm(format!("{name}: not a float function"))),
    };
    let Some(ret) = fty.get_return_type() else {
        return Err(Error::Llvm(format!("{name}: returns nothing")));
    };
    let (rb, rt, rc) = ptx_ty(ret)?;
    let params = fty.get_param_types();
    let mut asm = format!("{{\n.param .{rb} r;\n");
    let mut cons = format!("={rc}");
    for (i, p) in params.iter().enumerate() {
        let (b, t, c) = ptx_ty(
            (*p).try_into()
                .map_err(|_| Error::Llvm(format!("{name}: parameter type")))?,
        )?;
        asm.push_str(&format!(
            ".param .{b} p{i};\nst.param.{t} [p{i}], ${};\n",
            i + 1
        ));
        cons.push_str(&format!(",{c}"));
    }
    let names: Vec<String> = (0..params.len()).map(|i| format!("p{i}")).collect();
    asm.push_str(&format!(
        "call.uni (r), {name}, ({});\nld.param.{rt} $0, [r];\n}}",
        names.join(", ")
    ));
    let target = ctx.create_inline_asm(fty, asm, cons, false, false, None, false);
    let mut sites = Vec::new();
    let mut u = f.as_global_value().as_pointer_value().get_first_use();
    while let Some(use_) = u {
        if let Ok(v) = BasicValueEnum::try_from(use_.get_user()) {
            if let Some(i) = v.as_instruction_value() {
                if i.get_opcode() == InstructionOpcode::Call {
                    sites.push(i);
                }
            }
        }
        u = use_.get_next_use();
    }
    let b = ctx.create_builder();
    let srcloc = ctx.get_kind_id("srcloc");
    for (k, call) in sites.into_iter().enumerate() {
        let args = (0..params.len() as u32)
            .map(|k| match call.get_operand(k) {
                Some(Operand::Value(v)) => Ok(v.into()),
                _ => Err(Error::Llvm(format!("{name}: call operand {k}"))),
            })
            .collect::<Result<Vec<_>, Error>>()?;
        b.position_before(&call);
        let new = b.build_indirect_call(fty, target, &args, "")?;
        let new = new
            .try_as_basic_value()
            .basic()
            .and_then(|v| v.as_instruction_value())
            .ok_or_else(|| Error::Llvm(format!("{name}: call without a result")))?;
        new.set_debug_location(call.get_debug_location());
        // A `!srcloc` of its own for each call: without one, building
        // the selection DAG of `n` such calls takes time `n²` (every
        // site looks up the same null metadata node).
        let cookie = ctx.i64_type().const_int(k as u64, false);
        new.set_metadata(ctx.metadata_node(&[cookie.into()]), srcloc)
            .map_err(|e| Error::Llvm(format!("{name}: {e}")))?;
        call.replace_all_uses_with(&new);
        call.erase_from_basic_block();
    }
    Ok(())
}
