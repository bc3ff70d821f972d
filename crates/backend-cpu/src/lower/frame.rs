//! The frame of a kernel or func: signatures, where kernel parameters are
//! loaded and their loading, the thread loops (general and unit-stride),
//! the entry points `kernel_into`/`func_into`, `finish`, and calls
//! between functions.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::I64;
use cranelift_codegen::ir::{self as cl, AbiParam, Block, BlockArg, InstBuilder, MemFlagsData};
use cranelift_jit::JITModule;
use cranelift_module::Module as _;
use std::collections::HashMap;
use weft_ir::ir::InstKind;
use weft_ir::{layout, FuncId, Inst, Type};

use super::memory::arg_flags;
use super::simd::{unrollable, UNROLL};
use super::{slot_cty, FnTx, Result, Ret, UNSET};

/// Decides where each kernel parameter is loaded: `at_entry[k]` (before
/// the thread loop) or, keyed by the index of the top-level body
/// instruction before which they are loaded, once per thread. Unused
/// parameters are loaded nowhere.
fn param_placement(f: &weft_ir::Function) -> (Vec<bool>, HashMap<usize, Vec<usize>>) {
    let params = &f.regions[f.body].params;
    let index: HashMap<weft_ir::Value, usize> =
        params.iter().enumerate().map(|(k, &v)| (v, k)).collect();
    let mut first_use: Vec<Option<usize>> = vec![None; params.len()];
    let mut first_loop: Option<usize> = None;
    fn visit(
        f: &weft_ir::Function,
        inst: Inst,
        top: usize,
        index: &HashMap<weft_ir::Value, usize>,
        first_use: &mut [Option<usize>],
        first_loop: &mut Option<usize>,
    ) {
        let Some(d) = f.insts.get(inst) else { return };
        for a in d.kind.args() {
            if let Some(&k) = index.get(&a) {
                first_use[k].get_or_insert(top);
            }
        }
        if matches!(d.kind, InstKind::Loop { .. }) {
            first_loop.get_or_insert(top);
        }
        for r in d.kind.regions() {
            if let Some(rd) = f.regions.get(r) {
                for &i in &rd.insts {
                    visit(f, i, top, index, first_use, first_loop);
                }
            }
        }
    }
    for (top, &inst) in f.regions[f.body].insts.iter().enumerate() {
        visit(f, inst, top, &index, &mut first_use, &mut first_loop);
    }
    let mut at_entry = vec![false; params.len()];
    let mut per_thread: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, fu) in first_use.iter().enumerate() {
        match (*fu, first_loop) {
            (None, _) => {}
            (Some(u), Some(l)) if u > l => per_thread.entry(u).or_default().push(k),
            _ => at_entry[k] = true,
        }
    }
    (at_entry, per_thread)
}

/// What every copy of a kernel body needs.
struct BodyCtx<'c> {
    args: cl::Value,
    end: cl::Value,
    exit: Block,
    types: &'c [Type],
    params: &'c [weft_ir::Value],
    offsets: &'c [u32],
    per_thread: &'c HashMap<usize, Vec<usize>>,
}

/// The signature of a kernel entry: `(args, start, end)`.
pub(crate) fn kernel_signature(module: &JITModule) -> cl::Signature {
    let mut sig = module.make_signature();
    for _ in 0..3 {
        sig.params.push(AbiParam::new(I64));
    }
    sig
}

/// The signature of a func: hidden `(args, thread index)`, then the flattened
/// params; the flattened returns.
pub(crate) fn func_signature(
    m: &weft_ir::Module,
    module: &JITModule,
    f: &weft_ir::Function,
) -> cl::Signature {
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(I64));
    sig.params.push(AbiParam::new(I64));
    let leaves = |ty| {
        layout::slots(ty, &m.structs)
            .into_iter()
            .map(|s| AbiParam::new(slot_cty(s)))
    };
    for p in &f.params {
        sig.params.extend(leaves(p.ty));
    }
    for &r in &f.returns {
        sig.returns.extend(leaves(r));
    }
    sig
}

impl<'a, 'b, 'm> FnTx<'a, 'b, 'm> {
    /// Translates a kernel: `entry(args, start, end)` looping over threads.
    pub fn kernel_into(&mut self) -> Result<()> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.switch_to(entry);
        let p = self.b.block_params(entry).to_vec();
        let (args, start, end) = (p[0], p[1], p[2]);
        self.args_ptr = Some(args);
        self.set_srcloc(self.f.loc);

        // Parameters are loaded once per launch, before the thread loop,
        // when the kernel uses them before or inside its first loop: they
        // are what inner loops need. A parameter first used after that loop
        // is loaded once per thread, just before the top-level instruction
        // that first uses it, so it does not occupy a register across the
        // loop (see `param_placement`).
        let types: Vec<Type> = self.f.params.iter().map(|p| p.ty).collect();
        let al = layout::arg_layout(&types, &self.cx.m.structs);
        let params = self.f.regions[self.f.body].params.clone();
        if params.len() != types.len() {
            return self.invalid("kernel body params do not match its params");
        }
        let (mut at_entry, mut per_thread) = param_placement(self.f);
        if self.cx.debug {
            // Every parameter is visible to the hooks from the start.
            at_entry.iter_mut().for_each(|e| *e = true);
            per_thread.clear();
        }
        let mut entry_leaves = HashMap::new();
        for (k, &v) in params.iter().enumerate() {
            if at_entry[k] {
                self.load_param(v, types[k], args, al.offsets[k], arg_flags())?;
                entry_leaves.insert(k, self.get(v)?);
            }
        }

        // Two versions of the thread loop: one where every array the kernel
        // uses has a unit innermost stride (the stride is then a constant,
        // and addresses fold into x86 addressing modes), one general. The
        // innermost axis is the last one, or for an SoA parameter the last
        // user axis: its last axis selects the plane, and the plane stride
        // stays a loaded, loop-invariant value.
        let mut contig: Option<cl::Value> = None;
        let mut unit = Vec::new();
        for (k, &t) in types.iter().enumerate() {
            let used = at_entry[k] || per_thread.values().any(|v| v.contains(&k));
            let Type::Array(at) = t else { continue };
            if !used || at.ndim == 0 || self.cx.debug_info {
                continue;
            }
            let axis = match self.f.soa_params.iter().find(|sp| sp.param as usize == k) {
                Some(sp) if sp.ndim >= 1 && sp.ndim < at.ndim => sp.ndim - 1,
                Some(_) => return self.invalid("SoA parameter with a bad user ndim"),
                None => at.ndim - 1,
            };
            let esize = layout::elem_size(at.elem, &self.cx.m.structs);
            let off = al.offsets[k] + layout::ARRAY_DESC_STRIDES + 8 * axis as u32;
            let st = self.b.ins().load(I64, arg_flags(), args, off as i32);
            let ok = self.b.ins().icmp_imm_s(IntCC::Equal, st, esize as i64);
            contig = Some(match contig {
                Some(c) => self.b.ins().band(c, ok),
                None => ok,
            });
            // Leaves: data, shape[ndim], strides[ndim].
            unit.push((k, 1 + at.ndim as usize + axis as usize, esize));
        }
        self.begin_reductions()?;
        let exit = self.b.create_block();
        let fast = self.b.create_block();
        let general = self.b.create_block();
        match contig {
            Some(c) => {
                self.b.ins().brif(c, fast, &[], general, &[]);
            }
            None => {
                self.b.ins().jump(general, &[]);
            }
        }
        let body_ctx = BodyCtx {
            args,
            end,
            exit,
            types: &types,
            params: &params,
            offsets: &al.offsets,
            per_thread: &per_thread,
        };
        // A kernel with a SIMD loop inlines its `afn` transcendentals in
        // every loop (so each thread computes the same whatever loop runs
        // it); one without keeps the library calls, which beat the inline
        // code one value at a time (see `crate::fastmath`).
        let simd = contig.is_some() && !self.cx.debug && self.simd_ok()?;
        self.inline_approx = simd;
        if contig.is_some() {
            self.switch_to(fast);
            // Entry-loaded arrays get their constant stride in this version.
            let mut stride_of = HashMap::new();
            for &(k, idx, esize) in &unit {
                stride_of.insert(k, (idx, esize));
                if let Some(leaves) = entry_leaves.get(&k) {
                    let mut l = leaves.clone();
                    l[idx] = self.b.ins().iconst(I64, esize as i64);
                    self.def(params[k], &l)?;
                }
            }
            let unroll = if !self.cx.debug && unrollable(self.f) {
                UNROLL
            } else {
                1
            };
            let start = if simd {
                self.simd_loop(start, end)?
            } else {
                start
            };
            self.thread_loop(&body_ctx, start, &stride_of, unroll)?;
            // Restore the general leaves for the other version.
            for (&k, leaves) in &entry_leaves {
                self.def(params[k], leaves)?;
            }
        }
        self.switch_to(general);
        self.thread_loop(&body_ctx, start, &HashMap::new(), 1)?;

        self.switch_to(exit);
        self.finish_reductions()?;
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
        Ok(())
    }

    /// Emits a thread loop over `start..end` from the current block:
    /// `unroll` threads per iteration while that many remain, then one at a
    /// time. `unit` maps array params (by index) to their innermost-stride
    /// leaf and its constant value in this version.
    fn thread_loop(
        &mut self,
        cx: &BodyCtx,
        start: cl::Value,
        unit: &HashMap<usize, (usize, u32)>,
        unroll: i64,
    ) -> Result<()> {
        let single = self.b.create_block();
        let tid = self.b.append_block_param(single, I64);
        let latch = self.b.create_block();
        let rest = self.b.create_block();
        let rest_i = self.b.append_block_param(rest, I64);
        if unroll > 1 {
            let multi = self.b.create_block();
            let base = self.b.append_block_param(multi, I64);
            let last = self.b.ins().iadd_imm_s(start, unroll);
            let c = self
                .b
                .ins()
                .icmp(IntCC::SignedLessThanOrEqual, last, cx.end);
            self.b.ins().brif(
                c,
                multi,
                &[BlockArg::Value(start)],
                rest,
                &[BlockArg::Value(start)],
            );
            self.switch_to(multi);
            for k in 0..unroll {
                let t = if k == 0 {
                    base
                } else {
                    self.b.ins().iadd_imm_s(base, k)
                };
                let next = self.b.create_block();
                self.body(cx, t, next, unit)?;
                self.switch_to(next);
            }
            let nb = self.b.ins().iadd_imm_s(base, unroll);
            let last = self.b.ins().iadd_imm_s(base, 2 * unroll);
            let c = self
                .b
                .ins()
                .icmp(IntCC::SignedLessThanOrEqual, last, cx.end);
            self.b.ins().brif(
                c,
                multi,
                &[BlockArg::Value(nb)],
                rest,
                &[BlockArg::Value(nb)],
            );
        } else {
            self.b.ins().jump(rest, &[BlockArg::Value(start)]);
        }
        self.switch_to(rest);
        let c = self.b.ins().icmp(IntCC::SignedLessThan, rest_i, cx.end);
        self.b
            .ins()
            .brif(c, single, &[BlockArg::Value(rest_i)], cx.exit, &[]);
        self.switch_to(single);
        self.body(cx, tid, latch, unit)?;
        self.switch_to(latch);
        let next = self.b.ins().iadd_imm_s(tid, 1);
        let c = self.b.ins().icmp(IntCC::SignedLessThan, next, cx.end);
        self.b
            .ins()
            .brif(c, single, &[BlockArg::Value(next)], cx.exit, &[]);
        Ok(())
    }

    /// Translates the kernel body for thread index `tid` (i64) into the
    /// current block; `return` jumps to `next`.
    fn body(
        &mut self,
        cx: &BodyCtx,
        tid: cl::Value,
        next: Block,
        unit: &HashMap<usize, (usize, u32)>,
    ) -> Result<()> {
        self.tid = Some(tid);
        self.label_tid(tid);
        self.ret = Ret::NextThread(next);
        // Division results of another copy of the body may not dominate.
        self.divs.clear();
        let thread_flags = MemFlagsData::trusted().with_readonly();
        if self.cx.debug {
            // Another copy of the body defined these: the hooks must not
            // read them.
            self.debug_region_start();
            for &inst in &self.f.regions[self.f.body].insts {
                for &v in &self.f.insts[inst].results {
                    if let Some(e) = self.map.get_mut(v.as_u32() as usize) {
                        *e = UNSET;
                    }
                }
            }
        }
        for (idx, &inst) in self.f.regions[self.f.body].insts.iter().enumerate() {
            if self.filled {
                return self.invalid("instruction after a terminator");
            }
            // Per-thread parameter loads belong to the statement using them.
            self.set_srcloc(self.f.insts[inst].loc);
            for &k in cx.per_thread.get(&idx).map(|v| v.as_slice()).unwrap_or(&[]) {
                let v = cx.params[k];
                self.load_param(v, cx.types[k], cx.args, cx.offsets[k], thread_flags)?;
                if let Some(&(li, esize)) = unit.get(&k) {
                    let mut l = self.get(v)?;
                    l[li] = self.b.ins().iconst(I64, esize as i64);
                    self.def(v, &l)?;
                }
            }
            if self.cx.debug {
                self.debug_before(inst)?;
            }
            self.inst(inst, None)?;
        }
        if !self.filled {
            return self.invalid("kernel body does not end in a terminator");
        }
        Ok(())
    }

    fn load_param(
        &mut self,
        v: weft_ir::Value,
        ty: Type,
        args: cl::Value,
        off: u32,
        flags: MemFlagsData,
    ) -> Result<()> {
        let slots = self.cx.flat(ty);
        let mut leaves = Vec::with_capacity(slots.len());
        for s in slots.iter() {
            leaves.push(self.load_slot(*s, args, off + s.offset, flags)?);
        }
        self.def(v, &leaves)?;
        Ok(())
    }

    /// Translates a func (see [`func_signature`]).
    pub fn func_into(&mut self) -> Result<()> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.switch_to(entry);
        let p = self.b.block_params(entry).to_vec();
        self.args_ptr = Some(p[0]);
        self.tid = Some(p[1]);
        self.label_tid(p[1]);
        let params = self.f.regions[self.f.body].params.clone();
        self.bind(&params, &p[2..])?;
        self.ret = Ret::Func;
        self.set_srcloc(self.f.loc);
        if self.cx.debug {
            self.debug_point(weft_abi::debug::EventKind::Enter, self.f.loc)?;
        }
        self.region(self.f.body, None)?;
        self.b.seal_all_blocks();
        Ok(())
    }

    /// Finishes the builder.
    pub fn finish(self, cfg: cranelift_codegen::isa::TargetFrontendConfig) {
        self.b.finalize(cfg);
    }

    pub(super) fn call(
        &mut self,
        inst: Inst,
        callee: FuncId,
        args: &[weft_ir::Value],
    ) -> Result<()> {
        let fref = match self.func_refs.get(&callee) {
            Some(&r) => r,
            None => {
                let Some(&id) = self.cx.func_ids.get(&callee) else {
                    return self.unsupported(format!("call to {callee}, which was not compiled"));
                };
                let r = self.import_func(id);
                self.func_refs.insert(callee, r);
                r
            }
        };
        let callee_f = &self.cx.m.funcs[callee];
        if args.len() != callee_f.params.len()
            || args
                .iter()
                .zip(&callee_f.params)
                .any(|(&a, p)| self.f.value_type(a) != p.ty)
        {
            return self.invalid(format!(
                "call arguments do not match the params of `{}`",
                callee_f.name
            ));
        }
        let (Some(a), Some(t)) = (self.args_ptr, self.tid) else {
            return self.invalid("call without a thread context");
        };
        let mut cargs = vec![a, t];
        cargs.extend(self.gather(args)?);
        let call = self.b.ins().call(fref, &cargs);
        let rs = self.b.inst_results(call).to_vec();
        self.def_result(inst, &rs)
    }
}
