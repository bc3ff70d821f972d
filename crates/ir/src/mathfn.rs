//! The float math functions backends compute by calling a library function
//! (a host shim, libdevice) rather than an instruction: the transcendental
//! [`UnaryOp`]s and the [`BinaryOp`]s `Pow`, `Atan2` and float `Rem`
//! (`fmod`).

use crate::ir::UnaryOp;

/// A float math function computed by a library call.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum MathFn {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Exp2,
    Log,
    Log2,
    Log10,
    Cbrt,
    Erf,
    Erfc,
    Erfinv,
    Pow,
    Atan2,
    /// Float remainder with the sign of the dividend (float `Rem`).
    Fmod,
}

impl MathFn {
    /// Every math function, unary ones first.
    pub const ALL: [MathFn; 21] = [
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Tanh,
        MathFn::Exp,
        MathFn::Exp2,
        MathFn::Log,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Cbrt,
        MathFn::Erf,
        MathFn::Erfc,
        MathFn::Erfinv,
        MathFn::Pow,
        MathFn::Atan2,
        MathFn::Fmod,
    ];

    /// The C library name (`sin`, `log10`, `atan2`, `fmod`, ...).
    pub fn name(self) -> &'static str {
        use MathFn::*;
        match self {
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Exp => "exp",
            Exp2 => "exp2",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Cbrt => "cbrt",
            Erf => "erf",
            Erfc => "erfc",
            Erfinv => "erfinv",
            Pow => "pow",
            Atan2 => "atan2",
            Fmod => "fmod",
        }
    }

    /// Number of operands (all of the same float type as the result).
    pub fn arity(self) -> usize {
        if matches!(self, MathFn::Pow | MathFn::Atan2 | MathFn::Fmod) {
            2
        } else {
            1
        }
    }

    /// The function computing a unary operator on floats, if it is one.
    pub fn of_unary(op: UnaryOp) -> Option<MathFn> {
        use UnaryOp as U;
        Some(match op {
            U::Sin => MathFn::Sin,
            U::Cos => MathFn::Cos,
            U::Tan => MathFn::Tan,
            U::Asin => MathFn::Asin,
            U::Acos => MathFn::Acos,
            U::Atan => MathFn::Atan,
            U::Sinh => MathFn::Sinh,
            U::Cosh => MathFn::Cosh,
            U::Tanh => MathFn::Tanh,
            U::Exp => MathFn::Exp,
            U::Exp2 => MathFn::Exp2,
            U::Log => MathFn::Log,
            U::Log2 => MathFn::Log2,
            U::Log10 => MathFn::Log10,
            U::Cbrt => MathFn::Cbrt,
            U::Erf => MathFn::Erf,
            U::Erfc => MathFn::Erfc,
            U::Erfinv => MathFn::Erfinv,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unary_functions_come_from_unary_ops() {
        let unary: Vec<MathFn> = MathFn::ALL.into_iter().filter(|f| f.arity() == 1).collect();
        assert_eq!(unary.len(), 18);
        assert_eq!(MathFn::of_unary(UnaryOp::Log10), Some(MathFn::Log10));
        assert_eq!(MathFn::of_unary(UnaryOp::Sqrt), None);
        assert_eq!(MathFn::Atan2.name(), "atan2");
    }
}
