//! Math-library glue: calls of the runtime shims (transcendentals, `f16`
//! conversions), `f16` rounding, and the inline fast-math approximations
//! of `afn` transcendentals (`approx`, [`crate::fastmath`]).

use crate::shims::Shim;
use crate::Error;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{F32, I32};
use cranelift_codegen::ir::{self as cl, InstBuilder, MemFlagsData};
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
                let r = self.import_func(id);
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

    /// Rounds an `f32` to the nearest `f16` (`bf16`) value when `s` is
    /// `f16` (`bf16`).
    pub(super) fn r16(&mut self, s: Scalar, v: cl::Value) -> Result<cl::Value> {
        match s {
            Scalar::F16 => self.call_shim1(Shim::RoundF16, &[v]),
            Scalar::BF16 => {
                let h = self.bf16_bits(v);
                Ok(self.bf16_from_bits(h))
            }
            _ => Ok(v),
        }
    }

    /// The 16 bits (low bits of an `i32`) of the `f16`/`bf16` nearest the
    /// `f32` `v`.
    pub(super) fn half_bits(&mut self, s: Scalar, v: cl::Value) -> Result<cl::Value> {
        if s == Scalar::BF16 {
            Ok(self.bf16_bits(v))
        } else {
            self.call_shim1(Shim::F32ToF16Bits, &[v])
        }
    }

    /// The `f32` value of `f16`/`bf16` bits (the low 16 bits of an `i32`).
    pub(super) fn half_from_bits(&mut self, s: Scalar, w: cl::Value) -> Result<cl::Value> {
        if s == Scalar::BF16 {
            Ok(self.bf16_from_bits(w))
        } else {
            self.call_shim1(Shim::F16BitsToF32, &[w])
        }
    }

    /// `weft_ir::f16::f32_to_bf16` inline: round to nearest even; NaN and
    /// infinity truncate, a NaN whose kept mantissa bits are zero gets the
    /// quiet bit. The result is an `i32` holding the 16 bits.
    fn bf16_bits(&mut self, v: cl::Value) -> cl::Value {
        let bits = self.b.ins().bitcast(I32, MemFlagsData::new(), v);
        let exp = self.b.ins().band_imm_u(bits, 0x7f80_0000);
        let special = self.b.ins().icmp_imm_u(IntCC::Equal, exp, 0x7f80_0000);
        let hi = self.b.ins().ushr_imm_u(bits, 16);
        let lsb = self.b.ins().band_imm_u(hi, 1);
        let t = self.b.ins().iadd(bits, lsb);
        let t = self.b.ins().iadd_imm_u(t, 0x7fff);
        let rounded = self.b.ins().ushr_imm_u(t, 16);
        let mant = self.b.ins().band_imm_u(bits, 0x007f_ffff);
        let nan = self.b.ins().icmp_imm_u(IntCC::NotEqual, mant, 0);
        let low = self.b.ins().band_imm_u(hi, 0x7f);
        let lost = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
        let quiet = self.b.ins().band(nan, lost);
        let q = self.b.ins().bor_imm_u(hi, 0x40);
        let kept = self.b.ins().select(quiet, q, hi);
        self.b.ins().select(special, kept, rounded)
    }

    /// The `f32` of bfloat16 bits (the low 16 bits of an `i32`).
    fn bf16_from_bits(&mut self, w: cl::Value) -> cl::Value {
        let w = self.b.ins().band_imm_u(w, 0xffff);
        let x = self.b.ins().ishl_imm_u(w, 16);
        self.b.ins().bitcast(F32, MemFlagsData::new(), x)
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
