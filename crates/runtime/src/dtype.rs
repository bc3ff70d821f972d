//! Element and value types as the runtime sees them.
//!
//! A [`Dtype`] is an IR [`ElemType`] together with the struct table its
//! struct ids refer to, so that a value or array built against one module can
//! be checked against a kernel of another: two struct types are the same when
//! they have the same name and the same fields (names and types, recursively),
//! which also makes their C layouts equal.

use std::fmt;
use std::sync::Arc;
use weft_ir::layout;
use weft_ir::{ElemType, Scalar, StructId, StructTable, Type};

/// The type of an array element or of a by-value kernel argument.
#[derive(Clone, Debug)]
pub struct Dtype {
    elem: ElemType,
    structs: Arc<StructTable>,
}

impl Dtype {
    /// A non-struct element type (a struct id would dangle: use
    /// [`Dtype::with_structs`] for structs).
    pub fn new(elem: ElemType) -> Dtype {
        Dtype {
            elem,
            structs: Arc::new(StructTable::new()),
        }
    }
    pub fn scalar(s: Scalar) -> Dtype {
        Dtype::new(ElemType::Scalar(s))
    }
    /// An element type whose struct ids index `structs`.
    pub fn with_structs(elem: ElemType, structs: Arc<StructTable>) -> Dtype {
        Dtype { elem, structs }
    }
    /// The struct named `name` in `structs`, if any.
    pub fn struct_named(name: &str, structs: Arc<StructTable>) -> Option<Dtype> {
        let id = structs
            .iter()
            .find(|(_, d)| d.name == name)
            .map(|(id, _)| id)?;
        Some(Dtype::with_structs(ElemType::Struct(id), structs))
    }
    pub fn elem(&self) -> ElemType {
        self.elem
    }
    pub fn ty(&self) -> Type {
        Type::from(self.elem)
    }
    pub fn structs(&self) -> &Arc<StructTable> {
        &self.structs
    }
    /// Size in bytes of one element (C layout, padding included).
    pub fn size(&self) -> usize {
        layout::elem_size(self.elem, &self.structs) as usize
    }
    pub fn align(&self) -> usize {
        layout::size_align(self.ty(), &self.structs).1 as usize
    }
    /// The scalar leaves of the type, in memory order.
    pub fn leaves(&self) -> Vec<layout::Leaf> {
        layout::leaves(self.ty(), &self.structs)
    }
    /// The one scalar type of an element type that can be laid out
    /// structure of arrays ([`weft_ir::ArrayLayout::Soa`]): an aggregate
    /// (vector, matrix, quaternion, transform or struct) whose scalar
    /// leaves all have that type. `None` for a scalar or a struct mixing
    /// scalar types.
    pub fn soa_scalar(&self) -> Option<Scalar> {
        if matches!(self.elem, ElemType::Scalar(_)) {
            return None;
        }
        let leaves = self.leaves();
        let s = leaves.first()?.scalar;
        leaves.iter().all(|l| l.scalar == s).then_some(s)
    }
    /// Whether two dtypes denote the same type (structs compared by name and
    /// fields, recursively).
    pub fn same_as(&self, other: &Dtype) -> bool {
        same_type(self.ty(), &self.structs, other.ty(), &other.structs)
    }
    /// Whether the two types have the same name but not the same definition
    /// (a struct whose layout differs).
    pub fn same_name_other_layout(&self, other: &Dtype) -> bool {
        type_name(self.ty(), &self.structs) == type_name(other.ty(), &other.structs)
            && !self.same_as(other)
    }
}

impl PartialEq for Dtype {
    fn eq(&self, other: &Dtype) -> bool {
        self.same_as(other)
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&type_name(self.ty(), &self.structs))
    }
}

/// Structural type equality across struct tables.
pub fn same_type(a: Type, sa: &StructTable, b: Type, sb: &StructTable) -> bool {
    match (a, b) {
        (Type::Struct(x), Type::Struct(y)) => same_struct(x, sa, y, sb),
        (Type::Array(x), Type::Array(y)) => {
            x.ndim == y.ndim && same_type(Type::from(x.elem), sa, Type::from(y.elem), sb)
        }
        (Type::Struct(_), _) | (_, Type::Struct(_)) => false,
        _ => a == b,
    }
}

fn same_struct(x: StructId, sa: &StructTable, y: StructId, sb: &StructTable) -> bool {
    let (Some(dx), Some(dy)) = (sa.get(x), sb.get(y)) else {
        return false;
    };
    dx.name == dy.name
        && dx.fields.len() == dy.fields.len()
        && dx
            .fields
            .iter()
            .zip(&dy.fields)
            .all(|(f, g)| f.name == g.name && same_type(f.ty, sa, g.ty, sb))
}

/// A type's name as shown in errors: `f32`, `vec3<f32>`, `mat3x3<f32>`,
/// `array2<vec3<f32>>`, or a struct's name.
pub fn type_name(ty: Type, structs: &StructTable) -> String {
    match ty {
        Type::Struct(id) => structs
            .get(id)
            .map_or_else(|| format!("<struct {}>", id.as_u32()), |d| d.name.clone()),
        Type::Array(a) => format!(
            "array{}<{}>",
            a.ndim,
            type_name(Type::from(a.elem), structs)
        ),
        other => weft_ir::DisplayType(other, structs).to_string(),
    }
}

/// A Rust scalar type that maps to an IR scalar type.
pub trait ScalarElem: Copy + 'static {
    const SCALAR: Scalar;
    /// Appends the little-endian bytes of the value.
    fn put(self, out: &mut Vec<u8>);
    /// Reads a value from exactly `size_of::<Self>()` little-endian bytes.
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! scalar_elem {
    ($($t:ty => $s:ident),* $(,)?) => {$(
        impl ScalarElem for $t {
            const SCALAR: Scalar = Scalar::$s;
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(&bytes[..std::mem::size_of::<$t>()]);
                <$t>::from_le_bytes(b)
            }
        }
    )*};
}

scalar_elem!(i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16,
    u32 => U32, u64 => U64, f32 => F32, f64 => F64);

impl ScalarElem for bool {
    const SCALAR: Scalar = Scalar::Bool;
    fn put(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn get(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

/// A Rust type that can be an array element or a by-value argument:
/// the scalars, `[T; N]` as `vecN` and `[[T; C]; R]` as `matRxC`.
pub trait Element: Copy + 'static {
    fn elem_type() -> ElemType;
    /// Appends the value's bytes in C layout.
    fn put(&self, out: &mut Vec<u8>);
    /// Reads a value from its C-layout bytes.
    fn get(bytes: &[u8]) -> Self;
}

impl<T: ScalarElem> Element for T {
    fn elem_type() -> ElemType {
        ElemType::Scalar(T::SCALAR)
    }
    fn put(&self, out: &mut Vec<u8>) {
        ScalarElem::put(*self, out)
    }
    fn get(bytes: &[u8]) -> Self {
        ScalarElem::get(bytes)
    }
}

impl<T: ScalarElem, const N: usize> Element for [T; N] {
    fn elem_type() -> ElemType {
        ElemType::Vec(N as u8, T::SCALAR)
    }
    fn put(&self, out: &mut Vec<u8>) {
        self.iter().for_each(|x| x.put(out));
    }
    fn get(bytes: &[u8]) -> Self {
        let w = T::SCALAR.size() as usize;
        std::array::from_fn(|i| T::get(&bytes[i * w..]))
    }
}

impl<T: ScalarElem, const R: usize, const C: usize> Element for [[T; C]; R] {
    fn elem_type() -> ElemType {
        ElemType::Mat(R as u8, C as u8, T::SCALAR)
    }
    fn put(&self, out: &mut Vec<u8>) {
        self.iter().flatten().for_each(|x| x.put(out));
    }
    fn get(bytes: &[u8]) -> Self {
        let w = T::SCALAR.size() as usize;
        std::array::from_fn(|r| std::array::from_fn(|c| T::get(&bytes[(r * C + c) * w..])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::{Field, StructDef};

    fn table(fields: Vec<(&str, Type)>) -> (Arc<StructTable>, StructId) {
        let mut st = StructTable::new();
        let id = st.push(StructDef {
            name: "P".into(),
            fields: fields
                .into_iter()
                .map(|(n, ty)| Field { name: n.into(), ty })
                .collect(),
        });
        (Arc::new(st), id)
    }

    #[test]
    fn structs_compare_by_definition() {
        let (a, ia) = table(vec![("x", Type::F32), ("n", Type::I32)]);
        let (b, ib) = table(vec![("x", Type::F32), ("n", Type::I32)]);
        let (c, ic) = table(vec![("x", Type::F64), ("n", Type::I32)]);
        let da = Dtype::with_structs(ElemType::Struct(ia), a);
        let db = Dtype::with_structs(ElemType::Struct(ib), b);
        let dc = Dtype::with_structs(ElemType::Struct(ic), c);
        assert_eq!(da, db);
        assert_ne!(da, dc);
        assert!(da.same_name_other_layout(&dc));
        assert_eq!(dc.size(), 16);
        assert_eq!(da.to_string(), "P");
    }

    #[test]
    fn element_types_and_bytes() {
        assert_eq!(<[f32; 3]>::elem_type(), ElemType::Vec(3, Scalar::F32));
        assert_eq!(
            <[[f64; 2]; 3]>::elem_type(),
            ElemType::Mat(3, 2, Scalar::F64)
        );
        let mut out = Vec::new();
        [[1.0f32, 2.0], [3.0, 4.0]].put(&mut out);
        assert_eq!(<[[f32; 2]; 2]>::get(&out), [[1.0, 2.0], [3.0, 4.0]]);
        assert_eq!(Dtype::new(<[f32; 3]>::elem_type()).to_string(), "vec3<f32>");
    }
}
