//! Reporting [`weft_ir::InstKind::Trap`] (bounds-checked mode): one
//! [`TrapRecord`], reported by host code through a thread-local slot and by
//! device code through a [`record`] in device memory.
//!
//! # Host code (`cpu`, `llvm-cpu`)
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
    /// The linear index of the failing thread, where the target reports it
    /// (device records do; the host slot does not).
    pub thread: Option<u32>,
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
                thread: None,
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

/// The trap record of device code (`cuda`, `vulkan`): [`record::SIZE`]
/// bytes of device memory, C layout, little-endian, that the host zeroes
/// before a launch and reads back after it ([`record::decode`]):
///
/// | offset | field | |
/// |---|---|---|
/// | 0  | `u32 flag`   | 0: no failure; the first failing thread sets it to 1 by compare-and-swap |
/// | 4  | `u32 code`   | [`TrapKind::code`] |
/// | 8  | `u32 file`   | index into the module's files |
/// | 12 | `u32 line`   | |
/// | 16 | `u32 col`    | |
/// | 20 | `u32 thread` | linear index of the failing thread |
/// | 24 | `i64 index`  | out of bounds: the index |
/// | 32 | `i64 size`   | out of bounds: the axis's size |
///
/// Only the thread that wins the flag writes the other fields; every
/// failing thread then ends as on the host (the next thread index runs; a
/// func returns zeros). The NVPTX backend keeps the record in a global
/// variable, the HLSL backend in an extra buffer.
pub mod record {
    use super::TrapRecord;
    use weft_ir::{Loc, TrapKind};

    /// The record's size in bytes.
    pub const SIZE: usize = 40;
    /// Byte offsets of the fields.
    pub const FLAG: usize = 0;
    pub const CODE: usize = 4;
    pub const FILE: usize = 8;
    pub const LINE: usize = 12;
    pub const COL: usize = 16;
    pub const THREAD: usize = 20;
    pub const INDEX: usize = 24;
    pub const AXIS_SIZE: usize = 32;

    fn u32_at(b: &[u8], o: usize) -> Option<u32> {
        Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
    }

    fn i64_at(b: &[u8], o: usize) -> Option<i64> {
        Some(i64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
    }

    /// The failure a record read back from a device holds: `None` when its
    /// flag is clear, the bytes are too short, or the code is unknown.
    pub fn decode(bytes: &[u8]) -> Option<TrapRecord> {
        if bytes.len() < SIZE || u32_at(bytes, FLAG)? == 0 {
            return None;
        }
        Some(TrapRecord {
            kind: TrapKind::from_code(u32_at(bytes, CODE)?)?,
            loc: Loc::new(
                u32_at(bytes, FILE)?,
                u32_at(bytes, LINE)?,
                u32_at(bytes, COL)?,
            ),
            thread: Some(u32_at(bytes, THREAD)?),
            index: i64_at(bytes, INDEX)?,
            size: i64_at(bytes, AXIS_SIZE)?,
        })
    }

    /// The bytes of a set record holding `t` (what device code writes; for
    /// tests and for hosts that emulate a device).
    pub fn encode(t: &TrapRecord) -> [u8; SIZE] {
        let mut b = [0u8; SIZE];
        let mut put = |o: usize, v: &[u8]| b[o..o + v.len()].copy_from_slice(v);
        put(FLAG, &1u32.to_le_bytes());
        put(CODE, &t.kind.code().to_le_bytes());
        put(FILE, &t.loc.file.to_le_bytes());
        put(LINE, &t.loc.line.to_le_bytes());
        put(COL, &t.loc.col.to_le_bytes());
        put(THREAD, &t.thread.unwrap_or(0).to_le_bytes());
        put(INDEX, &t.index.to_le_bytes());
        put(AXIS_SIZE, &t.size.to_le_bytes());
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_records_round_trip() {
        let t = TrapRecord {
            kind: TrapKind::OutOfBounds { axis: 1 },
            loc: Loc::new(2, 7, 12),
            index: 1024,
            size: 1000,
            thread: Some(33),
        };
        let b = record::encode(&t);
        assert_eq!(record::decode(&b), Some(t));
        let d = TrapRecord {
            kind: TrapKind::DivByZero,
            ..t
        };
        assert_eq!(record::decode(&record::encode(&d)), Some(d));
    }

    #[test]
    fn clear_short_or_unknown_device_records_are_none() {
        let t = TrapRecord {
            kind: TrapKind::DivByZero,
            loc: Loc::new(0, 1, 1),
            index: 0,
            size: 0,
            thread: Some(0),
        };
        let mut b = record::encode(&t);
        assert_eq!(record::decode(&b[..39]), None, "too short");
        b[record::CODE..record::CODE + 4].copy_from_slice(&0x999u32.to_le_bytes());
        assert_eq!(record::decode(&b), None, "unknown code");
        assert_eq!(record::decode(&[0u8; record::SIZE]), None, "flag clear");
    }

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
