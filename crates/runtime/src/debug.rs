//! Running a kernel in the CPU backend's debug build with one thread
//! stepped live (the debugger's data source; see [`weft_abi::debug`] and
//! `docs/debugging.md`), and on the interpreter for the debugger's oracle
//! ([`trace_launch`]).
//!
//! A [`LiveLaunch`] runs the launch on a worker OS thread of its own,
//! threads in index order, one after another: those before the stepped
//! thread once (a restart starts from a copy of the memory they left),
//! then the stepped thread; the ones after it never run. The stepped thread's hook
//! sends each event to the debugger and waits there until the debugger
//! resumes it, so while the debugger looks at an event the launch is
//! paused at that point: the threads before the stepped one have run to
//! completion, the ones after it have not started, and the arrays hold
//! exactly what the run has written so far ([`LiveLaunch::read_element`]
//! reads them, on the worker, while it waits). Other threads' hooks never
//! wait. Each pull says where the launch may next pause ([`PauseAt`]):
//! the hooks before that are streamed to the debugger without waiting, so
//! a search for a breakpoint costs no round trip per statement. Ending a run early (a restart, the session dropped, a timeout)
//! sets the worker's cancel flag ([`weft_abi::cancel`]): the remaining
//! threads end at their next loop back-edge, and the worker is joined.

use crate::array::{Arg, Array, Value};
use crate::error::{LaunchError, RuntimeError};
use crate::hal::args::{check_args, check_dim, pack_views, ArgView};
use crate::sig::KernelSig;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use weft_abi::debug::{with_sink, DebugEvent, EventKind, Sink};
use weft_abi::trap::{clear_trap, take_trap, TrapRecord};
use weft_ir::interp::{trace_thread, ArgValue, InterpOptions, TraceEvent};
use weft_ir::{KernelInfo, Module};

/// A launch argument a [`LiveLaunch`] owns (each run gets fresh copies).
#[derive(Clone, Debug)]
pub enum OwnedArg {
    Array(Array),
    Value(Value),
}

impl OwnedArg {
    /// A copy of `a`'s contents.
    pub fn of(a: &Arg<'_>) -> OwnedArg {
        match a {
            Arg::Array(a) => OwnedArg::Array((*a).clone()),
            Arg::Value(v) => OwnedArg::Value(v.clone()),
        }
    }
    fn as_arg(&self) -> Arg<'_> {
        match self {
            OwnedArg::Array(a) => Arg::Array(a),
            OwnedArg::Value(v) => Arg::Value(v.clone()),
        }
    }
}

/// What the worker tells the debugger.
enum Msg {
    /// Compiled and checked (or not): sent once.
    Ready(Result<(), RuntimeError>),
    /// The stepped thread's hook; if the flag is set the worker waits for
    /// a [`Cmd`], else it ran on.
    Event(DebugEvent, bool),
    /// The answer to [`Cmd::Read`].
    Element(Option<Vec<u8>>),
    /// A run ended.
    End(Result<(), RuntimeError>),
}

/// What the debugger tells the worker.
enum Cmd {
    /// Start a run (when none runs), pausing where it says.
    Start(PauseAt),
    /// Go on from the event the worker waits at, pausing next where it
    /// says.
    Resume(PauseAt),
    /// Element `1` (C order) of argument `0`, read while waiting.
    Read(usize, usize),
    /// End the run: the hook stops waiting (with the cancel flag set).
    Abort,
}

/// Which of the stepped thread's hooks the launch pauses at (the others
/// are passed on without waiting). The default pauses at none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PauseAt {
    /// At every hook.
    pub every: bool,
    /// At statement hooks on these lines.
    pub lines: Vec<u32>,
    /// At the first statement hook of the thread and the first after each
    /// func entry.
    pub entries: bool,
}

impl PauseAt {
    /// Pause at every hook.
    pub fn every() -> PauseAt {
        PauseAt {
            every: true,
            ..PauseAt::default()
        }
    }
}

/// Where the worker is, as the debugger knows it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    /// No run (after the end of one).
    Idle,
    /// A run is to start at the next pull.
    Armed,
    /// Running: the worker does not wait for the debugger.
    Running,
    /// Waiting at the last event the debugger received.
    Paused,
}

/// What [`LiveLaunch::pull`] got.
#[derive(Debug)]
pub enum Pull {
    /// The stepped thread's next hook; the launch is paused there if
    /// [`LiveLaunch::paused`] (it was one the pull's [`PauseAt`] named).
    Event(DebugEvent),
    /// The run ended (the launch's result: a trap in checked mode, a
    /// timeout); later pulls say `End(Ok(()))` until a restart.
    End(Result<(), RuntimeError>),
}

/// A launch run on a worker OS thread with one thread stepped live (module
/// docs). Dropping it ends the run (cancelled) and joins the worker.
pub struct LiveLaunch {
    kernel: String,
    cmds: Option<Sender<Cmd>>,
    msgs: Receiver<Msg>,
    cancel: Arc<AtomicBool>,
    worker: Option<JoinHandle<()>>,
    state: std::cell::Cell<State>,
}

impl std::fmt::Debug for LiveLaunch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveLaunch")
            .field("kernel", &self.kernel)
            .field("state", &self.state.get())
            .finish()
    }
}

impl LiveLaunch {
    /// Compiles `module` with [`weft_backend_cpu::Options::debug`] (and
    /// cancel checks) on a new worker OS thread and checks `args` against
    /// kernel `kernel` over `dim`; the first run, stepping thread `tid` (a
    /// linear thread index), starts at the first [`LiveLaunch::pull`].
    /// Compile and argument errors are returned here.
    pub fn start(
        module: Arc<Module>,
        kernel: &str,
        dim: &[usize],
        args: Vec<OwnedArg>,
        tid: usize,
    ) -> Result<LiveLaunch, RuntimeError> {
        let (cmd_tx, cmd_rx) = channel();
        let (msg_tx, msg_rx) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let job = Job {
            module,
            kernel: kernel.to_string(),
            dim: dim.to_vec(),
            args,
            tid,
        };
        let flag = cancel.clone();
        let worker = std::thread::Builder::new()
            .name(format!("weft-debug-{kernel}"))
            .spawn(move || job.serve(&msg_tx, cmd_rx, flag))
            .map_err(|e| LaunchError::Exec {
                kernel: kernel.to_string(),
                device: "cpu",
                source: Box::new(e),
            })?;
        let mut live = LiveLaunch {
            kernel: kernel.to_string(),
            cmds: Some(cmd_tx),
            msgs: msg_rx,
            cancel,
            worker: Some(worker),
            state: std::cell::Cell::new(State::Idle),
        };
        match live.msgs.recv() {
            Ok(Msg::Ready(Ok(()))) => {}
            Ok(Msg::Ready(Err(e))) => return Err(e),
            _ => return Err(live.lost()),
        }
        live.restart();
        Ok(live)
    }

    /// The error for a worker that went away.
    fn lost(&self) -> RuntimeError {
        LaunchError::Exec {
            kernel: self.kernel.clone(),
            device: "cpu",
            source: "the debug launch's worker thread ended unexpectedly".into(),
        }
        .into()
    }

    fn send(&self, c: Cmd) -> bool {
        self.cmds.as_ref().is_some_and(|t| t.send(c).is_ok())
    }

    /// The stepped thread's next event, starting the run or resuming it
    /// from the event it is paused at; it will next pause where `pause`
    /// says. Waits at most `timeout` for the event (when given), and on
    /// expiry ends the run and returns [`LaunchError::Timeout`].
    pub fn pull(&mut self, timeout: Option<Duration>, pause: &PauseAt) -> Pull {
        let sent = match self.state.get() {
            State::Idle => return Pull::End(Ok(())),
            State::Armed => self.send(Cmd::Start(pause.clone())),
            State::Paused => self.send(Cmd::Resume(pause.clone())),
            State::Running => true,
        };
        if !sent {
            self.state.set(State::Idle);
            return Pull::End(Err(self.lost()));
        }
        self.state.set(State::Running);
        loop {
            let m = match timeout {
                Some(t) => self.msgs.recv_timeout(t),
                None => self.msgs.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match m {
                Ok(Msg::Event(ev, paused)) => {
                    if paused {
                        self.state.set(State::Paused);
                    }
                    return Pull::Event(ev);
                }
                Ok(Msg::End(r)) => {
                    self.state.set(State::Idle);
                    return Pull::End(r);
                }
                Ok(Msg::Ready(_) | Msg::Element(_)) => continue,
                Err(RecvTimeoutError::Timeout) => {
                    self.abort();
                    return Pull::End(Err(LaunchError::Timeout {
                        kernel: self.kernel.clone(),
                        device: "cpu",
                        limit: timeout.unwrap_or_default(),
                    }
                    .into()));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.state.set(State::Idle);
                    return Pull::End(Err(self.lost()));
                }
            }
        }
    }

    /// Whether the launch is paused at the last event pulled.
    pub fn paused(&self) -> bool {
        self.state.get() == State::Paused
    }

    /// Element `flat` (C order) of argument `arg` (an array) as the run
    /// has it now, in C layout: only while paused (`None` otherwise, or
    /// past the end, or for a non-array argument).
    pub fn read_element(&self, arg: usize, flat: usize) -> Option<Vec<u8>> {
        if !self.paused() || !self.send(Cmd::Read(arg, flat)) {
            return None;
        }
        loop {
            match self.msgs.recv() {
                Ok(Msg::Element(e)) => return e,
                Ok(_) => continue,
                Err(_) => {
                    self.state.set(State::Idle);
                    return None;
                }
            }
        }
    }

    /// Ends the current run, if any: sets the cancel flag, answers the
    /// hook with [`Cmd::Abort`] and waits for the run's end.
    fn abort(&mut self) {
        match self.state.get() {
            State::Idle => return,
            // The worker waits for a start: nothing runs.
            State::Armed => {
                self.state.set(State::Idle);
                return;
            }
            _ => {}
        }
        self.cancel.store(true, Ordering::SeqCst);
        if self.state.get() == State::Paused {
            self.send(Cmd::Abort);
        }
        loop {
            match self.msgs.recv() {
                // A hook that had not seen the flag yet.
                Ok(Msg::Event(_, true)) => {
                    self.send(Cmd::Abort);
                }
                Ok(Msg::End(_)) | Err(_) => break,
                Ok(_) => {}
            }
        }
        self.state.set(State::Idle);
    }

    /// Ends the current run (if any); the next [`LiveLaunch::pull`]
    /// starts a new one from the original arguments.
    pub fn restart(&mut self) {
        self.abort();
        self.cancel.store(false, Ordering::SeqCst);
        self.state.set(State::Armed);
    }
}

impl Drop for LiveLaunch {
    fn drop(&mut self) {
        self.abort();
        // The worker's wait for a command ends with the channel.
        self.cmds = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// What the worker runs.
struct Job {
    module: Arc<Module>,
    kernel: String,
    dim: Vec<usize>,
    args: Vec<OwnedArg>,
    tid: usize,
}

impl Job {
    /// The worker: compiles, then runs the launch once per [`Cmd::Start`]
    /// until the command channel closes. The threads before the stepped
    /// one run once, at the first start; their result (the arrays, a trap)
    /// is kept, and every run starts from a copy of it with the stepped
    /// thread. The threads after it never run: no stop can see them.
    fn serve(self, tx: &Sender<Msg>, rx: Receiver<Cmd>, cancel: Arc<AtomicBool>) {
        let (art, sig) = match self.compile() {
            Ok(a) => a,
            Err(e) => {
                let _ = tx.send(Msg::Ready(Err(e)));
                return;
            }
        };
        if tx.send(Msg::Ready(Ok(()))).is_err() {
            return;
        }
        weft_abi::cancel::set_cancel_flag(Some(cancel.clone()));
        let rx = Rc::new(rx);
        // The memory after threads `0..tid`, and their first trap.
        let mut before: Option<(Vec<OwnedArg>, Option<TrapRecord>)> = None;
        while let Ok(cmd) = rx.recv() {
            let Cmd::Start(pause) = cmd else {
                continue;
            };
            let (args, early) = match &before {
                Some((a, t)) => (a.clone(), *t),
                None => {
                    let args = self.args.clone();
                    let (trap, cancelled) = self.run(&art, &sig, &args, self.tid, None);
                    if cancelled {
                        if tx.send(Msg::End(Err(self.timeout()))).is_err() {
                            break;
                        }
                        continue;
                    }
                    before = Some((args.clone(), trap));
                    (args, trap)
                }
            };
            let args = Rc::new(args);
            let sink = hook_sink(tx.clone(), rx.clone(), args.clone(), cancel.clone(), pause);
            let (trap, cancelled) = self.run(&art, &sig, &args, self.tid, Some(sink));
            let r = match early.or(trap) {
                Some(t) => {
                    Err(LaunchError::from_trap(&self.kernel, "cpu", &self.module.files, &t).into())
                }
                None if cancelled => Err(self.timeout()),
                None => Ok(()),
            };
            if tx.send(Msg::End(r)).is_err() {
                break;
            }
        }
        weft_abi::cancel::set_cancel_flag(None);
    }

    fn timeout(&self) -> RuntimeError {
        LaunchError::Timeout {
            kernel: self.kernel.clone(),
            device: "cpu",
            limit: Duration::ZERO,
        }
        .into()
    }

    /// The debug build of the module and the kernel's signature, with the
    /// arguments checked against it.
    fn compile(&self) -> Result<(weft_backend_cpu::Artifact, KernelSig), RuntimeError> {
        let (info, kinfo) = kernel_info(&self.module, &self.kernel)?;
        let opts = weft_backend_cpu::Options {
            debug: true,
            cancel_checks: true,
            opt_level: weft_ir::OptLevel::O0,
            ..Default::default()
        };
        let art = weft_backend_cpu::compile(&self.module, &info, &opts)
            .map_err(|e| RuntimeError::backend("cpu", e.is_unsupported(), e))?;
        if art.kernel(&self.kernel).is_none() {
            return Err(RuntimeError::NoKernel {
                name: self.kernel.clone(),
                available: String::new(),
            });
        }
        let sig = KernelSig::new(kinfo, Arc::new(self.module.structs.clone()));
        let (dims, _) = check_dim(&self.dim)?;
        let args: Vec<Arg<'_>> = self.args.iter().map(OwnedArg::as_arg).collect();
        check_args(&sig, &args, &dims.map(|d| d as usize))?;
        Ok((art, sig))
    }

    /// Runs threads `0..tid` over `args` (without `sink`), or the stepped
    /// thread `tid` alone with `sink` receiving its hooks; returns the
    /// first bounds-checked-mode failure and whether the run was
    /// cancelled.
    fn run(
        &self,
        art: &weft_backend_cpu::Artifact,
        sig: &KernelSig,
        args: &[OwnedArg],
        tid: usize,
        sink: Option<Sink>,
    ) -> (Option<TrapRecord>, bool) {
        let (Some(k), Ok((dims, total))) = (art.kernel(&self.kernel), check_dim(&self.dim)) else {
            return (None, false);
        };
        let (start, end) = match sink {
            Some(_) => (tid.min(total), (tid + 1).min(total)),
            None => (0, tid.min(total)),
        };
        let args: Vec<Arg<'_>> = args.iter().map(OwnedArg::as_arg).collect();
        let views: Vec<ArgView<'_>> = args.iter().map(ArgView::of).collect();
        let block = pack_views(sig, &dims, &views);
        let ptr = block.as_ptr().cast::<u8>();
        clear_trap();
        weft_abi::cancel::set_deadline(None);
        let launch = || {
            // SAFETY: the kernel was compiled for this signature; the block
            // was packed from arguments checked against it (in `compile`,
            // the same shapes), and the arrays it points to live in `args`
            // for the whole call; `start..end` is within the launch.
            unsafe { (k.entry)(ptr, start as i64, end as i64) }
        };
        match sink {
            Some(sink) => with_sink(tid as i64, sink, launch),
            None => launch(),
        }
        (take_trap(), weft_abi::cancel::take_cancelled())
    }
}

/// The stepped thread's hook on the worker: sends the event; if `pause`
/// names it, serves reads of `args` until told to resume (true, with the
/// next [`PauseAt`]) or to end the run (false; also when the debugger is
/// gone or the cancel flag is set).
fn hook_sink(
    tx: Sender<Msg>,
    rx: Rc<Receiver<Cmd>>,
    args: Rc<Vec<OwnedArg>>,
    cancel: Arc<AtomicBool>,
    mut pause: PauseAt,
) -> Sink {
    // No statement yet, or none since a func entry.
    let mut entry = true;
    Box::new(move |ev| {
        let stmt = ev.kind == EventKind::Stmt;
        let wait = pause.every
            || (stmt && (pause.lines.contains(&ev.loc.line) || (pause.entries && entry)));
        if stmt {
            entry = false;
        } else if ev.kind == EventKind::Enter {
            entry = true;
        }
        if cancel.load(Ordering::SeqCst) || tx.send(Msg::Event(ev, wait)).is_err() {
            return false;
        }
        if !wait {
            return true;
        }
        loop {
            match rx.recv() {
                Ok(Cmd::Resume(p)) => {
                    pause = p;
                    return true;
                }
                Ok(Cmd::Read(k, i)) => {
                    let e = match args.get(k) {
                        Some(OwnedArg::Array(a)) => a.element_bytes(i),
                        _ => None,
                    };
                    if tx.send(Msg::Element(e)).is_err() {
                        return false;
                    }
                }
                Ok(Cmd::Start(_) | Cmd::Abort) | Err(_) => return false,
            }
        }
    })
}

fn kernel_info(
    module: &Module,
    kernel: &str,
) -> Result<(weft_ir::ModuleInfo, KernelInfo), RuntimeError> {
    let info = weft_ir::verify::verify_module(module)?;
    let Some(kinfo) = info.kernel(kernel).cloned() else {
        return Err(RuntimeError::NoKernel {
            name: kernel.to_string(),
            available: module
                .kernels()
                .map(|(_, f)| f.name.clone())
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    Ok((info, kinfo))
}

/// Runs kernel `kernel` of `module` over `dim` with `args` on the
/// interpreter, threads `0..=tid`, and returns the statement trace of
/// thread `tid` (a linear thread index; [`weft_ir::interp::trace_thread`]).
/// The interpreter's errors are returned as the interp device's.
pub fn trace_launch(
    module: &Module,
    kernel: &str,
    dim: &[usize],
    args: &[Arg<'_>],
    tid: usize,
) -> Result<Vec<TraceEvent>, RuntimeError> {
    let (_, kinfo) = kernel_info(module, kernel)?;
    let func = kinfo.func;
    let sig = KernelSig::new(kinfo, Arc::new(module.structs.clone()));
    let (dims, _) = check_dim(dim)?;
    let padded = dims.map(|d| d as usize);
    check_args(&sig, args, &padded)?;
    let mut iargs = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        match (a, ArgView::of(a)) {
            (Arg::Array(arr), view) => {
                if args[..i].iter().any(|b| {
                    matches!(b, Arg::Array(o) if o.data_ptr() == arr.data_ptr() && arr.byte_len() > 0)
                }) {
                    return Err(LaunchError::Aliased {
                        param: sig.params[i].name.clone(),
                        other: String::new(),
                        device: "interp",
                    }
                    .into());
                }
                let (shape, strides) = view.abi_shape();
                // SAFETY: the array's `byte_len` bytes at `data_ptr`, lent
                // to this call; no other argument has the same storage
                // (checked above), so this is the only mutable view of it.
                let data =
                    unsafe { std::slice::from_raw_parts_mut(arr.data_ptr(), arr.byte_len()) };
                iargs.push(ArgValue::Array {
                    data,
                    shape,
                    strides,
                });
            }
            (_, ArgView::Value(v)) => iargs.push(ArgValue::Value(v.bytes().to_vec())),
            (_, ArgView::Array { .. }) => {}
        }
    }
    let dims: Vec<i32> = dim.iter().map(|&d| d as i32).collect();
    trace_thread(
        module,
        func,
        &dims,
        &mut iargs,
        &InterpOptions::default(),
        tid as i32,
    )
    .map_err(|e| {
        LaunchError::Exec {
            kernel: kernel.to_string(),
            device: "interp",
            source: Box::new(e),
        }
        .into()
    })
}
