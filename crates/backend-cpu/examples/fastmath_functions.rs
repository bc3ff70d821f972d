//! Fast math per function on the Cranelift JIT: each approximated `f32`
//! function (`sin`, `cos`, `tan`, `exp`, `log`, `log2`) alone in a kernel
//! over 2^22 values, with and without `afn`, single-threaded, launched
//! alternately, median of 9 launches each; once in a kernel with a SIMD
//! thread loop (1-D arrays), once in one without (the same values through
//! 2-D `[n, 1]` arrays, where the shims stay: the speed-up is ~1).
//!
//! `cargo run --release -p weft-backend-cpu --example fastmath_functions`

use std::time::Instant;
use weft_backend_cpu::{compile, Options};
use weft_ir::layout::{ArrayDesc, ARRAY_DESC_SIZE};

/// A kernel `y = f(x)` over 1-D (`simd`) or 2-D `[n, 1]` arrays.
fn source(f: &str, flags: &str, simd: bool) -> String {
    let (ty, index) = if simd {
        ("array1<f32>", "[v2]")
    } else {
        ("array2<f32>", "[v2, v3]")
    };
    format!(
        "kernel @k(v0: {ty}, v1: {ty}) {{
  v2: i32 = thread_id
  v3: i32 = const 0
  v4: f32 = load v0{index}
  v5: f32 = {f} v4 {flags}
  store v1{index}, v5
  return
}}
"
    )
}

/// Median launch times (ms) of `y = f(x)` precise and with `afn`, the two
/// launched alternately.
fn time(f: &str, simd: bool, x: &mut [f32]) -> Result<[f64; 2], Box<dyn std::error::Error>> {
    let n = x.len();
    let mut arts = Vec::new();
    for flags in ["", "fast(afn)"] {
        let m = weft_ir::text::parse_module(&source(f, flags, simd))?;
        arts.push(compile(
            &m,
            &weft_ir::verify::verify_module(&m).expect("verifies"),
            &Options::default(),
        )?);
    }
    let mut y = vec![0.0f32; n];
    let desc = |v: &mut [f32]| ArrayDesc {
        data: v.as_mut_ptr() as *mut u8,
        shape: [n as i32, 1, 1, 1],
        strides: [4, 4, 0, 0],
    };
    let (dx, dy) = (desc(x), desc(&mut y));
    // The argument block: launch dims, then the two descriptors.
    let d = ARRAY_DESC_SIZE as usize;
    let mut block = vec![0u64; (16 + 2 * d).div_ceil(8)];
    let bytes = block.as_mut_ptr() as *mut u8;
    // SAFETY: the writes stay inside `block` (16 + 2 descriptor bytes).
    unsafe {
        std::ptr::copy_nonoverlapping([n as i32, 1, 1, 1].as_ptr() as *const u8, bytes, 16);
        std::ptr::copy_nonoverlapping(&dx as *const ArrayDesc as *const u8, bytes.add(16), d);
        std::ptr::copy_nonoverlapping(&dy as *const ArrayDesc as *const u8, bytes.add(16 + d), d);
    }
    let mut t = [Vec::new(), Vec::new()];
    for _ in 0..9 {
        for (v, art) in arts.iter().enumerate() {
            let k = art.kernel("k").ok_or("no kernel k")?;
            let start = Instant::now();
            // SAFETY: the block matches the kernel's parameters; `x` and
            // `y` outlive the call and hold `n` values.
            unsafe { (k.entry)(block.as_ptr() as *const u8, 0, n as i64) };
            t[v].push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    std::hint::black_box(&y);
    let median = |t: &mut Vec<f64>| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    };
    Ok([median(&mut t[0]), median(&mut t[1])])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n = 1usize << 22;
    let x: Vec<f32> = (0..n).map(|i| -4.0 + 8.0 * i as f32 / n as f32).collect();
    let positive: Vec<f32> = x.iter().map(|v| v.abs() + 0.5).collect();
    println!(
        "{:<8} {:<5} {:>11} {:>9} {:>8}",
        "loop", "f", "precise ms", "afn ms", "speed-up"
    );
    for simd in [true, false] {
        for f in ["sin", "cos", "tan", "exp", "log", "log2"] {
            let mut xs = if f.starts_with("log") {
                positive.clone()
            } else {
                x.clone()
            };
            let [p, q] = time(f, simd, &mut xs)?;
            let name = if simd { "simd" } else { "no simd" };
            println!("{name:<8} {f:<5} {p:>11.2} {q:>9.2} {:>7.2}x", p / q);
        }
    }
    Ok(())
}
