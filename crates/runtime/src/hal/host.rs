//! What the host devices (`cpu`, `llvm-cpu`, `interp`) share: device
//! arrays in host memory ([`HostBuffer`]), the parallel run of a
//! host-compiled kernel's thread range ([`run_entry`]), and the whole
//! device of a host JIT ([`HostDevice`] over a [`HostJit`]: `cpu` and
//! `llvm-cpu` differ only in their compiler).

use super::args::{pack_views, Block};
use super::{BufArg, CodeTier, DeviceApi, DeviceDesc, Launch};
use crate::array::Arg;
use crate::error::{LaunchError, RuntimeError};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use weft_abi::cancel;
use weft_abi::trap::{clear_trap, take_trap, TrapRecord};
use weft_abi::KernelEntry;
use weft_ir::{KernelInfo, Module, ModuleInfo};

/// A compiler of host code with the host ABI's entry points
/// ([`KernelEntry`]): what a host JIT device supplies.
pub trait HostJit: Send + Sync + 'static {
    /// The device's registry name.
    const NAME: &'static str;
    /// Compiled code; entry points are valid while it lives.
    type Code: Send + Sync + 'static;
    /// Compiles a verified module.
    fn compile(&self, module: &Module, info: &ModuleInfo) -> Result<Self::Code, RuntimeError>;
    /// The entry point of kernel `name`.
    fn entry(code: &Self::Code, name: &str) -> Option<KernelEntry>;
    /// The entry to run kernel `name` with now, `loaded` being
    /// [`HostJit::entry`]'s: a tiered JIT returns faster code once it has
    /// it. Called before each launch until it returns another entry, which
    /// the kernel then keeps.
    fn current(_code: &Arc<Self::Code>, _name: &str, loaded: KernelEntry) -> KernelEntry {
        loaded
    }
    /// After each launch of the code: how long it ran (a tiered JIT
    /// decides from it when to compile the faster tier).
    fn ran(_code: &Arc<Self::Code>, _took: Duration) {}
    /// The code the kernel `name` runs now.
    fn tier(code: &Arc<Self::Code>, name: &str) -> CodeTier;
    /// True if the JIT uses [`HostJit::ran`] (the launch is timed only
    /// then).
    const TIERED: bool = false;
}

/// A host JIT as a device: kernels compiled by `J`, run by [`run_entry`]
/// on all cores, arrays in host memory; launches stopped after the
/// wall-clock limit, if any ([`DeviceOptions::timeout`](super::DeviceOptions::timeout)).
pub struct HostDevice<J>(pub J, pub Option<Duration>);

/// A kernel's entry point and the code that holds it.
pub struct HostKernel<C> {
    entry: KernelEntry,
    name: String,
    code: Arc<C>,
    /// The faster entry a tiered JIT moved this kernel to, once it has.
    upgraded: OnceLock<KernelEntry>,
}

impl<J: HostJit> DeviceApi for HostDevice<J> {
    type Program = J::Code;
    type Kernel = HostKernel<J::Code>;
    host_buffers!();

    const NAME: &'static str = J::NAME;

    fn describe(&self) -> DeviceDesc {
        DeviceDesc {
            name: J::NAME,
            description: format!("host CPU, {} threads", rayon::current_num_threads()),
            target: None,
            host_memory: true,
        }
    }

    fn compile(&self, module: &Arc<Module>, info: &ModuleInfo) -> Result<J::Code, RuntimeError> {
        self.0.compile(module, info)
    }

    fn load(
        &self,
        program: &Arc<J::Code>,
        kernel: &KernelInfo,
    ) -> Result<Self::Kernel, RuntimeError> {
        let entry = J::entry(program, &kernel.name).ok_or_else(|| RuntimeError::NoKernel {
            name: kernel.name.clone(),
            available: "(not compiled)".into(),
        })?;
        Ok(HostKernel {
            entry,
            name: kernel.name.clone(),
            code: program.clone(),
            upgraded: OnceLock::new(),
        })
    }

    fn tier(&self, k: &Self::Kernel) -> CodeTier {
        J::tier(&k.code, &k.name)
    }

    fn launch(
        &self,
        k: &Self::Kernel,
        launch: &Launch<'_>,
        _args: &[Arg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        launch_kernel::<J>(k, launch, self.1)
    }

    fn launch_async(
        &self,
        k: &Self::Kernel,
        launch: &Launch<'_>,
        _args: &[BufArg<'_, HostBuffer>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        launch_kernel::<J>(k, launch, self.1)
    }
}

/// Launches `k` with the entry its JIT picks now, timing the launch for a
/// tiered JIT.
fn launch_kernel<J: HostJit>(
    k: &HostKernel<J::Code>,
    launch: &Launch<'_>,
    timeout: Option<Duration>,
) -> Result<Option<TrapRecord>, LaunchError> {
    if !J::TIERED {
        return launch_entry::<J>(k.entry, launch, timeout);
    }
    if let Some(&e) = k.upgraded.get() {
        return launch_entry::<J>(e, launch, timeout);
    }
    let entry = J::current(&k.code, &k.name, k.entry);
    if entry as usize != k.entry as usize {
        let _ = k.upgraded.set(entry);
        return launch_entry::<J>(entry, launch, timeout);
    }
    let t0 = Instant::now();
    let r = launch_entry::<J>(entry, launch, timeout);
    J::ran(&k.code, t0.elapsed());
    r
}

/// The storage of a host device's array: zeroed host memory
/// ([`crate::hostmem::HostMem`]: 64-byte aligned, huge pages when large)
/// that kernels write through its address while the host holds a shared
/// reference (`Send`, not `Sync`, like [`crate::Array`]).
pub struct HostBuffer {
    mem: crate::hostmem::HostMem,
}

impl HostBuffer {
    /// `len` zero bytes; `None` when the allocator refuses them.
    pub fn zeroed(len: usize) -> Option<HostBuffer> {
        Some(HostBuffer {
            mem: crate::hostmem::HostMem::zeroed(len)?,
        })
    }
    /// The data's address.
    pub fn ptr(&self) -> *mut u8 {
        self.mem.ptr()
    }
    /// Bytes of data.
    pub fn len(&self) -> usize {
        self.mem.len()
    }
    pub fn is_empty(&self) -> bool {
        self.mem.is_empty()
    }
    /// Copies `data` (at most [`HostBuffer::len`] bytes) in.
    pub fn write(&mut self, data: &[u8]) {
        let n = data.len().min(self.len());
        // SAFETY: `&mut self`: nothing else reads or writes the storage,
        // which holds at least `len >= n` bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr(), n) };
    }
    /// Copies the data (at most `out.len()` bytes) out.
    pub fn read(&self, out: &mut [u8]) {
        let n = out.len().min(self.len());
        // SAFETY: `HostBuffer` is not `Sync` and no launch is running on
        // it while the host holds this borrow (host launches return when
        // done); the storage holds at least `n` bytes.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr().cast_const(), out.as_mut_ptr(), n) };
    }
}

/// Implements the memory methods of [`super::DeviceApi`] for a host device,
/// with [`HostBuffer`]s: `type Buffer`, `alloc`, `write`, `read`,
/// `address`, and `synchronize` (host launches return when done).
macro_rules! host_buffers {
    () => {
        type Buffer = $crate::hal::host::HostBuffer;
        fn alloc(&self, bytes: usize) -> Result<Self::Buffer, $crate::error::RuntimeError> {
            $crate::hal::host::HostBuffer::zeroed(bytes).ok_or(
                $crate::error::RuntimeError::OutOfMemory {
                    device: Self::NAME,
                    bytes,
                },
            )
        }
        fn write(
            &self,
            buf: &mut Self::Buffer,
            data: &[u8],
        ) -> Result<(), $crate::error::RuntimeError> {
            buf.write(data);
            Ok(())
        }
        fn read(
            &self,
            buf: &Self::Buffer,
            out: &mut [u8],
        ) -> Result<(), $crate::error::RuntimeError> {
            buf.read(out);
            Ok(())
        }
        fn address(&self, buf: &Self::Buffer) -> u64 {
            buf.ptr() as usize as u64
        }
        fn synchronize(&self) -> Result<(), $crate::error::RuntimeError> {
            Ok(())
        }
    };
}
pub(crate) use host_buffers;

/// Packs the launch's argument block from its views (host addresses) and
/// runs `entry` over its threads within `timeout`: split over the pool
/// ([`run_entry`]), or as its kernel's [`weft_ir::Determinism`] asks
/// ([`super::deterministic`]).
fn launch_entry<J: HostJit>(
    entry: KernelEntry,
    launch: &Launch<'_>,
    timeout: Option<Duration>,
) -> Result<Option<TrapRecord>, LaunchError> {
    let block = pack_views(launch.sig, &launch.dims, launch.views);
    let deadline = timeout.map(|t| Instant::now() + t);
    super::deterministic::run(entry, launch, &block, deadline).map_err(|TimedOut| {
        LaunchError::Timeout {
            kernel: launch.sig.name.clone(),
            device: J::NAME,
            limit: timeout.unwrap_or_default(),
        }
    })
}

/// A launch stopped at its deadline ([`run_entry`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimedOut;

/// Threads per chunk at most when a launch has a deadline: the runtime
/// checks the clock before each chunk.
const DEADLINE_CHUNK: usize = 4096;

/// Chunks of a launch per pool thread: 4, or `WEFT_CHUNKS_PER_THREAD`
/// (1 to 1024) from the environment, read once (to measure the split:
/// `benches/README.md`, "Thread ranges").
pub fn chunks_per_thread() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("WEFT_CHUNKS_PER_THREAD")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .map_or(4, |n| n.clamp(1, 1024))
    })
}

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

/// Runs the launch's thread range in chunks over the rayon pool (4 per
/// pool thread, [`chunks_per_thread`]); returns the first bounds-checked-mode failure any chunk
/// recorded (see [`weft_abi::trap`]: each chunk's OS thread clears its slot
/// before the call and takes it right after).
///
/// With a `deadline`, chunks are at most [`DEADLINE_CHUNK`] threads; no
/// chunk starts after the deadline, and each runs with it set as its OS
/// thread's deadline ([`weft_abi::cancel`]) for the cancel checks of code
/// compiled with them. A launch cut short is [`TimedOut`].
pub fn run_entry(
    entry: KernelEntry,
    block: &[Block],
    total: usize,
    deadline: Option<Instant>,
) -> Result<Option<TrapRecord>, TimedOut> {
    run_chunks(entry, &[block], total, None, deadline)
}

/// [`run_entry`] with a chosen split: `per` threads a chunk (`None`:
/// [`chunks_per_thread`] chunks per pool thread), chunk `c` with argument block `blocks[c]` (or
/// `blocks[0]` for all when there is one). A chunk of the whole range runs
/// on the calling thread, in order, in pieces of [`DEADLINE_CHUNK`] threads
/// when there is a deadline.
pub fn run_chunks(
    entry: KernelEntry,
    blocks: &[&[Block]],
    total: usize,
    per: Option<usize>,
    deadline: Option<Instant>,
) -> Result<Option<TrapRecord>, TimedOut> {
    let serial = per.is_some_and(|p| p >= total);
    let per = per.unwrap_or_else(|| {
        let mut chunks = (rayon::current_num_threads() * chunks_per_thread())
            .min(total)
            .max(1);
        if deadline.is_some() {
            chunks = chunks.max(total.div_ceil(DEADLINE_CHUNK));
        }
        align_chunk(total.div_ceil(chunks))
    });
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
