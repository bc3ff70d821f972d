//! Lowering of Weft's IR to Cranelift: the translation of one IR function
//! into a Cranelift function.
//!
//! See the crate docs for the mapping. Every IR value is a run of Cranelift
//! values, one per [`Slot`] of its type, stored in one pool per function.
//!
//! This module holds the module-wide state ([`ModCtx`]) and the
//! per-function translator ([`FnTx`]) with the helpers every piece uses:
//! the value map (`def`/`get`), blocks and jumps, and errors
//! (`unsupported`/`invalid`). The translator's methods are spread over
//! the pieces, named as in the PTX and HLSL backends:
//!
//! * [`frame`]: kernel and func signatures, parameter placement and
//!   loading, the thread loops (general and unit-stride), calls;
//! * [`instructions`]: the per-instruction dispatch, structured control
//!   flow, aggregates, constants, `print`;
//! * [`memory`]: addresses, loads and stores of slots, atomics;
//! * [`arithmetic`]: unary/binary operations, comparisons, casts and
//!   bitcasts, integer division guards, FMA contraction;
//! * [`math`]: shim calls, `f16` rounding, inline fast-math
//!   approximations;
//! * [`debug`]: debugger statement hooks, value labels and source
//!   locations for gdb, traps;
//! * [`reduce`]: atomics into one address accumulated per thread range;
//! * [`simd`]: the SIMD stage of the unit-stride thread loop (CPU only).

use crate::shims::Shim;
use crate::Error;
use cranelift_codegen::ir::types::{F32, F64, I16, I32, I64, I8};
use cranelift_codegen::ir::{self as cl, Block, BlockArg, InstBuilder};
use cranelift_codegen::isa::TargetIsa;
use cranelift_frontend::FunctionBuilder;
use cranelift_module::ModuleDeclarations;
use std::collections::HashMap;
use std::rc::Rc;
use weft_ir::{layout, FuncId, Loc, Scalar, Type};

mod arithmetic;
mod debug;
mod frame;
mod instructions;
mod math;
mod memory;
mod reduce;
mod simd;

pub(crate) use frame::{func_signature, kernel_signature};

type Result<T> = std::result::Result<T, Error>;

pub(crate) use weft_ir::layout::{Slot, SlotKind};

/// The Cranelift type that holds an IR scalar in a register. `bool` is an
/// `i8` holding 0 or 1; `f16` and `bf16` are `f32`s holding a representable value.
pub(crate) fn cty(s: Scalar) -> cl::Type {
    match s {
        Scalar::Bool | Scalar::I8 | Scalar::U8 => I8,
        Scalar::I16 | Scalar::U16 => I16,
        Scalar::I32 | Scalar::U32 => I32,
        Scalar::I64 | Scalar::U64 => I64,
        Scalar::F16 | Scalar::F32 | Scalar::BF16 => F32,
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

/// What the translation of every function reads and none writes: the
/// module, the Cranelift ids of the shims and functions declared for it,
/// the options. Shared by the functions translated in parallel.
pub(crate) struct ModDecls<'m> {
    pub m: &'m weft_ir::Module,
    pub shim_ids: HashMap<Shim, cranelift_module::FuncId>,
    pub func_ids: HashMap<FuncId, cranelift_module::FuncId>,
    /// Debug build: statement hooks ([`weft_abi::debug`]), no SIMD stage or
    /// thread-loop unrolling.
    pub debug: bool,
    /// Debug info for gdb ([`crate::gdbjit`]): every emitted instruction
    /// carries a `SourceLoc` indexing the function's `srclocs`; one thread
    /// loop only.
    pub debug_info: bool,
    /// Cancel checks at loop back-edges ([`crate::Options::cancel_checks`]).
    pub cancel_checks: bool,
}

/// The state of one function's translation: the shared declarations
/// ([`ModDecls`]) and what the function adds (data, source locations and
/// value labels, indexed per function).
pub(crate) struct ModCtx<'m> {
    pub m: &'m weft_ir::Module,
    flat_cache: HashMap<Type, Rc<[Slot]>>,
    pub shim_ids: &'m HashMap<Shim, cranelift_module::FuncId>,
    pub func_ids: &'m HashMap<FuncId, cranelift_module::FuncId>,
    /// Bytes the generated code points at (print formats), kept alive by the
    /// artifact.
    pub data: Vec<Box<[u8]>>,
    /// [`ModDecls::debug`].
    pub debug: bool,
    /// Debug build: the source line of the last statement hook emitted in
    /// the current region walk (0: none).
    pub debug_line: u32,
    /// [`ModDecls::debug_info`].
    pub debug_info: bool,
    /// [`ModDecls::cancel_checks`].
    pub cancel_checks: bool,
    pub srclocs: Vec<Loc>,
    srcloc_ids: HashMap<Loc, u32>,
    /// Debug info: what each Cranelift `ValueLabel` stands for: `(function
    /// (its address), variable name, type, leaf index, value key)`.
    pub labels: Vec<(usize, String, Type, u32, u32)>,
    label_ids: HashMap<(usize, u32, u32), u32>,
    /// Debug info: the Cranelift values labelled so far.
    labelled: std::collections::HashSet<(usize, cl::Value)>,
}

impl<'m> ModCtx<'m> {
    pub fn new(d: &'m ModDecls<'_>) -> Self {
        ModCtx {
            m: d.m,
            flat_cache: HashMap::new(),
            shim_ids: &d.shim_ids,
            func_ids: &d.func_ids,
            data: Vec::new(),
            debug: d.debug,
            debug_line: 0,
            debug_info: d.debug_info,
            cancel_checks: d.cancel_checks,
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
    /// The module's declarations (functions and shims to import).
    decls: &'a ModuleDeclarations,
    isa: &'a dyn TargetIsa,
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
    /// The kernel's atomics accumulated per thread range ([`reduce`]).
    reductions: HashMap<weft_ir::Inst, reduce::Reduction>,
}

const UNSET: (u32, u32) = (u32::MAX, 0);

impl<'a, 'b, 'm> FnTx<'a, 'b, 'm> {
    pub fn new(
        cx: &'a mut ModCtx<'m>,
        (decls, isa): (&'a ModuleDeclarations, &'a dyn TargetIsa),
        f: &'m weft_ir::Function,
        b: FunctionBuilder<'b>,
    ) -> Self {
        FnTx {
            cx,
            decls,
            isa,
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
            reductions: HashMap::new(),
        }
        .with_host_fma()
    }

    fn unsupported<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(Error::Unsupported {
            what: what.into(),
            pos: self.cx.m.source_pos(self.loc),
        })
    }

    fn invalid<T>(&self, what: impl Into<String>) -> Result<T> {
        Err(Error::Invalid {
            what: what.into(),
            pos: self.cx.m.source_pos(self.loc),
        })
    }

    /// A reference from the function being built to the declared function
    /// `id` (what `Module::declare_func_in_func` does, from the
    /// declarations alone, so that functions can be built in parallel).
    ///
    /// Never `colocated`, not even for the module's own functions: the JIT
    /// maps each chunk of code on its own, and a colocated call is a 32-bit
    /// PC-relative relocation, which fails (a panic inside
    /// `cranelift-jit`) when another mapping lands between two chunks and
    /// they end up more than 2 GiB apart (seen under AddressSanitizer, and
    /// possible whenever another thread maps large arrays meanwhile). A
    /// call through the 64-bit address costs an instruction; by default
    /// -O1 and -O2 inline every func, so no call is left there.
    fn import_func(&mut self, id: cranelift_module::FuncId) -> cl::FuncRef {
        let decl = self.decls.get_function_decl(id);
        let func = &mut *self.b.func;
        let signature = func.import_signature(decl.signature.clone());
        let name = func.declare_imported_user_function(cl::UserExternalName {
            namespace: 0,
            index: id.as_u32(),
        });
        func.import_function(cl::ExtFuncData {
            name: cl::ExternalName::user(name),
            signature,
            colocated: false,
            patchable: false,
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

    fn gather(&self, vs: &[weft_ir::Value]) -> Result<Vec<cl::Value>> {
        let mut out = Vec::new();
        for &v in vs {
            out.extend(self.get(v)?);
        }
        Ok(out)
    }
}
