//! The opened Vulkan device: instance, logical device and compute queue,
//! the optional shader features it has, and the check of a shader's SPIR-V
//! capabilities against them.

use super::buffer::Buffer;
use super::{vkerr, VulkanError};
use ash::vk;
use std::ffi::CStr;
use std::sync::{Arc, Mutex, OnceLock};

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
pub(super) struct Submit {
    pub(super) queue: vk::Queue,
    pub(super) pool: vk::CommandPool,
}

/// An opened Vulkan device (logical device, one compute queue).
pub(super) struct VulkanDevice {
    pub(super) _entry: ash::Entry,
    pub(super) instance: ash::Instance,
    pub(super) device: ash::Device,
    pub(super) mem_props: vk::PhysicalDeviceMemoryProperties,
    pub(super) limits: vk::PhysicalDeviceLimits,
    features: Features,
    pub(super) name: String,
    pub(super) device_type: vk::PhysicalDeviceType,
    pub(super) submit: Mutex<Submit>,
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
    pub(super) fn shared() -> Result<Arc<VulkanDevice>, VulkanError> {
        static SHARED: OnceLock<Result<Arc<VulkanDevice>, VulkanError>> = OnceLock::new();
        SHARED.get_or_init(VulkanDevice::open).clone()
    }

    /// Opens the best Vulkan 1.1+ device with a compute queue.
    fn open() -> Result<Arc<VulkanDevice>, VulkanError> {
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
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Whether the device is a CPU implementation (lavapipe, SwiftShader).
    pub(super) fn is_cpu(&self) -> bool {
        self.device_type == vk::PhysicalDeviceType::CPU
    }

    /// The first capability of `spv` the device lacks, as an error.
    pub(super) fn check_capabilities(&self, kernel: &str, spv: &[u32]) -> Result<(), VulkanError> {
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
    pub(super) fn memory_type(&self, bits: u32) -> Option<u32> {
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
    pub(super) fn buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
        what: &'static str,
    ) -> Result<Buffer<&VulkanDevice>, VulkanError> {
        Buffer::new(self, size, usage, what)
    }

    /// Waits until the device has finished all work submitted so far
    /// (launches already wait for themselves).
    pub(super) fn synchronize(&self) -> Result<(), VulkanError> {
        let submit = self.submit.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: the queue is used under the `submit` lock only.
        unsafe { self.device.queue_wait_idle(submit.queue) }.map_err(vkerr("vkQueueWaitIdle"))
    }

    /// Refuses a storage buffer of `len` bytes beyond the device's storage
    /// buffer range.
    pub(super) fn check_storage_len(&self, len: usize, what: impl Fn() -> String) -> Result<(), VulkanError> {
        let limit = self.limits.max_storage_buffer_range as u64;
        if (len as u64).next_multiple_of(16) > limit {
            return Err(VulkanError::TooLarge {
                what: what(),
                size: len as u64,
                limit,
            });
        }
        Ok(())
    }
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
}
