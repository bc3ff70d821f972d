//! Control flow in the vector tier: `if` under the mask, loops while
//! some lane runs, `break`/`continue`/`yield` handing lanes over.

use super::*;

/// True if a terminator in `r` may take lanes out of the region: a
/// `return` or trap anywhere, or a `break`/`continue` of a loop around
/// `r` (`depth` counts the loops entered inside it).
fn leaves(f: &weft_ir::Function, r: Region, depth: u32) -> bool {
    let Some(rd) = f.regions.get(r) else {
        return false;
    };
    rd.insts.iter().any(|&i| match &f.insts[i].kind {
        InstKind::Return(_) | InstKind::Trap(..) => true,
        InstKind::Break(_) | InstKind::Continue(_) => depth == 0,
        InstKind::If {
            then_region,
            else_region,
            ..
        } => leaves(f, *then_region, depth) || leaves(f, *else_region, depth),
        InstKind::Loop { body, .. } => leaves(f, *body, depth + 1),
        _ => false,
    })
}

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    /// After a construct that may have taken lanes out: skips to the end
    /// of the enclosing region when none is left.
    pub(super) fn skip_if_empty(&mut self) -> Result<()> {
        let m = self.mask()?;
        let any = self.any(m)?;
        let cont = self.new_block("lanes")?;
        let end = self.end_block()?;
        self.b.build_conditional_branch(any, cont, end)?;
        self.switch_to(cont);
        Ok(())
    }

    pub(super) fn vif(&mut self, inst: Inst, cond: Value, tr: Region, er: Region) -> Result<()> {
        let f = self.cur();
        let results = f.insts[inst].results.to_vec();
        let vc = self.is_var(cond);
        let m = self.mask()?;
        let vals = self.vars_of(&results)?;
        let ymask = self.entry_alloca(self.mask_ty().into())?;
        self.b.build_store(ymask, self.mask_ty().const_zero())?;
        let (mt, me, c) = if vc {
            let c = self.vget1(cond)?.into_vector_value();
            let nc = self.b.build_not(c, "")?;
            (
                self.b.build_and(m, c, "")?,
                self.b.build_and(m, nc, "")?,
                None,
            )
        } else {
            (m, m, Some(self.cond(cond)?))
        };
        let then_b = self.new_block("vthen")?;
        let mid_b = self.new_block("vmid")?;
        let else_b = self.new_block("velse")?;
        let end_b = self.new_block("vendif")?;
        match c {
            Some(c) => self.b.build_conditional_branch(c, then_b, mid_b)?,
            None => {
                let a = self.any(mt)?;
                self.b.build_conditional_branch(a, then_b, mid_b)?
            }
        };
        for (region, mask, block, next) in [(tr, mt, then_b, mid_b), (er, me, else_b, end_b)] {
            self.switch_to(block);
            self.set_mask(mask)?;
            {
                let vx = self.vx_mut()?;
                vx.ends.push(next);
                vx.yields.push(YieldTo {
                    mask: ymask,
                    vals: vals.clone(),
                    plain: !vc,
                });
            }
            let r = self.vregion(region);
            let vx = self.vx_mut()?;
            vx.ends.pop();
            vx.yields.pop();
            r?;
            if next == mid_b {
                self.switch_to(mid_b);
                match c {
                    Some(c) => self.b.build_conditional_branch(c, end_b, else_b)?,
                    None => {
                        let a = self.any(me)?;
                        self.b.build_conditional_branch(a, else_b, end_b)?
                    }
                };
            }
        }
        self.switch_to(end_b);
        let nm = self
            .b
            .build_load(self.mask_ty(), ymask, "")?
            .into_vector_value();
        self.set_mask(nm)?;
        self.load_vars(&results, &vals)?;
        if leaves(f, tr, 0) || leaves(f, er, 0) {
            self.skip_if_empty()?;
        }
        Ok(())
    }

    pub(super) fn vyield(&mut self, vs: &[Value]) -> Result<()> {
        let Some(y) = self.vx()?.yields.last() else {
            return self.invalid("yield outside an if");
        };
        let (ymask, vars, plain) = (y.mask, y.vals.clone(), y.plain);
        self.hand_over(vs, &vars, ymask, plain)
    }

    pub(super) fn vloop(&mut self, inst: Inst, init: &[Value], body: Region) -> Result<()> {
        let f = self.cur();
        let Some(rd) = f.regions.get(body) else {
            return self.invalid("loop without a body");
        };
        let params = rd.params.clone();
        let results = f.insts[inst].results.to_vec();
        let divergent = self.vx()?.uni.is_divergent(inst);
        let pvars = self.vars_of(&params)?;
        let rvars = self.vars_of(&results)?;
        let mt = self.mask_ty();
        let lmask = self.entry_alloca(mt.into())?;
        let cont = self.entry_alloca(mt.into())?;
        let brk = self.entry_alloca(mt.into())?;
        let iv = self.slots_for(init, &pvars)?;
        self.store_vars(&pvars, &iv, true)?;
        let m = self.mask()?;
        self.b.build_store(lmask, m)?;
        self.b.build_store(brk, mt.const_zero())?;
        let header = self.new_block("vloop")?;
        let latch = self.new_block("vlatch")?;
        let exit = self.new_block("vendloop")?;
        self.b.build_unconditional_branch(header)?;
        self.switch_to(header);
        let mi = self.b.build_load(mt, lmask, "")?.into_vector_value();
        self.b.build_store(cont, mt.const_zero())?;
        self.set_mask(mi)?;
        self.load_vars(&params, &pvars)?;
        {
            let vx = self.vx_mut()?;
            vx.ends.push(latch);
            vx.loops.push(LoopTo {
                params: pvars,
                results: rvars.clone(),
                cont,
                brk,
                divergent,
            });
        }
        let r = self.vregion(body);
        let vx = self.vx_mut()?;
        vx.ends.pop();
        vx.loops.pop();
        r?;
        self.switch_to(latch);
        let mn = self.b.build_load(mt, cont, "")?.into_vector_value();
        self.b.build_store(lmask, mn)?;
        let a = self.any(mn)?;
        self.b.build_conditional_branch(a, header, exit)?;
        self.switch_to(exit);
        let mb = self.b.build_load(mt, brk, "")?.into_vector_value();
        self.set_mask(mb)?;
        self.load_vars(&results, &rvars)?;
        if leaves(f, body, 1) {
            self.skip_if_empty()?;
        }
        Ok(())
    }

    pub(super) fn vcontinue(&mut self, vs: &[Value]) -> Result<()> {
        let Some(l) = self.vx()?.loops.last() else {
            return self.invalid("continue outside a loop");
        };
        let (vars, at, plain) = (l.params.clone(), l.cont, !l.divergent);
        self.hand_over(vs, &vars, at, plain)
    }

    pub(super) fn vbreak(&mut self, vs: &[Value]) -> Result<()> {
        let Some(l) = self.vx()?.loops.last() else {
            return self.invalid("break outside a loop");
        };
        let (vars, at, plain) = (l.results.clone(), l.brk, !l.divergent);
        self.hand_over(vs, &vars, at, plain)
    }

    /// A `yield`, `continue` or `break`: the lanes of the mask store `vs`
    /// into `vars` and join the mask at `at`; the region ends.
    pub(super) fn hand_over(
        &mut self,
        vs: &[Value],
        vars: &[Var<'ctx>],
        at: PointerValue<'ctx>,
        plain: bool,
    ) -> Result<()> {
        let slots = self.slots_for(vs, vars)?;
        self.store_vars(vars, &slots, plain)?;
        self.or_mask(at)?;
        let end = self.end_block()?;
        self.b.build_unconditional_branch(end)?;
        self.st.filled = true;
        Ok(())
    }
}
