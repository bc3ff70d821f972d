//! The one device interface: [`DeviceApi`], which every device implements
//! (one module under `devices/`), and what the devices share below it.
//!
//! A device compiles a verified module into its `Program`, loads a
//! `Kernel` from it, launches kernels with host arrays (`launch`, waits) or
//! with its own device arrays (`launch_async`, may return before the
//! kernel has finished), and owns the memory of its device arrays
//! (`alloc`, `write`, `read`, `address`, `synchronize`). Launches reach a
//! device already checked: the dispatcher (`crate::device`) checks the
//! launch dim and every argument against the kernel's signature
//! ([`args`]) before calling it, and turns the trap record a device returns
//! into [`crate::LaunchError::Trap`].
//!
//! [`DynDevice`] is the same interface with the associated types erased,
//! implemented once for every `DeviceApi`; the dispatcher holds devices as
//! `Arc<dyn DynDevice>`. Device modules import this module, [`args`] and
//! [`host`], never each other or the dispatcher.

pub mod args;
pub mod deterministic;
pub mod host;
pub mod pool;

use crate::array::{Arg, Value};
use crate::error::{LaunchError, RuntimeError};
use crate::sig::KernelSig;
use args::ArgView;
use std::any::Any;
use std::path::PathBuf;
use std::sync::Arc;
use weft_abi::trap::TrapRecord;
use weft_ir::{KernelInfo, Module, ModuleInfo, OptLevel};

/// Where a device keeps the device code it compiles (PTX, SPIR-V).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum CacheLocation {
    /// The default on-disk cache (`$WEFT_CACHE_DIR`, else the user's cache
    /// directory; see `weft_cache`).
    #[default]
    Default,
    /// A cache in this directory.
    Dir(PathBuf),
    /// No cache: compile every time.
    Off,
}

impl CacheLocation {
    /// The cache, opened; `None` when off or when it cannot be opened (the
    /// cache only saves time).
    pub fn open(&self) -> Option<weft_cache::Cache> {
        match self {
            CacheLocation::Default => weft_cache::Cache::open_default().ok(),
            CacheLocation::Dir(d) => weft_cache::Cache::open(d).ok(),
            CacheLocation::Off => None,
        }
    }
}

/// How a device compiles: the options of its backend, given when the
/// device is opened.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeviceOptions {
    /// The backend's code generation level ([`OptLevel`]; default O2).
    pub opt_level: OptLevel,
    /// `cpu`: DWARF debug info registered with gdb through its JIT
    /// interface (one thread loop, lines map to the `.py`); use with
    /// [`OptLevel::O0`] so that no code moves across lines. Default off.
    pub debug_info: bool,
    /// `vulkan`: threads per workgroup, 1..=1024 (default 64).
    pub group_size: u32,
    /// `cuda`, `vulkan`: where compiled device code is cached.
    pub cache: CacheLocation,
    /// `cpu`, `llvm-cpu`, `interp`: a wall-clock limit per launch. A launch
    /// still running at the limit is stopped and fails with
    /// [`crate::LaunchError::Timeout`]: no more threads start, and code
    /// compiled for such a device checks the deadline at loop back-edges
    /// (`cpu`, `interp`; `llvm-cpu` between chunks of threads only).
    /// `None` (the default): no limit, and no check in the generated code.
    pub timeout: Option<std::time::Duration>,
    /// `llvm-cpu`: the vector tier (`docs/vector.md`): each kernel it
    /// takes runs the host's native vector width of consecutive threads
    /// per vector register, with results bit-identical to the scalar
    /// thread loop but for float atomic sums (lanes combine in order) and
    /// `f32` transcendentals (inlined, correctly rounded: within 1–2 ulp of
    /// the scalar loop's glibc calls). Default on; `WEFT_VECTOR=0` in the environment turns
    /// the default off.
    pub vector: bool,
    /// `llvm-cpu`, and `cpu`'s vector tier: the precise `f32`
    /// transcendentals computed inline in vector lanes (correctly rounded,
    /// within 1–2 ulp of the scalar loop's glibc calls; about 4× faster
    /// for `sin`/`cos`/`exp`) instead of lane by lane through the shims.
    /// Each inlined call site adds tens of milliseconds to LLVM's compile
    /// (`docs/vector.md`), so it is off by default; `WEFT_INLINE_MATH=1`
    /// in the environment turns the default on.
    pub inline_math: bool,
    /// `cpu` in a build with `llvm`: the run time on Cranelift's code after
    /// which a module moves to the vector tier (`docs/vector.md`); zero
    /// compiles the vector tier with the module, before its first launch
    /// (for a long run measured from its first step). Default
    /// [`TIER_UP_AFTER`]; `WEFT_TIER_UP_MS` in the environment sets the
    /// default (e.g. `WEFT_TIER_UP_MS=0 weft conform --backend cpu`).
    pub tier_up: std::time::Duration,
    /// `llvm-cpu`, and `cpu`'s vector tier: dense vector stores into an
    /// array the kernel only writes bypass the caches (non-temporal
    /// stores) when the launch's array is at least the host's last-level
    /// cache (`docs/vector.md`, "Streaming stores"): the lines are not
    /// fetched before being overwritten. Same results either way. Default
    /// on; `WEFT_STREAM_STORES=0` in the environment turns the default off.
    pub stream_stores: bool,
    /// `cpu`, `llvm-cpu`: chunks of a launch's thread range per pool
    /// thread (1 to 1024; default 4, or `WEFT_CHUNKS_PER_THREAD`; to
    /// measure the split: `benches/README.md`, "Thread ranges"). The
    /// deterministic launches choose their own chunks.
    pub chunks_per_thread: usize,
}

pub use crate::policy::TIER_UP_AFTER;

/// How the registry opens a device: its unit (`cuda:1` → 1) and options.
pub type OpenFn = fn(usize, &DeviceOptions) -> Result<Arc<dyn DynDevice>, RuntimeError>;

/// What an opened device is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceDesc {
    /// The registry name (`cpu`, `cuda`, ...).
    pub name: &'static str,
    /// The hardware or implementation, as the device reports it
    /// (`NVIDIA H200`, `llvmpipe (LLVM 15.0.6, 256 bits)`, the host CPU).
    pub description: String,
    /// The code target kernels are compiled for, where there is a choice
    /// (`sm_90` on `cuda`).
    pub target: Option<String>,
    /// Whether its arrays live in host memory (the host devices): then a
    /// launch with host arrays copies nothing.
    pub host_memory: bool,
}

/// The code a loaded kernel runs now ([`crate::Kernel::tier`]): on `cpu`
/// it changes once a hot module has moved to the vector tier.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CodeTier {
    /// The reference interpreter (`interp`).
    Interpreter,
    /// Cranelift's native code, one thread per iteration (`cpu`).
    Cranelift,
    /// LLVM's native host code, `lanes` consecutive threads per vector
    /// register (the vector tier, `docs/vector.md`); 1 for scalar code
    /// (`llvm-cpu`, `cpu` after its tier-up).
    Llvm { lanes: u32 },
    /// PTX on an NVIDIA GPU (`cuda`).
    Ptx,
    /// SPIR-V compute shaders from HLSL (`vulkan`).
    Spirv,
}

impl std::fmt::Display for CodeTier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodeTier::Interpreter => f.write_str("interpreter"),
            CodeTier::Cranelift => f.write_str("Cranelift (scalar)"),
            CodeTier::Llvm { lanes: 1 } => f.write_str("LLVM (scalar)"),
            CodeTier::Llvm { lanes } => write!(f, "LLVM vector tier ({lanes} lanes)"),
            CodeTier::Ptx => f.write_str("PTX"),
            CodeTier::Spirv => f.write_str("SPIR-V"),
        }
    }
}

/// A checked launch, as a device receives it.
#[derive(Copy, Clone)]
pub struct Launch<'a> {
    pub sig: &'a KernelSig,
    /// The launch dims, padded with 1s.
    pub dims: [i32; 4],
    /// The number of threads (> 0: empty launches never reach a device).
    pub total: usize,
    /// The arguments' views, checked against `sig`: host addresses for
    /// [`DeviceApi::launch`], the device's own for
    /// [`DeviceApi::launch_async`].
    pub views: &'a [ArgView<'a>],
}

/// One argument of [`DeviceApi::launch_async`]: an array of this device,
/// or a value.
pub enum BufArg<'a, B> {
    Array(&'a B),
    Value(&'a Value),
}

/// The one device interface; see the module docs.
pub trait DeviceApi: Send + Sync + 'static {
    /// A module compiled for the device.
    type Program: Send + Sync + 'static;
    /// A kernel of a program, ready to launch.
    type Kernel: Send + Sync + 'static;
    /// The storage of one device array.
    type Buffer: Send + 'static;

    /// The registry name.
    const NAME: &'static str;

    /// What the device is.
    fn describe(&self) -> DeviceDesc;

    /// Compiles a verified module; `info` is what the verifier returned.
    fn compile(
        &self,
        module: &Arc<Module>,
        info: &ModuleInfo,
    ) -> Result<Self::Program, RuntimeError>;

    /// The kernel `kernel` of `program`.
    fn load(
        &self,
        program: &Arc<Self::Program>,
        kernel: &KernelInfo,
    ) -> Result<Self::Kernel, RuntimeError>;

    /// The code `kernel` runs now.
    fn tier(&self, kernel: &Self::Kernel) -> CodeTier;

    /// Runs `kernel` with host arrays (`args`, whose views are
    /// `launch.views`) and waits for it; returns the first failure of a
    /// bounds-checked kernel.
    fn launch(
        &self,
        kernel: &Self::Kernel,
        launch: &Launch<'_>,
        args: &[Arg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError>;

    /// Runs `kernel` with this device's arrays and values; may return
    /// before the kernel has finished ([`DeviceApi::synchronize`] waits),
    /// except a bounds-checked kernel, which waits and returns its first
    /// failure.
    fn launch_async(
        &self,
        kernel: &Self::Kernel,
        launch: &Launch<'_>,
        args: &[BufArg<'_, Self::Buffer>],
    ) -> Result<Option<TrapRecord>, LaunchError>;

    /// A zero-filled buffer of `bytes` bytes.
    fn alloc(&self, bytes: usize) -> Result<Self::Buffer, RuntimeError>;
    /// Copies `data` into the buffer (after the work queued so far).
    fn write(&self, buf: &mut Self::Buffer, data: &[u8]) -> Result<(), RuntimeError>;
    /// Copies the buffer into `out` (after the work queued so far: waits).
    fn read(&self, buf: &Self::Buffer, out: &mut [u8]) -> Result<(), RuntimeError>;
    /// The address kernels see in the array descriptor (`ArrayDesc.data`);
    /// 0 on devices that bind buffers instead.
    fn address(&self, buf: &Self::Buffer) -> u64;
    /// Waits for all work queued on the device.
    fn synchronize(&self) -> Result<(), RuntimeError>;
}

/// A device's program, kernel or buffer with its type erased.
pub type Erased = Arc<dyn Any + Send + Sync>;
/// A device buffer with its type erased.
pub type ErasedBuffer = Box<dyn Any + Send>;

/// One argument of [`DynDevice::launch_async`].
pub enum DynBufArg<'a> {
    Array(&'a (dyn Any + Send)),
    Value(&'a Value),
}

/// [`DeviceApi`] with its associated types erased (implemented for every
/// `DeviceApi`): what the dispatcher calls. A program, kernel or buffer of
/// another device is refused with an error, never a panic.
pub trait DynDevice: Send + Sync {
    fn name(&self) -> &'static str;
    fn describe(&self) -> DeviceDesc;
    fn compile(&self, module: &Arc<Module>, info: &ModuleInfo) -> Result<Erased, RuntimeError>;
    fn load(&self, program: &Erased, kernel: &KernelInfo) -> Result<Erased, RuntimeError>;
    /// `None` for a kernel of another device.
    fn tier(&self, kernel: &Erased) -> Option<CodeTier>;
    fn launch(
        &self,
        kernel: &Erased,
        launch: &Launch<'_>,
        args: &[Arg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError>;
    fn launch_async(
        &self,
        kernel: &Erased,
        launch: &Launch<'_>,
        args: &[DynBufArg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError>;
    fn alloc(&self, bytes: usize) -> Result<ErasedBuffer, RuntimeError>;
    fn write(&self, buf: &mut (dyn Any + Send), data: &[u8]) -> Result<(), RuntimeError>;
    fn read(&self, buf: &(dyn Any + Send), out: &mut [u8]) -> Result<(), RuntimeError>;
    fn address(&self, buf: &(dyn Any + Send)) -> u64;
    fn synchronize(&self) -> Result<(), RuntimeError>;
}

/// The error of an erased object that belongs to another device.
fn foreign(device: &'static str, what: &str) -> RuntimeError {
    RuntimeError::Foreign {
        device,
        what: what.to_string(),
    }
}

fn foreign_launch(device: &'static str, sig: &KernelSig) -> LaunchError {
    LaunchError::Exec {
        kernel: sig.name.clone(),
        device,
        source: Box::new(foreign(device, "a kernel or array")),
    }
}

impl<D: DeviceApi> DynDevice for D {
    fn name(&self) -> &'static str {
        D::NAME
    }
    fn describe(&self) -> DeviceDesc {
        DeviceApi::describe(self)
    }
    fn compile(&self, module: &Arc<Module>, info: &ModuleInfo) -> Result<Erased, RuntimeError> {
        Ok(Arc::new(Arc::new(DeviceApi::compile(self, module, info)?)))
    }
    fn load(&self, program: &Erased, kernel: &KernelInfo) -> Result<Erased, RuntimeError> {
        let p = program
            .downcast_ref::<Arc<D::Program>>()
            .ok_or_else(|| foreign(D::NAME, "a program"))?;
        Ok(Arc::new(DeviceApi::load(self, p, kernel)?))
    }
    fn tier(&self, kernel: &Erased) -> Option<CodeTier> {
        kernel
            .downcast_ref::<D::Kernel>()
            .map(|k| DeviceApi::tier(self, k))
    }
    fn launch(
        &self,
        kernel: &Erased,
        launch: &Launch<'_>,
        args: &[Arg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        let k = kernel
            .downcast_ref::<D::Kernel>()
            .ok_or_else(|| foreign_launch(D::NAME, launch.sig))?;
        DeviceApi::launch(self, k, launch, args)
    }
    fn launch_async(
        &self,
        kernel: &Erased,
        launch: &Launch<'_>,
        args: &[DynBufArg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        let k = kernel
            .downcast_ref::<D::Kernel>()
            .ok_or_else(|| foreign_launch(D::NAME, launch.sig))?;
        let mut typed = Vec::with_capacity(args.len());
        for a in args {
            typed.push(match a {
                DynBufArg::Array(b) => BufArg::Array(
                    b.downcast_ref::<D::Buffer>()
                        .ok_or_else(|| foreign_launch(D::NAME, launch.sig))?,
                ),
                DynBufArg::Value(v) => BufArg::Value(v),
            });
        }
        DeviceApi::launch_async(self, k, launch, &typed)
    }
    fn alloc(&self, bytes: usize) -> Result<ErasedBuffer, RuntimeError> {
        Ok(Box::new(DeviceApi::alloc(self, bytes)?))
    }
    fn write(&self, buf: &mut (dyn Any + Send), data: &[u8]) -> Result<(), RuntimeError> {
        let b = buf
            .downcast_mut::<D::Buffer>()
            .ok_or_else(|| foreign(D::NAME, "an array"))?;
        DeviceApi::write(self, b, data)
    }
    fn read(&self, buf: &(dyn Any + Send), out: &mut [u8]) -> Result<(), RuntimeError> {
        let b = buf
            .downcast_ref::<D::Buffer>()
            .ok_or_else(|| foreign(D::NAME, "an array"))?;
        DeviceApi::read(self, b, out)
    }
    fn address(&self, buf: &(dyn Any + Send)) -> u64 {
        buf.downcast_ref::<D::Buffer>()
            .map_or(0, |b| DeviceApi::address(self, b))
    }
    fn synchronize(&self) -> Result<(), RuntimeError> {
        DeviceApi::synchronize(self)
    }
}
