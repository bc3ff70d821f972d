//! The type system of the IR.
//!
//! Every SSA value has a [`Type`]. Types are small `Copy` values; the only
//! type that refers to module state is [`Type::Struct`], whose definition lives
//! in [`Module::structs`](crate::Module::structs).
//!
//! Aggregates (vectors, matrices, quaternions, transforms, structs) are values
//! like scalars. Their components are addressed by a *path*: a list of small
//! indices that walks the type tree (see [`Type::project`]).
//!
//! Memory layout (see [`crate::layout`]) is C layout: a vector/matrix/quat/
//! transform is a packed run of its scalars (row-major for matrices), a struct
//! places each field at its natural alignment and pads to its largest
//! alignment — the same layout Warp uses, so arrays of structs match Warp's.

use crate::StructId;
use std::fmt;

/// A scalar type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
    /// bfloat16 (Warp's `wp.bfloat16`): 8 exponent bits, 7 mantissa bits;
    /// arithmetic is done in `f32` and rounded to nearest even.
    BF16,
}

impl Scalar {
    pub const ALL: [Scalar; 13] = [
        Scalar::Bool,
        Scalar::I8,
        Scalar::I16,
        Scalar::I32,
        Scalar::I64,
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::U64,
        Scalar::F16,
        Scalar::F32,
        Scalar::F64,
        Scalar::BF16,
    ];

    /// Size in bytes in memory (bool is one byte).
    pub fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 | Scalar::F16 | Scalar::BF16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }
    /// Width in bits of the value (bool is 1).
    pub fn bits(self) -> u32 {
        if self == Scalar::Bool {
            1
        } else {
            self.size() * 8
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::F32 | Scalar::F64 | Scalar::BF16)
    }
    /// True for the integer types (not bool).
    pub fn is_int(self) -> bool {
        !self.is_float() && self != Scalar::Bool
    }
    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }
    pub fn is_unsigned_int(self) -> bool {
        matches!(self, Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64)
    }
    /// The IR text name: `bool`, `i32`, `u8`, `f32`, ...
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::F16 => "f16",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::BF16 => "bf16",
        }
    }
    pub fn from_name(s: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|t| t.name() == s)
    }
    /// Warp's spelling: `bool`, `int32`, `uint8`, `float32`, ...
    pub fn warp_name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "int8",
            Scalar::I16 => "int16",
            Scalar::I32 => "int32",
            Scalar::I64 => "int64",
            Scalar::U8 => "uint8",
            Scalar::U16 => "uint16",
            Scalar::U32 => "uint32",
            Scalar::U64 => "uint64",
            Scalar::F16 => "float16",
            Scalar::F32 => "float32",
            Scalar::F64 => "float64",
            Scalar::BF16 => "bfloat16",
        }
    }
    pub fn from_warp_name(s: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|t| t.warp_name() == s)
    }
    /// The scalar named by the suffix of a Warp vector, matrix, quaternion
    /// or transform type name (`vec3d` → `d`): `""` and `f` are `f32`,
    /// `d` `f64`, `h` `f16`, `b`/`ub` `i8`/`u8`, `s`/`us` 16-bit, `i`/`ui`
    /// 32-bit, `l`/`ul` 64-bit integers.
    pub fn from_warp_suffix(suffix: &str) -> Option<Scalar> {
        Some(match suffix {
            "" | "f" => Scalar::F32,
            "d" => Scalar::F64,
            "h" => Scalar::F16,
            "b" => Scalar::I8,
            "ub" => Scalar::U8,
            "s" => Scalar::I16,
            "us" => Scalar::U16,
            "i" => Scalar::I32,
            "ui" => Scalar::U32,
            "l" => Scalar::I64,
            "ul" => Scalar::U64,
            _ => return None,
        })
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The element type of an array: any type but an array.
///
/// Kept separate from [`Type`] so that `Type` stays `Copy` and non-recursive.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ElemType {
    Scalar(Scalar),
    Vec(u8, Scalar),
    Mat(u8, u8, Scalar),
    Quat(Scalar),
    Transform(Scalar),
    Struct(StructId),
}

/// The type of an SSA value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    Scalar(Scalar),
    /// `vecN` of a scalar type, N in 1..=16 (Warp has vec2/3/4 and generic lengths).
    Vec(u8, Scalar),
    /// `matRC`: R rows, C columns. Components are addressed row, then column.
    Mat(u8, u8, Scalar),
    /// Quaternion (x, y, z, w), w the real part.
    Quat(Scalar),
    /// Rigid transform: 7 components p.x p.y p.z q.x q.y q.z q.w.
    Transform(Scalar),
    Struct(StructId),
    /// A handle to an array in memory: data pointer, shape and strides.
    Array(ArrayType),
}

/// An array handle type: element type and dimensionality (1..=4).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct ArrayType {
    pub elem: ElemType,
    pub ndim: u8,
}

/// Maximum array dimensionality (and launch dimensionality).
pub const MAX_DIMS: usize = 4;

impl Type {
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);
    pub const I32: Type = Type::Scalar(Scalar::I32);
    pub const I64: Type = Type::Scalar(Scalar::I64);
    pub const U32: Type = Type::Scalar(Scalar::U32);
    pub const F32: Type = Type::Scalar(Scalar::F32);
    pub const F64: Type = Type::Scalar(Scalar::F64);

    pub fn as_scalar(self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(s),
            _ => None,
        }
    }
    pub fn is_scalar(self) -> bool {
        matches!(self, Type::Scalar(_))
    }
    pub fn is_array(self) -> bool {
        matches!(self, Type::Array(_))
    }
    /// Vectors, matrices, quaternions, transforms and structs.
    pub fn is_aggregate(self) -> bool {
        !self.is_scalar() && !self.is_array()
    }
    /// The scalar type of the components of a vector/matrix/quat/transform,
    /// or the type itself for a scalar.
    pub fn scalar_of(self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) | Type::Vec(_, s) | Type::Mat(_, _, s) | Type::Quat(s) => Some(s),
            Type::Transform(s) => Some(s),
            Type::Struct(_) | Type::Array(_) => None,
        }
    }
    /// The type of component `index` of this aggregate (one path step), or
    /// `None` when the index is out of range or the type has no components.
    /// Matrices step to a row (a `Vec(cols)`); structs to a field.
    pub fn project(self, index: u32, structs: &StructTable) -> Option<Type> {
        match self {
            Type::Vec(n, s) if index < n as u32 => Some(Type::Scalar(s)),
            Type::Quat(s) if index < 4 => Some(Type::Scalar(s)),
            Type::Transform(s) if index < 7 => Some(Type::Scalar(s)),
            Type::Mat(r, c, s) if index < r as u32 => Some(Type::Vec(c, s)),
            Type::Struct(id) => structs
                .get(id)
                .and_then(|d| d.fields.get(index as usize))
                .map(|f| f.ty),
            _ => None,
        }
    }
    /// Follows a whole path; `None` if any step is invalid.
    pub fn project_path(self, path: &[u32], structs: &StructTable) -> Option<Type> {
        path.iter().try_fold(self, |t, &i| t.project(i, structs))
    }
    /// Number of direct components (path steps) of an aggregate: N for
    /// vectors, 4 quat, 7 transform, rows for matrices, fields for structs.
    pub fn arity(self, structs: &StructTable) -> u32 {
        match self {
            Type::Vec(n, _) => n as u32,
            Type::Quat(_) => 4,
            Type::Transform(_) => 7,
            Type::Mat(r, _, _) => r as u32,
            Type::Struct(id) => structs.get(id).map_or(0, |d| d.fields.len() as u32),
            Type::Scalar(_) | Type::Array(_) => 0,
        }
    }
    /// The element type if this type can be stored in an array.
    pub fn as_elem(self) -> Option<ElemType> {
        Some(match self {
            Type::Scalar(s) => ElemType::Scalar(s),
            Type::Vec(n, s) => ElemType::Vec(n, s),
            Type::Mat(r, c, s) => ElemType::Mat(r, c, s),
            Type::Quat(s) => ElemType::Quat(s),
            Type::Transform(s) => ElemType::Transform(s),
            Type::Struct(id) => ElemType::Struct(id),
            Type::Array(_) => return None,
        })
    }
}

impl From<ElemType> for Type {
    fn from(e: ElemType) -> Type {
        match e {
            ElemType::Scalar(s) => Type::Scalar(s),
            ElemType::Vec(n, s) => Type::Vec(n, s),
            ElemType::Mat(r, c, s) => Type::Mat(r, c, s),
            ElemType::Quat(s) => Type::Quat(s),
            ElemType::Transform(s) => Type::Transform(s),
            ElemType::Struct(id) => Type::Struct(id),
        }
    }
}

impl From<Scalar> for Type {
    fn from(s: Scalar) -> Type {
        Type::Scalar(s)
    }
}

/// A struct definition.
#[derive(Clone, PartialEq, Debug)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<Field>,
}

#[derive(Clone, PartialEq, Debug)]
pub struct Field {
    pub name: String,
    pub ty: Type,
}

impl StructDef {
    pub fn field_index(&self, name: &str) -> Option<u32> {
        self.fields
            .iter()
            .position(|f| f.name == name)
            .map(|i| i as u32)
    }
}

/// The module's struct definitions, indexed by [`StructId`].
pub type StructTable = cranelift_entity::PrimaryMap<StructId, StructDef>;

/// Displays a type in IR text syntax; needs the struct table for names.
pub struct DisplayType<'a>(pub Type, pub &'a StructTable);

impl fmt::Display for DisplayType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Vec(n, s) => write!(f, "vec{n}<{s}>"),
            Type::Mat(r, c, s) => write!(f, "mat{r}x{c}<{s}>"),
            Type::Quat(s) => write!(f, "quat<{s}>"),
            Type::Transform(s) => write!(f, "transform<{s}>"),
            Type::Struct(id) => match self.1.get(id) {
                Some(d) => write!(f, "%{}", d.name),
                None => write!(f, "%<bad struct {}>", id.as_u32()),
            },
            Type::Array(a) => write!(
                f,
                "array{}<{}>",
                a.ndim,
                DisplayType(Type::from(a.elem), self.1)
            ),
        }
    }
}
