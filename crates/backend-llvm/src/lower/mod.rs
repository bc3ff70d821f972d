//! IR → LLVM IR, shared by the NVPTX and host targets.
//!
//! Every IR value is the flat list of its *slots* (scalar leaves in
//! [`layout::leaves`] order; an array handle is `data, shape[ndim],
//! strides[ndim]`), one LLVM value each. `bool` is `i1` in registers and a
//! byte in memory; `f16` is a `float` holding an `f16` value (loads and
//! stores convert, rounding operations round back to `f16`), as in the
//! Cranelift backend. Regions become basic blocks: `if`/`loop` results and
//! loop-carried values become phis.
//!
//! The lowering is one state struct, [`Lx`], whose methods are spread over
//! the files of this module (the same file names as the Cranelift CPU and
//! HLSL backends, so one operation can be read side by side):
//!
//! - `mod.rs`: the entry [`lower`], the target choices, the per-function
//!   state and the small shared helpers (errors, types, the value map,
//!   intrinsic and host calls, the `f16` conversions);
//! - `frame.rs`: kernel and func signatures, the argument block, the
//!   thread loop (grid-stride on NVPTX, `start..end` on the host);
//! - `instructions.rs`: the per-instruction dispatch, regions and
//!   structured control flow, aggregates, constants, `print`;
//! - `memory.rs`: array addresses, loads and stores, atomics;
//! - `arithmetic.rs`: unary, binary, compare, cast and bitcast, and the
//!   fast-math flags set on arithmetic;
//! - `math.rs`: transcendentals (libdevice, host shims, approximate
//!   instructions, the host's inlined `f32` approximations);
//! - `debug.rs`: line info and the bounds-checked mode's `Trap`;
//! - `spmd/`: the host's vector tier (a kernel runs `W` threads per
//!   vector register; `docs/vector.md`), by the same split: `mod.rs` the
//!   kernel's thread loops, values, masks and the per-instruction
//!   dispatch, `control.rs`, `memory.rs`, `arithmetic.rs`, `reduce.rs`.
//!
//! The lowering never asks the machine it runs on: what it needs of the
//! target (the CPU, its features, the vector width) comes in
//! [`TargetCfg`], which `targets/host.rs` and `targets/nvptx.rs` fill.

use crate::Error;
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::debug_info::{
    DICompileUnit, DIFile, DIScope, DWARFEmissionKind, DWARFSourceLanguage, DebugInfoBuilder,
};
use inkwell::intrinsics::Intrinsic;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue, PhiValue, PointerValue,
};
use inkwell::AddressSpace;
use inkwell::IntPredicate;
use std::collections::HashMap;
use weft_ir::{layout, FuncId, FuncKind, Loc, MathFlags, Scalar, Type};

mod arithmetic;
mod debug;
mod frame;
mod instructions;
mod math;
mod memory;
mod spmd;
mod vmath;

type Result<T> = std::result::Result<T, Error>;

/// Which target the lowering is for.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum TargetKind {
    Host,
    Nvptx,
}

/// Target-dependent choices of the lowering.
#[derive(Copy, Clone, Debug)]
pub(crate) struct TargetCfg {
    pub kind: TargetKind,
    /// NVPTX: libdevice will be linked, so `__nv_*` calls may be emitted.
    pub libdevice: bool,
    /// Emit DWARF line info.
    pub debug: bool,
    /// Host: a cancel check at each loop back-edge (the `weft_cancel_poll`
    /// shim, [`weft_abi::cancel`]); the thread ends once it says so. Off,
    /// nothing of it is in the code.
    pub cancel_checks: bool,
    /// Host: threads per vector of the vector tier ([`spmd`]), 0 or 1 for
    /// the scalar thread loop only. Kernels the tier does not take
    /// ([`spmd::rejects`]) and debug or cancel-checked builds stay scalar.
    pub vector_width: u32,
    /// Host, vector tier: precise `f32` transcendentals inline
    /// ([`vmath`]); off, lane by lane through the shims.
    pub inline_math: bool,
    /// Host, vector tier: the bytes from which an array the kernel only
    /// writes takes streaming (non-temporal) stores
    /// (`spmd::streamed_params`; x86-64 only); 0: never.
    pub stream_min_bytes: u64,
    /// Host: the CPU's name and LLVM feature string, set on every function
    /// (`target-cpu`, `target-features`); `None` leaves LLVM's defaults.
    pub cpu: Option<(&'static str, &'static str)>,
    /// Host: the CPU has fused multiply-add (the inline vector math uses
    /// it).
    pub fma: bool,
}

/// The host shims the generated code calls on the host target (one table
/// of names, addresses and signatures, shared with the Cranelift backend).
pub(crate) use weft_abi::shims::Shim;
pub(crate) use weft_ir::layout::{Slot, SlotKind};

/// A lowered kernel: IR name, LLVM symbol, argument block size, and the
/// threads its code runs per call of the thread loop's body (the vector
/// tier's width; 1 for scalar code).
#[derive(Clone, Debug)]
pub(crate) struct LoweredKernel {
    pub name: String,
    pub symbol: String,
    pub func: FuncId,
    pub param_size: u32,
    pub lanes: u32,
}

/// The result of [`lower`].
pub(crate) struct Lowered {
    pub kernels: Vec<LoweredKernel>,
    /// Host helpers referenced by the module.
    pub host_fns: Vec<Shim>,
    /// The libdevice functions called (`__nv_*`) and how many call sites
    /// each has, in first-call order.
    pub libdevice_calls: Vec<(String, usize)>,
}

/// Makes an LLVM symbol from an IR name.
pub(crate) fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) || s.starts_with("__nv") {
        s.insert_str(0, "k_");
    }
    s
}

/// Debug-info state of a module.
struct Di<'ctx> {
    dib: DebugInfoBuilder<'ctx>,
    cu: DICompileUnit<'ctx>,
    files: Vec<DIFile<'ctx>>,
}

/// Lowers the kernels `kernels` of `m` (and the funcs they call) into
/// `module`.
pub(crate) fn lower<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    m: &weft_ir::Module,
    cfg: TargetCfg,
    kernels: &[FuncId],
) -> Result<Lowered> {
    let di = if cfg.debug && !m.files.is_empty() {
        let (dir, file) = split_path(&m.files[0]);
        let (dib, cu) = module.create_debug_info_builder(
            true,
            DWARFSourceLanguage::Python,
            &file,
            &dir,
            "weft",
            true,
            "",
            0,
            "",
            DWARFEmissionKind::LineTablesOnly,
            0,
            false,
            false,
            "",
            "",
        );
        let files = m
            .files
            .iter()
            .map(|f| {
                let (d, n) = split_path(f);
                dib.create_file(&n, &d)
            })
            .collect();
        let ver = ctx
            .i32_type()
            .const_int(inkwell::debug_info::debug_metadata_version() as u64, false);
        module.add_basic_value_flag(
            "Debug Info Version",
            inkwell::module::FlagBehavior::Warning,
            ver,
        );
        module.add_basic_value_flag(
            "Dwarf Version",
            inkwell::module::FlagBehavior::Warning,
            ctx.i32_type().const_int(2, false),
        );
        Some(Di { dib, cu, files })
    } else {
        None
    };

    let mut lx = Lx {
        ctx,
        module,
        m,
        cfg,
        b: ctx.create_builder(),
        flat_cache: HashMap::new(),
        funcs: HashMap::new(),
        host_fns: Vec::new(),
        libdevice_calls: Vec::new(),
        di,
        st: FnState::default(),
        cur_id: FuncId::from_u32(0),
        lanes: HashMap::new(),
    };
    let order = m.reachable_from(kernels.iter().copied());
    let mut kernels = Vec::new();
    // Declare everything first so calls can refer to any func.
    for &fid in &order {
        let f = &m.funcs[fid];
        let fv = match f.kind {
            FuncKind::Kernel => {
                let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
                let al = layout::arg_layout(&types, &m.structs);
                let sym = sanitize(&f.name);
                let fv = lx.declare_kernel(&sym, al.size)?;
                kernels.push(LoweredKernel {
                    name: f.name.clone(),
                    symbol: sym,
                    func: fid,
                    param_size: al.size,
                    lanes: 1,
                });
                fv
            }
            FuncKind::Func => lx.declare_func(fid, f)?,
        };
        lx.funcs.insert(fid, fv);
    }
    for &fid in &order {
        lx.lower_function(fid)?;
    }
    for k in &mut kernels {
        k.lanes = lx.lanes.get(&k.func).copied().unwrap_or(1);
    }
    if let Some(di) = &lx.di {
        di.dib.finalize();
    }
    Ok(Lowered {
        kernels,
        host_fns: lx.host_fns,
        libdevice_calls: lx.libdevice_calls,
    })
}

fn split_path(p: &str) -> (String, String) {
    let path = std::path::Path::new(p);
    let file = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.to_string());
    let dir = path
        .parent()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (dir, file)
}

/// Where `return` goes.
#[derive(Copy, Clone)]
enum Ret<'ctx> {
    NextThread(BasicBlock<'ctx>),
    Func,
}

/// A join point: a block and one phi per flattened value.
struct Join<'ctx> {
    block: BasicBlock<'ctx>,
    phis: Vec<PhiValue<'ctx>>,
}

/// Per-function state.
struct FnState<'ctx> {
    map: Vec<(u32, u32)>,
    pool: Vec<BasicValueEnum<'ctx>>,
    loops: Vec<(Join<'ctx>, Join<'ctx>)>,
    ret: Option<Ret<'ctx>>,
    func: Option<FunctionValue<'ctx>>,
    args: Option<PointerValue<'ctx>>,
    tid: Option<IntValue<'ctx>>,
    filled: bool,
    loc: Loc,
    scope: Option<DIScope<'ctx>>,
    file_scopes: HashMap<u32, DIScope<'ctx>>,
    /// Values defined as `sqrt(x)`, for `1/sqrt(x)` → `rsqrt.approx`.
    sqrt_of: HashMap<weft_ir::Value, weft_ir::Value>,
    /// NVPTX: the operands the function takes both the exact `sin` and
    /// `cos` of ([`math::sincos_operands`]), and the pair computed for each
    /// by libdevice's `sincos`, in the block it was computed in.
    sincos_of: std::collections::HashSet<weft_ir::Value>,
    sincos: HashMap<weft_ir::Value, (BasicBlock<'ctx>, BasicValueEnum<'ctx>, BasicValueEnum<'ctx>)>,
    /// The fast-math flags of the instruction being lowered (the IR's,
    /// the one source of fast math).
    flags: MathFlags,
    /// The vector tier's state while it lowers a kernel.
    vx: Option<spmd::Vx<'ctx>>,
}

impl Default for FnState<'_> {
    fn default() -> Self {
        FnState {
            map: Vec::new(),
            pool: Vec::new(),
            loops: Vec::new(),
            ret: None,
            func: None,
            args: None,
            tid: None,
            filled: false,
            loc: Loc::NONE,
            scope: None,
            file_scopes: HashMap::new(),
            sqrt_of: HashMap::new(),
            sincos_of: Default::default(),
            sincos: HashMap::new(),
            flags: MathFlags::NONE,
            vx: None,
        }
    }
}

const UNSET: (u32, u32) = (u32::MAX, 0);

struct Lx<'a, 'ctx, 'm> {
    ctx: &'ctx Context,
    module: &'a Module<'ctx>,
    m: &'m weft_ir::Module,
    cfg: TargetCfg,
    b: Builder<'ctx>,
    flat_cache: HashMap<Type, std::rc::Rc<[Slot]>>,
    funcs: HashMap<FuncId, FunctionValue<'ctx>>,
    host_fns: Vec<Shim>,
    libdevice_calls: Vec<(String, usize)>,
    di: Option<Di<'ctx>>,
    st: FnState<'ctx>,
    cur_id: FuncId,
    /// The vector tier's width of each kernel it took.
    lanes: HashMap<FuncId, u32>,
}

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    // ---- errors ----

    fn unsupported<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(Error::Unsupported {
            what: what.into(),
            pos: self.m.source_pos(self.st.loc),
        })
    }

    fn invalid<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(Error::Invalid {
            what: what.into(),
            pos: self.m.source_pos(self.st.loc),
        })
    }

    // ---- types ----

    fn flat(&mut self, ty: Type) -> std::rc::Rc<[Slot]> {
        if let Some(s) = self.flat_cache.get(&ty) {
            return s.clone();
        }
        let rc: std::rc::Rc<[Slot]> = layout::slots(ty, &self.m.structs).into();
        self.flat_cache.insert(ty, rc.clone());
        rc
    }

    fn data_space(&self) -> AddressSpace {
        match self.cfg.kind {
            TargetKind::Host => AddressSpace::default(),
            TargetKind::Nvptx => AddressSpace::from(1u16),
        }
    }

    fn scalar_ty(&self, s: Scalar) -> BasicTypeEnum<'ctx> {
        let c = self.ctx;
        match s {
            Scalar::Bool => c.bool_type().into(),
            Scalar::I8 | Scalar::U8 => c.i8_type().into(),
            Scalar::I16 | Scalar::U16 => c.i16_type().into(),
            Scalar::I32 | Scalar::U32 => c.i32_type().into(),
            Scalar::I64 | Scalar::U64 => c.i64_type().into(),
            Scalar::F16 | Scalar::F32 | Scalar::BF16 => c.f32_type().into(),
            Scalar::F64 => c.f64_type().into(),
        }
    }

    fn slot_ty(&self, s: Slot) -> BasicTypeEnum<'ctx> {
        match s.kind {
            SlotKind::Scalar(sc) => self.scalar_ty(sc),
            SlotKind::Data => self.ctx.ptr_type(self.data_space()).into(),
            SlotKind::Shape(_) => self.ctx.i32_type().into(),
            SlotKind::Stride(_) => self.ctx.i64_type().into(),
        }
    }

    fn types_of(&mut self, ty: Type) -> Vec<BasicTypeEnum<'ctx>> {
        let slots = self.flat(ty);
        slots.iter().map(|&s| self.slot_ty(s)).collect()
    }

    // ---- value map ----

    fn def(&mut self, v: weft_ir::Value, leaves: &[BasicValueEnum<'ctx>]) {
        let start = self.st.pool.len() as u32;
        self.st.pool.extend_from_slice(leaves);
        if let Some(e) = self.st.map.get_mut(v.as_u32() as usize) {
            *e = (start, leaves.len() as u32);
        }
    }

    fn get(&self, v: weft_ir::Value) -> Result<Vec<BasicValueEnum<'ctx>>> {
        match self.st.map.get(v.as_u32() as usize) {
            Some(&(s, n)) if (s, n) != UNSET => {
                Ok(self.st.pool[s as usize..(s + n) as usize].to_vec())
            }
            _ => self.invalid(format!("use of undefined value {v}")),
        }
    }

    fn get1(&self, v: weft_ir::Value) -> Result<BasicValueEnum<'ctx>> {
        match self.st.map.get(v.as_u32() as usize) {
            Some(&(s, 1)) => Ok(self.st.pool[s as usize]),
            _ => self.invalid(format!("{v} is not a defined scalar")),
        }
    }

    /// A `bool` operand (a condition).
    fn cond(&self, v: weft_ir::Value) -> Result<IntValue<'ctx>> {
        if self.scalar_of(v)? != Scalar::Bool {
            return self.invalid(format!("condition {v} is not a bool"));
        }
        Ok(self.get1(v)?.into_int_value())
    }

    fn scalar_of(&self, v: weft_ir::Value) -> Result<Scalar> {
        match self.cur().values.get(v).map(|d| d.ty) {
            Some(Type::Scalar(s)) => Ok(s),
            _ => self.invalid(format!("{v} is not a scalar")),
        }
    }

    fn cur(&self) -> &'m weft_ir::Function {
        // `lower_function` sets the function before any use.
        &self.m.funcs[self.cur_id]
    }

    fn bind(&mut self, vals: &[weft_ir::Value], leaves: &[BasicValueEnum<'ctx>]) -> Result<()> {
        let mut i = 0;
        for &v in vals {
            let n = self.flat(self.cur().value_type(v)).len();
            let Some(part) = leaves.get(i..i + n) else {
                return self.invalid("value count mismatch");
            };
            let part = part.to_vec();
            self.def(v, &part);
            i += n;
        }
        if i != leaves.len() {
            return self.invalid("value count mismatch");
        }
        Ok(())
    }

    fn gather(&self, vs: &[weft_ir::Value]) -> Result<Vec<BasicValueEnum<'ctx>>> {
        let mut out = Vec::new();
        for &v in vs {
            out.extend(self.get(v)?);
        }
        Ok(out)
    }

    fn func(&self) -> Result<FunctionValue<'ctx>> {
        self.st
            .func
            .ok_or_else(|| Error::Llvm("no current function".into()))
    }

    fn new_block(&self, name: &str) -> Result<BasicBlock<'ctx>> {
        Ok(self.ctx.append_basic_block(self.func()?, name))
    }

    fn switch_to(&mut self, bb: BasicBlock<'ctx>) {
        self.b.position_at_end(bb);
        self.st.filled = false;
    }

    // ---- intrinsics and calls ----

    fn intrinsic(&self, name: &str, tys: &[BasicTypeEnum<'ctx>]) -> Result<FunctionValue<'ctx>> {
        let Some(i) = Intrinsic::find(name) else {
            return Err(Error::Llvm(format!("no intrinsic {name}")));
        };
        i.get_declaration(self.module, tys)
            .ok_or_else(|| Error::Llvm(format!("cannot declare {name}")))
    }

    fn call(
        &self,
        f: FunctionValue<'ctx>,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>> {
        let a: Vec<BasicMetadataValueEnum> = args.iter().map(|&v| v.into()).collect();
        let cs = self.b.build_call(f, &a, "")?;
        cs.try_as_basic_value()
            .basic()
            .ok_or_else(|| Error::Llvm(format!("{:?} returns nothing", f.get_name())))
    }

    fn call_intr(
        &self,
        name: &str,
        tys: &[BasicTypeEnum<'ctx>],
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>> {
        let f = self.intrinsic(name, tys)?;
        self.call(f, args)
    }

    fn fintr(&self, name: &str, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        self.call_intr(name, &[x.get_type()], &[x])
    }

    /// Declares (once) an external function.
    fn extern_fn(
        &self,
        name: &str,
        ret: Option<BasicTypeEnum<'ctx>>,
        params: &[BasicTypeEnum<'ctx>],
    ) -> FunctionValue<'ctx> {
        if let Some(f) = self.module.get_function(name) {
            return f;
        }
        let ps: Vec<inkwell::types::BasicMetadataTypeEnum> =
            params.iter().map(|&t| t.into()).collect();
        let fty = match ret {
            Some(r) => r.fn_type(&ps, false),
            None => self.ctx.void_type().fn_type(&ps, false),
        };
        self.module.add_function(name, fty, Some(Linkage::External))
    }

    fn host_fn(
        &mut self,
        h: Shim,
        ret: Option<BasicTypeEnum<'ctx>>,
        params: &[BasicTypeEnum<'ctx>],
    ) -> FunctionValue<'ctx> {
        if !self.host_fns.contains(&h) {
            self.host_fns.push(h);
        }
        let f = self.extern_fn(&h.symbol(), ret, params);
        self.add_fn_attr(f, "nounwind");
        f
    }

    // ---- f16 helpers (target-specific) ----

    fn f16_round(&mut self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        let f32t: BasicTypeEnum = self.ctx.f32_type().into();
        match self.cfg.kind {
            TargetKind::Host => {
                let f = self.host_fn(Shim::RoundF16, Some(f32t), &[f32t]);
                self.call(f, &[x])
            }
            TargetKind::Nvptx => {
                let h = self
                    .b
                    .build_float_trunc(x.into_float_value(), self.ctx.f16_type(), "")?;
                Ok(self.b.build_float_ext(h, self.ctx.f32_type(), "")?.into())
            }
        }
    }

    fn f64_to_f16(&mut self, x: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        let f32t: BasicTypeEnum = self.ctx.f32_type().into();
        match self.cfg.kind {
            TargetKind::Host => {
                let f = self.host_fn(Shim::F64ToF16, Some(f32t), &[self.ctx.f64_type().into()]);
                self.call(f, &[x])
            }
            TargetKind::Nvptx => {
                let h = self
                    .b
                    .build_float_trunc(x.into_float_value(), self.ctx.f16_type(), "")?;
                Ok(self.b.build_float_ext(h, self.ctx.f32_type(), "")?.into())
            }
        }
    }

    /// `f32` (holding an f16 value) → `i16` bits.
    fn f16_to_bits(&mut self, x: BasicValueEnum<'ctx>) -> Result<IntValue<'ctx>> {
        match self.cfg.kind {
            TargetKind::Host => {
                let i32t: BasicTypeEnum = self.ctx.i32_type().into();
                let f = self.host_fn(
                    Shim::F32ToF16Bits,
                    Some(i32t),
                    &[self.ctx.f32_type().into()],
                );
                let b = self.call(f, &[x])?.into_int_value();
                Ok(self.b.build_int_truncate(b, self.ctx.i16_type(), "")?)
            }
            TargetKind::Nvptx => {
                let h = self
                    .b
                    .build_float_trunc(x.into_float_value(), self.ctx.f16_type(), "")?;
                Ok(self
                    .b
                    .build_bit_cast(h, self.ctx.i16_type(), "")?
                    .into_int_value())
            }
        }
    }

    /// `i16` bits → `f32`.
    fn bits_to_f16(&mut self, x: IntValue<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        match self.cfg.kind {
            TargetKind::Host => {
                let w = self.b.build_int_z_extend(x, self.ctx.i32_type(), "")?;
                let f32t: BasicTypeEnum = self.ctx.f32_type().into();
                let f = self.host_fn(
                    Shim::F16BitsToF32,
                    Some(f32t),
                    &[self.ctx.i32_type().into()],
                );
                self.call(f, &[w.into()])
            }
            TargetKind::Nvptx => {
                let h = self
                    .b
                    .build_bit_cast(x, self.ctx.f16_type(), "")?
                    .into_float_value();
                Ok(self.b.build_float_ext(h, self.ctx.f32_type(), "")?.into())
            }
        }
    }

    fn r16(&mut self, s: Scalar, v: BasicValueEnum<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        match s {
            Scalar::F16 => self.f16_round(v),
            Scalar::BF16 => {
                let h = self.bf16_to_bits(v)?;
                self.bits_to_bf16(h)
            }
            _ => Ok(v),
        }
    }

    // ---- bf16 helpers (integer code, the same on every target) ----

    /// `f32` → the `i16` bits of the nearest bfloat16, as
    /// `weft_ir::f16::f32_to_bf16`: round to nearest even; NaN and infinity
    /// truncate, a NaN whose kept mantissa bits are zero gets the quiet bit.
    fn bf16_to_bits(&mut self, x: BasicValueEnum<'ctx>) -> Result<IntValue<'ctx>> {
        let i32t = self.ctx.i32_type();
        let k = |v: u64| i32t.const_int(v, false);
        let bits = self.b.build_bit_cast(x, i32t, "")?.into_int_value();
        let exp = self.b.build_and(bits, k(0x7f80_0000), "")?;
        let special = self
            .b
            .build_int_compare(IntPredicate::EQ, exp, k(0x7f80_0000), "")?;
        let hi = self.b.build_right_shift(bits, k(16), false, "")?;
        let lsb = self.b.build_and(hi, k(1), "")?;
        let t = self.b.build_int_add(bits, lsb, "")?;
        let t = self.b.build_int_add(t, k(0x7fff), "")?;
        let rounded = self.b.build_right_shift(t, k(16), false, "")?;
        let mant = self.b.build_and(bits, k(0x007f_ffff), "")?;
        let nan = self.b.build_int_compare(IntPredicate::NE, mant, k(0), "")?;
        let low = self.b.build_and(hi, k(0x7f), "")?;
        let lost = self.b.build_int_compare(IntPredicate::EQ, low, k(0), "")?;
        let quiet = self.b.build_and(nan, lost, "")?;
        let q = self.b.build_or(hi, k(0x40), "")?;
        let kept = self.b.build_select(quiet, q, hi, "")?.into_int_value();
        let h = self
            .b
            .build_select(special, kept, rounded, "")?
            .into_int_value();
        Ok(self.b.build_int_truncate(h, self.ctx.i16_type(), "")?)
    }

    /// `i16` bfloat16 bits → `f32`.
    fn bits_to_bf16(&mut self, x: IntValue<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        let i32t = self.ctx.i32_type();
        let w = self.b.build_int_z_extend(x, i32t, "")?;
        let w = self.b.build_left_shift(w, i32t.const_int(16, false), "")?;
        Ok(self.b.build_bit_cast(w, self.ctx.f32_type(), "")?)
    }

    /// The `i16` bits of an `f16` or `bf16` value held in an `f32`.
    fn half_to_bits(&mut self, s: Scalar, x: BasicValueEnum<'ctx>) -> Result<IntValue<'ctx>> {
        if s == Scalar::BF16 {
            self.bf16_to_bits(x)
        } else {
            self.f16_to_bits(x)
        }
    }

    /// The `f32` of `f16` or `bf16` bits (`i16`).
    fn bits_to_half(&mut self, s: Scalar, x: IntValue<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        if s == Scalar::BF16 {
            self.bits_to_bf16(x)
        } else {
            self.bits_to_f16(x)
        }
    }
}
