//! Differential tests of the IR semantics HLSL does not give for free
//! (edge values of division, shifts, casts, rounding, fmod, float→int64
//! casts, 64-bit integers, 8/16-bit stores from neighbouring threads,
//! atomics): the kernels of `tests/semantics.py` run on the reference
//! interpreter and on a Vulkan device, and every output must be bit for bit
//! the same (any NaN matches any NaN). Skips without the tools or a device.

mod vk;

use weft_backend_hlsl::{compile_spirv, emit_hlsl, find_glslang, HlslOptions};
use weft_ir::interp::{run_kernel, ArgValue, InterpOptions};
use weft_ir::layout::{self, ARRAY_DESC_SHAPE, ARRAY_DESC_STRIDES};
use weft_ir::{Module, Scalar, Type};

const N: usize = 64;

/// One array argument: contents, shape, and its element scalar type.
struct Arr {
    shape: Vec<usize>,
    data: Vec<u8>,
}

fn f32s(v: &[f32], n: usize) -> Arr {
    Arr {
        shape: vec![n],
        data: (0..n).flat_map(|i| v[i % v.len()].to_le_bytes()).collect(),
    }
}
fn i32s(v: &[i32], n: usize) -> Arr {
    Arr {
        shape: vec![n],
        data: (0..n).flat_map(|i| v[i % v.len()].to_le_bytes()).collect(),
    }
}
fn i64s(v: &[i64], n: usize) -> Arr {
    Arr {
        shape: vec![n],
        data: (0..n).flat_map(|i| v[i % v.len()].to_le_bytes()).collect(),
    }
}
/// An output array filled with a sentinel byte.
fn out(shape: &[usize], elem: usize) -> Arr {
    Arr {
        shape: shape.to_vec(),
        data: vec![0xa5; shape.iter().product::<usize>() * elem],
    }
}

fn module() -> Module {
    let src = include_str!("semantics.py");
    let mut m = weft_frontend::compile("semantics.py", src).expect("semantics.py compiles");
    weft_passes::run_pipeline(&mut m, &weft_passes::PipelineOptions::default()).expect("passes");
    m
}

fn strides(shape: &[usize], esize: usize) -> [i64; 4] {
    let mut s = [0i64; 4];
    for axis in 0..shape.len() {
        s[axis] = (shape[axis + 1..].iter().product::<usize>() * esize) as i64;
    }
    s
}

fn shape4(shape: &[usize]) -> [i32; 4] {
    let mut s = [1i32; 4];
    for (a, &d) in shape.iter().enumerate() {
        s[a] = d as i32;
    }
    s
}

/// Runs `kernel` over `N` threads on the interpreter and on Vulkan and
/// compares every array. Returns false (after printing why) if skipped.
fn check(vk: &vk::Vk, m: &Module, kernel: &str, arrays: Vec<Arr>) {
    let fid = m.func_by_name(kernel).expect("kernel");
    let f = &m.funcs[fid];
    let elems: Vec<Type> = f
        .params
        .iter()
        .map(|p| match p.ty {
            Type::Array(a) => Type::from(a.elem),
            t => t,
        })
        .collect();
    let esize = |k: usize| layout::size_of(elems[k], &m.structs) as usize;
    // Interpreter.
    let mut want: Vec<Vec<u8>> = arrays.iter().map(|a| a.data.clone()).collect();
    {
        let mut args: Vec<ArgValue> = want
            .iter_mut()
            .zip(&arrays)
            .enumerate()
            .map(|(k, (d, a))| ArgValue::Array {
                data: d.as_mut_slice(),
                shape: shape4(&a.shape),
                strides: strides(&a.shape, esize(k)),
            })
            .collect();
        run_kernel(m, fid, &[N as i32], &mut args, &InterpOptions::default()).expect("interpreter");
    }
    // Vulkan.
    let art = emit_hlsl(m, kernel, &HlslOptions::default()).expect("emit");
    let spv = compile_spirv(&art).expect("glslang");
    let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
    let al = layout::arg_layout(&types, &m.structs);
    let mut block = vec![0u8; al.size as usize];
    block[..16].copy_from_slice(&[N as i32, 1, 1, 1].map(i32::to_le_bytes).concat());
    for (k, a) in arrays.iter().enumerate() {
        let off = al.offsets[k] as usize;
        let sh = shape4(&a.shape);
        let st = strides(&a.shape, esize(k));
        for axis in 0..4 {
            let o = off + ARRAY_DESC_SHAPE as usize + axis * 4;
            block[o..o + 4].copy_from_slice(&sh[axis].to_le_bytes());
            let o = off + ARRAY_DESC_STRIDES as usize + axis * 8;
            block[o..o + 8].copy_from_slice(&st[axis].to_le_bytes());
        }
    }
    let mut got: Vec<Vec<u8>> = arrays
        .iter()
        .map(|a| {
            let mut d = a.data.clone();
            d.resize(d.len().next_multiple_of(4), 0);
            d
        })
        .collect();
    let bindings: Vec<(u32, usize)> = art
        .bindings
        .arrays
        .iter()
        .map(|b| (b.binding, b.param_index))
        .collect();
    let cb = art.bindings.pack_cbuffer(&block, 0).expect("pack");
    let groups = (N as u32).div_ceil(art.group_size);
    vk.run(&spv, &mut got, &bindings, &[cb], &[groups])
        .expect("vulkan");
    let mut errors = Vec::new();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let Some(s) = elems[k].as_scalar() else {
            continue;
        };
        let sz = s.size() as usize;
        let cols = arrays[k].shape.get(1).copied().unwrap_or(1);
        for (idx, (gb, wb)) in g[..w.len()].chunks(sz).zip(w.chunks(sz)).enumerate() {
            let nan = |b: &[u8]| match s {
                Scalar::F32 => f32::from_le_bytes(b.try_into().unwrap()).is_nan(),
                Scalar::F64 => f64::from_le_bytes(b.try_into().unwrap()).is_nan(),
                _ => false,
            };
            if gb != wb && !(nan(gb) && nan(wb)) {
                let input = |a: &Arr, s: Scalar| {
                    let i = idx / cols;
                    let b = &a.data[i * s.size() as usize..(i + 1) * s.size() as usize];
                    format!("{b:02x?}")
                };
                errors.push(format!(
                    "{kernel}: `{}`[{}, {}]: got {gb:02x?}, want {wb:02x?} (input {})",
                    f.params[k].name,
                    idx / cols,
                    idx % cols,
                    input(&arrays[0], elems[0].as_scalar().unwrap_or(Scalar::U8))
                ));
            }
        }
    }
    assert!(
        errors.is_empty(),
        "{} differences:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

fn device() -> Option<vk::Vk> {
    if find_glslang().is_none() {
        println!("SKIP: glslangValidator not found");
        return None;
    }
    match vk::Vk::new() {
        Ok(v) => Some(v),
        Err(e) => {
            println!("SKIP: {e}");
            None
        }
    }
}

const F32: &[f32] = &[
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    0.49999997,
    1e10,
    -1e10,
    3e9,
    -3e9,
    4.3e9,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    123.456,
    -7.25,
    255.9,
    256.0,
    -128.5,
    -129.0,
    65535.5,
    1e-7,
    7.0,
    0.3,
    1e38,
    -3.5,
    5.5,
    1e-30,
    100.0,
    -0.7,
    65520.0,
    3.5,
];
const F32B: &[f32] = &[
    3.0,
    -2.0,
    0.7,
    1e-3,
    f32::INFINITY,
    f32::NAN,
    0.0,
    1.5,
    -0.25,
    1e20,
    7.0,
];

#[test]
fn float32_edges() {
    let Some(vk) = device() else { return };
    let m = module();
    check(
        &vk,
        &m,
        "f32_ops",
        vec![
            f32s(F32, N),
            f32s(F32B, N),
            out(&[N, 11], 4),
            out(&[N, 5], 4),
            out(&[N, 1], 4),
            out(&[N, 1], 1),
            out(&[N, 1], 1),
            out(&[N, 1], 8),
        ],
    );
}

#[test]
fn int32_and_narrow_edges() {
    let Some(vk) = device() else { return };
    let m = module();
    let a = [
        0,
        1,
        -1,
        7,
        -7,
        i32::MAX,
        i32::MIN,
        100,
        -100,
        31,
        32,
        33,
        255,
        256,
        -129,
        65535,
        12345678,
        -98765,
    ];
    let b = [0, 1, -1, 3, -3, 31, 32, 33, 2, i32::MIN, 7, 100, 5, -5];
    check(
        &vk,
        &m,
        "i32_ops",
        vec![
            i32s(&a, N),
            i32s(&b, N),
            out(&[N, 9], 4),
            out(&[N, 4], 4),
            out(&[N, 3], 1),
            out(&[N, 2], 2),
            out(&[N, 2], 4),
        ],
    );
}

#[test]
fn int64_emulation() {
    let Some(vk) = device() else { return };
    let m = module();
    let a = [
        0,
        1,
        -1,
        7,
        -7,
        i64::MAX,
        i64::MIN,
        1 << 40,
        -(1 << 40) + 3,
        123456789012345,
        -987654321098,
        4294967296,
        4294967295,
        63,
        64,
        65,
    ];
    let b = [
        0,
        1,
        -1,
        3,
        -3,
        63,
        64,
        65,
        2,
        i64::MIN,
        4294967296,
        1000003,
        -77,
        5,
    ];
    check(
        &vk,
        &m,
        "i64_ops",
        vec![
            i64s(&a, N),
            i64s(&b, N),
            out(&[N, 12], 8),
            out(&[N, 4], 8),
            out(&[N, 2], 8),
            out(&[N, 4], 4),
        ],
    );
}

#[test]
fn narrow_stores_from_neighbouring_threads() {
    let Some(vk) = device() else { return };
    let m = module();
    let x: Vec<i32> = (0..N as i32).map(|i| i * 37 - 500).collect();
    check(
        &vk,
        &m,
        "small_stores",
        vec![
            i32s(&x, N),
            out(&[N], 1),
            out(&[N], 1),
            out(&[N], 2),
            out(&[N], 2),
            out(&[N], 1),
        ],
    );
}

#[test]
fn atomics_agree() {
    let Some(vk) = device() else { return };
    let m = module();
    let k: Vec<i32> = (0..N as i32).map(|i| (i * 7919) % 201 - 100).collect();
    let x: Vec<f32> = (0..N).map(|i| (i % 13) as f32 - 6.0).collect();
    check(
        &vk,
        &m,
        "atomics",
        vec![
            i32s(&k, N),
            f32s(&x, N),
            f32s(&[0.0], 4),
            i32s(&[i32::MAX], 4),
            i32s(&[i32::MIN], 4),
            f32s(&[1e30], 4),
            f32s(&[-1e30], 4),
            i32s(&[0], 4),
        ],
    );
}
