//! Debug support: DWARF line info (a subprogram per function, the
//! builder's debug location per instruction, which NVPTX emits as `.loc`)
//! and the bounds-checked mode's `Trap` (the `weft_trap` host shim, or the
//! NVPTX module's trap record, see `trap.rs`).

use super::{Lx, Result, Ret, Shim, TargetKind};
use crate::Error;
use inkwell::debug_info::{AsDIScope, DIFlags, DIFlagsConstants};
use inkwell::module::Linkage;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue};
use inkwell::{AtomicOrdering, IntPredicate};
use weft_ir::{FuncKind, Loc};

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    pub(super) fn setup_debug(&mut self, f: &weft_ir::Function, fv: FunctionValue<'ctx>) {
        let Some(di) = &self.di else { return };
        let file_ix = if f.loc.is_none() {
            0
        } else {
            f.loc.file as usize
        };
        let Some(&file) = di.files.get(file_ix).or(di.files.first()) else {
            return;
        };
        let sty = di
            .dib
            .create_subroutine_type(file, None, &[], DIFlags::ZERO);
        let sp = di.dib.create_function(
            di.cu.as_debug_info_scope(),
            &f.name,
            fv.get_name().to_str().ok(),
            file,
            f.loc.line,
            sty,
            f.kind == FuncKind::Func,
            true,
            f.loc.line,
            DIFlags::ZERO,
            true,
        );
        fv.set_subprogram(sp);
        self.st.scope = Some(sp.as_debug_info_scope());
        self.st
            .file_scopes
            .insert(file_ix as u32, sp.as_debug_info_scope());
    }

    /// Points the builder's debug location at `loc`.
    pub(super) fn set_loc(&mut self, loc: Loc) {
        self.st.loc = loc;
        let (Some(di), Some(scope)) = (&self.di, self.st.scope) else {
            return;
        };
        if loc.is_none() {
            return;
        }
        let scope = match self.st.file_scopes.get(&loc.file) {
            Some(&s) => s,
            None => {
                let Some(&file) = di.files.get(loc.file as usize) else {
                    return;
                };
                let lb = di.dib.create_lexical_block(scope, file, loc.line, loc.col);
                let s = lb.as_debug_info_scope();
                self.st.file_scopes.insert(loc.file, s);
                s
            }
        };
        let dl = di
            .dib
            .create_debug_location(self.ctx, loc.line, loc.col, scope, None);
        self.b.set_current_debug_location(dl);
    }

    /// A loop back-edge's cancel check (host): when the `weft_cancel_poll`
    /// shim returns nonzero the thread ends (kernel) or the func returns
    /// zeros, as after a trap; else the code goes on in a new block.
    pub(super) fn cancel_check(&mut self) -> Result<()> {
        let i32t = self.ctx.i32_type();
        let f = self.host_fn(Shim::CancelPoll, Some(i32t.into()), &[]);
        let c = self.call(f, &[])?.into_int_value();
        let stop = self
            .b
            .build_int_compare(IntPredicate::NE, c, i32t.const_zero(), "stop")?;
        let end = self.new_block("cancel_end")?;
        let go = self.new_block("cancel_go")?;
        self.b.build_conditional_branch(stop, end, go)?;
        self.b.position_at_end(end);
        self.end_thread()?;
        self.b.position_at_end(go);
        self.st.filled = false;
        Ok(())
    }

    /// Ends the thread (kernel: to the next thread index) or returns zeros
    /// (func), after a trap or a cancel check that fired.
    fn end_thread(&mut self) -> Result<()> {
        match self.st.ret {
            Some(Ret::NextThread(latch)) => {
                self.b.build_unconditional_branch(latch)?;
            }
            Some(Ret::Func) => {
                let fv = self.func()?;
                let Some(rt) = fv.get_type().get_return_type() else {
                    return Err(Error::Llvm("func without a return type".into()));
                };
                self.b.build_return(Some(&rt.const_zero()))?;
            }
            None => return self.invalid("trap outside a function"),
        }
        Ok(())
    }

    /// `Trap`: reports the failure (host: the `weft_trap` shim; NVPTX: the
    /// module's trap record, see `trap.rs`), then ends the thread (kernel)
    /// or returns zeros (func).
    pub(super) fn trap(
        &mut self,
        kind: weft_ir::TrapKind,
        vs: &[weft_ir::Value],
        loc: Loc,
    ) -> Result<()> {
        let ops = self.gather(vs)?;
        let i64t = self.ctx.i64_type();
        let zero = i64t.const_zero();
        let operand = |i: usize| match ops.get(i) {
            Some(BasicValueEnum::IntValue(v)) => *v,
            _ => zero,
        };
        let (index, size) = (operand(0), operand(1));
        match self.cfg.kind {
            TargetKind::Host => self.trap_host(kind, loc, index, size)?,
            TargetKind::Nvptx => self.trap_record(kind, loc, index, size)?,
        }
        self.end_thread()?;
        self.st.filled = true;
        Ok(())
    }

    /// NVPTX: the first failing thread (`cmpxchg` of the flag 0 → 1) writes
    /// the module's trap record.
    pub(super) fn trap_record(
        &mut self,
        kind: weft_ir::TrapKind,
        loc: Loc,
        index: IntValue<'ctx>,
        size: IntValue<'ctx>,
    ) -> Result<()> {
        use crate::trap::*;
        let i32t = self.ctx.i32_type();
        let rec = match self.module.get_global(TRAP_GLOBAL) {
            Some(g) => g,
            None => {
                let ty = self
                    .ctx
                    .i64_type()
                    .array_type((TRAP_RECORD_SIZE / 8) as u32);
                let g = self
                    .module
                    .add_global(ty, Some(self.data_space()), TRAP_GLOBAL);
                g.set_initializer(&ty.const_zero());
                g.set_linkage(Linkage::External);
                g.set_alignment(8);
                g
            }
        }
        .as_pointer_value();
        let mono = AtomicOrdering::Monotonic;
        let pair =
            self.b
                .build_cmpxchg(rec, i32t.const_zero(), i32t.const_int(1, false), mono, mono)?;
        let won = self.b.build_extract_value(pair, 1, "won")?.into_int_value();
        let write = self.new_block("trap_write")?;
        let done = self.new_block("trap_done")?;
        self.b.build_conditional_branch(won, write, done)?;
        self.b.position_at_end(write);
        let thread = match self.st.tid {
            Some(t) => self.b.build_int_truncate(t, i32t, "thread")?,
            None => i32t.const_zero(),
        };
        let fields: [(u64, IntValue<'ctx>); 7] = [
            (OFF_CODE, i32t.const_int(kind.code() as u64, false)),
            (OFF_THREAD, thread),
            (OFF_FILE, i32t.const_int(loc.file as u64, false)),
            (OFF_LINE, i32t.const_int(loc.line as u64, false)),
            (OFF_COL, i32t.const_int(loc.col as u64, false)),
            (OFF_INDEX, index),
            (OFF_SIZE, size),
        ];
        for (off, v) in fields {
            let p = self.offset_ptr(rec, off)?;
            self.b.build_store(p, v)?;
        }
        self.b.build_unconditional_branch(done)?;
        self.b.position_at_end(done);
        Ok(())
    }

    /// Host: calls the `weft_trap` shim.
    pub(super) fn trap_host(
        &mut self,
        kind: weft_ir::TrapKind,
        loc: Loc,
        index: IntValue<'ctx>,
        size: IntValue<'ctx>,
    ) -> Result<()> {
        let i32t = self.ctx.i32_type();
        let i64t = self.ctx.i64_type();
        let f = self.host_fn(
            Shim::Trap,
            None,
            &[
                i32t.into(),
                i32t.into(),
                i32t.into(),
                i32t.into(),
                i64t.into(),
                i64t.into(),
            ],
        );
        let a: Vec<BasicMetadataValueEnum> = vec![
            i32t.const_int(kind.code() as u64, false).into(),
            i32t.const_int(loc.file as u64, false).into(),
            i32t.const_int(loc.line as u64, false).into(),
            i32t.const_int(loc.col as u64, false).into(),
            index.into(),
            size.into(),
        ];
        self.b.build_call(f, &a, "")?;
        Ok(())
    }
}
