//! `fast-math`: marks float arithmetic with [`MathFlags`].
//!
//! The pass changes no instruction: it only sets the per-operation
//! fast-math permissions that the backends read (CPU: `fma` contraction;
//! LLVM: `contract`/`afn`/`nnan`/`ninf` flags, hence PTX `.approx` forms;
//! HLSL: see `docs/hlsl.md`). The interpreter ignores the flags, so it stays
//! the precise oracle.
//!
//! It sets its flags on every float `unary`, `binary` and `fma`
//! ([`weft_ir::Function::accepts_math_flags`]) of the functions it is asked
//! to: all of them ([`FastMath::all`], the API option), the kernels named in
//! [`FastMath::only`] (the API's per-kernel list), and every function whose
//! source asked for it ([`weft_ir::Function::fast_math`], set by the
//! frontend from `wp.set_module_options({"fast_math": True})` or a kernel's
//! `module_options`). The three are or-ed: the source cannot turn off what
//! the API asks for, nor the reverse. `nnan` and
//! `ninf` are never put on `isnan`/`isinf`/`isfinite` (a NaN test under a
//! no-NaN assumption would fold to a constant). It runs last in a pipeline,
//! after inlining, so that the instructions inlined from funcs into a kernel
//! get the kernel's flags; at `-O0` without inlining, funcs are flagged only
//! when every function is.

use crate::{Pass, PassError};
use weft_ir::{InstKind, MathFlags, Module, UnaryOp};

/// The flags `--fast-math` sets: contraction and approximate functions.
/// (`nnan`/`ninf` change results on NaN and infinite inputs, e.g. Warp's
/// `isnan`; they are set only when asked for through [`FastMath::flags`].)
pub const DEFAULT_FLAGS: MathFlags = MathFlags::CONTRACT.union(MathFlags::APPROX_FUNC);

/// Whether a function of `m` asks for fast math in the source
/// ([`weft_ir::Function::fast_math`]); [`crate::run_pipeline`] then runs the
/// pass even without the API option.
pub fn requested_in_source(m: &Module) -> bool {
    m.funcs.values().any(|f| f.fast_math)
}

/// The `fast-math` pass (see the module docs).
#[derive(Clone, Debug)]
pub struct FastMath {
    /// The flags to add.
    pub flags: MathFlags,
    /// Flag every function.
    pub all: bool,
    /// Also flag the kernels with these names.
    pub only: Vec<String>,
}

impl FastMath {
    /// Whether `f` gets the flags.
    fn wants(&self, f: &weft_ir::Function) -> bool {
        self.all || f.fast_math || self.only.contains(&f.name)
    }
}

impl Default for FastMath {
    fn default() -> Self {
        FastMath {
            flags: DEFAULT_FLAGS,
            all: true,
            only: Vec::new(),
        }
    }
}

impl Pass for FastMath {
    fn name(&self) -> &'static str {
        "fast-math"
    }

    fn run(&mut self, m: &mut Module) -> Result<bool, PassError> {
        let mut changed = false;
        let exact_tests = MathFlags::from_bits(
            self.flags.bits() & !(MathFlags::NO_NANS.bits() | MathFlags::NO_INFS.bits()),
        );
        for (_, f) in m.funcs.iter_mut() {
            if !self.wants(f) {
                continue;
            }
            let insts: Vec<_> = f.insts.keys().collect();
            for inst in insts {
                if !f.accepts_math_flags(inst) {
                    continue;
                }
                let d = &mut f.insts[inst];
                let add = match d.kind {
                    InstKind::Unary(UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite, _) => {
                        exact_tests
                    }
                    _ => self.flags,
                };
                let new = d.flags | add;
                if new != d.flags {
                    d.flags = new;
                    changed = true;
                }
            }
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{pipeline, OptLevel, PipelineOptions};
    use weft_ir::text::{parse_module, print_module};

    const SRC: &str = "kernel @a(v0: array1<f32>) {
  v1: i32 = thread_id
  v2: f32 = load v0[v1]
  v3: bool = isnan v2
  v4: f32 = mul v2, v2
  store v0[v1], v4
  return
}
kernel @b(v0: array1<f32>) {
  v1: i32 = thread_id
  v2: f32 = load v0[v1]
  v3: f32 = mul v2, v2
  store v0[v1], v3
  return
}
";

    fn flags_of(m: &Module, func: &str) -> Vec<MathFlags> {
        let f = &m.funcs[m.func_by_name(func).unwrap()];
        f.insts.values().map(|d| d.flags).collect()
    }

    #[test]
    fn only_named_kernels_and_no_nan_assumption_on_nan_tests() {
        let mut m = parse_module(SRC).unwrap();
        let mut p = FastMath {
            flags: MathFlags::ALL,
            all: false,
            only: vec!["a".into()],
        };
        assert!(p.run(&mut m).unwrap());
        weft_ir::verify::verify_module(&m).unwrap();
        let a = flags_of(&m, "a");
        assert!(a.contains(&MathFlags::ALL), "mul gets every flag");
        assert!(
            a.contains(&(MathFlags::CONTRACT | MathFlags::APPROX_FUNC)),
            "isnan"
        );
        assert!(flags_of(&m, "b").iter().all(|f| f.is_empty()));
        // A second run changes nothing.
        assert!(!p.run(&mut m).unwrap());
    }

    #[test]
    fn source_request_flags_its_kernel_without_the_api_option() {
        let src = SRC.replace(
            "kernel @b(v0: array1<f32>)",
            "kernel @b(v0: array1<f32>) fast_math",
        );
        let mut m = parse_module(&src).unwrap();
        assert!(requested_in_source(&m));
        crate::run_pipeline(&mut m, &PipelineOptions::default()).unwrap();
        assert!(
            flags_of(&m, "b").contains(&DEFAULT_FLAGS),
            "{}",
            print_module(&m)
        );
        assert!(flags_of(&m, "a").iter().all(|f| f.is_empty()));
        // The API's per-kernel list adds to the source's request.
        let mut m = parse_module(&src).unwrap();
        let opts = PipelineOptions {
            fast_math_kernels: vec!["a".into()],
            ..PipelineOptions::default()
        };
        crate::run_pipeline(&mut m, &opts).unwrap();
        assert!(flags_of(&m, "a").contains(&DEFAULT_FLAGS));
        assert!(flags_of(&m, "b").contains(&DEFAULT_FLAGS));
        // No request anywhere: no flags.
        let mut m = parse_module(SRC).unwrap();
        assert!(!requested_in_source(&m));
        crate::run_pipeline(&mut m, &PipelineOptions::default()).unwrap();
        assert!(!print_module(&m).contains("fast("));
    }

    #[test]
    fn pipelines_end_with_fast_math_only_when_asked() {
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
            let off = pipeline(level, &PipelineOptions::default()).describe();
            assert!(!off.contains("fast-math"), "{off}");
            let opts = PipelineOptions {
                fast_math: true,
                ..PipelineOptions::default()
            };
            let on = pipeline(level, &opts).describe();
            assert_eq!(on.lines().last(), Some("fast-math"), "{on}");
        }
        let mut m = parse_module(SRC).unwrap();
        let before = print_module(&m);
        crate::run_pipeline(&mut m, &PipelineOptions::default()).unwrap();
        assert!(!print_module(&m).contains("fast("), "{before}");
    }
}
