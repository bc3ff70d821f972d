//! One launch on the device: constant buffers (one per dispatch of at
//! most 65 535 workgroups), the trap record of checked code, the lock
//! table of 64-bit atomics, descriptor sets, one command buffer of
//! dispatches between barriers, submit, wait.

use super::pipeline::Pipeline;
use super::context::VulkanDevice;
use super::{vkerr, VulkanError};
use ash::vk;
use weft_abi::trap::{record, TrapRecord};

/// A device array copied into the pool of a pooled launch before its
/// dispatches and back out after them.
pub(super) struct PoolCopy {
    /// The array's own buffer.
    pub array: vk::Buffer,
    /// Its byte offset in the pool (`bufs[0]`).
    pub base: u64,
    /// Bytes copied.
    pub len: u64,
}

impl Pipeline {
    /// One launch of `total` threads (> 0) with the packed argument `block`
    /// and, per array binding of the kernel, its storage buffer: constant
    /// buffers, the trap record of checked code, the lock table of 64-bit
    /// atomics, descriptor sets, one
    /// command buffer of dispatches between barriers, submit, wait. Returns
    /// the first failure of a checked kernel. A pooled kernel gets its pool
    /// as the one buffer of `bufs`, each array's base in `bases`, and the
    /// device arrays to copy in and out through it in `copies`.
    pub(super) fn dispatch(
        &self,
        block: &[u8],
        total: usize,
        bufs: &[vk::Buffer],
        bases: &[u32],
        copies: &[PoolCopy],
    ) -> Result<Option<TrapRecord>, VulkanError> {
        let p = self;
        let dev = &*p.dev;
        let shader = |source| VulkanError::Shader {
            kernel: p.kernel.clone(),
            source,
        };
        debug_assert_eq!(
            bufs.len(),
            if p.bindings.pooled { 1 } else { p.bindings.arrays.len() }
        );

        // Constant buffers, one per dispatch, at aligned offsets.
        let total = u32::try_from(total).map_err(|_| VulkanError::TooLarge {
            what: "launch".into(),
            size: total as u64,
            limit: u32::MAX as u64,
        })?;
        let split = weft_backend_hlsl::dispatches(total, p.group_size);
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
            let mut bytes = p.bindings.pack_cbuffer(block, d.base).map_err(shader)?;
            p.bindings
                .pack_pool_bases(&mut bytes, bases)
                .map_err(shader)?;
            cbuf.write(i as u64 * cb_stride, &bytes);
        }

        // The trap record of checked code and the lock table of 64-bit
        // atomics, zeroed.
        let zeroed = |size: u32| -> Result<_, VulkanError> {
            let mut t = dev.buffer(
                size as u64,
                vk::BufferUsageFlags::STORAGE_BUFFER,
                "storage",
            )?;
            t.write(0, &vec![0u8; t.size as usize]);
            Ok(t)
        };
        let trap = match p.bindings.trap {
            Some(_) => Some(zeroed(record::SIZE as u32)?),
            None => None,
        };
        let locks = match &p.bindings.locks {
            Some(l) => Some(zeroed(l.size)?),
            None => None,
        };
        let extra: Vec<vk::Buffer> = trap.iter().chain(&locks).map(|b| b.buffer).collect();

        let d = &dev.device;
        let n_sets = split.len() as u32;
        let per_set = (bufs.len() + extra.len()) as u32;
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
            let per = 1 + bufs.len() + extra.len();
            let mut infos = Vec::with_capacity(sets.len() * per);
            for i in 0..sets.len() {
                infos.push(
                    vk::DescriptorBufferInfo::default()
                        .buffer(cbuf.buffer)
                        .offset(i as u64 * cb_stride)
                        .range(cb_size),
                );
                for &buffer in bufs.iter().chain(&extra) {
                    infos.push(
                        vk::DescriptorBufferInfo::default()
                            .buffer(buffer)
                            .offset(0)
                            .range(vk::WHOLE_SIZE),
                    );
                }
            }
            let storage_bindings: Vec<u32> = p.bindings.storage_bindings().collect();
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
            use vk::{AccessFlags as A, PipelineStageFlags as S};
            // Earlier launches' shader writes (to device arrays kept
            // across launches) are visible to this one's shaders and to a
            // pooled launch's copies into its pool. Host writes before the
            // submission need no barrier.
            let rw = A::SHADER_READ | A::SHADER_WRITE;
            let (after, reads) = (S::COMPUTE_SHADER | S::TRANSFER, rw | A::TRANSFER_READ);
            barrier(d, cmd, S::COMPUTE_SHADER, after, A::SHADER_WRITE, reads);
            for c in copies {
                let region = [vk::BufferCopy::default()
                    .dst_offset(c.base)
                    .size(c.len)];
                d.cmd_copy_buffer(cmd, c.array, bufs[0], &region);
            }
            if !copies.is_empty() {
                barrier(d, cmd, S::TRANSFER, S::COMPUTE_SHADER, A::TRANSFER_WRITE, rw);
            }
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
            if !copies.is_empty() {
                let (to, read) = (S::TRANSFER, A::TRANSFER_READ);
                barrier(d, cmd, S::COMPUTE_SHADER, to, A::SHADER_WRITE, read);
                for c in copies {
                    let region = [vk::BufferCopy::default()
                        .src_offset(c.base)
                        .size(c.len)];
                    d.cmd_copy_buffer(cmd, bufs[0], c.array, &region);
                }
                // The copies back are visible to the host and to later
                // launches' shaders.
                let (to, read) = (S::HOST | S::COMPUTE_SHADER, A::HOST_READ | rw);
                barrier(d, cmd, S::TRANSFER, to, A::TRANSFER_WRITE, read);
            }
            // Make the shader's writes visible to the host reads below.
            barrier(d, cmd, S::COMPUTE_SHADER, S::HOST, A::SHADER_WRITE, A::HOST_READ);
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

        if let Some(l) = &locks {
            let mut table = vec![0u8; l.size as usize];
            // The launch has finished (as below).
            l.read(&mut table);
            let count = weft_backend_hlsl::LockBinding::unfinished(&table);
            if count > 0 {
                return Err(VulkanError::LockWaitsCut {
                    kernel: p.kernel.clone(),
                    count,
                });
            }
        }

        Ok(trap.and_then(|t| {
            let mut rec = [0u8; record::SIZE];
            // The launch has finished (as above).
            t.read(&mut rec);
            record::decode(&rec)
        }))
    }
}

/// Records a global memory barrier: `src_access` writes of `src` stages
/// visible to `dst_access` of `dst` stages.
///
/// # Safety
///
/// `cmd` is a command buffer of `d` in the recording state.
unsafe fn barrier(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    src: vk::PipelineStageFlags,
    dst: vk::PipelineStageFlags,
    src_access: vk::AccessFlags,
    dst_access: vk::AccessFlags,
) {
    let b = vk::MemoryBarrier::default()
        .src_access_mask(src_access)
        .dst_access_mask(dst_access);
    // SAFETY: the caller's.
    unsafe { d.cmd_pipeline_barrier(cmd, src, dst, vk::DependencyFlags::empty(), &[b], &[], &[]) };
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

