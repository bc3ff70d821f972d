//! The bottom of a host launch: a compiled entry run over a thread range
//! in chunks on the rayon pool ([`run_chunks`]), with the deadline of a
//! launch with a timeout. The host devices ([`super::host`]) and the
//! deterministic launches ([`super::deterministic`]) call down into it.

use super::args::Block;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use weft_abi::cancel;
use weft_abi::trap::{clear_trap, take_trap, TrapRecord};
use weft_abi::KernelEntry;

/// A launch stopped at its deadline ([`run_chunks`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimedOut;

/// Threads per chunk at most when a launch has a deadline: the runtime
/// checks the clock before each chunk.
const DEADLINE_CHUNK: usize = 4096;

/// Threads a chunk of the default split is rounded up to a multiple of,
/// once it has [`ALIGN_FROM`] or more: 64 threads of a 1-D launch over
/// 4-byte elements are 4 cache lines, so the chunks start on a line
/// (no line written by two cores) and on a whole vector of the vector
/// tier, whose streaming stores need an aligned address.
pub const CHUNK_ALIGN: usize = 64;
/// See [`CHUNK_ALIGN`]: smaller chunks are left as they are (rounding
/// them could leave a pool thread without one).
const ALIGN_FROM: usize = 16 * CHUNK_ALIGN;

/// `per` threads a chunk, rounded as [`CHUNK_ALIGN`] says.
fn align_chunk(per: usize) -> usize {
    if per >= ALIGN_FROM {
        per.next_multiple_of(CHUNK_ALIGN)
    } else {
        per
    }
}

/// How [`run_chunks`] cuts a launch's thread range.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Split {
    /// This many chunks per pool thread
    /// ([`DeviceOptions::chunks_per_thread`](super::DeviceOptions::chunks_per_thread)),
    /// rounded as [`CHUNK_ALIGN`] says; with a deadline, chunks of at most
    /// [`DEADLINE_CHUNK`] threads.
    Pool(usize),
    /// Chunks of this many threads (the deterministic launches). A chunk
    /// of the whole range runs on the calling thread, in order, in pieces
    /// of [`DEADLINE_CHUNK`] threads when there is a deadline.
    Every(usize),
}

/// Runs `entry` over `0..total` in chunks over the rayon pool as `split`
/// says, chunk `c` with argument block `blocks[c]` (or `blocks[0]` for all
/// when there is one); returns the first bounds-checked-mode failure any
/// chunk recorded (see [`weft_abi::trap`]: each chunk's OS thread clears
/// its slot before the call and takes it right after).
///
/// With a `deadline`, no chunk starts after it, and each runs with it set
/// as its OS thread's deadline ([`weft_abi::cancel`]) for the cancel
/// checks of code compiled with them. A launch cut short is [`TimedOut`].
pub fn run_chunks(
    entry: KernelEntry,
    blocks: &[&[Block]],
    total: usize,
    split: Split,
    deadline: Option<Instant>,
) -> Result<Option<TrapRecord>, TimedOut> {
    let (serial, per) = match split {
        Split::Every(per) => (per >= total, per),
        Split::Pool(per_thread) => {
            let mut chunks = (rayon::current_num_threads() * per_thread.max(1))
                .min(total)
                .max(1);
            if deadline.is_some() {
                chunks = chunks.max(total.div_ceil(DEADLINE_CHUNK));
            }
            (false, align_chunk(total.div_ceil(chunks)))
        }
    };
    let chunks = total.div_ceil(per.max(1)).max(1);
    let stopped = AtomicBool::new(false);
    let Some(&first) = blocks.first() else {
        return Ok(None);
    };
    let run = |block: &[Block], start: usize, end: usize| {
        if deadline.is_some() {
            cancel::set_deadline(deadline);
            if stopped.load(Ordering::Relaxed) || cancel::past_deadline() {
                stopped.store(true, Ordering::Relaxed);
                return None;
            }
        }
        clear_trap();
        // SAFETY: `entry` is a kernel compiled for this signature; the block
        // was packed and checked against that signature, and the arrays it
        // points to are borrowed for the whole launch. Chunks cover disjoint
        // thread ranges; races between threads are the kernel's own
        // semantics (atomics are atomic).
        unsafe { entry(block.as_ptr().cast::<u8>(), start as i64, end as i64) };
        if deadline.is_some() {
            if cancel::take_cancelled() {
                stopped.store(true, Ordering::Relaxed);
            }
            cancel::set_deadline(None);
        }
        take_trap()
    };
    let trap = if serial {
        let piece = if deadline.is_some() {
            DEADLINE_CHUNK
        } else {
            total
        };
        (0..total.div_ceil(piece)).find_map(|k| {
            let start = k * piece;
            run(first, start, (start + piece).min(total))
        })
    } else if chunks == 1 {
        run(first, 0, total)
    } else {
        // The failure of the lowest thread range wins, so the report does
        // not depend on scheduling.
        (0..chunks)
            .into_par_iter()
            .map(|c| {
                let start = c * per;
                let end = (start + per).min(total);
                let block = blocks.get(c).copied().unwrap_or(first);
                if start < end {
                    run(block, start, end)
                } else {
                    None
                }
            })
            .reduce(|| None, |a, b| a.or(b))
    };
    if stopped.load(Ordering::Relaxed) {
        return Err(TimedOut);
    }
    Ok(trap)
}
