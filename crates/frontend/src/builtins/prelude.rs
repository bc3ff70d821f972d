//! The prelude: `prelude.py` with its `# @float` blocks instantiated once
//! per float type (see the header of `prelude.py` for the placeholders).

use std::sync::OnceLock;

/// Prefix of every prelude func name: builtin `normalize` is implemented by
/// the prelude funcs named `__weft_normalize`.
pub(crate) const PRELUDE_PREFIX: &str = "__weft_";

const TEMPLATE: &str = include_str!("../prelude.py");

/// Warp's type names for one float scalar type.
struct FloatNames {
    f: &'static str,
    /// Where the vector, matrix, ... types live: `wp.` for Warp's named
    /// types (`wp.vec3h`), `__weft_` for the aliases `prelude.py` defines
    /// for bfloat16, which Warp names only as `wp.types.vector(...)`.
    prefix: &'static str,
    suffix: &'static str,
}

/// float16, float32, float64, bfloat16: `FLOATS[1..3]` are the types of
/// `# @float3264` blocks.
const FLOATS: [FloatNames; 4] = [
    FloatNames {
        f: "wp.float16",
        prefix: "wp.",
        suffix: "h",
    },
    FloatNames {
        f: "wp.float32",
        prefix: "wp.",
        suffix: "",
    },
    FloatNames {
        f: "wp.float64",
        prefix: "wp.",
        suffix: "d",
    },
    FloatNames {
        f: "wp.bfloat16",
        prefix: "__weft_",
        suffix: "bf",
    },
];

fn instantiate(block: &str, t: &FloatNames) -> String {
    let (p, s) = (t.prefix, t.suffix);
    // Longest placeholders first so that `$M22` is not read as `$M2`.
    let subst = [
        ("$M22", format!("{p}mat22{s}")),
        ("$M33", format!("{p}mat33{s}")),
        ("$M44", format!("{p}mat44{s}")),
        ("$V2", format!("{p}vec2{s}")),
        ("$V3", format!("{p}vec3{s}")),
        ("$V4", format!("{p}vec4{s}")),
        ("$Q", format!("{p}quat{s}")),
        ("$T", format!("{p}transform{s}")),
        ("$SM", format!("__weft_mat66{s}")),
        ("$S", format!("{p}spatial_vector{s}")),
        ("$F", t.f.to_string()),
    ];
    let mut out = block.to_string();
    for (k, v) in subst {
        out = out.replace(k, &v);
    }
    out
}

/// How a block of the template is emitted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    Once,
    /// Once per float type.
    Float,
    /// For float32 and float64 only (types Warp has no half version of).
    Float3264,
    /// Once per numeric scalar type (every Warp scalar but `bool`); only
    /// `$F` is substituted.
    Scalar,
}

/// Expands the template: `# @float` blocks once per float type,
/// `# @float3264` blocks for float32 and float64, `# @scalar` blocks once
/// per numeric scalar type, `# @once` blocks as they are.
fn expand(template: &str) -> String {
    let mut out = String::with_capacity(template.len() * 3);
    let mut block = String::new();
    let mut kind = Block::Once;
    let flush = |block: &mut String, kind: Block, out: &mut String| {
        match kind {
            Block::Once => out.push_str(block),
            Block::Float => FLOATS
                .iter()
                .for_each(|t| out.push_str(&instantiate(block, t))),
            Block::Float3264 => FLOATS[1..3]
                .iter()
                .for_each(|t| out.push_str(&instantiate(block, t))),
            Block::Scalar => weft_ir::Scalar::ALL
                .iter()
                .filter(|s| **s != weft_ir::Scalar::Bool)
                .for_each(|s| out.push_str(&block.replace("$F", &format!("wp.{}", s.warp_name())))),
        }
        block.clear();
    };
    for line in template.lines() {
        let marker = match line.trim() {
            "# @float" => Some(Block::Float),
            "# @float3264" => Some(Block::Float3264),
            "# @scalar" => Some(Block::Scalar),
            "# @once" => Some(Block::Once),
            _ => None,
        };
        match marker {
            Some(k) => {
                flush(&mut block, kind, &mut out);
                kind = k;
            }
            _ => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    flush(&mut block, kind, &mut out);
    out
}

/// The prelude's source text (kernel language), compiled by the frontend
/// like a user module whose funcs are available to builtins. Generated once.
pub(crate) fn prelude_source() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| expand(TEMPLATE))
}
