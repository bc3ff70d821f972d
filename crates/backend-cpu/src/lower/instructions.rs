//! The per-instruction dispatch (`inst`, `region`, results): structured
//! control flow (`if`/`loop`/`yield`/`break`/`continue`/`return`),
//! aggregates (make/extract/insert/select), constants and `print`.

use crate::shims::Shim;
use cranelift_codegen::ir::types::{F32, F64, I32, I64};
use cranelift_codegen::ir::{self as cl, Block, InstBuilder, StackSlotData, StackSlotKind};
use weft_ir::ir::InstKind;
use weft_ir::{layout, Inst, Region, Scalar, Type};

use super::memory::{arg_flags, mem_flags};
use super::{cty, FnTx, Result, Ret, SlotKind, UNSET};

impl<'a, 'b, 'm> FnTx<'a, 'b, 'm> {
    pub(super) fn region(&mut self, r: Region, yield_to: Option<Block>) -> Result<()> {
        let Some(rd) = self.f.regions.get(r) else {
            return self.invalid(format!("no region {r}"));
        };
        self.div_scopes.push(Vec::new());
        if self.cx.debug {
            self.debug_region_start();
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
        if self.cx.debug {
            self.debug_region_end();
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

    pub(super) fn def_result(&mut self, inst: Inst, leaves: &[cl::Value]) -> Result<()> {
        let rs = self.results(inst);
        self.bind(rs, leaves)
    }

    pub(super) fn inst(&mut self, inst: Inst, yield_to: Option<Block>) -> Result<()> {
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
            // One thread per block, as Warp's CPU.
            InstKind::BlockDim => {
                let v = self.b.ins().iconst(I32, 1);
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
                    match self.reduce(inst, p, x)? {
                        Some(v) => out.push(v),
                        None => out.push(self.atomic(*op, sc, p, x)?),
                    }
                }
                self.def_result(inst, &out)
            }
            InstKind::AtomicCas(m, c, v) => {
                let (addr, off, ty) = self.address(m)?;
                let s = match f.atomic_cas_scalar(ty, *c, *v) {
                    Ok(s) => s,
                    Err(what) => return self.invalid(what),
                };
                let (cv, xv) = (self.get1(*c)?, self.get1(*v)?);
                let p = self.b.ins().iadd_imm_s(addr, off as i64);
                let old = self.atomic_cas(s, p, cv, xv)?;
                self.def_result(inst, &[old])
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
                if self.cx.cancel_checks && to == header {
                    // The back-edge's cancel check: past the deadline the
                    // thread ends.
                    let c = self.call_shim1(Shim::CancelPoll, &[])?;
                    let (stop, go) = (self.b.create_block(), self.b.create_block());
                    self.b.ins().brif(c, stop, &[], go, &[]);
                    self.switch_to(stop);
                    self.end_thread()?;
                    self.switch_to(go);
                }
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
                    Scalar::F16 | Scalar::F32 | Scalar::BF16 => self.b.ins().fpromote(F64, x),
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

    pub(super) fn konst(&mut self, c: weft_ir::Const) -> cl::Value {
        match c.ty {
            Scalar::F16 | Scalar::F32 | Scalar::F64 | Scalar::BF16
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
            Scalar::F16 | Scalar::F32 | Scalar::BF16 => {
                self.b.ins().f32const(f64::from_bits(c.bits) as f32)
            }
            Scalar::F64 => self.b.ins().f64const(f64::from_bits(c.bits)),
            Scalar::I64 | Scalar::U64 => self.b.ins().iconst(I64, c.bits as i64),
            s => {
                let mask = (1u64 << (8 * s.size())) - 1;
                self.b.ins().iconst(cty(s), (c.bits & mask) as i64)
            }
        }
    }

    pub(super) fn fconst(&mut self, s: Scalar, v: f64) -> cl::Value {
        if cty(s) == F64 {
            self.b.ins().f64const(v)
        } else {
            self.b.ins().f32const(v as f32)
        }
    }
}
