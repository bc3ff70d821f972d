//! Debug information: the `#line` directives that map the shader back to
//! the kernel's source, and the trap record that a failing check of
//! bounds-checked mode writes (`Trap`).

use super::{Emitter, R};
use std::fmt::Write as _;
use weft_abi::trap::record;
use weft_ir::{Loc, Scalar, TrapKind, Value};

impl<'a> Emitter<'a> {
    pub(super) fn loc(&mut self, loc: Loc) {
        if loc.is_none() || self.line == Some((loc.file, loc.line)) {
            return;
        }
        self.line = Some((loc.file, loc.line));
        let file = self.file_of(loc).replace('\\', "/").replace('"', "'");
        let _ = writeln!(self.out, "#line {} \"{file}\"", loc.line);
    }

    /// `Trap`: the first failing thread (compare-exchange of the record's
    /// flag 0 → 1) writes the trap record (see `TrapBinding`); every failing
    /// thread then returns, touching nothing else.
    pub(super) fn trap(&mut self, kind: TrapKind, vs: &[Value], loc: Loc) -> R<()> {
        let buf = self
            .trap_buf
            .clone()
            .ok_or_else(|| self.invalid("a trap without a trap record"))?;
        let mut ops = Vec::new();
        for k in 0..2 {
            let e = match vs.get(k) {
                Some(&v) => {
                    let s = self.scalar_of(v)?;
                    if !s.is_int() {
                        return Err(self.invalid("a trap operand that is not an integer"));
                    }
                    self.cast(self.v(v)?, s, Scalar::I64)
                }
                None => "uint2(0u, 0u)".to_string(),
            };
            ops.push(e);
        }
        let prev = self.names.fresh("weft_trap_prev");
        self.line(&format!("uint {prev};"));
        self.line(&format!(
            "{buf}.InterlockedCompareExchange({}u, 0u, 1u, {prev});",
            record::FLAG
        ));
        self.line(&format!("if ({prev} == 0u)"));
        self.line("{");
        self.indent += 1;
        // Code, file, line and column are consecutive words, then the
        // thread, then index and size as two 64-bit values.
        const _: () = assert!(
            record::FILE == record::CODE + 4
                && record::LINE == record::CODE + 8
                && record::COL == record::CODE + 12
                && record::AXIS_SIZE == record::INDEX + 8
        );
        self.line(&format!(
            "{buf}.Store4({}u, uint4({}u, {}u, {}u, {}u));",
            record::CODE,
            kind.code(),
            loc.file,
            loc.line,
            loc.col
        ));
        self.line(&format!("{buf}.Store({}u, weft_tid);", record::THREAD));
        self.line(&format!(
            "{buf}.Store4({}u, uint4({}, {}));",
            record::INDEX,
            ops[0],
            ops[1]
        ));
        self.indent -= 1;
        self.line("}");
        self.line("return;");
        Ok(())
    }
}
