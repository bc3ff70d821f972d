//! Memory: the address of an array access, loads and stores of slots, and
//! atomics.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I16, I32, I64, I8};
use cranelift_codegen::ir::{self as cl, AtomicRmwOp, BlockArg, InstBuilder, MemFlagsData};
use weft_ir::ir::{AtomicOp, BinaryOp, MemAccess};
use weft_ir::{layout, Scalar, Type};

use super::{cty, slot_cty, FnTx, Result, Slot, SlotKind};

pub(super) fn mem_flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

pub(super) fn arg_flags() -> MemFlagsData {
    MemFlagsData::trusted().with_readonly().with_can_move()
}

impl<'a, 'b, 'm> FnTx<'a, 'b, 'm> {
    /// Base address of `array[indices]`, the byte offset of `path` inside the
    /// element, and the accessed type.
    pub(super) fn address(&mut self, m: &MemAccess) -> Result<(cl::Value, u32, Type)> {
        let Type::Array(at) = self.f.value_type(m.array) else {
            return self.invalid("memory access on a non-array");
        };
        if m.indices.len() != at.ndim as usize {
            return self.invalid("index count differs from the array's ndim");
        }
        let leaves = self.get(m.array)?;
        let nd = at.ndim as usize;
        let mut addr = leaves[0];
        for (k, &ix) in m.indices.iter().enumerate() {
            let s = self.scalar_of(ix)?;
            let iv = self.get1(ix)?;
            let iv = match s {
                Scalar::I64 | Scalar::U64 => iv,
                s if s.is_signed_int() => self.b.ins().sextend(I64, iv),
                s if s.is_int() || s == Scalar::Bool => self.b.ins().uextend(I64, iv),
                _ => return self.invalid("float array index"),
            };
            let off = self.b.ins().imul(iv, leaves[1 + nd + k]);
            addr = self.b.ins().iadd(addr, off);
        }
        let Some((off, ty)) = layout::path_offset(at.elem.into(), &m.path, &self.cx.m.structs)
        else {
            return self.invalid("bad component path in a memory access");
        };
        Ok((addr, off, ty))
    }

    pub(super) fn load_slot(
        &mut self,
        s: Slot,
        addr: cl::Value,
        off: u32,
        flags: MemFlagsData,
    ) -> Result<cl::Value> {
        let off = off as i32;
        Ok(match s.kind {
            SlotKind::Scalar(Scalar::Bool) => {
                let v = self.b.ins().load(I8, flags, addr, off);
                self.b.ins().icmp_imm_u(IntCC::NotEqual, v, 0)
            }
            SlotKind::Scalar(s @ (Scalar::F16 | Scalar::BF16)) => {
                let v = self.b.ins().uload16(I32, flags, addr, off);
                self.half_from_bits(s, v)?
            }
            _ => self.b.ins().load(slot_cty(s), flags, addr, off),
        })
    }

    pub(super) fn store_slot(
        &mut self,
        s: Slot,
        v: cl::Value,
        addr: cl::Value,
        off: u32,
    ) -> Result<()> {
        let off = off as i32;
        if let SlotKind::Scalar(h @ (Scalar::F16 | Scalar::BF16)) = s.kind {
            let bits = self.half_bits(h, v)?;
            self.b.ins().istore16(mem_flags(), bits, addr, off);
        } else {
            self.b.ins().store(mem_flags(), v, addr, off);
        }
        Ok(())
    }

    pub(super) fn atomic(
        &mut self,
        op: AtomicOp,
        s: Scalar,
        p: cl::Value,
        x: cl::Value,
    ) -> Result<cl::Value> {
        let signed = s.is_signed_int();
        if !s.is_float() {
            let rmw = match op {
                AtomicOp::Add => AtomicRmwOp::Add,
                AtomicOp::Sub => AtomicRmwOp::Sub,
                AtomicOp::And => AtomicRmwOp::And,
                AtomicOp::Or => AtomicRmwOp::Or,
                AtomicOp::Xor => AtomicRmwOp::Xor,
                AtomicOp::Exchange => AtomicRmwOp::Xchg,
                AtomicOp::Min if signed => AtomicRmwOp::Smin,
                AtomicOp::Max if signed => AtomicRmwOp::Smax,
                AtomicOp::Min => AtomicRmwOp::Umin,
                AtomicOp::Max => AtomicRmwOp::Umax,
            };
            return Ok(self.b.ins().atomic_rmw(cty(s), mem_flags(), rmw, p, x));
        }
        let it = match s {
            Scalar::F16 | Scalar::BF16 => I16,
            Scalar::F32 => I32,
            _ => I64,
        };
        let to_bits = |tx: &mut Self, v: cl::Value| -> Result<cl::Value> {
            if matches!(s, Scalar::F16 | Scalar::BF16) {
                let b = tx.half_bits(s, v)?;
                Ok(tx.b.ins().ireduce(I16, b))
            } else {
                Ok(tx.b.ins().bitcast(it, MemFlagsData::new(), v))
            }
        };
        let from_bits = |tx: &mut Self, v: cl::Value| -> Result<cl::Value> {
            if matches!(s, Scalar::F16 | Scalar::BF16) {
                let w = tx.b.ins().uextend(I32, v);
                tx.half_from_bits(s, w)
            } else {
                Ok(tx.b.ins().bitcast(cty(s), MemFlagsData::new(), v))
            }
        };
        if op == AtomicOp::Exchange {
            let xb = to_bits(self, x)?;
            let old = self
                .b
                .ins()
                .atomic_rmw(it, mem_flags(), AtomicRmwOp::Xchg, p, xb);
            return from_bits(self, old);
        }
        // Compare-and-swap loop.
        let init = self.b.ins().atomic_load(it, mem_flags(), p);
        let lp = self.b.create_block();
        let expected = self.b.append_block_param(lp, it);
        let done = self.b.create_block();
        self.jump(lp, &[init])?;
        self.switch_to(lp);
        let old = from_bits(self, expected)?;
        let new = match op.update() {
            Some(b @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Min | BinaryOp::Max)) => {
                self.binary(b, s, old, x)?
            }
            _ => return self.unsupported(format!("atomic {op:?} on floats")),
        };
        let nb = to_bits(self, new)?;
        let prev = self.b.ins().atomic_cas(mem_flags(), p, expected, nb);
        let ok = self.b.ins().icmp(IntCC::Equal, prev, expected);
        self.b
            .ins()
            .brif(ok, done, &[], lp, &[BlockArg::Value(prev)]);
        self.switch_to(done);
        Ok(old)
    }

    /// Compare-and-swap of the 32- or 64-bit scalar at `p`: stores `x` if
    /// the element's bits equal `c`'s; the old value.
    pub(super) fn atomic_cas(
        &mut self,
        s: Scalar,
        p: cl::Value,
        c: cl::Value,
        x: cl::Value,
    ) -> Result<cl::Value> {
        let it = match s {
            Scalar::F32 => I32,
            Scalar::F64 => I64,
            Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64 => cty(s),
            _ => return self.unsupported(format!("atomic_cas on {s}")),
        };
        if !s.is_float() {
            return Ok(self.b.ins().atomic_cas(mem_flags(), p, c, x));
        }
        let cb = self.b.ins().bitcast(it, MemFlagsData::new(), c);
        let xb = self.b.ins().bitcast(it, MemFlagsData::new(), x);
        let old = self.b.ins().atomic_cas(mem_flags(), p, cb, xb);
        Ok(self.b.ins().bitcast(cty(s), MemFlagsData::new(), old))
    }
}
