//! The host shims: `extern "C"` functions that host-JIT-compiled kernels
//! (`cpu`, `llvm-cpu`) call for operations with no machine instruction —
//! transcendentals, `f16` rounding and conversion, `print`, the
//! bounds-checked mode's trap report and the debugger's statement hook.
//!
//! Each shim calls the same Rust function the reference interpreter uses
//! (`std`'s `f32::sin` and friends; `weft_ir::interp::{erf, erfc, erfinv}`,
//! computed in `f64` and rounded once for `f32`; `weft_ir::f16` for half
//! precision; `weft_ir::interp::format_printf` for `print`), so JIT code and
//! the interpreter produce bit-identical results.
//!
//! [`table`] is the one list of shims: each [`Shim`] with its symbol name
//! ([`Shim::symbol`]), address and C signature in [`AbiType`]s. A JIT
//! declares every shim it calls with that signature and maps the symbol to
//! that address; no backend names or declares a shim on its own.

use std::sync::OnceLock;
use weft_ir::{Const, MathFn, Scalar};

/// A shim the generated code can call.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Shim {
    /// `f32 -> f32` math, by function.
    F32Unary(MathFn),
    /// `f64 -> f64` math, by function.
    F64Unary(MathFn),
    /// `(f32, f32) -> f32`.
    F32Binary(MathFn),
    /// `(f64, f64) -> f64`.
    F64Binary(MathFn),
    /// `f32 -> f32`: rounds to the nearest `f16` value.
    RoundF16,
    /// `f64 -> f32`: rounds to the nearest `f16` value (once, not via f32).
    F64ToF16,
    /// `f32 -> u32`: the `f16` bits of a value (rounding to nearest even).
    F32ToF16Bits,
    /// `u32 -> f32`: widens `f16` bits (low 16 bits of the argument).
    F16BitsToF32,
    /// `(fmt, fmt_len, kinds, values, n)`: formats and prints one line.
    Print,
    /// `(code, file, line, col, index, size)`: records a failed check of
    /// the bounds-checked mode ([`crate::trap`]).
    Trap,
    /// `(desc, vals, tid)`: the debug build's statement hook
    /// ([`crate::debug`]).
    DebugHook,
    /// `() -> i32`: the cancel check at a loop back-edge of code compiled
    /// with a wall-clock limit ([`crate::cancel`]).
    CancelPoll,
}

impl Shim {
    /// The math shim of `f` on `f64` (`double`) or `f32`, unary or binary
    /// by the function's arity.
    pub fn math(f: MathFn, double: bool) -> Shim {
        match (f.arity() == 2, double) {
            (false, false) => Shim::F32Unary(f),
            (false, true) => Shim::F64Unary(f),
            (true, false) => Shim::F32Binary(f),
            (true, true) => Shim::F64Binary(f),
        }
    }

    /// The symbol name: `weft_{f}_f32` / `weft_{f}_f64` for the math
    /// functions (`sin`, ..., `erfinv`, `pow`, `atan2`, `fmod`),
    /// `weft_round_f16`, `weft_f64_to_f16`, `weft_f32_to_f16_bits`,
    /// `weft_f16_bits_to_f32`, `weft_print`, `weft_trap`, `weft_debug_hook`, `weft_cancel_poll`.
    pub fn symbol(self) -> String {
        match self {
            Shim::F32Unary(f) | Shim::F32Binary(f) => format!("weft_{}_f32", f.name()),
            Shim::F64Unary(f) | Shim::F64Binary(f) => format!("weft_{}_f64", f.name()),
            Shim::RoundF16 => "weft_round_f16".into(),
            Shim::F64ToF16 => "weft_f64_to_f16".into(),
            Shim::F32ToF16Bits => "weft_f32_to_f16_bits".into(),
            Shim::F16BitsToF32 => "weft_f16_bits_to_f32".into(),
            Shim::Print => "weft_print".into(),
            Shim::Trap => "weft_trap".into(),
            Shim::DebugHook => "weft_debug_hook".into(),
            Shim::CancelPoll => "weft_cancel_poll".into(),
        }
    }

    /// This shim's entry of [`table`] (`None` for a math shim of the
    /// wrong arity, such as `F32Unary(Pow)`).
    pub fn info(self) -> Option<&'static ShimInfo> {
        table().iter().find(|s| s.shim == self)
    }
}

/// A C parameter or result type of a shim. Pointers and sizes are
/// [`AbiType::I64`] (the hosts are 64-bit).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AbiType {
    I32,
    I64,
    F32,
    F64,
}

/// A shim's symbol name, address and signature.
#[derive(Debug)]
pub struct ShimInfo {
    pub shim: Shim,
    pub name: String,
    /// The function's address (a `usize` so that the table is `Sync`).
    pub addr: usize,
    pub params: &'static [AbiType],
    pub returns: &'static [AbiType],
}

impl ShimInfo {
    /// The function's address.
    pub fn ptr(&self) -> *const u8 {
        self.addr as *const u8
    }
}

macro_rules! unary_shims {
    ($($name:ident: $f32:expr, $f64:expr;)*) => {
        mod unary32 {
            $(pub extern "C" fn $name(x: f32) -> f32 { ($f32)(x) })*
        }
        mod unary64 {
            $(pub extern "C" fn $name(x: f64) -> f64 { ($f64)(x) })*
        }
    };
}

unary_shims! {
    sin: f32::sin, f64::sin;
    cos: f32::cos, f64::cos;
    tan: f32::tan, f64::tan;
    asin: f32::asin, f64::asin;
    acos: f32::acos, f64::acos;
    atan: f32::atan, f64::atan;
    sinh: f32::sinh, f64::sinh;
    cosh: f32::cosh, f64::cosh;
    tanh: f32::tanh, f64::tanh;
    exp: f32::exp, f64::exp;
    exp2: f32::exp2, f64::exp2;
    log: f32::ln, f64::ln;
    log2: f32::log2, f64::log2;
    log10: f32::log10, f64::log10;
    cbrt: f32::cbrt, f64::cbrt;
    erf: weft_ir::interp::erf_f32, weft_ir::interp::erf;
    erfc: weft_ir::interp::erfc_f32, weft_ir::interp::erfc;
    erfinv: weft_ir::interp::erfinv_f32, weft_ir::interp::erfinv;
}

extern "C" fn pow_f32(a: f32, b: f32) -> f32 {
    a.powf(b)
}
extern "C" fn pow_f64(a: f64, b: f64) -> f64 {
    a.powf(b)
}
extern "C" fn atan2_f32(a: f32, b: f32) -> f32 {
    a.atan2(b)
}
extern "C" fn atan2_f64(a: f64, b: f64) -> f64 {
    a.atan2(b)
}
extern "C" fn fmod_f32(a: f32, b: f32) -> f32 {
    a % b
}
extern "C" fn fmod_f64(a: f64, b: f64) -> f64 {
    a % b
}

extern "C" fn round_f16(x: f32) -> f32 {
    weft_ir::f16::f16_to_f32(weft_ir::f16::f32_to_f16(x))
}
extern "C" fn f64_to_f16(x: f64) -> f32 {
    weft_ir::f16::f16_to_f32(weft_ir::f16::f64_to_f16(x))
}
extern "C" fn f32_to_f16_bits(x: f32) -> u32 {
    weft_ir::f16::f32_to_f16(x) as u32
}
extern "C" fn f16_bits_to_f32(bits: u32) -> f32 {
    weft_ir::f16::f16_to_f32(bits as u16)
}

/// Prints one `Print` instruction's output.
///
/// # Safety
/// `fmt` points to `fmt_len` bytes of UTF-8; `types` and `values` point to
/// `n` bytes and `n` 8-byte slots written by the generated code: per scalar
/// leaf, its type as an index into [`Scalar::ALL`] and its value encoded as
/// a [`Const`]'s bits.
unsafe extern "C" fn print(
    fmt: *const u8,
    fmt_len: usize,
    types: *const u8,
    values: *const u64,
    n: usize,
) {
    // SAFETY: the generated code passes pointers to the format string owned
    // by the artifact and to `n` entries it has just written (contract
    // above).
    let (fmt, types, values) = unsafe {
        (
            std::slice::from_raw_parts(fmt, fmt_len),
            std::slice::from_raw_parts(types, n),
            std::slice::from_raw_parts(values, n),
        )
    };
    let fmt = String::from_utf8_lossy(fmt);
    let args: Vec<Const> = types
        .iter()
        .zip(values)
        .map(|(&t, &bits)| Const {
            ty: Scalar::ALL.get(t as usize).copied().unwrap_or(Scalar::U64),
            bits,
        })
        .collect();
    let line = weft_ir::interp::format_printf(&fmt, &args);
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    // Output errors (a closed stdout) are not the kernel's to report.
    let _ = out.write_all(line.as_bytes());
}

/// The address of a math shim, `f64` or `f32`.
fn math_ptr(f: MathFn, double: bool) -> *const u8 {
    macro_rules! pick {
        ($($v:ident => $n32:path, $n64:path),*) => {
            match f {
                $(MathFn::$v => if double { $n64 as *const u8 } else { $n32 as *const u8 },)*
            }
        };
    }
    pick!(Sin => unary32::sin, unary64::sin, Cos => unary32::cos, unary64::cos,
        Tan => unary32::tan, unary64::tan, Asin => unary32::asin, unary64::asin,
        Acos => unary32::acos, unary64::acos, Atan => unary32::atan, unary64::atan,
        Sinh => unary32::sinh, unary64::sinh, Cosh => unary32::cosh, unary64::cosh,
        Tanh => unary32::tanh, unary64::tanh, Exp => unary32::exp, unary64::exp,
        Exp2 => unary32::exp2, unary64::exp2, Log => unary32::log, unary64::log,
        Log2 => unary32::log2, unary64::log2, Log10 => unary32::log10, unary64::log10,
        Cbrt => unary32::cbrt, unary64::cbrt, Erf => unary32::erf, unary64::erf,
        Erfc => unary32::erfc, unary64::erfc, Erfinv => unary32::erfinv, unary64::erfinv,
        Pow => pow_f32, pow_f64, Atan2 => atan2_f32, atan2_f64, Fmod => fmod_f32, fmod_f64)
}

/// The `f32` math shim of `f` applied to `args` (one or two, by `f`'s
/// arity): what a call from the generated code returns.
pub fn eval_f32(f: MathFn, args: &[f32]) -> f32 {
    let a = args.first().copied().unwrap_or(f32::NAN);
    let b = args.get(1).copied().unwrap_or(f32::NAN);
    macro_rules! pick {
        ($($v:ident => $n:path),*) => {
            match f {
                $(MathFn::$v => $n(a),)*
                MathFn::Pow => pow_f32(a, b),
                MathFn::Atan2 => atan2_f32(a, b),
                MathFn::Fmod => fmod_f32(a, b),
            }
        };
    }
    pick!(Sin => unary32::sin, Cos => unary32::cos, Tan => unary32::tan,
        Asin => unary32::asin, Acos => unary32::acos, Atan => unary32::atan,
        Sinh => unary32::sinh, Cosh => unary32::cosh, Tanh => unary32::tanh,
        Exp => unary32::exp, Exp2 => unary32::exp2, Log => unary32::log,
        Log2 => unary32::log2, Log10 => unary32::log10, Cbrt => unary32::cbrt,
        Erf => unary32::erf, Erfc => unary32::erfc, Erfinv => unary32::erfinv)
}

/// The address of the shim named `name` ([`Shim::symbol`]).
pub fn address(name: &str) -> Option<*const u8> {
    table().iter().find(|s| s.name == name).map(ShimInfo::ptr)
}

/// Every shim with its symbol name, address and signature (`i32` results
/// and arguments of the `f16` bit shims are `u32` in C).
pub fn table() -> &'static [ShimInfo] {
    use AbiType::{F32, F64, I32, I64};
    static TABLE: OnceLock<Vec<ShimInfo>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Vec::new();
        let mut add = |shim: Shim, ptr: *const u8, params, returns| {
            t.push(ShimInfo {
                shim,
                name: shim.symbol(),
                addr: ptr as usize,
                params,
                returns,
            })
        };
        for f in MathFn::ALL {
            let (p32, p64): (&'static [AbiType], &'static [AbiType]) = if f.arity() == 2 {
                (&[F32, F32], &[F64, F64])
            } else {
                (&[F32], &[F64])
            };
            add(Shim::math(f, false), math_ptr(f, false), p32, &[F32]);
            add(Shim::math(f, true), math_ptr(f, true), p64, &[F64]);
        }
        add(Shim::RoundF16, round_f16 as *const u8, &[F32], &[F32]);
        add(Shim::F64ToF16, f64_to_f16 as *const u8, &[F64], &[F32]);
        add(
            Shim::F32ToF16Bits,
            f32_to_f16_bits as *const u8,
            &[F32],
            &[I32],
        );
        add(
            Shim::F16BitsToF32,
            f16_bits_to_f32 as *const u8,
            &[I32],
            &[F32],
        );
        add(
            Shim::Print,
            print as *const u8,
            &[I64, I64, I64, I64, I64],
            &[],
        );
        add(
            Shim::Trap,
            crate::trap::weft_trap as *const u8,
            &[I32, I32, I32, I32, I64, I64],
            &[],
        );
        add(
            Shim::DebugHook,
            crate::debug::weft_debug_hook as *const u8,
            &[I64, I64, I64],
            &[],
        );
        add(
            Shim::CancelPoll,
            crate::cancel::weft_cancel_poll as *const u8,
            &[],
            &[I32],
        );
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shim_has_one_unique_symbol() {
        let t = table();
        for (i, s) in t.iter().enumerate() {
            assert_eq!(s.name, s.shim.symbol());
            assert!(t[i + 1..].iter().all(|o| o.name != s.name), "{}", s.name);
            assert_eq!(address(&s.name), Some(s.ptr()));
        }
        assert_eq!(Shim::math(MathFn::Pow, true).symbol(), "weft_pow_f64");
        assert_eq!(address("weft_nope"), None);
    }

    #[test]
    fn math_shims_compute_what_the_interpreter_computes() {
        let sin = address("weft_sin_f32").unwrap();
        // SAFETY: the table says `weft_sin_f32` is `extern "C" fn(f32) -> f32`.
        let sin: extern "C" fn(f32) -> f32 = unsafe { std::mem::transmute(sin) };
        assert_eq!(sin(0.5).to_bits(), 0.5f32.sin().to_bits());
    }
}
