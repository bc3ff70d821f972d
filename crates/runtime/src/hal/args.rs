//! Launch arguments as every device sees them: their views, the checks
//! against the kernel's signature, and the packing of the argument block.
//!
//! A launch argument is an [`ArgView`]: an array's type, shape, byte
//! strides and data address (host memory, or a device pointer), or a value.
//! [`check_views`] checks views against a [`KernelSig`] (the rules of the
//! crate docs), [`pack_views`] lays them out as the argument block of
//! [`weft_ir::layout`]. Host arrays and device arrays alike go through
//! these, so a launch is refused with the same error on every device.

#[cfg(test)]
use crate::array::Array;
use crate::array::{Arg, Value};
use crate::dtype::{type_name, Dtype};
use crate::error::LaunchError;
use crate::sig::KernelSig;
use weft_ir::layout::{ARRAY_DESC_SHAPE, ARRAY_DESC_STRIDES};
use weft_ir::types::MAX_DIMS;
use weft_ir::{ArrayLayout, Type};

/// Launch dims padded with 1s, and the thread count.
pub fn check_dim(dim: &[usize]) -> Result<([i32; 4], usize), LaunchError> {
    if dim.is_empty() || dim.len() > MAX_DIMS {
        return Err(LaunchError::DimRank(dim.len()));
    }
    let total = dim
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&t| t <= i32::MAX as usize && dim.iter().all(|&d| d <= i32::MAX as usize))
        .ok_or_else(|| LaunchError::DimTooLarge { dim: dim.to_vec() })?;
    let mut dims = [1i32; 4];
    for (k, &d) in dim.iter().enumerate() {
        dims[k] = d as i32;
    }
    Ok((dims, total))
}

/// A launch argument as checking and packing see it: an array's type,
/// shape, byte strides and data address (host or device), or a value.
#[derive(Copy, Clone, Debug)]
pub enum ArgView<'a> {
    Array {
        dtype: &'a Dtype,
        shape: &'a [usize],
        strides: &'a [i64],
        data: u64,
        /// An SoA array's plane count and plane stride in bytes (the
        /// descriptor's extra last axis); `None` for AoS.
        planes: Option<(usize, i64)>,
    },
    Value(&'a Value),
}

impl<'a> ArgView<'a> {
    pub fn of(a: &'a Arg<'_>) -> ArgView<'a> {
        match a {
            Arg::Array(arr) => arr.meta().view(arr.data_ptr() as usize as u64),
            Arg::Value(v) => ArgView::Value(v),
        }
    }
}

impl ArgView<'_> {
    /// An array's number of axes (0 for a value).
    fn ndim(&self) -> usize {
        match self {
            ArgView::Array { shape, .. } => shape.len(),
            ArgView::Value(_) => 0,
        }
    }
    /// An array's descriptor shape and byte strides as the ABI has them:
    /// unused axes shape 1, stride 0; an SoA array's plane axis after the
    /// user's. All 1s and 0s for a value.
    pub fn abi_shape(&self) -> ([i32; 4], [i64; 4]) {
        let ArgView::Array {
            shape,
            strides,
            planes,
            ..
        } = self
        else {
            return ([1; 4], [0; 4]);
        };
        let (mut shape, mut strides) = abi_shape_of(shape, strides);
        if let Some((k, stride)) = *planes {
            // The plane axis after the user's (at most 3, checked when the
            // array was made SoA).
            let axis = self.ndim().min(3);
            shape[axis] = k as i32;
            strides[axis] = stride;
        }
        (shape, strides)
    }
}

fn describe_arg(a: &ArgView<'_>) -> String {
    match a {
        ArgView::Array {
            dtype,
            shape,
            planes,
            ..
        } => format!(
            "array{}<{}>{}",
            shape.len(),
            dtype,
            if planes.is_some() { " (SoA)" } else { "" }
        ),
        ArgView::Value(v) => format!("a value of type {}", v.dtype()),
    }
}

/// Checks `args` against the signature for a launch over `dims` (padded
/// with 1s); see the crate docs for the rules.
pub fn check_args(sig: &KernelSig, args: &[Arg<'_>], dims: &[usize; 4]) -> Result<(), LaunchError> {
    let views: Vec<_> = args.iter().map(ArgView::of).collect();
    check_views(sig, &views, dims)
}

/// [`check_args`] on argument views (host or device arrays alike).
pub fn check_views(
    sig: &KernelSig,
    args: &[ArgView<'_>],
    dims: &[usize; 4],
) -> Result<(), LaunchError> {
    let threads: usize = dims.iter().product();
    if args.len() > sig.params.len() {
        return Err(LaunchError::ExtraArgs {
            kernel: sig.name.clone(),
            last_param: sig
                .params
                .last()
                .map_or("(none)".into(), |p| p.name.clone()),
            expected: sig.params.len(),
            got: args.len(),
        });
    }
    for (i, p) in sig.params.iter().enumerate() {
        let Some(a) = args.get(i) else {
            return Err(LaunchError::MissingArg {
                kernel: sig.name.clone(),
                param: p.name.clone(),
                expected: sig.params.len(),
                got: args.len(),
            });
        };
        let expected = || type_name(p.ty, &sig.structs);
        let (want, got) = match (p.ty, a) {
            (Type::Array(at), ArgView::Array { dtype, shape, .. }) => {
                let want = Dtype::with_structs(at.elem, sig.structs.clone());
                if want.same_as(dtype) && shape.len() != at.ndim as usize {
                    return Err(LaunchError::ArgNdim {
                        param: p.name.clone(),
                        expected: at.ndim as usize,
                        got: shape.len(),
                        got_type: describe_arg(a),
                    });
                }
                if let ArgView::Array { planes, .. } = a {
                    let kernel = sig.param_layout(i);
                    let array = if planes.is_some() {
                        ArrayLayout::Soa
                    } else {
                        ArrayLayout::Aos
                    };
                    if want.same_as(dtype) && kernel != array {
                        return Err(LaunchError::ArgLayout {
                            param: p.name.clone(),
                            kernel,
                            array,
                        });
                    }
                }
                (want, *dtype)
            }
            (Type::Array(_), ArgView::Value(_)) => {
                return Err(LaunchError::ArgKind {
                    param: p.name.clone(),
                    expected: format!("an array {}", expected()),
                    got: describe_arg(a),
                })
            }
            (ty, ArgView::Array { .. }) => {
                return Err(LaunchError::ArgKind {
                    param: p.name.clone(),
                    expected: format!("a value of type {}", type_name(ty, &sig.structs)),
                    got: describe_arg(a),
                })
            }
            (ty, ArgView::Value(v)) => {
                let elem = ty
                    .as_elem()
                    .unwrap_or(weft_ir::ElemType::Scalar(weft_ir::Scalar::Bool));
                (Dtype::with_structs(elem, sig.structs.clone()), v.dtype())
            }
        };
        if !want.same_as(got) {
            if want.same_name_other_layout(got) {
                return Err(LaunchError::StructLayout {
                    param: p.name.clone(),
                    name: want.to_string(),
                    detail: format!(
                        "kernel: {}, argument: {}",
                        struct_fields(&want),
                        struct_fields(got)
                    ),
                });
            }
            let got = match a {
                ArgView::Array { shape, .. } => format!("array{}<{}>", shape.len(), got),
                ArgView::Value(_) => got.to_string(),
            };
            return Err(LaunchError::ArgType {
                param: p.name.clone(),
                expected: expected(),
                got,
            });
        }
    }
    for rule in &sig.length_rules {
        if let Some(ArgView::Array { shape, .. }) = args.get(rule.param) {
            let len = shape.get(rule.axis as usize).copied().unwrap_or(1);
            let required = rule.range.size(dims);
            if threads > 0 && len < required {
                return Err(LaunchError::ArrayTooShort {
                    param: sig.params[rule.param].name.clone(),
                    axis: rule.axis as usize,
                    len,
                    required,
                });
            }
        }
    }
    Ok(())
}

fn struct_fields(d: &Dtype) -> String {
    match d.ty() {
        Type::Struct(id) => match d.structs().get(id) {
            Some(def) => {
                let fs: Vec<_> = def
                    .fields
                    .iter()
                    .map(|f| format!("{}: {}", f.name, type_name(f.ty, d.structs())))
                    .collect();
                format!("{{{}}}", fs.join(", "))
            }
            None => d.to_string(),
        },
        _ => d.to_string(),
    }
}

/// A 16-byte aligned argument block.
#[derive(Copy, Clone, Default)]
#[repr(C, align(16))]
pub struct Block([u8; 16]);

/// Packs the argument block: launch bounds, then each parameter at its
/// offset (arrays as `ArrayDesc`, whose `data` is the view's address: a
/// device pointer for a device array).
pub fn pack_views(sig: &KernelSig, dims: &[i32; 4], args: &[ArgView<'_>]) -> Vec<Block> {
    let bytes = pack_bytes(sig, dims, args);
    let mut block = vec![Block::default(); bytes.len().div_ceil(16)];
    for (dst, src) in block.iter_mut().zip(bytes.chunks(16)) {
        dst.0[..src.len()].copy_from_slice(src);
    }
    block
}

/// Writes `v` at byte `at` of a packed block (a descriptor's `data`).
pub fn write_u64(block: &mut [Block], at: usize, v: u64) {
    for (k, byte) in v.to_le_bytes().into_iter().enumerate() {
        let i = at + k;
        block[i / 16].0[i % 16] = byte;
    }
}

/// [`pack_views`] as plain bytes (`sig.layout.size` of them).
pub fn pack_bytes(sig: &KernelSig, dims: &[i32; 4], args: &[ArgView<'_>]) -> Vec<u8> {
    let mut bytes = vec![0u8; sig.layout.size as usize];
    for (k, d) in dims.iter().enumerate() {
        bytes[k * 4..k * 4 + 4].copy_from_slice(&d.to_le_bytes());
    }
    for (a, &off) in args.iter().zip(&sig.layout.offsets) {
        let off = off as usize;
        match a {
            ArgView::Array { data, .. } => {
                let (shape, strides) = a.abi_shape();
                bytes[off..off + 8].copy_from_slice(&data.to_le_bytes());
                for k in 0..4 {
                    let s = off + ARRAY_DESC_SHAPE as usize + 4 * k;
                    bytes[s..s + 4].copy_from_slice(&shape[k].to_le_bytes());
                    let s = off + ARRAY_DESC_STRIDES as usize + 8 * k;
                    bytes[s..s + 8].copy_from_slice(&strides[k].to_le_bytes());
                }
            }
            ArgView::Value(v) => bytes[off..off + v.bytes().len()].copy_from_slice(v.bytes()),
        }
    }
    bytes
}

/// The descriptor's shape and strides of a host array as the ABI has them
/// (an SoA array's plane axis included): unused axes shape 1, stride 0.
#[cfg(test)]
fn abi_shape(arr: &Array) -> ([i32; 4], [i64; 4]) {
    let (shape, strides) = arr.desc_shape_strides();
    abi_shape_of(&shape, &strides)
}

fn abi_shape_of(shape_in: &[usize], strides_in: &[i64]) -> ([i32; 4], [i64; 4]) {
    let mut shape = [1i32; 4];
    let mut strides = [0i64; 4];
    for (k, (&n, &s)) in shape_in.iter().zip(strides_in).enumerate() {
        shape[k] = n as i32;
        strides[k] = s;
    }
    (shape, strides)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::storage_of;
    use std::sync::Arc;
    use weft_ir::types::ArrayType;
    use weft_ir::{ElemType, FuncId, KernelInfo, Param, Scalar, SoaParam, StructTable};

    /// The signature of kernel `name` with `params` (as the user sees them)
    /// taking `lowered` types, `soa` of them SoA.
    fn sig(name: &str, params: Vec<Param>, lowered: &[Type], soa: Vec<SoaParam>) -> KernelSig {
        let structs = Arc::new(StructTable::new());
        let info = KernelInfo {
            func: FuncId::from_u32(0),
            name: name.into(),
            params,
            layout: weft_ir::layout::arg_layout(lowered, &structs),
            length_rules: vec![],
            soa_params: soa,
            has_traps: false,
            calls: false,
            determinism: weft_ir::Determinism::Free,
        };
        KernelSig::new(info, structs)
    }

    fn f32_array(ndim: u8) -> Type {
        Type::Array(ArrayType {
            elem: ElemType::Scalar(Scalar::F32),
            ndim,
        })
    }

    /// `k(p: array2<vec3>)` with `p` lowered to SoA: `array3<f32>`.
    fn soa_sig() -> KernelSig {
        let user = Type::Array(ArrayType {
            elem: ElemType::Vec(3, Scalar::F32),
            ndim: 2,
        });
        let soa = SoaParam {
            param: 0,
            elem: ElemType::Vec(3, Scalar::F32),
            ndim: 2,
        };
        let p = Param {
            name: "p".into(),
            ty: user,
        };
        sig("k", vec![p], &[f32_array(3)], vec![soa])
    }

    /// `saxpy(x: array(float), y: array2d(float), a: float)`.
    fn saxpy_sig() -> KernelSig {
        let param = |name: &str, ty| Param {
            name: name.into(),
            ty,
        };
        let params = vec![
            param("x", f32_array(1)),
            param("y", f32_array(2)),
            param("a", Type::F32),
        ];
        let types: Vec<_> = params.iter().map(|p| p.ty).collect();
        sig("saxpy", params, &types, vec![])
    }

    #[test]
    fn an_soa_array_packs_its_plane_axis() {
        let sig = soa_sig();
        let d = Dtype::new(ElemType::Vec(3, Scalar::F32));
        let a = Array::zeros_with_layout(d.clone(), &[4, 5], ArrayLayout::Soa).unwrap();
        let args = [Arg::array(&a)];
        check_args(&sig, &args, &[20, 1, 1, 1]).unwrap();
        let views: Vec<_> = args.iter().map(ArgView::of).collect();
        let bytes = pack_bytes(&sig, &[20, 1, 1, 1], &views);
        let off = sig.layout.offsets[0] as usize;
        let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let i64_at = |o: usize| i64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let shape: Vec<_> = (0..4).map(|k| i32_at(off + 8 + 4 * k)).collect();
        let strides: Vec<_> = (0..4).map(|k| i64_at(off + 24 + 8 * k)).collect();
        // 20 scalars per plane (80 bytes, under the skew threshold).
        assert_eq!(shape, [4, 5, 3, 1]);
        assert_eq!(strides, [20, 4, 80, 0]);
        assert_eq!(abi_shape(&a), ([4, 5, 3, 1], [20, 4, 80, 0]));
        // The AoS array is refused, naming the parameter.
        let aos = Array::zeros(d, &[4, 5]).unwrap();
        let e = check_args(&sig, &[Arg::array(&aos)], &[20, 1, 1, 1]).unwrap_err();
        assert_eq!(e.param(), Some("p"));
        assert!(matches!(e, LaunchError::ArgLayout { .. }), "{e}");
    }

    #[test]
    fn device_arrays_pack_device_pointers() {
        let sig = saxpy_sig();
        let f32t = Dtype::scalar(Scalar::F32);
        let (s1, _) = storage_of(&f32t, &[8], ArrayLayout::Aos).unwrap();
        let (s2, _) = storage_of(&f32t, &[2, 4], ArrayLayout::Aos).unwrap();
        assert_eq!(s2, vec![16, 4]);
        let a = Value::new(3.0f32);
        let views = [
            ArgView::Array {
                dtype: &f32t,
                shape: &[8],
                strides: &s1,
                data: 0x7f00_0000_1000,
                planes: None,
            },
            ArgView::Array {
                dtype: &f32t,
                shape: &[2, 4],
                strides: &s2,
                data: 0x7f00_0000_2000,
                planes: None,
            },
            ArgView::Value(&a),
        ];
        let dims = [8, 1, 1, 1];
        check_views(&sig, &views, &[8, 1, 1, 1]).unwrap();
        let bytes = pack_bytes(&sig, &dims, &views);
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let off = &sig.layout.offsets;
        assert_eq!(i32_at(0), 8);
        assert_eq!(u64_at(off[0] as usize), 0x7f00_0000_1000);
        assert_eq!(u64_at(off[1] as usize), 0x7f00_0000_2000);
        // y's shape [2, 4, 1, 1] and strides [16, 4, 0, 0].
        let y = off[1] as usize;
        assert_eq!([i32_at(y + 8), i32_at(y + 12), i32_at(y + 16)], [2, 4, 1]);
        assert_eq!([u64_at(y + 24), u64_at(y + 32), u64_at(y + 40)], [16, 4, 0]);
        assert_eq!(
            &bytes[off[2] as usize..off[2] as usize + 4],
            &3.0f32.to_le_bytes()
        );
        assert_eq!(bytes.len(), sig.layout.size as usize);
        let blocks = pack_views(&sig, &dims, &views);
        assert_eq!(
            std::mem::size_of_val(&blocks[..]),
            bytes.len().next_multiple_of(16)
        );
    }

    #[test]
    fn device_arrays_are_checked_like_host_arrays() {
        let sig = saxpy_sig();
        let f64t = Dtype::scalar(Scalar::F64);
        let f32t = Dtype::scalar(Scalar::F32);
        let (s, _) = storage_of(&f64t, &[8], ArrayLayout::Aos).unwrap();
        let a = Value::new(3.0f32);
        let host_x = Array::zeros(f64t.clone(), &[8]).unwrap();
        let host_y = Array::zeros(f32t.clone(), &[2, 4]).unwrap();
        let host = [
            Arg::array(&host_x),
            Arg::array(&host_y),
            Arg::value(a.clone()),
        ];
        let host_err = check_args(&sig, &host, &[8, 1, 1, 1]).unwrap_err();
        let (s2, _) = storage_of(&f32t, &[2, 4], ArrayLayout::Aos).unwrap();
        let dev = [
            ArgView::Array {
                dtype: &f64t,
                shape: &[8],
                strides: &s,
                data: 1 << 40,
                planes: None,
            },
            ArgView::Array {
                dtype: &f32t,
                shape: &[2, 4],
                strides: &s2,
                data: 2 << 40,
                planes: None,
            },
            ArgView::Value(&a),
        ];
        let dev_err = check_views(&sig, &dev, &[8, 1, 1, 1]).unwrap_err();
        assert_eq!(dev_err.to_string(), host_err.to_string());
        assert_eq!(dev_err.param(), Some("x"));
        let (s1, _) = storage_of(&f32t, &[8], ArrayLayout::Aos).unwrap();
        let two = [
            ArgView::Array {
                dtype: &f32t,
                shape: &[8],
                strides: &s1,
                data: 1 << 40,
                planes: None,
            },
            dev[1],
        ];
        let err = check_views(&sig, &two, &[8, 1, 1, 1]).unwrap_err();
        assert!(
            err.to_string()
                .contains("missing argument for parameter `a`"),
            "{err}"
        );
        assert!(storage_of(&f32t, &[], ArrayLayout::Aos).is_err());
        assert!(storage_of(&f32t, &[1 << 31], ArrayLayout::Aos).is_err());
    }
}
