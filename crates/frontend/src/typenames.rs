//! Warp's type names (`wp.vec3`, `wp.mat33d`, `wp.float64`, `float`, ...)
//! and the spelling of types in mangled func names.

use weft_ir::{Scalar, StructTable, Type};

/// The type named `wp.<name>` (scalars, vectors, matrices, quaternions,
/// transforms), if any.
pub(crate) fn wp_type(name: &str) -> Option<Type> {
    if let Some(s) = Scalar::from_warp_name(name) {
        return Some(Type::Scalar(s));
    }
    match name {
        "float" => return Some(Type::F32),
        "int" => return Some(Type::I32),
        _ => {}
    }
    // spatial_vector{,h,f,d}, spatial_matrix{,h,f,d}
    let float_suffix = |s: &str| match s {
        "h" => Some(Scalar::F16),
        "" | "f" => Some(Scalar::F32),
        "d" => Some(Scalar::F64),
        _ => None,
    };
    if let Some(rest) = name.strip_prefix("spatial_vector") {
        return float_suffix(rest).map(|s| Type::Vec(6, s));
    }
    if let Some(rest) = name.strip_prefix("spatial_matrix") {
        return float_suffix(rest).map(|s| Type::Mat(6, 6, s));
    }
    if let Some(rest) = name.strip_prefix("vec") {
        let n = rest.chars().next()?.to_digit(10)?;
        if (2..=4).contains(&n) {
            return Some(Type::Vec(n as u8, Scalar::from_warp_suffix(&rest[1..])?));
        }
        return None;
    }
    if let Some(rest) = name.strip_prefix("mat") {
        let mut it = rest.chars();
        let r = it.next()?.to_digit(10)?;
        let c = it.next()?.to_digit(10)?;
        if (2..=4).contains(&r) && r == c {
            return Some(Type::Mat(
                r as u8,
                c as u8,
                Scalar::from_warp_suffix(&rest[2..])?,
            ));
        }
        return None;
    }
    if let Some(rest) = name.strip_prefix("quat") {
        let s = Scalar::from_warp_suffix(rest)?;
        return s.is_float().then_some(Type::Quat(s));
    }
    if let Some(rest) = name.strip_prefix("transform") {
        let s = Scalar::from_warp_suffix(rest)?;
        return s.is_float().then_some(Type::Transform(s));
    }
    None
}

/// The type named by a bare Python name (`float`, `int`, `bool`).
pub(crate) fn py_type(name: &str) -> Option<Type> {
    match name {
        "float" => Some(Type::F32),
        "int" => Some(Type::I32),
        "bool" => Some(Type::BOOL),
        _ => None,
    }
}

/// `numpy.<name>` scalar types (for constants).
pub(crate) fn np_scalar(name: &str) -> Option<Scalar> {
    Scalar::from_warp_name(name).or(match name {
        "float_" | "double" => Some(Scalar::F64),
        "bool_" => Some(Scalar::Bool),
        "half" => Some(Scalar::F16),
        "single" => Some(Scalar::F32),
        _ => None,
    })
}

/// A short identifier-safe spelling for mangled overload names:
/// `f32`, `vec3f32`, `mat33f64`, `quatf32`, `arr2_f32`, struct names.
pub(crate) fn mangle(ty: Type, structs: &StructTable) -> String {
    match ty {
        Type::Scalar(s) => s.name().to_string(),
        Type::Vec(n, s) => format!("vec{n}{s}"),
        Type::Mat(r, c, s) => format!("mat{r}{c}{s}"),
        Type::Quat(s) => format!("quat{s}"),
        Type::Transform(s) => format!("transform{s}"),
        Type::Struct(id) => structs
            .get(id)
            .map_or_else(|| "struct".to_string(), |d| d.name.clone()),
        Type::Array(a) => format!("arr{}_{}", a.ndim, mangle(Type::from(a.elem), structs)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(wp_type("vec3"), Some(Type::Vec(3, Scalar::F32)));
        assert_eq!(wp_type("vec2i"), Some(Type::Vec(2, Scalar::I32)));
        assert_eq!(wp_type("vec3ui"), Some(Type::Vec(3, Scalar::U32)));
        assert_eq!(wp_type("mat33d"), Some(Type::Mat(3, 3, Scalar::F64)));
        assert_eq!(wp_type("mat44h"), Some(Type::Mat(4, 4, Scalar::F16)));
        assert_eq!(wp_type("quatd"), Some(Type::Quat(Scalar::F64)));
        assert_eq!(wp_type("transform"), Some(Type::Transform(Scalar::F32)));
        assert_eq!(wp_type("float64"), Some(Type::F64));
        assert_eq!(wp_type("uint8"), Some(Type::Scalar(Scalar::U8)));
        assert_eq!(wp_type("vec5"), None);
        assert_eq!(wp_type("quati"), None);
        assert_eq!(wp_type("mat23"), None);
        let t = StructTable::new();
        assert_eq!(mangle(Type::Mat(3, 3, Scalar::F32), &t), "mat33f32");
    }
}
