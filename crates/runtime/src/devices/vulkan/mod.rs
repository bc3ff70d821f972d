//! The `vulkan` device: HLSL from `weft-backend-hlsl`, compiled to SPIR-V by
//! glslang, run as Vulkan compute pipelines through `ash`.
//!
//! # Loading
//!
//! `libvulkan.so.1` is loaded at run time ([`ash::Entry::load`]), so Weft
//! builds and runs without it; a missing loader, a loader older than Vulkan
//! 1.1 or no device with a compute queue is an error when the device is
//! opened, never a panic. The device opened is the first of the best type
//! (discrete GPU, then integrated, virtual, CPU — lavapipe here) that
//! supports Vulkan 1.1 and has a compute queue, with every optional shader
//! feature it supports among those the HLSL backend's SPIR-V may need
//! (`shaderFloat64`, `shaderInt64`, `shaderInt16`, 8/16-bit storage,
//! `shaderFloat16`, `shaderInt8`, 64-bit buffer atomics; on a Vulkan 1.1
//! device, the `VK_KHR_shader_float_controls` extension) enabled
//! ([`context`]). A kernel whose SPIR-V declares a capability the device
//! lacks (including the `SignedZeroInfNanPreserve` float-controls mode
//! `compile_spirv` adds, a device property) is refused when it is loaded,
//! as unsupported.
//!
//! # Kernels
//!
//! A kernel is compiled when it is first loaded from a program
//! (`compile_kernel` → `glslangValidator`, through the compile cache → shader
//! module → compute pipeline, [`pipeline`]), once per program and kernel.
//! Its descriptor set 0 follows the backend's `BindingLayout`: binding 0
//! the uniform buffer (`b0`), binding `k + 1` the `k`-th array parameter as
//! a storage buffer (`u<k>`) — or, for a kernel that would bind more
//! storage buffers than the device's `maxPerStageDescriptorStorageBuffers`
//! (passed to the backend as `max_storage_buffers`), binding 1 one pool of
//! every array ([`pool`]). Threads per workgroup come from the device
//! options (`group_size`).
//!
//! # Launch
//!
//! Arguments reach the device checked, packed into the shared kernel
//! argument block, from which `BindingLayout::pack_cbuffer` fills the
//! constant buffer. A launch with host arrays
//!
//! 1. copies every array argument into a fresh storage buffer (an array
//!    passed for several parameters gets one buffer, bound to each);
//! 2. splits the launch into dispatches of at most 65 535 workgroups
//!    (`weft_backend_hlsl::dispatches`), each with its own constant buffer
//!    (same contents but the dispatch base), records them in one command
//!    buffer, submits it and waits on a fence ([`dispatch`]);
//! 3. copies every array buffer back into its array.
//!
//! A pooled kernel's launch puts every distinct array into one pool buffer
//! at its base instead (device arrays by `vkCmdCopyBuffer` before the
//! dispatches and back after them) and copies every array back out.
//!
//! A kernel compiled with bounds checks (its `BindingLayout::trap` is set)
//! also gets its trap record: a zeroed storage buffer of
//! `weft_abi::trap::record::SIZE` bytes bound after the arrays, read back
//! after the launch. The arrays are still copied back (the failing threads
//! stored nothing). Unchecked kernels have no such buffer.
//!
//! A kernel with 64-bit atomics done under locks (its `BindingLayout::locks`
//! is set; shader model 6.0 has 32-bit atomics only, see docs/hlsl.md)
//! gets the lock table: a zeroed storage buffer of 2 ×
//! `weft_backend_hlsl::LOCK_WORDS` words bound last, read back after the
//! launch: a pending count left non-zero (`LockBinding::unfinished`) means
//! the driver cut a lock wait short, and the launch fails with
//! `VulkanError::LockWaitsCut` instead of returning wrong arrays.
//!
//! # Device arrays
//!
//! A device array's storage is a storage buffer kept across launches
//! ([`buffer::VulkanBuffer`]). A launch with device arrays binds each
//! array's buffer directly and copies nothing. Each launch is still
//! submitted and waited for (one queue, a fence per launch); its command
//! buffer starts with a shader-write → shader-read/write barrier (earlier
//! launches' results are visible) and ends with the compute → host barrier
//! (reads see them).
//!
//! Buffers use host-visible, host-coherent memory (device-local too when
//! the device has such a type), mapped once. That is the simplest correct
//! design; device-local memory with staging copies can come later.
//! Launches on one device are serialised (one queue, one command pool).

mod buffer;
mod context;
mod dispatch;
mod pipeline;
mod pool;

use crate::array::Arg;
use crate::cached;
use crate::error::{LaunchError, RuntimeError};
use crate::hal::args::pack_bytes;
use crate::hal::{
    CodeTier,     BufArg, CacheLocation, DeviceApi, DeviceDesc, DeviceOptions, DynDevice, Launch, OpenFn,
};
use ash::vk;
use buffer::{Buffer, VulkanBuffer};
use context::VulkanDevice;
use pipeline::Pipeline;
use std::sync::{Arc, Mutex};
use weft_abi::trap::TrapRecord;
use weft_backend_hlsl::{Error as HlslError, Options as HlslOptions};
use weft_ir::{KernelInfo, Module, ModuleInfo};

pub(super) const OPEN: Option<OpenFn> = Some(open);

/// Usage of array buffers and pools: storage buffers that a pooled launch
/// copies into and out of its pool.
const ARRAY_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);

/// Why the Vulkan device could not be opened or used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum VulkanError {
    #[error("cannot load the Vulkan loader (libvulkan.so.1): {0}")]
    NoLoader(String),
    #[error("no usable Vulkan device: {0}")]
    NoDevice(String),
    #[error("{call} failed: {result}")]
    Vk {
        call: &'static str,
        result: vk::Result,
    },
    #[error("no host-visible, host-coherent memory type for a {0} buffer")]
    NoMemoryType(&'static str),
    /// The HLSL backend or glslang refused the kernel.
    #[error("kernel `{kernel}`: {source}")]
    Shader {
        kernel: String,
        #[source]
        source: HlslError,
    },
    #[error("kernel `{kernel}` needs the Vulkan feature `{feature}` (SPIR-V capability {capability}), which `{device}` does not support")]
    MissingFeature {
        kernel: String,
        feature: &'static str,
        capability: &'static str,
        device: String,
    },
    #[error("{what} of {size} bytes exceeds the device limit of {limit} bytes")]
    TooLarge { what: String, size: u64, limit: u64 },
    #[error("kernel `{kernel}` binds {count} storage buffers (arrays, their adjoints, the trap record, the lock table); the device allows {limit} per shader stage")]
    TooManyBuffers {
        kernel: String,
        count: u64,
        limit: u64,
    },
    /// Some 64-bit atomics of the launch never took their lock: the driver
    /// ended their wait (lavapipe stops every loop after 65 535
    /// iterations), so the arrays are wrong.
    #[error("kernel `{kernel}`: {count} 64-bit atomics gave up waiting for their lock (the driver ended the wait loop; lavapipe stops every loop after 65 535 iterations): the launch's results are wrong")]
    LockWaitsCut { kernel: String, count: u64 },
    #[error("glslangValidator not found (set WEFT_GLSLANG or install glslang-tools)")]
    NoGlslang,
}

impl VulkanError {
    /// Whether the kernel cannot run on this device at all: the HLSL backend
    /// reports it [`HlslError::Unsupported`], or the device lacks a feature.
    fn is_unsupported(&self) -> bool {
        matches!(
            self,
            VulkanError::Shader {
                source: HlslError::Unsupported { .. },
                ..
            } | VulkanError::MissingFeature { .. }
        )
    }
}

impl From<VulkanError> for RuntimeError {
    fn from(e: VulkanError) -> RuntimeError {
        if e.is_unsupported() {
            RuntimeError::Unsupported {
                device: Vulkan::NAME,
                message: e.to_string(),
                source: Box::new(e),
            }
        } else {
            RuntimeError::Device {
                device: Vulkan::NAME,
                source: Box::new(e),
            }
        }
    }
}

fn vkerr(call: &'static str) -> impl Fn(vk::Result) -> VulkanError {
    move |result| VulkanError::Vk { call, result }
}

/// The process-wide device, with `opts`' group size and cache. Kernels
/// cannot run without glslang, so its absence is an error here.
fn open(_ordinal: usize, opts: &DeviceOptions) -> Result<Arc<dyn DynDevice>, RuntimeError> {
    let dev = VulkanDevice::shared()?;
    if weft_backend_hlsl::find_glslang().is_none() {
        return Err(VulkanError::NoGlslang.into());
    }
    Ok(Arc::new(Vulkan {
        dev,
        group_size: opts.group_size,
        cache: opts.cache.clone(),
    }))
}

/// The `vulkan` device: the opened device and how kernels are compiled.
struct Vulkan {
    dev: Arc<VulkanDevice>,
    group_size: u32,
    cache: CacheLocation,
}

/// A module compiled for the device: its kernels' pipelines are made on
/// first load and kept.
struct VulkanProgram {
    module: Arc<Module>,
    info: ModuleInfo,
    pipelines: Mutex<Vec<Arc<Pipeline>>>,
}

impl Vulkan {
    fn exec_error(sig_name: &str, e: VulkanError) -> LaunchError {
        LaunchError::Exec {
            kernel: sig_name.to_string(),
            device: Vulkan::NAME,
            source: Box::new(e),
        }
    }

    /// A storage buffer of `len` bytes (mapped host-visible memory), within
    /// the device's storage buffer range.
    fn storage(
        &self,
        len: usize,
        what: impl Fn() -> String,
    ) -> Result<Buffer<&VulkanDevice>, VulkanError> {
        self.dev.check_storage_len(len, what)?;
        self.dev
            .buffer(len as u64, ARRAY_USAGE, "storage")
    }
}

impl DeviceApi for Vulkan {
    type Program = VulkanProgram;
    type Kernel = Arc<Pipeline>;
    type Buffer = VulkanBuffer;

    const NAME: &'static str = "vulkan";

    fn describe(&self) -> DeviceDesc {
        DeviceDesc {
            name: Self::NAME,
            description: format!(
                "{}{}",
                self.dev.name(),
                if self.dev.is_cpu() { " (CPU)" } else { "" }
            ),
            target: None,
            host_memory: false,
        }
    }

    fn compile(&self, module: &Arc<Module>, info: &ModuleInfo) -> Result<VulkanProgram, RuntimeError> {
        Ok(VulkanProgram {
            module: module.clone(),
            info: info.clone(),
            pipelines: Mutex::new(Vec::new()),
        })
    }

    /// The kernel's pipeline, compiled on first load (HLSL → SPIR-V through
    /// the compile cache, checked against the device's features).
    fn load(&self, program: &Arc<VulkanProgram>, kernel: &KernelInfo) -> Result<Arc<Pipeline>, RuntimeError> {
        let name = &kernel.name;
        let mut ps = program.pipelines.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = ps.iter().find(|p| &p.kernel == name) {
            return Ok(p.clone());
        }
        let shader = |source| VulkanError::Shader {
            kernel: name.to_string(),
            source,
        };
        let opts = HlslOptions {
            group_size: self.group_size,
            max_storage_buffers: self.dev.limits.max_per_stage_descriptor_storage_buffers,
        };
        let art = weft_backend_hlsl::compile_kernel(&program.module, &program.info, name, &opts)
            .map_err(shader)?;
        let cache = self.cache.open();
        let (spv, _hit) = cached::spirv(cache.as_ref(), &art).map_err(shader)?;
        self.dev.check_capabilities(name, &spv)?;
        let p = Arc::new(Pipeline::new(&self.dev, &art, &spv)?);
        ps.push(p.clone());
        Ok(p)
    }

    fn tier(&self, _k: &Arc<Pipeline>) -> CodeTier {
        CodeTier::Spirv
    }

    /// Copies each distinct host array into a fresh storage buffer,
    /// dispatches, copies them back.
    fn launch(
        &self,
        p: &Arc<Pipeline>,
        launch: &Launch<'_>,
        args: &[Arg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        let sig = launch.sig;
        let err = |e| Vulkan::exec_error(&sig.name, e);
        let block = pack_bytes(sig, &launch.dims, launch.views);
        let mut hosts: Vec<&crate::Array> = Vec::with_capacity(p.bindings.arrays.len());
        for b in &p.bindings.arrays {
            let Some(Arg::Array(arr)) = args.get(b.param_index) else {
                return Err(err(VulkanError::Shader {
                    kernel: p.kernel.clone(),
                    source: HlslError::Pack(format!("argument `{}` is not an array", b.param)),
                }));
            };
            hosts.push(arr);
        }
        if p.bindings.pooled {
            // One pool of every distinct array, filled from it.
            let keys: Vec<_> = hosts.iter().map(|a| (*a as *const crate::Array, a.raw().len())).collect();
            let plan = pool::plan(&keys).map_err(err)?;
            let mut buf = self.storage(plan.size as usize, || "the array pool".into()).map_err(err)?;
            for r in &plan.regions {
                buf.write(r.base, hosts[r.first].raw());
            }
            let trap = p.dispatch(&block, launch.total, &[buf.buffer], &plan.bases, &[]).map_err(err)?;
            for r in &plan.regions {
                // SAFETY: as below.
                buf.read_at(r.base, unsafe { hosts[r.first].raw_mut() });
            }
            return Ok(trap);
        }
        // One storage buffer per distinct array, filled from it.
        let mut arrays: Vec<(&crate::Array, Buffer<&VulkanDevice>)> = Vec::new();
        let mut bufs = Vec::with_capacity(p.bindings.arrays.len());
        for (b, arr) in p.bindings.arrays.iter().zip(hosts) {
            if let Some((_, buf)) = arrays.iter().find(|(a, _)| std::ptr::eq(*a, arr)) {
                bufs.push(buf.buffer);
                continue;
            }
            let what = || format!("array `{}`", b.param);
            let mut buf = self.storage(arr.raw().len(), what).map_err(err)?;
            buf.write(0, arr.raw());
            bufs.push(buf.buffer);
            arrays.push((arr, buf));
        }
        let trap = p.dispatch(&block, launch.total, &bufs, &[], &[]).map_err(err)?;
        for (arr, buf) in &arrays {
            // SAFETY: the launch has finished (fence waited, host-read
            // barrier recorded), and the array was lent to this synchronous
            // launch, its only user until it returns.
            buf.read(unsafe { arr.raw_mut() });
        }
        Ok(trap)
    }

    /// Binds each device array's buffer and dispatches.
    fn launch_async(
        &self,
        p: &Arc<Pipeline>,
        launch: &Launch<'_>,
        args: &[BufArg<'_, VulkanBuffer>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        let sig = launch.sig;
        let mut bufs = Vec::with_capacity(p.bindings.arrays.len());
        for b in &p.bindings.arrays {
            let Some(BufArg::Array(arr)) = args.get(b.param_index) else {
                return Err(Vulkan::exec_error(
                    &sig.name,
                    VulkanError::Shader {
                        kernel: p.kernel.clone(),
                        source: HlslError::Pack(format!(
                            "argument `{}` is not a device array",
                            b.param
                        )),
                    },
                ));
            };
            bufs.push((arr.buf.buffer, arr.len));
        }
        let err = |e| Vulkan::exec_error(&sig.name, e);
        let block = pack_bytes(sig, &launch.dims, launch.views);
        if !p.bindings.pooled {
            let bufs: Vec<_> = bufs.iter().map(|b| b.0).collect();
            return p.dispatch(&block, launch.total, &bufs, &[], &[]).map_err(err);
        }
        // Each distinct array is copied into the pool before the dispatches
        // and back out after them, on the device.
        let plan = pool::plan(&bufs).map_err(err)?;
        let pool = self.storage(plan.size as usize, || "the array pool".into()).map_err(err)?;
        let copies: Vec<_> = plan
            .regions
            .iter()
            .filter(|r| r.len > 0)
            .map(|r| dispatch::PoolCopy {
                array: bufs[r.first].0,
                base: r.base,
                len: r.len,
            })
            .collect();
        p.dispatch(&block, launch.total, &[pool.buffer], &plan.bases, &copies)
            .map_err(err)
    }

    fn alloc(&self, bytes: usize) -> Result<VulkanBuffer, RuntimeError> {
        let what = || format!("a device array of {bytes} bytes");
        self.dev.check_storage_len(bytes, what)?;
        let mut buf = Buffer::new(
            self.dev.clone(),
            bytes as u64,
            ARRAY_USAGE,
            "storage",
        )?;
        buf.write(0, &vec![0u8; buf.size as usize]);
        Ok(VulkanBuffer { buf, len: bytes })
    }

    fn write(&self, buf: &mut VulkanBuffer, data: &[u8]) -> Result<(), RuntimeError> {
        let n = data.len().min(buf.len);
        buf.buf.write(0, &data[..n]);
        Ok(())
    }

    fn read(&self, buf: &VulkanBuffer, out: &mut [u8]) -> Result<(), RuntimeError> {
        let n = out.len().min(buf.len);
        buf.buf.read(&mut out[..n]);
        Ok(())
    }

    /// Shaders reach arrays through their bindings: no address.
    fn address(&self, _buf: &VulkanBuffer) -> u64 {
        0
    }

    fn synchronize(&self) -> Result<(), RuntimeError> {
        Ok(self.dev.synchronize()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_is_classified() {
        let e = VulkanError::MissingFeature {
            kernel: "k".into(),
            feature: "shaderFloat64",
            capability: "Float64",
            device: "d".into(),
        };
        assert!(e.is_unsupported());
        assert!(e.to_string().contains("shaderFloat64"));
        assert!(!VulkanError::NoDevice("x".into()).is_unsupported());
        let r: RuntimeError = e.into();
        assert!(r.is_unsupported(), "{r}");
    }
}
