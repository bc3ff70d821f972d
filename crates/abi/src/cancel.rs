//! The wall-clock limit of a host launch (`DeviceOptions::timeout`): a
//! per-OS-thread deadline that the runtime sets around each chunk of a
//! launch, and the shim [`weft_cancel_poll`] that code compiled with cancel
//! checks calls at every loop back-edge.
//!
//! A poll reads the clock only every [`POLL_EVERY`] calls (a counter in a
//! thread-local), so a check costs a few instructions; once the deadline
//! has passed every poll returns 1 and the generated code ends the thread
//! (as a trap does: the next thread index runs, a func returns zeros). The
//! runtime learns that a chunk was cut short with [`take_cancelled`], on
//! the same OS thread, like [`crate::trap::take_trap`].
//!
//! A run may also be cancelled from another OS thread: a flag set with
//! [`set_cancel_flag`] is read with the clock, and once it is true polls
//! return 1 as after the deadline (the debugger ends a launch this way).
//!
//! Code compiled without cancel checks (the default) never calls the shim:
//! a launch without a timeout runs exactly the code it always did.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Polls between two reads of the clock.
pub const POLL_EVERY: u32 = 1024;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    static COUNT: Cell<u32> = const { Cell::new(0) };
    static CANCELLED: Cell<bool> = const { Cell::new(false) };
    static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Sets (or clears) this OS thread's cancel flag: once another thread
/// stores `true` in it, polls return 1 (module docs).
pub fn set_cancel_flag(flag: Option<Arc<AtomicBool>>) {
    FLAG.with(|f| *f.borrow_mut() = flag);
}

/// Sets (or clears, with `None`) this OS thread's deadline and forgets an
/// earlier cancellation.
pub fn set_deadline(deadline: Option<Instant>) {
    DEADLINE.with(|d| d.set(deadline));
    COUNT.with(|c| c.set(0));
    CANCELLED.with(|c| c.set(false));
}

/// Whether this OS thread's deadline has passed (reads the clock).
pub fn past_deadline() -> bool {
    let flagged = FLAG.with(|f| {
        f.borrow()
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    });
    let past = flagged
        || DEADLINE
            .with(|d| d.get())
            .is_some_and(|d| Instant::now() >= d);
    if past {
        CANCELLED.with(|c| c.set(true));
    }
    past
}

/// Whether a poll since [`set_deadline`] saw the deadline pass; clears it.
pub fn take_cancelled() -> bool {
    CANCELLED.with(|c| c.replace(false))
}

/// The shim of the cancel check: 1 when the thread should stop (its
/// deadline has passed), else 0.
pub extern "C" fn weft_cancel_poll() -> i32 {
    if CANCELLED.with(|c| c.get()) {
        return 1;
    }
    let n = COUNT.with(|c| {
        let n = c.get().wrapping_add(1);
        c.set(n);
        n
    });
    if n.is_multiple_of(POLL_EVERY) && past_deadline() {
        return 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn polls_stop_after_the_deadline() {
        set_deadline(None);
        assert!((0..10 * POLL_EVERY).all(|_| weft_cancel_poll() == 0));
        assert!(!take_cancelled());
        set_deadline(Some(Instant::now() + Duration::from_secs(3600)));
        assert!((0..10 * POLL_EVERY).all(|_| weft_cancel_poll() == 0));
        set_deadline(Some(Instant::now()));
        let first = (0..2 * POLL_EVERY).position(|_| weft_cancel_poll() == 1);
        assert!(first.is_some_and(|i| i < POLL_EVERY as usize), "{first:?}");
        assert_eq!(weft_cancel_poll(), 1);
        assert!(take_cancelled());
        set_deadline(None);
        assert_eq!(weft_cancel_poll(), 0);
    }

    #[test]
    fn a_flag_set_elsewhere_stops_polls() {
        set_deadline(None);
        let flag = Arc::new(AtomicBool::new(false));
        set_cancel_flag(Some(flag.clone()));
        assert!((0..10 * POLL_EVERY).all(|_| weft_cancel_poll() == 0));
        let other = flag.clone();
        std::thread::spawn(move || other.store(true, Ordering::Relaxed))
            .join()
            .unwrap();
        let first = (0..2 * POLL_EVERY).position(|_| weft_cancel_poll() == 1);
        assert!(first.is_some_and(|i| i < POLL_EVERY as usize), "{first:?}");
        assert!(take_cancelled());
        set_cancel_flag(None);
        set_deadline(None);
        assert_eq!(weft_cancel_poll(), 0);
    }
}
