//! Float32 → float64: the same module computing in double precision, for
//! checking gradients against finite differences (`weft gradcheck`).
//!
//! Every `f32` becomes `f64`: value, parameter, return and struct-field
//! types, array elements, `make` types, constants (their values are exact
//! in both) and casts to `f32`. A module that reinterprets `f32` bits (a
//! `bitcast` from or to `f32`) cannot be promoted.

use weft_ir::{ArrayType, ElemType, InstKind, Module, Scalar, Type};

fn scalar(s: Scalar) -> Scalar {
    if s == Scalar::F32 {
        Scalar::F64
    } else {
        s
    }
}

fn elem(e: ElemType) -> ElemType {
    match e {
        ElemType::Scalar(s) => ElemType::Scalar(scalar(s)),
        ElemType::Vec(n, s) => ElemType::Vec(n, scalar(s)),
        ElemType::Mat(r, c, s) => ElemType::Mat(r, c, scalar(s)),
        ElemType::Quat(s) => ElemType::Quat(scalar(s)),
        ElemType::Transform(s) => ElemType::Transform(scalar(s)),
        ElemType::Struct(id) => ElemType::Struct(id),
    }
}

/// `ty` with `f32` made `f64` (structs keep their ids; their fields are
/// promoted in the module's table).
pub fn promote_type(ty: Type) -> Type {
    match ty {
        Type::Scalar(s) => Type::Scalar(scalar(s)),
        Type::Vec(n, s) => Type::Vec(n, scalar(s)),
        Type::Mat(r, c, s) => Type::Mat(r, c, scalar(s)),
        Type::Quat(s) => Type::Quat(scalar(s)),
        Type::Transform(s) => Type::Transform(scalar(s)),
        Type::Struct(id) => Type::Struct(id),
        Type::Array(a) => Type::Array(ArrayType {
            elem: elem(a.elem),
            ndim: a.ndim,
        }),
    }
}

/// The module in double precision; `None` if it reinterprets `f32` bits.
pub fn to_f64(m: &Module) -> Option<Module> {
    for f in m.funcs.values() {
        for d in f.insts.values() {
            if let InstKind::Bitcast(x, to) = d.kind {
                let from = f.values.get(x).map(|v| v.ty);
                if to == Scalar::F32 || from == Some(Type::F32) {
                    return None;
                }
            }
        }
    }
    let mut out = m.clone();
    for d in out.structs.values_mut() {
        for f in &mut d.fields {
            f.ty = promote_type(f.ty);
        }
    }
    for f in out.funcs.values_mut() {
        for p in &mut f.params {
            p.ty = promote_type(p.ty);
        }
        for r in &mut f.returns {
            *r = promote_type(*r);
        }
        for sp in &mut f.soa_params {
            sp.elem = elem(sp.elem);
        }
        for v in f.values.values_mut() {
            v.ty = promote_type(v.ty);
        }
        for d in f.insts.values_mut() {
            match &mut d.kind {
                InstKind::Const(c) => c.ty = scalar(c.ty),
                InstKind::Cast(_, to) => *to = scalar(*to),
                InstKind::Make(ty, _) => *ty = promote_type(*ty),
                _ => {}
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotes_types_constants_and_casts() {
        let m = weft_ir::text::parse_module(
            "struct %S { a: f32, n: i32 }
             kernel @k(v0: array1<vec3<f32>>, v1: array1<%S>, v2: f32) {
               v3: i32 = thread_id
               v4: vec3<f32> = load v0[v3]
               v5: f32 = const 0.5
               v6: f32 = extract v4.0
               v7: f32 = mul v6, v5
               v8: f64 = cast v7
               v9: f32 = cast v8
               store v1[v3].0, v9
               return
             }",
        )
        .unwrap();
        let p = to_f64(&m).expect("promotes");
        weft_ir::verify::verify_module(&p).expect("verifies");
        let text = weft_ir::text::print_module(&p);
        assert!(!text.contains("f32"), "{text}");
        assert!(text.contains("struct %S { a: f64, n: i32 }"), "{text}");
        let bits = weft_ir::text::parse_module(
            "func @f(v0: f32) -> u32 {
               v1: u32 = bitcast v0
               return v1
             }",
        )
        .unwrap();
        assert!(to_f64(&bits).is_none());
    }
}
