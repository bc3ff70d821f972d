//! The host memory behind host arrays ([`crate::Array`]) and the host
//! devices' buffers ([`crate::hal::host::HostBuffer`]): zeroed, aligned to
//! a cache line, and for a large block backed by transparent huge pages
//! where the OS offers them.
//!
//! **Why huge pages.** A memory-bound kernel streams its arrays once per
//! launch; with 4 KiB pages every 4 KiB of every stream is a new page, so
//! a TLB miss and a page walk (two-dimensional under a hypervisor), and
//! the hardware prefetchers stop at each page boundary. With 2 MiB pages
//! that happens 512 times less often. NumPy asks for huge pages for every
//! array of 4 MiB or more (`madvise(MADV_HUGEPAGE)`), which is why Numba's
//! saxpy over NumPy arrays moved ~60 GB/s on the 2-core benchmark VM
//! where Weft's, on 4 KiB pages, moved ~42 (`benches/README.md`, "Streaming
//! at the memory's limit"). Linux's default transparent-huge-page policy
//! is often `madvise`: only memory that asks gets huge pages.
//!
//! **Policy.** A block of at least [`HUGE_MIN`] bytes is aligned to
//! [`HUGE_PAGE`] (so that every 2 MiB of it can be one page, the first
//! included) and, on Linux, advised `MADV_HUGEPAGE` before it is first
//! written. Smaller blocks are aligned to [`LINE`] (64 bytes: a 16-lane
//! `f32` vector of an array's start is one cache line, never two). Every
//! block is zeroed at allocation by the allocating thread, as before: the
//! pages are faulted in there, not inside a timed launch.
//! `WEFT_HUGE_PAGES=0` turns the advice off (to measure it; read once).

use std::alloc::Layout;
use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// The alignment of every block: a cache line.
pub const LINE: usize = 64;
/// The size of a transparent huge page on x86-64 and most AArch64 kernels.
pub const HUGE_PAGE: usize = 2 << 20;
/// Blocks of this many bytes or more are huge-page aligned and advised
/// (NumPy's threshold; below it a block spans at most one huge page, and
/// the waste of aligning it would be large beside it).
pub const HUGE_MIN: usize = 4 << 20;

/// Zeroed, aligned host memory (see the module docs): written through its
/// address while shared (kernels), so it behaves as `UnsafeCell` storage:
/// `Send`, not `Sync`.
pub struct HostMem {
    ptr: NonNull<u8>,
    /// The allocation's layout (size at least 1).
    layout: Layout,
    /// Bytes asked for.
    len: usize,
    _cell: PhantomData<UnsafeCell<u8>>,
}

// SAFETY: `HostMem` owns its block exclusively, like a `Vec<UnsafeCell<u8>>`
// (which is `Send`); it is not `Sync` (the `PhantomData<UnsafeCell>`).
unsafe impl Send for HostMem {}

impl HostMem {
    /// `len` zero bytes; `None` when the allocator refuses them.
    pub fn zeroed(len: usize) -> Option<HostMem> {
        let huge = len >= HUGE_MIN && crate::policy::env::huge_pages();
        let align = if huge { HUGE_PAGE } else { LINE };
        let layout = Layout::from_size_align(len.max(1), align).ok()?;
        // SAFETY: the layout's size is nonzero.
        let ptr = NonNull::new(unsafe { std::alloc::alloc(layout) })?;
        if huge {
            advise_huge(ptr.as_ptr(), layout.size());
        }
        // SAFETY: the block holds `layout.size()` bytes; this is its first
        // write (after the advice, so the faults can take huge pages).
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, layout.size()) };
        Some(HostMem {
            ptr,
            layout,
            len,
            _cell: PhantomData,
        })
    }

    /// The block's address (aligned to [`LINE`], or to [`HUGE_PAGE`] for a
    /// block of [`HUGE_MIN`] bytes or more).
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Bytes asked for.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for HostMem {
    fn drop(&mut self) {
        // SAFETY: allocated by `std::alloc::alloc` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

/// Asks the OS for huge pages over `[p, p + len)` (Linux; best effort: a
/// refusal, e.g. a kernel without transparent huge pages, leaves 4 KiB
/// pages).
#[cfg(target_os = "linux")]
fn advise_huge(p: *mut u8, len: usize) {
    // SAFETY: `p` is the start of a block of `len` bytes that this process
    // owns and has not yet touched; `MADV_HUGEPAGE` changes no contents.
    unsafe {
        libc::madvise(p.cast(), len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_: *mut u8, _: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_blocks_are_line_aligned_and_zero() {
        for len in [0, 1, 15, 16, 63, 64, 1000, 4096 + 3] {
            let m = HostMem::zeroed(len).unwrap();
            assert_eq!(m.ptr() as usize % LINE, 0, "{len}");
            assert_eq!(m.len(), len);
            // SAFETY: the block holds at least `len` bytes.
            let s = unsafe { std::slice::from_raw_parts(m.ptr(), len) };
            assert!(s.iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn large_blocks_are_huge_page_aligned_and_zero() {
        let len = HUGE_MIN + 123;
        let m = HostMem::zeroed(len).unwrap();
        if crate::policy::env::huge_pages() {
            assert_eq!(m.ptr() as usize % HUGE_PAGE, 0);
        }
        // SAFETY: the block holds at least `len` bytes.
        let s = unsafe { std::slice::from_raw_parts_mut(m.ptr(), len) };
        assert!(s.iter().step_by(4096).all(|&b| b == 0));
        assert_eq!(s[len - 1], 0);
        s[len - 1] = 7;
        assert_eq!(s[len - 1], 7);
    }
}
