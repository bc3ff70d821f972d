//! The NVPTX trap record of bounds-checked mode.
//!
//! A module compiled with checks (it contains [`weft_ir::InstKind::Trap`])
//! gets one `.visible .global` record [`TRAP_GLOBAL`] of
//! [`TRAP_RECORD_SIZE`] bytes, C layout, little-endian:
//!
//! | offset | field | |
//! |---|---|---|
//! | 0  | `u32 flag`  | 0: no failure; set to 1 by `atom.cas` (first failing thread wins) |
//! | 4  | `u32 code`  | [`weft_ir::TrapKind::code`] |
//! | 8  | `u32 file`  | index into the module's files |
//! | 12 | `u32 line`  | |
//! | 16 | `u32 col`   | |
//! | 20 | padding     | |
//! | 24 | `i64 index` | out of bounds: the index |
//! | 32 | `i64 size`  | out of bounds: the axis's size |
//!
//! The thread that wins the `flag` compare-and-swap writes the other fields;
//! every failing thread then ends (the grid-stride loop goes on with its
//! next index; a func returns zeros), as on the CPU. The host zeroes the
//! record before a launch and reads it after the launch has finished
//! ([`decode_trap_record`]). Modules without checks have no record.

use weft_backend_cpu::trap::TrapRecord;
use weft_ir::{Loc, TrapKind};

/// The symbol of the record in the PTX.
pub const TRAP_GLOBAL: &str = "__weft_trap";
/// Its size in bytes.
pub const TRAP_RECORD_SIZE: usize = 40;

/// Byte offsets of the fields (see the module docs).
pub(crate) const OFF_CODE: u64 = 4;
pub(crate) const OFF_FILE: u64 = 8;
pub(crate) const OFF_LINE: u64 = 12;
pub(crate) const OFF_COL: u64 = 16;
pub(crate) const OFF_INDEX: u64 = 24;
pub(crate) const OFF_SIZE: u64 = 32;

fn u32_at(b: &[u8], off: u64) -> Option<u32> {
    let o = off as usize;
    Some(u32::from_le_bytes(b.get(o..o + 4)?.try_into().ok()?))
}

fn i64_at(b: &[u8], off: u64) -> Option<i64> {
    let o = off as usize;
    Some(i64::from_le_bytes(b.get(o..o + 8)?.try_into().ok()?))
}

/// The failure a trap record read back from the device holds: `None` when
/// its flag is clear, the bytes are too short, or the code is unknown.
pub fn decode_trap_record(bytes: &[u8]) -> Option<TrapRecord> {
    if u32_at(bytes, 0)? == 0 {
        return None;
    }
    let kind = TrapKind::from_code(u32_at(bytes, OFF_CODE)?)?;
    Some(TrapRecord {
        kind,
        loc: Loc::new(
            u32_at(bytes, OFF_FILE)?,
            u32_at(bytes, OFF_LINE)?,
            u32_at(bytes, OFF_COL)?,
        ),
        index: i64_at(bytes, OFF_INDEX)?,
        size: i64_at(bytes, OFF_SIZE)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(flag: u32, code: u32) -> Vec<u8> {
        let mut b = vec![0u8; TRAP_RECORD_SIZE];
        b[0..4].copy_from_slice(&flag.to_le_bytes());
        b[4..8].copy_from_slice(&code.to_le_bytes());
        b[8..12].copy_from_slice(&2u32.to_le_bytes());
        b[12..16].copy_from_slice(&7u32.to_le_bytes());
        b[16..20].copy_from_slice(&12u32.to_le_bytes());
        b[24..32].copy_from_slice(&1024i64.to_le_bytes());
        b[32..40].copy_from_slice(&1000i64.to_le_bytes());
        b
    }

    #[test]
    fn decodes_a_set_record() {
        let code = TrapKind::OutOfBounds { axis: 1 }.code();
        let t = decode_trap_record(&record(1, code)).expect("set");
        assert_eq!(t.kind, TrapKind::OutOfBounds { axis: 1 });
        assert_eq!((t.loc.file, t.loc.line, t.loc.col), (2, 7, 12));
        assert_eq!((t.index, t.size), (1024, 1000));
        let d = decode_trap_record(&record(1, TrapKind::DIV_BY_ZERO_CODE)).expect("set");
        assert_eq!(d.kind, TrapKind::DivByZero);
    }

    #[test]
    fn clear_short_or_unknown_records_are_none() {
        assert_eq!(decode_trap_record(&record(0, 0)), None);
        assert_eq!(decode_trap_record(&record(1, 0)[..20]), None);
        assert_eq!(decode_trap_record(&record(1, 0x999)), None);
    }
}
