//! Measures the CPU backend on the seed's N-body kernel: cold compile time
//! of the IR module, and one step on one thread against the same loop
//! written in Rust. `cargo run --release -p weft-backend-cpu --example nbody_jit`

#[path = "../tests/common/nbody.rs"]
mod nbody;

use std::time::Instant;
use weft_backend_cpu::{compile, CpuOptions};
use weft_ir::layout::{arg_layout, ArrayDesc};

fn desc<T>(v: &mut [T]) -> ArrayDesc {
    ArrayDesc {
        data: v.as_mut_ptr() as *mut u8,
        shape: [v.len() as i32, 1, 1, 1],
        strides: [std::mem::size_of::<T>() as i64, 0, 0, 0],
    }
}

fn put<T: Copy>(buf: &mut [u64], off: u32, v: T) {
    assert!(off as usize + std::mem::size_of::<T>() <= buf.len() * 8);
    // SAFETY: bounds checked above; unaligned write of plain data.
    unsafe {
        std::ptr::write_unaligned((buf.as_mut_ptr() as *mut u8).add(off as usize) as *mut T, v)
    };
}

fn main() {
    let m = nbody::nbody_module();
    let opts = CpuOptions::default();
    let mut times = Vec::new();
    for _ in 0..21 {
        let t = Instant::now();
        let art = compile(&m, &opts).expect("compile");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        drop(art);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "compile (IR -> JIT): median {:.2} ms",
        times[times.len() / 2]
    );

    let n = 4096usize;
    let mut pos: Vec<[f32; 3]> = (0..n)
        .map(|i| [(i as f32 * 0.37).sin(), (i as f32 * 0.11).cos(), 0.0])
        .collect();
    let mut vel = vec![[0f32; 3]; n];
    let mut mass = vec![1f32; n];
    let mut np = vec![[0f32; 3]; n];
    let mut nv = vec![[0f32; 3]; n];
    let (dt, grav, eps2) = (0.01f32, 1.0f32, 0.01f32);
    let art = compile(&m, &opts).expect("compile");
    let k = art.kernel("nbody_step").expect("kernel");
    let f = &m.funcs[k.func];
    let types: Vec<_> = f.params.iter().map(|p| p.ty).collect();
    let al = arg_layout(&types, &m.structs);
    let mut block = vec![0u64; al.size.div_ceil(8) as usize];
    put(&mut block, 0, [n as i32, 1, 1, 1]);
    put(&mut block, al.offsets[0], desc(&mut pos));
    put(&mut block, al.offsets[1], desc(&mut vel));
    put(&mut block, al.offsets[2], desc(&mut mass));
    put(&mut block, al.offsets[3], desc(&mut np));
    put(&mut block, al.offsets[4], desc(&mut nv));
    put(&mut block, al.offsets[5], n as i32);
    put(&mut block, al.offsets[6], dt);
    put(&mut block, al.offsets[7], grav);
    put(&mut block, al.offsets[8], eps2);

    let reps = 5;
    let t = Instant::now();
    for _ in 0..reps {
        // SAFETY: the block matches the kernel; the arrays outlive the call.
        unsafe { (k.entry)(block.as_ptr() as *const u8, 0, n as i64) };
    }
    let jit = t.elapsed().as_secs_f64() / reps as f64;
    let t = Instant::now();
    let mut sink = 0f32;
    for _ in 0..reps {
        for i in 0..n {
            let (p, v) = nbody::nbody_ref(i, &pos, &vel, &mass, dt, grav, eps2);
            sink += p[0] + v[1];
        }
    }
    let native = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "one step, N={n}, one thread: JIT {:.2} ms, Rust {:.2} ms, ratio {:.2} (sink {sink})",
        jit * 1e3,
        native * 1e3,
        jit / native
    );
}
