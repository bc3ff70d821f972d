//! Conversions between the corpus' data formats and runtime values: Warp
//! dtype names, JSON scalar arguments, and npy files ↔ arrays (npy items
//! are packed; runtime memory is C-aligned, so struct elements are repacked
//! leaf by leaf using [`weft::ir::layout`]).

use super::npy::{Npy, NpyDtype, NpyField};
use std::sync::Arc;
use weft::ir::layout::{self, Leaf};
use weft::ir::{ElemType, Scalar, StructTable, Type};
use weft::{Array, Dtype};

/// The element type named `name` as Warp spells it (`float32`, `vec3`,
/// `vec3d`, `mat33`, `quat`, `transform`, `spatial_vector`, ...) or a struct
/// of `structs`.
pub fn warp_dtype(name: &str, structs: &Arc<StructTable>) -> Option<Dtype> {
    if let Some(s) = Scalar::from_warp_name(name) {
        return Some(Dtype::scalar(s));
    }
    let suffix = Scalar::from_warp_suffix;
    let digit = |c: u8| (b'2'..=b'4').contains(&c).then(|| c - b'0');
    let b = name.as_bytes();
    let elem = if let Some(rest) = name.strip_prefix("vec") {
        let n = digit(*b.get(3)?)?;
        ElemType::Vec(n, suffix(&rest[1..])?)
    } else if let Some(rest) = name.strip_prefix("mat") {
        let r = digit(*b.get(3)?)?;
        let c = digit(*b.get(4)?)?;
        ElemType::Mat(r, c, suffix(&rest[2..])?)
    } else if let Some(rest) = name.strip_prefix("quat") {
        ElemType::Quat(suffix(rest)?)
    } else if let Some(rest) = name.strip_prefix("transform") {
        ElemType::Transform(suffix(rest)?)
    } else if let Some(rest) = name.strip_prefix("spatial_vector") {
        ElemType::Vec(6, suffix(rest)?)
    } else if let Some(rest) = name.strip_prefix("spatial_matrix") {
        ElemType::Mat(6, 6, suffix(rest)?)
    } else {
        return Dtype::struct_named(name, structs.clone());
    };
    Some(Dtype::new(elem))
}

/// The npy element shape of a type: `(n,)` for vectors, `(r, c)` for
/// matrices, `(4,)` quat, `(7,)` transform, `()` for scalars and structs.
pub fn elem_shape(ty: Type) -> Vec<usize> {
    match ty {
        Type::Vec(n, _) => vec![n as usize],
        Type::Mat(r, c, _) => vec![r as usize, c as usize],
        Type::Quat(_) => vec![4],
        Type::Transform(_) => vec![7],
        _ => vec![],
    }
}

fn npy_scalar(s: Scalar) -> NpyDtype {
    let kind = match s {
        Scalar::Bool => 'b',
        // Warp stores bfloat16 as its bits; `numpy()` gives them as uint16.
        Scalar::BF16 => 'u',
        s if s.is_float() => 'f',
        s if s.is_signed_int() => 'i',
        _ => 'u',
    };
    NpyDtype::Scalar {
        kind,
        size: s.size() as usize,
    }
}

/// The npy dtype of one array element (structs: a packed structured dtype).
pub fn npy_dtype(ty: Type, structs: &StructTable) -> NpyDtype {
    match ty {
        Type::Struct(id) => NpyDtype::Struct(
            structs
                .get(id)
                .map(|d| {
                    d.fields
                        .iter()
                        .map(|f| NpyField {
                            name: f.name.clone(),
                            dtype: npy_dtype(f.ty, structs),
                            shape: elem_shape(f.ty),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        ),
        t => npy_scalar(t.scalar_of().unwrap_or(Scalar::U8)),
    }
}

/// Leaves of a dtype with their packed (npy) offsets.
fn packed_leaves(dtype: &Dtype) -> Vec<(Leaf, usize)> {
    let mut off = 0;
    dtype
        .leaves()
        .into_iter()
        .map(|l| {
            let o = off;
            off += l.scalar.size() as usize;
            (l, o)
        })
        .collect()
}

/// Checks that an npy file can hold an array of `dtype` and `shape`.
fn check_npy(npy: &Npy, dtype: &Dtype, shape: &[usize]) -> Result<(), String> {
    let mut want_shape = shape.to_vec();
    want_shape.extend(elem_shape(dtype.ty()));
    if npy.shape != want_shape {
        return Err(format!(
            "npy shape {:?}, expected {:?} for {} of shape {:?}",
            npy.shape, want_shape, dtype, shape
        ));
    }
    let per_elem: usize = elem_shape(dtype.ty()).iter().product();
    let mut got = Vec::new();
    for _ in 0..per_elem {
        got.extend(npy.dtype.leaves());
    }
    let want: Vec<_> = dtype
        .leaves()
        .iter()
        .map(|l| match npy_scalar(l.scalar) {
            NpyDtype::Scalar { kind, size } => (kind, size),
            NpyDtype::Struct(_) => ('?', 0),
        })
        .collect();
    if got != want {
        return Err(format!("npy dtype {} does not hold {}", npy.dtype, dtype));
    }
    Ok(())
}

/// An array of `dtype` and `shape` from an npy file's contents.
pub fn array_from_npy(npy: &Npy, dtype: Dtype, shape: &[usize]) -> Result<Array, String> {
    check_npy(npy, &dtype, shape)?;
    let leaves = packed_leaves(&dtype);
    let packed: usize = leaves.iter().map(|(l, _)| l.scalar.size() as usize).sum();
    let esize = dtype.size();
    let n: usize = shape.iter().product();
    let mut bytes = vec![0u8; n * esize];
    for e in 0..n {
        for (l, po) in &leaves {
            let w = l.scalar.size() as usize;
            let src = e * packed + po;
            let dst = e * esize + l.offset as usize;
            bytes[dst..dst + w].copy_from_slice(&npy.data[src..src + w]);
        }
    }
    Array::from_bytes(dtype, &bytes, shape).map_err(|e| e.to_string())
}

/// An array's contents as an npy file (packed items).
pub fn array_to_npy(a: &Array) -> Npy {
    let dtype = a.dtype();
    let leaves = packed_leaves(dtype);
    let packed: usize = leaves.iter().map(|(l, _)| l.scalar.size() as usize).sum();
    let esize = dtype.size();
    let bytes = a.to_bytes();
    let mut data = vec![0u8; a.len() * packed];
    for e in 0..a.len() {
        for (l, po) in &leaves {
            let w = l.scalar.size() as usize;
            let src = e * esize + l.offset as usize;
            let dst = e * packed + po;
            data[dst..dst + w].copy_from_slice(&bytes[src..src + w]);
        }
    }
    let mut shape = a.shape().to_vec();
    shape.extend(elem_shape(dtype.ty()));
    Npy {
        dtype: npy_dtype(dtype.ty(), dtype.structs()),
        shape,
        data,
    }
}

/// The C-layout bytes of a by-value argument of `dtype` from its JSON
/// encoding (numbers, lists of components, lists of rows, objects keyed by
/// struct field name). Floats are parsed as f64 and rounded to the type.
pub fn encode_value(json: &serde_json::Value, dtype: &Dtype) -> Result<Vec<u8>, String> {
    let mut buf = vec![0u8; dtype.size()];
    encode(json, dtype.ty(), dtype.structs(), &mut buf, 0)?;
    Ok(buf)
}

fn encode(
    json: &serde_json::Value,
    ty: Type,
    structs: &StructTable,
    buf: &mut [u8],
    off: usize,
) -> Result<(), String> {
    let name = || crate::type_label(ty, structs);
    match ty {
        Type::Scalar(s) => {
            let b = scalar_bytes(json, s)?;
            buf[off..off + b.len()].copy_from_slice(&b);
            Ok(())
        }
        Type::Struct(id) => {
            let def = structs.get(id).ok_or("dangling struct")?;
            let obj = json
                .as_object()
                .ok_or_else(|| format!("{} value must be an object, got {json}", def.name))?;
            if let Some(k) = obj.keys().find(|k| def.field_index(k).is_none()) {
                return Err(format!("struct {} has no field `{k}`", def.name));
            }
            for (i, f) in def.fields.iter().enumerate() {
                let v = obj
                    .get(&f.name)
                    .ok_or_else(|| format!("missing field `{}` of {}", f.name, def.name))?;
                let (o, t) =
                    layout::component_offset(ty, i as u32, structs).ok_or("bad struct field")?;
                encode(v, t, structs, buf, off + o as usize)?;
            }
            Ok(())
        }
        Type::Array(_) => Err("an array cannot be a scalar argument".into()),
        _ => {
            let items = json
                .as_array()
                .ok_or_else(|| format!("{} value must be a list, got {json}", name()))?;
            let n = ty.arity(structs);
            if items.len() != n as usize {
                return Err(format!(
                    "{} value needs {n} items, got {}",
                    name(),
                    items.len()
                ));
            }
            for (i, v) in items.iter().enumerate() {
                let (o, t) =
                    layout::component_offset(ty, i as u32, structs).ok_or("bad component")?;
                encode(v, t, structs, buf, off + o as usize)?;
            }
            Ok(())
        }
    }
}

fn scalar_bytes(json: &serde_json::Value, s: Scalar) -> Result<Vec<u8>, String> {
    let bad = || format!("{json} is not a {} value", s.warp_name());
    if s == Scalar::Bool {
        return match json {
            serde_json::Value::Bool(b) => Ok(vec![*b as u8]),
            serde_json::Value::Number(n) if n.as_i64().is_some() => {
                Ok(vec![(n.as_i64() != Some(0)) as u8])
            }
            _ => Err(bad()),
        };
    }
    let num = json.as_number().ok_or_else(bad)?;
    if s.is_float() {
        let v = num.as_f64().ok_or_else(bad)?;
        return Ok(match s {
            Scalar::F16 => weft::ir::f16::f64_to_f16(v).to_le_bytes().to_vec(),
            Scalar::BF16 => weft::ir::f16::f64_to_bf16(v).to_le_bytes().to_vec(),
            Scalar::F32 => (v as f32).to_le_bytes().to_vec(),
            _ => v.to_le_bytes().to_vec(),
        });
    }
    let v: i128 = match (num.as_i64(), num.as_u64()) {
        (Some(i), _) => i as i128,
        (None, Some(u)) => u as i128,
        _ => return Err(bad()),
    };
    let bits = s.bits();
    let fits = if s.is_signed_int() {
        v >= -(1i128 << (bits - 1)) && v < (1i128 << (bits - 1))
    } else {
        v >= 0 && v < (1i128 << bits)
    };
    if !fits {
        return Err(format!("{v} does not fit in {}", s.warp_name()));
    }
    Ok(v.to_le_bytes()[..s.size() as usize].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft::ir::{Field, StructDef};

    #[test]
    fn warp_names() {
        let st = Arc::new(StructTable::new());
        let t = |n: &str| warp_dtype(n, &st).map(|d| d.elem());
        assert_eq!(t("float32"), Some(ElemType::Scalar(Scalar::F32)));
        assert_eq!(t("vec3"), Some(ElemType::Vec(3, Scalar::F32)));
        assert_eq!(t("vec3d"), Some(ElemType::Vec(3, Scalar::F64)));
        assert_eq!(t("vec3i"), Some(ElemType::Vec(3, Scalar::I32)));
        assert_eq!(t("mat33d"), Some(ElemType::Mat(3, 3, Scalar::F64)));
        assert_eq!(t("mat44"), Some(ElemType::Mat(4, 4, Scalar::F32)));
        assert_eq!(t("quat"), Some(ElemType::Quat(Scalar::F32)));
        assert_eq!(t("transformd"), Some(ElemType::Transform(Scalar::F64)));
        assert_eq!(t("vec5"), None);
        assert_eq!(t("mat2/"), None);
        assert_eq!(t("vec/"), None);
        assert_eq!(t("Nope"), None);
    }

    fn particle() -> Dtype {
        let mut st = StructTable::new();
        st.push(StructDef {
            name: "P".into(),
            fields: vec![
                Field {
                    name: "flag".into(),
                    ty: Type::Scalar(Scalar::U8),
                },
                Field {
                    name: "pos".into(),
                    ty: Type::Vec(3, Scalar::F32),
                },
                Field {
                    name: "w".into(),
                    ty: Type::F64,
                },
            ],
        });
        Dtype::struct_named("P", Arc::new(st)).unwrap()
    }

    #[test]
    fn struct_npy_repacks_both_ways() {
        let d = particle();
        assert_eq!(d.size(), 24);
        let mut data = Vec::new();
        for e in 0..2u8 {
            data.push(e + 1);
            for k in 0..3 {
                data.extend_from_slice(&(k as f32 + e as f32).to_le_bytes());
            }
            data.extend_from_slice(&(0.5f64 * e as f64).to_le_bytes());
        }
        let npy = Npy {
            dtype: npy_dtype(d.ty(), d.structs()),
            shape: vec![2],
            data,
        };
        assert_eq!(npy.dtype.itemsize(), 21);
        let a = array_from_npy(&npy, d.clone(), &[2]).unwrap();
        let bytes = a.to_bytes();
        assert_eq!(bytes[24], 2);
        assert_eq!(&bytes[24 + 8..24 + 12], &2.0f32.to_le_bytes());
        assert_eq!(&bytes[24 + 16..24 + 24], &0.5f64.to_le_bytes());
        assert_eq!(array_to_npy(&a), npy);
        assert!(array_from_npy(&npy, d, &[3]).is_err());
    }

    #[test]
    fn json_values() {
        let d = particle();
        let v = serde_json::json!({"flag": 1, "pos": [1.0, 2.0, 0.1], "w": 0.1});
        let b = encode_value(&v, &d).unwrap();
        assert_eq!(b[0], 1);
        assert_eq!(&b[12..16], &0.1f32.to_le_bytes());
        assert_eq!(&b[16..24], &0.1f64.to_le_bytes());
        assert!(encode_value(&serde_json::json!({"flag": 1}), &d).is_err());
        let m = Dtype::new(ElemType::Mat(2, 2, Scalar::F32));
        let b = encode_value(&serde_json::json!([[1.0, 2.0], [3.0, 4.0]]), &m).unwrap();
        assert_eq!(&b[8..12], &3.0f32.to_le_bytes());
        let u8d = Dtype::scalar(Scalar::U8);
        assert!(encode_value(&serde_json::json!(256), &u8d).is_err());
        let u64d = Dtype::scalar(Scalar::U64);
        let b = encode_value(&serde_json::json!(u64::MAX), &u64d).unwrap();
        assert_eq!(b, vec![0xff; 8]);
    }
}
