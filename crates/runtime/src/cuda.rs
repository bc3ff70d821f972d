//! The `cuda` device: PTX from the LLVM backend, loaded and launched through
//! the CUDA driver API (`cudarc`, driver library loaded at run time).
//!
//! # Data model
//!
//! * [`CudaDevice`]: one GPU (by ordinal), opened once per process and
//!   shared: its CUDA context and **one stream** on which every copy,
//!   allocation, free and launch of the device is ordered. Launches are
//!   asynchronous; [`CudaDevice::synchronize`] waits; [`CudaEvent`]s time
//!   work on the stream.
//! * [`CudaArray`]: device-resident storage with the same type, shape and
//!   byte strides as a host [`Array`] (C layout, contiguous in C order), made
//!   by [`CudaDevice::upload`] or [`CudaDevice::zeros`] and read back with
//!   [`CudaArray::to_host`]; an SoA host array's device copy is SoA too
//!   (the same planar bytes), see [`crate::array`]. The host `Array` stays host memory; a device
//!   array is its own type, so no host accessor can touch device memory by
//!   accident.
//! * Launch: [`Device::launch_async`] takes [`CudaArg`]s (device arrays and
//!   values), checks them exactly as the CPU device does (the same
//!   `check_args` rules on the same views) and packs the same argument block
//!   (`weft_ir::layout`), with device pointers in `ArrayDesc.data`. The
//!   kernel takes the block by value as one `.param` byte array and
//!   grid-strides over `0..product(dim)`. [`Device::launch`] with host
//!   arrays also works on `cuda`: each distinct array is copied to the
//!   device, the kernel runs, and the arrays are copied back (this is how
//!   `weft run`/`weft conform` use the GPU).
//!
//! * Bounds-checked mode: a module compiled with checks holds the trap
//!   record `__weft_trap` (see `weft_backend_ptx::TRAP_GLOBAL`). A launch
//!   of such a kernel zeroes the record on the stream, runs, **waits for
//!   the stream**, reads the record back and returns the first failure as
//!   [`LaunchError::Trap`] (checked launches are synchronous, also through
//!   [`Device::launch_async`]); checked launches of one module are
//!   serialised. When several threads fail, the one reported is the first
//!   to claim the record on the GPU (not necessarily the lowest index).
//!
//! Without a CUDA driver, [`CudaDevice::open`] returns
//! [`CudaError::NoDriver`] ("no CUDA driver found"); nothing panics.

use crate::array::{meta_accessors, storage_of, Arg, Array, ArrayError, ArrayMeta};
use crate::cache;
use crate::device::{check_dim, device_views, pack_views, ArgView, Device};
use crate::dtype::Dtype;
use crate::error::{BackendError, LaunchError, RuntimeError};
use crate::sig::KernelSig;
use cudarc::driver::{self as cu, DevicePtr};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use weft_backend_cpu::trap::TrapRecord;
use weft_ir::{ArrayLayout, Module};

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
    #[error("array or kernel of CUDA device {array} used with CUDA device {device}")]
    OtherDevice { array: usize, device: usize },
    #[error("copy between arrays of different type or shape: {dst} vs {src}")]
    Mismatch { dst: String, src: String },
    #[error(transparent)]
    Array(#[from] ArrayError),
}

impl From<CudaError> for RuntimeError {
    fn from(e: CudaError) -> Self {
        RuntimeError::Device {
            device: "cuda",
            source: Box::new(e),
        }
    }
}

/// One GPU; see the module docs.
pub struct CudaDevice {
    ordinal: usize,
    ctx: Arc<cu::CudaContext>,
    stream: Arc<cu::CudaStream>,
    name: String,
    cc: (i32, i32),
}

impl std::fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaDevice")
            .field("ordinal", &self.ordinal)
            .field("name", &self.name)
            .field("compute_capability", &self.cc)
            .finish()
    }
}

impl PartialEq for CudaDevice {
    fn eq(&self, other: &Self) -> bool {
        self.ordinal == other.ordinal
    }
}
impl Eq for CudaDevice {}

/// Whether the CUDA driver library can be loaded here.
pub fn driver_present() -> bool {
    // SAFETY: tries to load libcuda with `dlopen` and drops it again; this
    // runs the library's initialisers, which the CUDA driver allows from
    // any thread at any time.
    unsafe { cu::sys::is_culib_present() }
}

/// Number of CUDA devices (0 without a driver).
pub fn device_count() -> usize {
    if !driver_present() {
        return 0;
    }
    cu::CudaContext::device_count().map_or(0, |n| n.max(0) as usize)
}

/// The PTX target for compute capability `cc`: the backend's newest
/// supported architecture not above it (PTX is forward compatible: a newer
/// GPU JITs it), `sm_70` below that (such a GPU rejects the PTX on load).
pub fn arch_for(cc: (i32, i32)) -> &'static str {
    let (major, minor) = (cc.0.max(0) as u32, cc.1.max(0) as u32);
    weft_backend_ptx::arch_for_compute_capability(major, minor)
        .unwrap_or(weft_backend_ptx::SUPPORTED_ARCHS[0])
}

impl CudaDevice {
    /// GPU `ordinal`, opened on first use and shared by the whole process.
    pub fn open(ordinal: usize) -> Result<Arc<CudaDevice>, CudaError> {
        static OPEN: OnceLock<Mutex<HashMap<usize, Arc<CudaDevice>>>> = OnceLock::new();
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
        let dev = Arc::new(CudaDevice {
            ordinal,
            name: ctx.name()?,
            cc: ctx.compute_capability()?,
            ctx,
            stream,
        });
        open.insert(ordinal, dev.clone());
        Ok(dev)
    }

    pub fn ordinal(&self) -> usize {
        self.ordinal
    }
    /// The GPU's name, as the driver reports it.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Compute capability (major, minor).
    pub fn compute_capability(&self) -> (i32, i32) {
        self.cc
    }
    /// The PTX architecture kernels are compiled for (see [`arch_for`]).
    pub fn arch(&self) -> &'static str {
        arch_for(self.cc)
    }
    /// Waits for all work queued on the device's stream.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        Ok(self.stream.synchronize()?)
    }
    /// Records an event (with timing) after the work queued so far.
    pub fn record_event(&self) -> Result<CudaEvent, CudaError> {
        let e = self
            .stream
            .record_event(Some(cu::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
        Ok(CudaEvent(e))
    }

    /// Allocates `bytes` (at least 1: CUDA has no empty allocations).
    fn alloc(&self, bytes: usize) -> Result<cu::CudaSlice<u8>, CudaError> {
        Ok(self.stream.alloc_zeros::<u8>(bytes.max(1))?)
    }

    /// A zero-filled device array (contiguous, C order).
    pub fn zeros(self: &Arc<Self>, dtype: Dtype, shape: &[usize]) -> Result<CudaArray, CudaError> {
        self.zeros_with_layout(dtype, shape, ArrayLayout::Aos)
    }

    /// A zero-filled device array in `layout` (SoA: planes, as
    /// [`Array::zeros_with_layout`]).
    pub fn zeros_with_layout(
        self: &Arc<Self>,
        dtype: Dtype,
        shape: &[usize],
        layout: ArrayLayout,
    ) -> Result<CudaArray, CudaError> {
        let (strides, bytes) = storage_of(&dtype, shape, layout)?;
        Ok(CudaArray {
            buf: self.alloc(bytes)?,
            meta: ArrayMeta {
                dtype,
                layout,
                shape: shape.to_vec(),
                strides,
            },
            len_bytes: bytes,
            dev: self.clone(),
        })
    }

    /// A device copy of a host array (same type, shape and strides).
    pub fn upload(self: &Arc<Self>, a: &Array) -> Result<CudaArray, CudaError> {
        let n = a.byte_len();
        let mut buf = self.alloc(n)?;
        if n > 0 {
            self.stream.memcpy_htod(host_bytes(a), &mut buf)?;
        }
        Ok(CudaArray {
            meta: ArrayMeta {
                dtype: a.dtype().clone(),
                layout: a.layout(),
                shape: a.shape().to_vec(),
                strides: a.strides().to_vec(),
            },
            len_bytes: n,
            buf,
            dev: self.clone(),
        })
    }
}

/// The storage bytes of a host array.
fn host_bytes(a: &Array) -> &[u8] {
    // SAFETY: `Array` is not `Sync`, so nothing writes its storage while
    // this shared borrow lives; the storage holds `byte_len` bytes.
    unsafe { std::slice::from_raw_parts(a.data_ptr().cast_const(), a.byte_len()) }
}

/// A point on a device's stream; see [`CudaDevice::record_event`].
pub struct CudaEvent(cu::CudaEvent);

impl CudaEvent {
    /// Milliseconds from `self` to `end` (waits for both).
    pub fn elapsed_ms(&self, end: &CudaEvent) -> Result<f32, CudaError> {
        Ok(self.0.elapsed_ms(&end.0)?)
    }
    /// Waits until the work before the event has finished.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        Ok(self.0.synchronize()?)
    }
}

/// A device-resident array; see the module docs.
pub struct CudaArray {
    meta: ArrayMeta,
    len_bytes: usize,
    buf: cu::CudaSlice<u8>,
    dev: Arc<CudaDevice>,
}

impl std::fmt::Debug for CudaArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaArray")
            .field("dtype", &self.meta.dtype.to_string())
            .field("shape", &self.meta.shape)
            .field("device", &self.dev.ordinal)
            .finish()
    }
}

impl CudaArray {
    meta_accessors!();
    pub fn device(&self) -> &Arc<CudaDevice> {
        &self.dev
    }

    fn check_like(&self, a: &Array) -> Result<(), CudaError> {
        self.meta
            .check_like(a.meta())
            .map_err(|(dst, src)| CudaError::Mismatch { dst, src })
    }

    /// Copies a host array of the same type and shape in (queued on the
    /// stream; the host data is read before this returns).
    pub fn copy_from_host(&mut self, a: &Array) -> Result<(), CudaError> {
        self.check_like(a)?;
        if self.len_bytes > 0 {
            let stream = self.dev.stream.clone();
            stream.memcpy_htod(host_bytes(a), &mut self.buf)?;
        }
        Ok(())
    }

    /// Copies into a host array of the same type and shape, after the work
    /// queued so far (waits for it).
    pub fn copy_to_host(&self, a: &mut Array) -> Result<(), CudaError> {
        self.check_like(a)?;
        self.download_into(a)
    }

    /// Device → host into the storage of `a` (same layout, checked by the
    /// caller); waits for the stream.
    fn download_into(&self, a: &Array) -> Result<(), CudaError> {
        let n = self.len_bytes;
        if n == 0 {
            return Ok(());
        }
        // SAFETY: the caller holds the only live use of `a`'s storage for
        // this call (a `&mut Array`, or a host array lent to a synchronous
        // launch that has finished on the device); `n` is its byte length.
        let dst = unsafe { std::slice::from_raw_parts_mut(a.data_ptr(), n) };
        // Device buffers are exactly `n` bytes when `n > 0`.
        self.dev.stream.memcpy_dtoh(&self.buf, dst)?;
        self.dev.stream.synchronize()?;
        Ok(())
    }

    /// A host copy (waits for the work queued so far).
    pub fn to_host(&self) -> Result<Array, CudaError> {
        let a = self.meta.host_zeros()?;
        self.download_into(&a)?;
        Ok(a)
    }

    /// The device address of the data.
    fn device_ptr(&self) -> u64 {
        let (ptr, _sync) = self.buf.device_ptr(&self.dev.stream);
        ptr
    }
}

/// One argument of [`Device::launch_async`] (the same type as
/// [`crate::DeviceArg`]: `CudaArg::array(&a)`, `CudaArg::of(2.0f32)`).
pub type CudaArg<'a> = crate::device::DeviceArg<'a>;

/// A module's PTX loaded on a GPU.
pub struct CudaProgram {
    dev: Arc<CudaDevice>,
    kernels: HashMap<String, (cu::CudaFunction, u32)>,
    _module: Arc<cu::CudaModule>,
    trap: Option<Arc<TrapSlot>>,
}

/// The trap record of a module compiled with checks (see the module docs).
struct TrapSlot {
    module: Arc<cu::CudaModule>,
    /// Held from zeroing the record to reading it back.
    busy: Mutex<()>,
}

/// A kernel of a [`CudaProgram`].
#[derive(Clone)]
pub struct CudaKernel {
    dev: Arc<CudaDevice>,
    func: cu::CudaFunction,
    param_size: u32,
    trap: Option<Arc<TrapSlot>>,
}

impl CudaProgram {
    pub(crate) fn kernel(&self, name: &str) -> Option<CudaKernel> {
        self.kernels.get(name).map(|(f, size)| CudaKernel {
            dev: self.dev.clone(),
            func: f.clone(),
            param_size: *size,
            trap: self.trap.clone(),
        })
    }
}

/// Compiles `m` to PTX for the device's architecture (through the on-disk
/// cache) and loads it.
pub(crate) fn compile(dev: &Arc<CudaDevice>, m: &Module) -> Result<CudaProgram, BackendError> {
    let opts = weft_backend_ptx::PtxOptions {
        arch: dev.arch().to_string(),
        ..Default::default()
    };
    let (art, _hit) = cache::ptx_cached(m, &opts)?;
    let checked = art.has_trap_record();
    let module = dev
        .ctx
        .load_module(cudarc::nvrtc::Ptx::from_src(art.ptx))
        .map_err(CudaError::from)?;
    let mut kernels = HashMap::new();
    for k in &art.kernels {
        let f = module
            .load_function(&k.entry_symbol)
            .map_err(CudaError::from)?;
        kernels.insert(k.name.clone(), (f, k.param_size));
    }
    let trap = checked.then(|| {
        Arc::new(TrapSlot {
            module: module.clone(),
            busy: Mutex::new(()),
        })
    });
    Ok(CudaProgram {
        dev: dev.clone(),
        kernels,
        _module: module,
        trap,
    })
}

impl CudaKernel {
    /// Queues the kernel over `total` threads with the packed `block`.
    fn enqueue(&self, block: &[crate::device::Block], total: usize) -> Result<(), CudaError> {
        debug_assert!(std::mem::size_of_val(block) >= self.param_size as usize);
        let blocks = (total as u64).div_ceil(BLOCK_THREADS as u64).max(1) as u32;
        let mut params = [block.as_ptr() as *mut std::ffi::c_void];
        self.dev.ctx.bind_to_thread()?;
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
                self.func.cu_function(),
                (blocks, 1, 1),
                (BLOCK_THREADS, 1, 1),
                0,
                self.dev.stream.cu_stream(),
                &mut params,
            )?;
        }
        Ok(())
    }

    /// Queues the kernel; for checked code, around it zeroes the trap
    /// record, waits and returns the failure the record holds.
    fn run(
        &self,
        block: &[crate::device::Block],
        total: usize,
    ) -> Result<Option<TrapRecord>, CudaError> {
        let Some(t) = &self.trap else {
            self.enqueue(block, total)?;
            return Ok(None);
        };
        let _busy = t.busy.lock().unwrap_or_else(|e| e.into_inner());
        let stream = &self.dev.stream;
        self.dev.ctx.bind_to_thread()?;
        let mut rec = t.module.get_global(weft_backend_ptx::TRAP_GLOBAL, stream)?;
        stream.memset_zeros(&mut rec)?;
        self.enqueue(block, total)?;
        let bytes = stream.clone_dtoh(&rec)?;
        stream.synchronize()?;
        Ok(weft_backend_ptx::decode_trap_record(&bytes))
    }

    /// [`Device::launch`] with host arrays: copy in, run, copy back; a
    /// checked kernel's failure is returned after the copy back.
    pub(crate) fn launch_host_args(
        &self,
        sig: &KernelSig,
        dims: &[i32; 4],
        total: usize,
        args: &[Arg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        let exec = |e: CudaError| LaunchError::Exec {
            kernel: sig.name.clone(),
            device: "cuda",
            source: Box::new(e),
        };
        // One device copy per distinct host array (an array passed twice
        // is one buffer, as on the CPU).
        let mut staged: Vec<(&Array, CudaArray)> = Vec::new();
        let mut slot = Vec::with_capacity(args.len());
        for a in args {
            if let Arg::Array(arr) = a {
                let i = match staged.iter().position(|(h, _)| std::ptr::eq(*h, *arr)) {
                    Some(i) => i,
                    None => {
                        staged.push((arr, self.dev.upload(arr).map_err(exec)?));
                        staged.len() - 1
                    }
                };
                slot.push(Some(i));
            } else {
                slot.push(None);
            }
        }
        let views: Vec<ArgView<'_>> = args
            .iter()
            .zip(&slot)
            .map(|(a, s)| match (a, s) {
                (_, Some(i)) => device_view(&staged[*i].1),
                (a, None) => ArgView::of(a),
            })
            .collect();
        let block = pack_views(sig, dims, &views);
        let trap = self.run(&block, total).map_err(exec)?;
        for (host, dev) in &staged {
            dev.download_into(host).map_err(exec)?;
        }
        Ok(trap)
    }
}

pub(crate) fn device_view(a: &CudaArray) -> ArgView<'_> {
    a.meta.view(a.device_ptr())
}

impl Device {
    /// [`Device::launch_async`] of a kernel not loaded for `vulkan`:
    /// queues `kernel` on the device's stream with device arrays and values
    /// (checked exactly as [`Device::launch`] checks host arguments) and
    /// returns without waiting, except for code compiled with checks, which
    /// waits and returns the first failure as [`LaunchError::Trap`].
    pub(crate) fn launch_cuda_async(
        &self,
        kernel: &crate::Kernel,
        dim: &[usize],
        args: &[CudaArg<'_>],
    ) -> Result<(), LaunchError> {
        let sig = kernel.signature();
        let Some(k) = kernel.cuda_exec() else {
            return Err(LaunchError::WrongDevice {
                kernel: sig.name.clone(),
                loaded: kernel.device().name(),
                device: "cuda",
            });
        };
        if self.kind() != crate::DeviceKind::Cuda {
            return Err(LaunchError::WrongDevice {
                kernel: sig.name.clone(),
                loaded: "cuda",
                device: self.name(),
            });
        }
        let (dims, total) = check_dim(dim)?;
        let views = device_views(sig, args, &dims, crate::DeviceKind::Cuda)?;
        let exec = |e: CudaError| LaunchError::Exec {
            kernel: sig.name.clone(),
            device: "cuda",
            source: Box::new(e),
        };
        if let Some(d) = self.cuda_device().filter(|d| d.ordinal != k.dev.ordinal) {
            return Err(exec(CudaError::OtherDevice {
                array: k.dev.ordinal,
                device: d.ordinal,
            }));
        }
        for a in args {
            if let CudaArg::Cuda(arr) = a {
                if arr.dev.ordinal != k.dev.ordinal {
                    return Err(exec(CudaError::OtherDevice {
                        array: arr.dev.ordinal,
                        device: k.dev.ordinal,
                    }));
                }
            }
        }
        if total == 0 {
            return Ok(());
        }
        match k
            .run(&pack_views(sig, &dims, &views), total)
            .map_err(exec)?
        {
            None => Ok(()),
            Some(t) => Err(kernel.trap_error("cuda", t.kind, t.loc, t.index, t.size)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::Value;
    use crate::device::check_views;

    #[test]
    fn arch_follows_compute_capability() {
        assert_eq!(arch_for((9, 0)), "sm_90");
        assert_eq!(arch_for((8, 6)), "sm_86");
        assert_eq!(arch_for((8, 9)), "sm_89");
        assert_eq!(arch_for((12, 0)), "sm_90");
        assert_eq!(arch_for((7, 0)), "sm_70");
        assert_eq!(arch_for((6, 1)), "sm_70");
    }

    /// `saxpy(x: array(float), y: array2d(float), a: float)`.
    fn saxpy_sig() -> KernelSig {
        use weft_ir::{ArrayType, ElemType, Param, Scalar, StructTable, Type};
        let arr = |ndim| {
            Type::Array(ArrayType {
                elem: ElemType::Scalar(Scalar::F32),
                ndim,
            })
        };
        let params = vec![
            Param {
                name: "x".into(),
                ty: arr(1),
            },
            Param {
                name: "y".into(),
                ty: arr(2),
            },
            Param {
                name: "a".into(),
                ty: Type::F32,
            },
        ];
        let structs = Arc::new(StructTable::new());
        let types: Vec<_> = params.iter().map(|p| p.ty).collect();
        KernelSig {
            name: "saxpy".into(),
            layout: weft_ir::layout::arg_layout(&types, &structs),
            params,
            structs,
            length_rules: vec![],
            soa_params: vec![],
        }
    }

    #[test]
    fn device_arrays_pack_device_pointers() {
        let sig = saxpy_sig();
        let f32t = Dtype::scalar(weft_ir::Scalar::F32);
        let (s1, _) = storage_of(&f32t, &[8], ArrayLayout::Aos).unwrap();
        let (s2, _) = storage_of(&f32t, &[2, 4], ArrayLayout::Aos).unwrap();
        assert_eq!(s2, vec![16, 4]);
        let a = Value::new(3.0f32);
        let views = [
            ArgView::Array {
                dtype: &f32t,
                shape: &[8],
                strides: &s1,
                data: 0x7f00_0000_1000,
                planes: None,
            },
            ArgView::Array {
                dtype: &f32t,
                shape: &[2, 4],
                strides: &s2,
                data: 0x7f00_0000_2000,
                planes: None,
            },
            ArgView::Value(&a),
        ];
        let dims = [8, 1, 1, 1];
        check_views(&sig, &views, &[8, 1, 1, 1]).unwrap();
        let block = pack_views(&sig, &dims, &views);
        // SAFETY: `Block` is 16 plain bytes.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                block.as_ptr().cast::<u8>(),
                std::mem::size_of_val(&block[..]),
            )
        };
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let off = &sig.layout.offsets;
        assert_eq!(i32_at(0), 8);
        assert_eq!(u64_at(off[0] as usize), 0x7f00_0000_1000);
        assert_eq!(u64_at(off[1] as usize), 0x7f00_0000_2000);
        // y's shape [2, 4, 1, 1] and strides [16, 4, 0, 0].
        let y = off[1] as usize;
        assert_eq!([i32_at(y + 8), i32_at(y + 12), i32_at(y + 16)], [2, 4, 1]);
        assert_eq!([u64_at(y + 24), u64_at(y + 32), u64_at(y + 40)], [16, 4, 0]);
        assert_eq!(
            &bytes[off[2] as usize..off[2] as usize + 4],
            &3.0f32.to_le_bytes()
        );
        assert!(bytes.len() >= sig.layout.size as usize);
    }

    #[test]
    fn device_arrays_are_checked_like_host_arrays() {
        let sig = saxpy_sig();
        let f64t = Dtype::scalar(weft_ir::Scalar::F64);
        let f32t = Dtype::scalar(weft_ir::Scalar::F32);
        let (s, _) = storage_of(&f64t, &[8], ArrayLayout::Aos).unwrap();
        let a = Value::new(3.0f32);
        let host_x = Array::zeros(f64t.clone(), &[8]).unwrap();
        let host_y = Array::zeros(f32t.clone(), &[2, 4]).unwrap();
        let host = [
            Arg::array(&host_x),
            Arg::array(&host_y),
            Arg::value(a.clone()),
        ];
        let host_err = crate::device::check_args(&sig, &host, &[8, 1, 1, 1]).unwrap_err();
        let (s2, _) = storage_of(&f32t, &[2, 4], ArrayLayout::Aos).unwrap();
        let dev = [
            ArgView::Array {
                dtype: &f64t,
                shape: &[8],
                strides: &s,
                data: 1 << 40,
                planes: None,
            },
            ArgView::Array {
                dtype: &f32t,
                shape: &[2, 4],
                strides: &s2,
                data: 2 << 40,
                planes: None,
            },
            ArgView::Value(&a),
        ];
        let dev_err = check_views(&sig, &dev, &[8, 1, 1, 1]).unwrap_err();
        assert_eq!(dev_err.to_string(), host_err.to_string());
        assert_eq!(dev_err.param(), Some("x"));
        let (s1, _) = storage_of(&f32t, &[8], ArrayLayout::Aos).unwrap();
        let two = [
            ArgView::Array {
                dtype: &f32t,
                shape: &[8],
                strides: &s1,
                data: 1 << 40,
                planes: None,
            },
            dev[1],
        ];
        let err = check_views(&sig, &two, &[8, 1, 1, 1]).unwrap_err();
        assert!(
            err.to_string()
                .contains("missing argument for parameter `a`"),
            "{err}"
        );
        assert!(storage_of(&f32t, &[], ArrayLayout::Aos).is_err());
        assert!(storage_of(&f32t, &[1 << 31], ArrayLayout::Aos).is_err());
    }

    #[test]
    fn opening_without_a_driver_is_an_error() {
        if driver_present() {
            eprintln!("SKIP: a CUDA driver is present here");
            return;
        }
        let e = CudaDevice::open(0).unwrap_err();
        assert!(matches!(e, CudaError::NoDriver));
        assert_eq!(
            e.to_string(),
            "no CUDA driver found (libcuda could not be loaded)"
        );
        assert_eq!(device_count(), 0);
        let e = Device::cuda(0).unwrap_err();
        assert!(e.to_string().contains("no CUDA driver found"), "{e}");
    }
}
