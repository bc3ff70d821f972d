//! Every conformance case on llvm-cpu and on the Cranelift backend with the
//! case's own inputs: all buffers must agree bit for bit after the launches.
//! (The Cranelift backend passes the corpus against Warp's outputs; the
//! `weft conform --backend llvm-cpu` runner lives in the root crate.)

mod common;

use serde_json::Value as Json;
use std::collections::HashMap;
use weft_ir::layout::{self, ArrayDesc};
use weft_ir::{Module, Scalar, Type};

/// The raw data of an `.npy` file (after its header).
fn npy_data(bytes: &[u8]) -> &[u8] {
    let (len_at, len_size) = if bytes.get(6) == Some(&1) {
        (8, 2)
    } else {
        (8, 4)
    };
    let mut n = 0usize;
    for i in 0..len_size {
        n |= (bytes[len_at + i] as usize) << (8 * i);
    }
    &bytes[len_at + len_size + n..]
}

/// Repacks packed (numpy structured) elements into the C layout of `ty`.
fn repack(packed: &[u8], ty: Type, m: &Module) -> Vec<u8> {
    let leaves = layout::leaves(ty, &m.structs);
    let psize: usize = leaves.iter().map(|l| l.scalar.size() as usize).sum();
    let csize = layout::size_of(ty, &m.structs) as usize;
    let count = packed.len() / psize.max(1);
    let mut out = vec![0u8; count * csize];
    for e in 0..count {
        let mut p = e * psize;
        for l in &leaves {
            let n = l.scalar.size() as usize;
            let o = e * csize + l.offset as usize;
            out[o..o + n].copy_from_slice(&packed[p..p + n]);
            p += n;
        }
    }
    out
}

fn encode_scalar(s: Scalar, v: &Json) -> Vec<u8> {
    let f = v
        .as_f64()
        .or_else(|| v.as_bool().map(|b| b as u8 as f64))
        .unwrap_or(0.0);
    let i = v.as_i64().unwrap_or(f as i64);
    let bits: u64 = match s {
        Scalar::F16 => weft_ir::f16::f64_to_f16(f) as u64,
        Scalar::F32 => (f as f32).to_bits() as u64,
        Scalar::F64 => f.to_bits(),
        Scalar::Bool => (f != 0.0) as u64,
        _ => i as u64,
    };
    bits.to_le_bytes()[..s.size() as usize].to_vec()
}

fn flat_json<'a>(v: &'a Json, out: &mut Vec<&'a Json>) {
    match v {
        Json::Array(a) => a.iter().for_each(|x| flat_json(x, out)),
        _ => out.push(v),
    }
}

/// Runs every launch of a case on one backend; returns the final buffers.
fn run_case(
    m: &Module,
    case: &Json,
    mut buffers: HashMap<String, Vec<u8>>,
    entry: &dyn Fn(&str) -> weft_backend_llvm::KernelEntry,
) -> HashMap<String, Vec<u8>> {
    let launches: Vec<Json> = match case.get("launches") {
        Some(Json::Array(l)) => l.clone(),
        _ => vec![case.clone()],
    };
    for l in &launches {
        let kname = l["kernel"].as_str().unwrap();
        let f = &m.funcs[m.func_by_name(kname).expect("kernel")];
        let types: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
        let al = layout::arg_layout(&types, &m.structs);
        let mut block = vec![0u64; (al.size as usize).div_ceil(8).max(2)];
        let mut dims = [1i32; 4];
        let mut total = 1i64;
        for (k, d) in l["dim"].as_array().unwrap().iter().enumerate() {
            dims[k] = d.as_i64().unwrap() as i32;
            total *= dims[k] as i64;
        }
        let bytes = block.as_mut_ptr() as *mut u8;
        // SAFETY: every write stays inside `block` (offsets from arg_layout).
        unsafe { std::ptr::copy_nonoverlapping(dims.as_ptr() as *const u8, bytes, 16) };
        let args = l["args"].as_array().unwrap();
        for (k, (a, &ty)) in args.iter().zip(&types).enumerate() {
            let off = al.offsets[k] as usize;
            let raw: Vec<u8> = match ty {
                Type::Array(at) => {
                    let buf = a
                        .get("buffer")
                        .or(a.get("name"))
                        .and_then(|b| b.as_str())
                        .unwrap();
                    let data = buffers.get_mut(buf).expect("buffer");
                    let shape: Vec<i64> = a
                        .get("shape")
                        .or_else(|| {
                            case.get("buffers")?
                                .as_array()?
                                .iter()
                                .find(|b| b["name"] == buf)
                                .and_then(|b| b.get("shape"))
                        })
                        .and_then(|s| s.as_array())
                        .unwrap()
                        .iter()
                        .map(|d| d.as_i64().unwrap())
                        .collect();
                    let es = layout::elem_size(at.elem, &m.structs) as i64;
                    let mut d = ArrayDesc {
                        data: data.as_mut_ptr(),
                        shape: [1; 4],
                        strides: [0; 4],
                    };
                    let mut stride = es;
                    for ax in (0..shape.len()).rev() {
                        d.shape[ax] = shape[ax] as i32;
                        d.strides[ax] = stride;
                        stride *= shape[ax];
                    }
                    // SAFETY: ArrayDesc is plain data of ARRAY_DESC_SIZE bytes.
                    unsafe {
                        std::slice::from_raw_parts(
                            &d as *const ArrayDesc as *const u8,
                            layout::ARRAY_DESC_SIZE as usize,
                        )
                    }
                    .to_vec()
                }
                _ => {
                    let mut vals = Vec::new();
                    flat_json(&a["value"], &mut vals);
                    let leaves = layout::leaves(ty, &m.structs);
                    let mut out = vec![0u8; layout::size_of(ty, &m.structs) as usize];
                    for (leaf, v) in leaves.iter().zip(vals) {
                        let e = encode_scalar(leaf.scalar, v);
                        out[leaf.offset as usize..][..e.len()].copy_from_slice(&e);
                    }
                    out
                }
            };
            // SAFETY: `off + raw.len()` is within the block (arg_layout).
            unsafe { std::ptr::copy_nonoverlapping(raw.as_ptr(), bytes.add(off), raw.len()) };
        }
        let e = entry(kname);
        // SAFETY: the block matches the kernel's params; buffers outlive the call.
        unsafe { e(block.as_ptr() as *const u8, 0, total) };
    }
    buffers
}

#[test]
fn llvm_cpu_agrees_with_cranelift_on_every_conformance_case() {
    agree(true);
}

/// The same with funcs kept as calls (LLVM functions, not inlined by Weft).
#[test]
fn llvm_cpu_agrees_with_cranelift_with_calls_kept() {
    agree(false);
}

fn agree(inline: bool) {
    let Some(cases) = common::cases() else {
        return;
    };
    let mut failures = Vec::new();
    let mut compared = 0usize;
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let case: Json =
            serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
        let src = std::fs::read_to_string(dir.join("kernel.py")).unwrap();
        let m = common::compile_source_with(&dir.join("kernel.py").to_string_lossy(), &src, inline);
        // Buffers: arrays with their initial contents, in C layout.
        let mut buffers = HashMap::new();
        let specs: Vec<Json> = match (case.get("buffers"), case.get("args")) {
            (Some(Json::Array(b)), _) => b.clone(),
            (_, Some(Json::Array(a))) => {
                a.iter().filter(|a| a["kind"] == "array").cloned().collect()
            }
            _ => Vec::new(),
        };
        let first_kernel = case
            .get("kernel")
            .or_else(|| case.get("launches")?.get(0)?.get("kernel"))
            .and_then(|k| k.as_str())
            .unwrap();
        for s in &specs {
            let bname = s["name"].as_str().unwrap().to_string();
            let bytes = std::fs::read(dir.join(s["file"].as_str().unwrap())).unwrap();
            let data = npy_data(&bytes).to_vec();
            let data = if s.get("npy_layout").is_some() {
                // The element type: the first kernel parameter of this name.
                let f = &m.funcs[m.func_by_name(first_kernel).unwrap()];
                let p = f.params.iter().find(|p| p.name == bname).expect("param");
                let Type::Array(at) = p.ty else {
                    panic!("{name}: {bname} is not an array")
                };
                repack(&data, at.elem.into(), &m)
            } else {
                data
            };
            buffers.insert(bname, data);
        }
        let info = weft_ir::verify::verify_module(&m).unwrap();
        let cl =
            weft_backend_cpu::compile(&m, &info, &weft_backend_cpu::Options::default()).unwrap();
        let ll = match common::compile_host(&m, &Default::default()) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let want = run_case(&m, &case, buffers.clone(), &|k| cl.kernel(k).unwrap().entry);
        let got = run_case(&m, &case, buffers, &|k| ll.kernel(k).unwrap().entry);
        // Float atomic sums are order-dependent: the Cranelift backend
        // accumulates sums into one address per thread range (its
        // reductions), LLVM one atomic per thread; compare their buffers
        // within the case's tolerance.
        let order_dependent = float_atomics(&m);
        let tol = |k: &str| case.get(k).and_then(Json::as_f64).unwrap_or(1e-4);
        for (b, w) in &want {
            compared += w.len();
            let dtype = specs
                .iter()
                .find(|s| s["name"] == b.as_str())
                .and_then(|s| s["dtype"].as_str())
                .unwrap_or("");
            if order_dependent && (dtype == "float32" || dtype == "float64") {
                if let Some(at) =
                    differ_beyond(w, &got[b], dtype == "float64", tol("rtol"), tol("atol"))
                {
                    failures.push(format!(
                        "{name}: buffer {b} differs at element {at} beyond the tolerance"
                    ));
                }
                continue;
            }
            if got.get(b) != Some(w) {
                let g = &got[b];
                let at = w.iter().zip(g).position(|(x, y)| x != y).unwrap_or(0);
                failures.push(format!("{name}: buffer {b} differs at byte {at}"));
            }
        }
    }
    println!("{} cases, {compared} buffer bytes compared", cases.len());
    assert!(
        compared > 1_000_000,
        "too little data compared: {compared} bytes"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Whether a kernel of `m` adds or subtracts floats atomically.
fn float_atomics(m: &Module) -> bool {
    m.funcs.iter().any(|(_, f)| {
        f.insts.values().any(|d| match &d.kind {
            weft_ir::InstKind::Atomic(
                weft_ir::ir::AtomicOp::Add | weft_ir::ir::AtomicOp::Sub,
                _,
                v,
            ) => f.value_type(*v).scalar_of().is_some_and(Scalar::is_float),
            _ => false,
        })
    })
}

/// The first element where float buffers `a` and `b` differ by more than
/// `atol + rtol * |a|`.
fn differ_beyond(a: &[u8], b: &[u8], f64s: bool, rtol: f64, atol: f64) -> Option<usize> {
    let vals = |x: &[u8]| -> Vec<f64> {
        if f64s {
            x.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        } else {
            x.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
                .collect()
        }
    };
    let (va, vb) = (vals(a), vals(b));
    if va.len() != vb.len() {
        return Some(0);
    }
    va.iter().zip(&vb).position(|(x, y)| {
        !(x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= atol + rtol * x.abs())
    })
}
