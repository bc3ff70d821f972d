//! The Cranelift implementation of the fast-math approximations'
//! operations ([`weft_abi::fastmath::Ops`]): the algorithms themselves and
//! their coefficients live in `weft-abi`, written once for every backend.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types::{F32, F32X4, I32, I32X4};
use cranelift_codegen::ir::{self as cl, InstBuilder, MemFlagsData};
use cranelift_frontend::FunctionBuilder;
use std::convert::Infallible;
pub(crate) use weft_abi::fastmath::approximates;
use weft_abi::fastmath::{emit, Cmp, Ops};
use weft_ir::MathFn;

/// [`Ops`] emitting Cranelift IR for `f32` (`ty` = `F32`) or its lanes
/// (`F32X4`).
pub(crate) struct Cl<'a, 'b> {
    pub b: &'a mut FunctionBuilder<'b>,
    /// `F32` or `F32X4`.
    pub ty: cl::Type,
    /// Whether `fma` is fused (contraction allowed and the host has FMA).
    pub fused: bool,
}

impl Cl<'_, '_> {
    fn ity(&self) -> cl::Type {
        if self.ty.is_vector() {
            I32X4
        } else {
            I32
        }
    }
    /// The 32-bit pattern `bits` in every lane, as a constant of type `t`
    /// (a vector constant: one load, or a memory operand).
    fn lanes(&mut self, t: cl::Type, bits: u32) -> cl::Value {
        if self.ty.is_vector() {
            let bytes: Vec<u8> = (0..4).flat_map(|_| bits.to_le_bytes()).collect();
            let c = self.b.func.dfg.constants.insert(bytes.into());
            self.b.ins().vconst(t, c)
        } else if t == F32 {
            self.b.ins().f32const(f32::from_bits(bits))
        } else {
            self.b.ins().iconst(I32, bits as i64)
        }
    }
}

impl Ops for Cl<'_, '_> {
    type V = cl::Value;
    type E = Infallible;
    fn fconst(&mut self, x: f32) -> Result<cl::Value, Infallible> {
        Ok(self.lanes(self.ty, x.to_bits()))
    }
    fn iconst(&mut self, x: i32) -> Result<cl::Value, Infallible> {
        let t = self.ity();
        Ok(self.lanes(t, x as u32))
    }
    fn fadd(&mut self, a: cl::Value, b: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().fadd(a, b))
    }
    fn fsub(&mut self, a: cl::Value, b: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().fsub(a, b))
    }
    fn fmul(&mut self, a: cl::Value, b: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().fmul(a, b))
    }
    fn fdiv(&mut self, a: cl::Value, b: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().fdiv(a, b))
    }
    fn fneg(&mut self, a: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().fneg(a))
    }
    fn fma(&mut self, a: cl::Value, b: cl::Value, c: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(if self.fused {
            self.b.ins().fma(a, b, c)
        } else {
            let p = self.b.ins().fmul(a, b);
            self.b.ins().fadd(p, c)
        })
    }
    fn fcmp(&mut self, cc: Cmp, a: cl::Value, b: cl::Value) -> Result<cl::Value, Infallible> {
        let cc = match cc {
            Cmp::Lt => FloatCC::LessThan,
            Cmp::Eq => FloatCC::Equal,
            Cmp::NotLt => FloatCC::UnorderedOrGreaterThanOrEqual,
        };
        let m = self.b.ins().fcmp(cc, a, b);
        Ok(if self.ty.is_vector() {
            m
        } else {
            self.b.ins().bmask(I32, m)
        })
    }
    fn bits(&mut self, a: cl::Value) -> Result<cl::Value, Infallible> {
        let t = self.ity();
        Ok(self.b.ins().bitcast(t, MemFlagsData::new(), a))
    }
    fn float(&mut self, a: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().bitcast(self.ty, MemFlagsData::new(), a))
    }
    fn iadd(&mut self, a: cl::Value, b: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().iadd(a, b))
    }
    fn isub(&mut self, a: cl::Value, b: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().isub(a, b))
    }
    fn band(&mut self, a: cl::Value, b: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().band(a, b))
    }
    fn bxor(&mut self, a: cl::Value, b: cl::Value) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().bxor(a, b))
    }
    fn shl(&mut self, a: cl::Value, n: u32) -> Result<cl::Value, Infallible> {
        let n = self.b.ins().iconst(I32, n as i64);
        Ok(self.b.ins().ishl(a, n))
    }
    fn sshr(&mut self, a: cl::Value, n: u32) -> Result<cl::Value, Infallible> {
        let n = self.b.ins().iconst(I32, n as i64);
        Ok(self.b.ins().sshr(a, n))
    }
    fn bitselect(
        &mut self,
        mask: cl::Value,
        a: cl::Value,
        b: cl::Value,
    ) -> Result<cl::Value, Infallible> {
        Ok(self.b.ins().bitselect(mask, a, b))
    }
}

/// Emits the approximation of `f` on `x` (`F32` or `F32X4`) into `b`;
/// `None` if `f` is not approximated. `fused`: `fma` may be emitted.
///
/// A scalar is computed in lane 0 of a vector: the algorithm mixes float
/// and integer operations on the same bits, which in scalar form would
/// move every value between float and integer registers; in vector
/// registers both kinds run in place (and compare masks feed blends).
/// Each lane computes exactly what the scalar operations would.
pub(crate) fn emit_cl(
    b: &mut FunctionBuilder,
    f: MathFn,
    x: cl::Value,
    fused: bool,
) -> Option<cl::Value> {
    if !approximates(f) {
        return None;
    }
    let scalar = b.func.dfg.value_type(x) == F32;
    let xv = if scalar { b.ins().splat(F32X4, x) } else { x };
    let mut o = Cl {
        b,
        ty: F32X4,
        fused,
    };
    let v = match emit(&mut o, f, xv) {
        Ok(v) => v?,
        Err(e) => match e {},
    };
    Some(if scalar {
        o.b.ins().extractlane(v, 0)
    } else {
        v
    })
}
