//! The debugger's statement hooks: what the CPU backend's debug build
//! reports, and the recording of one thread's reports.
//!
//! With the CPU backend's `debug` option set, the generated code calls the
//! `extern "C"` shim [`weft_debug_hook`] at every source statement (before
//! the first instruction of each new source line of a region), on entry to
//! each func and before each func `return`, passing
//!
//! * a descriptor the artifact owns: `u32` words `[kind, func, file, line,
//!   col, nvars, (value, nleaves) * nvars]` — `kind` 0 statement, 1 func
//!   entry, 2 func exit, 3 a loop's `continue`; `value` the IR [`Value`] of a source variable (of each
//!   name visible there, the latest defined; array handles are left out);
//! * the current scalar leaves of those values, one `u64` each, in the
//!   order of [`weft_ir::layout::leaves`]: floats widened to `f64` bits,
//!   integers sign- or zero-extended, `bool` 0/1;
//! * the thread index.
//!
//! Nothing is emitted when the option is off. The shim is cheap for threads
//! nobody steps: it compares the thread index with the one a sink was
//! installed for on this OS thread ([`with_sink`]) and returns. The sink of
//! the stepped thread may block (the debugger's live stops: the launch's
//! OS thread waits in the hook until the debugger resumes it).

use std::cell::{Cell, RefCell};
use weft_ir::{FuncId, Loc, Value};

/// What a hook reports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// About to run the statement at `loc`.
    Stmt,
    /// Entered a func (at its `def` line).
    Enter,
    /// About to return from a func.
    Exit,
    /// A loop's `continue`: the frame's next statement starts an
    /// iteration.
    Back,
}

/// One hook call of the recorded thread.
#[derive(Clone, Debug, PartialEq)]
pub struct DebugEvent {
    pub kind: EventKind,
    pub func: FuncId,
    pub loc: Loc,
    /// Named variables visible there and their scalar leaves (see the
    /// module docs for the encoding).
    pub vars: Vec<(Value, Vec<u64>)>,
}

/// Receives the stepped thread's events; returns false to be removed (the
/// rest of the launch then runs without calling it).
pub type Sink = Box<dyn FnMut(DebugEvent) -> bool>;

thread_local! {
    /// The thread index whose hooks go to [`SINK`] on this OS thread (−1:
    /// none).
    static TARGET: Cell<i64> = const { Cell::new(-1) };
    static SINK: RefCell<Option<Sink>> = const { RefCell::new(None) };
}

/// The hook shim.
///
/// # Safety
/// `desc` points to a descriptor (module docs) and `vals` to as many `u64`s
/// as its leaf counts add up to, both written by the generated code.
pub unsafe extern "C" fn weft_debug_hook(desc: *const u32, vals: *const u64, tid: i64) {
    if tid != TARGET.with(Cell::get) {
        return;
    }
    // SAFETY: the header is 6 words long (contract above).
    let head = unsafe { std::slice::from_raw_parts(desc, 6) };
    let nvars = head[5] as usize;
    // SAFETY: followed by `2 * nvars` words (contract above).
    let pairs = unsafe { std::slice::from_raw_parts(desc.add(6), 2 * nvars) };
    let total: usize = pairs.chunks(2).map(|p| p[1] as usize).sum();
    // SAFETY: `vals` holds `total` leaves (contract above).
    let leaves = unsafe { std::slice::from_raw_parts(vals, total) };
    let mut k = 0;
    let mut vars = Vec::with_capacity(nvars);
    for p in pairs.chunks(2) {
        let n = p[1] as usize;
        vars.push((Value::from_u32(p[0]), leaves[k..k + n].to_vec()));
        k += n;
    }
    let kind = match head[0] {
        1 => EventKind::Enter,
        2 => EventKind::Exit,
        3 => EventKind::Back,
        _ => EventKind::Stmt,
    };
    let ev = DebugEvent {
        kind,
        func: FuncId::from_u32(head[1]),
        loc: Loc::new(head[2], head[3], head[4]),
        vars,
    };
    // Taken out while it runs, so that it may block or re-enter freely.
    let Some(mut sink) = SINK.with(|s| s.borrow_mut().take()) else {
        return;
    };
    if sink(ev) {
        SINK.with(|s| *s.borrow_mut() = Some(sink));
    } else {
        TARGET.with(|t| t.set(-1));
    }
}

/// Runs `run` (which launches code compiled with the CPU backend's `debug`
/// option on this OS thread) with `sink` receiving every hook of thread
/// index `tid`, in order, on this OS thread; other threads' hooks return at
/// once. Sessions on different OS threads are independent.
pub fn with_sink<R>(tid: i64, sink: Sink, run: impl FnOnce() -> R) -> R {
    let old_sink = SINK.with(|s| s.borrow_mut().replace(sink));
    let old_target = TARGET.with(|t| t.replace(tid));
    let r = run();
    TARGET.with(|t| t.set(old_target));
    SINK.with(|s| *s.borrow_mut() = old_sink);
    r
}

/// Encodes an event kind for the descriptor.
pub fn kind_code(k: EventKind) -> u32 {
    match k {
        EventKind::Stmt => 0,
        EventKind::Enter => 1,
        EventKind::Exit => 2,
        EventKind::Back => 3,
    }
}
