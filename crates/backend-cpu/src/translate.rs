//! Translation of one IR function into a Cranelift function.
//!
//! See the crate docs for the mapping. Every IR value is a run of Cranelift
//! values, one per [`Slot`] of its type, stored in one pool per function.

use crate::shims::Shim;
use crate::CpuError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F32X4, F64, I16, I32, I32X4, I64, I8};
use cranelift_codegen::ir::{
    self as cl, AbiParam, AtomicRmwOp, Block, BlockArg, InstBuilder, MemFlagsData, StackSlotData,
    StackSlotKind,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use cranelift_module::Module as _;
use std::collections::HashMap;
use std::rc::Rc;
use weft_ir::ir::{AtomicOp, BinaryOp, InstKind, MemAccess, UnaryOp};
use weft_ir::{layout, ElemType, FuncId, Inst, Loc, MathFn, Region, Scalar, Type};

type Result<T> = std::result::Result<T, CpuError>;

pub(crate) use weft_ir::layout::{Slot, SlotKind};

/// The Cranelift type that holds an IR scalar in a register. `bool` is an
/// `i8` holding 0 or 1; `f16` is an `f32` holding an `f16`-representable value.
pub(crate) fn cty(s: Scalar) -> cl::Type {
    match s {
        Scalar::Bool | Scalar::I8 | Scalar::U8 => I8,
        Scalar::I16 | Scalar::U16 => I16,
        Scalar::I32 | Scalar::U32 => I32,
        Scalar::I64 | Scalar::U64 => I64,
        Scalar::F16 | Scalar::F32 => F32,
        Scalar::F64 => F64,
    }
}

/// The Cranelift type that holds a slot in a register.
pub(crate) fn slot_cty(s: Slot) -> cl::Type {
    match s.kind {
        SlotKind::Scalar(s) => cty(s),
        SlotKind::Data | SlotKind::Stride(_) => I64,
        SlotKind::Shape(_) => I32,
    }
}

/// Module-wide state shared by the translation of every function.
pub(crate) struct ModCtx<'m> {
    pub m: &'m weft_ir::Module,
    flat_cache: HashMap<Type, Rc<[Slot]>>,
    pub shim_ids: HashMap<Shim, cranelift_module::FuncId>,
    pub func_ids: HashMap<FuncId, cranelift_module::FuncId>,
    /// Bytes the generated code points at (print formats), kept alive by the
    /// artifact.
    pub data: Vec<Box<[u8]>>,
    /// Debug build: statement hooks ([`crate::debug`]), no SIMD stage or
    /// thread-loop unrolling.
    pub debug: bool,
    /// Debug build: the source line of the last statement hook emitted in
    /// the current region walk (0: none).
    pub debug_line: u32,
    /// Debug info for gdb ([`crate::gdbjit`]): every emitted instruction
    /// carries a `SourceLoc` indexing `srclocs`; one thread loop only.
    pub debug_info: bool,
    pub srclocs: Vec<Loc>,
    srcloc_ids: HashMap<Loc, u32>,
    /// Debug info: what each Cranelift `ValueLabel` stands for: `(function
    /// (its address), variable name, type, leaf index, value key)`.
    pub labels: Vec<(usize, String, Type, u32, u32)>,
    label_ids: HashMap<(usize, u32, u32), u32>,
    /// Debug info: the Cranelift values labelled so far, per function.
    labelled: std::collections::HashSet<(usize, cl::Value)>,
}

impl<'m> ModCtx<'m> {
    pub fn new(m: &'m weft_ir::Module) -> Self {
        ModCtx {
            m,
            flat_cache: HashMap::new(),
            shim_ids: HashMap::new(),
            func_ids: HashMap::new(),
            data: Vec::new(),
            debug: false,
            debug_line: 0,
            debug_info: false,
            srclocs: Vec::new(),
            srcloc_ids: HashMap::new(),
            labels: Vec::new(),
            label_ids: HashMap::new(),
            labelled: Default::default(),
        }
    }

    /// The Cranelift source location of `loc`: its index in `srclocs`.
    pub fn srcloc(&mut self, loc: Loc) -> cranelift_codegen::ir::SourceLoc {
        if loc.is_none() {
            return Default::default();
        }
        let n = self.srclocs.len() as u32;
        let id = *self.srcloc_ids.entry(loc).or_insert(n);
        if id == n {
            self.srclocs.push(loc);
        }
        cranelift_codegen::ir::SourceLoc::new(id)
    }

    /// The slots of a type, in path order (memory order).
    pub fn flat(&mut self, ty: Type) -> Rc<[Slot]> {
        if let Some(s) = self.flat_cache.get(&ty) {
            return s.clone();
        }
        let rc: Rc<[Slot]> = layout::slots(ty, &self.m.structs).into();
        self.flat_cache.insert(ty, rc.clone());
        rc
    }

    /// The Cranelift types of a type's slots.
    pub fn ctypes(&mut self, ty: Type) -> Vec<cl::Type> {
        self.flat(ty).iter().map(|&s| slot_cty(s)).collect()
    }

    /// The slot range `(start, len)` of the component at `path`, and its type.
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
}

/// Decides where each kernel parameter is loaded: `at_entry[k]` (before
/// the thread loop) or, keyed by the index of the top-level body
/// instruction before which they are loaded, once per thread. Unused
/// parameters are loaded nowhere.
fn param_placement(f: &weft_ir::Function) -> (Vec<bool>, HashMap<usize, Vec<usize>>) {
    let params = &f.regions[f.body].params;
    let index: HashMap<weft_ir::Value, usize> =
        params.iter().enumerate().map(|(k, &v)| (v, k)).collect();
    let mut first_use: Vec<Option<usize>> = vec![None; params.len()];
    let mut first_loop: Option<usize> = None;
    fn visit(
        f: &weft_ir::Function,
        inst: Inst,
        top: usize,
        index: &HashMap<weft_ir::Value, usize>,
        first_use: &mut [Option<usize>],
        first_loop: &mut Option<usize>,
    ) {
        let Some(d) = f.insts.get(inst) else { return };
        for a in d.kind.args() {
            if let Some(&k) = index.get(&a) {
                first_use[k].get_or_insert(top);
            }
        }
        if matches!(d.kind, InstKind::Loop { .. }) {
            first_loop.get_or_insert(top);
        }
        for r in d.kind.regions() {
            if let Some(rd) = f.regions.get(r) {
                for &i in &rd.insts {
                    visit(f, i, top, index, first_use, first_loop);
                }
            }
        }
    }
    for (top, &inst) in f.regions[f.body].insts.iter().enumerate() {
        visit(f, inst, top, &index, &mut first_use, &mut first_loop);
    }
    let mut at_entry = vec![false; params.len()];
    let mut per_thread: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, fu) in first_use.iter().enumerate() {
        match (*fu, first_loop) {
            (None, _) => {}
            (Some(u), Some(l)) if u > l => per_thread.entry(u).or_default().push(k),
            _ => at_entry[k] = true,
        }
    }
    (at_entry, per_thread)
}

/// Threads per iteration of the SIMD thread loop (128-bit vectors).
const LANES: i64 = 4;

/// The array params a kernel body loads from or stores to (anywhere in
/// it), and those it stores to.
fn simd_arrays(f: &weft_ir::Function) -> (Vec<weft_ir::Value>, Vec<weft_ir::Value>) {
    fn walk(
        f: &weft_ir::Function,
        r: Region,
        acc: &mut Vec<weft_ir::Value>,
        st: &mut Vec<weft_ir::Value>,
    ) {
        let Some(rd) = f.regions.get(r) else { return };
        for &i in &rd.insts {
            match &f.insts[i].kind {
                InstKind::Load(m) if !acc.contains(&m.array) => acc.push(m.array),
                InstKind::Store(m, _) => {
                    if !acc.contains(&m.array) {
                        acc.push(m.array);
                    }
                    if !st.contains(&m.array) {
                        st.push(m.array);
                    }
                }
                _ => {}
            }
            for sub in f.insts[i].kind.regions() {
                walk(f, sub, acc, st);
            }
        }
    }
    let (mut acc, mut st) = (Vec::new(), Vec::new());
    walk(f, f.body, &mut acc, &mut st);
    (acc, st)
}

/// Whether `a` is a parameter of `f` that the `soa` pass made a 1-D SoA
/// array (`array(S, 2)`: the user's axis, then the plane axis).
fn soa_1d(f: &weft_ir::Function, a: weft_ir::Value) -> bool {
    let params = &f.regions[f.body].params;
    params.iter().position(|&p| p == a).is_some_and(|k| {
        f.soa_params
            .iter()
            .any(|sp| sp.param as usize == k && sp.ndim == 1)
    })
}

/// What a value of a body run in SIMD lanes is.
#[derive(Copy, Clone)]
enum Lane {
    /// The thread id (usable only as an array index).
    Tid,
    /// The same constant in every lane (folded as the interpreter would).
    Known(weft_ir::Const),
    /// A scalar kernel parameter: the same in every lane.
    Param,
    /// One value per lane (`None` while only checking).
    Vector(Option<cl::Value>),
}

/// How a walk of a region in SIMD lanes ended.
enum Walk {
    /// Something not vectorizable.
    No,
    /// `yield` with these values.
    Yield(Vec<Lane>),
    /// `return` (of the kernel body).
    Return,
}

/// Threads per iteration of the unrolled thread loop.
const UNROLL: i64 = 4;

/// Whether the kernel body is worth unrolling: small and without loops (a
/// kernel with a loop spends its time there) or calls.
fn unrollable(f: &weft_ir::Function) -> bool {
    let mut n = 0usize;
    let mut simple = true;
    fn walk(f: &weft_ir::Function, r: Region, n: &mut usize, simple: &mut bool) {
        let Some(rd) = f.regions.get(r) else { return };
        for &i in &rd.insts {
            *n += 1;
            let k = &f.insts[i].kind;
            if matches!(k, InstKind::Loop { .. } | InstKind::Call(..)) {
                *simple = false;
            }
            for sub in k.regions() {
                walk(f, sub, n, simple);
            }
        }
    }
    walk(f, f.body, &mut n, &mut simple);
    simple && n <= 64
}

/// What every copy of a kernel body needs.
struct BodyCtx<'c> {
    args: cl::Value,
    end: cl::Value,
    exit: Block,
    types: &'c [Type],
    params: &'c [weft_ir::Value],
    offsets: &'c [u32],
    per_thread: &'c HashMap<usize, Vec<usize>>,
}

/// Where `return` goes.
#[derive(Copy, Clone)]
enum Ret {
    /// A kernel: end this thread, continue with the next index.
    NextThread(Block),
    /// A func: return the values.
    Func,
}

/// Translates one IR function into the builder's function.
pub(crate) struct FnTx<'a, 'b, 'm> {
    cx: &'a mut ModCtx<'m>,
    module: &'a mut JITModule,
    f: &'m weft_ir::Function,
    b: FunctionBuilder<'b>,
    map: Vec<(u32, u32)>,
    pool: Vec<cl::Value>,
    loops: Vec<(Block, Block)>,
    ret: Ret,
    args_ptr: Option<cl::Value>,
    tid: Option<cl::Value>,
    filled: bool,
    shim_refs: HashMap<Shim, cl::FuncRef>,
    func_refs: HashMap<FuncId, cl::FuncRef>,
    loc: Loc,
    /// Division results by `(dividend, divisor, signed)`, valid in the
    /// region that computed them and the regions nested in it.
    divs: HashMap<(cl::Value, cl::Value, bool), (cl::Value, cl::Value)>,
    /// Keys of `divs` added per open region, removed when it closes.
    div_scopes: Vec<Vec<(cl::Value, cl::Value, bool)>>,
    /// The host has a fused multiply-add instruction, so `contract` adds
    /// of products become `fma` (without it, Cranelift's `fma` is a libcall).
    host_fma: bool,
    /// `afn` transcendentals are inlined ([`crate::fastmath`]): set for
    /// kernels that have a SIMD thread loop.
    inline_approx: bool,
}

/// Whether the ISA executes `fma` natively: x86-64 with the FMA extension
/// (`has_fma`, as detected by `cranelift_native`), or aarch64/riscv64/s390x
/// where it is part of the base ISA.
fn isa_has_fma(isa: &dyn cranelift_codegen::isa::TargetIsa) -> bool {
    match isa.name() {
        "x64" => isa
            .isa_flags()
            .iter()
            .any(|f| f.name == "has_fma" && f.as_bool() == Some(true)),
        "aarch64" | "riscv64" | "s390x" => true,
        _ => false,
    }
}

/// The operands `(x, y, c, neg_c, neg_x)` of `fma(±x, y, ±c)` that a
/// `contract` `add`/`sub` of a `contract` `mul` may become (see
/// [`FnTx::contract`]); `None` when the pattern does not apply.
#[allow(clippy::type_complexity)]
fn contraction(
    f: &weft_ir::Function,
    inst: Inst,
) -> Option<(weft_ir::Value, weft_ir::Value, weft_ir::Value, bool, bool)> {
    use weft_ir::MathFlags;
    let d = &f.insts[inst];
    if !d.flags.contains(MathFlags::CONTRACT) {
        return None;
    }
    let InstKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) = d.kind else {
        return None;
    };
    let product = |v: weft_ir::Value| match f.values.get(v).map(|vd| vd.def) {
        Some(weft_ir::ValueDef::Result(i, 0)) => match f.insts.get(i) {
            Some(m) if m.flags.contains(MathFlags::CONTRACT) => match m.kind {
                InstKind::Binary(BinaryOp::Mul, x, y) => Some((x, y)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    match (op, product(a), product(b)) {
        (BinaryOp::Add, Some((x, y)), _) => Some((x, y, b, false, false)),
        (BinaryOp::Add, None, Some((x, y))) => Some((x, y, a, false, false)),
        (_, Some((x, y)), _) => Some((x, y, b, true, false)),
        (_, None, Some((x, y))) => Some((x, y, a, false, true)),
        _ => None,
    }
}

const UNSET: (u32, u32) = (u32::MAX, 0);

fn mem_flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

fn arg_flags() -> MemFlagsData {
    MemFlagsData::trusted().with_readonly().with_can_move()
}

/// The signature of a kernel entry: `(args, start, end)`.
pub(crate) fn kernel_signature(module: &JITModule) -> cl::Signature {
    let mut sig = module.make_signature();
    for _ in 0..3 {
        sig.params.push(AbiParam::new(I64));
    }
    sig
}

/// The signature of a func: hidden `(args, thread index)`, then the flattened
/// params; the flattened returns.
pub(crate) fn func_signature(
    cx: &mut ModCtx,
    module: &JITModule,
    f: &weft_ir::Function,
) -> cl::Signature {
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(I64));
    sig.params.push(AbiParam::new(I64));
    for p in &f.params {
        for t in cx.ctypes(p.ty) {
            sig.params.push(AbiParam::new(t));
        }
    }
    for &r in &f.returns {
        for t in cx.ctypes(r) {
            sig.returns.push(AbiParam::new(t));
        }
    }
    sig
}

impl<'a, 'b, 'm> FnTx<'a, 'b, 'm> {
    pub fn new(
        cx: &'a mut ModCtx<'m>,
        module: &'a mut JITModule,
        f: &'m weft_ir::Function,
        b: FunctionBuilder<'b>,
    ) -> Self {
        FnTx {
            cx,
            module,
            f,
            b,
            map: vec![UNSET; f.values.len()],
            pool: Vec::new(),
            loops: Vec::new(),
            ret: Ret::Func,
            args_ptr: None,
            tid: None,
            filled: false,
            shim_refs: HashMap::new(),
            func_refs: HashMap::new(),
            loc: f.loc,
            divs: HashMap::new(),
            div_scopes: Vec::new(),
            host_fma: false,
            inline_approx: false,
        }
        .with_host_fma()
    }

    fn with_host_fma(mut self) -> Self {
        self.host_fma = isa_has_fma(self.module.isa());
        self
    }

    /// `add`/`sub` with `contract` of a `mul` with `contract` as one `fma`
    /// (see [`weft_ir::MathFlags::CONTRACT`]): `a*b + c`, `c + a*b`,
    /// `a*b - c` = `fma(a, b, -c)`, `c - a*b` = `fma(-a, b, c)`. `None`
    /// when the pattern does not apply (or the host has no FMA).
    fn contract(&mut self, inst: Inst, s: Scalar) -> Result<Option<cl::Value>> {
        if !self.host_fma || !matches!(s, Scalar::F32 | Scalar::F64) {
            return Ok(None);
        }
        let Some((x, y, c, neg_c, neg_x)) = contraction(self.f, inst) else {
            return Ok(None);
        };
        let (mut xv, yv, mut cv) = (self.get1(x)?, self.get1(y)?, self.get1(c)?);
        if neg_c {
            cv = self.b.ins().fneg(cv);
        }
        if neg_x {
            xv = self.b.ins().fneg(xv);
        }
        Ok(Some(self.b.ins().fma(xv, yv, cv)))
    }

    /// [`contract`](Self::contract) in SIMD lanes (`f32x4`), so that the
    /// vector loop rounds as the scalar one does.
    fn simd_contract(
        &mut self,
        inst: Inst,
        s: Scalar,
        env: &HashMap<weft_ir::Value, Lane>,
    ) -> Result<Option<cl::Value>> {
        if !self.host_fma || s != Scalar::F32 {
            return Ok(None);
        }
        let Some((x, y, c, neg_c, neg_x)) = contraction(self.f, inst) else {
            return Ok(None);
        };
        let lane = |v| match env.get(&v) {
            Some(Lane::Tid) | None => None,
            Some(l) => Some(*l),
        };
        let (Some(lx), Some(ly), Some(lc)) = (lane(x), lane(y), lane(c)) else {
            return Ok(None);
        };
        let mut xv = self.simd_vector(lx, x, F32X4)?;
        let yv = self.simd_vector(ly, y, F32X4)?;
        let mut cv = self.simd_vector(lc, c, F32X4)?;
        if neg_c {
            cv = self.b.ins().fneg(cv);
        }
        if neg_x {
            xv = self.b.ins().fneg(xv);
        }
        Ok(Some(self.b.ins().fma(xv, yv, cv)))
    }

    fn unsupported<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(CpuError::Unsupported {
            what: what.into(),
            loc: self.loc,
        })
    }

    fn invalid<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(CpuError::Invalid {
            what: what.into(),
            loc: self.loc,
        })
    }

    // ---- value map ----

    /// Binds `v` to its flattened values, checking that their Cranelift
    /// types are those of `v`'s IR type (malformed IR is an error here, not
    /// a panic inside Cranelift).
    fn def(&mut self, v: weft_ir::Value, leaves: &[cl::Value]) -> Result<()> {
        let Some(vd) = self.f.values.get(v) else {
            return self.invalid(format!("no value {v}"));
        };
        let slots = self.cx.flat(vd.ty);
        let dfg = &self.b.func.dfg;
        if slots.len() != leaves.len()
            || slots
                .iter()
                .zip(leaves)
                .any(|(&s, &l)| slot_cty(s) != dfg.value_type(l))
        {
            return self.invalid(format!("{v} is defined with values of the wrong type"));
        }
        let copies;
        let leaves = if self.cx.debug_info {
            copies = self.debug_var(v, leaves);
            &copies
        } else {
            leaves
        };
        let start = self.pool.len() as u32;
        self.pool.extend_from_slice(leaves);
        if let Some(e) = self.map.get_mut(v.as_u32() as usize) {
            *e = (start, leaves.len() as u32);
        }
        Ok(())
    }

    fn get(&self, v: weft_ir::Value) -> Result<Vec<cl::Value>> {
        match self.map.get(v.as_u32() as usize) {
            Some(&(s, n)) if (s, n) != UNSET => {
                Ok(self.pool[s as usize..(s + n) as usize].to_vec())
            }
            _ => self.invalid(format!("use of undefined value {v}")),
        }
    }

    fn get1(&self, v: weft_ir::Value) -> Result<cl::Value> {
        match self.map.get(v.as_u32() as usize) {
            Some(&(s, 1)) => Ok(self.pool[s as usize]),
            _ => self.invalid(format!("{v} is not a defined scalar")),
        }
    }

    fn scalar_of(&self, v: weft_ir::Value) -> Result<Scalar> {
        match self.f.values.get(v).map(|d| d.ty) {
            Some(Type::Scalar(s)) => Ok(s),
            _ => self.invalid(format!("{v} is not a scalar")),
        }
    }

    /// A condition: a `bool` (or integer, tested against 0) scalar.
    fn cond(&self, v: weft_ir::Value) -> Result<cl::Value> {
        match self.scalar_of(v)? {
            s if !s.is_float() => self.get1(v),
            _ => self.invalid("a float used as a condition"),
        }
    }

    fn block_args(vs: &[cl::Value]) -> Vec<BlockArg> {
        vs.iter().map(|&v| BlockArg::Value(v)).collect()
    }

    fn switch_to(&mut self, blk: Block) {
        self.b.switch_to_block(blk);
        self.filled = false;
    }

    fn jump(&mut self, blk: Block, vs: &[cl::Value]) -> Result<()> {
        let dfg = &self.b.func.dfg;
        let params = dfg.block_params(blk);
        if params.len() != vs.len()
            || params
                .iter()
                .zip(vs)
                .any(|(&p, &v)| dfg.value_type(p) != dfg.value_type(v))
        {
            return self.invalid("branch values do not match the target's params");
        }
        let args = Self::block_args(vs);
        self.b.ins().jump(blk, &args);
        self.filled = true;
        Ok(())
    }

    /// A new block with params for the flattened types.
    fn block_with_params(&mut self, types: &[Type]) -> (Block, Vec<cl::Value>) {
        let blk = self.b.create_block();
        let mut params = Vec::new();
        for &t in types {
            for ct in self.cx.ctypes(t) {
                params.push(self.b.append_block_param(blk, ct));
            }
        }
        (blk, params)
    }

    /// Binds the values of `vals` (IR values of the given types) to the
    /// flattened Cranelift values `leaves`, in order.
    fn bind(&mut self, vals: &[weft_ir::Value], leaves: &[cl::Value]) -> Result<()> {
        let mut i = 0;
        for &v in vals {
            let n = self.cx.flat(self.f.value_type(v)).len();
            let Some(part) = leaves.get(i..i + n) else {
                return self.invalid("value count mismatch");
            };
            let part = part.to_vec();
            self.def(v, &part)?;
            i += n;
        }
        if i != leaves.len() {
            return self.invalid("value count mismatch");
        }
        Ok(())
    }

    fn call_shim(&mut self, shim: Shim, args: &[cl::Value]) -> Result<Option<cl::Value>> {
        let fref = match self.shim_refs.get(&shim) {
            Some(&r) => r,
            None => {
                let Some(&id) = self.cx.shim_ids.get(&shim) else {
                    return Err(CpuError::Codegen(format!("shim {shim:?} not declared")));
                };
                let r = self.module.declare_func_in_func(id, self.b.func);
                self.shim_refs.insert(shim, r);
                r
            }
        };
        let call = self.b.ins().call(fref, args);
        Ok(self.b.inst_results(call).first().copied())
    }

    fn call_shim1(&mut self, shim: Shim, args: &[cl::Value]) -> Result<cl::Value> {
        match self.call_shim(shim, args)? {
            Some(v) => Ok(v),
            None => Err(CpuError::Codegen(format!("shim {shim:?} returns nothing"))),
        }
    }

    /// Rounds an `f32` to the nearest `f16` value when `s` is `f16`.
    fn r16(&mut self, s: Scalar, v: cl::Value) -> Result<cl::Value> {
        if s == Scalar::F16 {
            self.call_shim1(Shim::RoundF16, &[v])
        } else {
            Ok(v)
        }
    }

    // ---- entry points ----

    /// Translates a kernel: `entry(args, start, end)` looping over threads.
    pub fn kernel_into(&mut self) -> Result<()> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.switch_to(entry);
        let p = self.b.block_params(entry).to_vec();
        let (args, start, end) = (p[0], p[1], p[2]);
        self.args_ptr = Some(args);
        self.set_srcloc(self.f.loc);

        // Parameters are loaded once per launch, before the thread loop,
        // when the kernel uses them before or inside its first loop: they
        // are what inner loops need. A parameter first used after that loop
        // is loaded once per thread, just before the top-level instruction
        // that first uses it, so it does not occupy a register across the
        // loop (see `param_placement`).
        let types: Vec<Type> = self.f.params.iter().map(|p| p.ty).collect();
        let al = layout::arg_layout(&types, &self.cx.m.structs);
        let params = self.f.regions[self.f.body].params.clone();
        if params.len() != types.len() {
            return self.invalid("kernel body params do not match its params");
        }
        let (mut at_entry, mut per_thread) = param_placement(self.f);
        if self.cx.debug {
            // Every parameter is visible to the hooks from the start.
            at_entry.iter_mut().for_each(|e| *e = true);
            per_thread.clear();
        }
        let mut entry_leaves = HashMap::new();
        for (k, &v) in params.iter().enumerate() {
            if at_entry[k] {
                self.load_param(v, types[k], args, al.offsets[k], arg_flags())?;
                entry_leaves.insert(k, self.get(v)?);
            }
        }

        // Two versions of the thread loop: one where every array the kernel
        // uses has a unit innermost stride (the stride is then a constant,
        // and addresses fold into x86 addressing modes), one general. The
        // innermost axis is the last one, or for an SoA parameter the last
        // user axis: its last axis selects the plane, and the plane stride
        // stays a loaded, loop-invariant value.
        let mut contig: Option<cl::Value> = None;
        let mut unit = Vec::new();
        for (k, &t) in types.iter().enumerate() {
            let used = at_entry[k] || per_thread.values().any(|v| v.contains(&k));
            let Type::Array(at) = t else { continue };
            if !used || at.ndim == 0 || self.cx.debug_info {
                continue;
            }
            let axis = match self.f.soa_params.iter().find(|sp| sp.param as usize == k) {
                Some(sp) if sp.ndim >= 1 && sp.ndim < at.ndim => sp.ndim - 1,
                Some(_) => return self.invalid("SoA parameter with a bad user ndim"),
                None => at.ndim - 1,
            };
            let esize = layout::elem_size(at.elem, &self.cx.m.structs);
            let off = al.offsets[k] + layout::ARRAY_DESC_STRIDES + 8 * axis as u32;
            let st = self.b.ins().load(I64, arg_flags(), args, off as i32);
            let ok = self.b.ins().icmp_imm_s(IntCC::Equal, st, esize as i64);
            contig = Some(match contig {
                Some(c) => self.b.ins().band(c, ok),
                None => ok,
            });
            // Leaves: data, shape[ndim], strides[ndim].
            unit.push((k, 1 + at.ndim as usize + axis as usize, esize));
        }
        let exit = self.b.create_block();
        let fast = self.b.create_block();
        let general = self.b.create_block();
        match contig {
            Some(c) => {
                self.b.ins().brif(c, fast, &[], general, &[]);
            }
            None => {
                self.b.ins().jump(general, &[]);
            }
        }
        let body_ctx = BodyCtx {
            args,
            end,
            exit,
            types: &types,
            params: &params,
            offsets: &al.offsets,
            per_thread: &per_thread,
        };
        // A kernel with a SIMD loop inlines its `afn` transcendentals in
        // every loop (so each thread computes the same whatever loop runs
        // it); one without keeps the library calls, which beat the inline
        // code one value at a time (see `crate::fastmath`).
        let simd = contig.is_some() && !self.cx.debug && self.simd_ok()?;
        self.inline_approx = simd;
        if contig.is_some() {
            self.switch_to(fast);
            // Entry-loaded arrays get their constant stride in this version.
            let mut stride_of = HashMap::new();
            for &(k, idx, esize) in &unit {
                stride_of.insert(k, (idx, esize));
                if let Some(leaves) = entry_leaves.get(&k) {
                    let mut l = leaves.clone();
                    l[idx] = self.b.ins().iconst(I64, esize as i64);
                    self.def(params[k], &l)?;
                }
            }
            let unroll = if !self.cx.debug && unrollable(self.f) {
                UNROLL
            } else {
                1
            };
            let start = if simd {
                self.simd_loop(start, end)?
            } else {
                start
            };
            self.thread_loop(&body_ctx, start, &stride_of, unroll)?;
            // Restore the general leaves for the other version.
            for (&k, leaves) in &entry_leaves {
                self.def(params[k], leaves)?;
            }
        }
        self.switch_to(general);
        self.thread_loop(&body_ctx, start, &HashMap::new(), 1)?;

        self.switch_to(exit);
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
        Ok(())
    }

    /// Emits the SIMD stage of the unit-stride thread loop (see
    /// [`simd_ok`]): `LANES` threads per iteration while that many remain.
    /// Returns the first thread index it did not run, in the current block.
    fn simd_loop(&mut self, start: cl::Value, end: cl::Value) -> Result<cl::Value> {
        let vloop = self.b.create_block();
        let i = self.b.append_block_param(vloop, I64);
        let after = self.b.create_block();
        let next_i = self.b.append_block_param(after, I64);
        let last = self.b.ins().iadd_imm_s(start, LANES);
        let mut c = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, last, end);
        // The lanes assume a 1-D launch (dims past axis 0 are 1).
        if let Some(args) = self.args_ptr {
            for axis in 1..4 {
                let d = self.b.ins().load(I32, arg_flags(), args, 4 * axis);
                let one = self.b.ins().icmp_imm_s(IntCC::Equal, d, 1);
                c = self.b.ins().band(c, one);
            }
        }
        // Lanes of one vector run "at once": that equals running the threads
        // in order unless a stored array overlaps another array at a
        // different base (a view shifted by some elements). Then the scalar
        // loops do the work.
        let (accessed, stored) = simd_arrays(self.f);
        // The bytes an array spans: `n` 4-byte elements, and for a 1-D SoA
        // parameter (leaves data, shape[2], strides[2]) as many planes.
        let extent = |tx: &mut Self, a: weft_ir::Value| -> Result<(cl::Value, cl::Value)> {
            let l = tx.get(a)?;
            let n = tx.b.ins().sextend(I64, l[1]);
            let mut bytes = tx.b.ins().ishl_imm_u(n, 2);
            if soa_1d(tx.f, a) && l.len() == 5 {
                let planes = tx.b.ins().sextend(I64, l[2]);
                let before_last = tx.b.ins().iadd_imm_s(planes, -1);
                let skip = tx.b.ins().imul(before_last, l[4]);
                bytes = tx.b.ins().iadd(bytes, skip);
            }
            Ok((l[0], tx.b.ins().iadd(l[0], bytes)))
        };
        for &st in &stored {
            let (s0, s1) = extent(self, st)?;
            for &a in &accessed {
                if a == st {
                    continue;
                }
                let (a0, a1) = extent(self, a)?;
                let same = self.b.ins().icmp(IntCC::Equal, a0, s0);
                let before = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, a1, s0);
                let after = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, s1, a0);
                let ok = self.b.ins().bor(same, before);
                let ok = self.b.ins().bor(ok, after);
                c = self.b.ins().band(c, ok);
            }
        }
        self.b.ins().brif(
            c,
            vloop,
            &[BlockArg::Value(start)],
            after,
            &[BlockArg::Value(start)],
        );
        self.switch_to(vloop);
        self.simd_body(i)?;
        let ni = self.b.ins().iadd_imm_s(i, LANES);
        let last = self.b.ins().iadd_imm_s(i, 2 * LANES);
        let c = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, last, end);
        self.b.ins().brif(
            c,
            vloop,
            &[BlockArg::Value(ni)],
            after,
            &[BlockArg::Value(ni)],
        );
        self.switch_to(after);
        Ok(next_i)
    }

    /// Whether the kernel body can run [`LANES`] threads per vector
    /// instruction, lane `k` being thread `i + k` with exactly the scalar
    /// semantics, for a 1-D launch in the unit-stride version: a body of
    /// `f32`/`i32` loads and stores of 1-D `f32`/`i32` arrays at
    /// `[thread_id]`, the lane-exact operations `f32` add/sub/mul/div/neg/
    /// abs/sqrt, the `f32` transcendentals whose `afn` flag lets them be
    /// inlined ([`crate::fastmath`]), `i32` add/sub/neg, scalar params
    /// (splatted), and
    /// anything that folds to a constant when the launch dims past axis 0
    /// are 1 (the frontend's thread-index decomposition, including its
    /// `if`), ending in `return`.
    fn simd_ok(&mut self) -> Result<bool> {
        let (_, stored) = simd_arrays(self.f);
        if stored.is_empty() {
            return Ok(false);
        }
        let mut env = self.simd_env();
        Ok(matches!(
            self.simd_walk(self.f.body, None, &mut env)?,
            Walk::Return
        ))
    }

    fn simd_env(&self) -> HashMap<weft_ir::Value, Lane> {
        self.f.regions[self.f.body]
            .params
            .iter()
            .map(|&p| (p, Lane::Param))
            .collect()
    }

    /// The body for threads `i..i+LANES`, one vector lane per thread (only
    /// for bodies [`simd_ok`](Self::simd_ok) accepts).
    fn simd_body(&mut self, i: cl::Value) -> Result<()> {
        let t32 = self.b.ins().ireduce(I32, i);
        let idx = self.b.ins().sextend(I64, t32);
        let mut env = self.simd_env();
        match self.simd_walk(self.f.body, Some(idx), &mut env)? {
            Walk::Return => Ok(()),
            _ => self.invalid("kernel body not vectorizable after all"),
        }
    }

    /// Walks a region in SIMD lanes; emits vector code when `idx` (the
    /// sign-extended thread index of lane 0) is given, else only checks.
    fn simd_walk(
        &mut self,
        r: Region,
        idx: Option<cl::Value>,
        env: &mut HashMap<weft_ir::Value, Lane>,
    ) -> Result<Walk> {
        use weft_ir::interp::{eval_binary, eval_unary};
        let f = self.f;
        let Some(rd) = f.regions.get(r) else {
            return Ok(Walk::No);
        };
        let lane_scalar = |v: weft_ir::Value| match f.value_type(v) {
            Type::Scalar(s @ (Scalar::F32 | Scalar::I32)) => Some(s),
            _ => None,
        };
        let vt = |s: Scalar| if s == Scalar::F32 { F32X4 } else { I32X4 };
        let flags = MemFlagsData::new().with_notrap();
        for &inst in &rd.insts {
            self.loc = f.insts[inst].loc;
            let res = f.insts[inst].results.first().copied();
            let lane_of =
                |env: &HashMap<weft_ir::Value, Lane>, v: weft_ir::Value| env.get(&v).copied();
            let lane = match &f.insts[inst].kind {
                InstKind::ThreadId => Lane::Tid,
                InstKind::LaunchDim(a) if *a >= 1 => {
                    Lane::Known(weft_ir::Const::int(Scalar::I32, 1))
                }
                InstKind::Const(c) => Lane::Known(*c),
                InstKind::Unary(op, x) => match lane_of(env, *x) {
                    Some(Lane::Known(c)) => match eval_unary(*op, c) {
                        Some(k) => Lane::Known(k),
                        None => return Ok(Walk::No),
                    },
                    Some(l @ (Lane::Param | Lane::Vector(_))) => {
                        let Some(s) = lane_scalar(*x) else {
                            return Ok(Walk::No);
                        };
                        let approx = s == Scalar::F32
                            && f.insts[inst]
                                .flags
                                .contains(weft_ir::MathFlags::APPROX_FUNC)
                            && MathFn::of_unary(*op).is_some_and(crate::fastmath::approximates);
                        let ok = match s {
                            Scalar::F32 => {
                                approx || matches!(op, UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sqrt)
                            }
                            _ => *op == UnaryOp::Neg,
                        };
                        if !ok {
                            return Ok(Walk::No);
                        }
                        match idx {
                            None => Lane::Vector(None),
                            Some(_) => {
                                let xv = self.simd_vector(l, *x, vt(s))?;
                                if approx {
                                    match self.approx(inst, *op, s, xv) {
                                        Some(v) => Lane::Vector(Some(v)),
                                        None => return self.invalid("no inline approximation"),
                                    }
                                } else {
                                    Lane::Vector(Some(match (op, s) {
                                        (UnaryOp::Neg, Scalar::F32) => self.b.ins().fneg(xv),
                                        (UnaryOp::Neg, _) => self.b.ins().ineg(xv),
                                        (UnaryOp::Abs, _) => self.b.ins().fabs(xv),
                                        _ => self.b.ins().sqrt(xv),
                                    }))
                                }
                            }
                        }
                    }
                    _ => return Ok(Walk::No),
                },
                InstKind::Binary(op, a, b) => match (lane_of(env, *a), lane_of(env, *b)) {
                    (Some(Lane::Known(x)), Some(Lane::Known(y))) => match eval_binary(*op, x, y) {
                        Some(k) => Lane::Known(k),
                        None => return Ok(Walk::No),
                    },
                    (Some(la), Some(lb))
                        if !matches!(la, Lane::Tid) && !matches!(lb, Lane::Tid) =>
                    {
                        let (Some(s), Some(s2)) = (lane_scalar(*a), lane_scalar(*b)) else {
                            return Ok(Walk::No);
                        };
                        let ok = s == s2
                            && match s {
                                Scalar::F32 => {
                                    matches!(
                                        op,
                                        BinaryOp::Add
                                            | BinaryOp::Sub
                                            | BinaryOp::Mul
                                            | BinaryOp::Div
                                    )
                                }
                                _ => matches!(op, BinaryOp::Add | BinaryOp::Sub),
                            };
                        if !ok {
                            return Ok(Walk::No);
                        }
                        match idx {
                            None => Lane::Vector(None),
                            Some(_) => match self.simd_contract(inst, s, env)? {
                                Some(v) => Lane::Vector(Some(v)),
                                None => {
                                    let av = self.simd_vector(la, *a, vt(s))?;
                                    let bv = self.simd_vector(lb, *b, vt(s))?;
                                    let ins = self.b.ins();
                                    Lane::Vector(Some(match (op, s) {
                                        (BinaryOp::Add, Scalar::F32) => ins.fadd(av, bv),
                                        (BinaryOp::Sub, Scalar::F32) => ins.fsub(av, bv),
                                        (BinaryOp::Mul, _) => ins.fmul(av, bv),
                                        (BinaryOp::Div, _) => ins.fdiv(av, bv),
                                        (BinaryOp::Add, _) => ins.iadd(av, bv),
                                        _ => ins.isub(av, bv),
                                    }))
                                }
                            },
                        }
                    }
                    _ => return Ok(Walk::No),
                },
                InstKind::If {
                    cond,
                    then_region,
                    else_region,
                } => {
                    let Some(Lane::Known(c)) = lane_of(env, *cond) else {
                        return Ok(Walk::No);
                    };
                    let taken = if c.bits != 0 {
                        *then_region
                    } else {
                        *else_region
                    };
                    let Walk::Yield(ys) = self.simd_walk(taken, idx, env)? else {
                        return Ok(Walk::No);
                    };
                    let rs = &f.insts[inst].results;
                    if ys.len() != rs.len() {
                        return Ok(Walk::No);
                    }
                    for (&r, l) in rs.iter().zip(ys) {
                        env.insert(r, l);
                    }
                    continue;
                }
                InstKind::Yield(vs) => {
                    let mut ys = Vec::with_capacity(vs.len());
                    for &v in vs {
                        match lane_of(env, v) {
                            Some(l) => ys.push(l),
                            None => return Ok(Walk::No),
                        }
                    }
                    return Ok(Walk::Yield(ys));
                }
                InstKind::Return(vs) if vs.is_empty() && r == f.body => return Ok(Walk::Return),
                InstKind::Load(m) | InstKind::Store(m, _) => {
                    let (elem, ndim) = match f.value_type(m.array) {
                        Type::Array(weft_ir::ArrayType {
                            elem: ElemType::Scalar(s @ (Scalar::F32 | Scalar::I32)),
                            ndim,
                        }) => (s, ndim),
                        _ => return Ok(Walk::No),
                    };
                    // A 1-D array at `[tid]`, or a 1-D SoA parameter
                    // (`array(S, 2)`, plane axis last) at `[tid, plane]`
                    // with a constant plane.
                    let plane = match (ndim, m.indices.get(1).map(|&k| lane_of(env, k))) {
                        (1, None) => None,
                        (2, Some(Some(Lane::Known(c)))) if c.ty.is_int() && soa_1d(f, m.array) => {
                            Some(c.bits as i64)
                        }
                        _ => return Ok(Walk::No),
                    };
                    if !matches!(lane_of(env, m.array), Some(Lane::Param))
                        || !m.path.is_empty()
                        || m.indices.len() != ndim as usize
                        || !matches!(lane_of(env, m.indices[0]), Some(Lane::Tid))
                    {
                        return Ok(Walk::No);
                    }
                    let stored = match &f.insts[inst].kind {
                        InstKind::Store(_, x) => match (lane_of(env, *x), lane_scalar(*x)) {
                            (
                                Some(l @ (Lane::Known(_) | Lane::Param | Lane::Vector(_))),
                                Some(s),
                            ) if s == elem => Some((l, *x)),
                            _ => return Ok(Walk::No),
                        },
                        _ => None,
                    };
                    let Some(idx) = idx else {
                        if stored.is_none() {
                            if let Some(r) = res {
                                env.insert(r, Lane::Vector(None));
                            }
                        }
                        continue;
                    };
                    let leaves = self.get(m.array)?;
                    let off = self.b.ins().ishl_imm_u(idx, 2);
                    let mut addr = self.b.ins().iadd(leaves[0], off);
                    if let Some(k) = plane.filter(|&k| k != 0) {
                        // Leaves: data, shape[2], strides[2]; the plane stride last.
                        let po = self.b.ins().imul_imm_s(leaves[4], k);
                        addr = self.b.ins().iadd(addr, po);
                    }
                    match stored {
                        Some((l, x)) => {
                            let xv = self.simd_vector(l, x, vt(elem))?;
                            self.b.ins().store(flags, xv, addr, 0);
                            continue;
                        }
                        None => Lane::Vector(Some(self.b.ins().load(vt(elem), flags, addr, 0))),
                    }
                }
                _ => return Ok(Walk::No),
            };
            if let Some(r) = res {
                env.insert(r, lane);
            }
        }
        Ok(Walk::No)
    }

    /// A lane value as a vector: splats constants and params.
    fn simd_vector(&mut self, l: Lane, v: weft_ir::Value, ty: cl::Type) -> Result<cl::Value> {
        Ok(match l {
            Lane::Vector(Some(x)) => x,
            Lane::Known(c) => {
                let x = self.konst(c);
                self.b.ins().splat(ty, x)
            }
            Lane::Param => {
                let x = self.get1(v)?;
                self.b.ins().splat(ty, x)
            }
            _ => return self.invalid("no vector value"),
        })
    }

    /// Emits a thread loop over `start..end` from the current block:
    /// `unroll` threads per iteration while that many remain, then one at a
    /// time. `unit` maps array params (by index) to their innermost-stride
    /// leaf and its constant value in this version.
    fn thread_loop(
        &mut self,
        cx: &BodyCtx,
        start: cl::Value,
        unit: &HashMap<usize, (usize, u32)>,
        unroll: i64,
    ) -> Result<()> {
        let single = self.b.create_block();
        let tid = self.b.append_block_param(single, I64);
        let latch = self.b.create_block();
        let rest = self.b.create_block();
        let rest_i = self.b.append_block_param(rest, I64);
        if unroll > 1 {
            let multi = self.b.create_block();
            let base = self.b.append_block_param(multi, I64);
            let last = self.b.ins().iadd_imm_s(start, unroll);
            let c = self
                .b
                .ins()
                .icmp(IntCC::SignedLessThanOrEqual, last, cx.end);
            self.b.ins().brif(
                c,
                multi,
                &[BlockArg::Value(start)],
                rest,
                &[BlockArg::Value(start)],
            );
            self.switch_to(multi);
            for k in 0..unroll {
                let t = if k == 0 {
                    base
                } else {
                    self.b.ins().iadd_imm_s(base, k)
                };
                let next = self.b.create_block();
                self.body(cx, t, next, unit)?;
                self.switch_to(next);
            }
            let nb = self.b.ins().iadd_imm_s(base, unroll);
            let last = self.b.ins().iadd_imm_s(base, 2 * unroll);
            let c = self
                .b
                .ins()
                .icmp(IntCC::SignedLessThanOrEqual, last, cx.end);
            self.b.ins().brif(
                c,
                multi,
                &[BlockArg::Value(nb)],
                rest,
                &[BlockArg::Value(nb)],
            );
        } else {
            self.b.ins().jump(rest, &[BlockArg::Value(start)]);
        }
        self.switch_to(rest);
        let c = self.b.ins().icmp(IntCC::SignedLessThan, rest_i, cx.end);
        self.b
            .ins()
            .brif(c, single, &[BlockArg::Value(rest_i)], cx.exit, &[]);
        self.switch_to(single);
        self.body(cx, tid, latch, unit)?;
        self.switch_to(latch);
        let next = self.b.ins().iadd_imm_s(tid, 1);
        let c = self.b.ins().icmp(IntCC::SignedLessThan, next, cx.end);
        self.b
            .ins()
            .brif(c, single, &[BlockArg::Value(next)], cx.exit, &[]);
        Ok(())
    }

    /// Translates the kernel body for thread index `tid` (i64) into the
    /// current block; `return` jumps to `next`.
    fn body(
        &mut self,
        cx: &BodyCtx,
        tid: cl::Value,
        next: Block,
        unit: &HashMap<usize, (usize, u32)>,
    ) -> Result<()> {
        self.tid = Some(tid);
        self.label_tid(tid);
        self.ret = Ret::NextThread(next);
        // Division results of another copy of the body may not dominate.
        self.divs.clear();
        let thread_flags = MemFlagsData::trusted().with_readonly();
        if self.cx.debug {
            // Another copy of the body defined these: the hooks must not
            // read them.
            self.cx.debug_line = 0;
            for &inst in &self.f.regions[self.f.body].insts {
                for &v in &self.f.insts[inst].results {
                    if let Some(e) = self.map.get_mut(v.as_u32() as usize) {
                        *e = UNSET;
                    }
                }
            }
        }
        for (idx, &inst) in self.f.regions[self.f.body].insts.iter().enumerate() {
            if self.filled {
                return self.invalid("instruction after a terminator");
            }
            // Per-thread parameter loads belong to the statement using them.
            self.set_srcloc(self.f.insts[inst].loc);
            for &k in cx.per_thread.get(&idx).map(|v| v.as_slice()).unwrap_or(&[]) {
                let v = cx.params[k];
                self.load_param(v, cx.types[k], cx.args, cx.offsets[k], thread_flags)?;
                if let Some(&(li, esize)) = unit.get(&k) {
                    let mut l = self.get(v)?;
                    l[li] = self.b.ins().iconst(I64, esize as i64);
                    self.def(v, &l)?;
                }
            }
            if self.cx.debug {
                self.debug_before(inst)?;
            }
            self.inst(inst, None)?;
        }
        if !self.filled {
            return self.invalid("kernel body does not end in a terminator");
        }
        Ok(())
    }

    fn load_param(
        &mut self,
        v: weft_ir::Value,
        ty: Type,
        args: cl::Value,
        off: u32,
        flags: MemFlagsData,
    ) -> Result<()> {
        let slots = self.cx.flat(ty);
        let mut leaves = Vec::with_capacity(slots.len());
        for s in slots.iter() {
            leaves.push(self.load_slot(*s, args, off + s.offset, flags)?);
        }
        self.def(v, &leaves)?;
        Ok(())
    }

    /// Translates a func (see [`func_signature`]).
    pub fn func_into(&mut self) -> Result<()> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.switch_to(entry);
        let p = self.b.block_params(entry).to_vec();
        self.args_ptr = Some(p[0]);
        self.tid = Some(p[1]);
        self.label_tid(p[1]);
        let params = self.f.regions[self.f.body].params.clone();
        self.bind(&params, &p[2..])?;
        self.ret = Ret::Func;
        self.set_srcloc(self.f.loc);
        if self.cx.debug {
            self.debug_point(crate::debug::EventKind::Enter, self.f.loc)?;
        }
        self.region(self.f.body, None)?;
        self.b.seal_all_blocks();
        Ok(())
    }

    /// Debug info: tags the instructions emitted from now on with `loc`.
    fn set_srcloc(&mut self, loc: Loc) {
        if self.cx.debug_info {
            let s = self.cx.srcloc(loc);
            self.b.set_srcloc(s);
        }
    }

    /// Debug info: labels the leaves of `v` if it has a name (a region param
    /// only if no earlier param of its region has the same name, as in a
    /// loop's `(j, acc, j)`). Each IR value has labels of its own: Cranelift
    /// extends a label from each definition to the next one in code order,
    /// which is not program order around loops. A leaf that already belongs
    /// to another named value (`b = transpose(a)` reuses `a`'s leaves) is
    /// copied here (`bor x, x`, `fcopysign x, x`), so that each value starts
    /// where it is defined. Returns the leaves.
    fn debug_var(&mut self, v: weft_ir::Value, leaves: &[cl::Value]) -> Vec<cl::Value> {
        let f = self.f;
        let name = &f.value_names[v];
        let vd = &f.values[v];
        let shadowed = match vd.def {
            weft_ir::ValueDef::Param(r, k) => f
                .regions
                .get(r)
                .and_then(|rd| rd.params.get(..k as usize))
                .is_some_and(|ps| ps.iter().any(|&p| &f.value_names[p] == name)),
            weft_ir::ValueDef::Result(..) => false,
        };
        if name.is_empty() || shadowed {
            return leaves.to_vec();
        }
        let fk = std::ptr::from_ref(f) as usize;
        let leaves: Vec<cl::Value> = leaves
            .iter()
            .map(|&l| {
                if self.cx.labelled.insert((fk, l)) {
                    return l;
                }
                let c = if self.b.func.dfg.value_type(l).is_float() {
                    self.b.ins().fcopysign(l, l)
                } else {
                    self.b.ins().bor(l, l)
                };
                self.cx.labelled.insert((fk, c));
                c
            })
            .collect();
        self.label(v.as_u32(), name.clone(), vd.ty, &leaves);
        leaves
    }

    /// Debug info: labels `leaves` as the value `key` (an IR value, or
    /// `u32::MAX` for the thread index) of variable `name`.
    fn label(&mut self, key: u32, name: String, ty: Type, leaves: &[cl::Value]) {
        let f = std::ptr::from_ref(self.f) as usize;
        for (k, &l) in leaves.iter().enumerate() {
            let n = self.cx.labels.len() as u32;
            let id = *self.cx.label_ids.entry((f, key, k as u32)).or_insert(n);
            if id == n {
                self.cx.labels.push((f, name.clone(), ty, k as u32, key));
            }
            self.b.set_val_label(l, cl::ValueLabel::from_u32(id));
        }
    }

    /// Debug info: the thread index (`i64`) as variable `tid`, unless the
    /// kernel has its own `tid`.
    fn label_tid(&mut self, tid: cl::Value) {
        if self.cx.debug_info && !self.f.value_names.values().any(|n| n == "tid") {
            self.label(u32::MAX, "tid".into(), Type::Scalar(Scalar::I64), &[tid]);
        }
    }

    /// Finishes the builder.
    pub fn finish(self, cfg: cranelift_codegen::isa::TargetFrontendConfig) {
        self.b.finalize(cfg);
    }

    // ---- regions and instructions ----

    fn region(&mut self, r: Region, yield_to: Option<Block>) -> Result<()> {
        let Some(rd) = self.f.regions.get(r) else {
            return self.invalid(format!("no region {r}"));
        };
        self.div_scopes.push(Vec::new());
        if yield_to.is_none() {
            // A loop body (or a func body): each iteration starts with a
            // hook. `if` regions continue the enclosing statement.
            self.cx.debug_line = 0;
        }
        for &inst in &rd.insts {
            if self.filled {
                return self.invalid("instruction after a terminator");
            }
            if self.cx.debug {
                self.debug_before(inst)?;
            }
            self.inst(inst, yield_to)?;
        }
        for k in self.div_scopes.pop().unwrap_or_default() {
            self.divs.remove(&k);
        }
        if !self.filled {
            return self.invalid(format!("{r} does not end in a terminator"));
        }
        // Values of a region are not visible outside it: forget them, so a
        // malformed use elsewhere is an error rather than a Cranelift value
        // that does not dominate its use.
        for &v in rd.params.iter().chain(
            rd.insts
                .iter()
                .flat_map(|&i| self.f.insts[i].results.iter()),
        ) {
            if let Some(e) = self.map.get_mut(v.as_u32() as usize) {
                *e = UNSET;
            }
        }
        Ok(())
    }

    fn results(&self, inst: Inst) -> &'m [weft_ir::Value] {
        &self.f.insts[inst].results
    }

    fn def_result(&mut self, inst: Inst, leaves: &[cl::Value]) -> Result<()> {
        let rs = self.results(inst);
        self.bind(rs, leaves)
    }

    fn inst(&mut self, inst: Inst, yield_to: Option<Block>) -> Result<()> {
        let data = &self.f.insts[inst];
        self.loc = data.loc;
        self.set_srcloc(data.loc);
        let f = self.f;
        match &data.kind {
            InstKind::Const(c) => {
                let v = self.konst(*c);
                self.def_result(inst, &[v])
            }
            InstKind::Unary(op, x) => {
                let s = self.scalar_of(*x)?;
                let xv = self.get1(*x)?;
                let v = match self.approx(inst, *op, s, xv) {
                    Some(v) => v,
                    None => self.unary(*op, s, xv)?,
                };
                self.def_result(inst, &[v])
            }
            InstKind::Binary(op, a, b) => {
                let s = self.scalar_of(*a)?;
                if self.scalar_of(*b)? != s {
                    return self.invalid(format!("{op:?} operands of different types"));
                }
                let v = match self.contract(inst, s)? {
                    Some(v) => v,
                    None => {
                        let (av, bv) = (self.get1(*a)?, self.get1(*b)?);
                        self.binary(*op, s, av, bv)?
                    }
                };
                self.def_result(inst, &[v])
            }
            InstKind::Fma(a, b, c) => {
                let s = self.scalar_of(*a)?;
                if !s.is_float() {
                    return self.unsupported("fma on integers");
                }
                if self.scalar_of(*b)? != s || self.scalar_of(*c)? != s {
                    return self.invalid("fma operands of different types");
                }
                let (av, bv, cv) = (self.get1(*a)?, self.get1(*b)?, self.get1(*c)?);
                let v = self.b.ins().fma(av, bv, cv);
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
                self.cond(*c)?;
                if f.value_type(*a) != f.value_type(*b) {
                    return self.invalid("select of different types");
                }
                let cv = self.get1(*c)?;
                let (av, bv) = (self.get(*a)?, self.get(*b)?);
                if av.len() != bv.len() {
                    return self.invalid("select of different types");
                }
                let out: Vec<_> = av
                    .iter()
                    .zip(&bv)
                    .map(|(&x, &y)| self.b.ins().select(cv, x, y))
                    .collect();
                self.def_result(inst, &out)
            }
            InstKind::Make(_, parts) => {
                let mut out = Vec::new();
                for &p in parts {
                    out.extend(self.get(p)?);
                }
                self.def_result(inst, &out)
            }
            InstKind::Extract(agg, path) => {
                let ty = f.value_type(*agg);
                let Some((s, n, _)) = self.cx.path_range(ty, path) else {
                    return self.invalid("bad extract path");
                };
                let leaves = self.get(*agg)?;
                let Some(part) = leaves.get(s..s + n) else {
                    return self.invalid("bad extract path");
                };
                self.def_result(inst, part)
            }
            InstKind::Insert(agg, path, v) => {
                let ty = f.value_type(*agg);
                let Some((s, n, _)) = self.cx.path_range(ty, path) else {
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
                let Some(t) = self.tid else {
                    return self.invalid("thread id outside a kernel");
                };
                let v = self.b.ins().ireduce(I32, t);
                self.def_result(inst, &[v])
            }
            InstKind::LaunchDim(axis) => {
                let v = if *axis as usize >= layout::LAUNCH_BOUNDS_SIZE as usize / 4 {
                    self.b.ins().iconst(I32, 1)
                } else {
                    let Some(args) = self.args_ptr else {
                        return self.invalid("launch dim without an argument block");
                    };
                    self.b.ins().load(I32, arg_flags(), args, 4 * *axis as i32)
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
                let slots = self.cx.flat(ty);
                let mut out = Vec::with_capacity(slots.len());
                for s in slots.iter() {
                    out.push(self.load_slot(*s, addr, off + s.offset, mem_flags())?);
                }
                self.def_result(inst, &out)
            }
            InstKind::Store(m, v) => {
                let (addr, off, ty) = self.address(m)?;
                if f.value_type(*v) != ty {
                    return self.invalid("store of a value of the wrong type");
                }
                let slots = self.cx.flat(ty);
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
                let slots = self.cx.flat(ty);
                let vals = self.get(*v)?;
                let mut out = Vec::with_capacity(slots.len());
                for (s, &x) in slots.iter().zip(&vals) {
                    let SlotKind::Scalar(sc) = s.kind else {
                        return self.unsupported("atomic on an array handle");
                    };
                    let p = self.b.ins().iadd_imm_s(addr, (off + s.offset) as i64);
                    out.push(self.atomic(*op, sc, p, x)?);
                }
                self.def_result(inst, &out)
            }
            InstKind::Call(callee, args) => self.call(inst, *callee, args),
            InstKind::Print(fmt, args) => self.print(fmt, args),
            InstKind::If {
                cond,
                then_region,
                else_region,
            } => {
                let c = self.cond(*cond)?;
                let then_b = self.b.create_block();
                let else_b = self.b.create_block();
                let rtypes: Vec<Type> = self
                    .results(inst)
                    .iter()
                    .map(|&r| f.value_type(r))
                    .collect();
                let (merge, params) = self.block_with_params(&rtypes);
                self.b.ins().brif(c, then_b, &[], else_b, &[]);
                self.switch_to(then_b);
                self.region(*then_region, Some(merge))?;
                self.switch_to(else_b);
                self.region(*else_region, Some(merge))?;
                self.switch_to(merge);
                self.def_result(inst, &params)
            }
            InstKind::Loop { init, body } => {
                let mut iv = Vec::new();
                for &v in init {
                    iv.extend(self.get(v)?);
                }
                let Some(rd) = f.regions.get(*body) else {
                    return self.invalid("loop without a body");
                };
                let ptypes: Vec<Type> = rd.params.iter().map(|&p| f.value_type(p)).collect();
                let (header, hparams) = self.block_with_params(&ptypes);
                if hparams.len() != iv.len() {
                    return self.invalid("loop init does not match the body's params");
                }
                let rtypes: Vec<Type> = self
                    .results(inst)
                    .iter()
                    .map(|&r| f.value_type(r))
                    .collect();
                let (exit, eparams) = self.block_with_params(&rtypes);
                self.jump(header, &iv)?;
                self.switch_to(header);
                self.bind(&rd.params, &hparams)?;
                self.loops.push((header, exit));
                let r = self.region(*body, None);
                self.loops.pop();
                r?;
                self.switch_to(exit);
                self.def_result(inst, &eparams)
            }
            InstKind::Yield(vs) => {
                let Some(to) = yield_to else {
                    return self.invalid("yield outside an if");
                };
                let leaves = self.gather(vs)?;
                self.jump(to, &leaves)?;
                Ok(())
            }
            InstKind::Continue(vs) | InstKind::Break(vs) => {
                let Some(&(header, exit)) = self.loops.last() else {
                    return self.invalid("break/continue outside a loop");
                };
                let to = if matches!(data.kind, InstKind::Continue(_)) {
                    header
                } else {
                    exit
                };
                let leaves = self.gather(vs)?;
                self.jump(to, &leaves)?;
                Ok(())
            }
            InstKind::Return(vs) => {
                match self.ret {
                    Ret::NextThread(latch) => self.jump(latch, &[])?,
                    Ret::Func => {
                        let tys: Vec<Type> = vs.iter().map(|&v| f.value_type(v)).collect();
                        if tys != f.returns {
                            return self.invalid("returned values do not match the func's returns");
                        }
                        let leaves = self.gather(vs)?;
                        self.b.ins().return_(&leaves);
                        self.filled = true;
                    }
                }
                Ok(())
            }
            InstKind::Trap(kind, vs) => self.trap(*kind, vs, data.loc),
            // Instructions added to the IR after this backend: an error, not
            // a build break, until they are lowered here.
            #[allow(unreachable_patterns)]
            other => self.unsupported(format!("instruction {other:?}")),
        }
    }

    /// `Trap`: reports through [`crate::trap::weft_trap`], then ends the
    /// thread (kernel) or returns zeros (func).
    fn trap(&mut self, kind: weft_ir::TrapKind, vs: &[weft_ir::Value], loc: Loc) -> Result<()> {
        let ops = self.gather(vs)?;
        let code = self.b.ins().iconst(I32, kind.code() as i64);
        let file = self.b.ins().iconst(I32, loc.file as i64);
        let line = self.b.ins().iconst(I32, loc.line as i64);
        let col = self.b.ins().iconst(I32, loc.col as i64);
        let index = match ops.first() {
            Some(&v) => v,
            None => self.b.ins().iconst(I64, 0),
        };
        let size = match ops.get(1) {
            Some(&v) => v,
            None => self.b.ins().iconst(I64, 0),
        };
        self.call_shim(Shim::Trap, &[code, file, line, col, index, size])?;
        match self.ret {
            Ret::NextThread(latch) => self.jump(latch, &[])?,
            Ret::Func => {
                let tys: Vec<cl::Type> = self
                    .b
                    .func
                    .signature
                    .returns
                    .iter()
                    .map(|p| p.value_type)
                    .collect();
                let zeros: Vec<cl::Value> = tys
                    .into_iter()
                    .map(|t| match t {
                        F32 => self.b.ins().f32const(0.0),
                        F64 => self.b.ins().f64const(0.0),
                        t => self.b.ins().iconst(t, 0),
                    })
                    .collect();
                self.b.ins().return_(&zeros);
                self.filled = true;
            }
        }
        Ok(())
    }

    /// Debug build: a statement hook before the first instruction of each
    /// new source line, and a func-exit hook before a func's `return`.
    fn debug_before(&mut self, inst: Inst) -> Result<()> {
        let data = &self.f.insts[inst];
        let loc = data.loc;
        if matches!(data.kind, InstKind::Return(_)) {
            return match self.ret {
                Ret::Func => self.debug_point(crate::debug::EventKind::Exit, loc),
                Ret::NextThread(_) => Ok(()),
            };
        }
        if loc.is_none() || loc.line == self.cx.debug_line {
            return Ok(());
        }
        self.cx.debug_line = loc.line;
        self.debug_point(crate::debug::EventKind::Stmt, loc)
    }

    /// Debug build: calls `weft_debug_hook` with the named values visible
    /// here (the latest definition of each name; see [`crate::debug`]).
    fn debug_point(&mut self, kind: crate::debug::EventKind, loc: Loc) -> Result<()> {
        let mut latest: HashMap<&str, weft_ir::Value> = HashMap::new();
        for (v, name) in self.f.value_names.iter() {
            if name.is_empty()
                || self.f.values.get(v).is_none()
                || matches!(self.f.value_type(v), Type::Array(_))
                || self.get(v).is_err()
            {
                continue;
            }
            let e = latest.entry(name.as_str()).or_insert(v);
            if v > *e {
                *e = v;
            }
        }
        let mut vars: Vec<weft_ir::Value> = latest.into_values().collect();
        vars.sort();
        let Some(func) = self
            .cx
            .func_ids
            .iter()
            .find_map(|(&fid, _)| std::ptr::eq(&self.cx.m.funcs[fid], self.f).then_some(fid))
        else {
            return self.invalid("debug hook in an unknown function");
        };
        let mut desc = vec![
            crate::debug::kind_code(kind),
            func.as_u32(),
            loc.file,
            loc.line,
            loc.col,
            vars.len() as u32,
        ];
        let mut vals = Vec::new();
        for &v in &vars {
            let slots = self.cx.flat(self.f.value_type(v));
            let leaves = self.get(v)?;
            desc.extend([v.as_u32(), leaves.len() as u32]);
            for (s, &x) in slots.iter().zip(&leaves) {
                let SlotKind::Scalar(sc) = s.kind else {
                    return self.invalid("a named aggregate with an array handle");
                };
                vals.push(match sc {
                    Scalar::F64 => self.b.ins().bitcast(I64, MemFlagsData::new(), x),
                    Scalar::F16 | Scalar::F32 => {
                        let d = self.b.ins().fpromote(F64, x);
                        self.b.ins().bitcast(I64, MemFlagsData::new(), d)
                    }
                    Scalar::I64 | Scalar::U64 => x,
                    s if s.is_signed_int() => self.b.ins().sextend(I64, x),
                    _ => self.b.ins().uextend(I64, x),
                });
            }
        }
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (8 * vals.len().max(1)) as u32,
            3,
        ));
        for (i, &v) in vals.iter().enumerate() {
            self.b.ins().stack_store(I64, v, ss, (8 * i) as i32);
        }
        let vals_ptr = self.b.ins().stack_addr(I64, ss, 0);
        let bytes: Box<[u8]> = desc.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let desc_ptr = self.b.ins().iconst(I64, bytes.as_ptr() as i64);
        self.cx.data.push(bytes);
        let tid = match self.tid {
            Some(t) if self.b.func.dfg.value_type(t) == I64 => t,
            Some(t) => self.b.ins().sextend(I64, t),
            None => self.b.ins().iconst(I64, -1),
        };
        self.call_shim(Shim::DebugHook, &[desc_ptr, vals_ptr, tid])?;
        Ok(())
    }

    fn gather(&self, vs: &[weft_ir::Value]) -> Result<Vec<cl::Value>> {
        let mut out = Vec::new();
        for &v in vs {
            out.extend(self.get(v)?);
        }
        Ok(out)
    }

    fn call(&mut self, inst: Inst, callee: FuncId, args: &[weft_ir::Value]) -> Result<()> {
        let fref = match self.func_refs.get(&callee) {
            Some(&r) => r,
            None => {
                let Some(&id) = self.cx.func_ids.get(&callee) else {
                    return self.unsupported(format!("call to {callee}, which was not compiled"));
                };
                let r = self.module.declare_func_in_func(id, self.b.func);
                self.func_refs.insert(callee, r);
                r
            }
        };
        let callee_f = &self.cx.m.funcs[callee];
        if args.len() != callee_f.params.len()
            || args
                .iter()
                .zip(&callee_f.params)
                .any(|(&a, p)| self.f.value_type(a) != p.ty)
        {
            return self.invalid(format!(
                "call arguments do not match the params of `{}`",
                callee_f.name
            ));
        }
        let (Some(a), Some(t)) = (self.args_ptr, self.tid) else {
            return self.invalid("call without a thread context");
        };
        let mut cargs = vec![a, t];
        cargs.extend(self.gather(args)?);
        let call = self.b.ins().call(fref, &cargs);
        let rs = self.b.inst_results(call).to_vec();
        self.def_result(inst, &rs)
    }

    fn print(&mut self, fmt: &str, args: &[weft_ir::Value]) -> Result<()> {
        // Each leaf: its scalar type (index into `Scalar::ALL`) and its
        // value encoded as a `Const`'s bits (see `shims::print`).
        let mut kinds = Vec::new();
        let mut vals = Vec::new();
        for &a in args {
            let slots = self.cx.flat(self.f.value_type(a));
            let leaves = self.get(a)?;
            for (s, &x) in slots.iter().zip(&leaves) {
                let sc = match s.kind {
                    SlotKind::Scalar(sc) => sc,
                    SlotKind::Data => Scalar::U64,
                    SlotKind::Shape(_) => Scalar::I32,
                    SlotKind::Stride(_) => Scalar::I64,
                };
                let v = match sc {
                    Scalar::F64 | Scalar::I64 | Scalar::U64 => x,
                    Scalar::F16 | Scalar::F32 => self.b.ins().fpromote(F64, x),
                    s if s.is_signed_int() => self.b.ins().sextend(I64, x),
                    _ => self.b.ins().uextend(I64, x),
                };
                let idx = Scalar::ALL.iter().position(|&t| t == sc).unwrap_or(0);
                kinds.push(idx as u8);
                vals.push(v);
            }
        }
        let n = vals.len();
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (8 * n.max(1)) as u32,
            3,
        ));
        for (i, &v) in vals.iter().enumerate() {
            self.b.ins().stack_store(I64, v, ss, (8 * i) as i32);
        }
        let vals_ptr = self.b.ins().stack_addr(I64, ss, 0);
        let fmt_bytes: Box<[u8]> = fmt.as_bytes().into();
        let kinds: Box<[u8]> = kinds.into();
        let fmt_ptr = self.b.ins().iconst(I64, fmt_bytes.as_ptr() as i64);
        let fmt_len = self.b.ins().iconst(I64, fmt_bytes.len() as i64);
        let kinds_ptr = self.b.ins().iconst(I64, kinds.as_ptr() as i64);
        let count = self.b.ins().iconst(I64, n as i64);
        self.cx.data.push(fmt_bytes);
        self.cx.data.push(kinds);
        self.call_shim(Shim::Print, &[fmt_ptr, fmt_len, kinds_ptr, vals_ptr, count])?;
        Ok(())
    }

    // ---- memory ----

    /// Base address of `array[indices]`, the byte offset of `path` inside the
    /// element, and the accessed type.
    fn address(&mut self, m: &MemAccess) -> Result<(cl::Value, u32, Type)> {
        let Type::Array(at) = self.f.value_type(m.array) else {
            return self.invalid("memory access on a non-array");
        };
        if m.indices.len() != at.ndim as usize {
            return self.invalid("index count differs from the array's ndim");
        }
        let leaves = self.get(m.array)?;
        let nd = at.ndim as usize;
        let mut addr = leaves[0];
        for (k, &ix) in m.indices.iter().enumerate() {
            let s = self.scalar_of(ix)?;
            let iv = self.get1(ix)?;
            let iv = match s {
                Scalar::I64 | Scalar::U64 => iv,
                s if s.is_signed_int() => self.b.ins().sextend(I64, iv),
                s if s.is_int() || s == Scalar::Bool => self.b.ins().uextend(I64, iv),
                _ => return self.invalid("float array index"),
            };
            let off = self.b.ins().imul(iv, leaves[1 + nd + k]);
            addr = self.b.ins().iadd(addr, off);
        }
        let Some((off, ty)) = layout::path_offset(at.elem.into(), &m.path, &self.cx.m.structs)
        else {
            return self.invalid("bad component path in a memory access");
        };
        Ok((addr, off, ty))
    }

    fn load_slot(
        &mut self,
        s: Slot,
        addr: cl::Value,
        off: u32,
        flags: MemFlagsData,
    ) -> Result<cl::Value> {
        let off = off as i32;
        Ok(match s.kind {
            SlotKind::Scalar(Scalar::Bool) => {
                let v = self.b.ins().load(I8, flags, addr, off);
                self.b.ins().icmp_imm_u(IntCC::NotEqual, v, 0)
            }
            SlotKind::Scalar(Scalar::F16) => {
                let v = self.b.ins().uload16(I32, flags, addr, off);
                self.call_shim1(Shim::F16BitsToF32, &[v])?
            }
            _ => self.b.ins().load(slot_cty(s), flags, addr, off),
        })
    }

    fn store_slot(&mut self, s: Slot, v: cl::Value, addr: cl::Value, off: u32) -> Result<()> {
        let off = off as i32;
        if s.kind == SlotKind::Scalar(Scalar::F16) {
            let bits = self.call_shim1(Shim::F32ToF16Bits, &[v])?;
            self.b.ins().istore16(mem_flags(), bits, addr, off);
        } else {
            self.b.ins().store(mem_flags(), v, addr, off);
        }
        Ok(())
    }

    fn atomic(&mut self, op: AtomicOp, s: Scalar, p: cl::Value, x: cl::Value) -> Result<cl::Value> {
        let signed = s.is_signed_int();
        if !s.is_float() {
            let rmw = match op {
                AtomicOp::Add => AtomicRmwOp::Add,
                AtomicOp::Sub => AtomicRmwOp::Sub,
                AtomicOp::And => AtomicRmwOp::And,
                AtomicOp::Or => AtomicRmwOp::Or,
                AtomicOp::Xor => AtomicRmwOp::Xor,
                AtomicOp::Exchange => AtomicRmwOp::Xchg,
                AtomicOp::Min if signed => AtomicRmwOp::Smin,
                AtomicOp::Max if signed => AtomicRmwOp::Smax,
                AtomicOp::Min => AtomicRmwOp::Umin,
                AtomicOp::Max => AtomicRmwOp::Umax,
            };
            return Ok(self.b.ins().atomic_rmw(cty(s), mem_flags(), rmw, p, x));
        }
        let it = match s {
            Scalar::F16 => I16,
            Scalar::F32 => I32,
            _ => I64,
        };
        let to_bits = |tx: &mut Self, v: cl::Value| -> Result<cl::Value> {
            if s == Scalar::F16 {
                let b = tx.call_shim1(Shim::F32ToF16Bits, &[v])?;
                Ok(tx.b.ins().ireduce(I16, b))
            } else {
                Ok(tx.b.ins().bitcast(it, MemFlagsData::new(), v))
            }
        };
        let from_bits = |tx: &mut Self, v: cl::Value| -> Result<cl::Value> {
            if s == Scalar::F16 {
                let w = tx.b.ins().uextend(I32, v);
                tx.call_shim1(Shim::F16BitsToF32, &[w])
            } else {
                Ok(tx.b.ins().bitcast(cty(s), MemFlagsData::new(), v))
            }
        };
        if op == AtomicOp::Exchange {
            let xb = to_bits(self, x)?;
            let old = self
                .b
                .ins()
                .atomic_rmw(it, mem_flags(), AtomicRmwOp::Xchg, p, xb);
            return from_bits(self, old);
        }
        // Compare-and-swap loop.
        let init = self.b.ins().atomic_load(it, mem_flags(), p);
        let lp = self.b.create_block();
        let expected = self.b.append_block_param(lp, it);
        let done = self.b.create_block();
        self.jump(lp, &[init])?;
        self.switch_to(lp);
        let old = from_bits(self, expected)?;
        let new = match op {
            AtomicOp::Add => self.binary(BinaryOp::Add, s, old, x)?,
            AtomicOp::Sub => self.binary(BinaryOp::Sub, s, old, x)?,
            AtomicOp::Min => self.binary(BinaryOp::Min, s, old, x)?,
            AtomicOp::Max => self.binary(BinaryOp::Max, s, old, x)?,
            _ => return self.unsupported(format!("atomic {op:?} on floats")),
        };
        let nb = to_bits(self, new)?;
        let prev = self.b.ins().atomic_cas(mem_flags(), p, expected, nb);
        let ok = self.b.ins().icmp(IntCC::Equal, prev, expected);
        self.b
            .ins()
            .brif(ok, done, &[], lp, &[BlockArg::Value(prev)]);
        self.switch_to(done);
        Ok(old)
    }

    // ---- scalar operations ----

    fn konst(&mut self, c: weft_ir::Const) -> cl::Value {
        match c.ty {
            Scalar::F16 | Scalar::F32 | Scalar::F64
                if (matches!(self.ret, Ret::NextThread(_)) || !self.loops.is_empty())
                    && f64::from_bits(c.bits) != 0.0 =>
            {
                // Inside a loop (a kernel body is inside the thread loop), a
                // non-zero float constant is a read-only load from the
                // artifact's constant pool: Cranelift hoists the load out of
                // the loop, where an `f32const` would be rematerialized
                // (through a general register) on every iteration.
                let v = f64::from_bits(c.bits);
                let (bytes, ty): (Box<[u8]>, _) = if c.ty == Scalar::F64 {
                    (v.to_le_bytes().into(), F64)
                } else {
                    ((v as f32).to_le_bytes().into(), F32)
                };
                let addr = self.b.ins().iconst(I64, bytes.as_ptr() as i64);
                self.cx.data.push(bytes);
                self.b.ins().load(ty, arg_flags(), addr, 0)
            }
            Scalar::F16 | Scalar::F32 => self.b.ins().f32const(f64::from_bits(c.bits) as f32),
            Scalar::F64 => self.b.ins().f64const(f64::from_bits(c.bits)),
            Scalar::I64 | Scalar::U64 => self.b.ins().iconst(I64, c.bits as i64),
            s => {
                let mask = (1u64 << (8 * s.size())) - 1;
                self.b.ins().iconst(cty(s), (c.bits & mask) as i64)
            }
        }
    }

    fn fconst(&mut self, s: Scalar, v: f64) -> cl::Value {
        if cty(s) == F64 {
            self.b.ins().f64const(v)
        } else {
            self.b.ins().f32const(v as f32)
        }
    }

    /// The `f32` transcendental `op` of `inst` on `x` (a scalar or
    /// `f32x4` lanes) as inline code ([`crate::fastmath`]) when the
    /// instruction allows approximate functions and the function inlines
    /// them (`inline_approx`); `None` otherwise.
    fn approx(&mut self, inst: Inst, op: UnaryOp, s: Scalar, x: cl::Value) -> Option<cl::Value> {
        if !self.inline_approx {
            return None;
        }
        let flags = self.f.insts[inst].flags;
        let func = MathFn::of_unary(op).filter(|&f| crate::fastmath::approximates(f))?;
        if s != Scalar::F32 || !flags.contains(weft_ir::MathFlags::APPROX_FUNC) {
            return None;
        }
        let fused = self.host_fma && flags.contains(weft_ir::MathFlags::CONTRACT);
        crate::fastmath::emit_cl(&mut self.b, func, x, fused)
    }

    fn unary(&mut self, op: UnaryOp, s: Scalar, x: cl::Value) -> Result<cl::Value> {
        use UnaryOp::*;
        let fl = s.is_float();
        let uf = |f: MathFn| {
            if s == Scalar::F64 {
                Shim::F64Unary(f)
            } else {
                Shim::F32Unary(f)
            }
        };
        let shim_fn = MathFn::of_unary(op);
        if let Some(func) = shim_fn {
            if !fl {
                return self.unsupported(format!("{op:?} on {s}"));
            }
            let v = self.call_shim1(uf(func), &[x])?;
            return self.r16(s, v);
        }
        let ins = self.b.ins();
        Ok(match op {
            Neg if fl => ins.fneg(x),
            Neg if s.is_int() => ins.ineg(x),
            Not if s == Scalar::Bool => ins.bxor_imm_u(x, 1),
            Not if s.is_int() => ins.bnot(x),
            Abs if fl => ins.fabs(x),
            Abs if s.is_signed_int() => ins.iabs(x),
            Abs if s.is_unsigned_int() => x,
            Sqrt if fl => {
                let v = ins.sqrt(x);
                self.r16(s, v)?
            }
            Floor if fl => ins.floor(x),
            Ceil if fl => ins.ceil(x),
            Trunc if fl => ins.trunc(x),
            Rint if fl => ins.nearest(x),
            Floor | Ceil | Trunc | Rint | Round if s.is_int() => x,
            Round if fl => {
                // Half away from zero: trunc, then step away when the
                // fraction is at least one half (x - trunc(x) is exact).
                let t = ins.trunc(x);
                let d = self.b.ins().fsub(x, t);
                let d = self.b.ins().fabs(d);
                let half = self.fconst(s, 0.5);
                let one = self.fconst(s, 1.0);
                let step = self.b.ins().fcopysign(one, x);
                let away = self.b.ins().fadd(t, step);
                let c = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, d, half);
                self.b.ins().select(c, away, t)
            }
            Popcount if s.is_int() => ins.popcnt(x),
            IsNan if fl => ins.fcmp(FloatCC::Unordered, x, x),
            IsInf | IsFinite if fl => {
                let a = ins.fabs(x);
                let inf = self.fconst(s, f64::INFINITY);
                let cc = if op == IsInf {
                    FloatCC::Equal
                } else {
                    FloatCC::LessThan
                };
                self.b.ins().fcmp(cc, a, inf)
            }
            IsNan | IsInf => ins.iconst(I8, 0),
            IsFinite => ins.iconst(I8, 1),
            _ => return self.unsupported(format!("{op:?} on {s}")),
        })
    }

    fn binary(&mut self, op: BinaryOp, s: Scalar, a: cl::Value, b: cl::Value) -> Result<cl::Value> {
        if s.is_float() {
            self.float_binary(op, s, a, b)
        } else {
            self.int_binary(op, s, a, b)
        }
    }

    fn float_binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: cl::Value,
        b: cl::Value,
    ) -> Result<cl::Value> {
        use BinaryOp::*;
        let bf = |f: MathFn| {
            if s == Scalar::F64 {
                Shim::F64Binary(f)
            } else {
                Shim::F32Binary(f)
            }
        };
        let cmp = |cc: FloatCC, tx: &mut Self| tx.b.ins().fcmp(cc, a, b);
        let v = match op {
            Add => self.b.ins().fadd(a, b),
            Sub => self.b.ins().fsub(a, b),
            Mul => self.b.ins().fmul(a, b),
            Div => self.b.ins().fdiv(a, b),
            Rem => self.call_shim1(bf(MathFn::Fmod), &[a, b])?,
            Pow => self.call_shim1(bf(MathFn::Pow), &[a, b])?,
            Atan2 => self.call_shim1(bf(MathFn::Atan2), &[a, b])?,
            Min | Max => {
                // C fmin/fmax: a NaN operand is ignored.
                let m = if op == Min {
                    self.b.ins().fmin(a, b)
                } else {
                    self.b.ins().fmax(a, b)
                };
                let a_nan = self.b.ins().fcmp(FloatCC::Unordered, a, a);
                let b_nan = self.b.ins().fcmp(FloatCC::Unordered, b, b);
                let m = self.b.ins().select(a_nan, b, m);
                return Ok(self.b.ins().select(b_nan, a, m));
            }
            Copysign => return Ok(self.b.ins().fcopysign(a, b)),
            Eq => return Ok(cmp(FloatCC::Equal, self)),
            Ne => return Ok(cmp(FloatCC::NotEqual, self)),
            Lt => return Ok(cmp(FloatCC::LessThan, self)),
            Le => return Ok(cmp(FloatCC::LessThanOrEqual, self)),
            Gt => return Ok(cmp(FloatCC::GreaterThan, self)),
            Ge => return Ok(cmp(FloatCC::GreaterThanOrEqual, self)),
            And | Or | Xor | Shl | Shr => return self.unsupported(format!("{op:?} on {s}")),
        };
        self.r16(s, v)
    }

    /// Quotient and remainder of `a / b` without traps: `x / 0 = 0`,
    /// `x % 0 = 0`, `MIN / -1` wraps, `MIN % -1 = 0`. One division serves
    /// both (the remainder is `a - q·b`), and a pair already computed in a
    /// dominating region is reused: the 2-D/3-D thread index decomposition
    /// divides and takes the remainder by the same launch dim.
    fn div_rem(
        &mut self,
        signed: bool,
        t: cl::Type,
        a: cl::Value,
        b: cl::Value,
    ) -> (cl::Value, cl::Value) {
        if let Some(&qr) = self.divs.get(&(a, b, signed)) {
            return qr;
        }
        let zero = self.b.ins().icmp_imm_u(IntCC::Equal, b, 0);
        let one = self.b.ins().iconst(t, 1);
        let zv = self.b.ins().iconst(t, 0);
        let qr = if signed {
            let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
            let bad = self.b.ins().bor(zero, m1);
            let safe = self.b.ins().select(bad, one, b);
            let raw = self.b.ins().sdiv(a, safe);
            let prod = self.b.ins().imul(raw, safe);
            let r = self.b.ins().isub(a, prod);
            let neg = self.b.ins().ineg(a);
            let q = self.b.ins().select(m1, neg, raw);
            (self.b.ins().select(zero, zv, q), r)
        } else {
            let safe = self.b.ins().select(zero, one, b);
            let raw = self.b.ins().udiv(a, safe);
            let prod = self.b.ins().imul(raw, safe);
            let r = self.b.ins().isub(a, prod);
            (self.b.ins().select(zero, zv, raw), r)
        };
        self.divs.insert((a, b, signed), qr);
        if let Some(scope) = self.div_scopes.last_mut() {
            scope.push((a, b, signed));
        }
        qr
    }

    fn int_binary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: cl::Value,
        b: cl::Value,
    ) -> Result<cl::Value> {
        use BinaryOp::*;
        let signed = s.is_signed_int();
        let t = cty(s);
        let is_bool = s == Scalar::Bool;
        let cc = |sc: IntCC, uc: IntCC| if signed { sc } else { uc };
        let ins = self.b.ins();
        Ok(match op {
            Add if !is_bool => ins.iadd(a, b),
            Sub if !is_bool => ins.isub(a, b),
            Mul if !is_bool => ins.imul(a, b),
            Div | Rem if !is_bool => {
                let (q, r) = self.div_rem(signed, t, a, b);
                if op == Div {
                    q
                } else {
                    r
                }
            }
            Min if signed => ins.smin(a, b),
            Max if signed => ins.smax(a, b),
            Min => ins.umin(a, b),
            Max => ins.umax(a, b),
            And => ins.band(a, b),
            Or => ins.bor(a, b),
            Xor => ins.bxor(a, b),
            Shl if !is_bool => ins.ishl(a, b),
            Shr if signed => ins.sshr(a, b),
            Shr if !is_bool => ins.ushr(a, b),
            Eq => ins.icmp(IntCC::Equal, a, b),
            Ne => ins.icmp(IntCC::NotEqual, a, b),
            Lt => ins.icmp(cc(IntCC::SignedLessThan, IntCC::UnsignedLessThan), a, b),
            Le => ins.icmp(
                cc(IntCC::SignedLessThanOrEqual, IntCC::UnsignedLessThanOrEqual),
                a,
                b,
            ),
            Gt => ins.icmp(
                cc(IntCC::SignedGreaterThan, IntCC::UnsignedGreaterThan),
                a,
                b,
            ),
            Ge => ins.icmp(
                cc(
                    IntCC::SignedGreaterThanOrEqual,
                    IntCC::UnsignedGreaterThanOrEqual,
                ),
                a,
                b,
            ),
            _ => return self.unsupported(format!("{op:?} on {s}")),
        })
    }

    fn cast(&mut self, from: Scalar, to: Scalar, x: cl::Value) -> Result<cl::Value> {
        if from == to {
            return Ok(x);
        }
        let (ft, tt) = (cty(from), cty(to));
        if to == Scalar::Bool {
            return Ok(if from.is_float() {
                let z = self.fconst(from, 0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, x, z)
            } else {
                self.b.ins().icmp_imm_u(IntCC::NotEqual, x, 0)
            });
        }
        if !from.is_float() && !to.is_float() {
            // int/bool -> int: wrap or extend by the source's signedness.
            return Ok(match ft.bits().cmp(&tt.bits()) {
                std::cmp::Ordering::Equal => x,
                std::cmp::Ordering::Greater => self.b.ins().ireduce(tt, x),
                std::cmp::Ordering::Less if from.is_signed_int() => self.b.ins().sextend(tt, x),
                std::cmp::Ordering::Less => self.b.ins().uextend(tt, x),
            });
        }
        if !from.is_float() {
            // int/bool -> float. f16 goes through f64 so it is rounded once.
            let x = if ft.bits() < 32 {
                if from.is_signed_int() {
                    self.b.ins().sextend(I32, x)
                } else {
                    self.b.ins().uextend(I32, x)
                }
            } else {
                x
            };
            let target = if to == Scalar::F16 { F64 } else { tt };
            let v = if from.is_signed_int() {
                self.b.ins().fcvt_from_sint(target, x)
            } else {
                self.b.ins().fcvt_from_uint(target, x)
            };
            return if to == Scalar::F16 {
                self.call_shim1(Shim::F64ToF16, &[v])
            } else {
                Ok(v)
            };
        }
        if to.is_float() {
            return match (from, to) {
                (Scalar::F16, Scalar::F32) => Ok(x),
                (_, Scalar::F64) => Ok(self.b.ins().fpromote(F64, x)),
                (Scalar::F64, Scalar::F32) => Ok(self.b.ins().fdemote(F32, x)),
                (Scalar::F32, Scalar::F16) => self.call_shim1(Shim::RoundF16, &[x]),
                _ => self.call_shim1(Shim::F64ToF16, &[x]),
            };
        }
        // float -> int: truncate, saturate, NaN -> 0.
        Ok(match to {
            Scalar::I32 | Scalar::I64 => self.b.ins().fcvt_to_sint_sat(tt, x),
            Scalar::U32 | Scalar::U64 => self.b.ins().fcvt_to_uint_sat(tt, x),
            _ => {
                let (lo, hi) = match to {
                    Scalar::I8 => (i8::MIN as i64, i8::MAX as i64),
                    Scalar::I16 => (i16::MIN as i64, i16::MAX as i64),
                    Scalar::U8 => (0, u8::MAX as i64),
                    _ => (0, u16::MAX as i64),
                };
                let v = self.b.ins().fcvt_to_sint_sat(I32, x);
                let lo = self.b.ins().iconst(I32, lo & 0xffff_ffff);
                let hi = self.b.ins().iconst(I32, hi);
                let v = self.b.ins().smax(v, lo);
                let v = self.b.ins().smin(v, hi);
                self.b.ins().ireduce(tt, v)
            }
        })
    }

    fn bitcast(&mut self, from: Scalar, to: Scalar, x: cl::Value) -> Result<cl::Value> {
        if from.size() != to.size() || from == Scalar::Bool || to == Scalar::Bool {
            return self.invalid(format!("bitcast from {from} to {to}"));
        }
        if from == to || (!from.is_float() && !to.is_float()) {
            return Ok(x);
        }
        if from == Scalar::F16 {
            let b = self.call_shim1(Shim::F32ToF16Bits, &[x])?;
            return Ok(self.b.ins().ireduce(I16, b));
        }
        if to == Scalar::F16 {
            let w = self.b.ins().uextend(I32, x);
            return self.call_shim1(Shim::F16BitsToF32, &[w]);
        }
        Ok(self.b.ins().bitcast(cty(to), MemFlagsData::new(), x))
    }
}
