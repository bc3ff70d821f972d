//! `extern "C"` functions that JIT-compiled kernels call for operations
//! Cranelift has no instruction for: transcendentals, `f16` rounding and
//! conversion, and `print`.
//!
//! Each shim calls the same Rust function the reference interpreter uses
//! (`std`'s `f32::sin` and friends; `weft_ir::interp::{erf, erfc, erfinv}`,
//! computed in `f64` and rounded once for `f32`; `weft_ir::f16` for half
//! precision; `weft_ir::interp::format_printf` for `print`), so the JIT and
//! the interpreter produce bit-identical results. `table` lists every shim with its
//! Cranelift signature; the JIT registers them as symbols by name. Other
//! JITs (the LLVM host target) call the same functions through [`address`].

use cranelift_codegen::ir::types::{F32, F64, I32, I64};
use cranelift_codegen::ir::Type as ClType;
use weft_ir::{Const, Scalar};

/// A shim the generated code can call.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Shim {
    /// `f32 -> f32` math, by function.
    F32Unary(UnaryFn),
    /// `f64 -> f64` math, by function.
    F64Unary(UnaryFn),
    /// `(f32, f32) -> f32`.
    F32Binary(BinaryFn),
    /// `(f64, f64) -> f64`.
    F64Binary(BinaryFn),
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
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum UnaryFn {
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
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum BinaryFn {
    Pow,
    Atan2,
    Fmod,
}

/// A shim's symbol name, address and signature.
pub(crate) struct ShimInfo {
    pub shim: Shim,
    pub name: String,
    pub ptr: *const u8,
    pub params: Vec<ClType>,
    pub returns: Vec<ClType>,
}

/// `erf`, `erfc`, `erfinv` as the interpreter computes them.
mod math {
    use weft_ir::interp::{erf, erfc, erfinv};
    pub fn erf_f32(x: f32) -> f32 {
        erf(x as f64) as f32
    }
    pub fn erfc_f32(x: f32) -> f32 {
        erfc(x as f64) as f32
    }
    pub fn erfinv_f32(x: f32) -> f32 {
        erfinv(x as f64) as f32
    }
    pub fn erf_f64(x: f64) -> f64 {
        erf(x)
    }
    pub fn erfc_f64(x: f64) -> f64 {
        erfc(x)
    }
    pub fn erfinv_f64(x: f64) -> f64 {
        erfinv(x)
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
    erf: super::math::erf_f32, super::math::erf_f64;
    erfc: super::math::erfc_f32, super::math::erfc_f64;
    erfinv: super::math::erfinv_f32, super::math::erfinv_f64;
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

fn unary_ptr(f: UnaryFn, double: bool) -> *const u8 {
    macro_rules! pick {
        ($($v:ident => $n:ident),*) => {
            match f {
                $(UnaryFn::$v => if double { unary64::$n as *const u8 } else { unary32::$n as *const u8 },)*
            }
        };
    }
    pick!(Sin => sin, Cos => cos, Tan => tan, Asin => asin, Acos => acos, Atan => atan,
        Sinh => sinh, Cosh => cosh, Tanh => tanh, Exp => exp, Exp2 => exp2, Log => log,
        Log2 => log2, Log10 => log10, Cbrt => cbrt, Erf => erf, Erfc => erfc, Erfinv => erfinv)
}

const UNARY: [UnaryFn; 18] = [
    UnaryFn::Sin,
    UnaryFn::Cos,
    UnaryFn::Tan,
    UnaryFn::Asin,
    UnaryFn::Acos,
    UnaryFn::Atan,
    UnaryFn::Sinh,
    UnaryFn::Cosh,
    UnaryFn::Tanh,
    UnaryFn::Exp,
    UnaryFn::Exp2,
    UnaryFn::Log,
    UnaryFn::Log2,
    UnaryFn::Log10,
    UnaryFn::Cbrt,
    UnaryFn::Erf,
    UnaryFn::Erfc,
    UnaryFn::Erfinv,
];

/// The address of the shim named `name`: `weft_{f}_f32` / `weft_{f}_f64`
/// for the math functions (`sin`, ..., `erfinv`, `pow`, `atan2`, `fmod`),
/// `weft_round_f16`, `weft_f64_to_f16`, `weft_f32_to_f16_bits`,
/// `weft_f16_bits_to_f32`, `weft_print`, `weft_trap`, `weft_debug_hook`.
/// The signatures are the C ones of the Cranelift signatures in `table`
/// (`i32` results and arguments of the `f16` bit shims are `u32`).
pub fn address(name: &str) -> Option<*const u8> {
    table().into_iter().find(|s| s.name == name).map(|s| s.ptr)
}

/// Every shim with its symbol name, address and signature.
pub(crate) fn table() -> Vec<ShimInfo> {
    let mut t = Vec::new();
    let mut add =
        |shim: Shim, name: String, ptr: *const u8, params: &[ClType], returns: &[ClType]| {
            t.push(ShimInfo {
                shim,
                name,
                ptr,
                params: params.to_vec(),
                returns: returns.to_vec(),
            })
        };
    for f in UNARY {
        let n = format!("{f:?}").to_lowercase();
        add(
            Shim::F32Unary(f),
            format!("weft_{n}_f32"),
            unary_ptr(f, false),
            &[F32],
            &[F32],
        );
        add(
            Shim::F64Unary(f),
            format!("weft_{n}_f64"),
            unary_ptr(f, true),
            &[F64],
            &[F64],
        );
    }
    let bins: [(BinaryFn, *const u8, *const u8); 3] = [
        (BinaryFn::Pow, pow_f32 as *const u8, pow_f64 as *const u8),
        (
            BinaryFn::Atan2,
            atan2_f32 as *const u8,
            atan2_f64 as *const u8,
        ),
        (BinaryFn::Fmod, fmod_f32 as *const u8, fmod_f64 as *const u8),
    ];
    for (f, p32, p64) in bins {
        let n = format!("{f:?}").to_lowercase();
        add(
            Shim::F32Binary(f),
            format!("weft_{n}_f32"),
            p32,
            &[F32, F32],
            &[F32],
        );
        add(
            Shim::F64Binary(f),
            format!("weft_{n}_f64"),
            p64,
            &[F64, F64],
            &[F64],
        );
    }
    add(
        Shim::RoundF16,
        "weft_round_f16".into(),
        round_f16 as *const u8,
        &[F32],
        &[F32],
    );
    add(
        Shim::F64ToF16,
        "weft_f64_to_f16".into(),
        f64_to_f16 as *const u8,
        &[F64],
        &[F32],
    );
    add(
        Shim::F32ToF16Bits,
        "weft_f32_to_f16_bits".into(),
        f32_to_f16_bits as *const u8,
        &[F32],
        &[I32],
    );
    add(
        Shim::F16BitsToF32,
        "weft_f16_bits_to_f32".into(),
        f16_bits_to_f32 as *const u8,
        &[I32],
        &[F32],
    );
    add(
        Shim::Print,
        "weft_print".into(),
        print as *const u8,
        &[I64, I64, I64, I64, I64],
        &[],
    );
    add(
        Shim::Trap,
        "weft_trap".into(),
        crate::trap::weft_trap as *const u8,
        &[I32, I32, I32, I32, I64, I64],
        &[],
    );
    add(
        Shim::DebugHook,
        "weft_debug_hook".into(),
        crate::debug::weft_debug_hook as *const u8,
        &[I64, I64, I64],
        &[],
    );
    t
}
