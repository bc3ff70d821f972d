//! The generator's types: Warp's value types as the source spells them.

use weft::ir::Scalar;

/// A value type of a generated program.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Ty {
    S(Scalar),
    /// `vecN` of a scalar (any number type).
    V(u8, Scalar),
    /// `matNN` (square, float).
    M(u8, Scalar),
    /// `quat` (float).
    Q(Scalar),
    /// `transform` (float).
    X(Scalar),
    /// The program's struct with this index.
    St(usize),
}

/// A struct of the program: `S<index>` with named fields.
#[derive(Clone, Debug)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<(String, Ty)>,
}

pub const INTS: [Scalar; 8] = [
    Scalar::I8,
    Scalar::U8,
    Scalar::I16,
    Scalar::U16,
    Scalar::I32,
    Scalar::U32,
    Scalar::I64,
    Scalar::U64,
];
pub const FLOATS: [Scalar; 3] = [Scalar::F16, Scalar::F32, Scalar::F64];

/// Warp's suffix of a vector/matrix/quat/transform of `s` (`vec3d`,
/// `vec2ub`).
pub fn suffix(s: Scalar) -> &'static str {
    match s {
        Scalar::F32 => "",
        Scalar::F64 => "d",
        Scalar::F16 => "h",
        Scalar::I8 => "b",
        Scalar::U8 => "ub",
        Scalar::I16 => "s",
        Scalar::U16 => "us",
        Scalar::I32 => "i",
        Scalar::U32 => "ui",
        Scalar::I64 => "l",
        Scalar::U64 => "ul",
        // Not generated: Warp has no vectors of these.
        Scalar::Bool | Scalar::BF16 => "?",
    }
}

impl Ty {
    pub const I32: Ty = Ty::S(Scalar::I32);
    pub const F32: Ty = Ty::S(Scalar::F32);
    pub const BOOL: Ty = Ty::S(Scalar::Bool);

    /// The scalar of a scalar, vector, matrix, quat or transform.
    pub fn scalar(self) -> Option<Scalar> {
        match self {
            Ty::S(s) | Ty::V(_, s) | Ty::M(_, s) | Ty::Q(s) | Ty::X(s) => Some(s),
            Ty::St(_) => None,
        }
    }
    pub fn is_float(self) -> bool {
        self.scalar().is_some_and(Scalar::is_float)
    }
    /// The constructor / annotation: `wp.float32`, `wp.vec3d`, `S1`.
    pub fn name(self, structs: &[StructDef]) -> String {
        match self {
            Ty::S(s) => format!("wp.{}", s.warp_name()),
            Ty::V(n, s) => format!("wp.vec{n}{}", suffix(s)),
            Ty::M(n, s) => format!("wp.mat{n}{n}{}", suffix(s)),
            Ty::Q(s) => format!("wp.quat{}", suffix(s)),
            Ty::X(s) => format!("wp.transform{}", suffix(s)),
            Ty::St(i) => structs[i].name.clone(),
        }
    }
    /// The dtype name of case.json (`float32`, `vec3d`, a struct's name).
    pub fn dtype(self, structs: &[StructDef]) -> String {
        match self {
            Ty::S(s) => s.warp_name().to_string(),
            Ty::St(i) => structs[i].name.clone(),
            t => t.name(structs).trim_start_matches("wp.").to_string(),
        }
    }
    /// Number of scalar components (vectors, matrices, quats, transforms).
    pub fn width(self) -> usize {
        match self {
            Ty::S(_) => 1,
            Ty::V(n, _) => n as usize,
            Ty::M(n, _) => n as usize * n as usize,
            Ty::Q(_) => 4,
            Ty::X(_) => 7,
            Ty::St(_) => 0,
        }
    }
    /// The scalar leaves in memory order (structs field by field).
    pub fn leaves(self, structs: &[StructDef]) -> Vec<Scalar> {
        match self {
            Ty::St(i) => structs[i]
                .fields
                .iter()
                .flat_map(|(_, t)| t.leaves(structs))
                .collect(),
            t => vec![t.scalar().unwrap_or(Scalar::F32); t.width()],
        }
    }
    /// Whether an array of this element may be laid out structure of
    /// arrays (one scalar type, not a plain scalar).
    pub fn soa_eligible(self, structs: &[StructDef]) -> bool {
        match self {
            Ty::S(_) => false,
            Ty::St(_) => {
                let l = self.leaves(structs);
                !l.is_empty() && l.iter().all(|s| *s == l[0])
            }
            _ => true,
        }
    }
}
