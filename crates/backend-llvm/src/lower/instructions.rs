//! The per-instruction dispatch ([`Lx::inst`]): regions, structured
//! control flow (`if`/`loop` joins and their phis, `yield`, `break`,
//! `continue`, `return`), aggregates (`make`/`extract`/`insert`/`select`),
//! constants and `print` (the host's `weft_print` shim, CUDA `vprintf`).

use super::{Join, Lx, Result, Ret, Shim, SlotKind, TargetKind};
use crate::Error;
use inkwell::module::Linkage;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, FloatValue, PointerValue,
};
use inkwell::AddressSpace;
use weft_ir::ir::{InstKind, UnaryOp};
use weft_ir::{Inst, MathFlags, Region, Scalar, Type};

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    // ---- joins ----

    /// A join block with one phi per flattened value of `types`.
    pub(super) fn join(&mut self, name: &str, types: &[Type]) -> Result<Join<'ctx>> {
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
    pub(super) fn jump_join(
        &mut self,
        j: &Join<'ctx>,
        vals: &[BasicValueEnum<'ctx>],
    ) -> Result<()> {
        if vals.len() != j.phis.len() {
            return self.invalid("branch argument count mismatch");
        }
        let Some(here) = self.b.get_insert_block() else {
            return Err(Error::Llvm("builder not positioned".into()));
        };
        for (p, v) in j.phis.iter().zip(vals) {
            p.add_incoming(&[(v as &dyn BasicValue, here)]);
        }
        self.b.build_unconditional_branch(j.block)?;
        self.st.filled = true;
        Ok(())
    }

    pub(super) fn phi_values(j: &Join<'ctx>) -> Vec<BasicValueEnum<'ctx>> {
        j.phis.iter().map(|p| p.as_basic_value()).collect()
    }

    // ---- regions and instructions ----

    pub(super) fn region(&mut self, r: Region, yield_to: Option<&Join<'ctx>>) -> Result<()> {
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

    pub(super) fn def_result(&mut self, inst: Inst, leaves: &[BasicValueEnum<'ctx>]) -> Result<()> {
        let rs = &self.cur().insts[inst].results;
        self.bind(rs, leaves)
    }

    pub(super) fn result_types(&self, inst: Inst) -> Vec<Type> {
        let f = self.cur();
        f.insts[inst]
            .results
            .iter()
            .map(|&r| f.value_type(r))
            .collect()
    }

    /// Starts lowering `inst`: its source location and its fast-math
    /// flags become the current ones.
    pub(super) fn begin_inst(&mut self, inst: Inst) {
        let f = self.cur();
        let data = &f.insts[inst];
        self.set_loc(data.loc);
        self.st.flags = inst_flags(f, inst);
    }

    pub(super) fn inst(&mut self, inst: Inst, yield_to: Option<&Join<'ctx>>) -> Result<()> {
        self.begin_inst(inst);
        let f = self.cur();
        let data = &f.insts[inst];
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
                let v = match self.sincos(*op, *x, s, xv)? {
                    Some(v) => v,
                    None => self.unary(*op, s, xv)?,
                };
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
                let leaves = self.get(*agg)?;
                let part = self.extract_part(f.value_type(*agg), path, &leaves)?;
                self.def_result(inst, &part)
            }
            InstKind::Insert(agg, path, v) => {
                let (leaves, vv) = (self.get(*agg)?, self.get(*v)?);
                let out = self.insert_part(f.value_type(*agg), path, leaves, &vv)?;
                self.def_result(inst, &out)
            }
            InstKind::ThreadId => {
                let Some(t) = self.st.tid else {
                    return self.invalid("thread id outside a kernel");
                };
                let v = self.b.build_int_truncate(t, self.ctx.i32_type(), "")?;
                self.def_result(inst, &[v.into()])
            }
            InstKind::LaunchDim(axis) => {
                let v: BasicValueEnum = if *axis >= 4 || (*axis >= 1 && self.in_whole_vectors()) {
                    self.ctx.i32_type().const_int(1, false).into()
                } else {
                    let Some(args) = self.st.args else {
                        return self.invalid("launch dim without an argument block");
                    };
                    self.load_at(self.ctx.i32_type().into(), args, 4 * *axis as u32, 4)?
                };
                self.def_result(inst, &[v])
            }
            // Warp's: 1 on the CPU, the launch's block size on CUDA.
            InstKind::BlockDim => {
                let v: BasicValueEnum = match self.cfg.kind {
                    TargetKind::Host => self.ctx.i32_type().const_int(1, false).into(),
                    TargetKind::Nvptx => {
                        self.call_intr("llvm.nvvm.read.ptx.sreg.ntid.x", &[], &[])?
                    }
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
            InstKind::AtomicCas(m, c, v) => {
                let (addr, off, ty) = self.address(m)?;
                let s = match f.atomic_cas_scalar(ty, *c, *v) {
                    Ok(s) => s,
                    Err(what) => return self.invalid(what),
                };
                let (cv, xv) = (self.get1(*c)?, self.get1(*v)?);
                let p = self.offset_ptr(addr, off as u64)?;
                let old = self.atomic_cas(s, p, cv, xv)?;
                self.def_result(inst, &[old])
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
                    if self.cfg.cancel_checks && self.cfg.kind == TargetKind::Host {
                        self.cancel_check()?;
                    }
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
                            return Err(Error::Llvm("func without a return type".into()));
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

    /// The slots of the component at `path` of a value of type `ty` whose
    /// slots are `leaves` (scalars, or the vector tier's vectors).
    pub(super) fn extract_part(
        &mut self,
        ty: Type,
        path: &[u32],
        leaves: &[BasicValueEnum<'ctx>],
    ) -> Result<Vec<BasicValueEnum<'ctx>>> {
        let Some((s, n, _)) = self.path_range(ty, path) else {
            return self.invalid("bad extract path");
        };
        match leaves.get(s..s + n) {
            Some(part) => Ok(part.to_vec()),
            None => self.invalid("bad extract path"),
        }
    }

    /// `leaves` (a value of type `ty`) with the component at `path`
    /// replaced by `v`'s slots.
    pub(super) fn insert_part(
        &mut self,
        ty: Type,
        path: &[u32],
        mut leaves: Vec<BasicValueEnum<'ctx>>,
        v: &[BasicValueEnum<'ctx>],
    ) -> Result<Vec<BasicValueEnum<'ctx>>> {
        let Some((s, n, _)) = self.path_range(ty, path) else {
            return self.invalid("bad insert path");
        };
        if v.len() != n || s + n > leaves.len() {
            return self.invalid("insert of a mismatched value");
        }
        leaves[s..s + n].copy_from_slice(v);
        Ok(leaves)
    }

    pub(super) fn path_range(&mut self, ty: Type, path: &[u32]) -> Option<(usize, usize, Type)> {
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

    // ---- print ----

    pub(super) fn print(&mut self, fmt: &str, args: &[weft_ir::Value]) -> Result<()> {
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

    pub(super) fn const_bytes(&self, name: &str, bytes: &[u8]) -> PointerValue<'ctx> {
        let arr = self.ctx.const_string(bytes, false);
        let g = self
            .module
            .add_global(arr.get_type(), Some(AddressSpace::default()), name);
        g.set_initializer(&arr);
        g.set_constant(true);
        g.set_linkage(Linkage::Private);
        g.as_pointer_value()
    }

    pub(super) fn print_host(
        &mut self,
        fmt: &str,
        kinds: &[u8],
        vals: &[BasicValueEnum<'ctx>],
    ) -> Result<()> {
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
            Shim::Print,
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

    pub(super) fn entry_alloca(&mut self, ty: BasicTypeEnum<'ctx>) -> Result<PointerValue<'ctx>> {
        let fv = self.func()?;
        let Some(entry) = fv.get_first_basic_block() else {
            return Err(Error::Llvm("function without an entry block".into()));
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
    pub(super) fn print_vprintf(
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

    // ---- constants ----

    pub(super) fn konst(&self, c: weft_ir::Const) -> BasicValueEnum<'ctx> {
        match c.ty {
            Scalar::F16 | Scalar::F32 | Scalar::BF16 => self
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

    pub(super) fn fconst(&self, s: Scalar, v: f64) -> FloatValue<'ctx> {
        if s == Scalar::F64 {
            self.ctx.f64_type().const_float(v)
        } else {
            self.ctx.f32_type().const_float(v as f32 as f64)
        }
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

/// The fast-math flags `inst` is lowered under.
pub(super) fn inst_flags(f: &weft_ir::Function, inst: Inst) -> MathFlags {
    if f.accepts_math_flags(inst) {
        f.insts[inst].flags
    } else {
        MathFlags::NONE
    }
}
