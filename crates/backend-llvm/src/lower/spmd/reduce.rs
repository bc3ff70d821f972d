//! Reductions in the vector tier: per-lane accumulators combined once
//! per thread range, lanes in order.

use super::*;

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    pub(super) fn begin_accs(&mut self, f: &'m weft_ir::Function) -> Result<()> {
        for i in weft_ir::info::reductions(f) {
            let InstKind::Atomic(op, _, v) = &f.insts[i].kind else {
                continue;
            };
            let Some(s) = f.value_type(*v).as_scalar() else {
                continue;
            };
            if matches!(s, Scalar::F16 | Scalar::BF16 | Scalar::Bool) {
                continue;
            }
            let t = self.scalar_ty(s);
            let vt = self.vty(t)?;
            let acc = self.entry_alloca(vt.into())?;
            let id = self.konst(op.identity(s));
            let idv = self.splat(id)?;
            self.b.build_store(acc, idv)?;
            let pt = self.ctx.ptr_type(self.data_space());
            let addr = self.entry_alloca(pt.into())?;
            self.b.build_store(addr, pt.const_null())?;
            self.vx_mut()?.accs.insert(
                i,
                Acc {
                    acc,
                    addr,
                    op: *op,
                    s,
                },
            );
        }
        Ok(())
    }

    /// A reduction site: the lanes of the mask fold their value into the
    /// accumulator; the (uniform) address is kept for the end.
    pub(super) fn vreduce(&mut self, inst: Inst) -> Result<()> {
        let InstKind::Atomic(_, m, v) = &self.cur().insts[inst].kind else {
            return self.invalid("a reduction that is not an atomic");
        };
        let Some(a) = self.vx()?.accs.get(&inst) else {
            return self.invalid("an undeclared reduction");
        };
        let (acc, addr_at, op, s) = (a.acc, a.addr, a.op, a.s);
        let (addr, off, _) = self.address(m)?;
        let p = self.offset_ptr(addr, off as u64)?;
        self.b.build_store(addr_at, p)?;
        let x = self.vget1(*v)?;
        let vt = x.get_type();
        let old = self.b.build_load(vt, acc, "")?;
        let Some(bin) = op.combine() else {
            return self.invalid("a reduction with an op that is not one");
        };
        let saved = self.st.flags;
        self.st.flags = MathFlags::NONE;
        let Some(new) = self.vbinary(bin, s, old, x)? else {
            return self.invalid("a reduction op without a vector form");
        };
        self.st.flags = saved;
        let msk = self.mask()?;
        let new = self.b.build_select(msk, new, old, "")?;
        self.b.build_store(acc, new)?;
        // The atomic's old value is unused (a condition of a reduction).
        let rs = self.cur().insts[inst].results.clone();
        for r in rs {
            let t = self.types_of(self.cur().value_type(r));
            let mut slots = Vec::new();
            for ty in t {
                slots.push(poison_of(self.vty(ty)?.into()));
            }
            self.vdef(r, slots)?;
        }
        Ok(())
    }

    /// At the end of the range: each reached reduction combines its lanes
    /// in order and updates memory with one atomic.
    pub(super) fn finish_accs(&mut self) -> Result<()> {
        let mut sites: Vec<Inst> = self.vx()?.accs.keys().copied().collect();
        sites.sort_unstable();
        for i in sites {
            let Some(a) = self.vx()?.accs.get(&i) else {
                continue;
            };
            let (acc, addr_at, op, s) = (a.acc, a.addr, a.op, a.s);
            let pt = self.ctx.ptr_type(self.data_space());
            let p = self.b.build_load(pt, addr_at, "")?.into_pointer_value();
            let reached = self.b.build_is_not_null(p, "")?;
            let go = self.new_block("reduce")?;
            let done = self.new_block("reduced")?;
            self.b.build_conditional_branch(reached, go, done)?;
            self.switch_to(go);
            let vt = self.vty(self.scalar_ty(s))?;
            let v = self.b.build_load(vt, acc, "")?.into_vector_value();
            let Some(bin) = op.combine() else {
                return self.invalid("a reduction with an op that is not one");
            };
            self.st.flags = MathFlags::NONE;
            let mut t = self.b.build_extract_element(v, self.i32c(0), "")?;
            for l in 1..self.width() {
                let x = self.b.build_extract_element(v, self.i32c(l as u64), "")?;
                t = self.binary(bin, s, t, x)?;
            }
            self.atomic(op, s, p, t)?;
            self.b.build_unconditional_branch(done)?;
            self.switch_to(done);
        }
        Ok(())
    }
}
