//! Debugging: statement hooks of debug builds ([`weft_abi::debug`]), value
//! labels and source locations for gdb ([`crate::gdbjit`]), and the
//! lowering of `Trap`.

use crate::shims::Shim;
use cranelift_codegen::ir::types::{F32, F64, I32, I64};
use cranelift_codegen::ir::{self as cl, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind};
use std::collections::HashMap;
use weft_ir::ir::InstKind;
use weft_ir::{Inst, Loc, Region, Scalar, Type};

use super::{FnTx, Result, Ret, SlotKind};

impl<'a, 'b, 'm> FnTx<'a, 'b, 'm> {
    /// Debug info: tags the instructions emitted from now on with `loc`.
    pub(super) fn set_srcloc(&mut self, loc: Loc) {
        if self.cx.debug_info {
            let s = self.cx.srcloc(loc);
            self.b.set_srcloc(s);
        }
    }

    /// Debug info: labels the leaves of `v` if it has a name (a region param
    /// only if no earlier param of its region has the same name, as in a
    /// loop's `(j, acc, j)`). Each IR value has labels of its own: Cranelift
    /// extends a label from each definition to the next one in code order,
    /// which is not program order around loops. A leaf that already belongs
    /// to another named value (`b = transpose(a)` reuses `a`'s leaves) is
    /// copied here (`bor x, x`, `fcopysign x, x`), so that each value starts
    /// where it is defined. Returns the leaves.
    pub(super) fn debug_var(&mut self, v: weft_ir::Value, leaves: &[cl::Value]) -> Vec<cl::Value> {
        let f = self.f;
        let name = &f.value_names[v];
        let vd = &f.values[v];
        let shadowed = f.shadowed_param(v);
        if name.is_empty() || shadowed {
            return leaves.to_vec();
        }
        let fk = std::ptr::from_ref(f) as usize;
        let leaves: Vec<cl::Value> = leaves
            .iter()
            .map(|&l| {
                if self.cx.labelled.insert((fk, l)) {
                    return l;
                }
                let c = if self.b.func.dfg.value_type(l).is_float() {
                    self.b.ins().fcopysign(l, l)
                } else {
                    self.b.ins().bor(l, l)
                };
                self.cx.labelled.insert((fk, c));
                c
            })
            .collect();
        self.label(v.as_u32(), name.clone(), vd.ty, &leaves);
        leaves
    }

    /// Debug info: labels `leaves` as the value `key` (an IR value, or
    /// `u32::MAX` for the thread index) of variable `name`.
    fn label(&mut self, key: u32, name: String, ty: Type, leaves: &[cl::Value]) {
        let f = std::ptr::from_ref(self.f) as usize;
        for (k, &l) in leaves.iter().enumerate() {
            let n = self.cx.labels.len() as u32;
            let id = *self.cx.label_ids.entry((f, key, k as u32)).or_insert(n);
            if id == n {
                self.cx.labels.push((f, name.clone(), ty, k as u32, key));
            }
            self.b.set_val_label(l, cl::ValueLabel::from_u32(id));
        }
    }

    /// Debug info: the thread index (`i64`) as variable `tid`, unless the
    /// kernel has its own `tid`.
    pub(super) fn label_tid(&mut self, tid: cl::Value) {
        if self.cx.debug_info && !self.f.value_names.values().any(|n| n == "tid") {
            self.label(u32::MAX, "tid".into(), Type::Scalar(Scalar::I64), &[tid]);
        }
    }

    /// `Trap`: reports through [`weft_abi::trap::weft_trap`], then ends the
    /// thread (kernel) or returns zeros (func).
    pub(super) fn trap(
        &mut self,
        kind: weft_ir::TrapKind,
        vs: &[weft_ir::Value],
        loc: Loc,
    ) -> Result<()> {
        let ops = self.gather(vs)?;
        let code = self.b.ins().iconst(I32, kind.code() as i64);
        let file = self.b.ins().iconst(I32, loc.file as i64);
        let line = self.b.ins().iconst(I32, loc.line as i64);
        let col = self.b.ins().iconst(I32, loc.col as i64);
        let index = match ops.first() {
            Some(&v) => v,
            None => self.b.ins().iconst(I64, 0),
        };
        let size = match ops.get(1) {
            Some(&v) => v,
            None => self.b.ins().iconst(I64, 0),
        };
        self.call_shim(Shim::Trap, &[code, file, line, col, index, size])?;
        self.end_thread()
    }

    /// Ends the thread (kernel: the next thread index runs) or returns
    /// zeros (func): after a trap or a cancel check that fired.
    pub(super) fn end_thread(&mut self) -> Result<()> {
        match self.ret {
            Ret::NextThread(latch) => self.jump(latch, &[])?,
            Ret::Func => {
                let tys: Vec<cl::Type> = self
                    .b
                    .func
                    .signature
                    .returns
                    .iter()
                    .map(|p| p.value_type)
                    .collect();
                let zeros: Vec<cl::Value> = tys
                    .into_iter()
                    .map(|t| match t {
                        F32 => self.b.ins().f32const(0.0),
                        F64 => self.b.ins().f64const(0.0),
                        t => self.b.ins().iconst(t, 0),
                    })
                    .collect();
                self.b.ins().return_(&zeros);
                self.filled = true;
            }
        }
        Ok(())
    }

    /// Debug build: a region's lowering starts.
    pub(super) fn debug_region_start(&mut self) {
        self.cx.debug_line = 0;
    }

    /// Debug build: a region's lowering ended; the enclosing region's next
    /// instruction may start a statement (the region ran other lines).
    pub(super) fn debug_region_end(&mut self) {
        self.cx.debug_line = 0;
    }

    /// Debug build: a statement hook where an instruction may start a
    /// statement (the first located instruction of a region, or after a
    /// nested region, or on a new line), and a func-exit hook before a
    /// func's `return`, and a loop-back hook at each `continue`. The
    /// recording keeps the statement hooks that start one by the rules of
    /// `weft_ir::interp::trace` (a frame's line changes, or a new loop
    /// iteration starts).
    pub(super) fn debug_before(&mut self, inst: Inst) -> Result<()> {
        let data = &self.f.insts[inst];
        let loc = data.loc;
        if matches!(data.kind, InstKind::Return(_)) {
            return match self.ret {
                Ret::Func => self.debug_point(weft_abi::debug::EventKind::Exit, loc),
                Ret::NextThread(_) => Ok(()),
            };
        }
        if !loc.is_none() && loc.line != self.cx.debug_line {
            self.cx.debug_line = loc.line;
            self.debug_point(weft_abi::debug::EventKind::Stmt, loc)?;
        }
        if matches!(data.kind, InstKind::Continue(_)) {
            self.debug_point(weft_abi::debug::EventKind::Back, loc)?;
        }
        Ok(())
    }

    /// Debug build: calls `weft_debug_hook` with the source variables
    /// visible here (of each name, the latest defined; see
    /// [`weft_abi::debug`]).
    pub(super) fn debug_point(&mut self, kind: weft_abi::debug::EventKind, loc: Loc) -> Result<()> {
        let order = definition_order(self.f);
        let mut latest: HashMap<&str, weft_ir::Value> = HashMap::new();
        for (v, _) in self.f.value_names.iter() {
            let Some(name) = self.f.var_name(v) else {
                continue;
            };
            if self.get(v).is_err() {
                continue;
            }
            let e = latest.entry(name).or_insert(v);
            let at = |v: weft_ir::Value| order.get(v.as_u32() as usize).copied();
            if at(v) > at(*e) {
                *e = v;
            }
        }
        let mut vars: Vec<weft_ir::Value> = latest.into_values().collect();
        vars.sort();
        let Some(func) = self
            .cx
            .func_ids
            .iter()
            .find_map(|(&fid, _)| std::ptr::eq(&self.cx.m.funcs[fid], self.f).then_some(fid))
        else {
            return self.invalid("debug hook in an unknown function");
        };
        let mut desc = vec![
            weft_abi::debug::kind_code(kind),
            func.as_u32(),
            loc.file,
            loc.line,
            loc.col,
            vars.len() as u32,
        ];
        let mut vals = Vec::new();
        for &v in &vars {
            let slots = self.cx.flat(self.f.value_type(v));
            let leaves = self.get(v)?;
            desc.extend([v.as_u32(), leaves.len() as u32]);
            for (s, &x) in slots.iter().zip(&leaves) {
                let SlotKind::Scalar(sc) = s.kind else {
                    return self.invalid("a named aggregate with an array handle");
                };
                vals.push(match sc {
                    Scalar::F64 => self.b.ins().bitcast(I64, MemFlagsData::new(), x),
                    Scalar::F16 | Scalar::F32 | Scalar::BF16 => {
                        let d = self.b.ins().fpromote(F64, x);
                        self.b.ins().bitcast(I64, MemFlagsData::new(), d)
                    }
                    Scalar::I64 | Scalar::U64 => x,
                    s if s.is_signed_int() => self.b.ins().sextend(I64, x),
                    _ => self.b.ins().uextend(I64, x),
                });
            }
        }
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (8 * vals.len().max(1)) as u32,
            3,
        ));
        for (i, &v) in vals.iter().enumerate() {
            self.b.ins().stack_store(I64, v, ss, (8 * i) as i32);
        }
        let vals_ptr = self.b.ins().stack_addr(I64, ss, 0);
        let bytes: Box<[u8]> = desc.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let desc_ptr = self.b.ins().iconst(I64, bytes.as_ptr() as i64);
        self.cx.data.push(bytes);
        let tid = match self.tid {
            Some(t) if self.b.func.dfg.value_type(t) == I64 => t,
            Some(t) => self.b.ins().sextend(I64, t),
            None => self.b.ins().iconst(I64, -1),
        };
        self.call_shim(Shim::DebugHook, &[desc_ptr, vals_ptr, tid])?;
        Ok(())
    }
}

/// The position of each value's definition in a walk of `f` in program
/// order (a region's params, then each instruction's regions before its
/// results): of two values visible at one point, the later defined has the
/// larger number.
fn definition_order(f: &weft_ir::Function) -> Vec<u32> {
    fn walk(f: &weft_ir::Function, r: Region, n: &mut u32, out: &mut [u32]) {
        let Some(rd) = f.regions.get(r) else {
            return;
        };
        for &p in &rd.params {
            *n += 1;
            out[p.as_u32() as usize] = *n;
        }
        for &i in &rd.insts {
            for sub in f.inst_regions(i) {
                walk(f, sub, n, out);
            }
            for &v in &f.insts[i].results {
                *n += 1;
                out[v.as_u32() as usize] = *n;
            }
        }
    }
    let mut out = vec![0; f.values.len()];
    walk(f, f.body, &mut 0, &mut out);
    out
}
