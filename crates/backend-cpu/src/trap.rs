//! Reporting [`weft_ir::InstKind::Trap`] (bounds-checked mode) from JIT code.
//!
//! A trap calls the `extern "C"` shim [`weft_trap`] with its kind code
//! ([`TrapKind::code`]), source location and operands, then ends the thread
//! (in a kernel: the next thread index runs; in a func: the func returns
//! zeros, and its caller's own checks still guard every later access).
//!
//! The shim records the *first* trap of the calling OS thread in a
//! thread-local slot. A host that runs `entry(args, start, end)` calls
//! [`clear_trap`] before and [`take_trap`] right after, on the same OS
//! thread, and so learns the first violation of that range of thread
//! indices with no change to the kernel ABI. The LLVM host JIT registers the
//! same shim, so `llvm-cpu` reports through the same slot.

use std::cell::Cell;
use weft_ir::{Loc, TrapKind};

/// One reported violation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TrapRecord {
    pub kind: TrapKind,
    /// Location of the checked instruction (file indexes the module's files).
    pub loc: Loc,
    /// For out-of-bounds: the index (as `i64`) and the axis's size.
    pub index: i64,
    pub size: i64,
}

thread_local! {
    static LAST: Cell<Option<TrapRecord>> = const { Cell::new(None) };
}

/// The shim the generated code calls on a failed check.
pub extern "C" fn weft_trap(code: u32, file: u32, line: u32, col: u32, index: i64, size: i64) {
    let Some(kind) = TrapKind::from_code(code) else {
        return;
    };
    LAST.with(|s| {
        if s.get().is_none() {
            s.set(Some(TrapRecord {
                kind,
                loc: Loc::new(file, line, col),
                index,
                size,
            }))
        }
    });
}

/// Forgets any trap recorded on this OS thread.
pub fn clear_trap() {
    LAST.with(|s| s.set(None));
}

/// The first trap recorded on this OS thread since [`clear_trap`], taken.
pub fn take_trap() -> Option<TrapRecord> {
    LAST.with(|s| s.take())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_trap() {
        clear_trap();
        weft_trap(0, 0, 7, 3, 1024, 1024);
        weft_trap(TrapKind::DIV_BY_ZERO_CODE, 0, 9, 1, 0, 0);
        let t = take_trap().expect("recorded");
        assert_eq!(t.kind, TrapKind::OutOfBounds { axis: 0 });
        assert_eq!((t.loc.line, t.index, t.size), (7, 1024, 1024));
        assert_eq!(take_trap(), None);
        weft_trap(0x999, 0, 1, 1, 0, 0);
        assert_eq!(take_trap(), None, "unknown codes are ignored");
    }
}
