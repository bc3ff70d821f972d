//! A minimal Vulkan compute runner for the tests (not the runtime's device):
//! one host-visible buffer per array, one uniform buffer and descriptor set
//! per dispatch, one submission per launch.

use ash::vk;
use std::ffi::CStr;

pub struct Vk {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    mem_props: vk::PhysicalDeviceMemoryProperties,
    /// The device's name.
    #[allow(dead_code)]
    pub name: String,
}

/// A buffer with host-visible, coherent memory, mapped.
struct Buf {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
}

fn vkerr(what: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("{what}: {e}")
}

impl Vk {
    /// The first Vulkan device with a compute queue, or why there is none.
    pub fn new() -> Result<Vk, String> {
        // SAFETY: loading the Vulkan loader library runs its initialisers;
        // the loader is a well-behaved system library.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("no Vulkan loader: {e}"))?;
        let app = vk::ApplicationInfo::default().api_version(vk::make_api_version(0, 1, 1, 0));
        // SAFETY: valid create info; the instance is destroyed in Drop.
        let instance = unsafe {
            entry.create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
        }
        .map_err(vkerr("vkCreateInstance"))?;
        // SAFETY: `instance` is live for all the calls below.
        let found = unsafe {
            let devs = instance
                .enumerate_physical_devices()
                .map_err(vkerr("devices"))?;
            devs.into_iter().find_map(|pd| {
                instance
                    .get_physical_device_queue_family_properties(pd)
                    .iter()
                    .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
                    .map(|qf| (pd, qf as u32))
            })
        };
        let Some((pd, qf)) = found else {
            // SAFETY: nothing was created from the instance.
            unsafe { instance.destroy_instance(None) };
            return Err("no Vulkan device with a compute queue".into());
        };
        // SAFETY: `pd` comes from this instance; the device is destroyed in Drop.
        unsafe {
            let props = instance.get_physical_device_properties(pd);
            let name = CStr::from_ptr(props.device_name.as_ptr())
                .to_string_lossy()
                .into_owned();
            let supported = instance.get_physical_device_features(pd);
            let features =
                vk::PhysicalDeviceFeatures::default().shader_float64(supported.shader_float64 != 0);
            let prio = [1.0f32];
            let qci = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(qf)
                .queue_priorities(&prio)];
            let device = instance
                .create_device(
                    pd,
                    &vk::DeviceCreateInfo::default()
                        .queue_create_infos(&qci)
                        .enabled_features(&features),
                    None,
                )
                .map_err(vkerr("vkCreateDevice"))?;
            let queue = device.get_device_queue(qf, 0);
            let pool = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(qf),
                    None,
                )
                .map_err(vkerr("command pool"))?;
            let mem_props = instance.get_physical_device_memory_properties(pd);
            Ok(Vk {
                _entry: entry,
                instance,
                device,
                queue,
                pool,
                mem_props,
                name,
            })
        }
    }

    fn buffer(&self, size: usize, usage: vk::BufferUsageFlags) -> Result<Buf, String> {
        let size = size.max(16).next_multiple_of(16);
        // SAFETY: valid create infos; the handles are freed by `free`.
        unsafe {
            let buffer = self
                .device
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size as u64)
                        .usage(usage)
                        .sharing_mode(vk::SharingMode::EXCLUSIVE),
                    None,
                )
                .map_err(vkerr("buffer"))?;
            let req = self.device.get_buffer_memory_requirements(buffer);
            let want =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let ty = (0..self.mem_props.memory_type_count)
                .find(|&i| {
                    req.memory_type_bits & (1 << i) != 0
                        && self.mem_props.memory_types[i as usize]
                            .property_flags
                            .contains(want)
                })
                .ok_or("no host-visible memory")?;
            let memory = self
                .device
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(ty),
                    None,
                )
                .map_err(vkerr("memory"))?;
            self.device
                .bind_buffer_memory(buffer, memory, 0)
                .map_err(vkerr("bind"))?;
            let ptr = self
                .device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vkerr("map"))? as *mut u8;
            std::ptr::write_bytes(ptr, 0, size);
            Ok(Buf {
                buffer,
                memory,
                ptr,
            })
        }
    }

    fn free(&self, b: Buf) {
        // SAFETY: the buffer is idle (every submission was waited for).
        unsafe {
            self.device.unmap_memory(b.memory);
            self.device.destroy_buffer(b.buffer, None);
            self.device.free_memory(b.memory, None);
        }
    }

    /// Runs `spv` once per constant buffer in `cbuffers` (one dispatch of
    /// `groups[i]` workgroups each), with `arrays[k]` bound at binding
    /// `bindings[k]`; arrays are updated in place. `alias[k]` names the
    /// array a binding shares its buffer with (its own index if none).
    pub fn run(
        &self,
        spv: &[u32],
        arrays: &mut [Vec<u8>],
        bindings: &[(u32, usize)],
        cbuffers: &[Vec<u8>],
        groups: &[u32],
    ) -> Result<(), String> {
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let mut bufs = Vec::new();
        for a in arrays.iter() {
            let b = self.buffer(a.len(), storage)?;
            // SAFETY: `b.ptr` maps at least `a.len()` bytes.
            unsafe { std::ptr::copy_nonoverlapping(a.as_ptr(), b.ptr, a.len()) };
            bufs.push(b);
        }
        let mut ubos = Vec::new();
        for c in cbuffers {
            let b = self.buffer(c.len(), vk::BufferUsageFlags::UNIFORM_BUFFER)?;
            // SAFETY: as above.
            unsafe { std::ptr::copy_nonoverlapping(c.as_ptr(), b.ptr, c.len()) };
            ubos.push(b);
        }
        let r = self.dispatch(spv, &bufs, bindings, &ubos, groups);
        if r.is_ok() {
            for (a, b) in arrays.iter_mut().zip(&bufs) {
                // SAFETY: the device is idle; `b.ptr` maps `a.len()` bytes.
                unsafe { std::ptr::copy_nonoverlapping(b.ptr, a.as_mut_ptr(), a.len()) };
            }
        }
        for b in bufs.into_iter().chain(ubos) {
            self.free(b);
        }
        r
    }

    fn dispatch(
        &self,
        spv: &[u32],
        bufs: &[Buf],
        bindings: &[(u32, usize)],
        ubos: &[Buf],
        groups: &[u32],
    ) -> Result<(), String> {
        let d = &self.device;
        let n = ubos.len() as u32;
        let mut layout_bindings = vec![vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::COMPUTE)];
        for &(b, _) in bindings {
            layout_bindings.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            );
        }
        // SAFETY: every handle is created from `d` and destroyed before
        // returning, after the queue has finished with it.
        unsafe {
            let set_layout = d
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings),
                    None,
                )
                .map_err(vkerr("set layout"))?;
            let set_layouts = [set_layout];
            let pl = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
                    None,
                )
                .map_err(vkerr("pipeline layout"))?;
            let module = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spv), None)
                .map_err(vkerr("shader module"))?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            let pipeline = d
                .create_compute_pipelines(
                    vk::PipelineCache::null(),
                    &[vk::ComputePipelineCreateInfo::default()
                        .stage(stage)
                        .layout(pl)],
                    None,
                )
                .map_err(|(_, e)| format!("pipeline: {e}"))?[0];
            let sizes = [
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::UNIFORM_BUFFER,
                    descriptor_count: n,
                },
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    descriptor_count: n * (bindings.len() as u32).max(1),
                },
            ];
            let dpool = d
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(n)
                        .pool_sizes(&sizes),
                    None,
                )
                .map_err(vkerr("descriptor pool"))?;
            let layouts = vec![set_layout; n as usize];
            let sets = d
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(dpool)
                        .set_layouts(&layouts),
                )
                .map_err(vkerr("descriptor sets"))?;
            for (set, ubo) in sets.iter().zip(ubos) {
                let ui = [vk::DescriptorBufferInfo {
                    buffer: ubo.buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }];
                let infos: Vec<[vk::DescriptorBufferInfo; 1]> = bindings
                    .iter()
                    .map(|&(_, k)| {
                        [vk::DescriptorBufferInfo {
                            buffer: bufs[k].buffer,
                            offset: 0,
                            range: vk::WHOLE_SIZE,
                        }]
                    })
                    .collect();
                let mut writes = vec![vk::WriteDescriptorSet::default()
                    .dst_set(*set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(&ui)];
                for (&(b, _), info) in bindings.iter().zip(&infos) {
                    writes.push(
                        vk::WriteDescriptorSet::default()
                            .dst_set(*set)
                            .dst_binding(b)
                            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                            .buffer_info(info),
                    );
                }
                d.update_descriptor_sets(&writes, &[]);
            }
            let cb = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .map_err(vkerr("command buffer"))?[0];
            d.begin_command_buffer(
                cb,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
            .map_err(vkerr("begin"))?;
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            for (set, &g) in sets.iter().zip(groups) {
                d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, pl, 0, &[*set], &[]);
                d.cmd_dispatch(cb, g, 1, 1);
                let barrier = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                    .dst_access_mask(
                        vk::AccessFlags::SHADER_READ
                            | vk::AccessFlags::SHADER_WRITE
                            | vk::AccessFlags::HOST_READ,
                    );
                d.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::COMPUTE_SHADER | vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &[barrier],
                    &[],
                    &[],
                );
            }
            d.end_command_buffer(cb).map_err(vkerr("end"))?;
            let fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(vkerr("fence"))?;
            let cbs = [cb];
            let r = d
                .queue_submit(
                    self.queue,
                    &[vk::SubmitInfo::default().command_buffers(&cbs)],
                    fence,
                )
                .and_then(|_| d.wait_for_fences(&[fence], true, u64::MAX))
                .map_err(vkerr("submit"));
            d.destroy_fence(fence, None);
            d.free_command_buffers(self.pool, &cbs);
            d.destroy_descriptor_pool(dpool, None);
            d.destroy_pipeline(pipeline, None);
            d.destroy_shader_module(module, None);
            d.destroy_pipeline_layout(pl, None);
            d.destroy_descriptor_set_layout(set_layout, None);
            r
        }
    }
}

impl Drop for Vk {
    fn drop(&mut self) {
        // SAFETY: every submission was waited for; nothing else uses these.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
