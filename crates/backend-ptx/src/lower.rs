//! IR → LLVM IR, shared by the NVPTX and host targets.
//!
//! Every IR value is the flat list of its *slots* (scalar leaves in
//! [`layout::leaves`] order; an array handle is `data, shape[ndim],
//! strides[ndim]`), one LLVM value each. `bool` is `i1` in registers and a
//! byte in memory; `f16` is a `float` holding an `f16` value (loads and
//! stores convert, rounding operations round back to `f16`), as in the
//! Cranelift backend. Regions become basic blocks: `if`/`loop` results and
//! loop-carried values become phis.

use crate::PtxError;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::debug_info::{
    AsDIScope, DICompileUnit, DIFile, DIFlags, DIFlagsConstants, DIScope, DWARFEmissionKind,
    DWARFSourceLanguage, DebugInfoBuilder,
};
use inkwell::intrinsics::Intrinsic;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, FloatValue, FunctionValue, IntValue,
    PhiValue, PointerValue,
};
use inkwell::{AddressSpace, AtomicOrdering, AtomicRMWBinOp, FloatPredicate, IntPredicate};
use std::collections::HashMap;
use weft_ir::ir::{AtomicOp, BinaryOp, InstKind, MemAccess, UnaryOp};
use weft_ir::{layout, FuncId, FuncKind, Inst, Loc, MathFlags, MathFn, Region, Scalar, Type};

type Result<T> = std::result::Result<T, PtxError>;

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
    /// Every float operation gets `contract` and `afn` on top of its own
    /// [`MathFlags`] (`PtxOptions::fast_math`: the whole module fast).
    pub fast_math: bool,
    /// NVPTX: libdevice will be linked, so `__nv_*` calls may be emitted.
    pub libdevice: bool,
    /// Emit DWARF line info.
    pub debug: bool,
}

/// Host helper functions the generated code calls (see `host.rs`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum HostFn {
    Math(MathFn, bool),
    RoundF16,
    F64ToF16,
    F32ToF16Bits,
    F16BitsToF32,
    Print,
    /// The bounds-checked mode's report (`weft_backend_cpu::trap`).
    Trap,
}

impl HostFn {
    /// The symbol the module declares, which is also the name of the
    /// `weft_backend_cpu::shims` function the host JIT maps it to.
    pub fn symbol(self) -> String {
        match self {
            HostFn::Math(f, d) => {
                format!("weft_{}_{}", f.name(), if d { "f64" } else { "f32" })
            }
            HostFn::RoundF16 => "weft_round_f16".into(),
            HostFn::F64ToF16 => "weft_f64_to_f16".into(),
            HostFn::F32ToF16Bits => "weft_f32_to_f16_bits".into(),
            HostFn::F16BitsToF32 => "weft_f16_bits_to_f32".into(),
            HostFn::Print => "weft_print".into(),
            HostFn::Trap => "weft_trap".into(),
        }
    }
}

pub(crate) use weft_ir::layout::{Slot, SlotKind};

/// A lowered kernel: IR name, LLVM symbol, argument block size.
#[derive(Clone, Debug)]
pub(crate) struct LoweredKernel {
    pub name: String,
    pub symbol: String,
    pub func: FuncId,
    pub param_size: u32,
}

/// The result of [`lower`].
pub(crate) struct Lowered {
    pub kernels: Vec<LoweredKernel>,
    /// Host helpers referenced by the module.
    pub host_fns: Vec<HostFn>,
    /// Whether any `__nv_*` function is called.
    pub uses_libdevice: bool,
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

/// Lowers every kernel of `m` (and the funcs they call) into `module`.
pub(crate) fn lower<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    m: &weft_ir::Module,
    cfg: TargetCfg,
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
        uses_libdevice: false,
        di,
        st: FnState::default(),
        cur_id: FuncId::from_u32(0),
    };
    let order = m.reachable_funcs();
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
    if let Some(di) = &lx.di {
        di.dib.finalize();
    }
    Ok(Lowered {
        kernels,
        host_fns: lx.host_fns,
        uses_libdevice: lx.uses_libdevice,
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
    /// The fast-math flags of the instruction being lowered (its own,
    /// plus `contract`/`afn` when [`TargetCfg::fast_math`] is set).
    flags: MathFlags,
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
            flags: MathFlags::NONE,
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
    host_fns: Vec<HostFn>,
    uses_libdevice: bool,
    di: Option<Di<'ctx>>,
    st: FnState<'ctx>,
    cur_id: FuncId,
}

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    // ---- errors ----

    fn unsupported<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(PtxError::Unsupported {
            what: what.into(),
            loc: self.st.loc,
        })
    }

    fn invalid<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(PtxError::Invalid {
            what: what.into(),
            loc: self.st.loc,
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
            Scalar::F16 | Scalar::F32 => c.f32_type().into(),
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

    // ---- declarations ----

    fn declare_kernel(&mut self, sym: &str, size: u32) -> Result<FunctionValue<'ctx>> {
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let i64t = self.ctx.i64_type();
        let void = self.ctx.void_type();
        match self.cfg.kind {
            TargetKind::Host => {
                let fty = void.fn_type(&[ptr.into(), i64t.into(), i64t.into()], false);
                let fv = self.module.add_function(sym, fty, Some(Linkage::External));
                self.add_fn_attr(fv, "nounwind");
                Ok(fv)
            }
            TargetKind::Nvptx => {
                let fty = void.fn_type(&[ptr.into()], false);
                let fv = self.module.add_function(sym, fty, Some(Linkage::External));
                // ptx_kernel calling convention.
                fv.set_call_conventions(71);
                let block_ty = self.ctx.i8_type().array_type(size.max(16));
                let byval = self.ctx.create_type_attribute(
                    Attribute::get_named_enum_kind_id("byval"),
                    inkwell::types::AnyType::as_any_type_enum(&block_ty),
                );
                fv.add_attribute(AttributeLoc::Param(0), byval);
                let align = self
                    .ctx
                    .create_enum_attribute(Attribute::get_named_enum_kind_id("align"), 8);
                fv.add_attribute(AttributeLoc::Param(0), align);
                for a in ["noalias", "nocapture", "readonly"] {
                    let at = self
                        .ctx
                        .create_enum_attribute(Attribute::get_named_enum_kind_id(a), 0);
                    fv.add_attribute(AttributeLoc::Param(0), at);
                }
                self.add_fn_attr(fv, "nounwind");
                // nvvm.annotations: {ptr @k, !"kernel", i32 1}
                let md = self.ctx.metadata_node(&[
                    fv.as_global_value().as_pointer_value().into(),
                    self.ctx.metadata_string("kernel").into(),
                    self.ctx.i32_type().const_int(1, false).into(),
                ]);
                self.module
                    .add_global_metadata("nvvm.annotations", &md)
                    .map_err(|e| PtxError::Llvm(e.to_string()))?;
                Ok(fv)
            }
        }
    }

    fn add_fn_attr(&self, fv: FunctionValue<'ctx>, name: &str) {
        let at = self
            .ctx
            .create_enum_attribute(Attribute::get_named_enum_kind_id(name), 0);
        fv.add_attribute(AttributeLoc::Function, at);
    }

    fn declare_func(&mut self, fid: FuncId, f: &weft_ir::Function) -> Result<FunctionValue<'ctx>> {
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let mut params: Vec<inkwell::types::BasicMetadataTypeEnum> =
            vec![ptr.into(), self.ctx.i64_type().into()];
        for p in &f.params {
            for t in self.types_of(p.ty) {
                params.push(t.into());
            }
        }
        let mut rets = Vec::new();
        for &r in &f.returns {
            rets.extend(self.types_of(r));
        }
        let fty = self.ctx.struct_type(&rets, false).fn_type(&params, false);
        let name = format!("weft_fn_{}_{}", fid.as_u32(), sanitize(&f.name));
        let fv = self
            .module
            .add_function(&name, fty, Some(Linkage::Internal));
        self.add_fn_attr(fv, "nounwind");
        Ok(fv)
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
            .ok_or_else(|| PtxError::Llvm("no current function".into()))
    }

    fn new_block(&self, name: &str) -> Result<BasicBlock<'ctx>> {
        Ok(self.ctx.append_basic_block(self.func()?, name))
    }

    /// A join block with one phi per flattened value of `types`.
    fn join(&mut self, name: &str, types: &[Type]) -> Result<Join<'ctx>> {
        let block = self.new_block(name)?;
        let here = self.b.get_insert_block();
        self.b.position_at_end(block);
        let mut phis = Vec::new();
        for &t in types {
            for lt in self.types_of(t) {
                phis.push(self.b.build_phi(lt, "")?);
            }
        }
        if let Some(h) = here {
            self.b.position_at_end(h);
        }
        Ok(Join { block, phis })
    }

    /// Branches to a join, feeding its phis.
    fn jump_join(&mut self, j: &Join<'ctx>, vals: &[BasicValueEnum<'ctx>]) -> Result<()> {
        if vals.len() != j.phis.len() {
            return self.invalid("branch argument count mismatch");
        }
        let Some(here) = self.b.get_insert_block() else {
            return Err(PtxError::Llvm("builder not positioned".into()));
        };
        for (p, v) in j.phis.iter().zip(vals) {
            p.add_incoming(&[(v as &dyn BasicValue, here)]);
        }
        self.b.build_unconditional_branch(j.block)?;
        self.st.filled = true;
        Ok(())
    }

    fn phi_values(j: &Join<'ctx>) -> Vec<BasicValueEnum<'ctx>> {
        j.phis.iter().map(|p| p.as_basic_value()).collect()
    }

    fn switch_to(&mut self, bb: BasicBlock<'ctx>) {
        self.b.position_at_end(bb);
        self.st.filled = false;
    }

    // ---- intrinsics and calls ----

    fn intrinsic(&self, name: &str, tys: &[BasicTypeEnum<'ctx>]) -> Result<FunctionValue<'ctx>> {
        let Some(i) = Intrinsic::find(name) else {
            return Err(PtxError::Llvm(format!("no intrinsic {name}")));
        };
        i.get_declaration(self.module, tys)
            .ok_or_else(|| PtxError::Llvm(format!("cannot declare {name}")))
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
            .ok_or_else(|| PtxError::Llvm(format!("{:?} returns nothing", f.get_name())))
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
        h: HostFn,
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
                let f = self.host_fn(HostFn::RoundF16, Some(f32t), &[f32t]);
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
                let f = self.host_fn(HostFn::F64ToF16, Some(f32t), &[self.ctx.f64_type().into()]);
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
                    HostFn::F32ToF16Bits,
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
                    HostFn::F16BitsToF32,
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
        if s == Scalar::F16 {
            self.f16_round(v)
        } else {
            Ok(v)
        }
    }

    // ---- functions ----

    fn lower_function(&mut self, fid: FuncId) -> Result<()> {
        self.cur_id = fid;
        let f = &self.m.funcs[fid];
        let Some(&fv) = self.funcs.get(&fid) else {
            return Err(PtxError::Llvm(format!("{} was not declared", f.name)));
        };
        self.st = FnState {
            map: vec![UNSET; f.values.len()],
            func: Some(fv),
            loc: f.loc,
            ..FnState::default()
        };
        self.setup_debug(f, fv);
        if self.cfg.kind == TargetKind::Host {
            if let Some(cpu) = crate::host::host_cpu() {
                let a = self.ctx.create_string_attribute("target-cpu", &cpu.0);
                fv.add_attribute(AttributeLoc::Function, a);
                let a = self.ctx.create_string_attribute("target-features", &cpu.1);
                fv.add_attribute(AttributeLoc::Function, a);
            }
        }
        if self.cfg.kind == TargetKind::Nvptx && self.cfg.fast_math {
            for (k, v) in [
                ("unsafe-fp-math", "true"),
                ("approx-func-fp-math", "true"),
                ("no-signed-zeros-fp-math", "true"),
            ] {
                let a = self.ctx.create_string_attribute(k, v);
                fv.add_attribute(AttributeLoc::Function, a);
            }
        }
        match f.kind {
            FuncKind::Kernel => self.kernel_body(f, fv),
            FuncKind::Func => self.func_body(f, fv),
        }
    }

    fn setup_debug(&mut self, f: &weft_ir::Function, fv: FunctionValue<'ctx>) {
        let Some(di) = &self.di else { return };
        let file_ix = if f.loc.is_none() {
            0
        } else {
            f.loc.file as usize
        };
        let Some(&file) = di.files.get(file_ix).or(di.files.first()) else {
            return;
        };
        let sty = di
            .dib
            .create_subroutine_type(file, None, &[], DIFlags::ZERO);
        let sp = di.dib.create_function(
            di.cu.as_debug_info_scope(),
            &f.name,
            fv.get_name().to_str().ok(),
            file,
            f.loc.line,
            sty,
            f.kind == FuncKind::Func,
            true,
            f.loc.line,
            DIFlags::ZERO,
            true,
        );
        fv.set_subprogram(sp);
        self.st.scope = Some(sp.as_debug_info_scope());
        self.st
            .file_scopes
            .insert(file_ix as u32, sp.as_debug_info_scope());
    }

    /// Points the builder's debug location at `loc`.
    fn set_loc(&mut self, loc: Loc) {
        self.st.loc = loc;
        let (Some(di), Some(scope)) = (&self.di, self.st.scope) else {
            return;
        };
        if loc.is_none() {
            return;
        }
        let scope = match self.st.file_scopes.get(&loc.file) {
            Some(&s) => s,
            None => {
                let Some(&file) = di.files.get(loc.file as usize) else {
                    return;
                };
                let lb = di.dib.create_lexical_block(scope, file, loc.line, loc.col);
                let s = lb.as_debug_info_scope();
                self.st.file_scopes.insert(loc.file, s);
                s
            }
        };
        let dl = di
            .dib
            .create_debug_location(self.ctx, loc.line, loc.col, scope, None);
        self.b.set_current_debug_location(dl);
    }

    fn load_at(
        &mut self,
        ty: BasicTypeEnum<'ctx>,
        base: PointerValue<'ctx>,
        off: u32,
        align: u32,
    ) -> Result<BasicValueEnum<'ctx>> {
        let p = self.offset_ptr(base, off as u64)?;
        let v = self.b.build_load(ty, p, "")?;
        if let Some(i) = v.as_instruction_value() {
            let _ = i.set_alignment(align);
        }
        Ok(v)
    }

    fn offset_ptr(&self, base: PointerValue<'ctx>, off: u64) -> Result<PointerValue<'ctx>> {
        if off == 0 {
            return Ok(base);
        }
        let o = self.ctx.i64_type().const_int(off, false);
        // SAFETY: an in-bounds byte offset into the argument block or an
        // array element, as computed from the layout; `gep` itself does not
        // access memory.
        Ok(unsafe {
            self.b
                .build_in_bounds_gep(self.ctx.i8_type(), base, &[o], "")?
        })
    }

    /// Loads one slot from `base + off` (argument block or array memory).
    fn load_slot(
        &mut self,
        s: Slot,
        base: PointerValue<'ctx>,
        off: u32,
        from_args: bool,
    ) -> Result<BasicValueEnum<'ctx>> {
        Ok(match s.kind {
            SlotKind::Scalar(Scalar::Bool) => {
                let v = self.load_at(self.ctx.i8_type().into(), base, off, 1)?;
                self.b
                    .build_int_compare(
                        IntPredicate::NE,
                        v.into_int_value(),
                        self.ctx.i8_type().const_zero(),
                        "",
                    )?
                    .into()
            }
            SlotKind::Scalar(Scalar::F16) => {
                let v = self.load_at(self.ctx.i16_type().into(), base, off, 2)?;
                self.bits_to_f16(v.into_int_value())?
            }
            SlotKind::Scalar(sc) => self.load_at(self.scalar_ty(sc), base, off, sc.size())?,
            SlotKind::Data => {
                let generic = self.ctx.ptr_type(AddressSpace::default());
                let p = self
                    .load_at(generic.into(), base, off, 8)?
                    .into_pointer_value();
                if from_args && self.data_space() != AddressSpace::default() {
                    let g = self.ctx.ptr_type(self.data_space());
                    self.b.build_address_space_cast(p, g, "")?.into()
                } else {
                    p.into()
                }
            }
            SlotKind::Shape(_) => self.load_at(self.ctx.i32_type().into(), base, off, 4)?,
            SlotKind::Stride(_) => self.load_at(self.ctx.i64_type().into(), base, off, 8)?,
        })
    }

    fn store_slot(
        &mut self,
        s: Slot,
        v: BasicValueEnum<'ctx>,
        base: PointerValue<'ctx>,
        off: u32,
    ) -> Result<()> {
        let p = self.offset_ptr(base, off as u64)?;
        let (v, align): (BasicValueEnum, u32) = match s.kind {
            SlotKind::Scalar(Scalar::Bool) => (
                self.b
                    .build_int_z_extend(v.into_int_value(), self.ctx.i8_type(), "")?
                    .into(),
                1,
            ),
            SlotKind::Scalar(Scalar::F16) => (self.f16_to_bits(v)?.into(), 2),
            SlotKind::Scalar(sc) => (v, sc.size()),
            _ => return self.unsupported("storing an array handle"),
        };
        let st = self.b.build_store(p, v)?;
        let _ = st.set_alignment(align);
        Ok(())
    }

    fn load_params(&mut self, f: &'m weft_ir::Function, args: PointerValue<'ctx>) -> Result<()> {
        let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
        let al = layout::arg_layout(&types, &self.m.structs);
        let params = &f.regions[f.body].params;
        if params.len() != types.len() {
            return self.invalid("kernel body params do not match its params");
        }
        for (k, &v) in params.iter().enumerate() {
            let slots = self.flat(types[k]);
            let mut leaves = Vec::with_capacity(slots.len());
            for s in slots.iter() {
                leaves.push(self.load_slot(*s, args, al.offsets[k] + s.offset, true)?);
            }
            self.def(v, &leaves);
        }
        Ok(())
    }

    fn kernel_body(&mut self, f: &'m weft_ir::Function, fv: FunctionValue<'ctx>) -> Result<()> {
        let i64t = self.ctx.i64_type();
        let entry = self.new_block("entry")?;
        self.switch_to(entry);
        self.set_loc(f.loc);
        let Some(args) = fv.get_nth_param(0).map(|p| p.into_pointer_value()) else {
            return Err(PtxError::Llvm("kernel without an argument block".into()));
        };
        self.st.args = Some(args);
        let (start, end, step) = match self.cfg.kind {
            TargetKind::Host => {
                let (Some(s), Some(e)) = (fv.get_nth_param(1), fv.get_nth_param(2)) else {
                    return Err(PtxError::Llvm("host kernel signature".into()));
                };
                (
                    s.into_int_value(),
                    e.into_int_value(),
                    i64t.const_int(1, false),
                )
            }
            TargetKind::Nvptx => {
                let sreg = |lx: &Self, n: &str| -> Result<IntValue<'ctx>> {
                    let v = lx.call_intr(&format!("llvm.nvvm.read.ptx.sreg.{n}"), &[], &[])?;
                    Ok(lx.b.build_int_z_extend(v.into_int_value(), i64t, "")?)
                };
                let ctaid = sreg(self, "ctaid.x")?;
                let ntid = sreg(self, "ntid.x")?;
                let tid = sreg(self, "tid.x")?;
                let nctaid = sreg(self, "nctaid.x")?;
                let base = self.b.build_int_mul(ctaid, ntid, "")?;
                let start = self.b.build_int_add(base, tid, "")?;
                let step = self.b.build_int_mul(nctaid, ntid, "")?;
                let mut total = i64t.const_int(1, false);
                for axis in 0..4 {
                    let d = self.load_at(self.ctx.i32_type().into(), args, 4 * axis, 4)?;
                    let d = self.b.build_int_s_extend(d.into_int_value(), i64t, "")?;
                    total = self.b.build_int_mul(total, d, "")?;
                }
                (start, total, step)
            }
        };
        self.load_params(f, args)?;
        let body = self.new_block("thread")?;
        let latch = self.new_block("next")?;
        let exit = self.new_block("exit")?;
        let c = self
            .b
            .build_int_compare(IntPredicate::SLT, start, end, "")?;
        self.b.build_conditional_branch(c, body, exit)?;
        self.switch_to(body);
        let tid = self.b.build_phi(i64t, "tid")?;
        tid.add_incoming(&[(&start, entry)]);
        let tidv = tid.as_basic_value().into_int_value();
        self.st.tid = Some(tidv);
        self.st.ret = Some(Ret::NextThread(latch));
        self.region(f.body, None)?;
        self.switch_to(latch);
        let next = self.b.build_int_add(tidv, step, "")?;
        tid.add_incoming(&[(&next, latch)]);
        let c = self.b.build_int_compare(IntPredicate::SLT, next, end, "")?;
        self.b.build_conditional_branch(c, body, exit)?;
        self.switch_to(exit);
        self.b.build_return(None)?;
        Ok(())
    }

    fn func_body(&mut self, f: &'m weft_ir::Function, fv: FunctionValue<'ctx>) -> Result<()> {
        let entry = self.new_block("entry")?;
        self.switch_to(entry);
        self.set_loc(f.loc);
        let ps = fv.get_params();
        if ps.len() < 2 {
            return Err(PtxError::Llvm("func signature".into()));
        }
        self.st.args = Some(ps[0].into_pointer_value());
        self.st.tid = Some(ps[1].into_int_value());
        let params = f.regions[f.body].params.clone();
        self.bind(&params, &ps[2..])?;
        self.st.ret = Some(Ret::Func);
        self.region(f.body, None)
    }

    // ---- regions and instructions ----

    fn region(&mut self, r: Region, yield_to: Option<&Join<'ctx>>) -> Result<()> {
        let f = self.cur();
        let Some(rd) = f.regions.get(r) else {
            return self.invalid(format!("no region {r}"));
        };
        for &inst in &rd.insts {
            if self.st.filled {
                return self.invalid("instruction after a terminator");
            }
            self.inst(inst, yield_to)?;
        }
        if !self.st.filled {
            return self.invalid(format!("{r} does not end in a terminator"));
        }
        Ok(())
    }

    fn def_result(&mut self, inst: Inst, leaves: &[BasicValueEnum<'ctx>]) -> Result<()> {
        let rs = &self.cur().insts[inst].results;
        self.bind(rs, leaves)
    }

    fn result_types(&self, inst: Inst) -> Vec<Type> {
        let f = self.cur();
        f.insts[inst]
            .results
            .iter()
            .map(|&r| f.value_type(r))
            .collect()
    }

    fn inst(&mut self, inst: Inst, yield_to: Option<&Join<'ctx>>) -> Result<()> {
        let f = self.cur();
        let data = &f.insts[inst];
        self.set_loc(data.loc);
        self.st.flags = if f.accepts_math_flags(inst) {
            let module_wide = if self.cfg.fast_math {
                MathFlags::CONTRACT | MathFlags::APPROX_FUNC
            } else {
                MathFlags::NONE
            };
            data.flags | module_wide
        } else {
            MathFlags::NONE
        };
        match &data.kind {
            InstKind::Const(c) => {
                let v = self.konst(*c);
                self.def_result(inst, &[v])
            }
            InstKind::Unary(op, x) => {
                let s = self.scalar_of(*x)?;
                let xv = self.get1(*x)?;
                if *op == UnaryOp::Sqrt {
                    if let Some(&r) = data.results.first() {
                        self.st.sqrt_of.insert(r, *x);
                    }
                }
                let v = self.unary(*op, s, xv)?;
                self.fast_flags(v);
                self.def_result(inst, &[v])
            }
            InstKind::Binary(op, a, b) => {
                let s = self.scalar_of(*a)?;
                if self.scalar_of(*b)? != s {
                    return self.invalid(format!("{op:?} operands of different types"));
                }
                if let Some(v) = self.try_rsqrt(*op, s, *a, *b)? {
                    return self.def_result(inst, &[v]);
                }
                let (av, bv) = (self.get1(*a)?, self.get1(*b)?);
                let v = self.binary(*op, s, av, bv)?;
                self.fast_flags(v);
                self.def_result(inst, &[v])
            }
            InstKind::Fma(a, b, c) => {
                let s = self.scalar_of(*a)?;
                if !s.is_float() {
                    return self.unsupported("fma on integers");
                }
                let (av, bv, cv) = (self.get1(*a)?, self.get1(*b)?, self.get1(*c)?);
                let v = self.call_intr("llvm.fma", &[av.get_type()], &[av, bv, cv])?;
                self.fast_flags(v);
                let v = self.r16(s, v)?;
                self.def_result(inst, &[v])
            }
            InstKind::Cast(x, to) => {
                let s = self.scalar_of(*x)?;
                let xv = self.get1(*x)?;
                let v = self.cast(s, *to, xv)?;
                self.def_result(inst, &[v])
            }
            InstKind::Bitcast(x, to) => {
                let s = self.scalar_of(*x)?;
                let xv = self.get1(*x)?;
                let v = self.bitcast(s, *to, xv)?;
                self.def_result(inst, &[v])
            }
            InstKind::Select(c, a, b) => {
                let cv = self.cond(*c)?;
                let (av, bv) = (self.get(*a)?, self.get(*b)?);
                if av.len() != bv.len() {
                    return self.invalid("select of different types");
                }
                let mut out = Vec::with_capacity(av.len());
                for (x, y) in av.into_iter().zip(bv) {
                    out.push(self.b.build_select(cv, x, y, "")?);
                }
                self.def_result(inst, &out)
            }
            InstKind::Make(_, parts) => {
                let out = self.gather(parts)?;
                self.def_result(inst, &out)
            }
            InstKind::Extract(agg, path) => {
                let ty = f.value_type(*agg);
                let Some((s, n, _)) = self.path_range(ty, path) else {
                    return self.invalid("bad extract path");
                };
                let leaves = self.get(*agg)?;
                let Some(part) = leaves.get(s..s + n) else {
                    return self.invalid("bad extract path");
                };
                let part = part.to_vec();
                self.def_result(inst, &part)
            }
            InstKind::Insert(agg, path, v) => {
                let ty = f.value_type(*agg);
                let Some((s, n, _)) = self.path_range(ty, path) else {
                    return self.invalid("bad insert path");
                };
                let mut leaves = self.get(*agg)?;
                let vv = self.get(*v)?;
                if vv.len() != n || s + n > leaves.len() {
                    return self.invalid("insert of a mismatched value");
                }
                leaves[s..s + n].copy_from_slice(&vv);
                self.def_result(inst, &leaves)
            }
            InstKind::ThreadId => {
                let Some(t) = self.st.tid else {
                    return self.invalid("thread id outside a kernel");
                };
                let v = self.b.build_int_truncate(t, self.ctx.i32_type(), "")?;
                self.def_result(inst, &[v.into()])
            }
            InstKind::LaunchDim(axis) => {
                let v: BasicValueEnum = if *axis >= 4 {
                    self.ctx.i32_type().const_int(1, false).into()
                } else {
                    let Some(args) = self.st.args else {
                        return self.invalid("launch dim without an argument block");
                    };
                    self.load_at(self.ctx.i32_type().into(), args, 4 * *axis as u32, 4)?
                };
                self.def_result(inst, &[v])
            }
            InstKind::ArrayShape(arr, axis) => {
                let Type::Array(at) = f.value_type(*arr) else {
                    return self.invalid("array_shape of a non-array");
                };
                if *axis >= at.ndim {
                    return self.invalid("array_shape axis out of range");
                }
                let leaves = self.get(*arr)?;
                let v = leaves[1 + *axis as usize];
                self.def_result(inst, &[v])
            }
            InstKind::Load(m) => {
                let (addr, off, ty) = self.address(m)?;
                let slots = self.flat(ty);
                let mut out = Vec::with_capacity(slots.len());
                for s in slots.iter() {
                    out.push(self.load_slot(*s, addr, off + s.offset, false)?);
                }
                self.def_result(inst, &out)
            }
            InstKind::Store(m, v) => {
                let (addr, off, ty) = self.address(m)?;
                if f.value_type(*v) != ty {
                    return self.invalid("store of a value of the wrong type");
                }
                let slots = self.flat(ty);
                let vals = self.get(*v)?;
                for (s, &x) in slots.iter().zip(&vals) {
                    self.store_slot(*s, x, addr, off + s.offset)?;
                }
                Ok(())
            }
            InstKind::Atomic(op, m, v) => {
                let (addr, off, ty) = self.address(m)?;
                if f.value_type(*v) != ty {
                    return self.invalid("atomic with a value of the wrong type");
                }
                let slots = self.flat(ty);
                let vals = self.get(*v)?;
                let mut out = Vec::with_capacity(slots.len());
                for (s, &x) in slots.iter().zip(&vals) {
                    let SlotKind::Scalar(sc) = s.kind else {
                        return self.unsupported("atomic on an array handle");
                    };
                    let p = self.offset_ptr(addr, (off + s.offset) as u64)?;
                    out.push(self.atomic(*op, sc, p, x)?);
                }
                self.def_result(inst, &out)
            }
            InstKind::Call(callee, args) => {
                let Some(&fv) = self.funcs.get(callee) else {
                    return self.unsupported(format!("call to {callee}, which was not compiled"));
                };
                let (Some(a), Some(t)) = (self.st.args, self.st.tid) else {
                    return self.invalid("call without a thread context");
                };
                let mut cargs: Vec<BasicValueEnum> = vec![a.into(), t.into()];
                cargs.extend(self.gather(args)?);
                let r = self.call(fv, &cargs)?.into_struct_value();
                let n = r.get_type().count_fields();
                let mut out = Vec::with_capacity(n as usize);
                for i in 0..n {
                    out.push(self.b.build_extract_value(r, i, "")?);
                }
                self.def_result(inst, &out)
            }
            InstKind::Print(fmt, args) => self.print(fmt, args),
            InstKind::If {
                cond,
                then_region,
                else_region,
            } => {
                let c = self.cond(*cond)?;
                let then_b = self.new_block("then")?;
                let else_b = self.new_block("else")?;
                let rtypes = self.result_types(inst);
                let merge = self.join("endif", &rtypes)?;
                self.b.build_conditional_branch(c, then_b, else_b)?;
                self.switch_to(then_b);
                self.region(*then_region, Some(&merge))?;
                self.switch_to(else_b);
                self.region(*else_region, Some(&merge))?;
                self.switch_to(merge.block);
                let vals = Self::phi_values(&merge);
                self.def_result(inst, &vals)
            }
            InstKind::Loop { init, body } => {
                let iv = self.gather(init)?;
                let Some(rd) = f.regions.get(*body) else {
                    return self.invalid("loop without a body");
                };
                let ptypes: Vec<Type> = rd.params.iter().map(|&p| f.value_type(p)).collect();
                let header = self.join("loop", &ptypes)?;
                let rtypes = self.result_types(inst);
                let exit = self.join("endloop", &rtypes)?;
                self.jump_join(&header, &iv)?;
                self.switch_to(header.block);
                let hv = Self::phi_values(&header);
                self.bind(&rd.params, &hv)?;
                let exit_block = exit.block;
                let ev = Self::phi_values(&exit);
                self.st.loops.push((header, exit));
                let r = self.region(*body, None);
                self.st.loops.pop();
                r?;
                self.switch_to(exit_block);
                self.def_result(inst, &ev)
            }
            InstKind::Yield(vs) => {
                let Some(to) = yield_to else {
                    return self.invalid("yield outside an if");
                };
                let leaves = self.gather(vs)?;
                self.jump_join(to, &leaves)
            }
            InstKind::Continue(vs) | InstKind::Break(vs) => {
                let leaves = self.gather(vs)?;
                let Some((header, exit)) = self.st.loops.pop() else {
                    return self.invalid("break/continue outside a loop");
                };
                let r = if matches!(data.kind, InstKind::Continue(_)) {
                    self.jump_join(&header, &leaves)
                } else {
                    self.jump_join(&exit, &leaves)
                };
                self.st.loops.push((header, exit));
                r
            }
            InstKind::Return(vs) => {
                match self.st.ret {
                    Some(Ret::NextThread(latch)) => {
                        self.b.build_unconditional_branch(latch)?;
                    }
                    Some(Ret::Func) => {
                        let leaves = self.gather(vs)?;
                        let fv = self.func()?;
                        let Some(rt) = fv.get_type().get_return_type() else {
                            return Err(PtxError::Llvm("func without a return type".into()));
                        };
                        let st = rt.into_struct_type();
                        let mut agg = st.get_undef();
                        for (i, v) in leaves.iter().enumerate() {
                            agg = self
                                .b
                                .build_insert_value(agg, *v, i as u32, "")?
                                .into_struct_value();
                        }
                        self.b.build_return(Some(&agg))?;
                    }
                    None => return self.invalid("return outside a function"),
                }
                self.st.filled = true;
                Ok(())
            }
            InstKind::Trap(kind, vs) => self.trap(*kind, vs, data.loc),
        }
    }

    fn path_range(&mut self, ty: Type, path: &[u32]) -> Option<(usize, usize, Type)> {
        let mut start = 0;
        let mut t = ty;
        for &i in path {
            if i >= t.arity(&self.m.structs) {
                return None;
            }
            for j in 0..i {
                let c = t.project(j, &self.m.structs)?;
                start += self.flat(c).len();
            }
            t = t.project(i, &self.m.structs)?;
        }
        Some((start, self.flat(t).len(), t))
    }

    // ---- memory ----

    fn address(&mut self, m: &MemAccess) -> Result<(PointerValue<'ctx>, u32, Type)> {
        let Type::Array(at) = self.cur().value_type(m.array) else {
            return self.invalid("memory access on a non-array");
        };
        if m.indices.len() != at.ndim as usize {
            return self.invalid("index count differs from the array's ndim");
        }
        let leaves = self.get(m.array)?;
        let nd = at.ndim as usize;
        let i64t = self.ctx.i64_type();
        let mut off: Option<IntValue> = None;
        for (k, &ix) in m.indices.iter().enumerate() {
            let s = self.scalar_of(ix)?;
            let iv = self.get1(ix)?.into_int_value();
            let iv = match s {
                Scalar::I64 | Scalar::U64 => iv,
                s if s.is_signed_int() => self.b.build_int_s_extend(iv, i64t, "")?,
                s if s.is_int() || s == Scalar::Bool => self.b.build_int_z_extend(iv, i64t, "")?,
                _ => return self.invalid("float array index"),
            };
            let o = self
                .b
                .build_int_mul(iv, leaves[1 + nd + k].into_int_value(), "")?;
            off = Some(match off {
                None => o,
                Some(p) => self.b.build_int_add(p, o, "")?,
            });
        }
        let data = leaves[0].into_pointer_value();
        let addr = match off {
            // SAFETY: address arithmetic only (no access); the kernel
            // language leaves out-of-bounds indices undefined.
            Some(o) => unsafe { self.b.build_gep(self.ctx.i8_type(), data, &[o], "")? },
            None => data,
        };
        let Some((poff, ty)) = layout::path_offset(at.elem.into(), &m.path, &self.m.structs) else {
            return self.invalid("bad component path in a memory access");
        };
        Ok((addr, poff, ty))
    }

    fn atomic(
        &mut self,
        op: AtomicOp,
        s: Scalar,
        p: PointerValue<'ctx>,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        let mono = AtomicOrdering::Monotonic;
        if !s.is_float() {
            let signed = s.is_signed_int();
            let rmw = match op {
                AtomicOp::Add => AtomicRMWBinOp::Add,
                AtomicOp::Sub => AtomicRMWBinOp::Sub,
                AtomicOp::And => AtomicRMWBinOp::And,
                AtomicOp::Or => AtomicRMWBinOp::Or,
                AtomicOp::Xor => AtomicRMWBinOp::Xor,
                AtomicOp::Exchange => AtomicRMWBinOp::Xchg,
                AtomicOp::Min if signed => AtomicRMWBinOp::Min,
                AtomicOp::Max if signed => AtomicRMWBinOp::Max,
                AtomicOp::Min => AtomicRMWBinOp::UMin,
                AtomicOp::Max => AtomicRMWBinOp::UMax,
            };
            let xi = x.into_int_value();
            if s == Scalar::Bool {
                let w = self.b.build_int_z_extend(xi, self.ctx.i8_type(), "")?;
                let old = self.b.build_atomicrmw(rmw, p, w, mono)?;
                return Ok(self
                    .b
                    .build_int_compare(IntPredicate::NE, old, self.ctx.i8_type().const_zero(), "")?
                    .into());
            }
            return Ok(self.b.build_atomicrmw(rmw, p, xi, mono)?.into());
        }
        let it = match s {
            Scalar::F16 => self.ctx.i16_type(),
            Scalar::F32 => self.ctx.i32_type(),
            _ => self.ctx.i64_type(),
        };
        // Native float add (f32; f64 on sm_60+, which every supported arch
        // is). `a - x` is `a + (-x)` exactly, so sub uses it too.
        if matches!(op, AtomicOp::Add | AtomicOp::Sub) && s != Scalar::F16 {
            let xv = if op == AtomicOp::Sub {
                self.b.build_float_neg(x.into_float_value(), "")?.into()
            } else {
                x
            };
            return self.atomic_fadd(p, xv);
        }
        if op == AtomicOp::Exchange {
            let xb = self.float_bits(s, x)?;
            let old = self.b.build_atomicrmw(AtomicRMWBinOp::Xchg, p, xb, mono)?;
            return self.bits_float(s, old);
        }
        // Compare-and-swap loop.
        let init = self.b.build_load(it, p, "")?;
        if let Some(i) = init.as_instruction_value() {
            let _ = i.set_alignment(s.size());
            let _ = i.set_atomic_ordering(mono);
        }
        let pre = self
            .b
            .get_insert_block()
            .ok_or_else(|| PtxError::Llvm("builder not positioned".into()))?;
        let lp = self.new_block("cas")?;
        let done = self.new_block("cas_done")?;
        self.b.build_unconditional_branch(lp)?;
        self.b.position_at_end(lp);
        let expected = self.b.build_phi(it, "")?;
        expected.add_incoming(&[(&init, pre)]);
        let ev = expected.as_basic_value().into_int_value();
        let old = self.bits_float(s, ev)?;
        let new = match op {
            AtomicOp::Add => self.binary(BinaryOp::Add, s, old, x)?,
            AtomicOp::Sub => self.binary(BinaryOp::Sub, s, old, x)?,
            AtomicOp::Min => self.binary(BinaryOp::Min, s, old, x)?,
            AtomicOp::Max => self.binary(BinaryOp::Max, s, old, x)?,
            _ => return self.unsupported(format!("atomic {op:?} on floats")),
        };
        let nb = self.float_bits(s, new)?;
        let pair = self.b.build_cmpxchg(p, ev, nb, mono, mono)?;
        let prev = self.b.build_extract_value(pair, 0, "")?.into_int_value();
        let ok = self.b.build_extract_value(pair, 1, "")?.into_int_value();
        let here = self
            .b
            .get_insert_block()
            .ok_or_else(|| PtxError::Llvm("builder not positioned".into()))?;
        expected.add_incoming(&[(&prev, here)]);
        self.b.build_conditional_branch(ok, done, lp)?;
        self.b.position_at_end(done);
        Ok(old)
    }

    fn atomic_fadd(
        &mut self,
        p: PointerValue<'ctx>,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        use inkwell::llvm_sys::core::LLVMBuildAtomicRMW;
        use inkwell::llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp};
        use inkwell::values::AsValueRef;
        // SAFETY: FFI call on a positioned builder with a pointer and a
        // float value of this context; `atomicrmw fadd` on a float is valid
        // LLVM IR (inkwell only wraps the integer form). The result is a
        // float value of the same type.
        let v = unsafe {
            LLVMBuildAtomicRMW(
                self.b.as_mut_ptr(),
                LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd,
                p.as_value_ref(),
                x.as_value_ref(),
                LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                0,
            )
        };
        if v.is_null() {
            return Err(PtxError::Llvm("atomicrmw fadd".into()));
        }
        // SAFETY: `v` is a non-null float-typed instruction just built.
        Ok(unsafe { FloatValue::new(v) }.into())
    }

    fn float_bits(&mut self, s: Scalar, v: BasicValueEnum<'ctx>) -> Result<IntValue<'ctx>> {
        match s {
            Scalar::F16 => self.f16_to_bits(v),
            Scalar::F32 => Ok(self
                .b
                .build_bit_cast(v, self.ctx.i32_type(), "")?
                .into_int_value()),
            _ => Ok(self
                .b
                .build_bit_cast(v, self.ctx.i64_type(), "")?
                .into_int_value()),
        }
    }

    fn bits_float(&mut self, s: Scalar, v: IntValue<'ctx>) -> Result<BasicValueEnum<'ctx>> {
        match s {
            Scalar::F16 => self.bits_to_f16(v),
            Scalar::F32 => Ok(self.b.build_bit_cast(v, self.ctx.f32_type(), "")?),
            _ => Ok(self.b.build_bit_cast(v, self.ctx.f64_type(), "")?),
        }
    }

    // ---- print ----

    fn print(&mut self, fmt: &str, args: &[weft_ir::Value]) -> Result<()> {
        let mut kinds = Vec::new();
        let mut vals: Vec<BasicValueEnum> = Vec::new();
        let i64t = self.ctx.i64_type();
        for &a in args {
            let slots = self.flat(self.cur().value_type(a));
            let leaves = self.get(a)?;
            for (s, &x) in slots.iter().zip(&leaves) {
                // Each leaf: its scalar type and its value as a `Const`'s
                // bits (floats widened to f64, integers extended to 64 bits).
                let sc = match s.kind {
                    SlotKind::Scalar(sc) => sc,
                    SlotKind::Data => Scalar::U64,
                    SlotKind::Shape(_) => Scalar::I32,
                    SlotKind::Stride(_) => Scalar::I64,
                };
                let v: BasicValueEnum = match s.kind {
                    SlotKind::Data => self
                        .b
                        .build_ptr_to_int(x.into_pointer_value(), i64t, "")?
                        .into(),
                    _ if sc == Scalar::F64 => self.b.build_bit_cast(x, i64t, "")?,
                    _ if sc.is_float() => {
                        let d = self.b.build_float_ext(
                            x.into_float_value(),
                            self.ctx.f64_type(),
                            "",
                        )?;
                        self.b.build_bit_cast(d, i64t, "")?
                    }
                    _ if sc.is_signed_int() => self
                        .b
                        .build_int_s_extend_or_bit_cast(x.into_int_value(), i64t, "")?
                        .into(),
                    _ => self
                        .b
                        .build_int_z_extend_or_bit_cast(x.into_int_value(), i64t, "")?
                        .into(),
                };
                kinds.push(Scalar::ALL.iter().position(|&t| t == sc).unwrap_or(0) as u8);
                vals.push(v);
            }
        }
        match self.cfg.kind {
            TargetKind::Host => self.print_host(fmt, &kinds, &vals),
            TargetKind::Nvptx => self.print_vprintf(fmt, &kinds, &vals),
        }
    }

    fn const_bytes(&self, name: &str, bytes: &[u8]) -> PointerValue<'ctx> {
        let arr = self.ctx.const_string(bytes, false);
        let g = self
            .module
            .add_global(arr.get_type(), Some(AddressSpace::default()), name);
        g.set_initializer(&arr);
        g.set_constant(true);
        g.set_linkage(Linkage::Private);
        g.as_pointer_value()
    }

    /// `Trap`: reports the failure (host: the `weft_trap` shim; NVPTX: the
    /// module's trap record, see `trap.rs`), then ends the thread (kernel)
    /// or returns zeros (func).
    fn trap(&mut self, kind: weft_ir::TrapKind, vs: &[weft_ir::Value], loc: Loc) -> Result<()> {
        let ops = self.gather(vs)?;
        let i64t = self.ctx.i64_type();
        let zero = i64t.const_zero();
        let operand = |i: usize| match ops.get(i) {
            Some(BasicValueEnum::IntValue(v)) => *v,
            _ => zero,
        };
        let (index, size) = (operand(0), operand(1));
        match self.cfg.kind {
            TargetKind::Host => self.trap_host(kind, loc, index, size)?,
            TargetKind::Nvptx => self.trap_record(kind, loc, index, size)?,
        }
        match self.st.ret {
            Some(Ret::NextThread(latch)) => {
                self.b.build_unconditional_branch(latch)?;
            }
            Some(Ret::Func) => {
                let fv = self.func()?;
                let Some(rt) = fv.get_type().get_return_type() else {
                    return Err(PtxError::Llvm("func without a return type".into()));
                };
                self.b.build_return(Some(&rt.const_zero()))?;
            }
            None => return self.invalid("trap outside a function"),
        }
        self.st.filled = true;
        Ok(())
    }

    /// NVPTX: the first failing thread (`cmpxchg` of the flag 0 → 1) writes
    /// the module's trap record.
    fn trap_record(
        &mut self,
        kind: weft_ir::TrapKind,
        loc: Loc,
        index: IntValue<'ctx>,
        size: IntValue<'ctx>,
    ) -> Result<()> {
        use crate::trap::*;
        let i32t = self.ctx.i32_type();
        let rec = match self.module.get_global(TRAP_GLOBAL) {
            Some(g) => g,
            None => {
                let ty = self
                    .ctx
                    .i64_type()
                    .array_type((TRAP_RECORD_SIZE / 8) as u32);
                let g = self
                    .module
                    .add_global(ty, Some(self.data_space()), TRAP_GLOBAL);
                g.set_initializer(&ty.const_zero());
                g.set_linkage(Linkage::External);
                g.set_alignment(8);
                g
            }
        }
        .as_pointer_value();
        let mono = AtomicOrdering::Monotonic;
        let pair =
            self.b
                .build_cmpxchg(rec, i32t.const_zero(), i32t.const_int(1, false), mono, mono)?;
        let won = self.b.build_extract_value(pair, 1, "won")?.into_int_value();
        let write = self.new_block("trap_write")?;
        let done = self.new_block("trap_done")?;
        self.b.build_conditional_branch(won, write, done)?;
        self.b.position_at_end(write);
        let fields: [(u64, IntValue<'ctx>); 6] = [
            (OFF_CODE, i32t.const_int(kind.code() as u64, false)),
            (OFF_FILE, i32t.const_int(loc.file as u64, false)),
            (OFF_LINE, i32t.const_int(loc.line as u64, false)),
            (OFF_COL, i32t.const_int(loc.col as u64, false)),
            (OFF_INDEX, index),
            (OFF_SIZE, size),
        ];
        for (off, v) in fields {
            let p = self.offset_ptr(rec, off)?;
            self.b.build_store(p, v)?;
        }
        self.b.build_unconditional_branch(done)?;
        self.b.position_at_end(done);
        Ok(())
    }

    /// Host: calls the `weft_trap` shim.
    fn trap_host(
        &mut self,
        kind: weft_ir::TrapKind,
        loc: Loc,
        index: IntValue<'ctx>,
        size: IntValue<'ctx>,
    ) -> Result<()> {
        let i32t = self.ctx.i32_type();
        let i64t = self.ctx.i64_type();
        let f = self.host_fn(
            HostFn::Trap,
            None,
            &[
                i32t.into(),
                i32t.into(),
                i32t.into(),
                i32t.into(),
                i64t.into(),
                i64t.into(),
            ],
        );
        let a: Vec<BasicMetadataValueEnum> = vec![
            i32t.const_int(kind.code() as u64, false).into(),
            i32t.const_int(loc.file as u64, false).into(),
            i32t.const_int(loc.line as u64, false).into(),
            i32t.const_int(loc.col as u64, false).into(),
            index.into(),
            size.into(),
        ];
        self.b.build_call(f, &a, "")?;
        Ok(())
    }

    fn print_host(&mut self, fmt: &str, kinds: &[u8], vals: &[BasicValueEnum<'ctx>]) -> Result<()> {
        let i64t = self.ctx.i64_type();
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let n = vals.len();
        let arr_t = i64t.array_type(n.max(1) as u32);
        let slot = self.entry_alloca(arr_t.into())?;
        for (i, v) in vals.iter().enumerate() {
            let p = self.offset_ptr(slot, 8 * i as u64)?;
            self.b.build_store(p, *v)?;
        }
        let fmt_p = self.const_bytes("weft_fmt", fmt.as_bytes());
        let kinds_p = self.const_bytes("weft_kinds", if kinds.is_empty() { &[0] } else { kinds });
        let f = self.host_fn(
            HostFn::Print,
            None,
            &[ptr.into(), i64t.into(), ptr.into(), ptr.into(), i64t.into()],
        );
        let a: Vec<BasicMetadataValueEnum> = vec![
            fmt_p.into(),
            i64t.const_int(fmt.len() as u64, false).into(),
            kinds_p.into(),
            slot.into(),
            i64t.const_int(n as u64, false).into(),
        ];
        self.b.build_call(f, &a, "")?;
        Ok(())
    }

    fn entry_alloca(&mut self, ty: BasicTypeEnum<'ctx>) -> Result<PointerValue<'ctx>> {
        let fv = self.func()?;
        let Some(entry) = fv.get_first_basic_block() else {
            return Err(PtxError::Llvm("function without an entry block".into()));
        };
        let tmp = self.ctx.create_builder();
        match entry.get_first_instruction() {
            Some(i) => tmp.position_before(&i),
            None => tmp.position_at_end(entry),
        }
        let a = tmp.build_alloca(ty, "")?;
        if let Some(i) = a.as_instruction_value() {
            let _ = i.set_alignment(8);
        }
        Ok(a)
    }

    /// CUDA `vprintf(fmt, buf)`: every conversion of `fmt` is rewritten to
    /// take a 64-bit integer (`ll`) or a double, the leaves' widened forms.
    fn print_vprintf(
        &mut self,
        fmt: &str,
        kinds: &[u8],
        vals: &[BasicValueEnum<'ctx>],
    ) -> Result<()> {
        let cfmt = vprintf_format(fmt, kinds);
        let mut bytes = cfmt.into_bytes();
        bytes.push(0);
        let g = self.const_bytes("weft_fmt", &bytes);
        let i64t = self.ctx.i64_type();
        let n = vals.len();
        let arr_t = i64t.array_type(n.max(1) as u32);
        let slot = self.entry_alloca(arr_t.into())?;
        for (i, v) in vals.iter().enumerate() {
            let p = self.offset_ptr(slot, 8 * i as u64)?;
            self.b.build_store(p, *v)?;
        }
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let f = self.extern_fn(
            "vprintf",
            Some(self.ctx.i32_type().into()),
            &[ptr.into(), ptr.into()],
        );
        self.b.build_call(f, &[g.into(), slot.into()], "")?;
        Ok(())
    }

    // ---- scalar operations ----

    fn konst(&self, c: weft_ir::Const) -> BasicValueEnum<'ctx> {
        match c.ty {
            Scalar::F16 | Scalar::F32 => self
                .ctx
                .f32_type()
                .const_float(f64::from_bits(c.bits) as f32 as f64)
                .into(),
            Scalar::F64 => self
                .ctx
                .f64_type()
                .const_float(f64::from_bits(c.bits))
                .into(),
            Scalar::Bool => self.ctx.bool_type().const_int(c.bits & 1, false).into(),
            s => self
                .scalar_ty(s)
                .into_int_type()
                .const_int(c.bits, false)
                .into(),
        }
    }

    fn fconst(&self, s: Scalar, v: f64) -> FloatValue<'ctx> {
        if s == Scalar::F64 {
            self.ctx.f64_type().const_float(v)
        } else {
            self.ctx.f32_type().const_float(v as f32 as f64)
        }
    }

    /// A math function call: libdevice on NVPTX, a shim on the host.
    fn math(
        &mut self,
        func: MathFn,
        s: Scalar,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<BasicValueEnum<'ctx>> {
        let double = s == Scalar::F64;
        let ft = self.scalar_ty(if double { Scalar::F64 } else { Scalar::F32 });
        if self.host_approx(func, s) {
            let mut o = HostOps {
                b: &self.b,
                ctx: self.ctx,
                contract: self.st.flags.contains(MathFlags::CONTRACT),
            };
            if let Some(v) = weft_backend_cpu::fastmath::emit(&mut o, func, args[0])? {
                return Ok(v);
            }
        }
        if self.nvptx_approx() && !double {
            if let Some(v) = self.fast_math_fn(func, args)? {
                return self.r16(s, v);
            }
        }
        let v = match self.cfg.kind {
            TargetKind::Host => {
                let params = vec![ft; func.arity()];
                let f = self.host_fn(HostFn::Math(func, double), Some(ft), &params);
                self.call(f, args)?
            }
            TargetKind::Nvptx => {
                if !self.cfg.libdevice {
                    return Err(PtxError::NoLibdevice {
                        what: format!("{} on {s}", func.name()),
                        loc: self.st.loc,
                    });
                }
                self.uses_libdevice = true;
                let name = format!("__nv_{}{}", func.name(), if double { "" } else { "f" });
                let params = vec![ft; func.arity()];
                let f = self.extern_fn(&name, Some(ft), &params);
                self.call(f, args)?
            }
        };
        self.r16(s, v)
    }

    /// f32 approximate instructions (NVPTX fast math).
    fn fast_math_fn(
        &mut self,
        func: MathFn,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        let x = args[0];
        let approx = |lx: &Self, n: &str, v: BasicValueEnum<'ctx>| lx.call_intr(n, &[], &[v]);
        let mul = |lx: &Self, v: BasicValueEnum<'ctx>, k: f64| -> Result<BasicValueEnum<'ctx>> {
            Ok(lx
                .b
                .build_float_mul(v.into_float_value(), lx.fconst(Scalar::F32, k), "")?
                .into())
        };
        Ok(Some(match func {
            MathFn::Sin => approx(self, "llvm.nvvm.sin.approx.f", x)?,
            MathFn::Cos => approx(self, "llvm.nvvm.cos.approx.f", x)?,
            MathFn::Exp2 => approx(self, "llvm.nvvm.ex2.approx.f", x)?,
            MathFn::Exp => {
                let y = mul(self, x, std::f64::consts::LOG2_E)?;
                approx(self, "llvm.nvvm.ex2.approx.f", y)?
            }
            MathFn::Log2 => approx(self, "llvm.nvvm.lg2.approx.f", x)?,
            MathFn::Log => {
                let y = approx(self, "llvm.nvvm.lg2.approx.f", x)?;
                mul(self, y, std::f64::consts::LN_2)?
            }
            MathFn::Log10 => {
                let y = approx(self, "llvm.nvvm.lg2.approx.f", x)?;
                mul(self, y, std::f64::consts::LOG10_2)?
            }
            _ => return Ok(None),
        }))
    }

    /// `1 / sqrt(x)` → `rsqrt.approx.f32` under NVPTX fast math.
    fn try_rsqrt(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: weft_ir::Value,
        b: weft_ir::Value,
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        if !(self.nvptx_approx() && s == Scalar::F32 && op == BinaryOp::Div) {
            return Ok(None);
        }
        let Some(&x) = self.st.sqrt_of.get(&b) else {
            return Ok(None);
        };
        let f = self.cur();
        let one = matches!(
            f.values[a].def,
            weft_ir::ValueDef::Result(i, _) if matches!(f.insts[i].kind, InstKind::Const(c) if f64::from_bits(c.bits) == 1.0)
        );
        if !one {
            return Ok(None);
        }
        let xv = self.get1(x)?;
        Ok(Some(self.call_intr(
            "llvm.nvvm.rsqrt.approx.f",
            &[],
            &[xv],
        )?))
    }

    /// The host target inlines the `f32` approximation of `func`
    /// ([`weft_backend_cpu::fastmath`], the CPU backend's algorithms and
    /// coefficients) for the current instruction (`afn`).
    fn host_approx(&self, func: MathFn, s: Scalar) -> bool {
        self.cfg.kind == TargetKind::Host
            && s == Scalar::F32
            && self.st.flags.contains(MathFlags::APPROX_FUNC)
            && weft_backend_cpu::fastmath::approximates(func)
    }

    /// NVPTX may use its approximate instructions for the current
    /// instruction (`afn`).
    fn nvptx_approx(&self) -> bool {
        self.cfg.kind == TargetKind::Nvptx && self.st.flags.contains(MathFlags::APPROX_FUNC)
    }

    /// Sets the LLVM fast-math flags of the current instruction's
    /// [`MathFlags`] on `v` (when it is a float instruction): `contract` →
    /// `contract`, `afn` → `afn arcp`, `nnan` → `nnan`, `ninf` → `ninf`.
    fn fast_flags(&self, v: BasicValueEnum<'ctx>) {
        use inkwell::values::FastMathFlags as F;
        let fl = self.st.flags;
        if fl.is_empty() {
            return;
        }
        let Some(i) = v.as_instruction_value() else {
            return;
        };
        let mut llvm = F::empty();
        if fl.contains(MathFlags::CONTRACT) {
            llvm |= F::AllowContract;
        }
        if fl.contains(MathFlags::APPROX_FUNC) {
            llvm |= F::ApproxFunc | F::AllowReciprocal;
        }
        if fl.contains(MathFlags::NO_NANS) {
            llvm |= F::NoNaNs;
        }
        if fl.contains(MathFlags::NO_INFS) {
            llvm |= F::NoInfs;
        }
        // Not every instruction takes flags (an `fptrunc` of f16 math):
        // those are left as they are.
        let _ = i.set_fast_math_flags(llvm);
    }

    fn unary(
        &mut self,
        op: UnaryOp,
        s: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        use UnaryOp::*;
        let fl = s.is_float();
        if let Some(func) = MathFn::of_unary(op) {
            if !fl {
                return self.unsupported(format!("{op:?} on {s}"));
            }
            return self.math(func, s, &[x]);
        }
        Ok(match op {
            Neg if fl => self.b.build_float_neg(x.into_float_value(), "")?.into(),
            Neg if s.is_int() => self.b.build_int_neg(x.into_int_value(), "")?.into(),
            Not if !fl => self.b.build_not(x.into_int_value(), "")?.into(),
            Abs if fl => self.fintr("llvm.fabs", x)?,
            Abs if s.is_signed_int() => {
                let f = self.ctx.bool_type().const_zero();
                self.call_intr("llvm.abs", &[x.get_type()], &[x, f.into()])?
            }
            Abs if s.is_unsigned_int() => x,
            Sqrt if fl => {
                let v = if self.nvptx_approx() && s != Scalar::F64 {
                    self.call_intr("llvm.nvvm.sqrt.approx.f", &[], &[x])?
                } else {
                    self.fintr("llvm.sqrt", x)?
                };
                self.r16(s, v)?
            }
            Floor if fl => self.fintr("llvm.floor", x)?,
            Ceil if fl => self.fintr("llvm.ceil", x)?,
            Trunc if fl => self.fintr("llvm.trunc", x)?,
            Rint if fl => self.fintr("llvm.rint", x)?,
            Round if fl => self.fintr("llvm.round", x)?,
            Floor | Ceil | Trunc | Rint | Round if s.is_int() => x,
            Popcount if s.is_int() => self.fintr("llvm.ctpop", x)?,
            IsNan if fl => {
                let xv = x.into_float_value();
                self.b
                    .build_float_compare(FloatPredicate::UNO, xv, xv, "")?
                    .into()
            }
            IsInf | IsFinite if fl => {
                let a = self.fintr("llvm.fabs", x)?.into_float_value();
                let inf = self.fconst(s, f64::INFINITY);
                let p = if op == IsInf {
                    FloatPredicate::OEQ
                } else {
                    FloatPredicate::OLT
                };
                self.b.build_float_compare(p, a, inf, "")?.into()
            }
            IsNan | IsInf if s.is_int() || s == Scalar::Bool => {
                self.ctx.bool_type().const_zero().into()
            }
            IsFinite if s.is_int() || s == Scalar::Bool => {
                self.ctx.bool_type().const_int(1, false).into()
            }
            _ => return self.unsupported(format!("{op:?} on {s}")),
        })
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        if s.is_float() {
            self.float_binary(op, s, a, b)
        } else {
            self.int_binary(op, s, a.into_int_value(), b.into_int_value())
        }
    }

    fn float_binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        use BinaryOp::*;
        let (fa, fb) = (a.into_float_value(), b.into_float_value());
        let cmp = |lx: &Self, p: FloatPredicate| -> Result<BasicValueEnum<'ctx>> {
            Ok(lx.b.build_float_compare(p, fa, fb, "")?.into())
        };
        let v: BasicValueEnum = match op {
            Add => self.b.build_float_add(fa, fb, "")?.into(),
            Sub => self.b.build_float_sub(fa, fb, "")?.into(),
            Mul => self.b.build_float_mul(fa, fb, "")?.into(),
            Div => {
                if self.nvptx_approx() && s != Scalar::F64 {
                    self.call_intr("llvm.nvvm.div.approx.f", &[], &[a, b])?
                } else {
                    self.b.build_float_div(fa, fb, "")?.into()
                }
            }
            Rem => return self.math(MathFn::Fmod, s, &[a, b]),
            Pow => return self.math(MathFn::Pow, s, &[a, b]),
            Atan2 => return self.math(MathFn::Atan2, s, &[a, b]),
            Min | Max => return self.fminmax(op == Min, s, a, b),
            Copysign => return self.call_intr("llvm.copysign", &[a.get_type()], &[a, b]),
            Eq => return cmp(self, FloatPredicate::OEQ),
            Ne => return cmp(self, FloatPredicate::UNE),
            Lt => return cmp(self, FloatPredicate::OLT),
            Le => return cmp(self, FloatPredicate::OLE),
            Gt => return cmp(self, FloatPredicate::OGT),
            Ge => return cmp(self, FloatPredicate::OGE),
            And | Or | Xor | Shl | Shr => return self.unsupported(format!("{op:?} on {s}")),
        };
        self.fast_flags(v);
        self.r16(s, v)
    }

    /// C `fmin`/`fmax` (a NaN operand is ignored) with `-0 < +0`, as the
    /// Cranelift backend computes it: `minnum`, then equal operands (the
    /// only case where the sign of zero matters) combine their bits.
    fn fminmax(
        &mut self,
        is_min: bool,
        s: Scalar,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        let name = if is_min { "llvm.minnum" } else { "llvm.maxnum" };
        let m = self.call_intr(name, &[a.get_type()], &[a, b])?;
        let it = if s == Scalar::F64 {
            self.ctx.i64_type()
        } else {
            self.ctx.i32_type()
        };
        let ia = self.b.build_bit_cast(a, it, "")?.into_int_value();
        let ib = self.b.build_bit_cast(b, it, "")?.into_int_value();
        let comb = if is_min {
            self.b.build_or(ia, ib, "")?
        } else {
            self.b.build_and(ia, ib, "")?
        };
        let comb = self.b.build_bit_cast(comb, a.get_type(), "")?;
        let eq = self.b.build_float_compare(
            FloatPredicate::OEQ,
            a.into_float_value(),
            b.into_float_value(),
            "",
        )?;
        Ok(self.b.build_select(eq, comb, m, "")?)
    }

    fn int_binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: IntValue<'ctx>,
        b: IntValue<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        use BinaryOp::*;
        let signed = s.is_signed_int();
        let is_bool = s == Scalar::Bool;
        let t = a.get_type();
        let bb = &self.b;
        let pred = |sp: IntPredicate, up: IntPredicate| if signed { sp } else { up };
        let minmax = |lx: &Self, n: &str| lx.call_intr(n, &[t.into()], &[a.into(), b.into()]);
        Ok(match op {
            Add if !is_bool => bb.build_int_add(a, b, "")?.into(),
            Sub if !is_bool => bb.build_int_sub(a, b, "")?.into(),
            Mul if !is_bool => bb.build_int_mul(a, b, "")?.into(),
            Div | Rem if !is_bool => {
                let zero = bb.build_int_compare(IntPredicate::EQ, b, t.const_zero(), "")?;
                let one = t.const_int(1, false);
                let zv = t.const_zero();
                if signed {
                    let m1 = bb.build_int_compare(IntPredicate::EQ, b, t.const_all_ones(), "")?;
                    let bad = bb.build_or(zero, m1, "")?;
                    let safe = bb.build_select(bad, one, b, "")?.into_int_value();
                    if op == Rem {
                        bb.build_int_signed_rem(a, safe, "")?.into()
                    } else {
                        let q = bb.build_int_signed_div(a, safe, "")?;
                        let neg = bb.build_int_neg(a, "")?;
                        let q = bb.build_select(m1, neg, q, "")?;
                        bb.build_select(zero, zv.into(), q, "")?
                    }
                } else {
                    let safe = bb.build_select(zero, one, b, "")?.into_int_value();
                    if op == Rem {
                        bb.build_int_unsigned_rem(a, safe, "")?.into()
                    } else {
                        let q = bb.build_int_unsigned_div(a, safe, "")?;
                        bb.build_select(zero, zv, q, "")?
                    }
                }
            }
            Min if signed => minmax(self, "llvm.smin")?,
            Max if signed => minmax(self, "llvm.smax")?,
            Min => minmax(self, "llvm.umin")?,
            Max => minmax(self, "llvm.umax")?,
            And => bb.build_and(a, b, "")?.into(),
            Or => bb.build_or(a, b, "")?.into(),
            Xor => bb.build_xor(a, b, "")?.into(),
            Shl | Shr if !is_bool => {
                let mask = t.const_int(t.get_bit_width() as u64 - 1, false);
                let amt = bb.build_and(b, mask, "")?;
                match op {
                    Shl => bb.build_left_shift(a, amt, "")?.into(),
                    _ => bb.build_right_shift(a, amt, signed, "")?.into(),
                }
            }
            Eq => bb.build_int_compare(IntPredicate::EQ, a, b, "")?.into(),
            Ne => bb.build_int_compare(IntPredicate::NE, a, b, "")?.into(),
            Lt => bb
                .build_int_compare(pred(IntPredicate::SLT, IntPredicate::ULT), a, b, "")?
                .into(),
            Le => bb
                .build_int_compare(pred(IntPredicate::SLE, IntPredicate::ULE), a, b, "")?
                .into(),
            Gt => bb
                .build_int_compare(pred(IntPredicate::SGT, IntPredicate::UGT), a, b, "")?
                .into(),
            Ge => bb
                .build_int_compare(pred(IntPredicate::SGE, IntPredicate::UGE), a, b, "")?
                .into(),
            _ => return self.unsupported(format!("{op:?} on {s}")),
        })
    }

    fn cast(
        &mut self,
        from: Scalar,
        to: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        if from == to {
            return Ok(x);
        }
        let tt = self.scalar_ty(to);
        if to == Scalar::Bool {
            return Ok(if from.is_float() {
                let z = self.fconst(from, 0.0);
                self.b
                    .build_float_compare(FloatPredicate::UNE, x.into_float_value(), z, "")?
                    .into()
            } else {
                let xi = x.into_int_value();
                self.b
                    .build_int_compare(IntPredicate::NE, xi, xi.get_type().const_zero(), "")?
                    .into()
            });
        }
        if !from.is_float() && !to.is_float() {
            let xi = x.into_int_value();
            let (fb, tb) = (
                xi.get_type().get_bit_width(),
                tt.into_int_type().get_bit_width(),
            );
            return Ok(match fb.cmp(&tb) {
                std::cmp::Ordering::Equal => x,
                std::cmp::Ordering::Greater => self
                    .b
                    .build_int_truncate(xi, tt.into_int_type(), "")?
                    .into(),
                std::cmp::Ordering::Less if from.is_signed_int() => self
                    .b
                    .build_int_s_extend(xi, tt.into_int_type(), "")?
                    .into(),
                std::cmp::Ordering::Less => self
                    .b
                    .build_int_z_extend(xi, tt.into_int_type(), "")?
                    .into(),
            });
        }
        if !from.is_float() {
            // int/bool -> float; f16 goes through f64 so it rounds once.
            let xi = x.into_int_value();
            let target = if to == Scalar::F16 {
                self.ctx.f64_type()
            } else {
                tt.into_float_type()
            };
            let v = if from.is_signed_int() {
                self.b.build_signed_int_to_float(xi, target, "")?
            } else {
                self.b.build_unsigned_int_to_float(xi, target, "")?
            };
            return if to == Scalar::F16 {
                self.f64_to_f16(v.into())
            } else {
                Ok(v.into())
            };
        }
        let xf = x.into_float_value();
        if to.is_float() {
            return match (from, to) {
                (Scalar::F16, Scalar::F32) => Ok(x),
                (_, Scalar::F64) => Ok(self.b.build_float_ext(xf, self.ctx.f64_type(), "")?.into()),
                (Scalar::F64, Scalar::F32) => Ok(self
                    .b
                    .build_float_trunc(xf, self.ctx.f32_type(), "")?
                    .into()),
                (Scalar::F32, Scalar::F16) => self.f16_round(x),
                _ => self.f64_to_f16(x),
            };
        }
        // float -> int: truncate, saturate, NaN -> 0.
        let name = if to.is_signed_int() {
            "llvm.fptosi.sat"
        } else {
            "llvm.fptoui.sat"
        };
        self.call_intr(name, &[tt, x.get_type()], &[x])
    }

    fn bitcast(
        &mut self,
        from: Scalar,
        to: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        if from.size() != to.size() || from == Scalar::Bool || to == Scalar::Bool {
            return self.invalid(format!("bitcast from {from} to {to}"));
        }
        if from == to || (!from.is_float() && !to.is_float()) {
            return Ok(x);
        }
        if from == Scalar::F16 {
            return Ok(self.f16_to_bits(x)?.into());
        }
        if to == Scalar::F16 {
            return self.bits_to_f16(x.into_int_value());
        }
        Ok(self.b.build_bit_cast(x, self.scalar_ty(to), "")?)
    }
}

/// Rewrites a format so that each conversion takes its leaf's widened form
/// (`%lld`-style for integers, a double for floats); `%%` stays. `kinds`
/// holds each leaf's index into [`Scalar::ALL`].
pub(crate) fn vprintf_format(fmt: &str, kinds: &[u8]) -> String {
    let mut out = String::new();
    let mut kinds = kinds.iter();
    let mut it = fmt.chars().peekable();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::from("%");
        while let Some(&d) = it.peek() {
            if "-+ 0#.".contains(d) || d.is_ascii_digit() {
                spec.push(d);
                it.next();
            } else {
                break;
            }
        }
        while it.peek().is_some_and(|&c| "lhzjtLq".contains(c)) {
            it.next();
        }
        let Some(conv) = it.next() else {
            out.push_str(&spec.replace('%', "%%"));
            break;
        };
        if conv == '%' {
            out.push_str("%%");
            continue;
        }
        let sc = kinds
            .next()
            .and_then(|&k| Scalar::ALL.get(k as usize).copied());
        match sc {
            Some(sc) if sc.is_float() => {
                let c = if "fFgGeE".contains(conv) { conv } else { 'g' };
                spec.push(c);
            }
            Some(sc) => {
                let c = match conv {
                    'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'c' => conv,
                    _ if sc.is_signed_int() => 'd',
                    _ => 'u',
                };
                if c == 'c' {
                    spec.push('c');
                } else {
                    spec.push_str("ll");
                    spec.push(c);
                }
            }
            None => {
                out.push_str(&spec.replace('%', "%%"));
                out.push(conv);
                continue;
            }
        }
        out.push_str(&spec);
    }
    out
}

/// [`weft_backend_cpu::fastmath::Ops`] in LLVM IR on `f32` (the host
/// target's `afn` path). `fma` is a multiply and an add flagged
/// `contract` when the instruction allows contraction (LLVM fuses them
/// where the host has FMA); nothing else gets fast-math flags, so LLVM
/// keeps the algorithm's order of operations.
struct HostOps<'l, 'ctx> {
    b: &'l Builder<'ctx>,
    ctx: &'ctx Context,
    contract: bool,
}

impl<'ctx> HostOps<'_, 'ctx> {
    fn f(v: BasicValueEnum<'ctx>) -> FloatValue<'ctx> {
        v.into_float_value()
    }
    fn i(v: BasicValueEnum<'ctx>) -> IntValue<'ctx> {
        v.into_int_value()
    }
}

impl<'ctx> weft_backend_cpu::fastmath::Ops for HostOps<'_, 'ctx> {
    type V = BasicValueEnum<'ctx>;
    type E = PtxError;
    fn fconst(&mut self, x: f32) -> Result<Self::V> {
        Ok(self.ctx.f32_type().const_float(x as f64).into())
    }
    fn iconst(&mut self, x: i32) -> Result<Self::V> {
        Ok(self.ctx.i32_type().const_int(x as u32 as u64, false).into())
    }
    fn fadd(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_float_add(Self::f(a), Self::f(b), "")?.into())
    }
    fn fsub(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_float_sub(Self::f(a), Self::f(b), "")?.into())
    }
    fn fmul(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_float_mul(Self::f(a), Self::f(b), "")?.into())
    }
    fn fdiv(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_float_div(Self::f(a), Self::f(b), "")?.into())
    }
    fn fneg(&mut self, a: Self::V) -> Result<Self::V> {
        Ok(self.b.build_float_neg(Self::f(a), "")?.into())
    }
    fn fma(&mut self, a: Self::V, b: Self::V, c: Self::V) -> Result<Self::V> {
        let p = self.b.build_float_mul(Self::f(a), Self::f(b), "")?;
        let s = self.b.build_float_add(p, Self::f(c), "")?;
        if self.contract {
            use inkwell::values::FastMathFlags as F;
            for v in [p, s] {
                if let Some(i) = v.as_instruction_value() {
                    let _ = i.set_fast_math_flags(F::AllowContract);
                }
            }
        }
        Ok(s.into())
    }
    fn fcmp(
        &mut self,
        cc: weft_backend_cpu::fastmath::Cmp,
        a: Self::V,
        b: Self::V,
    ) -> Result<Self::V> {
        use weft_backend_cpu::fastmath::Cmp;
        let p = match cc {
            Cmp::Lt => FloatPredicate::OLT,
            Cmp::Eq => FloatPredicate::OEQ,
            Cmp::NotLt => FloatPredicate::UGE,
        };
        let c = self.b.build_float_compare(p, Self::f(a), Self::f(b), "")?;
        Ok(self
            .b
            .build_int_s_extend(c, self.ctx.i32_type(), "")?
            .into())
    }
    fn bits(&mut self, a: Self::V) -> Result<Self::V> {
        Ok(self.b.build_bit_cast(a, self.ctx.i32_type(), "")?)
    }
    fn float(&mut self, a: Self::V) -> Result<Self::V> {
        Ok(self.b.build_bit_cast(a, self.ctx.f32_type(), "")?)
    }
    fn iadd(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_int_add(Self::i(a), Self::i(b), "")?.into())
    }
    fn isub(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_int_sub(Self::i(a), Self::i(b), "")?.into())
    }
    fn band(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_and(Self::i(a), Self::i(b), "")?.into())
    }
    fn bxor(&mut self, a: Self::V, b: Self::V) -> Result<Self::V> {
        Ok(self.b.build_xor(Self::i(a), Self::i(b), "")?.into())
    }
    fn shl(&mut self, a: Self::V, n: u32) -> Result<Self::V> {
        let n = self.ctx.i32_type().const_int(n as u64, false);
        Ok(self.b.build_left_shift(Self::i(a), n, "")?.into())
    }
    fn sshr(&mut self, a: Self::V, n: u32) -> Result<Self::V> {
        let n = self.ctx.i32_type().const_int(n as u64, false);
        Ok(self.b.build_right_shift(Self::i(a), n, true, "")?.into())
    }
    fn bitselect(&mut self, mask: Self::V, a: Self::V, b: Self::V) -> Result<Self::V> {
        let m = Self::i(mask);
        let x = self.b.build_and(Self::i(a), m, "")?;
        let nm = self.b.build_not(m, "")?;
        let y = self.b.build_and(Self::i(b), nm, "")?;
        Ok(self.b.build_or(x, y, "")?.into())
    }
}
