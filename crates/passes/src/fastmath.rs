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
//! to: all of them, or the kernels named in [`FastMath::only`]. `nnan` and
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

/// The `fast-math` pass (see the module docs).
#[derive(Clone, Debug)]
pub struct FastMath {
    /// The flags to add.
    pub flags: MathFlags,
    /// When non-empty, only kernels with these names are flagged; when
    /// empty, every function is.
    pub only: Vec<String>,
}

impl Default for FastMath {
    fn default() -> Self {
        FastMath {
            flags: DEFAULT_FLAGS,
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
            if !self.only.is_empty() && !self.only.contains(&f.name) {
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
