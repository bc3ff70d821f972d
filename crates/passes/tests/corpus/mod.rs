//! Running conformance cases (found by `weft_testkit::corpus`:
//! `$WEFT_CONFORMANCE_DIR`, else `shared/conformance` beside an ancestor of
//! the workspace) on the reference interpreter: shared by `conformance.rs`
//! and `soa.rs`.
//!
//! A case's arrays are kept in the C (AoS) layout of their element type
//! between launches. A kernel parameter the `soa` pass lowered
//! ([`weft_ir::Function::soa_params`]) gets its buffer converted to
//! structure of arrays for the launch — one plane per scalar slot, the
//! descriptor's last axis selecting the plane (`shape[d]` = slot count,
//! `strides[d]` = the plane's byte size) as the runtime passes it — and
//! converted back afterwards, so the results compare with an AoS run.
#![allow(dead_code)] // each test binary uses its own subset

use serde_json::Value as Json;
use std::collections::HashMap;
use std::path::Path;
use weft_ir::interp::{run_kernel, ArgValue, InterpOptions};
use weft_ir::{layout, ElemType, Module, Scalar, StructTable, Type};

/// Reads a .npy file (format 1.0, C order): returns its data bytes.
pub fn npy_data(path: &Path) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(format!("{}: not an npy file", path.display()));
    }
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        _ => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
    };
    Ok(bytes[start + hlen..].to_vec())
}

/// Flattens a JSON scalar-argument value to its leaves in path order.
pub fn flatten(
    ty: Type,
    v: &Json,
    structs: &StructTable,
    out: &mut Vec<Json>,
) -> Result<(), String> {
    match (ty, v) {
        (Type::Struct(id), Json::Object(o)) => {
            let def = &structs[id];
            for f in &def.fields {
                let fv = o.get(&f.name).ok_or(format!("missing field {}", f.name))?;
                flatten(f.ty, fv, structs, out)?;
            }
        }
        (Type::Mat(..), Json::Array(rows)) => {
            for r in rows {
                flatten(ty.project(0, structs).unwrap_or(ty), r, structs, out)?;
            }
        }
        (_, Json::Array(xs)) => {
            for x in xs {
                out.push(x.clone());
            }
        }
        (_, x) => out.push(x.clone()),
    }
    Ok(())
}

pub fn encode_scalar(s: Scalar, v: &Json, out: &mut [u8]) -> Result<(), String> {
    let bytes: Vec<u8> = match s {
        Scalar::Bool => vec![v.as_bool().unwrap_or_else(|| v.as_i64().unwrap_or(0) != 0) as u8],
        Scalar::F16 => weft_ir::f16::f64_to_f16(v.as_f64().ok_or("float")?)
            .to_le_bytes()
            .to_vec(),
        Scalar::F32 => (v.as_f64().ok_or("float")? as f32).to_le_bytes().to_vec(),
        Scalar::F64 => v.as_f64().ok_or("float")?.to_le_bytes().to_vec(),
        _ => {
            let i: i128 = match (v.as_i64(), v.as_u64()) {
                (Some(i), _) => i as i128,
                (None, Some(u)) => u as i128,
                _ => return Err(format!("not an integer: {v}")),
            };
            let le = (i as u64).to_le_bytes();
            le[..s.size() as usize].to_vec()
        }
    };
    out[..bytes.len()].copy_from_slice(&bytes);
    Ok(())
}

/// Bytes of a by-value argument of type `ty`.
pub fn scalar_arg(ty: Type, v: &Json, structs: &StructTable) -> Result<Vec<u8>, String> {
    let mut flat = Vec::new();
    flatten(ty, v, structs, &mut flat)?;
    let leaves = layout::leaves(ty, structs);
    if leaves.len() != flat.len() {
        return Err(format!("value {v} does not fit {ty:?}"));
    }
    let mut buf = vec![0u8; layout::size_of(ty, structs) as usize];
    for (leaf, x) in leaves.iter().zip(&flat) {
        encode_scalar(leaf.scalar, x, &mut buf[leaf.offset as usize..])?;
    }
    Ok(buf)
}

/// Converts packed npy element data to the C layout of `elem`.
pub fn repack(data: &[u8], elem: Type, structs: &StructTable) -> Vec<u8> {
    let leaves = layout::leaves(elem, structs);
    let packed: usize = leaves.iter().map(|l| l.scalar.size() as usize).sum();
    let size = layout::size_of(elem, structs) as usize;
    if packed == size || packed == 0 {
        return data.to_vec();
    }
    let n = data.len() / packed;
    let mut out = vec![0u8; n * size];
    for i in 0..n {
        let mut src = i * packed;
        for l in &leaves {
            let w = l.scalar.size() as usize;
            let dst = i * size + l.offset as usize;
            out[dst..dst + w].copy_from_slice(&data[src..src + w]);
            src += w;
        }
    }
    out
}

pub struct Buffer {
    data: Vec<u8>,
    shape: Vec<i32>,
}

/// Runs every launch of a case on `m`; returns the final buffers by name.
pub fn run_case(m: &Module, dir: &Path, case: &Json) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut buffers: HashMap<String, Buffer> = HashMap::new();
    let mut order = Vec::new();
    let single;
    let launches: Vec<&Json> = match case.get("launches").and_then(Json::as_array) {
        Some(ls) => {
            for b in case["buffers"].as_array().ok_or("buffers")? {
                let name = b["name"].as_str().ok_or("buffer name")?.to_string();
                let shape = b["shape"].as_array().ok_or("shape")?;
                let data = npy_data(&dir.join(b["file"].as_str().ok_or("file")?))?;
                let shape = shape
                    .iter()
                    .map(|s| s.as_i64().unwrap_or(0) as i32)
                    .collect();
                order.push(name.clone());
                buffers.insert(name, Buffer { data, shape });
            }
            ls.iter().collect()
        }
        None => {
            single = case.clone();
            vec![&single]
        }
    };
    for launch in launches {
        let kname = launch["kernel"].as_str().ok_or("kernel")?;
        let kid = m
            .func_by_name(kname)
            .ok_or(format!("kernel `{kname}` not in the module"))?;
        let kf = &m.funcs[kid];
        let dim: Vec<i32> = launch["dim"]
            .as_array()
            .ok_or("dim")?
            .iter()
            .map(|d| d.as_i64().unwrap_or(0) as i32)
            .collect();
        let args = launch["args"].as_array().ok_or("args")?;
        if args.len() != kf.params.len() {
            return Err("argument count".into());
        }
        // The user's element type of each SoA param.
        let soa: Vec<Option<ElemType>> = (0..kf.params.len())
            .map(|i| {
                kf.soa_params
                    .iter()
                    .find(|sp| sp.param as usize == i)
                    .map(|sp| sp.elem)
            })
            .collect();
        // Load this launch's own arrays.
        let mut arg_buffers = Vec::new();
        for ((a, p), soa_elem) in args.iter().zip(&kf.params).zip(&soa) {
            if a["kind"] != "array" {
                arg_buffers.push(None);
                continue;
            }
            let name = match a.get("buffer").and_then(Json::as_str) {
                Some(b) => b.to_string(),
                None => {
                    let name = a["name"].as_str().ok_or("name")?.to_string();
                    if !buffers.contains_key(&name) {
                        let Type::Array(at) = p.ty else {
                            return Err(format!("`{name}` is not an array param"));
                        };
                        let raw = npy_data(&dir.join(a["file"].as_str().ok_or("file")?))?;
                        let elem = soa_elem.unwrap_or(at.elem);
                        let data = repack(&raw, Type::from(elem), &m.structs);
                        let shape = a["shape"]
                            .as_array()
                            .ok_or("shape")?
                            .iter()
                            .map(|s| s.as_i64().unwrap_or(0) as i32)
                            .collect();
                        order.push(name.clone());
                        buffers.insert(name.clone(), Buffer { data, shape });
                    }
                    name
                }
            };
            arg_buffers.push(Some(name));
        }
        // Take the buffers out to lend them mutably to the interpreter.
        let mut taken: Vec<Option<(String, Buffer)>> = arg_buffers
            .iter()
            .map(|n| n.as_ref().and_then(|n| buffers.remove_entry(n)))
            .collect();
        // SoA params: their buffers as planes, for this launch.
        let mut planes: Vec<Option<Planes>> = Vec::new();
        for (t, soa_elem) in taken.iter().zip(&soa) {
            planes.push(match (t, soa_elem) {
                (Some((_, buf)), Some(elem)) => Some(to_planes(buf, *elem, &m.structs)?),
                _ => None,
            });
        }
        let mut iargs = Vec::new();
        for (((a, p), t), pl) in args
            .iter()
            .zip(&kf.params)
            .zip(taken.iter_mut())
            .zip(planes.iter_mut())
        {
            match (p.ty, t) {
                (Type::Array(_), Some(_)) if pl.is_some() => {
                    let Some((data, shape, strides)) = pl else {
                        continue;
                    };
                    iargs.push(ArgValue::Array {
                        data: data.as_mut_slice(),
                        shape: *shape,
                        strides: *strides,
                    });
                }
                (Type::Array(at), Some((_, buf))) => {
                    let esize = layout::elem_size(at.elem, &m.structs) as i64;
                    let mut shape = [1i32; 4];
                    let mut strides = [0i64; 4];
                    let nd = buf.shape.len().min(4);
                    shape[..nd].copy_from_slice(&buf.shape[..nd]);
                    let mut s = esize;
                    for ax in (0..nd).rev() {
                        strides[ax] = s;
                        s *= shape[ax] as i64;
                    }
                    iargs.push(ArgValue::Array {
                        data: buf.data.as_mut_slice(),
                        shape,
                        strides,
                    });
                }
                (ty, None) => iargs.push(ArgValue::Value(scalar_arg(ty, &a["value"], &m.structs)?)),
                _ => return Err("array argument used twice in one launch".into()),
            }
        }
        let res = run_kernel(m, kid, &dim, &mut iargs, &InterpOptions::default());
        drop(iargs);
        for ((t, pl), soa_elem) in taken.iter_mut().zip(&planes).zip(&soa) {
            if let (Some((_, buf)), Some((data, _, _)), Some(elem)) = (t, pl, soa_elem) {
                from_planes(buf, data, *elem, &m.structs);
            }
        }
        for (name, buf) in taken.into_iter().flatten() {
            buffers.insert(name, buf);
        }
        res.map_err(|e| format!("interpreter: {e}"))?;
    }
    Ok(order
        .into_iter()
        .filter_map(|n| buffers.remove(&n).map(|b| (n, b.data)))
        .collect())
}

/// SoA planes with their descriptor's shape and byte strides.
type Planes = (Vec<u8>, [i32; 4], [i64; 4]);

/// An AoS buffer of `elem`s as SoA planes, with the descriptor's shape and
/// byte strides: the user's axes (C order over one plane), then the slot
/// axis.
fn to_planes(buf: &Buffer, elem: ElemType, structs: &StructTable) -> Result<Planes, String> {
    let ty = Type::from(elem);
    let leaves = layout::leaves(ty, structs);
    let ssize = leaves
        .first()
        .ok_or("an SoA element without scalars")?
        .scalar
        .size() as usize;
    let esize = layout::size_of(ty, structs) as usize;
    let n = buf.data.len() / esize;
    let nd = buf.shape.len();
    if nd > 3 || n as i64 != buf.shape.iter().map(|&s| s as i64).product::<i64>() {
        return Err(format!(
            "SoA buffer shape {:?} does not fit its data",
            buf.shape
        ));
    }
    let mut data = vec![0u8; n * leaves.len() * ssize];
    for i in 0..n {
        for (k, l) in leaves.iter().enumerate() {
            let src = i * esize + l.offset as usize;
            let dst = (k * n + i) * ssize;
            data[dst..dst + ssize].copy_from_slice(&buf.data[src..src + ssize]);
        }
    }
    let mut shape = [1i32; 4];
    let mut strides = [0i64; 4];
    shape[..nd].copy_from_slice(&buf.shape);
    let mut s = ssize as i64;
    for ax in (0..nd).rev() {
        strides[ax] = s;
        s *= shape[ax] as i64;
    }
    shape[nd] = leaves.len() as i32;
    strides[nd] = (n * ssize) as i64;
    Ok((data, shape, strides))
}

/// Writes SoA planes back into the AoS buffer they were made from.
fn from_planes(buf: &mut Buffer, planes: &[u8], elem: ElemType, structs: &StructTable) {
    let ty = Type::from(elem);
    let leaves = layout::leaves(ty, structs);
    let Some(first) = leaves.first() else {
        return;
    };
    let ssize = first.scalar.size() as usize;
    let esize = layout::size_of(ty, structs) as usize;
    let n = buf.data.len() / esize;
    for i in 0..n {
        for (k, l) in leaves.iter().enumerate() {
            let dst = i * esize + l.offset as usize;
            let src = (k * n + i) * ssize;
            buf.data[dst..dst + ssize].copy_from_slice(&planes[src..src + ssize]);
        }
    }
}

/// Why a run of a case did not reproduce the reference buffers.
#[derive(Debug)]
pub enum RunDiff {
    /// The names of the arrays whose final bytes differ.
    Differ(Vec<String>),
    /// The run failed.
    Run(String),
}

/// Runs a case on `m` ([`run_case`]) and compares the final buffers with
/// `reference` (those of another run of the same case).
pub fn run_and_compare(
    m: &Module,
    dir: &Path,
    case: &Json,
    reference: &[(String, Vec<u8>)],
) -> Result<(), RunDiff> {
    let got = run_case(m, dir, case).map_err(RunDiff::Run)?;
    if got == reference {
        return Ok(());
    }
    Err(RunDiff::Differ(
        reference
            .iter()
            .zip(&got)
            .filter(|(r, g)| r != g)
            .map(|(r, _)| r.0.clone())
            .collect(),
    ))
}
