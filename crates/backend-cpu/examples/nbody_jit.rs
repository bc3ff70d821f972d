//! Measures the CPU backend on the seed's N-body kernel: cold compile time
//! of the IR module, and one step on one thread against the same loop
//! written in Rust. `cargo run --release -p weft-backend-cpu --example nbody_jit`

#[path = "../tests/common/nbody.rs"]
mod nbody;

use std::time::Instant;
use weft_backend_cpu::{compile, Options};
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
    let opts = Options::default();
    let mut times = Vec::new();
    for _ in 0..21 {
        let t = Instant::now();
        let art = compile(
            &m,
            &weft_ir::verify::verify_module(&m).expect("verifies"),
            &opts,
        )
        .expect("compile");
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
    let art = compile(
        &m,
        &weft_ir::verify::verify_module(&m).expect("verifies"),
        &opts,
    )
    .expect("compile");
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

    // Interleaved runs, best of each: robust to a busy machine.
    let reps = 9;
    let (mut jit, mut native) = (f64::MAX, f64::MAX);
    let mut sink = 0f32;
    for _ in 0..reps {
        let t = Instant::now();
        // SAFETY: the block matches the kernel; the arrays outlive the call.
        unsafe { (k.entry)(block.as_ptr() as *const u8, 0, n as i64) };
        jit = jit.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for i in 0..n {
            let (p, v) = nbody::nbody_ref(i, &pos, &vel, &mass, dt, grav, eps2);
            sink += p[0] + v[1];
        }
        native = native.min(t.elapsed().as_secs_f64());
    }
    println!(
        "one step, N={n}, one thread, best of {reps}: JIT {:.2} ms, Rust {:.2} ms, ratio {:.2} (sink {sink})",
        jit * 1e3,
        native * 1e3,
        jit / native
    );

    let m = saxpy_module();
    let art = compile(
        &m,
        &weft_ir::verify::verify_module(&m).expect("verifies"),
        &opts,
    )
    .expect("compile");
    let k = art.kernel("saxpy").expect("kernel");
    let n = 1usize << 24;
    let mut x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut y = vec![1f32; n];
    let types: Vec<_> = m.funcs[k.func].params.iter().map(|p| p.ty).collect();
    let al = arg_layout(&types, &m.structs);
    let mut block = vec![0u64; al.size.div_ceil(8) as usize];
    put(&mut block, 0, [n as i32, 1, 1, 1]);
    put(&mut block, al.offsets[0], 2.0f32);
    put(&mut block, al.offsets[1], desc(&mut x));
    put(&mut block, al.offsets[2], desc(&mut y));
    let t = Instant::now();
    for _ in 0..reps {
        // SAFETY: the block matches the kernel; the arrays outlive the call.
        unsafe { (k.entry)(block.as_ptr() as *const u8, 0, n as i64) };
    }
    let jit = t.elapsed().as_secs_f64() / reps as f64;
    let t = Instant::now();
    for _ in 0..reps {
        for (yi, xi) in y.iter_mut().zip(&x) {
            *yi += 2.0 * xi;
        }
        std::hint::black_box(&mut y);
    }
    let native = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "saxpy 2^24, one thread: JIT {:.2} ms, Rust {:.2} ms, ratio {:.2}",
        jit * 1e3,
        native * 1e3,
        jit / native
    );

    // The same on every core, split in equal contiguous ranges.
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let chunk = n.div_ceil(cores);
    let blk = block.as_ptr() as usize;
    let t = Instant::now();
    for _ in 0..reps {
        std::thread::scope(|s| {
            for c in 0..cores {
                s.spawn(move || {
                    let (a, b) = (c * chunk, ((c + 1) * chunk).min(n));
                    // SAFETY: as above; the threads write disjoint ranges.
                    unsafe { (k.entry)(blk as *const u8, a as i64, b as i64) };
                });
            }
        });
    }
    let jit = t.elapsed().as_secs_f64() / reps as f64;
    let t = Instant::now();
    for _ in 0..reps {
        std::thread::scope(|s| {
            for (yc, xc) in y.chunks_mut(chunk).zip(x.chunks(chunk)) {
                s.spawn(move || {
                    for (yi, xi) in yc.iter_mut().zip(xc) {
                        *yi += 2.0 * xi;
                    }
                });
            }
        });
    }
    let native = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "saxpy 2^24, {cores} threads: JIT {:.2} ms, Rust {:.2} ms, ratio {:.2}",
        jit * 1e3,
        native * 1e3,
        jit / native
    );
}

/// saxpy `y[i] = a * x[i] + y[i]`.
fn saxpy_module() -> weft_ir::Module {
    use weft_ir::ir::{BinaryOp, MemAccess};
    use weft_ir::{ArrayType, ElemType, FuncBuilder, FuncKind, Function, Param, Scalar, Type};
    let af = Type::Array(ArrayType {
        elem: ElemType::Scalar(Scalar::F32),
        ndim: 1,
    });
    let mut m = weft_ir::Module::new();
    let ps = [("a", Type::F32), ("x", af), ("y", af)]
        .iter()
        .map(|(n, t)| Param {
            name: n.to_string(),
            ty: *t,
        })
        .collect();
    let mut f = Function::new("saxpy", FuncKind::Kernel, ps, vec![]);
    let p = f.param_values().to_vec();
    {
        let mut b = FuncBuilder::new(&mut f, &m.structs);
        let i = b.thread_id();
        let at = |a| MemAccess {
            array: a,
            indices: vec![i],
            path: vec![],
        };
        let x = b.load(at(p[1]));
        let y = b.load(at(p[2]));
        let ax = b.binary(BinaryOp::Mul, p[0], x);
        let r = b.binary(BinaryOp::Add, ax, y);
        b.store(at(p[2]), r);
        b.return_(vec![]);
    }
    m.funcs.push(f);
    m
}
