//! Deterministic launches on the host JIT devices: how a kernel compiled
//! [`deterministic`](weft_ir::Function::deterministic) runs so that its
//! results do not depend on the pool's thread count or schedule
//! ([`weft_ir::Determinism`] says what it needs; `docs/runtime.md`,
//! "Deterministic launches").
//!
//! * [`Determinism::Accumulate`]: the thread range is cut into chunks whose
//!   size depends only on the launch (never on the pool): [`CHUNK`]
//!   threads, more when the accumulated arrays are large (at most
//!   [`SCRATCH_BUDGET`] bytes of copies in all). Each chunk runs on some
//!   pool thread with its own copy of each accumulated array, filled with
//!   the op's identity; the chunk's atomics go into its copy, in the order
//!   its threads reach them. Then the launching thread combines the
//!   copies into the arrays, chunk after chunk, element by element, with
//!   the interpreter's arithmetic; an element a chunk left at the identity
//!   is skipped. A launch of one chunk runs on the arrays themselves.
//! * [`Determinism::Serial`], and an accumulation the copies cannot stand
//!   for (an array that overlaps another argument, or whose address or
//!   strides are not multiples of its scalar): the whole range runs on the
//!   launching thread, in thread order.

use super::args::Block;
use super::pool::{run_chunks, Split, TimedOut};
use super::{ArgView, Launch};
use crate::error::RuntimeError;
use std::time::Instant;
use weft_abi::trap::TrapRecord;
use weft_abi::KernelEntry;
use weft_ir::interp::{eval_binary_bits, memory_bits};
use weft_ir::{Accumulation, KernelInfo, Module};

/// A device without deterministic launches (the GPU devices) refusing a
/// kernel that needs one.
#[derive(Debug, thiserror::Error)]
#[error("{at}: kernel `{kernel}` is compiled deterministic, and {what} here depends on the order threads run in; the `{device}` device has no deterministic launches (the host devices do: cpu, llvm-cpu, interp)")]
pub struct NotDeterministic {
    pub device: &'static str,
    pub kernel: String,
    pub what: &'static str,
    pub at: weft_ir::SourcePos,
}

/// [`NotDeterministic`], as [`RuntimeError::Unsupported`], if kernel `k`
/// of `m` needs a deterministic launch.
pub fn refuse(device: &'static str, m: &Module, k: &KernelInfo) -> Result<(), RuntimeError> {
    let Some((what, loc)) = k.determinism.needs() else {
        return Ok(());
    };
    let e = NotDeterministic {
        device,
        kernel: k.name.clone(),
        what,
        at: m.source_pos(loc),
    };
    Err(RuntimeError::Unsupported {
        device,
        message: e.to_string(),
        source: Box::new(e),
    })
}

/// Threads per chunk of an accumulating launch (at least).
pub const CHUNK: usize = 1 << 14;
/// Bytes of array copies an accumulating launch allocates at most (beyond
/// it, chunks grow).
pub const SCRATCH_BUDGET: usize = 64 << 20;

/// Runs `entry` over the launch's threads for a
/// [`weft_ir::Determinism::Accumulate`] kernel (`block` is the packed argument
/// block): chunks with their own copies of the accumulated arrays, or the
/// whole range in thread order when copies cannot stand for them.
pub fn accumulate(
    entry: KernelEntry,
    launch: &Launch<'_>,
    acc: &[Accumulation],
    block: &[Block],
    deadline: Option<Instant>,
) -> Result<Option<TrapRecord>, TimedOut> {
    match Copies::plan(launch, acc) {
        Some(copies) => copies.run(entry, launch, block, deadline),
        None => run_chunks(
            entry,
            &[block],
            launch.total,
            Split::Every(launch.total),
            deadline,
        ),
    }
}

/// One accumulated array: its bytes `[lo, lo + len)` and how its elements
/// combine.
struct Span {
    acc: Accumulation,
    /// Offset of the array's `data` field in the argument block.
    desc: usize,
    data: u64,
    lo: u64,
    len: usize,
}

/// The accumulated arrays of a launch and its chunk size.
struct Copies {
    spans: Vec<Span>,
    /// Bytes of one chunk's copies (each span rounded up to 16).
    bytes: usize,
    per: usize,
}

/// The bytes `[lo, hi)` that array view `v` reaches, if it is an array
/// with elements.
fn extent(v: &ArgView<'_>) -> Option<(u64, u64)> {
    let ArgView::Array {
        dtype,
        data,
        planes,
        ..
    } = v
    else {
        return None;
    };
    let (shape, strides) = v.abi_shape();
    if shape.iter().any(|&n| n <= 0) {
        return None;
    }
    let elem = match planes {
        Some((k, _)) => dtype.size() / (*k).max(1),
        None => dtype.size(),
    };
    let (mut lo, mut hi) = (*data as i128, *data as i128 + elem as i128);
    for (&n, &s) in shape.iter().zip(&strides) {
        let reach = (n as i128 - 1) * s as i128;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    Some((u64::try_from(lo).ok()?, u64::try_from(hi).ok()?))
}

impl Copies {
    /// The copies launch `launch` needs for `acc`; `None` when they cannot
    /// stand for the arrays (the launch then runs serially).
    fn plan(launch: &Launch<'_>, acc: &[Accumulation]) -> Option<Copies> {
        let mut spans = Vec::new();
        for a in acc {
            let view = launch.views.get(a.param as usize)?;
            let Some((lo, hi)) = extent(view) else {
                continue;
            };
            let ArgView::Array { data, strides, .. } = view else {
                return None;
            };
            let size = a.scalar.size() as u64;
            let (_, abi_strides) = view.abi_shape();
            let aligned = data % size == 0
                && lo % size == 0
                && (hi - lo) % size == 0
                && strides
                    .iter()
                    .chain(&abi_strides)
                    .all(|s| s.unsigned_abs() % size == 0);
            if !aligned {
                return None;
            }
            spans.push(Span {
                acc: *a,
                desc: *launch.sig.layout.offsets.get(a.param as usize)? as usize,
                data: *data,
                lo,
                len: usize::try_from(hi - lo).ok()?,
            });
        }
        // No argument may share bytes with an accumulated array: its copy
        // would hide the kernel's other accesses from each other.
        for s in &spans {
            for (k, v) in launch.views.iter().enumerate() {
                if k == s.acc.param as usize {
                    continue;
                }
                if let Some((lo, hi)) = extent(v) {
                    if lo < s.lo + s.len as u64 && s.lo < hi {
                        return None;
                    }
                }
            }
        }
        let bytes: usize = spans.iter().map(|s| s.len.next_multiple_of(16)).sum();
        let budget_chunks = (SCRATCH_BUDGET / bytes.max(1)).max(1);
        let per = CHUNK
            .max(launch.total.div_ceil(budget_chunks))
            .next_multiple_of(64);
        Some(Copies { spans, bytes, per })
    }

    fn run(
        &self,
        entry: KernelEntry,
        launch: &Launch<'_>,
        block: &[Block],
        deadline: Option<Instant>,
    ) -> Result<Option<TrapRecord>, TimedOut> {
        let total = launch.total;
        let chunks = total.div_ceil(self.per);
        if chunks <= 1 || self.spans.is_empty() {
            return run_chunks(entry, &[block], total, Split::Every(self.per), deadline);
        }
        // One chunk's copies after another, each span at a 16-byte offset.
        let mut scratch = vec![Block::default(); chunks * self.bytes / 16];
        let mut blocks: Vec<Vec<Block>> = Vec::with_capacity(chunks);
        let base = scratch.as_mut_ptr().cast::<u8>();
        for c in 0..chunks {
            let mut b = block.to_vec();
            let mut off = c * self.bytes;
            for s in &self.spans {
                // SAFETY: `off + s.len <= chunks * self.bytes`, inside
                // `scratch`, which outlives the launch below.
                let copy = unsafe {
                    let copy = base.add(off);
                    fill_identity(copy, s);
                    copy
                };
                let data = copy as u64 + (s.data - s.lo);
                super::args::write_u64(&mut b, s.desc, data);
                off += s.len.next_multiple_of(16);
            }
            blocks.push(b);
        }
        let views: Vec<&[Block]> = blocks.iter().map(Vec::as_slice).collect();
        let trap = run_chunks(entry, &views, total, Split::Every(self.per), deadline)?;
        for c in 0..chunks {
            let mut off = c * self.bytes;
            for s in &self.spans {
                // SAFETY: as above; the launch has returned, so nothing
                // else reads or writes the copies or the array's bytes,
                // which the launch's view (checked against the signature)
                // covers from `s.lo` for `s.len` bytes.
                unsafe { combine(base.add(off), s) };
                off += s.len.next_multiple_of(16);
            }
        }
        drop(scratch);
        Ok(trap)
    }
}

/// The identity bits of a span's op on its scalar.
fn identity(s: &Span) -> u64 {
    memory_bits(s.acc.op.identity(s.acc.scalar))
}

/// Fills the copy at `copy` (`s.len` bytes) with the identity.
///
/// # Safety
///
/// `copy` holds `s.len` writable bytes.
unsafe fn fill_identity(copy: *mut u8, s: &Span) {
    let size = s.acc.scalar.size() as usize;
    let bits = identity(s).to_le_bytes();
    for k in (0..s.len).step_by(size) {
        // SAFETY: `k + size <= s.len` (`s.len` is a multiple of `size`,
        // checked by `Copies::plan`), inside the caller's bytes.
        unsafe { std::ptr::copy_nonoverlapping(bits.as_ptr(), copy.add(k), size) };
    }
}

/// Combines the copy at `copy` into the array's bytes `[s.lo, s.lo +
/// s.len)`: each element the chunk changed, with the span's op.
///
/// # Safety
///
/// `copy` holds `s.len` bytes, and `s.lo` is the address of `s.len` bytes
/// of the array that nothing else accesses during the call.
unsafe fn combine(copy: *const u8, s: &Span) {
    let size = s.acc.scalar.size() as usize;
    let id = identity(s);
    let Some(op) = s.acc.op.combine() else {
        return;
    };
    let dst = s.lo as usize as *mut u8;
    for k in (0..s.len).step_by(size) {
        let mut a = [0u8; 8];
        let mut b = [0u8; 8];
        // SAFETY: both ranges hold `k + size <= s.len` bytes (the
        // function's contract).
        unsafe {
            std::ptr::copy_nonoverlapping(copy.add(k), b.as_mut_ptr(), size);
        }
        let b = u64::from_le_bytes(b);
        if b == id {
            continue;
        }
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(dst.add(k), a.as_mut_ptr(), size) };
        let Some(r) = eval_binary_bits(op, s.acc.scalar, u64::from_le_bytes(a), b) else {
            continue;
        };
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(r.to_le_bytes().as_ptr(), dst.add(k), size) };
    }
}
