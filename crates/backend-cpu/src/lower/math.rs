//! Math-library glue: calls of the runtime shims (transcendentals, `f16`
//! conversions), `f16` rounding, and the inline fast-math approximations
//! of `afn` transcendentals (`approx`, [`crate::fastmath`]).

use crate::shims::Shim;
use crate::Error;
use cranelift_codegen::ir::{self as cl, InstBuilder};
use cranelift_module::Module as _;
use weft_ir::ir::UnaryOp;
use weft_ir::{Inst, MathFn, Scalar};

use super::{FnTx, Result};

impl<'a, 'b, 'm> FnTx<'a, 'b, 'm> {
    pub(super) fn call_shim(
        &mut self,
        shim: Shim,
        args: &[cl::Value],
    ) -> Result<Option<cl::Value>> {
        let fref = match self.shim_refs.get(&shim) {
            Some(&r) => r,
            None => {
                let Some(&id) = self.cx.shim_ids.get(&shim) else {
                    return Err(Error::Codegen(format!("shim {shim:?} not declared")));
                };
                let r = self.module.declare_func_in_func(id, self.b.func);
                self.shim_refs.insert(shim, r);
                r
            }
        };
        let call = self.b.ins().call(fref, args);
        Ok(self.b.inst_results(call).first().copied())
    }

    pub(super) fn call_shim1(&mut self, shim: Shim, args: &[cl::Value]) -> Result<cl::Value> {
        match self.call_shim(shim, args)? {
            Some(v) => Ok(v),
            None => Err(Error::Codegen(format!("shim {shim:?} returns nothing"))),
        }
    }

    /// Rounds an `f32` to the nearest `f16` value when `s` is `f16`.
    pub(super) fn r16(&mut self, s: Scalar, v: cl::Value) -> Result<cl::Value> {
        if s == Scalar::F16 {
            self.call_shim1(Shim::RoundF16, &[v])
        } else {
            Ok(v)
        }
    }

    /// The `f32` transcendental `op` of `inst` on `x` (a scalar or
    /// `f32x4` lanes) as inline code ([`crate::fastmath`]) when the
    /// instruction allows approximate functions and the function inlines
    /// them (`inline_approx`); `None` otherwise.
    pub(super) fn approx(
        &mut self,
        inst: Inst,
        op: UnaryOp,
        s: Scalar,
        x: cl::Value,
    ) -> Option<cl::Value> {
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
}
