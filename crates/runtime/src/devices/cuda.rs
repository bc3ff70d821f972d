//! The `cuda` device: PTX from the LLVM backend, loaded and launched through
//! the CUDA driver API (`cudarc`, driver library loaded at run time).
//!
//! * One GPU (by ordinal; `cuda:1`) is opened once per process and shared:
//!   its CUDA context and **one stream** on which every copy, allocation,
//!   free and launch of the device is ordered. Launches with device arrays
//!   are asynchronous; `synchronize` waits.
//! * Device arrays are device allocations of their storage bytes (the same
//!   type, shape, byte strides and layout as the host array they mirror).
//! * Launch: the argument block of `weft_ir::layout` with device pointers in
//!   `ArrayDesc.data`, passed by value as the kernel's one `.param` byte
//!   array; the kernel grid-strides over `0..product(dim)`. A launch with
//!   host arrays copies each distinct array to the device, runs, and copies
//!   them back (this is how `weft run`/`weft conform` use the GPU).
//! * Bounds-checked mode: a module compiled with checks (its `ModuleInfo`
//!   says it has traps) holds the trap record `__weft_trap`
//!   (`weft_abi::trap::record`). A launch of such a kernel zeroes the
//!   record on the stream, runs, **waits for the stream**, reads the record
//!   back and returns the first failure (checked launches are synchronous,
//!   also with device arrays); checked launches of one module are
//!   serialised. When several threads fail, the one reported is the first
//!   to claim the record on the GPU (not necessarily the lowest index).
//!
//! Without a CUDA driver, opening the device is an error ("no CUDA driver
//! found"); nothing panics.

use crate::array::Arg;
use crate::cached;
use crate::error::{LaunchError, RuntimeError};
use crate::hal::args::{pack_views, ArgView, Block};
use crate::hal::{
    CodeTier,     BufArg, CacheLocation, DeviceApi, DeviceDesc, DeviceOptions, DynDevice, Launch, OpenFn,
};
use cudarc::driver::{self as cu, DevicePtr};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use weft_abi::trap::{record, TrapRecord};
use weft_ir::{KernelInfo, Module, ModuleInfo};

pub(super) const OPEN: Option<OpenFn> = Some(open);

/// Threads per block of a launch.
const BLOCK_THREADS: u32 = 256;

/// Errors of the CUDA device.
#[derive(Debug, thiserror::Error)]
pub enum CudaError {
    #[error("no CUDA driver found (libcuda could not be loaded)")]
    NoDriver,
    #[error("no CUDA device {ordinal} (this machine has {count})")]
    NoDevice { ordinal: usize, count: usize },
    #[error("CUDA driver: {0}")]
    Driver(#[from] cu::DriverError),
}

fn device_err(e: CudaError) -> RuntimeError {
    RuntimeError::Device {
        device: Cuda::NAME,
        source: Box::new(e),
    }
}

fn open(ordinal: usize, opts: &DeviceOptions) -> Result<Arc<dyn DynDevice>, RuntimeError> {
    let gpu = Gpu::open(ordinal).map_err(device_err)?;
    let ptx = weft_backend_llvm::Options {
        arch: arch_for(gpu.cc).to_string(),
        opt_level: opts.opt_level,
        ..Default::default()
    };
    Ok(Arc::new(Cuda {
        gpu,
        ptx,
        cache: opts.cache.clone(),
    }))
}

/// One GPU: its context and stream, shared by the whole process.
struct Gpu {
    ordinal: usize,
    ctx: Arc<cu::CudaContext>,
    stream: Arc<cu::CudaStream>,
    name: String,
    cc: (i32, i32),
}

/// Whether the CUDA driver library can be loaded here.
fn driver_present() -> bool {
    // SAFETY: tries to load libcuda with `dlopen` and drops it again; this
    // runs the library's initialisers, which the CUDA driver allows from
    // any thread at any time.
    unsafe { cu::sys::is_culib_present() }
}

/// The PTX target for compute capability `cc`: the backend's newest
/// supported architecture not above it (PTX is forward compatible: a newer
/// GPU JITs it), `sm_70` below that (such a GPU rejects the PTX on load).
fn arch_for(cc: (i32, i32)) -> &'static str {
    let (major, minor) = (cc.0.max(0) as u32, cc.1.max(0) as u32);
    weft_backend_llvm::arch_for_compute_capability(major, minor)
        .unwrap_or(weft_backend_llvm::SUPPORTED_ARCHS[0])
}

impl Gpu {
    /// GPU `ordinal`, opened on first use and shared by the whole process.
    fn open(ordinal: usize) -> Result<Arc<Gpu>, CudaError> {
        static OPEN: OnceLock<Mutex<HashMap<usize, Arc<Gpu>>>> = OnceLock::new();
        if !driver_present() {
            return Err(CudaError::NoDriver);
        }
        let mut open = OPEN
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(d) = open.get(&ordinal) {
            return Ok(d.clone());
        }
        let no_device = cu::sys::cudaError_enum::CUDA_ERROR_NO_DEVICE;
        let count = match cu::CudaContext::device_count() {
            Ok(n) => n.max(0) as usize,
            // A driver without a GPU (e.g. a container without one).
            Err(cu::DriverError(e)) if e == no_device => 0,
            Err(e) => return Err(e.into()),
        };
        if ordinal >= count {
            return Err(CudaError::NoDevice { ordinal, count });
        }
        let ctx = cu::CudaContext::new(ordinal)?;
        // SAFETY: no slice of this context exists yet. Every allocation,
        // copy and launch of the device goes to its one stream, so stream
        // order is the synchronisation and cudarc's per-slice events are
        // not needed.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream()?;
        let dev = Arc::new(Gpu {
            ordinal,
            name: ctx.name()?,
            cc: ctx.compute_capability()?,
            ctx,
            stream,
        });
        open.insert(ordinal, dev.clone());
        Ok(dev)
    }
}

/// The `cuda` device: a GPU and how modules are compiled for it.
struct Cuda {
    gpu: Arc<Gpu>,
    ptx: weft_backend_llvm::Options,
    cache: CacheLocation,
}

/// A module's PTX loaded on the GPU.
struct CudaProgram {
    kernels: HashMap<String, (cu::CudaFunction, u32)>,
    trap: Option<Arc<TrapSlot>>,
    _module: Arc<cu::CudaModule>,
}

/// The trap record of a module compiled with checks (see the module docs).
struct TrapSlot {
    module: Arc<cu::CudaModule>,
    /// Held from zeroing the record to reading it back.
    busy: Mutex<()>,
}

/// A kernel of a [`CudaProgram`].
struct CudaKernel {
    func: cu::CudaFunction,
    param_size: u32,
    trap: Option<Arc<TrapSlot>>,
    _program: Arc<CudaProgram>,
}

/// A device array's storage: at least one byte (CUDA has no empty
/// allocations), `len` of them used.
struct CudaBuffer {
    slice: cu::CudaSlice<u8>,
    len: usize,
}

impl Cuda {
    fn exec(&self, sig_name: &str) -> impl Fn(CudaError) -> LaunchError + '_ {
        let kernel = sig_name.to_string();
        move |e| LaunchError::Exec {
            kernel: kernel.clone(),
            device: Cuda::NAME,
            source: Box::new(e),
        }
    }

    /// Queues the kernel over `total` threads with the packed `block`.
    fn enqueue(&self, k: &CudaKernel, block: &[Block], total: usize) -> Result<(), CudaError> {
        debug_assert!(std::mem::size_of_val(block) >= k.param_size as usize);
        let blocks = (total as u64).div_ceil(BLOCK_THREADS as u64).max(1) as u32;
        let mut params = [block.as_ptr() as *mut std::ffi::c_void];
        self.gpu.ctx.bind_to_thread()?;
        // SAFETY: the kernel takes one by-value `.param` byte array of
        // `param_size` bytes; `params[0]` points to the packed argument
        // block, at least that long, which the driver copies before
        // `cuLaunchKernel` returns. The block was checked against the
        // kernel's signature, and its array pointers are live device
        // allocations of this context that the caller keeps alive until the
        // stream has passed the launch (device arrays are borrowed by the
        // launch and freed in stream order).
        unsafe {
            cu::result::launch_kernel(
                k.func.cu_function(),
                (blocks, 1, 1),
                (BLOCK_THREADS, 1, 1),
                0,
                self.gpu.stream.cu_stream(),
                &mut params,
            )?;
        }
        Ok(())
    }

    /// Queues the kernel; for checked code, around it zeroes the trap
    /// record, waits and returns the failure the record holds.
    fn run(
        &self,
        k: &CudaKernel,
        block: &[Block],
        total: usize,
    ) -> Result<Option<TrapRecord>, CudaError> {
        let Some(t) = &k.trap else {
            self.enqueue(k, block, total)?;
            return Ok(None);
        };
        let _busy = t.busy.lock().unwrap_or_else(|e| e.into_inner());
        let stream = &self.gpu.stream;
        self.gpu.ctx.bind_to_thread()?;
        let mut rec = t.module.get_global(weft_backend_llvm::TRAP_GLOBAL, stream)?;
        stream.memset_zeros(&mut rec)?;
        self.enqueue(k, block, total)?;
        let bytes = stream.clone_dtoh(&rec)?;
        stream.synchronize()?;
        Ok(record::decode(&bytes))
    }

    fn alloc_buffer(&self, bytes: usize) -> Result<CudaBuffer, CudaError> {
        Ok(CudaBuffer {
            slice: self.gpu.stream.alloc_zeros::<u8>(bytes.max(1))?,
            len: bytes,
        })
    }

    fn upload(&self, data: &[u8]) -> Result<CudaBuffer, CudaError> {
        let mut b = self.alloc_buffer(data.len())?;
        if !data.is_empty() {
            self.gpu.stream.memcpy_htod(data, &mut b.slice)?;
        }
        Ok(b)
    }

    /// Device → `out` (at most the buffer's length); waits for the stream.
    fn download(&self, b: &CudaBuffer, out: &mut [u8]) -> Result<(), CudaError> {
        let n = b.len.min(out.len());
        if n == 0 {
            return Ok(());
        }
        let src = b.slice.slice(0..n);
        self.gpu.stream.memcpy_dtoh(&src, &mut out[..n])?;
        self.gpu.stream.synchronize()?;
        Ok(())
    }

    fn ptr(&self, b: &CudaBuffer) -> u64 {
        let (ptr, _sync) = b.slice.device_ptr(&self.gpu.stream);
        ptr
    }
}

impl DeviceApi for Cuda {
    type Program = CudaProgram;
    type Kernel = CudaKernel;
    type Buffer = CudaBuffer;

    const NAME: &'static str = "cuda";

    fn describe(&self) -> DeviceDesc {
        DeviceDesc {
            name: Self::NAME,
            description: format!("{} (CUDA device {})", self.gpu.name, self.gpu.ordinal),
            target: Some(self.ptx.arch.clone()),
            host_memory: false,
        }
    }

    /// Compiles `module` to PTX for the GPU's architecture (through the
    /// compile cache) and loads it.
    fn compile(&self, module: &Arc<Module>, info: &ModuleInfo) -> Result<CudaProgram, RuntimeError> {
        let cache = self.cache.open();
        let (art, _hit) = cached::ptx(cache.as_ref(), module, info, &self.ptx)
            .map_err(|e| RuntimeError::backend(Self::NAME, e.is_unsupported(), e))?;
        let loaded = (|| -> Result<_, CudaError> {
            let m = self
                .gpu
                .ctx
                .load_module(cudarc::nvrtc::Ptx::from_src(art.ptx))?;
            let mut kernels = HashMap::new();
            for k in &art.kernels {
                let f = m.load_function(&k.entry_symbol)?;
                kernels.insert(k.name.clone(), (f, k.param_size));
            }
            Ok((m, kernels))
        })();
        let (m, kernels) = loaded.map_err(device_err)?;
        let trap = art.trap_record.then(|| {
            Arc::new(TrapSlot {
                module: m.clone(),
                busy: Mutex::new(()),
            })
        });
        Ok(CudaProgram {
            kernels,
            trap,
            _module: m,
        })
    }

    fn load(&self, program: &Arc<CudaProgram>, kernel: &KernelInfo) -> Result<CudaKernel, RuntimeError> {
        let (func, param_size) =
            program
                .kernels
                .get(&kernel.name)
                .cloned()
                .ok_or_else(|| RuntimeError::NoKernel {
                    name: kernel.name.clone(),
                    available: program.kernels.keys().cloned().collect::<Vec<_>>().join(", "),
                })?;
        Ok(CudaKernel {
            func,
            param_size,
            trap: program.trap.clone(),
            _program: program.clone(),
        })
    }

    fn tier(&self, _k: &CudaKernel) -> CodeTier {
        CodeTier::Ptx
    }

    /// Copies each distinct host array in, runs, copies them back; a
    /// checked kernel's failure is returned after the copy back.
    fn launch(
        &self,
        k: &CudaKernel,
        launch: &Launch<'_>,
        args: &[Arg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        let exec = self.exec(&launch.sig.name);
        // One device copy per distinct host array (an array passed twice
        // is one buffer, as on the CPU).
        let mut staged: Vec<(&crate::Array, CudaBuffer)> = Vec::new();
        let mut views: Vec<ArgView<'_>> = Vec::with_capacity(args.len());
        for (a, v) in args.iter().zip(launch.views) {
            let mut v = *v;
            if let (Arg::Array(arr), ArgView::Array { data, .. }) = (a, &mut v) {
                let i = match staged.iter().position(|(h, _)| std::ptr::eq(*h, *arr)) {
                    Some(i) => i,
                    None => {
                        staged.push((arr, self.upload(arr.raw()).map_err(&exec)?));
                        staged.len() - 1
                    }
                };
                *data = self.ptr(&staged[i].1);
            }
            views.push(v);
        }
        let block = pack_views(launch.sig, &launch.dims, &views);
        let trap = self.run(k, &block, launch.total).map_err(&exec)?;
        for (host, dev) in &staged {
            // SAFETY: the launch has finished on the device (`download`
            // waits for the stream) and the host array was lent to this
            // synchronous launch, its only user until it returns.
            let out = unsafe { host.raw_mut() };
            self.download(dev, out).map_err(&exec)?;
        }
        Ok(trap)
    }

    fn launch_async(
        &self,
        k: &CudaKernel,
        launch: &Launch<'_>,
        _args: &[BufArg<'_, CudaBuffer>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        let block = pack_views(launch.sig, &launch.dims, launch.views);
        self.run(k, &block, launch.total)
            .map_err(self.exec(&launch.sig.name))
    }

    fn alloc(&self, bytes: usize) -> Result<CudaBuffer, RuntimeError> {
        self.alloc_buffer(bytes).map_err(device_err)
    }

    fn write(&self, buf: &mut CudaBuffer, data: &[u8]) -> Result<(), RuntimeError> {
        let n = buf.len.min(data.len());
        if n > 0 {
            let mut dst = buf.slice.slice_mut(0..n);
            self.gpu
                .stream
                .memcpy_htod(&data[..n], &mut dst)
                .map_err(|e| device_err(e.into()))?;
        }
        Ok(())
    }

    fn read(&self, buf: &CudaBuffer, out: &mut [u8]) -> Result<(), RuntimeError> {
        self.download(buf, out).map_err(device_err)
    }

    fn address(&self, buf: &CudaBuffer) -> u64 {
        self.ptr(buf)
    }

    fn synchronize(&self) -> Result<(), RuntimeError> {
        self.gpu
            .stream
            .synchronize()
            .map_err(|e| device_err(e.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_follows_compute_capability() {
        assert_eq!(arch_for((9, 0)), "sm_90");
        assert_eq!(arch_for((8, 6)), "sm_86");
        assert_eq!(arch_for((8, 9)), "sm_89");
        assert_eq!(arch_for((12, 0)), "sm_90");
        assert_eq!(arch_for((7, 0)), "sm_70");
        assert_eq!(arch_for((6, 1)), "sm_70");
    }

    #[test]
    fn opening_without_a_driver_is_an_error() {
        if driver_present() {
            weft_testkit::skip("a CUDA driver is present here");
            return;
        }
        let e = open(0, &DeviceOptions::default()).err().expect("no driver");
        assert!(e.to_string().contains("no CUDA driver found"), "{e}");
    }
}
