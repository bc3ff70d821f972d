//! What the host devices (`cpu`, `llvm-cpu`, `interp`) share: device
//! arrays in host memory ([`HostBuffer`]) and the whole device of a host
//! JIT ([`HostDevice`] over a [`HostJit`]: `cpu` and `llvm-cpu` differ
//! only in their compiler). A launch goes one way down: the kernel's
//! entry (its tier) is chosen once ([`launch_kernel`]), then its ordering
//! ([`launch_entry`]), then the pool runs it ([`super::pool`]).

use super::args::pack_views;
use super::pool::{self, Split, TimedOut};
use super::{deterministic, BufArg, CodeTier, DeviceApi, DeviceDesc, DeviceOptions, Launch};
use crate::array::Arg;
use crate::error::{LaunchError, RuntimeError};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use weft_abi::trap::TrapRecord;
use weft_abi::KernelEntry;
use weft_ir::{Determinism, KernelInfo, Module, ModuleInfo};

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

/// A host JIT as a device: kernels compiled by `J`, run on all cores as
/// [`HostRun`] says, arrays in host memory.
pub struct HostDevice<J>(pub J, pub HostRun);

/// How a host device runs a launch: its options that reach the launch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HostRun {
    /// The wall-clock limit ([`DeviceOptions::timeout`]).
    pub timeout: Option<Duration>,
    /// Chunks per pool thread ([`DeviceOptions::chunks_per_thread`]).
    pub chunks_per_thread: usize,
}

impl HostRun {
    /// What `opts` say of a launch.
    pub fn of(opts: &DeviceOptions) -> HostRun {
        HostRun {
            timeout: opts.timeout,
            chunks_per_thread: opts.chunks_per_thread,
        }
    }
}

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
    run: HostRun,
) -> Result<Option<TrapRecord>, LaunchError> {
    if !J::TIERED {
        return launch_entry::<J>(k.entry, launch, run);
    }
    if let Some(&e) = k.upgraded.get() {
        return launch_entry::<J>(e, launch, run);
    }
    let entry = J::current(&k.code, &k.name, k.entry);
    if entry as usize != k.entry as usize {
        let _ = k.upgraded.set(entry);
        return launch_entry::<J>(entry, launch, run);
    }
    let t0 = Instant::now();
    let r = launch_entry::<J>(entry, launch, run);
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
/// runs `entry` over its threads within `run.timeout`: split over the pool
/// ([`pool::run_chunks`]), in thread order for a [`Determinism::Serial`]
/// kernel, or with per-chunk copies of its accumulated arrays
/// ([`deterministic::accumulate`]).
fn launch_entry<J: HostJit>(
    entry: KernelEntry,
    launch: &Launch<'_>,
    run: HostRun,
) -> Result<Option<TrapRecord>, LaunchError> {
    let block = pack_views(launch.sig, &launch.dims, launch.views);
    let deadline = run.timeout.map(|t| Instant::now() + t);
    let total = launch.total;
    let ran = match &launch.sig.determinism {
        Determinism::Free => {
            let split = Split::Pool(run.chunks_per_thread);
            pool::run_chunks(entry, &[&block], total, split, deadline)
        }
        Determinism::Serial { .. } => {
            pool::run_chunks(entry, &[&block], total, Split::Every(total), deadline)
        }
        Determinism::Accumulate(acc) => {
            deterministic::accumulate(entry, launch, acc, &block, deadline)
        }
    };
    ran.map_err(|TimedOut| LaunchError::Timeout {
        kernel: launch.sig.name.clone(),
        device: J::NAME,
        limit: run.timeout.unwrap_or_default(),
    })
}
