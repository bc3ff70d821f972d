//! The vector tier's dense memory accesses (`docs/vector.md`, "Loop
//! shape" and "Streaming stores"): a full vector is a plain load or store,
//! the last partial one masked, and an array the kernel only writes is
//! stored with non-temporal stores from a size on. Every kernel here runs
//! with streaming stores forced on (`stream_min_bytes = 1`) and off, over
//! sizes around the vector width, thread ranges that start off a vector,
//! and arrays aligned to a cache line or 4 bytes off it, and must write
//! exactly the same bytes (the untouched elements included).

mod common;

use common::*;
use weft_backend_llvm::host::{self, Options};
use weft_ir::ModuleInfo;

const SRC: &str = r#"
import warp as wp

@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 0.5 * x[i]

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 0.5 * x[i] + y[i]

@wp.kernel
def spread(x: wp.array(dtype=float), p: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p[i] = wp.vec3(x[i], 2.0 * x[i], -x[i])

@wp.kernel
def some(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i % 3 != 0:
        y[i] = x[i] + 1.0

@wp.kernel
def rev(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[x.shape[0] - 1 - i] = x[i]

@wp.kernel
def widen(x: wp.array(dtype=float), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = wp.float64(x[i]) * wp.float64(3.0)
"#;

/// Kernel, output element size, whether its output takes streaming stores
/// (`rev`'s is written only, but its lanes are never consecutive: LLVM
/// folds the dense store away, the streaming one with it).
const KERNELS: [(&str, usize, bool); 6] = [
    ("scale", 4, true),
    ("saxpy", 4, false),
    ("spread", 12, true),
    ("some", 4, true),
    ("rev", 4, false),
    ("widen", 8, true),
];

fn opts(stream_min_bytes: u64) -> Options {
    Options {
        vector: true,
        stream_min_bytes,
        ..Options::default()
    }
}

#[test]
fn only_arrays_written_only_get_streaming_stores() {
    let m = compile_source("stream.py", SRC);
    let info = ModuleInfo::of(&m);
    let on = host::emit_text(&m, &info, &opts(1)).expect("IR");
    let off = host::emit_text(&m, &info, &opts(0)).expect("IR");
    for (k, _, streams) in KERNELS {
        let f = function_ir(&on, k);
        assert_eq!(f.contains("!nontemporal"), streams, "{k}:\n{f}");
        assert!(!streams || f.contains("sfence"), "{k}:\n{f}");
        assert!(!function_ir(&off, k).contains("!nontemporal"), "{k}");
    }
}

/// 64-byte aligned bytes.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// `n` elements of `esize` bytes at `off` bytes into a line-aligned block,
/// every byte `fill`.
struct Buf {
    lines: Vec<Line>,
    off: usize,
    len: usize,
}

impl Buf {
    fn new(n: usize, esize: usize, off: usize, fill: u8) -> Buf {
        let len = n * esize;
        Buf {
            lines: vec![Line([fill; 64]); (len + off).div_ceil(64) + 1],
            off,
            len,
        }
    }
    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `lines` holds at least `off + len` bytes.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.lines.as_mut_ptr().cast::<u8>().add(self.off),
                self.len,
            )
        }
    }
}

/// The output bytes of `kernel` run over threads `start..n` with the
/// arrays `off` bytes past a cache line.
fn run(
    art: &host::Artifact,
    m: &weft_ir::Module,
    kernel: &str,
    esize: usize,
    n: usize,
    start: usize,
    off: usize,
) -> Vec<u8> {
    let k = art.kernel(kernel).expect("kernel");
    let mut x = Buf::new(n, 4, off, 0);
    for (i, c) in x.bytes().chunks_exact_mut(4).enumerate() {
        c.copy_from_slice(&((i % 1000) as f32 * 1e-3 - 0.5).to_le_bytes());
    }
    let mut y = Buf::new(n, esize, off, 0xA5);
    for (i, c) in y.bytes().chunks_exact_mut(esize).enumerate() {
        if esize == 4 {
            c.copy_from_slice(&(i as f32).to_le_bytes());
        }
    }
    let descs = [raw_desc(x.bytes(), 4), raw_desc(y.bytes(), esize as u32)];
    let blk = pack_arrays(m, kernel, [n as i32, 1, 1, 1], &descs);
    // SAFETY: the block matches the kernel's params; the buffers outlive
    // the call.
    unsafe { (k.entry)(blk.as_ptr() as *const u8, start as i64, n as i64) };
    y.bytes().to_vec()
}

#[test]
fn streaming_stores_write_the_same_bytes() {
    let m = compile_source("stream.py", SRC);
    let on = compile_host(&m, &opts(1)).expect("compile");
    let off = compile_host(&m, &opts(0)).expect("compile");
    let mut checked = 0;
    for (k, esize, _) in KERNELS {
        for n in [1, 7, 15, 16, 17, 31, 32, 33, 100, 1000, 4099] {
            for start in [0, 5, 16] {
                if start >= n {
                    continue;
                }
                for byte_off in [0, 4] {
                    let a = run(&on, &m, k, esize, n, start, byte_off);
                    let b = run(&off, &m, k, esize, n, start, byte_off);
                    assert!(a == b, "{k}: n {n}, start {start}, offset {byte_off}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 300);
    // And the plain arithmetic, once: scale over 1000 elements.
    let y = run(&on, &m, "scale", 4, 1000, 0, 0);
    for (i, c) in y.chunks_exact(4).enumerate() {
        let x = (i % 1000) as f32 * 1e-3 - 0.5;
        assert_eq!(f32::from_le_bytes(c.try_into().unwrap()), 0.5 * x, "{i}");
    }
}
