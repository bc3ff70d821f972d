//! HLSL identifiers: Python names kept where possible, made unique and kept
//! clear of HLSL keywords, intrinsics and the backend's own `weft_` names.

use std::collections::{HashMap, HashSet};

/// HLSL keywords, type names and intrinsics a local must not shadow.
const RESERVED: &[&str] = &[
    "AppendStructuredBuffer",
    "BlendState",
    "Buffer",
    "ByteAddressBuffer",
    "CompileShader",
    "ComputeShader",
    "ConsumeStructuredBuffer",
    "DepthStencilState",
    "DepthStencilView",
    "DomainShader",
    "GeometryShader",
    "Hullshader",
    "InputPatch",
    "LineStream",
    "NULL",
    "OutputPatch",
    "PixelShader",
    "PointStream",
    "RWBuffer",
    "RWByteAddressBuffer",
    "RWStructuredBuffer",
    "RWTexture1D",
    "RWTexture2D",
    "RWTexture3D",
    "RasterizerState",
    "RenderTargetView",
    "SamplerComparisonState",
    "SamplerState",
    "StructuredBuffer",
    "Texture1D",
    "Texture2D",
    "Texture3D",
    "TextureCube",
    "TriangleStream",
    "VertexShader",
    "abort",
    "abs",
    "acos",
    "all",
    "any",
    "asdouble",
    "asfloat",
    "asin",
    "asint",
    "asm",
    "asuint",
    "atan",
    "atan2",
    "auto",
    "bool",
    "break",
    "buffer",
    "case",
    "catch",
    "cbuffer",
    "ceil",
    "centroid",
    "char",
    "clamp",
    "class",
    "clip",
    "column_major",
    "compile",
    "const",
    "const_cast",
    "continue",
    "cos",
    "cosh",
    "countbits",
    "cross",
    "default",
    "degrees",
    "delete",
    "determinant",
    "discard",
    "distance",
    "do",
    "dot",
    "double",
    "dst",
    "dynamic_cast",
    "else",
    "enum",
    "errorf",
    "exp",
    "exp2",
    "explicit",
    "export",
    "extern",
    "f16tof32",
    "f32tof16",
    "false",
    "firstbithigh",
    "firstbitlow",
    "float",
    "floor",
    "fma",
    "fmod",
    "for",
    "frac",
    "frexp",
    "friend",
    "fwidth",
    "globallycoherent",
    "goto",
    "groupshared",
    "half",
    "if",
    "in",
    "inline",
    "inout",
    "int",
    "interface",
    "isfinite",
    "isinf",
    "isnan",
    "ldexp",
    "length",
    "lerp",
    "line",
    "lineadj",
    "linear",
    "lit",
    "log",
    "log10",
    "log2",
    "long",
    "mad",
    "main",
    "matrix",
    "max",
    "min",
    "min10float",
    "min12int",
    "min16float",
    "min16int",
    "min16uint",
    "modf",
    "mul",
    "mutable",
    "namespace",
    "new",
    "nointerpolation",
    "noise",
    "noperspective",
    "normalize",
    "operator",
    "out",
    "packoffset",
    "pass",
    "point",
    "pow",
    "precise",
    "printf",
    "private",
    "protected",
    "public",
    "radians",
    "rcp",
    "reflect",
    "refract",
    "register",
    "reinterpret_cast",
    "return",
    "reversebits",
    "round",
    "row_major",
    "rsqrt",
    "sample",
    "sampler",
    "saturate",
    "shared",
    "short",
    "sign",
    "signed",
    "sin",
    "sincos",
    "sinh",
    "sizeof",
    "smoothstep",
    "snorm",
    "sqrt",
    "static",
    "static_cast",
    "step",
    "string",
    "struct",
    "switch",
    "tan",
    "tanh",
    "tbuffer",
    "technique",
    "template",
    "texture",
    "this",
    "throw",
    "triangle",
    "triangleadj",
    "true",
    "trunc",
    "try",
    "typedef",
    "typename",
    "uint",
    "uniform",
    "union",
    "unorm",
    "unsigned",
    "using",
    "vector",
    "virtual",
    "void",
    "volatile",
    "while",
];

/// Allocates unique identifiers.
#[derive(Default)]
pub(crate) struct Names {
    used: HashSet<String>,
    /// Per base, the first suffix `fresh` has not tried yet (every
    /// `base_i` below it is used), so that `n` names from one base take
    /// time `n`, not `n²`.
    next: HashMap<String, u32>,
}

impl Names {
    /// A fresh identifier based on `base`: `base` itself if free, else
    /// `base_1`, `base_2`, ...
    pub(crate) fn fresh(&mut self, base: &str) -> String {
        let mut b = sanitize(base);
        if RESERVED.contains(&b.as_str()) || b.starts_with("weft_") || is_type_like(&b) {
            b.push('_');
        }
        if self.used.insert(b.clone()) {
            return b;
        }
        let next = self.next.entry(b.clone()).or_insert(1);
        for i in *next.. {
            let n = format!("{b}_{i}");
            if self.used.insert(n.clone()) {
                *next = i + 1;
                return n;
            }
        }
        b
    }
}

/// Names that look like HLSL vector/matrix types (`float3`, `int2x2`, ...).
fn is_type_like(s: &str) -> bool {
    [
        "bool",
        "int",
        "uint",
        "half",
        "float",
        "double",
        "dword",
        "min16float",
    ]
    .iter()
    .any(|t| {
        s.strip_prefix(t).is_some_and(|rest| {
            !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit() || c == 'x')
        })
    })
}

/// An HLSL identifier from arbitrary text: ASCII alphanumerics and `_`,
/// not starting with a digit, no double underscores (reserved).
pub(crate) fn sanitize(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let c = if c.is_ascii_alphanumeric() { c } else { '_' };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'v');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_safe() {
        let mut n = Names::default();
        assert_eq!(n.fresh("acc"), "acc");
        assert_eq!(n.fresh("acc"), "acc_1");
        assert_eq!(n.fresh("min"), "min_");
        assert_eq!(n.fresh("float3"), "float3_");
        assert_eq!(n.fresh("weft_cb"), "weft_cb_");
        assert_eq!(n.fresh("2x"), "v2x");
        assert_eq!(n.fresh("a__b"), "a_b");
    }

    #[test]
    fn suffixes_skip_names_taken_otherwise() {
        let mut n = Names::default();
        assert_eq!(n.fresh("v"), "v");
        assert_eq!(n.fresh("v_2"), "v_2");
        assert_eq!(n.fresh("v"), "v_1");
        assert_eq!(n.fresh("v"), "v_3");
        let many: HashSet<String> = (0..1000).map(|_| n.fresh("v")).collect();
        assert_eq!(many.len(), 1000);
        assert!(!many.contains("v_2") && many.contains("v_1003"));
    }
}
