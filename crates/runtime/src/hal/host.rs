//! What the host devices (`cpu`, `llvm-cpu`, `interp`) share: device
//! arrays in host memory ([`HostBuffer`]), the parallel run of a
//! host-compiled kernel's thread range ([`run_entry`]), and the whole
//! device of a host JIT ([`HostDevice`] over a [`HostJit`]: `cpu` and
//! `llvm-cpu` differ only in their compiler).

use super::args::{pack_views, Block};
use super::{BufArg, DeviceApi, DeviceDesc, Launch};
use crate::array::Arg;
use crate::error::{LaunchError, RuntimeError};
use rayon::prelude::*;
use std::cell::UnsafeCell;
use std::sync::Arc;
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
}

/// A host JIT as a device: kernels compiled by `J`, run by [`run_entry`]
/// on all cores, arrays in host memory.
pub struct HostDevice<J>(pub J);

/// A kernel's entry point and the code that holds it.
pub struct HostKernel<C> {
    entry: KernelEntry,
    _code: Arc<C>,
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
            _code: program.clone(),
        })
    }

    fn launch(
        &self,
        k: &Self::Kernel,
        launch: &Launch<'_>,
        _args: &[Arg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        Ok(launch_entry(k.entry, launch))
    }

    fn launch_async(
        &self,
        k: &Self::Kernel,
        launch: &Launch<'_>,
        _args: &[BufArg<'_, HostBuffer>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        Ok(launch_entry(k.entry, launch))
    }
}

/// The storage of a host device's array: zeroed, 16-byte aligned host
/// memory that kernels write through its address while the host holds a
/// shared reference (hence the `UnsafeCell`s; `Send`, not `Sync`, like
/// [`crate::Array`]).
pub struct HostBuffer {
    chunks: Box<[UnsafeCell<Aligned>]>,
    len: usize,
}

/// 16 bytes, 16-aligned.
#[repr(C, align(16))]
struct Aligned([u8; 16]);

impl HostBuffer {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> HostBuffer {
        let chunks = (0..len.div_ceil(16))
            .map(|_| UnsafeCell::new(Aligned([0u8; 16])))
            .collect();
        HostBuffer { chunks, len }
    }
    /// The data's address.
    pub fn ptr(&self) -> *mut u8 {
        UnsafeCell::raw_get(self.chunks.as_ptr()).cast::<u8>()
    }
    /// Bytes of data.
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Copies `data` (at most [`HostBuffer::len`] bytes) in.
    pub fn write(&mut self, data: &[u8]) {
        let n = data.len().min(self.len);
        // SAFETY: `&mut self`: nothing else reads or writes the storage,
        // which holds at least `len >= n` bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr(), n) };
    }
    /// Copies the data (at most `out.len()` bytes) out.
    pub fn read(&self, out: &mut [u8]) {
        let n = out.len().min(self.len);
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
            Ok($crate::hal::host::HostBuffer::zeroed(bytes))
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

/// The argument block's address, shared by the chunks of one launch.
#[derive(Copy, Clone)]
struct BlockPtr(*const u8);
// SAFETY: the block is only read by the kernel, and it outlives the launch
// (`run_entry` waits for every chunk before returning).
unsafe impl Send for BlockPtr {}
// SAFETY: as above: shared read-only use.
unsafe impl Sync for BlockPtr {}

/// Packs the launch's argument block from its views (host addresses) and
/// runs `entry` over its threads ([`run_entry`]).
pub fn launch_entry(entry: KernelEntry, launch: &Launch<'_>) -> Option<TrapRecord> {
    let block = pack_views(launch.sig, &launch.dims, launch.views);
    run_entry(entry, &block, launch.total)
}

/// Runs the launch's thread range in chunks over the rayon pool (4 per
/// pool thread); returns the first bounds-checked-mode failure any chunk
/// recorded (see [`weft_abi::trap`]: each chunk's OS thread clears its slot
/// before the call and takes it right after).
pub fn run_entry(entry: KernelEntry, block: &[Block], total: usize) -> Option<TrapRecord> {
    let ptr = BlockPtr(block.as_ptr().cast::<u8>());
    let chunks = (rayon::current_num_threads() * 4).min(total).max(1);
    let per = total.div_ceil(chunks);
    let run = move |start: usize, end: usize| {
        let p = ptr;
        clear_trap();
        // SAFETY: `entry` is a kernel compiled for this signature; the block
        // was packed and checked against that signature, and the arrays it
        // points to are borrowed for the whole launch. Chunks cover disjoint
        // thread ranges; races between threads are the kernel's own
        // semantics (atomics are atomic).
        unsafe { entry(p.0, start as i64, end as i64) };
        take_trap()
    };
    if chunks == 1 {
        run(0, total)
    } else {
        // The failure of the lowest thread range wins, so the report does
        // not depend on scheduling.
        (0..chunks)
            .into_par_iter()
            .map(|c| {
                let start = c * per;
                let end = (start + per).min(total);
                if start < end {
                    run(start, end)
                } else {
                    None
                }
            })
            .reduce(|| None, |a, b| a.or(b))
    }
}
