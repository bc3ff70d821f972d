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
    suffix: &'static str,
}

const FLOATS: [FloatNames; 3] = [
    FloatNames {
        f: "wp.float16",
        suffix: "h",
    },
    FloatNames {
        f: "wp.float32",
        suffix: "",
    },
    FloatNames {
        f: "wp.float64",
        suffix: "d",
    },
];

fn instantiate(block: &str, t: &FloatNames) -> String {
    let s = t.suffix;
    // Longest placeholders first so that `$M22` is not read as `$M2`.
    let subst = [
        ("$M22", format!("wp.mat22{s}")),
        ("$M33", format!("wp.mat33{s}")),
        ("$M44", format!("wp.mat44{s}")),
        ("$V2", format!("wp.vec2{s}")),
        ("$V3", format!("wp.vec3{s}")),
        ("$V4", format!("wp.vec4{s}")),
        ("$Q", format!("wp.quat{s}")),
        ("$T", format!("wp.transform{s}")),
        ("$F", t.f.to_string()),
    ];
    let mut out = block.to_string();
    for (k, v) in subst {
        out = out.replace(k, &v);
    }
    out
}

/// Expands the template: `# @float` blocks once per float type, `# @once`
/// blocks as they are.
fn expand(template: &str) -> String {
    let mut out = String::with_capacity(template.len() * 3);
    let mut block = String::new();
    let mut templated = false;
    let flush = |block: &mut String, templated: bool, out: &mut String| {
        if templated {
            for t in &FLOATS {
                out.push_str(&instantiate(block, t));
            }
        } else {
            out.push_str(block);
        }
        block.clear();
    };
    for line in template.lines() {
        match line.trim() {
            "# @float" | "# @once" => {
                flush(&mut block, templated, &mut out);
                templated = line.trim() == "# @float";
            }
            _ => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    flush(&mut block, templated, &mut out);
    out
}

/// The prelude's source text (kernel language), compiled by the frontend
/// like a user module whose funcs are available to builtins. Generated once.
pub(crate) fn prelude_source() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| expand(TEMPLATE))
}
