//! SoA parameters (`Function::soa_params`: `array(S, d+1)`, the last axis
//! selecting the plane) take the unit-stride thread loop when their last
//! *user* axis is contiguous, and compute exactly what the AoS kernel does.

mod common;

use common::*;
use weft_backend_cpu::{emit_text, Options};
use weft_ir::ir::{BinaryOp, MemAccess};
use weft_ir::layout::{self, ArrayDesc};
use weft_ir::{ElemType, Module, Scalar, SoaParam, Type};

const N: usize = 13;

fn vec3() -> ElemType {
    ElemType::Vec(3, Scalar::F32)
}

/// `x[i][k] += a * v[i][k]` for each component `k`, then (with `bounce`)
/// `v[i][1] = -v[i][1]` where `x[i][1] < 0`: AoS (`array(vec3, 1)`,
/// component paths) or SoA (`array(f32, 2)`, the component as the plane
/// index).
fn kernel_with(soa: bool, bounce: bool) -> Module {
    let arr_t = if soa {
        arr(ElemType::Scalar(Scalar::F32), 2)
    } else {
        arr(vec3(), 1)
    };
    let mut m = kernel_module(&[("a", Type::F32), ("x", arr_t), ("v", arr_t)], |b, p| {
        let i = b.thread_id();
        let at = |b: &mut weft_ir::FuncBuilder, arr, k: i64| {
            if soa {
                let kc = b.iconst(Scalar::I32, k);
                MemAccess {
                    array: arr,
                    indices: vec![i, kc],
                    path: vec![],
                }
            } else {
                MemAccess {
                    array: arr,
                    indices: vec![i],
                    path: vec![k as u32],
                }
            }
        };
        for k in 0..3 {
            let xa = at(b, p[1], k);
            let va = at(b, p[2], k);
            let x = b.load(xa.clone());
            let v = b.load(va);
            let av = b.binary(BinaryOp::Mul, p[0], v);
            let r = b.binary(BinaryOp::Add, x, av);
            b.store(xa, r);
        }
        if !bounce {
            b.return_(vec![]);
            return;
        }
        let y = at(b, p[1], 1);
        let y = b.load(y);
        let zero = b.fconst(Scalar::F32, 0.0);
        let c = b.binary(BinaryOp::Lt, y, zero);
        let (_, th, el) = b.if_(c, &[]);
        b.switch_to(th);
        let vy = at(b, p[2], 1);
        let v = b.load(vy.clone());
        let minus = b.fconst(Scalar::F32, -1.0);
        let nv = b.binary(BinaryOp::Mul, minus, v);
        b.store(vy, nv);
        b.yield_(vec![]);
        b.switch_to(el);
        b.yield_(vec![]);
        b.switch_to(b.func.body);
        b.return_(vec![]);
    });
    if soa {
        let id = m.func_by_name("k").unwrap();
        let f = &mut m.funcs[id];
        for param in [1, 2] {
            f.soa_params.push(SoaParam {
                param,
                elem: vec3(),
                ndim: 1,
            });
        }
    }
    m
}

fn kernel(soa: bool) -> Module {
    kernel_with(soa, true)
}

/// Initial positions (some below the ground) and velocities, AoS.
fn data() -> (Vec<f32>, Vec<f32>) {
    let x = (0..3 * N).map(|j| (j as f32 * 0.37).sin() * 3.0).collect();
    let v = (0..3 * N).map(|j| (j as f32 * 0.91).cos() * 2.0).collect();
    (x, v)
}

/// `aos` (3 floats per element) as planes of `n` floats, `user_stride`
/// floats apart within a plane, planes `plane` floats apart.
fn to_planes(aos: &[f32], user_stride: usize, plane: usize) -> Vec<f32> {
    let mut out = vec![f32::NAN; 2 * plane + N * user_stride];
    for i in 0..N {
        for k in 0..3 {
            out[k * plane + i * user_stride] = aos[3 * i + k];
        }
    }
    out
}

fn from_planes(p: &[f32], user_stride: usize, plane: usize) -> Vec<f32> {
    (0..3 * N)
        .map(|j| p[(j % 3) * plane + (j / 3) * user_stride])
        .collect()
}

fn soa_desc(buf: &mut [f32], user_stride: usize, plane: usize) -> ArrayDesc {
    ArrayDesc {
        data: buf.as_mut_ptr() as *mut u8,
        shape: [N as i32, 3, 1, 1],
        strides: [4 * user_stride as i64, 4 * plane as i64, 0, 0],
    }
}

/// The byte offset, in the argument block of kernel `k`, of `strides[axis]`
/// of parameter `param`.
fn stride_offset(m: &Module, param: usize, axis: u32) -> u32 {
    let f = &m.funcs[m.func_by_name("k").unwrap()];
    let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
    let al = layout::arg_layout(&types, &m.structs);
    al.offsets[param] + layout::ARRAY_DESC_STRIDES + 8 * axis
}

/// The argument-block offsets of the strides the thread loop compares with
/// an element size (`vS = load.i64 … v0+OFF`, `vK = iconst.i64 SIZE`,
/// `icmp eq vS, vK`), with that size.
fn checked_strides(clif: &str) -> Vec<(u32, i64)> {
    let mut loads = std::collections::HashMap::new();
    let mut consts = std::collections::HashMap::new();
    let mut out = Vec::new();
    for line in clif.lines().map(str::trim) {
        let Some((lhs, rhs)) = line.split_once(" = ") else {
            continue;
        };
        let rhs = rhs.split(" ;").next().unwrap_or(rhs).trim_end();
        if rhs.starts_with("load.i64") {
            if let Some(off) = rhs
                .rsplit_once("v0+")
                .and_then(|(_, o)| o.parse::<u32>().ok())
            {
                loads.insert(lhs.to_string(), off);
            }
        } else if let Some(k) = rhs.strip_prefix("iconst.i64 ") {
            if let Ok(k) = k.parse::<i64>() {
                consts.insert(lhs.to_string(), k);
            }
        } else if let Some(rest) = rhs.strip_prefix("icmp eq ") {
            if let Some((a, b)) = rest.split_once(", ") {
                if let (Some(&off), Some(&k)) = (loads.get(a), consts.get(b)) {
                    out.push((off, k));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn soa_params_test_the_stride_of_their_last_user_axis() {
    let soa = kernel(true);
    let clif = emit_text(
        &soa,
        &weft_ir::verify::verify_module(&soa).expect("verifies"),
        &Options::default(),
    )
    .unwrap();
    let want = vec![
        (stride_offset(&soa, 1, 0), 4),
        (stride_offset(&soa, 2, 0), 4),
    ];
    assert_eq!(checked_strides(&clif), want, "CLIF:\n{clif}");
    // AoS: the last (only) axis against the vec3 size, as before.
    let aos = kernel(false);
    let clif = emit_text(
        &aos,
        &weft_ir::verify::verify_module(&aos).expect("verifies"),
        &Options::default(),
    )
    .unwrap();
    let want = vec![
        (stride_offset(&aos, 1, 0), 12),
        (stride_offset(&aos, 2, 0), 12),
    ];
    assert_eq!(checked_strides(&clif), want, "CLIF:\n{clif}");
}

/// SoA over contiguous planes (the unit-stride version), skewed planes, and
/// planes with a user stride of 2 floats (the general version) give the AoS
/// kernel's results bit for bit, over every sub-range of threads.
#[test]
fn soa_results_equal_aos_in_both_versions() {
    same_results(kernel(false), kernel(true));
}

/// Without the branch the body vectorizes: the SIMD stage loads and stores
/// each plane as `f32x4` (AoS has no SIMD stage: its accesses are not
/// scalar arrays), and gives the same results, SIMD lanes and the scalar
/// rest included.
#[test]
fn branch_free_soa_kernel_has_a_simd_stage() {
    let (aos, soa) = (kernel_with(false, false), kernel_with(true, false));
    let clif = emit_text(
        &soa,
        &weft_ir::verify::verify_module(&soa).expect("verifies"),
        &Options::default(),
    )
    .unwrap();
    assert!(clif.contains("f32x4"), "expected a SIMD stage:\n{clif}");
    let clif = emit_text(
        &aos,
        &weft_ir::verify::verify_module(&aos).expect("verifies"),
        &Options::default(),
    )
    .unwrap();
    assert!(
        !clif.contains("f32x4"),
        "AoS vec3 has no SIMD stage:\n{clif}"
    );
    same_results(aos, soa);
}

/// The SIMD stage steps aside when a stored SoA array overlaps another
/// array at a different base: `x` is `v` shifted by one element (in every
/// plane), so `x[i] += a * v[i]` reads `x[i-1]` as thread `i-1` left it:
/// threads must run in order (vector lanes would read it stale).
#[test]
fn overlapping_soa_arrays_run_threads_in_order() {
    let m = kernel_with(true, false);
    let art = compile_checked(&m);
    let k = art.kernel("k").unwrap();
    let plane = N + 1;
    // v[i][c] at buf[c*plane + i], x[i][c] at buf[c*plane + i + 1].
    let init: Vec<f32> = (0..3 * plane).map(|j| j as f32).collect();
    let mut buf = init.clone();
    let base = buf.as_mut_ptr();
    let vd = soa_desc(&mut buf, 1, plane);
    // SAFETY: one float past the start; N elements per plane stay inside `buf`.
    let xd = ArrayDesc {
        data: unsafe { base.add(1) } as *mut u8,
        ..vd
    };
    let block = pack(
        &m,
        "k",
        [N as i32, 1, 1, 1],
        &[bytes_of(0.5f32), Arg::Array(xd), Arg::Array(vd)],
    );
    // SAFETY: the block matches the kernel; `buf` outlives the call.
    unsafe { (k.entry)(block.ptr(), 0, N as i64) };
    // In order: x[i] += 0.5 * x[i-1], x[i-1] already updated.
    let mut want = init;
    for c in 0..3 {
        for i in 0..N {
            let j = c * plane + i;
            want[j + 1] += 0.5 * want[j];
        }
    }
    assert_eq!(buf, want);
}

/// Runs the AoS and SoA kernels on the same data over every sub-range of
/// threads and SoA placement; asserts bit-identical results.
fn same_results(aos_m: Module, soa_m: Module) {
    let (aos_art, soa_art) = (compile_checked(&aos_m), compile_checked(&soa_m));
    let (ka, ks) = (aos_art.kernel("k").unwrap(), soa_art.kernel("k").unwrap());
    let (x0, v0) = data();
    for start in 0..N {
        for end in start..=N {
            let (mut x, mut v) = (x0.clone(), v0.clone());
            let block = pack(
                &aos_m,
                "k",
                [N as i32, 1, 1, 1],
                &[
                    bytes_of(0.75f32),
                    Arg::Array(desc3(&mut x)),
                    Arg::Array(desc3(&mut v)),
                ],
            );
            // SAFETY: the block matches the kernel; buffers outlive the call.
            unsafe { (ka.entry)(block.ptr(), start as i64, end as i64) };
            for (user_stride, plane) in [(1, N), (1, N + 5), (2, 2 * N + 3)] {
                let mut xs = to_planes(&x0, user_stride, plane);
                let mut vs = to_planes(&v0, user_stride, plane);
                let block = pack(
                    &soa_m,
                    "k",
                    [N as i32, 1, 1, 1],
                    &[
                        bytes_of(0.75f32),
                        Arg::Array(soa_desc(&mut xs, user_stride, plane)),
                        Arg::Array(soa_desc(&mut vs, user_stride, plane)),
                    ],
                );
                // SAFETY: the block matches the kernel; buffers outlive the call.
                unsafe { (ks.entry)(block.ptr(), start as i64, end as i64) };
                let what = format!("range {start}..{end}, stride {user_stride}, plane {plane}");
                let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&from_planes(&xs, user_stride, plane)),
                    bits(&x),
                    "x, {what}"
                );
                assert_eq!(
                    bits(&from_planes(&vs, user_stride, plane)),
                    bits(&v),
                    "v, {what}"
                );
            }
        }
    }
}

/// A 1-D vec3 descriptor over `3 * N` floats.
fn desc3(v: &mut [f32]) -> ArrayDesc {
    ArrayDesc {
        data: v.as_mut_ptr() as *mut u8,
        shape: [(v.len() / 3) as i32, 1, 1, 1],
        strides: [12, 0, 0, 0],
    }
}
