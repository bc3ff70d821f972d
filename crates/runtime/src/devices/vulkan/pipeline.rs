//! A kernel's compute pipeline: shader module, descriptor set layout
//! (the backend's binding layout), pipeline layout and pipeline.

use super::context::VulkanDevice;
use super::{vkerr, VulkanError};
use ash::vk;
use std::sync::Arc;
use weft_backend_hlsl::{BindingLayout, Shader};

/// A compute pipeline for one kernel, with its layout objects.
pub(super) struct Pipeline {
    pub(super) dev: Arc<VulkanDevice>,
    pub(super) kernel: String,
    pub(super) bindings: BindingLayout,
    pub(super) group_size: u32,
    pub(super) shader: vk::ShaderModule,
    pub(super) set_layout: vk::DescriptorSetLayout,
    pub(super) layout: vk::PipelineLayout,
    pub(super) pipeline: vk::Pipeline,
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
    pub(super) fn new(
        dev: &Arc<VulkanDevice>,
        art: &Shader,
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
        for binding in art.bindings.storage_bindings() {
            slots.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            );
        }
        // More storage buffers than a stage may bind is refused here: past
        // the limit, drivers (lavapipe) crash instead of failing.
        let storage = slots.len() as u64 - 1;
        let limit = dev.limits.max_per_stage_descriptor_storage_buffers as u64;
        if storage > limit {
            return Err(VulkanError::TooManyBuffers {
                kernel: art.kernel.clone(),
                count: storage,
                limit,
            });
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

