//! The `vulkan` device: HLSL from `weft-backend-hlsl`, compiled to SPIR-V by
//! glslang, run as Vulkan compute pipelines through `ash`.
//!
//! # Loading
//!
//! `libvulkan.so.1` is loaded at run time ([`ash::Entry::load`]), so Weft
//! builds and runs without it; a missing loader, a loader older than Vulkan
//! 1.1 or no device with a compute queue is a [`VulkanError`], never a
//! panic. [`VulkanDevice::open`] picks the first device of the best type
//! (discrete GPU, then integrated, virtual, CPU — lavapipe here) that
//! supports Vulkan 1.1 and has a compute queue, and enables every optional
//! shader feature it supports among those the HLSL backend's SPIR-V may need
//! (`shaderFloat64`, `shaderInt64`, `shaderInt16`, 8/16-bit storage,
//! `shaderFloat16`, `shaderInt8`, 64-bit buffer atomics; on a Vulkan 1.1
//! device, the `VK_KHR_shader_float_controls` extension). A kernel whose
//! SPIR-V declares a capability the device lacks (including the
//! `SignedZeroInfNanPreserve` float-controls mode `compile_spirv` adds, a
//! device property) is refused when it is loaded
//! ([`VulkanError::MissingFeature`]).
//!
//! # Kernels
//!
//! A kernel is compiled when a [`crate::Program`] is first asked for it
//! (`emit_hlsl` → `glslangValidator`, through the on-disk [`crate::cache`] →
//! shader module → compute pipeline), once per program and kernel name. Its descriptor set 0 follows the
//! backend's [`BindingLayout`]: binding 0 the uniform buffer (`b0`), binding
//! `k + 1` the `k`-th array parameter as a storage buffer (`u<k>`).
//!
//! # Launch
//!
//! Arguments are checked exactly as on the CPU ([`crate::check_args`], in
//! [`crate::Device::launch`]) and packed into the shared kernel argument
//! block, from which [`BindingLayout::pack_cbuffer`] fills the constant
//! buffer. Runtime arrays live in host memory, so each launch
//!
//! 1. copies every array argument into a fresh storage buffer (an array
//!    passed for several parameters gets one buffer, bound to each);
//! 2. splits the launch into dispatches of at most 65 535 workgroups
//!    ([`weft_backend_hlsl::dispatches`]), each with its own constant buffer
//!    (same contents but the dispatch base), records them in one command
//!    buffer, submits it and waits on a fence;
//! 3. copies every array buffer back into its array.
//!
//! A kernel compiled with bounds checks (its [`BindingLayout::trap`] is
//! set) also gets its trap record: a zeroed storage buffer of
//! [`hlsl::TRAP_RECORD_SIZE`] bytes bound after the arrays, read back after
//! the launch ([`hlsl::decode_trap_record`]). A failure there is returned
//! as [`LaunchError::Trap`], exactly as on the CPU; the arrays are still
//! copied back (the failing threads stored nothing). Unchecked kernels have
//! no such buffer.
//!
//! # Device-resident arrays
//!
//! A [`VulkanArray`] is a storage buffer kept across launches, with the
//! dtype, shape, byte strides and layout of the host [`Array`] it mirrors
//! (SoA: the same planar bytes). [`crate::Device::launch_async`] takes them
//! as [`DeviceArg::Vulkan`] (the argument type of CUDA's device arrays
//! too), checks the arguments exactly as host launches are checked, binds
//! each array's buffer directly and copies nothing. Each launch is still
//! submitted and waited for (a first step: one queue, a fence per launch);
//! its command buffer starts with a shader-write → shader-read/write barrier
//! (earlier launches' results are visible) and ends with the compute → host
//! barrier (`to_host` sees them).
//!
//! Buffers use host-visible, host-coherent memory (device-local too when
//! the device has such a type), mapped once. That is the simplest correct
//! design; device-local memory with staging copies can come later.
//! Launches on one device are serialised (one queue, one command pool).

use crate::array::{meta_accessors, Arg, Array, ArrayError, ArrayMeta};
use crate::device::{pack_bytes, ArgView, DeviceArg};
use crate::dtype::Dtype;
use crate::error::LaunchError;
use crate::sig::KernelSig;
use ash::vk;
use std::ffi::CStr;
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};
use weft_backend_hlsl::{
    self as hlsl, BindingLayout, HlslArtifact, HlslError, HlslOptions, TrapReport,
};
use weft_ir::{ArrayLayout, Module};

/// Threads per workgroup of every kernel.
const GROUP_SIZE: u32 = 64;

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
    #[error("copy between arrays of different type, shape or layout: {dst} vs {src}")]
    Mismatch { dst: String, src: String },
    #[error(
        "argument `{param}`: the device array belongs to another Vulkan device than the kernel"
    )]
    OtherDevice { param: String },
    #[error(transparent)]
    Array(#[from] ArrayError),
}

impl VulkanError {
    /// Whether the kernel cannot run on this device at all: the HLSL backend
    /// reports it [`HlslError::Unsupported`], or the device lacks a feature.
    pub fn is_unsupported(&self) -> bool {
        matches!(
            self,
            VulkanError::Shader {
                source: HlslError::Unsupported { .. },
                ..
            } | VulkanError::MissingFeature { .. }
        )
    }
}

fn vkerr(call: &'static str) -> impl Fn(vk::Result) -> VulkanError {
    move |result| VulkanError::Vk { call, result }
}

/// Optional device features the shaders may need, as enabled on a device.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Features {
    float64: bool,
    int64: bool,
    int16: bool,
    float16: bool,
    int8: bool,
    int64_atomics: bool,
    storage16: bool,
    uniform_storage16: bool,
    storage8: bool,
    uniform_storage8: bool,
    /// The `SignedZeroInfNanPreserve` execution mode (SPV_KHR_float_controls)
    /// for 32- and 64-bit floats: a property, not a feature to enable.
    preserve_inf_nan32: bool,
    preserve_inf_nan64: bool,
}

/// A SPIR-V capability that needs an optional feature: (capability number,
/// capability name, Vulkan feature name, whether it is enabled).
type Capability = (u32, &'static str, &'static str, fn(&Features) -> bool);

const CAPABILITIES: &[Capability] = &[
    (9, "Float16", "shaderFloat16", |f| f.float16),
    (10, "Float64", "shaderFloat64", |f| f.float64),
    (11, "Int64", "shaderInt64", |f| f.int64),
    (12, "Int64Atomics", "shaderBufferInt64Atomics", |f| {
        f.int64_atomics
    }),
    (22, "Int16", "shaderInt16", |f| f.int16),
    (39, "Int8", "shaderInt8", |f| f.int8),
    (
        4433,
        "StorageBuffer16BitAccess",
        "storageBuffer16BitAccess",
        |f| f.storage16,
    ),
    (
        4434,
        "UniformAndStorageBuffer16BitAccess",
        "uniformAndStorageBuffer16BitAccess",
        |f| f.uniform_storage16,
    ),
    (
        4448,
        "StorageBuffer8BitAccess",
        "storageBuffer8BitAccess",
        |f| f.storage8,
    ),
    (
        4449,
        "UniformAndStorageBuffer8BitAccess",
        "uniformAndStorageBuffer8BitAccess",
        |f| f.uniform_storage8,
    ),
    (
        4466,
        "SignedZeroInfNanPreserve",
        "shaderSignedZeroInfNanPreserveFloat32",
        |f| f.preserve_inf_nan32,
    ),
];

/// SPIR-V capability numbers checked together.
const CAP_FLOAT64: u32 = 10;
const CAP_SIGNED_ZERO_INF_NAN_PRESERVE: u32 = 4466;

/// The capabilities a SPIR-V module declares (`OpCapability` operands).
fn spirv_capabilities(spv: &[u32]) -> Vec<u32> {
    const OP_CAPABILITY: u32 = 17;
    let mut caps = Vec::new();
    let mut i = 5;
    while i < spv.len() {
        let words = (spv[i] >> 16) as usize;
        if words == 0 {
            break;
        }
        if spv[i] & 0xffff == OP_CAPABILITY {
            if let Some(&c) = spv.get(i + 1) {
                caps.push(c);
            }
        }
        i += words;
    }
    caps
}

/// The first capability of `spv` that needs a feature `enabled` lacks:
/// (capability name, feature name).
fn missing_feature(enabled: &Features, spv: &[u32]) -> Option<(&'static str, &'static str)> {
    let caps = spirv_capabilities(spv);
    let first = caps.iter().find_map(|&cap| {
        CAPABILITIES
            .iter()
            .find(|(c, ..)| *c == cap)
            .filter(|(.., on)| !on(enabled))
            .map(|&(_, capability, feature, _)| (capability, feature))
    });
    // The float-controls mode also applies to the doubles a shader uses.
    first.or_else(|| {
        (caps.contains(&CAP_FLOAT64)
            && caps.contains(&CAP_SIGNED_ZERO_INF_NAN_PRESERVE)
            && !enabled.preserve_inf_nan64)
            .then_some((
                "SignedZeroInfNanPreserve",
                "shaderSignedZeroInfNanPreserveFloat64",
            ))
    })
}

/// The queue and command pool, used by one launch at a time.
struct Submit {
    queue: vk::Queue,
    pool: vk::CommandPool,
}

/// An opened Vulkan device (logical device, one compute queue).
pub struct VulkanDevice {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    mem_props: vk::PhysicalDeviceMemoryProperties,
    limits: vk::PhysicalDeviceLimits,
    features: Features,
    name: String,
    device_type: vk::PhysicalDeviceType,
    submit: Mutex<Submit>,
}

impl std::fmt::Debug for VulkanDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VulkanDevice")
            .field("name", &self.name)
            .field("type", &self.device_type)
            .finish()
    }
}

/// Two handles are equal when they are the same opened device.
impl PartialEq for VulkanDevice {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for VulkanDevice {}

impl Drop for VulkanDevice {
    fn drop(&mut self) {
        let pool = self
            .submit
            .get_mut()
            .map_or_else(|p| p.into_inner().pool, |s| s.pool);
        // SAFETY: nothing created from this device outlives it (kernels and
        // programs hold an `Arc` to it); waiting for idle first means no
        // command buffer is pending when the pool and device go.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn type_rank(t: vk::PhysicalDeviceType) -> u32 {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

impl VulkanDevice {
    /// The process-wide device, opened on first use (the outcome, device or
    /// error, is kept for the life of the process).
    pub fn shared() -> Result<Arc<VulkanDevice>, VulkanError> {
        static SHARED: OnceLock<Result<Arc<VulkanDevice>, VulkanError>> = OnceLock::new();
        SHARED.get_or_init(VulkanDevice::open).clone()
    }

    /// Opens the best Vulkan 1.1+ device with a compute queue.
    pub fn open() -> Result<Arc<VulkanDevice>, VulkanError> {
        // SAFETY: loads the system's Vulkan loader (a well-behaved library
        // whose initialisers may run at any time); `Entry` keeps it loaded
        // for as long as the device exists.
        let entry =
            unsafe { ash::Entry::load() }.map_err(|e| VulkanError::NoLoader(e.to_string()))?;
        // SAFETY: a global query on a loaded entry.
        let loader = unsafe { entry.try_enumerate_instance_version() }
            .map_err(vkerr("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader < vk::API_VERSION_1_1 {
            return Err(VulkanError::NoDevice(format!(
                "the Vulkan loader supports version {}.{}, Weft needs 1.1",
                vk::api_version_major(loader),
                vk::api_version_minor(loader)
            )));
        }
        let api = loader.min(vk::API_VERSION_1_3);
        let app = vk::ApplicationInfo::default()
            .application_name(c"weft")
            .engine_name(c"weft")
            .api_version(api);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: valid create info; the instance is destroyed on every
        // error path below or by `Drop`.
        let instance = unsafe { entry.create_instance(&info, None) }.map_err(|r| match r {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => VulkanError::NoDevice(
                "no Vulkan driver found (lavapipe: apt-get install mesa-vulkan-drivers)".into(),
            ),
            r => vkerr("vkCreateInstance")(r),
        })?;
        // SAFETY: `instance` is live; on error it is destroyed here.
        match unsafe { Self::open_device(entry, instance.clone(), api) } {
            Ok(d) => Ok(Arc::new(d)),
            Err((e, entry)) => {
                // SAFETY: nothing created from the instance survives.
                unsafe { instance.destroy_instance(None) };
                drop(entry);
                Err(e)
            }
        }
    }

    /// Picks a physical device and creates the logical device on it.
    ///
    /// # Safety
    /// `instance` must be live; on error nothing created from it remains
    /// and the caller destroys it.
    #[allow(clippy::result_large_err)]
    unsafe fn open_device(
        entry: ash::Entry,
        instance: ash::Instance,
        api: u32,
    ) -> Result<VulkanDevice, (VulkanError, ash::Entry)> {
        let fail = |e: VulkanError, entry| Err((e, entry));
        let physical = match instance.enumerate_physical_devices() {
            Ok(p) => p,
            Err(r) => return fail(vkerr("vkEnumeratePhysicalDevices")(r), entry),
        };
        let mut best: Option<(u32, vk::PhysicalDevice, u32, vk::PhysicalDeviceProperties)> = None;
        let mut seen = Vec::new();
        for pd in physical {
            let props = instance.get_physical_device_properties(pd);
            let name = CStr::from_ptr(props.device_name.as_ptr())
                .to_string_lossy()
                .into_owned();
            let qf = instance
                .get_physical_device_queue_family_properties(pd)
                .iter()
                .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE));
            if props.api_version < vk::API_VERSION_1_1 {
                seen.push(format!("{name} (Vulkan 1.0 only)"));
                continue;
            }
            let Some(qf) = qf else {
                seen.push(format!("{name} (no compute queue)"));
                continue;
            };
            let rank = type_rank(props.device_type);
            if best.as_ref().is_none_or(|b| rank < b.0) {
                best = Some((rank, pd, qf as u32, props));
            }
        }
        let Some((_, pd, qf, props)) = best else {
            let why = if seen.is_empty() {
                "no Vulkan device found".to_string()
            } else {
                format!("none is usable: {}", seen.join(", "))
            };
            return fail(VulkanError::NoDevice(why), entry);
        };
        let dev_api = props.api_version.min(api);
        let name = CStr::from_ptr(props.device_name.as_ptr())
            .to_string_lossy()
            .into_owned();

        // What the device supports.
        let mut s16 = vk::PhysicalDevice16BitStorageFeatures::default();
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut s16);
        if dev_api >= vk::API_VERSION_1_2 {
            f2 = f2.push_next(&mut v12);
        }
        instance.get_physical_device_features2(pd, &mut f2);
        let core = f2.features;
        let has12 = dev_api >= vk::API_VERSION_1_2;
        // Float controls: core in 1.2, an extension before.
        let fc_ext = vk::KHR_SHADER_FLOAT_CONTROLS_NAME;
        let fc_by_ext = !has12
            && instance
                .enumerate_device_extension_properties(pd)
                .unwrap_or_default()
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(fc_ext));
        let mut fc = vk::PhysicalDeviceFloatControlsProperties::default();
        if has12 || fc_by_ext {
            let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut fc);
            instance.get_physical_device_properties2(pd, &mut p2);
        }
        let features = Features {
            float64: core.shader_float64 != 0,
            int64: core.shader_int64 != 0,
            int16: core.shader_int16 != 0,
            float16: has12 && v12.shader_float16 != 0,
            int8: has12 && v12.shader_int8 != 0,
            int64_atomics: has12 && v12.shader_buffer_int64_atomics != 0,
            storage16: s16.storage_buffer16_bit_access != 0,
            uniform_storage16: s16.uniform_and_storage_buffer16_bit_access != 0,
            storage8: has12 && v12.storage_buffer8_bit_access != 0,
            uniform_storage8: has12 && v12.uniform_and_storage_buffer8_bit_access != 0,
            preserve_inf_nan32: fc.shader_signed_zero_inf_nan_preserve_float32 != 0,
            preserve_inf_nan64: fc.shader_signed_zero_inf_nan_preserve_float64 != 0,
        };

        // Enable exactly those.
        let b = |x: bool| x as vk::Bool32;
        let core_on = vk::PhysicalDeviceFeatures {
            shader_float64: b(features.float64),
            shader_int64: b(features.int64),
            shader_int16: b(features.int16),
            ..Default::default()
        };
        let mut s16_on = vk::PhysicalDevice16BitStorageFeatures::default()
            .storage_buffer16_bit_access(features.storage16)
            .uniform_and_storage_buffer16_bit_access(features.uniform_storage16);
        let mut v12_on = vk::PhysicalDeviceVulkan12Features::default()
            .shader_float16(features.float16)
            .shader_int8(features.int8)
            .shader_buffer_int64_atomics(features.int64_atomics)
            .storage_buffer8_bit_access(features.storage8)
            .uniform_and_storage_buffer8_bit_access(features.uniform_storage8);
        let prio = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(qf)
            .queue_priorities(&prio)];
        let extensions = [fc_ext.as_ptr()];
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(if fc_by_ext { &extensions } else { &[] })
            .enabled_features(&core_on)
            .push_next(&mut s16_on);
        if has12 {
            info = info.push_next(&mut v12_on);
        }
        let device = match instance.create_device(pd, &info, None) {
            Ok(d) => d,
            Err(r) => return fail(vkerr("vkCreateDevice")(r), entry),
        };
        let queue = device.get_device_queue(qf, 0);
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(qf)
            .flags(vk::CommandPoolCreateFlags::TRANSIENT);
        let pool = match device.create_command_pool(&pool_info, None) {
            Ok(p) => p,
            Err(r) => {
                device.destroy_device(None);
                return fail(vkerr("vkCreateCommandPool")(r), entry);
            }
        };
        Ok(VulkanDevice {
            _entry: entry,
            mem_props: instance.get_physical_device_memory_properties(pd),
            instance,
            device,
            limits: props.limits,
            features,
            name,
            device_type: props.device_type,
            submit: Mutex::new(Submit { queue, pool }),
        })
    }

    /// The device's name (`llvmpipe (LLVM 15.0.6, 256 bits)` for lavapipe).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the device is a CPU implementation (lavapipe, SwiftShader).
    pub fn is_cpu(&self) -> bool {
        self.device_type == vk::PhysicalDeviceType::CPU
    }

    /// The first capability of `spv` the device lacks, as an error.
    fn check_capabilities(&self, kernel: &str, spv: &[u32]) -> Result<(), VulkanError> {
        match missing_feature(&self.features, spv) {
            Some((capability, feature)) => Err(VulkanError::MissingFeature {
                kernel: kernel.to_string(),
                feature,
                capability,
                device: self.name.clone(),
            }),
            None => Ok(()),
        }
    }

    /// A host-visible, host-coherent memory type allowed by `bits`,
    /// device-local if there is one.
    fn memory_type(&self, bits: u32) -> Option<u32> {
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let n = self.mem_props.memory_type_count;
        let ok = |i: u32, extra: vk::MemoryPropertyFlags| {
            bits & (1 << i) != 0
                && self.mem_props.memory_types[i as usize]
                    .property_flags
                    .contains(want | extra)
        };
        (0..n)
            .find(|&i| ok(i, vk::MemoryPropertyFlags::DEVICE_LOCAL))
            .or_else(|| (0..n).find(|&i| ok(i, vk::MemoryPropertyFlags::empty())))
    }

    /// A mapped host-visible buffer of at least `size` bytes (rounded up to
    /// 16, at least 16).
    fn buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
        what: &'static str,
    ) -> Result<Buffer<&VulkanDevice>, VulkanError> {
        Buffer::new(self, size, usage, what)
    }

    /// Waits until the device has finished all work submitted so far
    /// (launches already wait for themselves: this is for parity with
    /// [`crate::CudaDevice::synchronize`]).
    pub fn synchronize(&self) -> Result<(), VulkanError> {
        let submit = self.submit.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: the queue is used under the `submit` lock only.
        unsafe { self.device.queue_wait_idle(submit.queue) }.map_err(vkerr("vkQueueWaitIdle"))
    }

    /// A zero-filled device array (contiguous, C order).
    pub fn zeros(
        self: &Arc<Self>,
        dtype: Dtype,
        shape: &[usize],
    ) -> Result<VulkanArray, VulkanError> {
        self.zeros_with_layout(dtype, shape, ArrayLayout::Aos)
    }

    /// A zero-filled device array in `layout` (SoA: planes, as
    /// [`Array::zeros_with_layout`]).
    pub fn zeros_with_layout(
        self: &Arc<Self>,
        dtype: Dtype,
        shape: &[usize],
        layout: ArrayLayout,
    ) -> Result<VulkanArray, VulkanError> {
        let (strides, len_bytes) = crate::array::storage_of(&dtype, shape, layout)?;
        let what = || format!("a device array {dtype}{shape:?}");
        let mut buf = self.array_buffer(len_bytes, what)?;
        buf.write(0, &vec![0u8; buf.size as usize]);
        Ok(VulkanArray {
            meta: ArrayMeta {
                dtype,
                layout,
                shape: shape.to_vec(),
                strides,
            },
            len_bytes,
            buf,
        })
    }

    /// A device copy of a host array (same type, shape, layout and
    /// strides).
    pub fn upload(self: &Arc<Self>, a: &Array) -> Result<VulkanArray, VulkanError> {
        let len_bytes = a.byte_len();
        let what = || format!("a device array {}{:?}", a.dtype(), a.shape());
        let buf = self.array_buffer(len_bytes, what)?;
        let mut arr = VulkanArray {
            meta: ArrayMeta {
                dtype: a.dtype().clone(),
                layout: a.layout(),
                shape: a.shape().to_vec(),
                strides: a.strides().to_vec(),
            },
            len_bytes,
            buf,
        };
        arr.write_from(a);
        Ok(arr)
    }

    /// The storage buffer of a device array of `len` bytes, within the
    /// device's storage buffer range.
    fn array_buffer(
        self: &Arc<Self>,
        len: usize,
        what: impl Fn() -> String,
    ) -> Result<Buffer<Arc<VulkanDevice>>, VulkanError> {
        let limit = self.limits.max_storage_buffer_range as u64;
        if (len as u64).next_multiple_of(16) > limit {
            return Err(VulkanError::TooLarge {
                what: what(),
                size: len as u64,
                limit,
            });
        }
        Buffer::new(
            self.clone(),
            len as u64,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            "storage",
        )
    }
}

/// A buffer with its own mapped host-visible memory, freed on drop. `D`
/// is how it holds its device: borrowed for per-launch buffers, shared
/// (`Arc`) for the buffers of device arrays.
struct Buffer<D: Deref<Target = VulkanDevice>> {
    dev: D,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    /// The mapping of the whole buffer, `size` bytes.
    ptr: *mut u8,
    size: u64,
}

impl<D: Deref<Target = VulkanDevice>> Buffer<D> {
    /// A mapped host-visible buffer of at least `size` bytes (rounded up to
    /// 16, at least 16).
    fn new(
        dev: D,
        size: u64,
        usage: vk::BufferUsageFlags,
        what: &'static str,
    ) -> Result<Buffer<D>, VulkanError> {
        let size = size.max(16).next_multiple_of(16);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info on a live device; the new buffer is
        // owned by `Buffer`, which frees it (and its memory) on drop.
        unsafe {
            let buffer = dev
                .device
                .create_buffer(&info, None)
                .map_err(vkerr("vkCreateBuffer"))?;
            let mut buf = Buffer {
                dev,
                buffer,
                memory: vk::DeviceMemory::null(),
                ptr: std::ptr::null_mut(),
                size,
            };
            let d = &*buf.dev;
            let req = d.device.get_buffer_memory_requirements(buffer);
            let ty = d
                .memory_type(req.memory_type_bits)
                .ok_or(VulkanError::NoMemoryType(what))?;
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(ty);
            let memory = d
                .device
                .allocate_memory(&alloc, None)
                .map_err(vkerr("vkAllocateMemory"))?;
            buf.memory = memory;
            let d = &*buf.dev;
            d.device
                .bind_buffer_memory(buffer, memory, 0)
                .map_err(vkerr("vkBindBufferMemory"))?;
            let ptr = d
                .device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vkerr("vkMapMemory"))?
                .cast::<u8>();
            buf.ptr = ptr;
            Ok(buf)
        }
    }

    /// Copies `bytes` into the buffer at `offset`.
    fn write(&mut self, offset: u64, bytes: &[u8]) {
        debug_assert!(offset + bytes.len() as u64 <= self.size);
        // SAFETY: the mapping spans `size` bytes and the range is inside it
        // (callers size buffers for their contents); host writes to
        // coherent memory need no flush, and no submitted command is
        // pending (launches wait for their fence).
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.ptr.add(offset as usize),
                bytes.len(),
            )
        }
    }
}

impl<D: Deref<Target = VulkanDevice>> Drop for Buffer<D> {
    fn drop(&mut self) {
        // SAFETY: the buffer and memory were made by this device and no
        // pending command uses them (launches wait for their fence before
        // returning); freeing the memory unmaps it.
        unsafe {
            self.dev.device.destroy_buffer(self.buffer, None);
            if self.memory != vk::DeviceMemory::null() {
                self.dev.device.free_memory(self.memory, None);
            }
        }
    }
}

/// A device-resident array: a storage buffer of a [`VulkanDevice`] kept
/// across launches, with the type, shape, layout and byte strides of the
/// host [`Array`] it mirrors (an SoA array's buffer holds the same planar
/// bytes). Made by [`VulkanDevice::upload`] or [`VulkanDevice::zeros`],
/// launched with [`crate::Device::launch_async`] ([`crate::DeviceArg`]),
/// read back with [`VulkanArray::to_host`] or
/// [`VulkanArray::copy_to_host`].
pub struct VulkanArray {
    meta: ArrayMeta,
    /// Bytes of the elements (the buffer is rounded up to 16).
    len_bytes: usize,
    buf: Buffer<Arc<VulkanDevice>>,
}

// SAFETY: the buffer, its memory and its mapping belong to this array alone
// (the raw mapping pointer is what keeps the type from being `Send`); the
// device handle is shared through an `Arc` and is `Send + Sync`. Moving the
// array to another thread moves that exclusive ownership. It is not `Sync`:
// a launch writes it through a shared borrow.
unsafe impl Send for VulkanArray {}

impl std::fmt::Debug for VulkanArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VulkanArray")
            .field("dtype", &self.meta.dtype.to_string())
            .field("shape", &self.meta.shape)
            .field("layout", &self.meta.layout)
            .field("device", &self.buf.dev.name)
            .finish()
    }
}

impl VulkanArray {
    meta_accessors!();
    pub fn device(&self) -> &Arc<VulkanDevice> {
        &self.buf.dev
    }

    /// The array as launch checks and packing see it (the data address is
    /// unused: shaders reach arrays through their bindings).
    pub(crate) fn view(&self) -> ArgView<'_> {
        self.meta.view(0)
    }

    fn check_like(&self, a: &Array) -> Result<(), VulkanError> {
        self.meta
            .check_like(a.meta())
            .map_err(|(dst, src)| VulkanError::Mismatch { dst, src })
    }

    /// Host → device, same layout (checked by the caller).
    fn write_from(&mut self, a: &Array) {
        debug_assert_eq!(a.byte_len(), self.len_bytes);
        // SAFETY: `Array` is not `Sync`, so nothing writes its storage while
        // this shared borrow lives; it holds `byte_len` bytes at `data_ptr`.
        let src = unsafe { std::slice::from_raw_parts(a.data_ptr().cast_const(), a.byte_len()) };
        self.buf.write(0, src);
    }

    /// Device → the storage of `a` (same layout, checked by the caller).
    fn read_into(&self, a: &Array) {
        debug_assert_eq!(a.byte_len(), self.len_bytes);
        // SAFETY: no launch is pending (launches wait for their fence, after
        // a compute→host barrier), the mapping holds at least `len_bytes`
        // bytes, and the caller holds the only use of `a`'s storage (a
        // `&mut Array`, or an array it has just made), which may be written
        // through `data_ptr` (it is made of `UnsafeCell`s).
        unsafe { std::ptr::copy_nonoverlapping(self.buf.ptr, a.data_ptr(), self.len_bytes) };
    }

    /// Copies a host array of the same type, shape and layout in.
    pub fn copy_from_host(&mut self, a: &Array) -> Result<(), VulkanError> {
        self.check_like(a)?;
        self.write_from(a);
        Ok(())
    }

    /// Copies into a host array of the same type, shape and layout.
    pub fn copy_to_host(&self, a: &mut Array) -> Result<(), VulkanError> {
        self.check_like(a)?;
        self.read_into(a);
        Ok(())
    }

    /// A host copy, in the array's layout.
    pub fn to_host(&self) -> Result<Array, VulkanError> {
        let a = self.meta.host_zeros()?;
        self.read_into(&a);
        Ok(a)
    }
}

/// A compute pipeline for one kernel, with its layout objects.
struct Pipeline {
    dev: Arc<VulkanDevice>,
    kernel: String,
    bindings: BindingLayout,
    group_size: u32,
    shader: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        let d = &self.dev.device;
        // SAFETY: the objects were made by this device; launches wait for
        // completion, so no command buffer using them is pending. Null
        // handles (from a failed creation) are ignored by Vulkan.
        unsafe {
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_shader_module(self.shader, None);
        }
    }
}

impl Pipeline {
    fn new(
        dev: &Arc<VulkanDevice>,
        art: &HlslArtifact,
        spv: &[u32],
    ) -> Result<Pipeline, VulkanError> {
        let mut p = Pipeline {
            dev: dev.clone(),
            kernel: art.kernel.clone(),
            bindings: art.bindings.clone(),
            group_size: art.group_size,
            shader: vk::ShaderModule::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
        };
        let d = &dev.device;
        let mut slots = vec![vk::DescriptorSetLayoutBinding::default()
            .binding(art.bindings.cbuffer_binding)
            .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        let trap = art.bindings.trap.as_ref().map(|t| t.binding);
        for binding in art.bindings.arrays.iter().map(|a| a.binding).chain(trap) {
            slots.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            );
        }
        let entry = std::ffi::CString::new(art.entry.as_str())
            .map_err(|_| VulkanError::NoDevice("entry point name has a NUL byte".into()))?;
        // SAFETY: valid create infos on a live device; every handle is
        // stored in `p` as soon as it exists, so `Drop` frees it on error.
        unsafe {
            p.shader = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spv), None)
                .map_err(vkerr("vkCreateShaderModule"))?;
            p.set_layout = d
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&slots),
                    None,
                )
                .map_err(vkerr("vkCreateDescriptorSetLayout"))?;
            let sets = [p.set_layout];
            p.layout = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&sets),
                    None,
                )
                .map_err(vkerr("vkCreatePipelineLayout"))?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(p.shader)
                .name(&entry);
            let info = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(p.layout)];
            p.pipeline = d
                .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
                .map_err(|(_, r)| vkerr("vkCreateComputePipelines")(r))?
                .first()
                .copied()
                .unwrap_or_default();
        }
        Ok(p)
    }
}

/// A module compiled for the `vulkan` device: its kernels are compiled on
/// first request and kept.
pub(crate) struct VulkanProgram {
    dev: Arc<VulkanDevice>,
    module: Arc<Module>,
    kernels: Mutex<Vec<VulkanKernel>>,
}

impl VulkanProgram {
    pub(crate) fn new(dev: Arc<VulkanDevice>, module: Arc<Module>) -> VulkanProgram {
        VulkanProgram {
            dev,
            module,
            kernels: Mutex::new(Vec::new()),
        }
    }

    /// Kernel `name`, compiled on first use.
    pub(crate) fn kernel(&self, name: &str) -> Result<VulkanKernel, VulkanError> {
        let mut ks = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = ks.iter().find(|k| k.0.kernel == name) {
            return Ok(k.clone());
        }
        let shader = |source| VulkanError::Shader {
            kernel: name.to_string(),
            source,
        };
        let opts = HlslOptions {
            group_size: GROUP_SIZE,
            ..Default::default()
        };
        let art = hlsl::emit_hlsl(&self.module, name, &opts).map_err(shader)?;
        let (spv, _hit) = crate::cache::spirv_cached(&art).map_err(shader)?;
        self.dev.check_capabilities(name, &spv)?;
        let k = VulkanKernel(Arc::new(Pipeline::new(&self.dev, &art, &spv)?));
        ks.push(k.clone());
        Ok(k)
    }
}

/// A kernel's compute pipeline on a [`VulkanDevice`].
#[derive(Clone)]
pub(crate) struct VulkanKernel(Arc<Pipeline>);

impl VulkanKernel {
    /// Runs the kernel over `dims` (`total` threads, > 0) with host `args`,
    /// already checked against `sig`, and waits for it. A kernel compiled
    /// with checks returns the first failure its trap record holds.
    pub(crate) fn launch(
        &self,
        sig: &KernelSig,
        dims: &[i32; 4],
        total: usize,
        args: &[Arg<'_>],
    ) -> Result<Option<TrapReport>, LaunchError> {
        self.run(sig, dims, total, args)
            .map_err(|e| exec_error(sig, e))
    }

    /// Runs the kernel with device arrays and values (`views` are `args`'
    /// views, checked against `sig`) over `dims` (`total` threads, > 0),
    /// and waits for it.
    pub(crate) fn launch_resident(
        &self,
        sig: &KernelSig,
        dims: &[i32; 4],
        views: &[ArgView<'_>],
        total: usize,
        args: &[DeviceArg<'_>],
    ) -> Result<Option<TrapReport>, LaunchError> {
        let p = &*self.0;
        let mut bufs = Vec::with_capacity(p.bindings.arrays.len());
        for b in &p.bindings.arrays {
            let Some(DeviceArg::Vulkan(arr)) = args.get(b.param_index) else {
                return Err(exec_error(
                    sig,
                    VulkanError::Shader {
                        kernel: p.kernel.clone(),
                        source: HlslError::Pack(format!(
                            "argument `{}` is not a device array",
                            b.param
                        )),
                    },
                ));
            };
            if !Arc::ptr_eq(arr.device(), &p.dev) {
                return Err(exec_error(
                    sig,
                    VulkanError::OtherDevice {
                        param: b.param.clone(),
                    },
                ));
            }
            bufs.push(arr.buf.buffer);
        }
        let block = pack_bytes(sig, dims, views);
        self.dispatch(&block, total, &bufs)
            .map_err(|e| exec_error(sig, e))
    }

    /// [`VulkanKernel::launch`]: copies each distinct host array into a
    /// fresh storage buffer, dispatches, copies them back.
    fn run(
        &self,
        sig: &KernelSig,
        dims: &[i32; 4],
        total: usize,
        args: &[Arg<'_>],
    ) -> Result<Option<TrapReport>, VulkanError> {
        let p = &*self.0;
        let dev = &*p.dev;
        let shader = |source| VulkanError::Shader {
            kernel: p.kernel.clone(),
            source,
        };
        let views: Vec<_> = args.iter().map(ArgView::of).collect();
        let block = pack_bytes(sig, dims, &views);

        // One storage buffer per distinct array, filled from it.
        let mut arrays: Vec<(&crate::Array, Buffer<&VulkanDevice>)> = Vec::new();
        let mut bufs = Vec::with_capacity(p.bindings.arrays.len());
        for b in &p.bindings.arrays {
            let Some(Arg::Array(arr)) = args.get(b.param_index) else {
                return Err(shader(HlslError::Pack(format!(
                    "argument `{}` is not an array",
                    b.param
                ))));
            };
            if let Some((_, buf)) = arrays.iter().find(|(a, _)| std::ptr::eq(*a, *arr)) {
                bufs.push(buf.buffer);
                continue;
            }
            let len = arr.byte_len() as u64;
            let limit = dev.limits.max_storage_buffer_range as u64;
            if len.next_multiple_of(16) > limit {
                return Err(VulkanError::TooLarge {
                    what: format!("array `{}`", b.param),
                    size: len,
                    limit,
                });
            }
            let buf = dev.buffer(len, vk::BufferUsageFlags::STORAGE_BUFFER, "storage")?;
            // SAFETY: the array's storage holds `byte_len` bytes at
            // `data_ptr` (contiguous C layout), and nothing else accesses
            // it during the launch (`Array` is not `Sync`); the mapping is
            // at least that long.
            unsafe { std::ptr::copy_nonoverlapping(arr.data_ptr(), buf.ptr, arr.byte_len()) };
            bufs.push(buf.buffer);
            arrays.push((arr, buf));
        }

        let trap = self.dispatch(&block, total, &bufs)?;

        for (arr, buf) in &arrays {
            // SAFETY: the launch has finished (fence waited, host-read
            // barrier recorded); the mapping holds at least `byte_len`
            // bytes, and the array's storage may be written through
            // `data_ptr` (it is made of `UnsafeCell`s) by this launch, its
            // only user until it returns.
            unsafe { std::ptr::copy_nonoverlapping(buf.ptr, arr.data_ptr(), arr.byte_len()) };
        }
        Ok(trap)
    }

    /// One launch of `total` threads (> 0) with the packed argument `block`
    /// and, per array binding of the kernel, its storage buffer: constant
    /// buffers, the trap record of checked code, descriptor sets, one
    /// command buffer of dispatches between barriers, submit, wait. Returns
    /// the first failure of a checked kernel.
    fn dispatch(
        &self,
        block: &[u8],
        total: usize,
        bufs: &[vk::Buffer],
    ) -> Result<Option<TrapReport>, VulkanError> {
        let p = &*self.0;
        let dev = &*p.dev;
        let shader = |source| VulkanError::Shader {
            kernel: p.kernel.clone(),
            source,
        };
        debug_assert_eq!(bufs.len(), p.bindings.arrays.len());

        // Constant buffers, one per dispatch, at aligned offsets.
        let total = u32::try_from(total).map_err(|_| VulkanError::TooLarge {
            what: "launch".into(),
            size: total as u64,
            limit: u32::MAX as u64,
        })?;
        let split = hlsl::dispatches(total, p.group_size);
        let cb_size = p.bindings.cbuffer.size as u64;
        if cb_size > dev.limits.max_uniform_buffer_range as u64 {
            return Err(VulkanError::TooLarge {
                what: "the constant buffer".into(),
                size: cb_size,
                limit: dev.limits.max_uniform_buffer_range as u64,
            });
        }
        let align = dev.limits.min_uniform_buffer_offset_alignment.max(16);
        let cb_stride = cb_size.max(16).next_multiple_of(align);
        let mut cbuf = dev.buffer(
            cb_stride * split.len() as u64,
            vk::BufferUsageFlags::UNIFORM_BUFFER,
            "uniform",
        )?;
        for (i, d) in split.iter().enumerate() {
            let bytes = p.bindings.pack_cbuffer(block, d.base).map_err(shader)?;
            cbuf.write(i as u64 * cb_stride, &bytes);
        }

        // The trap record of checked code, zeroed.
        let trap = match p.bindings.trap {
            Some(_) => {
                let mut t = dev.buffer(
                    hlsl::TRAP_RECORD_SIZE as u64,
                    vk::BufferUsageFlags::STORAGE_BUFFER,
                    "storage",
                )?;
                t.write(0, &vec![0u8; t.size as usize]);
                Some(t)
            }
            None => None,
        };

        let d = &dev.device;
        let n_sets = split.len() as u32;
        let per_set = p.bindings.arrays.len() as u32 + u32::from(trap.is_some());
        let n_storage = per_set.max(1) * n_sets;
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER,
                descriptor_count: n_sets,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: n_storage,
            },
        ];
        // Locked before `scratch` exists, so that it is dropped after it.
        let submit = dev.submit.lock().unwrap_or_else(|p| p.into_inner());
        let mut scratch = Scratch {
            dev,
            pool: vk::DescriptorPool::null(),
            fence: vk::Fence::null(),
            cmd: None,
        };
        // SAFETY: every handle below is made by this device and recorded in
        // `scratch`, which destroys it on every path after the fence (or
        // after an error, when nothing was submitted). The command pool and
        // queue are used under the `submit` lock only. Descriptors point to
        // buffers that live until after the wait.
        unsafe {
            scratch.pool = d
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(n_sets)
                        .pool_sizes(&sizes),
                    None,
                )
                .map_err(vkerr("vkCreateDescriptorPool"))?;
            let layouts = vec![p.set_layout; split.len()];
            let sets = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(scratch.pool)
                        .set_layouts(&layouts),
                )
                .map_err(vkerr("vkAllocateDescriptorSets"))?;
            let per = 1 + bufs.len() + usize::from(trap.is_some());
            let mut infos = Vec::with_capacity(sets.len() * per);
            for i in 0..sets.len() {
                infos.push(
                    vk::DescriptorBufferInfo::default()
                        .buffer(cbuf.buffer)
                        .offset(i as u64 * cb_stride)
                        .range(cb_size),
                );
                let arrays = bufs.iter().copied();
                for buffer in arrays.chain(trap.as_ref().map(|t| t.buffer)) {
                    infos.push(
                        vk::DescriptorBufferInfo::default()
                            .buffer(buffer)
                            .offset(0)
                            .range(vk::WHOLE_SIZE),
                    );
                }
            }
            let storage_bindings: Vec<u32> = p
                .bindings
                .arrays
                .iter()
                .map(|b| b.binding)
                .chain(p.bindings.trap.as_ref().map(|t| t.binding))
                .collect();
            let mut writes = Vec::with_capacity(infos.len());
            for (i, &set) in sets.iter().enumerate() {
                let info = &infos[i * per..(i + 1) * per];
                writes.push(
                    vk::WriteDescriptorSet::default()
                        .dst_set(set)
                        .dst_binding(p.bindings.cbuffer_binding)
                        .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                        .buffer_info(&info[..1]),
                );
                for (j, &binding) in storage_bindings.iter().enumerate() {
                    writes.push(
                        vk::WriteDescriptorSet::default()
                            .dst_set(set)
                            .dst_binding(binding)
                            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                            .buffer_info(&info[1 + j..2 + j]),
                    );
                }
            }
            d.update_descriptor_sets(&writes, &[]);

            let cmd = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(submit.pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .map_err(vkerr("vkAllocateCommandBuffers"))?[0];
            scratch.cmd = Some((submit.pool, cmd));
            d.begin_command_buffer(
                cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
            .map_err(vkerr("vkBeginCommandBuffer"))?;
            // Earlier launches' shader writes (to device arrays kept
            // across launches) are visible to this one's shaders. Host
            // writes before the submission need no barrier.
            let after_writes = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE);
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::DependencyFlags::empty(),
                &[after_writes],
                &[],
                &[],
            );
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            for (set, disp) in sets.iter().zip(&split) {
                d.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    p.layout,
                    0,
                    &[*set],
                    &[],
                );
                d.cmd_dispatch(cmd, disp.groups_x, 1, 1);
            }
            // Make the shader's writes visible to the host reads below.
            let barrier = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
            d.end_command_buffer(cmd)
                .map_err(vkerr("vkEndCommandBuffer"))?;
            scratch.fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(vkerr("vkCreateFence"))?;
            let cmds = [cmd];
            let submit_info = [vk::SubmitInfo::default().command_buffers(&cmds)];
            d.queue_submit(submit.queue, &submit_info, scratch.fence)
                .map_err(vkerr("vkQueueSubmit"))?;
            let waited = d.wait_for_fences(&[scratch.fence], true, u64::MAX);
            if let Err(r) = waited {
                // Do not free what the device may still use.
                let _ = d.device_wait_idle();
                return Err(vkerr("vkWaitForFences")(r));
            }
        }
        drop(scratch);
        drop(submit);

        Ok(trap.and_then(|t| {
            let mut rec = [0u8; hlsl::TRAP_RECORD_SIZE];
            // SAFETY: the launch has finished (as above); the mapping holds
            // at least `TRAP_RECORD_SIZE` bytes.
            unsafe { std::ptr::copy_nonoverlapping(t.ptr, rec.as_mut_ptr(), rec.len()) };
            hlsl::decode_trap_record(&rec)
        }))
    }
}

/// A launch's failure as the runtime reports it.
fn exec_error(sig: &KernelSig, e: VulkanError) -> LaunchError {
    LaunchError::Exec {
        kernel: sig.name.clone(),
        device: "vulkan",
        source: Box::new(e),
    }
}

/// Per-launch Vulkan objects, destroyed on drop.
struct Scratch<'d> {
    dev: &'d VulkanDevice,
    pool: vk::DescriptorPool,
    fence: vk::Fence,
    /// The command buffer and the pool it came from.
    cmd: Option<(vk::CommandPool, vk::CommandBuffer)>,
}

impl Drop for Scratch<'_> {
    fn drop(&mut self) {
        let d = &self.dev.device;
        // SAFETY: dropped while the `submit` lock is held (the command
        // pool's external synchronisation), and only once the command
        // buffer has completed or was never submitted. Null handles are
        // ignored by Vulkan.
        unsafe {
            if let Some((pool, cmd)) = self.cmd {
                d.free_command_buffers(pool, &[cmd]);
            }
            d.destroy_fence(self.fence, None);
            d.destroy_descriptor_pool(self.pool, None);
        }
    }
}

/// Why kernels cannot run on the `vulkan` device here (no loader, no
/// device, or no `glslangValidator`), or `Ok` if they can.
pub fn availability() -> Result<Arc<VulkanDevice>, String> {
    let dev = VulkanDevice::shared().map_err(|e| e.to_string())?;
    if hlsl::find_glslang().is_none() {
        return Err(
            "glslangValidator not found (set WEFT_GLSLANG or install glslang-tools)".into(),
        );
    }
    Ok(dev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_are_read_from_spirv() {
        // Header, OpCapability Shader, OpCapability Float64, OpNop-sized
        // OpMemoryModel.
        let spv = [
            0x0723_0203,
            0x0001_0300,
            0,
            10,
            0,
            (2 << 16) | 17,
            1,
            (2 << 16) | 17,
            10,
            (3 << 16) | 14,
            0,
            1,
        ];
        assert_eq!(spirv_capabilities(&spv), vec![1, 10]);
        // Float64 needs shaderFloat64; Shader needs nothing.
        assert_eq!(
            missing_feature(&Features::default(), &spv),
            Some(("Float64", "shaderFloat64"))
        );
        let f64_on = Features {
            float64: true,
            ..Features::default()
        };
        assert_eq!(missing_feature(&f64_on, &spv), None);
        // The float-controls mode, for floats and then for doubles.
        let mut modes = spv.to_vec();
        modes.splice(9..9, [(2 << 16) | 17, 4466]);
        assert_eq!(spirv_capabilities(&modes), vec![1, 10, 4466]);
        assert_eq!(
            missing_feature(&f64_on, &modes),
            Some((
                "SignedZeroInfNanPreserve",
                "shaderSignedZeroInfNanPreserveFloat32"
            ))
        );
        let f32_kept = Features {
            preserve_inf_nan32: true,
            ..f64_on
        };
        assert_eq!(
            missing_feature(&f32_kept, &modes),
            Some((
                "SignedZeroInfNanPreserve",
                "shaderSignedZeroInfNanPreserveFloat64"
            ))
        );
        let all = Features {
            preserve_inf_nan64: true,
            ..f32_kept
        };
        assert_eq!(missing_feature(&all, &modes), None);
        // A zero word count stops the scan instead of looping.
        assert_eq!(spirv_capabilities(&[0, 0, 0, 0, 0, 0]), Vec::<u32>::new());
    }

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
    }
}
