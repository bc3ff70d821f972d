//! Reductions ([`weft_ir::info::reductions`]): an atomic into an address
//! that is the same for every thread is accumulated in a register over the
//! worker's thread range and combined into memory by one atomic at the end
//! of the range, instead of one contended atomic per thread.
//!
//! The accumulator starts at the op's identity (`-0.0` for float `add`,
//! which leaves every value as it is, `+inf`/`-inf` for `min`/`max`, ...);
//! the combining atomic runs only when some thread of the range reached the
//! site (its address was recorded), so an array is untouched when no thread
//! did. Float `add` is reassociated: per range, then across ranges (as any
//! order of atomics from many threads is).

use super::{FnTx, Result};
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{self as cl, condcodes::IntCC, InstBuilder};
use cranelift_frontend::Variable;
use weft_ir::ir::AtomicOp;
use weft_ir::{Inst, Scalar};

/// One demoted atomic site.
pub(super) struct Reduction {
    op: AtomicOp,
    s: Scalar,
    acc: Variable,
    /// The site's address, 0 until a thread reaches it.
    addr: Variable,
}

impl FnTx<'_, '_, '_> {
    /// Declares the kernel's reductions and starts their accumulators (at
    /// the entry, before the thread loops).
    pub(super) fn begin_reductions(&mut self) -> Result<()> {
        if self.cx.debug {
            return Ok(());
        }
        for i in weft_ir::info::reductions(self.f) {
            let weft_ir::InstKind::Atomic(op, _, v) = &self.f.insts[i].kind else {
                continue;
            };
            let Some(s) = self.f.value_type(*v).as_scalar() else {
                continue;
            };
            if matches!(s, Scalar::F16 | Scalar::BF16 | Scalar::Bool) {
                continue;
            }
            let ty = super::cty(s);
            let acc = self.b.declare_var(ty);
            let addr = self.b.declare_var(I64);
            let init = self.konst(op.identity(s));
            self.b.def_var(acc, init);
            let zero = self.b.ins().iconst(I64, 0);
            self.b.def_var(addr, zero);
            self.reductions.insert(
                i,
                Reduction {
                    op: *op,
                    s,
                    acc,
                    addr,
                },
            );
        }
        Ok(())
    }

    /// The atomic at `inst` of `x` into `p`, if it is a reduction: adds
    /// `x` to the accumulator. Returns the value standing for its (unused)
    /// result.
    pub(super) fn reduce(
        &mut self,
        inst: Inst,
        p: cl::Value,
        x: cl::Value,
    ) -> Result<Option<cl::Value>> {
        let Some(r) = self.reductions.get(&inst) else {
            return Ok(None);
        };
        let (op, s, acc, addr) = (r.op, r.s, r.acc, r.addr);
        let Some(bop) = op.combine() else {
            return self.invalid("a reduction with an op that is not one");
        };
        let a = self.b.use_var(acc);
        let n = self.binary(bop, s, a, x)?;
        self.b.def_var(acc, n);
        self.b.def_var(addr, p);
        Ok(Some(x))
    }

    /// Combines each reduction's accumulator into memory (at the exit,
    /// after the thread loops).
    pub(super) fn finish_reductions(&mut self) -> Result<()> {
        let mut sites: Vec<Inst> = self.reductions.keys().copied().collect();
        sites.sort();
        for i in sites {
            let r = &self.reductions[&i];
            let (op, s, acc, addr) = (r.op, r.s, r.acc, r.addr);
            let p = self.b.use_var(addr);
            let a = self.b.use_var(acc);
            let hit = self.b.ins().icmp_imm_s(IntCC::NotEqual, p, 0);
            let combine = self.b.create_block();
            let next = self.b.create_block();
            self.b.ins().brif(hit, combine, &[], next, &[]);
            self.switch_to(combine);
            self.atomic(op, s, p, a)?;
            self.jump(next, &[])?;
            self.switch_to(next);
        }
        Ok(())
    }
}
