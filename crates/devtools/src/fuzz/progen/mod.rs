//! A deterministic generator of random Warp kernels with their inputs, in
//! the spirit of Csmith: every program is well typed, race free and
//! terminates, so every backend must compute the same outputs.
//!
//! [`generate`]`(seed, &Config)` gives a [`Program`]: the source of a
//! module (structs `S<i>`, funcs `fn<i>`, one kernel `kern`), the launch
//! dimensions (1–4 axes) and the kernel's arguments with their initial
//! contents; [`Program::case_json`] is its conformance case description
//! and [`Program::inputs`] its npy inputs, so that it runs through the
//! conformance runner and is written out as a case
//! ([`Program::write_case`]) when it finds a bug.
//!
//! What a program holds:
//!
//! * types: every scalar type (bool, int8…uint64, float16/32/64),
//!   vectors of every number type, square float matrices, quaternions,
//!   transforms, structs of those (nested);
//! * arrays of 1–4 dimensions of any of them, AoS or SoA (a `# weft:
//!   layout=soa` hint), each with one role: *input* (read anywhere, in
//!   bounds: a thread index where the extent is the launch's, else an
//!   integer wrapped into range), *output* (read and written by each
//!   thread at its own element, a slot axis after the launch's), or
//!   *reduction* (commutative atomics only: integer add/sub/min/max/and/
//!   or/xor, float min/max, and float add/sub of multiples of 1/4 small
//!   enough that every order of summation is exact; never read);
//! * by-value parameters of any type, including structs;
//! * expressions over Warp's operators and builtins (arithmetic, bitwise,
//!   comparisons, casts, `min`/`max`/`clamp`/`abs`/`sign`, rounding,
//!   `where` and conditional expressions, vector/matrix/quaternion/
//!   transform algebra, component access), calls of the program's funcs;
//! * statements: declarations, assignments, `+=`/`-=`/`*=`, component
//!   stores into locals and into array elements, atomics (the old value of
//!   an atomic on the thread's own element is used), `if`/`elif`/`else`,
//!   `for` over constant and run-time ranges (either step sign), `while`
//!   loops bounded by a counter, `break`, `continue`, early `return` in
//!   the kernel and in funcs.
//!
//! Integer operations are Weft's defined ones (wrapping, division by zero
//! is 0, shifts modulo the width, saturating float→int casts). Loops run
//! at most 4 times each and 64 times nested, so every thread ends quickly
//! (lavapipe stops loops after 65 535 iterations per invocation).
//!
//! Transcendental functions (`sin`, `exp`, `pow`, ...) are computed by GPU
//! backends to the device's precision, not bit for bit: an expression
//! holding one is *approximate*, and approximate values only reach stores
//! into float outputs marked approximate (through `where`, negation,
//! scaling and constructors, which keep relative error), never a
//! condition, index, cast, comparison or integer. [`Program::tolerance`]
//! gives those arrays a tolerance; everything else is compared exactly.

mod expr;
mod gen;
mod rng;
mod types;
mod values;

pub use gen::Role;
pub use rng::Rng;
pub use types::{StructDef, Ty};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use weft::ir::StructTable;
use weft_conform::npy::Npy;
use weft_conform::{data, Case};

/// The generator's knobs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Most statements of the kernel's top-level block.
    pub max_stmts: usize,
    /// Most nesting of an expression.
    pub depth: u32,
    /// Most funcs and structs.
    pub funcs: usize,
    pub structs: usize,
    /// Transcendental functions (approximate values) allowed.
    pub approx: bool,
    /// Most threads of a launch.
    pub max_threads: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_stmts: 10,
            depth: 3,
            funcs: 3,
            structs: 2,
            approx: true,
            max_threads: 96,
        }
    }
}

/// One kernel argument of a generated program.
#[derive(Clone, Debug)]
pub enum ProgArg {
    Array {
        name: String,
        elem: Ty,
        shape: Vec<usize>,
        role: Role,
        /// May hold approximate values ([`Program::tolerance`]).
        approx: bool,
        /// Initial contents: each element's scalar leaves, packed.
        data: Vec<u8>,
    },
    Value {
        name: String,
        ty: Ty,
        json: serde_json::Value,
    },
}

/// A generated program: a module, its launch and its arguments.
#[derive(Clone, Debug)]
pub struct Program {
    pub seed: u64,
    pub source: String,
    pub kernel: String,
    pub dim: Vec<usize>,
    pub args: Vec<ProgArg>,
    pub structs: Vec<StructDef>,
}

/// The program of `seed`.
pub fn generate(seed: u64, cfg: &Config) -> Program {
    gen::Gen::new(seed, cfg).program(seed)
}

/// The tolerance (rtol, atol) of approximate arrays on backends that do
/// not promise bit-exact transcendentals: a few float16 ulps, far more
/// than float32 or float64 errors of a correctly working device function.
pub const APPROX_TOLERANCE: (f64, f64) = (4e-3, 1e-5);

impl Program {
    /// The name of its case: `fuzz_<seed>`.
    pub fn name(&self) -> String {
        format!("fuzz_{}", self.seed)
    }

    /// The arrays compared between backends: outputs and reductions.
    pub fn checked(&self) -> Vec<&str> {
        self.args
            .iter()
            .filter_map(|a| match a {
                ProgArg::Array { name, role, .. } if *role != Role::Input => Some(name.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Whether array `name` may hold approximate values.
    pub fn approx(&self, name: &str) -> bool {
        self.args
            .iter()
            .any(|a| matches!(a, ProgArg::Array { name: n, approx: true, .. } if n == name))
    }

    /// `(rtol, atol)` of array `name` on a backend with (`exact_math`) or
    /// without bit-exact transcendentals.
    pub fn tolerance(&self, name: &str, exact_math: bool) -> (f64, f64) {
        if exact_math || !self.approx(name) {
            (0.0, 0.0)
        } else {
            APPROX_TOLERANCE
        }
    }

    /// The case.json of the program (single launch, the corpus format);
    /// approximate arrays get [`APPROX_TOLERANCE`].
    pub fn case_json(&self) -> serde_json::Value {
        use serde_json::json;
        let mut args = Vec::new();
        let mut tolerances = serde_json::Map::new();
        for a in &self.args {
            match a {
                ProgArg::Array {
                    name,
                    elem,
                    shape,
                    approx,
                    ..
                } => {
                    args.push(json!({
                        "name": name, "kind": "array", "dtype": elem.dtype(&self.structs),
                        "ndim": shape.len(), "shape": shape, "file": format!("{name}.npy"),
                    }));
                    if *approx {
                        let (r, t) = APPROX_TOLERANCE;
                        tolerances.insert(name.clone(), json!({"rtol": r, "atol": t}));
                    }
                }
                ProgArg::Value { name, ty, json } => args.push(json!({
                    "name": name, "kind": "scalar", "dtype": ty.dtype(&self.structs), "value": json,
                })),
            }
        }
        json!({
            "name": self.name(), "kernel": self.kernel, "dim": self.dim, "args": args,
            "check": self.checked(), "rtol": 0.0, "atol": 0.0,
            "tolerances": tolerances,
            "tags": ["fuzz"],
            "note": format!("generated by weft fuzz-diff --seed {}", self.seed),
        })
    }

    /// The program as a [`Case`] whose directory is `dir`.
    pub fn case(&self, dir: &Path) -> Case {
        let text = self.case_json().to_string();
        Case::parse(&text, &dir.join("case.json"), dir.to_path_buf())
            .expect("a generated case.json parses")
    }

    /// Each array's initial contents as an npy file, typed by the
    /// compiled module's `structs`.
    pub fn inputs(&self, structs: &Arc<StructTable>) -> Result<Vec<(String, Npy)>, String> {
        let mut out = Vec::new();
        for a in &self.args {
            let ProgArg::Array {
                name,
                elem,
                shape,
                data: bytes,
                ..
            } = a
            else {
                continue;
            };
            let dname = elem.dtype(&self.structs);
            let dt = data::warp_dtype(&dname, structs)
                .ok_or_else(|| format!("array `{name}`: unknown dtype `{dname}`"))?;
            let mut npy_shape = shape.clone();
            npy_shape.extend(data::elem_shape(dt.ty()));
            out.push((
                name.clone(),
                Npy {
                    dtype: data::npy_dtype(dt.ty(), dt.structs()),
                    shape: npy_shape,
                    data: bytes.clone(),
                },
            ));
        }
        Ok(out)
    }

    /// Writes the program as a conformance case in `dir` (created):
    /// kernel.py, case.json, the input npy files, and `expected` (each
    /// checked array's final contents, from the reference).
    pub fn write_case(
        &self,
        dir: &Path,
        structs: &Arc<StructTable>,
        expected: &[(String, Npy)],
    ) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("kernel.py"), &self.source)?;
        let json =
            serde_json::to_string_pretty(&self.case_json()).map_err(std::io::Error::other)?;
        std::fs::write(dir.join("case.json"), json + "\n")?;
        let inputs = self.inputs(structs).map_err(std::io::Error::other)?;
        for (name, npy) in &inputs {
            std::fs::write(dir.join(format!("{name}.npy")), npy.to_bytes())?;
        }
        for (name, npy) in expected {
            std::fs::write(dir.join(format!("expected_{name}.npy")), npy.to_bytes())?;
        }
        Ok(dir.to_path_buf())
    }
}
