//! Vulkan buffers: host-visible, host-coherent memory mapped once
//! ([`Buffer`]), and the storage of a device array ([`VulkanBuffer`]).

use super::context::VulkanDevice;
use super::{vkerr, VulkanError};
use ash::vk;
use std::ops::Deref;
use std::sync::Arc;

/// A buffer with its own mapped host-visible memory, freed on drop. `D`
/// is how it holds its device: borrowed for per-launch buffers, shared
/// (`Arc`) for the buffers of device arrays.
pub(super) struct Buffer<D: Deref<Target = VulkanDevice>> {
    pub(super) dev: D,
    pub(super) buffer: vk::Buffer,
    pub(super) memory: vk::DeviceMemory,
    /// The mapping of the whole buffer, `size` bytes.
    pub(super) ptr: *mut u8,
    pub(super) size: u64,
}

impl<D: Deref<Target = VulkanDevice>> Buffer<D> {
    /// A mapped host-visible buffer of at least `size` bytes (rounded up to
    /// 16, at least 16).
    pub(super) fn new(
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
    pub(super) fn write(&mut self, offset: u64, bytes: &[u8]) {
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


impl<D: Deref<Target = VulkanDevice>> Buffer<D> {
    /// Copies `out.len()` bytes (at most the buffer's size) out.
    pub(super) fn read(&self, out: &mut [u8]) {
        self.read_at(0, out)
    }

    /// Copies `out.len()` bytes from `offset` out (at most to the buffer's
    /// end).
    pub(super) fn read_at(&self, offset: u64, out: &mut [u8]) {
        let n = out.len().min(self.size.saturating_sub(offset) as usize);
        // SAFETY: no launch is pending (launches wait for their fence, after
        // a compute→host barrier) and the mapping holds `offset + n <= size`
        // bytes.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr.add(offset as usize), out.as_mut_ptr(), n) };
    }
}

/// The storage of a device array: a storage buffer of the device kept
/// across launches, `len` bytes used (the buffer is rounded up to 16).
pub(super) struct VulkanBuffer {
    pub(super) buf: Buffer<Arc<VulkanDevice>>,
    pub(super) len: usize,
}

// SAFETY: the buffer, its memory and its mapping belong to this array alone
// (the raw mapping pointer is what keeps the type from being `Send`); the
// device handle is shared through an `Arc` and is `Send + Sync`. Moving the
// storage to another thread moves that exclusive ownership. It is not
// `Sync`: a launch writes it through a shared borrow.
unsafe impl Send for VulkanBuffer {}
