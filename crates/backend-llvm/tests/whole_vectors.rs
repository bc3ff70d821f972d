//! The vector tier's two loops over a thread range (`docs/vector.md`,
//! "Loop shape"): the whole vectors of a 1-D launch run a version of the
//! body with the mask all on, launch dims 1 to 3 known to be 1 and
//! consecutive thread ids; the rest (a last partial vector, or every vector
//! of a launch of more dimensions) runs the general one. Each kernel here
//! runs on the vector tier and as scalar host code, over sizes around the
//! vector width, thread ranges that start off a vector, and launches of one,
//! two and four dimensions, and must write the same bytes.

mod common;

use common::*;
use weft_backend_llvm::host::{self, Options};
use weft_ir::ModuleInfo;

const SRC: &str = r#"
import warp as wp

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 0.5 * x[i] + y[i]

@wp.kernel
def some(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i % 3 != 0:
        y[i] = x[i] + float(i)

@wp.kernel
def grid(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i, j = wp.tid()
    k = i * 5 + j
    if k < y.shape[0]:
        y[k] = x[k] * 2.0 + float(j) - float(i)

@wp.kernel
def total(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(y, 0, x[i])
"#;

const KERNELS: [&str; 4] = ["saxpy", "some", "grid", "total"];

fn opts(vector: bool) -> Options {
    Options {
        vector,
        ..Options::default()
    }
}

/// `y` after `kernel` ran over threads `start..n` of a launch of `dims`.
fn run(
    art: &host::Artifact,
    m: &weft_ir::Module,
    kernel: &str,
    dims: [i32; 4],
    start: usize,
) -> Vec<f32> {
    let k = art.kernel(kernel).expect("kernel");
    let n = dims.iter().map(|&d| d as usize).product::<usize>();
    let mut x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 1e-3 - 0.5).collect();
    let mut y: Vec<f32> = (0..n).map(|i| i as f32).collect();
    // SAFETY: plain f32s viewed as bytes.
    let (xb, yb) = unsafe {
        (
            std::slice::from_raw_parts_mut(x.as_mut_ptr().cast::<u8>(), 4 * n),
            std::slice::from_raw_parts_mut(y.as_mut_ptr().cast::<u8>(), 4 * n),
        )
    };
    let descs = [raw_desc(xb, 4), raw_desc(yb, 4)];
    let blk = pack_arrays(m, kernel, dims, &descs);
    // SAFETY: the block matches the kernel's params; the buffers outlive
    // the call.
    unsafe { (k.entry)(blk.as_ptr() as *const u8, start as i64, n as i64) };
    y
}

#[test]
fn whole_vectors_and_the_rest_give_the_scalar_code_s_results() {
    let m = compile_source("whole.py", SRC);
    let vector = compile_host(&m, &opts(true)).expect("compile");
    let scalar = compile_host(&m, &opts(false)).expect("compile");
    let mut checked = 0;
    for k in KERNELS {
        for n in [1, 15, 16, 17, 33, 100, 1000] {
            // 1-D; 2-D; 2-D with the first dim 1; 4-D. Threads that share
            // a first index write the same element: only the kernels
            // whose writes are the same for all of them get those.
            let all = [[n, 1, 1, 1], [n, 5, 1, 1], [1, n, 1, 1], [n, 1, 1, 2]];
            let launches = if matches!(k, "some" | "grid") {
                &all[..]
            } else {
                &all[..1]
            };
            for &dims in launches {
                let total: usize = dims.iter().map(|&d| d as usize).product();
                for start in [0, 5, 16, 17] {
                    if start >= total {
                        continue;
                    }
                    let a = run(&vector, &m, k, dims, start);
                    let b = run(&scalar, &m, k, dims, start);
                    let same = a.iter().zip(&b).all(|(p, q)| p.to_bits() == q.to_bits());
                    if k == "total" {
                        // A reduction adds in another order: compare the sum.
                        assert!(
                            (a[0] - b[0]).abs() <= 1e-3 * b[0].abs().max(1.0),
                            "{k}: {dims:?} from {start}"
                        );
                        assert_eq!(a[1..], b[1..], "{k}: {dims:?} from {start}");
                    } else {
                        assert!(same, "{k}: {dims:?} from {start}");
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 200, "{checked}");
}

/// saxpy's whole-vector loop (after LLVM unswitches it on the strides) is
/// two plain vector loads, a multiply, an add and a plain store: no mask,
/// no gather, no per-lane thread-id arithmetic.
#[test]
fn saxpy_s_whole_vector_loop_is_plain() {
    let m = compile_source("whole.py", SRC);
    let ir = host::emit_text(&m, &ModuleInfo::of(&m), &opts(true)).expect("IR");
    let f = function_ir(&ir, "saxpy");
    let blocks: Vec<&str> = f
        .split("\n\n")
        .filter(|b| b.starts_with("vwhole"))
        .collect();
    assert!(!blocks.is_empty(), "no whole-vector loop:\n{f}");
    let plain = blocks.iter().find(|b| {
        b.matches("load <16 x float>").count()
            + b.matches("load <8 x float>").count()
            + b.matches("load <4 x float>").count()
            == 2
            && !b.contains("masked")
            && !b.contains("sdiv")
            && b.contains("store <")
    });
    assert!(plain.is_some(), "no plain whole-vector loop:\n{f}");
}
