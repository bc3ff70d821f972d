//! Memory: loads and stores of slots (argument block and array memory,
//! `bool` as a byte, `f16` as its bits), array element addresses from the
//! descriptor's strides, and atomics (native read-modify-write, `fadd`,
//! and a compare-and-swap loop for the other float operations).

use super::{Lx, Result, Slot, SlotKind};
use crate::Error;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, BasicValueEnum, FloatValue, IntValue, PointerValue};
use inkwell::{AddressSpace, AtomicOrdering, AtomicRMWBinOp, IntPredicate};
use weft_ir::ir::{AtomicOp, BinaryOp, MemAccess};
use weft_ir::{layout, Scalar, Type};

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    pub(super) fn load_at(
        &mut self,
        ty: BasicTypeEnum<'ctx>,
        base: PointerValue<'ctx>,
        off: u32,
        align: u32,
    ) -> Result<BasicValueEnum<'ctx>> {
        let p = self.offset_ptr(base, off as u64)?;
        let v = self.b.build_load(ty, p, "")?;
        if let Some(i) = v.as_instruction_value() {
            let _ = i.set_alignment(align);
        }
        Ok(v)
    }

    pub(super) fn offset_ptr(
        &self,
        base: PointerValue<'ctx>,
        off: u64,
    ) -> Result<PointerValue<'ctx>> {
        if off == 0 {
            return Ok(base);
        }
        let o = self.ctx.i64_type().const_int(off, false);
        // SAFETY: an in-bounds byte offset into the argument block or an
        // array element, as computed from the layout; `gep` itself does not
        // access memory.
        Ok(unsafe {
            self.b
                .build_in_bounds_gep(self.ctx.i8_type(), base, &[o], "")?
        })
    }

    /// Loads one slot from `base + off` (argument block or array memory).
    pub(super) fn load_slot(
        &mut self,
        s: Slot,
        base: PointerValue<'ctx>,
        off: u32,
        from_args: bool,
    ) -> Result<BasicValueEnum<'ctx>> {
        Ok(match s.kind {
            SlotKind::Scalar(Scalar::Bool) => {
                let v = self.load_at(self.ctx.i8_type().into(), base, off, 1)?;
                self.b
                    .build_int_compare(
                        IntPredicate::NE,
                        v.into_int_value(),
                        self.ctx.i8_type().const_zero(),
                        "",
                    )?
                    .into()
            }
            SlotKind::Scalar(h @ (Scalar::F16 | Scalar::BF16)) => {
                let v = self.load_at(self.ctx.i16_type().into(), base, off, 2)?;
                self.bits_to_half(h, v.into_int_value())?
            }
            SlotKind::Scalar(sc) => self.load_at(self.scalar_ty(sc), base, off, sc.size())?,
            SlotKind::Data => {
                let generic = self.ctx.ptr_type(AddressSpace::default());
                let p = self
                    .load_at(generic.into(), base, off, 8)?
                    .into_pointer_value();
                if from_args && self.data_space() != AddressSpace::default() {
                    let g = self.ctx.ptr_type(self.data_space());
                    self.b.build_address_space_cast(p, g, "")?.into()
                } else {
                    p.into()
                }
            }
            SlotKind::Shape(_) => self.load_at(self.ctx.i32_type().into(), base, off, 4)?,
            SlotKind::Stride(_) => self.load_at(self.ctx.i64_type().into(), base, off, 8)?,
        })
    }

    pub(super) fn store_slot(
        &mut self,
        s: Slot,
        v: BasicValueEnum<'ctx>,
        base: PointerValue<'ctx>,
        off: u32,
    ) -> Result<()> {
        let p = self.offset_ptr(base, off as u64)?;
        let (v, align): (BasicValueEnum, u32) = match s.kind {
            SlotKind::Scalar(Scalar::Bool) => (
                self.b
                    .build_int_z_extend(v.into_int_value(), self.ctx.i8_type(), "")?
                    .into(),
                1,
            ),
            SlotKind::Scalar(h @ (Scalar::F16 | Scalar::BF16)) => {
                (self.half_to_bits(h, v)?.into(), 2)
            }
            SlotKind::Scalar(sc) => (v, sc.size()),
            _ => return self.unsupported("storing an array handle"),
        };
        let st = self.b.build_store(p, v)?;
        let _ = st.set_alignment(align);
        Ok(())
    }

    pub(super) fn address(&mut self, m: &MemAccess) -> Result<(PointerValue<'ctx>, u32, Type)> {
        let Type::Array(at) = self.cur().value_type(m.array) else {
            return self.invalid("memory access on a non-array");
        };
        if m.indices.len() != at.ndim as usize {
            return self.invalid("index count differs from the array's ndim");
        }
        let leaves = self.get(m.array)?;
        let nd = at.ndim as usize;
        let i64t = self.ctx.i64_type();
        let mut off: Option<IntValue> = None;
        for (k, &ix) in m.indices.iter().enumerate() {
            let s = self.scalar_of(ix)?;
            let iv = self.get1(ix)?.into_int_value();
            let iv = match s {
                Scalar::I64 | Scalar::U64 => iv,
                s if s.is_signed_int() => self.b.build_int_s_extend(iv, i64t, "")?,
                s if s.is_int() || s == Scalar::Bool => self.b.build_int_z_extend(iv, i64t, "")?,
                _ => return self.invalid("float array index"),
            };
            let o = self
                .b
                .build_int_mul(iv, leaves[1 + nd + k].into_int_value(), "")?;
            off = Some(match off {
                None => o,
                Some(p) => self.b.build_int_add(p, o, "")?,
            });
        }
        let data = leaves[0].into_pointer_value();
        let addr = match off {
            // SAFETY: address arithmetic only (no access); the kernel
            // language leaves out-of-bounds indices undefined.
            Some(o) => unsafe { self.b.build_gep(self.ctx.i8_type(), data, &[o], "")? },
            None => data,
        };
        let Some((poff, ty)) = layout::path_offset(at.elem.into(), &m.path, &self.m.structs) else {
            return self.invalid("bad component path in a memory access");
        };
        Ok((addr, poff, ty))
    }

    pub(super) fn atomic(
        &mut self,
        op: AtomicOp,
        s: Scalar,
        p: PointerValue<'ctx>,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        let mono = AtomicOrdering::Monotonic;
        if !s.is_float() {
            let signed = s.is_signed_int();
            let rmw = match op {
                AtomicOp::Add => AtomicRMWBinOp::Add,
                AtomicOp::Sub => AtomicRMWBinOp::Sub,
                AtomicOp::And => AtomicRMWBinOp::And,
                AtomicOp::Or => AtomicRMWBinOp::Or,
                AtomicOp::Xor => AtomicRMWBinOp::Xor,
                AtomicOp::Exchange => AtomicRMWBinOp::Xchg,
                AtomicOp::Min if signed => AtomicRMWBinOp::Min,
                AtomicOp::Max if signed => AtomicRMWBinOp::Max,
                AtomicOp::Min => AtomicRMWBinOp::UMin,
                AtomicOp::Max => AtomicRMWBinOp::UMax,
            };
            let xi = x.into_int_value();
            if s == Scalar::Bool {
                let w = self.b.build_int_z_extend(xi, self.ctx.i8_type(), "")?;
                let old = self.b.build_atomicrmw(rmw, p, w, mono)?;
                return Ok(self
                    .b
                    .build_int_compare(IntPredicate::NE, old, self.ctx.i8_type().const_zero(), "")?
                    .into());
            }
            return Ok(self.b.build_atomicrmw(rmw, p, xi, mono)?.into());
        }
        let it = match s {
            Scalar::F16 | Scalar::BF16 => self.ctx.i16_type(),
            Scalar::F32 => self.ctx.i32_type(),
            _ => self.ctx.i64_type(),
        };
        // Native float add (f32; f64 on sm_60+, which every supported arch
        // is). `a - x` is `a + (-x)` exactly, so sub uses it too.
        if matches!(op, AtomicOp::Add | AtomicOp::Sub) && !matches!(s, Scalar::F16 | Scalar::BF16) {
            let xv = if op == AtomicOp::Sub {
                self.b.build_float_neg(x.into_float_value(), "")?.into()
            } else {
                x
            };
            return self.atomic_fadd(p, xv);
        }
        if op == AtomicOp::Exchange {
            let xb = self.float_bits(s, x)?;
            let old = self.b.build_atomicrmw(AtomicRMWBinOp::Xchg, p, xb, mono)?;
            return self.bits_float(s, old);
        }
        // Compare-and-swap loop.
        let init = self.b.build_load(it, p, "")?;
        if let Some(i) = init.as_instruction_value() {
            let _ = i.set_alignment(s.size());
            let _ = i.set_atomic_ordering(mono);
        }
        let pre = self
            .b
            .get_insert_block()
            .ok_or_else(|| Error::Llvm("builder not positioned".into()))?;
        let lp = self.new_block("cas")?;
        let done = self.new_block("cas_done")?;
        self.b.build_unconditional_branch(lp)?;
        self.b.position_at_end(lp);
        let expected = self.b.build_phi(it, "")?;
        expected.add_incoming(&[(&init, pre)]);
        let ev = expected.as_basic_value().into_int_value();
        let old = self.bits_float(s, ev)?;
        let new = match op.update() {
            Some(b @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Min | BinaryOp::Max)) => {
                self.binary(b, s, old, x)?
            }
            _ => return self.unsupported(format!("atomic {op:?} on floats")),
        };
        let nb = self.float_bits(s, new)?;
        let pair = self.b.build_cmpxchg(p, ev, nb, mono, mono)?;
        let prev = self.b.build_extract_value(pair, 0, "")?.into_int_value();
        let ok = self.b.build_extract_value(pair, 1, "")?.into_int_value();
        let here = self
            .b
            .get_insert_block()
            .ok_or_else(|| Error::Llvm("builder not positioned".into()))?;
        expected.add_incoming(&[(&prev, here)]);
        self.b.build_conditional_branch(ok, done, lp)?;
        self.b.position_at_end(done);
        Ok(old)
    }

    /// Compare-and-swap of the 32- or 64-bit scalar at `p`: stores `x` if
    /// the element's bits equal `c`'s; the old value.
    pub(super) fn atomic_cas(
        &mut self,
        s: Scalar,
        p: PointerValue<'ctx>,
        c: BasicValueEnum<'ctx>,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        if !matches!(s.size(), 4 | 8) || s == Scalar::Bool {
            return self.unsupported(format!("atomic_cas on {s}"));
        }
        let mono = AtomicOrdering::Monotonic;
        let (cb, xb) = if s.is_float() {
            (self.float_bits(s, c)?, self.float_bits(s, x)?)
        } else {
            (c.into_int_value(), x.into_int_value())
        };
        let pair = self.b.build_cmpxchg(p, cb, xb, mono, mono)?;
        let old = self.b.build_extract_value(pair, 0, "")?.into_int_value();
        if s.is_float() {
            self.bits_float(s, old)
        } else {
            Ok(old.into())
        }
    }

    pub(super) fn atomic_fadd(
        &mut self,
        p: PointerValue<'ctx>,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        use inkwell::llvm_sys::core::LLVMBuildAtomicRMW;
        use inkwell::llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp};
        use inkwell::values::AsValueRef;
        // SAFETY: FFI call on a positioned builder with a pointer and a
        // float value of this context; `atomicrmw fadd` on a float is valid
        // LLVM IR (inkwell only wraps the integer form). The result is a
        // float value of the same type.
        let v = unsafe {
            LLVMBuildAtomicRMW(
                self.b.as_mut_ptr(),
                LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd,
                p.as_value_ref(),
                x.as_value_ref(),
                LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                0,
            )
        };
        if v.is_null() {
            return Err(Error::Llvm("atomicrmw fadd".into()));
        }
        // SAFETY: `v` is a non-null float-typed instruction just built.
        Ok(unsafe { FloatValue::new(v) }.into())
    }

    pub(super) fn float_bits(
        &mut self,
        s: Scalar,
        v: BasicValueEnum<'ctx>,
    ) -> Result<IntValue<'ctx>> {
        match s {
            Scalar::F16 | Scalar::BF16 => self.half_to_bits(s, v),
            Scalar::F32 => Ok(self
                .b
                .build_bit_cast(v, self.ctx.i32_type(), "")?
                .into_int_value()),
            _ => Ok(self
                .b
                .build_bit_cast(v, self.ctx.i64_type(), "")?
                .into_int_value()),
        }
    }

    pub(super) fn bits_float(
        &mut self,
        s: Scalar,
        v: IntValue<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        match s {
            Scalar::F16 | Scalar::BF16 => self.bits_to_half(s, v),
            Scalar::F32 => Ok(self.b.build_bit_cast(v, self.ctx.f32_type(), "")?),
            _ => Ok(self.b.build_bit_cast(v, self.ctx.f64_type(), "")?),
        }
    }
}
