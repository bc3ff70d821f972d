//! The one optimization level of Weft (`-O0`, `-O1`, `-O2`): the pass
//! pipeline's, and each backend's code generator's.
//!
//! | level | pass pipeline (`weft-passes`) | Cranelift (`cpu`) | LLVM (`llvm-cpu`, PTX) |
//! |---|---|---|---|
//! | `O0` | no pass, calls kept (for the debugger) | `opt_level=none` | `O0` |
//! | `O1` | `inline`, then `simplify`, `dce` | `speed` | `O1` |
//! | `O2` (default) | O1, then `simplify`, `cse`, `licm`, `dce` | `speed` | `O3` (LLVM's full pipeline) |

/// Optimization level of the pass pipeline and of the backends (see the
/// module docs for what each level means where).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum OptLevel {
    /// No pass at all (calls kept): for the debugger. (The pass pipeline
    /// can still force inlining for backends that need it.)
    O0,
    /// `inline`, then `simplify` and `dce` to a fixpoint.
    O1,
    /// O1, then `simplify`, `cse`, `licm` and `dce` to a fixpoint (plus the
    /// pipeline's opt-in passes). The default.
    #[default]
    O2,
}

impl OptLevel {
    pub const ALL: [OptLevel; 3] = [OptLevel::O0, OptLevel::O1, OptLevel::O2];

    /// `"O0"`, `"O1"` or `"O2"`.
    pub fn name(self) -> &'static str {
        match self {
            OptLevel::O0 => "O0",
            OptLevel::O1 => "O1",
            OptLevel::O2 => "O2",
        }
    }
}

impl std::fmt::Display for OptLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The text of an [`OptLevel`] was not one of `0 1 2 O0 O1 O2 -O0 -O1 -O2`.
#[derive(thiserror::Error, Debug, Clone, PartialEq, Eq)]
#[error("unknown optimization level `{0}` (expected 0, 1 or 2)")]
pub struct ParseOptLevelError(pub String);

impl std::str::FromStr for OptLevel {
    type Err = ParseOptLevelError;
    /// Accepts `2`, `O2` and `-O2` (and the same for 0 and 1).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.strip_prefix('-').unwrap_or(s);
        let t = t.strip_prefix('O').unwrap_or(t);
        match t {
            "0" => Ok(OptLevel::O0),
            "1" => Ok(OptLevel::O1),
            "2" => Ok(OptLevel::O2),
            _ => Err(ParseOptLevelError(s.to_string())),
        }
    }
}
