//! The kernel and func frame: LLVM signatures (a kernel takes the argument
//! block, plus `start, end` on the host; a func takes the block, the thread
//! index and its parameters' slots, and returns a struct of its results),
//! per-function attributes, the parameters' loads from the argument block
//! and the thread loop (grid-stride on NVPTX, `start..end` on the host).

use super::{sanitize, FnState, Lx, Result, Ret, TargetKind, UNSET};
use crate::Error;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Linkage;
use inkwell::values::{FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use weft_ir::{layout, FuncId, FuncKind, Type};

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    // ---- declarations ----

    pub(super) fn declare_kernel(&mut self, sym: &str, size: u32) -> Result<FunctionValue<'ctx>> {
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let i64t = self.ctx.i64_type();
        let void = self.ctx.void_type();
        match self.cfg.kind {
            TargetKind::Host => {
                let fty = void.fn_type(&[ptr.into(), i64t.into(), i64t.into()], false);
                let fv = self.module.add_function(sym, fty, Some(Linkage::External));
                // The argument block is read-only for the launch and no
                // array points into it, so its loads hoist out of loops.
                for a in ["noalias", "nocapture", "readonly"] {
                    let at = self
                        .ctx
                        .create_enum_attribute(Attribute::get_named_enum_kind_id(a), 0);
                    fv.add_attribute(AttributeLoc::Param(0), at);
                }
                self.add_fn_attr(fv, "nounwind");
                Ok(fv)
            }
            TargetKind::Nvptx => {
                let fty = void.fn_type(&[ptr.into()], false);
                let fv = self.module.add_function(sym, fty, Some(Linkage::External));
                // ptx_kernel calling convention.
                fv.set_call_conventions(71);
                let block_ty = self.ctx.i8_type().array_type(size.max(16));
                let byval = self.ctx.create_type_attribute(
                    Attribute::get_named_enum_kind_id("byval"),
                    inkwell::types::AnyType::as_any_type_enum(&block_ty),
                );
                fv.add_attribute(AttributeLoc::Param(0), byval);
                let align = self
                    .ctx
                    .create_enum_attribute(Attribute::get_named_enum_kind_id("align"), 8);
                fv.add_attribute(AttributeLoc::Param(0), align);
                for a in ["noalias", "nocapture", "readonly"] {
                    let at = self
                        .ctx
                        .create_enum_attribute(Attribute::get_named_enum_kind_id(a), 0);
                    fv.add_attribute(AttributeLoc::Param(0), at);
                }
                self.add_fn_attr(fv, "nounwind");
                // nvvm.annotations: {ptr @k, !"kernel", i32 1}
                let md = self.ctx.metadata_node(&[
                    fv.as_global_value().as_pointer_value().into(),
                    self.ctx.metadata_string("kernel").into(),
                    self.ctx.i32_type().const_int(1, false).into(),
                ]);
                self.module
                    .add_global_metadata("nvvm.annotations", &md)
                    .map_err(|e| Error::Llvm(e.to_string()))?;
                Ok(fv)
            }
        }
    }

    pub(super) fn add_fn_attr(&self, fv: FunctionValue<'ctx>, name: &str) {
        let at = self
            .ctx
            .create_enum_attribute(Attribute::get_named_enum_kind_id(name), 0);
        fv.add_attribute(AttributeLoc::Function, at);
    }

    pub(super) fn declare_func(
        &mut self,
        fid: FuncId,
        f: &weft_ir::Function,
    ) -> Result<FunctionValue<'ctx>> {
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let mut params: Vec<inkwell::types::BasicMetadataTypeEnum> =
            vec![ptr.into(), self.ctx.i64_type().into()];
        for p in &f.params {
            for t in self.types_of(p.ty) {
                params.push(t.into());
            }
        }
        let mut rets = Vec::new();
        for &r in &f.returns {
            rets.extend(self.types_of(r));
        }
        let fty = self.ctx.struct_type(&rets, false).fn_type(&params, false);
        let name = format!("weft_fn_{}_{}", fid.as_u32(), sanitize(&f.name));
        let fv = self
            .module
            .add_function(&name, fty, Some(Linkage::Internal));
        self.add_fn_attr(fv, "nounwind");
        Ok(fv)
    }

    // ---- functions ----

    pub(super) fn lower_function(&mut self, fid: FuncId) -> Result<()> {
        self.cur_id = fid;
        let f = &self.m.funcs[fid];
        let Some(&fv) = self.funcs.get(&fid) else {
            return Err(Error::Llvm(format!("{} was not declared", f.name)));
        };
        self.st = FnState {
            map: vec![UNSET; f.values.len()],
            func: Some(fv),
            loc: f.loc,
            sincos_of: if self.cfg.kind == TargetKind::Nvptx && self.cfg.libdevice {
                super::math::sincos_operands(f)
            } else {
                Default::default()
            },
            ..FnState::default()
        };
        self.setup_debug(f, fv);
        if let Some((cpu, features)) = self.cfg.cpu {
            let a = self.ctx.create_string_attribute("target-cpu", cpu);
            fv.add_attribute(AttributeLoc::Function, a);
            let a = self
                .ctx
                .create_string_attribute("target-features", features);
            fv.add_attribute(AttributeLoc::Function, a);
        }
        match f.kind {
            FuncKind::Kernel => match self.vector_width_for(f) {
                Some((w, uni)) => {
                    let a = self
                        .ctx
                        .create_string_attribute("min-legal-vector-width", &(w * 32).to_string());
                    fv.add_attribute(AttributeLoc::Function, a);
                    self.lanes.insert(fid, w);
                    self.spmd_kernel_body(f, fv, w, uni)
                }
                None => self.kernel_body(f, fv),
            },
            FuncKind::Func => self.func_body(f, fv),
        }
    }

    /// The vector tier's width for kernel `f` and its uniformity, when the
    /// tier takes it.
    fn vector_width_for(
        &self,
        f: &weft_ir::Function,
    ) -> Option<(u32, weft_ir::uniform::Uniformity)> {
        let c = &self.cfg;
        if c.kind != TargetKind::Host || c.vector_width <= 1 || c.debug || c.cancel_checks {
            return None;
        }
        // A deterministic kernel whose threads must run in order stays
        // scalar: the tier interleaves the instructions of `w` threads, so a
        // thread would see its vector's later threads' atomics (and miss
        // their earlier stores), which is not thread order.
        if matches!(
            weft_ir::Determinism::of(self.m, self.cur_id),
            weft_ir::Determinism::Serial { .. }
        ) {
            return None;
        }
        let uni = weft_ir::uniform::uniformity(f);
        super::spmd::rejects(f, &uni, c.inline_math)
            .is_none()
            .then_some((c.vector_width, uni))
    }

    pub(super) fn load_params(
        &mut self,
        f: &'m weft_ir::Function,
        args: PointerValue<'ctx>,
    ) -> Result<()> {
        let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
        let al = layout::arg_layout(&types, &self.m.structs);
        let params = &f.regions[f.body].params;
        if params.len() != types.len() {
            return self.invalid("kernel body params do not match its params");
        }
        for (k, &v) in params.iter().enumerate() {
            let slots = self.flat(types[k]);
            let mut leaves = Vec::with_capacity(slots.len());
            for s in slots.iter() {
                leaves.push(self.load_slot(*s, args, al.offsets[k] + s.offset, true)?);
            }
            self.def(v, &leaves);
        }
        Ok(())
    }

    pub(super) fn kernel_body(
        &mut self,
        f: &'m weft_ir::Function,
        fv: FunctionValue<'ctx>,
    ) -> Result<()> {
        let i64t = self.ctx.i64_type();
        let entry = self.new_block("entry")?;
        self.switch_to(entry);
        self.set_loc(f.loc);
        let Some(args) = fv.get_nth_param(0).map(|p| p.into_pointer_value()) else {
            return Err(Error::Llvm("kernel without an argument block".into()));
        };
        self.st.args = Some(args);
        let (start, end, step) = match self.cfg.kind {
            TargetKind::Host => {
                let (Some(s), Some(e)) = (fv.get_nth_param(1), fv.get_nth_param(2)) else {
                    return Err(Error::Llvm("host kernel signature".into()));
                };
                (
                    s.into_int_value(),
                    e.into_int_value(),
                    i64t.const_int(1, false),
                )
            }
            TargetKind::Nvptx => {
                let sreg = |lx: &Self, n: &str| -> Result<IntValue<'ctx>> {
                    let v = lx.call_intr(&format!("llvm.nvvm.read.ptx.sreg.{n}"), &[], &[])?;
                    Ok(lx.b.build_int_z_extend(v.into_int_value(), i64t, "")?)
                };
                let ctaid = sreg(self, "ctaid.x")?;
                let ntid = sreg(self, "ntid.x")?;
                let tid = sreg(self, "tid.x")?;
                let nctaid = sreg(self, "nctaid.x")?;
                let base = self.b.build_int_mul(ctaid, ntid, "")?;
                let start = self.b.build_int_add(base, tid, "")?;
                let step = self.b.build_int_mul(nctaid, ntid, "")?;
                let mut total = i64t.const_int(1, false);
                for axis in 0..4 {
                    let d = self.load_at(self.ctx.i32_type().into(), args, 4 * axis, 4)?;
                    let d = self.b.build_int_s_extend(d.into_int_value(), i64t, "")?;
                    total = self.b.build_int_mul(total, d, "")?;
                }
                (start, total, step)
            }
        };
        self.load_params(f, args)?;
        let body = self.new_block("thread")?;
        let latch = self.new_block("next")?;
        let exit = self.new_block("exit")?;
        let c = self
            .b
            .build_int_compare(IntPredicate::SLT, start, end, "")?;
        self.b.build_conditional_branch(c, body, exit)?;
        self.switch_to(body);
        let tid = self.b.build_phi(i64t, "tid")?;
        tid.add_incoming(&[(&start, entry)]);
        let tidv = tid.as_basic_value().into_int_value();
        self.st.tid = Some(tidv);
        self.st.ret = Some(Ret::NextThread(latch));
        self.region(f.body, None)?;
        self.switch_to(latch);
        let next = self.b.build_int_add(tidv, step, "")?;
        tid.add_incoming(&[(&next, latch)]);
        let c = self.b.build_int_compare(IntPredicate::SLT, next, end, "")?;
        self.b.build_conditional_branch(c, body, exit)?;
        self.switch_to(exit);
        self.b.build_return(None)?;
        Ok(())
    }

    pub(super) fn func_body(
        &mut self,
        f: &'m weft_ir::Function,
        fv: FunctionValue<'ctx>,
    ) -> Result<()> {
        let entry = self.new_block("entry")?;
        self.switch_to(entry);
        self.set_loc(f.loc);
        let ps = fv.get_params();
        if ps.len() < 2 {
            return Err(Error::Llvm("func signature".into()));
        }
        self.st.args = Some(ps[0].into_pointer_value());
        self.st.tid = Some(ps[1].into_int_value());
        let params = f.regions[f.body].params.clone();
        self.bind(&params, &ps[2..])?;
        self.st.ret = Some(Ret::Func);
        self.region(f.body, None)
    }
}
