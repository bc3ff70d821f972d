//! Arithmetic in the vector tier: the instructions with a vector form
//! (unary, binary, casts, comparisons, selects, aggregates).

use super::*;

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    /// Lowers a varying `inst` with vector instructions; false when it has
    /// no vector form here (it is then lowered lane by lane).
    pub(super) fn vector_form(&mut self, inst: Inst) -> Result<bool> {
        let f = self.cur();
        let data = &f.insts[inst];
        let vec_scalar = |s: Scalar| !matches!(s, Scalar::F16 | Scalar::BF16);
        let out: BasicValueEnum = match &data.kind {
            InstKind::ThreadId if self.in_whole_vectors() => {
                // `splat(i32(base)) + lanes`: consecutive as the IR's
                // values, so a dense access's check folds away.
                let i32t = self.ctx.i32_type();
                let base = self
                    .st
                    .tid
                    .ok_or_else(|| Error::Llvm("no thread base".into()))?;
                let b32 = self.b.build_int_truncate(base, i32t, "")?;
                let lanes: Vec<IntValue> = (0..self.width())
                    .map(|l| i32t.const_int(l as u64, false))
                    .collect();
                self.b
                    .build_int_add(
                        self.splat(b32.into())?.into_vector_value(),
                        VectorType::const_vector(&lanes),
                        "",
                    )?
                    .into()
            }
            InstKind::ThreadId => {
                let t = self.vx()?.tid;
                let i32v = self.ctx.i32_type().vec_type(self.width());
                self.b.build_int_truncate(t, i32v, "")?.into()
            }
            InstKind::Unary(op, x) => {
                let s = self.scalar_of(*x)?;
                if let Some(func) = MathFn::of_unary(*op) {
                    let (xv, m) = (self.vget1(*x)?.into_vector_value(), self.mask()?);
                    let Some(v) = self.vmath(func, s, &[xv], m)? else {
                        return Ok(false);
                    };
                    self.vdef_results(inst, vec![v])?;
                    return Ok(true);
                }
                if !vec_scalar(s) {
                    return Ok(false);
                }
                let xv = self.vget1(*x)?;
                let Some(v) = self.vunary(*op, s, xv)? else {
                    return Ok(false);
                };
                v
            }
            InstKind::Binary(op, a, b) => {
                let s = self.scalar_of(*a)?;
                if let Some(func) = binary_math(*op, s) {
                    let av = self.vget1(*a)?.into_vector_value();
                    let (bv, m) = (self.vget1(*b)?.into_vector_value(), self.mask()?);
                    let Some(v) = self.vmath(func, s, &[av, bv], m)? else {
                        return Ok(false);
                    };
                    self.vdef_results(inst, vec![v])?;
                    return Ok(true);
                }
                if !vec_scalar(s) {
                    return Ok(false);
                }
                let (av, bv) = (self.vget1(*a)?, self.vget1(*b)?);
                let Some(v) = self.vbinary(*op, s, av, bv)? else {
                    return Ok(false);
                };
                v
            }
            InstKind::Fma(a, b, c) => {
                let s = self.scalar_of(*a)?;
                if !vec_scalar(s) || !s.is_float() {
                    return Ok(false);
                }
                let (av, bv, cv) = (self.vget1(*a)?, self.vget1(*b)?, self.vget1(*c)?);
                let v = self.call_intr("llvm.fma", &[av.get_type()], &[av, bv, cv])?;
                self.fast_flags(v);
                v
            }
            InstKind::Cast(x, to) => {
                let s = self.scalar_of(*x)?;
                if !vec_scalar(s) || !vec_scalar(*to) {
                    return Ok(false);
                }
                let xv = self.vget1(*x)?;
                self.vcast(s, *to, xv)?
            }
            InstKind::Bitcast(x, to) => {
                let s = self.scalar_of(*x)?;
                if !vec_scalar(s) || !vec_scalar(*to) || s.size() != to.size() || s == Scalar::Bool
                {
                    return Ok(false);
                }
                let xv = self.vget1(*x)?;
                let t = self.vty(self.scalar_ty(*to))?;
                self.b.build_bit_cast(xv, t, "")?
            }
            InstKind::Select(c, a, b) => {
                let (av, bv) = (self.vget(*a)?, self.vget(*b)?);
                let mut out = Vec::with_capacity(av.len());
                if self.is_var(*c) {
                    let cv = self.vget1(*c)?.into_vector_value();
                    for (x, y) in av.into_iter().zip(bv) {
                        out.push(self.b.build_select(cv, x, y, "")?);
                    }
                } else {
                    let cv = self.cond(*c)?;
                    for (x, y) in av.into_iter().zip(bv) {
                        out.push(self.b.build_select(cv, x, y, "")?);
                    }
                }
                self.vdef_results(inst, out)?;
                return Ok(true);
            }
            InstKind::Make(_, parts) => {
                let mut out = Vec::new();
                for &p in parts {
                    out.extend(self.vget(p)?);
                }
                self.vdef_results(inst, out)?;
                return Ok(true);
            }
            InstKind::Extract(agg, path) => {
                let leaves = self.vget(*agg)?;
                let part = self.extract_part(f.value_type(*agg), path, &leaves)?;
                self.vdef_results(inst, part)?;
                return Ok(true);
            }
            InstKind::Insert(agg, path, v) => {
                let (leaves, vv) = (self.vget(*agg)?, self.vget(*v)?);
                let out = self.insert_part(f.value_type(*agg), path, leaves, &vv)?;
                self.vdef_results(inst, out)?;
                return Ok(true);
            }
            InstKind::Load(m) => return self.vload(inst, m),
            InstKind::Store(m, v) => return self.vstore(m, *v),
            _ => return Ok(false),
        };
        self.vdef_results(inst, vec![out])?;
        Ok(true)
    }

    pub(super) fn vunary(
        &mut self,
        op: UnaryOp,
        s: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        use UnaryOp::*;
        let xv = x.into_vector_value();
        let fl = s.is_float();
        let v: BasicValueEnum = match op {
            Neg if fl => self.b.build_float_neg(xv, "")?.into(),
            Neg if s.is_int() => self.b.build_int_neg(xv, "")?.into(),
            Not if !fl => self.b.build_not(xv, "")?.into(),
            Abs if fl => self.fintr("llvm.fabs", x)?,
            Abs if s.is_unsigned_int() => x,
            Sqrt if fl => self.fintr("llvm.sqrt", x)?,
            Floor if fl => self.fintr("llvm.floor", x)?,
            Ceil if fl => self.fintr("llvm.ceil", x)?,
            Trunc if fl => self.fintr("llvm.trunc", x)?,
            Rint if fl => self.fintr("llvm.rint", x)?,
            Round if fl => self.fintr("llvm.round", x)?,
            Floor | Ceil | Trunc | Rint | Round if s.is_int() => x,
            _ => return Ok(None),
        };
        self.fast_flags(v);
        Ok(Some(v))
    }

    pub(super) fn vbinary(
        &mut self,
        op: BinaryOp,
        s: Scalar,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
    ) -> Result<Option<BasicValueEnum<'ctx>>> {
        use BinaryOp::*;
        let (x, y) = (a.into_vector_value(), b.into_vector_value());
        let bb = &self.b;
        if s.is_float() {
            let cmp = |p| -> Result<BasicValueEnum<'ctx>> {
                Ok(bb.build_float_compare(p, x, y, "")?.into())
            };
            let v: BasicValueEnum = match op {
                Add => bb.build_float_add(x, y, "")?.into(),
                Sub => bb.build_float_sub(x, y, "")?.into(),
                Mul => bb.build_float_mul(x, y, "")?.into(),
                Div => bb.build_float_div(x, y, "")?.into(),
                Min | Max => return Ok(Some(self.fminmax(op == Min, s, a, b)?)),
                Copysign => {
                    return Ok(Some(self.call_intr(
                        "llvm.copysign",
                        &[a.get_type()],
                        &[a, b],
                    )?))
                }
                Eq => cmp(FloatPredicate::OEQ)?,
                Ne => cmp(FloatPredicate::UNE)?,
                Lt => cmp(FloatPredicate::OLT)?,
                Le => cmp(FloatPredicate::OLE)?,
                Gt => cmp(FloatPredicate::OGT)?,
                Ge => cmp(FloatPredicate::OGE)?,
                _ => return Ok(None),
            };
            self.fast_flags(v);
            return Ok(Some(v));
        }
        let signed = s.is_signed_int();
        let is_bool = s == Scalar::Bool;
        let pred = |sp: IntPredicate, up: IntPredicate| if signed { sp } else { up };
        let cmp =
            |p| -> Result<BasicValueEnum<'ctx>> { Ok(bb.build_int_compare(p, x, y, "")?.into()) };
        let minmax = |n: &str| self.call_intr(n, &[a.get_type()], &[a, b]);
        Ok(Some(match op {
            Add if !is_bool => bb.build_int_add(x, y, "")?.into(),
            Sub if !is_bool => bb.build_int_sub(x, y, "")?.into(),
            Mul if !is_bool => bb.build_int_mul(x, y, "")?.into(),
            Min if !is_bool => minmax(if signed { "llvm.smin" } else { "llvm.umin" })?,
            Max if !is_bool => minmax(if signed { "llvm.smax" } else { "llvm.umax" })?,
            And => bb.build_and(x, y, "")?.into(),
            Or => bb.build_or(x, y, "")?.into(),
            Xor => bb.build_xor(x, y, "")?.into(),
            Shl | Shr if !is_bool => {
                let bits = x
                    .get_type()
                    .get_element_type()
                    .into_int_type()
                    .get_bit_width();
                let k = self.splat(
                    self.scalar_ty(s)
                        .into_int_type()
                        .const_int(bits as u64 - 1, false)
                        .into(),
                )?;
                let amt = self.b.build_and(y, k.into_vector_value(), "")?;
                match op {
                    Shl => self.b.build_left_shift(x, amt, "")?.into(),
                    _ => self.b.build_right_shift(x, amt, signed, "")?.into(),
                }
            }
            Eq => cmp(IntPredicate::EQ)?,
            Ne => cmp(IntPredicate::NE)?,
            Lt => cmp(pred(IntPredicate::SLT, IntPredicate::ULT))?,
            Le => cmp(pred(IntPredicate::SLE, IntPredicate::ULE))?,
            Gt => cmp(pred(IntPredicate::SGT, IntPredicate::UGT))?,
            Ge => cmp(pred(IntPredicate::SGE, IntPredicate::UGE))?,
            _ => return Ok(None),
        }))
    }

    /// The scalar lowering's casts, on vectors (f16 and bf16 excluded).
    pub(super) fn vcast(
        &mut self,
        from: Scalar,
        to: Scalar,
        x: BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>> {
        if from == to {
            return Ok(x);
        }
        let xv = x.into_vector_value();
        let tt = self.vty(self.scalar_ty(to))?;
        if to == Scalar::Bool {
            let zero = self.vty(self.scalar_ty(from))?.const_zero();
            return Ok(if from.is_float() {
                self.b
                    .build_float_compare(FloatPredicate::UNE, xv, zero, "")?
                    .into()
            } else {
                self.b
                    .build_int_compare(IntPredicate::NE, xv, zero, "")?
                    .into()
            });
        }
        if !from.is_float() && !to.is_float() {
            let width = |t: VectorType<'ctx>| t.get_element_type().into_int_type().get_bit_width();
            let (fb, tb) = (width(xv.get_type()), width(tt));
            return Ok(match fb.cmp(&tb) {
                std::cmp::Ordering::Equal => x,
                std::cmp::Ordering::Greater => self.b.build_int_truncate(xv, tt, "")?.into(),
                std::cmp::Ordering::Less if from.is_signed_int() => {
                    self.b.build_int_s_extend(xv, tt, "")?.into()
                }
                std::cmp::Ordering::Less => self.b.build_int_z_extend(xv, tt, "")?.into(),
            });
        }
        if !from.is_float() {
            return Ok(if from.is_signed_int() {
                self.b.build_signed_int_to_float(xv, tt, "")?.into()
            } else {
                self.b.build_unsigned_int_to_float(xv, tt, "")?.into()
            });
        }
        if to.is_float() {
            return Ok(if to == Scalar::F64 {
                self.b.build_float_ext(xv, tt, "")?.into()
            } else {
                self.b.build_float_trunc(xv, tt, "")?.into()
            });
        }
        let name = if to.is_signed_int() {
            "llvm.fptosi.sat"
        } else {
            "llvm.fptoui.sat"
        };
        self.call_intr(name, &[tt.into(), x.get_type()], &[x])
    }
}
