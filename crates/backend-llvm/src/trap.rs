//! The NVPTX trap record of bounds-checked mode.
//!
//! A module compiled with checks (its [`weft_ir::ModuleInfo`] says it has
//! traps) gets one `.visible .global` record [`TRAP_GLOBAL`] in the layout
//! of [`weft_abi::trap::record`], written by the first failing thread and
//! read back by the host.

use weft_abi::trap::record;

/// The symbol of the record in the PTX.
pub const TRAP_GLOBAL: &str = "__weft_trap";

/// Byte offsets of the fields the NVPTX lowering writes (the flag is at 0).
pub(crate) const OFF_CODE: u64 = record::CODE as u64;
pub(crate) const OFF_FILE: u64 = record::FILE as u64;
pub(crate) const OFF_LINE: u64 = record::LINE as u64;
pub(crate) const OFF_COL: u64 = record::COL as u64;
pub(crate) const OFF_THREAD: u64 = record::THREAD as u64;
pub(crate) const OFF_INDEX: u64 = record::INDEX as u64;
pub(crate) const OFF_SIZE: u64 = record::AXIS_SIZE as u64;
/// The record's size in bytes.
pub(crate) const TRAP_RECORD_SIZE: usize = record::SIZE;
