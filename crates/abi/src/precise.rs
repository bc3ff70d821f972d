//! Inline forms of the *precise* `f32` transcendentals, for vector lanes.
//!
//! The host shims compute `f32` math with glibc (`sinf`, `expf`, ...), one
//! value per call. The vector tier (`docs/vector.md`) cannot call them
//! without taking its vectors apart, so for the functions of
//! [`vectorizes`] it inlines the algorithms below instead: each evaluates
//! the function of an `f32` argument in **`f64` arithmetic** (a range
//! reduction exact or accurate to about 2⁻⁹⁰, then a polynomial accurate to
//! about 2⁻⁵² relative) and rounds once to `f32`. The `f64` value is within
//! a few 2⁻⁵² of the exact one, so its rounding is the correctly rounded
//! `f32` result except when the exact value lies within ~2⁻²⁸ ulp of a
//! halfway point between two `f32`s, which no sweep below has met. glibc's
//! `f32` functions are not correctly rounded everywhere, so the vector
//! tier gives the shim's bits at all but 0.01–0.4 % of the inputs (`log10`
//! and the hyperbolics: 0.6–4 %), and otherwise a neighbour (see the
//! table below).
//!
//! Each algorithm also says which lanes it covers: the rest (NaN, ±∞,
//! arguments past the range reduction's exactness, ±0 and negatives for
//! `log`) take the shim itself, lane by lane, so they are bit for bit the
//! shim's result. Covered lanes are never special: every covered input has
//! a finite, nonzero `f64` result (`sin(±0)` is ±0 by the algebra).
//!
//! As in [`crate::fastmath`], each algorithm is written once over [`Ops`];
//! the LLVM vector tier (`weft-backend-llvm`, `lower/vmath.rs`) implements it
//! in `<W x double>` vectors, and [`Exact`] runs it in Rust (the reference
//! the tests sweep against the shims). `fma` is fused where the host has
//! FMA (the LLVM side calls `llvm.fma` only then); the results are the
//! same either way up to the bound below.
//!
//! # Algorithms
//!
//! * `sin`, `cos`, `tan` (covered: `|x| ≤ 2¹⁹`): `k = round(x·2/π)`, `r =
//!   x − k·π/2` with π/2 in three parts, the first two of 32 significant
//!   bits so that `k·P1`, `k·P2` and `x − k·P1` are exact (`|k| < 2²⁰`);
//!   `sin r = r·S(r²)`, `cos r = C(r²)` on `|r| ≤ π/4`, their Taylor series
//!   through `r¹⁵` and `r¹⁶` (truncation below 2⁻⁵⁴ relative); the quadrant
//!   `k mod 4` swaps and negates; `tan = ±S/C` or `∓C/S`, one division.
//! * `exp` (covered: `|x| ≤ 104`; beyond, the `f32` result is `+∞` or `0`):
//!   `k = round(x·log₂e)`, `r = x − k·ln2` (ln 2 in two parts, the first of
//!   32 bits: `x − k·L1` exact), `exp r` by its Taylor series through `r¹²`
//!   on `|r| ≤ ln2/2` (below 2⁻⁵² relative), times `2^k` (exact in `f64`:
//!   the one rounding to `f32` also makes the overflows and the
//!   subnormals). `exp2` (covered `|x| ≤ 152`): `k = round(x)`, `r = (x −
//!   k)·ln2`, the same.
//! * `sinh`, `cosh`, `tanh` (covered: `|x| ≤ 104`): `E = exp x` as above,
//!   `cosh = (E + 1/E)/2`, `sinh = (E − 1/E)/2`, or its Taylor series
//!   through `x¹⁵` for `|x| < ½` (where the difference cancels), `tanh =
//!   sinh/cosh`.
//! * `atan` (covered: finite `x`): four half-angle steps `t ← t/(1 +
//!   √(1 + t²))` (`atan t = 2·atan t'`) take any `x` into `|u| < 0.0985`,
//!   where the series through `u¹⁵` is below 2⁻⁵⁴; `atan x = 16·atan u`.
//!   `asin x = 2·atan(x/(1 + √((1−x)(1+x))))` (`|x| ≤ 1`, three more
//!   steps), `acos x = 2·atan √((1−x)/(1+x))` (`−1 < x ≤ 1`). Each step
//!   costs a square root and a division; the error grows by a few 2⁻⁵³ per
//!   step.
//! * `pow(x, y)` (covered: `x > 0` finite, `y` finite, `|y·log₂x| ≤ 152`):
//!   `exp2(y·log₂x)` with the `f64` `log2` and `exp2` above (the product's
//!   rounding costs up to ~2⁻⁴⁴ relative when `|y·log₂x|` is large).
//!   `atan2(y, x)` (covered: both finite and nonzero): `atan(y/x)`, `± π`
//!   when `x < 0`.
//! * `log`, `log2`, `log10` (covered: positive finite `x`, subnormals
//!   included: they are normal in `f64`): `x = 2^e·m` with `m` in `[√½,
//!   √2)`, `f = m − 1` (exact), `s = f/(2+f)`, `log m = 2·atanh s = s·L(s²)`
//!   (series through `s¹⁹`, below 2⁻⁵⁵ relative on `|s| ≤ 0.172`), plus
//!   `e·ln2`; `log2 = e + log m·log₂e`, `log10 = e·log₁₀2 + log m·log₁₀e`.
//!
//! # Accuracy against the shims
//!
//! The test `matches_the_shims` compares [`Exact`] (fused and not) with the
//! shim, and with the `f64` function rounded to `f32` (the reference: glibc's
//! `sin`, ... in double, rounded once), at every input of two sweeps: a
//! stride through all 2³² bit patterns (every 4096th: 2²⁰ inputs, NaNs,
//! infinities, subnormals and zeros included, and the special values) and
//! a dense sweep of the common range (2²⁰ inputs), about 2.1M per
//! function; without FMA it must give the same bits (checked at every
//! 16th input). Over the covered inputs the inline forms give the reference's
//! bits at every one of them: they are correctly rounded there. glibc's
//! `f32` functions are not always (`sinf` and friends promise about 0.5x
//! ulp; `log10f`, `sinhf`, `coshf`, `tanhf` are older and up to 2 ulp
//! off), so the inline forms differ from the shims at a few inputs, by 1
//! ulp (those four: 2). Counts ([`DIFFERING`] holds them, the test
//! asserts them as ceilings):
//!
//! | function | dense sweep | differ from the shim | from the reference | bound vs the shim |
//! |---|---|---|---|---|
//! | `sin` | `|x| ≤ 100` | 2 748 (0.13 %) | 0 | 1 ulp |
//! | `cos` | `|x| ≤ 100` | 1 922 | 0 | 1 ulp |
//! | `tan` | `|x| ≤ 100` | 5 966 (0.28 %) | 0 | 1 ulp |
//! | `exp` | `|x| ≤ 90` | 131 | 0 | 1 ulp |
//! | `exp2` | `|x| ≤ 130` | 127 | 0 | 1 ulp |
//! | `log` | `0 < x ≤ 10⁴` | 427 | 0 | 1 ulp |
//! | `log2` | `0 < x ≤ 10⁴` | 292 | 0 | 1 ulp |
//! | `log10` | `0 < x ≤ 10⁴` | 28 132 (1.34 %) | 0 | 2 ulp |
//! | `sinh` | `|x| ≤ 90` | 50 758 (2.42 %) | 0 | 2 ulp |
//! | `cosh` | `|x| ≤ 90` | 12 722 (0.61 %) | 0 | 2 ulp |
//! | `tanh` | `|x| ≤ 10` | 85 956 (4.10 %) | 0 | 2 ulp |
//! | `atan` | `|x| ≤ 10³` | 7 990 (0.38 %) | 0 | 1 ulp |
//! | `asin` | `|x| ≤ 1` | 3 400 (0.16 %) | 0 | 1 ulp |
//! | `acos` | `|x| ≤ 1` | 3 954 (0.19 %) | 0 | 1 ulp |
//! | `pow` | `|x|, |y| ≤ 10` | 25 | 0 | 1 ulp |
//! | `atan2` | `|x|, |y| ≤ 100` | 286 544 (22 %) | 0 | 1 ulp |
//!
//! The binary functions sweep 1.3M pairs: the bit-pattern stride paired
//! with itself scrambled, and a 514 × 514 grid of the dense range (glibc's
//! `atan2f` loses bits where `y/x` is tiny or huge in `f32`).

use std::convert::Infallible;
use weft_ir::MathFn;

/// Whether [`emit`] has an inline form of `f` on `f32`.
pub fn vectorizes(f: MathFn) -> bool {
    use MathFn::*;
    matches!(
        f,
        Sin | Cos
            | Tan
            | Exp
            | Exp2
            | Log
            | Log2
            | Log10
            | Sinh
            | Cosh
            | Tanh
            | Atan
            | Asin
            | Acos
            | Pow
            | Atan2
    )
}

/// Per function: how many inputs of the sweeps of `matches_the_shims` give
/// a result other than the shim's, and other than the `f64` reference's
/// (see the module docs).
pub const DIFFERING: [(MathFn, u32, u32); 16] = [
    (MathFn::Sin, 2748, 0),
    (MathFn::Cos, 1922, 0),
    (MathFn::Tan, 5966, 0),
    (MathFn::Exp, 131, 0),
    (MathFn::Exp2, 127, 0),
    (MathFn::Log, 427, 0),
    (MathFn::Log2, 292, 0),
    (MathFn::Log10, 28132, 0),
    (MathFn::Sinh, 50758, 0),
    (MathFn::Cosh, 12722, 0),
    (MathFn::Tanh, 85956, 0),
    (MathFn::Atan, 7990, 0),
    (MathFn::Asin, 3400, 0),
    (MathFn::Acos, 3954, 0),
    (MathFn::Pow, 25, 0),
    (MathFn::Atan2, 286_544, 0),
];

/// The most ulps by which the inline form of `f` may differ from the shim
/// (the inline forms are correctly rounded on the sweeps; glibc's
/// `log10f`, `sinhf`, `coshf` and `tanhf` are up to 2 ulp off).
pub fn bound_ulps(f: MathFn) -> u64 {
    match f {
        MathFn::Log10 | MathFn::Sinh | MathFn::Cosh | MathFn::Tanh => 2,
        _ => 1,
    }
}

/// The reduction constants; the polynomial coefficients are Taylor
/// coefficients, built by [`taylor`].
pub mod consts {
    /// π/2 = `PIO2[0] + PIO2[1] + PIO2[2]` (to 2⁻¹²²); the first two have
    /// 32 significant bits.
    pub const PIO2: [f64; 3] = [
        1.570_796_326_734_125_6,
        6.077_100_506_303_966e-11,
        2.022_266_248_795_950_6e-21,
    ];
    /// `sin`/`cos`/`tan` cover `|x| ≤ TRIG_MAX` (so `|k| < 2²⁰`).
    pub const TRIG_MAX: f64 = 524_288.0;
    /// ln 2 = `LN2_SPLIT[0] + LN2_SPLIT[1]` (to 2⁻⁸⁹); the first has 32
    /// significant bits.
    pub const LN2_SPLIT: [f64; 2] = [0.693_147_180_601_954_5, -4.200_915_072_681_084_6e-11];
    /// `exp` covers `|x| ≤ EXP_MAX`, `exp2` `|x| ≤ EXP2_MAX`.
    pub const EXP_MAX: f64 = 104.0;
    pub const EXP2_MAX: f64 = 152.0;
    /// 1.5·2⁵²: `(y + R) − R` rounds `y` to an integer (`|y| < 2⁵¹`) and
    /// `bits(y + R) − bits(R)` is that integer.
    pub const ROUND: f64 = 6_755_399_441_055_744.0;
    /// The bits of √½ rounded to `f64`: `log` splits `x` as `2^e·m` from
    /// there.
    pub const SQRT_HALF_BITS: i64 = 0x3fe6_a09e_667f_3bcd;
}

use consts::*;
use std::f64::consts::{FRAC_2_PI, LN_2, LOG10_2, LOG10_E, LOG2_E, PI};

/// `n!` (exact in `f64` for the `n ≤ 19` used here).
const fn fact(n: u32) -> f64 {
    let mut f = 1.0;
    let mut i = 2;
    while i <= n {
        f *= i as f64;
        i += 1;
    }
    f
}

/// `N` Taylor coefficients `sign(i)·1/(first + step·i)!`, alternating in
/// sign when `alt`, each `1/n!` correctly rounded.
const fn taylor<const N: usize>(first: u32, step: u32, alt: bool) -> [f64; N] {
    let mut c = [0.0; N];
    let mut i = 0;
    while i < N {
        let v = 1.0 / fact(first + step * i as u32);
        c[i] = if alt && i % 2 == 1 { -v } else { v };
        i += 1;
    }
    c
}

/// `N` coefficients `sign(i)·num/(2i + 1)`, alternating in sign when
/// `alt`.
const fn odd_reciprocals<const N: usize>(num: f64, alt: bool) -> [f64; N] {
    let mut c = [0.0; N];
    let mut i = 0;
    while i < N {
        let v = num / (2 * i + 1) as f64;
        c[i] = if alt && i % 2 == 1 { -v } else { v };
        i += 1;
    }
    c
}

/// `sin r = r·Σ (−1)ⁱ r²ⁱ/(2i+1)!`, through `r¹⁵`.
const SIN: [f64; 8] = taylor(1, 2, true);
/// `sinh x = x·Σ x²ⁱ/(2i+1)!`, through `x¹⁵` (`|x| < ½`).
const SINH: [f64; 8] = taylor(1, 2, false);
/// `atan u = u·Σ (−1)ⁱ u²ⁱ/(2i+1)`, through `u¹⁵` (`|u| < 0.1`).
const ATAN: [f64; 8] = odd_reciprocals(1.0, true);
/// `cos r = Σ (−1)ⁱ r²ⁱ/(2i)!`, through `r¹⁶`.
const COS: [f64; 9] = taylor(0, 2, true);
/// `exp r = Σ rⁱ/i!`, through `r¹²`.
const EXP: [f64; 13] = taylor(0, 1, false);
/// `log m = s·Σ 2·s²ⁱ/(2i+1)`, through `s¹⁹`.
const LOG: [f64; 10] = odd_reciprocals(2.0, false);

/// A float comparison giving a mask.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Cmp {
    /// `a <= b` (false if either is NaN).
    Le,
    /// `a < b` (false if either is NaN).
    Lt,
}

/// The operations the algorithms are written in. Values are `f32`s,
/// `f64`s, `i64`s (the bits of `f64`s) or masks (lanes of them); the
/// algorithms convert explicitly.
pub trait Ops {
    type V: Copy;
    type E;
    /// `f32` → `f64` (exact).
    fn widen(&mut self, a: Self::V) -> Result<Self::V, Self::E>;
    /// `f64` → `f32`, rounding to nearest even.
    fn narrow(&mut self, a: Self::V) -> Result<Self::V, Self::E>;
    /// An `f64` constant.
    fn fconst(&mut self, x: f64) -> Result<Self::V, Self::E>;
    /// An `i64` constant.
    fn iconst(&mut self, x: i64) -> Result<Self::V, Self::E>;
    fn fadd(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn fsub(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn fmul(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn fdiv(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn fneg(&mut self, a: Self::V) -> Result<Self::V, Self::E>;
    fn fabs(&mut self, a: Self::V) -> Result<Self::V, Self::E>;
    /// The correctly rounded square root.
    fn sqrt(&mut self, a: Self::V) -> Result<Self::V, Self::E>;
    /// `a·b + c`: fused or not, as the implementation was told.
    fn fma(&mut self, a: Self::V, b: Self::V, c: Self::V) -> Result<Self::V, Self::E>;
    /// An `f64` comparison.
    fn fcmp(&mut self, cc: Cmp, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    /// `i64` equality.
    fn ieq(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    /// Both masks.
    fn and(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    /// `mask ? a : b` (two `f64`s).
    fn select(&mut self, mask: Self::V, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    /// `f64` → its bits.
    fn bits(&mut self, a: Self::V) -> Result<Self::V, Self::E>;
    /// Bits → `f64`.
    fn float(&mut self, a: Self::V) -> Result<Self::V, Self::E>;
    fn iadd(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn isub(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn iand(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn ixor(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn shl(&mut self, a: Self::V, n: u32) -> Result<Self::V, Self::E>;
    /// Arithmetic shift right.
    fn sshr(&mut self, a: Self::V, n: u32) -> Result<Self::V, Self::E>;
}

/// Horner: `c[0] + x·(c[1] + x·(…))`.
fn horner<O: Ops>(o: &mut O, x: O::V, c: &[f64]) -> Result<O::V, O::E> {
    let (last, rest) = c.split_last().expect("non-empty table");
    let mut acc = o.fconst(*last)?;
    for &k in rest.iter().rev() {
        let kc = o.fconst(k)?;
        acc = o.fma(acc, x, kc)?;
    }
    Ok(acc)
}

/// `round(y)` as a float and as an integer, for `|y| < 2⁵¹`.
fn round_int<O: Ops>(o: &mut O, y: O::V) -> Result<(O::V, O::V), O::E> {
    let r = o.fconst(ROUND)?;
    let t = o.fadd(y, r)?;
    let kf = o.fsub(t, r)?;
    let tb = o.bits(t)?;
    let rb = o.iconst(ROUND.to_bits() as i64)?;
    let ki = o.isub(tb, rb)?;
    Ok((kf, ki))
}

/// Cody–Waite: `k = round(x·inv)` and `x − k·(parts[0] + parts[1] + …)`,
/// one part at a time (exact while `k·parts[i]` are), and `k` as an
/// integer.
fn reduce<O: Ops>(o: &mut O, x: O::V, inv: f64, parts: &[f64]) -> Result<(O::V, O::V), O::E> {
    let c = o.fconst(inv)?;
    let y = o.fmul(x, c)?;
    let (kf, ki) = round_int(o, y)?;
    let nk = o.fneg(kf)?;
    let mut r = x;
    for &p in parts {
        let pc = o.fconst(p)?;
        r = o.fma(nk, pc, r)?;
    }
    Ok((r, ki))
}

/// The mask `|x| ≤ max`.
fn within<O: Ops>(o: &mut O, x: O::V, max: f64) -> Result<O::V, O::E> {
    let a = o.fabs(x)?;
    let m = o.fconst(max)?;
    o.fcmp(Cmp::Le, a, m)
}

/// How many `f32` steps `a` is from `b` (0 for two NaNs, `u64::MAX` for
/// a NaN and a number): the measure of [`bound_ulps`].
pub fn ulps_apart(a: f32, b: f32) -> u64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    // Ordered so that consecutive floats are consecutive integers.
    let key = |x: f32| {
        let b = x.to_bits() as i64;
        if b < 0x8000_0000 {
            b
        } else {
            0x8000_0000 - b
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// An inline form's output.
#[derive(Copy, Clone, Debug)]
pub struct Inline<V> {
    /// The `f32` result.
    pub value: V,
    /// The mask of the lanes it covers: the others must take the shim.
    pub covered: V,
}

/// The inline form of `f` at the `f32` arguments `args` (`f`'s arity of
/// them; `None` when `f` has no inline form: see [`vectorizes`]).
pub fn emit<O: Ops>(o: &mut O, f: MathFn, args: &[O::V]) -> Result<Option<Inline<O::V>>, O::E> {
    if !vectorizes(f) || args.len() != f.arity() {
        return Ok(None);
    }
    let x = o.widen(args[0])?;
    let (v, covered) = match f {
        MathFn::Pow | MathFn::Atan2 => {
            let y = o.widen(args[1])?;
            if f == MathFn::Pow {
                pow(o, x, y)?
            } else {
                atan2(o, x, y)?
            }
        }
        MathFn::Sin | MathFn::Cos | MathFn::Tan => (trig(o, f, x)?, within(o, x, TRIG_MAX)?),
        MathFn::Exp => (exp(o, x, false)?, within(o, x, EXP_MAX)?),
        MathFn::Exp2 => (exp(o, x, true)?, within(o, x, EXP2_MAX)?),
        MathFn::Sinh | MathFn::Cosh | MathFn::Tanh => {
            (hyperbolic(o, f, x)?, within(o, x, EXP_MAX)?)
        }
        MathFn::Atan => (atan(o, x)?, within(o, x, f64::MAX)?),
        MathFn::Asin => (asin(o, x)?, within(o, x, 1.0)?),
        MathFn::Acos => {
            // −1 < x ≤ 1 (acos(−1) = π takes the shim).
            let m1 = o.fconst(-1.0)?;
            let above = o.fcmp(Cmp::Lt, m1, x)?;
            let one = o.fconst(1.0)?;
            let le1 = o.fcmp(Cmp::Le, x, one)?;
            (acos(o, x)?, o.and(above, le1)?)
        }
        _ => {
            // 0 < x < ∞ (NaN: false).
            let zero = o.fconst(0.0)?;
            let pos = o.fcmp(Cmp::Lt, zero, x)?;
            let fin = within(o, x, f64::MAX)?;
            (log(o, f, x)?, o.and(pos, fin)?)
        }
    };
    Ok(Some(Inline {
        value: o.narrow(v)?,
        covered,
    }))
}

/// `sin`, `cos` or `tan` of the `f64` `x`.
fn trig<O: Ops>(o: &mut O, f: MathFn, x: O::V) -> Result<O::V, O::E> {
    let (r, ki) = reduce(o, x, FRAC_2_PI, &PIO2)?;
    let z = o.fmul(r, r)?;
    let ps = horner(o, z, &SIN)?;
    let s = o.fmul(r, ps)?;
    let c = horner(o, z, &COS)?;
    // Quadrant q = k (+1 for cos): odd swaps sin and cos, bit 1 negates.
    let q = if f == MathFn::Cos {
        let one = o.iconst(1)?;
        o.iadd(ki, one)?
    } else {
        ki
    };
    let one = o.iconst(1)?;
    let low = o.iand(q, one)?;
    let odd = o.ieq(low, one)?;
    if f == MathFn::Tan {
        let nc = o.fneg(c)?;
        let num = o.select(odd, nc, s)?;
        let den = o.select(odd, s, c)?;
        return o.fdiv(num, den);
    }
    let v = o.select(odd, c, s)?;
    let vb = o.bits(v)?;
    let sign = o.shl(q, 62)?;
    let m = o.iconst(i64::MIN)?;
    let sign = o.iand(sign, m)?;
    let vb = o.ixor(vb, sign)?;
    o.float(vb)
}

/// `exp` (`two` false) or `exp2` of the `f64` `x`.
fn exp<O: Ops>(o: &mut O, x: O::V, two: bool) -> Result<O::V, O::E> {
    let (r, ki) = if two {
        let (kf, ki) = round_int(o, x)?;
        let d = o.fsub(x, kf)?;
        let l = o.fconst(LN_2)?;
        (o.fmul(d, l)?, ki)
    } else {
        reduce(o, x, LOG2_E, &LN2_SPLIT)?
    };
    let p = horner(o, r, &EXP)?;
    // 2^k, |k| ≤ 220: a normal f64.
    let bias = o.iconst(1023)?;
    let b = o.iadd(ki, bias)?;
    let b = o.shl(b, 52)?;
    let scale = o.float(b)?;
    o.fmul(p, scale)
}

/// `sinh`, `cosh` or `tanh` of the `f64` `x` (an `f32`'s value, `|x| ≤
/// EXP_MAX`): from `E = exp x`, `sinh = (E − 1/E)/2` (by its Taylor series
/// for `|x| < ½`, where that cancels), `cosh = (E + 1/E)/2`, `tanh =
/// sinh/cosh`.
fn hyperbolic<O: Ops>(o: &mut O, f: MathFn, x: O::V) -> Result<O::V, O::E> {
    let e = exp(o, x, false)?;
    let one = o.fconst(1.0)?;
    let inv = o.fdiv(one, e)?;
    let half = o.fconst(0.5)?;
    let sum = o.fadd(e, inv)?;
    let cosh = o.fmul(sum, half)?;
    if f == MathFn::Cosh {
        return Ok(cosh);
    }
    let diff = o.fsub(e, inv)?;
    let big = o.fmul(diff, half)?;
    let z = o.fmul(x, x)?;
    let p = horner(o, z, &SINH)?;
    let small = o.fmul(x, p)?;
    let is_small = within(o, x, 0.5)?;
    let sinh = o.select(is_small, small, big)?;
    if f == MathFn::Sinh {
        return Ok(sinh);
    }
    o.fdiv(sinh, cosh)
}

/// `atan t` after `halvings` half-angle steps `t ← t/(1 + √(1 + t²))`
/// (`atan t = 2·atan t'`; `[0, ∞) → [0, 1) → [0, 0.415) → [0, 0.199) →
/// [0, 0.0985)`, odd in `t`), by the series through `u¹⁵`.
fn atan_halved<O: Ops>(o: &mut O, t: O::V, halvings: u32) -> Result<O::V, O::E> {
    let one = o.fconst(1.0)?;
    let mut u = t;
    for _ in 0..halvings {
        let sq = o.fmul(u, u)?;
        let s1 = o.fadd(sq, one)?;
        let r = o.sqrt(s1)?;
        let d = o.fadd(r, one)?;
        u = o.fdiv(u, d)?;
    }
    let z = o.fmul(u, u)?;
    let p = horner(o, z, &ATAN)?;
    let a = o.fmul(u, p)?;
    let scale = o.fconst((1u32 << halvings) as f64)?;
    o.fmul(a, scale)
}

/// `pow(x, y)` and the lanes it covers (`x` positive finite, `y` finite,
/// `|y·log₂x| ≤ EXP2_MAX`): `exp2(y·log₂ x)`.
fn pow<O: Ops>(o: &mut O, x: O::V, y: O::V) -> Result<(O::V, O::V), O::E> {
    let l = log(o, MathFn::Log2, x)?;
    let t = o.fmul(y, l)?;
    let v = exp(o, t, true)?;
    let zero = o.fconst(0.0)?;
    let pos = o.fcmp(Cmp::Lt, zero, x)?;
    let xf = within(o, x, f64::MAX)?;
    let yf = within(o, y, f64::MAX)?;
    let tr = within(o, t, EXP2_MAX)?;
    let c = o.and(pos, xf)?;
    let c = o.and(c, yf)?;
    Ok((v, o.and(c, tr)?))
}

/// `atan2(y, x)` and the lanes it covers (both finite and nonzero: the
/// zeros' signs take the shim): `atan(y/x)`, `± π` when `x < 0` (`y/x` is
/// a normal `f64` for any two such `f32`s).
fn atan2<O: Ops>(o: &mut O, y: O::V, x: O::V) -> Result<(O::V, O::V), O::E> {
    let q = o.fdiv(y, x)?;
    let a = atan(o, q)?;
    let zero = o.fconst(0.0)?;
    let yneg = o.fcmp(Cmp::Lt, y, zero)?;
    let (pi, npi) = (o.fconst(PI)?, o.fconst(-PI)?);
    let pis = o.select(yneg, npi, pi)?;
    let xneg = o.fcmp(Cmp::Lt, x, zero)?;
    let adj = o.select(xneg, pis, zero)?;
    let v = o.fadd(a, adj)?;
    let mut c = within(o, x, f64::MAX)?;
    for z in [x, y] {
        let fin = within(o, z, f64::MAX)?;
        let az = o.fabs(z)?;
        let nz = o.fcmp(Cmp::Lt, zero, az)?;
        c = o.and(c, fin)?;
        c = o.and(c, nz)?;
    }
    Ok((v, c))
}

/// `atan` of the finite `f64` `x`: four halvings.
fn atan<O: Ops>(o: &mut O, x: O::V) -> Result<O::V, O::E> {
    atan_halved(o, x, 4)
}

/// `asin x = 2·atan(x/(1 + √((1−x)(1+x))))` for `|x| ≤ 1` (the argument
/// is in `[−1, 1]`; `(1−x)(1+x)` is exact in `f64`).
fn asin<O: Ops>(o: &mut O, x: O::V) -> Result<O::V, O::E> {
    let one = o.fconst(1.0)?;
    let a = o.fsub(one, x)?;
    let b = o.fadd(one, x)?;
    let p = o.fmul(a, b)?;
    let r = o.sqrt(p)?;
    let d = o.fadd(r, one)?;
    let t = o.fdiv(x, d)?;
    let h = atan_halved(o, t, 3)?;
    let two = o.fconst(2.0)?;
    o.fmul(h, two)
}

/// `acos x = 2·atan √((1−x)/(1+x))` for `−1 < x ≤ 1`.
fn acos<O: Ops>(o: &mut O, x: O::V) -> Result<O::V, O::E> {
    let one = o.fconst(1.0)?;
    let a = o.fsub(one, x)?;
    let b = o.fadd(one, x)?;
    let q = o.fdiv(a, b)?;
    let t = o.sqrt(q)?;
    let h = atan_halved(o, t, 4)?;
    let two = o.fconst(2.0)?;
    o.fmul(h, two)
}

/// `log`, `log2` or `log10` of the positive finite `f64` `x`.
fn log<O: Ops>(o: &mut O, f: MathFn, x: O::V) -> Result<O::V, O::E> {
    // x = 2^e · m, m in [√½, √2).
    let xb = o.bits(x)?;
    let sh = o.iconst(SQRT_HALF_BITS)?;
    let ix = o.isub(xb, sh)?;
    let e = o.sshr(ix, 52)?;
    let mant = o.iconst((1 << 52) - 1)?;
    let mb = o.iand(ix, mant)?;
    let mb = o.iadd(mb, sh)?;
    let m = o.float(mb)?;
    let one = o.fconst(1.0)?;
    let fm = o.fsub(m, one)?;
    let two = o.fconst(2.0)?;
    let d = o.fadd(fm, two)?;
    let s = o.fdiv(fm, d)?;
    let z = o.fmul(s, s)?;
    let l = horner(o, z, &LOG)?;
    let logm = o.fmul(s, l)?;
    // e as a float: exact by the rounding trick backwards.
    let rb = o.iconst(ROUND.to_bits() as i64)?;
    let eb = o.iadd(e, rb)?;
    let ef = o.float(eb)?;
    let rc = o.fconst(ROUND)?;
    let ef = o.fsub(ef, rc)?;
    match f {
        MathFn::Log2 => {
            let c = o.fconst(LOG2_E)?;
            o.fma(logm, c, ef)
        }
        MathFn::Log10 => {
            let c = o.fconst(LOG10_E)?;
            let t = o.fmul(logm, c)?;
            let c2 = o.fconst(LOG10_2)?;
            o.fma(ef, c2, t)
        }
        _ => {
            let c = o.fconst(LN_2)?;
            o.fma(ef, c, logm)
        }
    }
}

/// [`Ops`] in Rust on one value (held as its bits in a `u64`; an `f32`'s in
/// the low half, a mask all ones or zero): the reference the tests sweep,
/// computing what the generated code computes.
#[derive(Copy, Clone, Debug)]
pub struct Exact {
    /// Whether `fma` is fused.
    pub fused: bool,
}

impl Exact {
    /// `f` at `x` as the vector tier computes it: the inline form where it
    /// covers `x`, else the shim (`None` if `f` has no inline form).
    pub fn eval(self, f: MathFn, args: &[f32]) -> Option<f32> {
        let mut o = self;
        let bits: Vec<u64> = args.iter().map(|a| a.to_bits() as u64).collect();
        let r = match emit(&mut o, f, &bits) {
            Ok(v) => v?,
            Err(e) => match e {},
        };
        Some(if r.covered != 0 {
            f32::from_bits(r.value as u32)
        } else {
            crate::shims::eval_f32(f, args)
        })
    }

    /// Whether the inline form of `f` covers `x` (else the shim runs).
    pub fn covers(self, f: MathFn, args: &[f32]) -> bool {
        let mut o = self;
        let bits: Vec<u64> = args.iter().map(|a| a.to_bits() as u64).collect();
        match emit(&mut o, f, &bits) {
            Ok(v) => v.is_some_and(|r| r.covered != 0),
            Err(e) => match e {},
        }
    }
}

fn fl(x: u64) -> f64 {
    f64::from_bits(x)
}

fn mask(t: bool) -> u64 {
    if t {
        u64::MAX
    } else {
        0
    }
}

impl Ops for Exact {
    type V = u64;
    type E = Infallible;
    fn widen(&mut self, a: u64) -> Result<u64, Infallible> {
        Ok((f32::from_bits(a as u32) as f64).to_bits())
    }
    fn narrow(&mut self, a: u64) -> Result<u64, Infallible> {
        Ok((fl(a) as f32).to_bits() as u64)
    }
    fn fconst(&mut self, x: f64) -> Result<u64, Infallible> {
        Ok(x.to_bits())
    }
    fn iconst(&mut self, x: i64) -> Result<u64, Infallible> {
        Ok(x as u64)
    }
    fn fadd(&mut self, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok((fl(a) + fl(b)).to_bits())
    }
    fn fsub(&mut self, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok((fl(a) - fl(b)).to_bits())
    }
    fn fmul(&mut self, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok((fl(a) * fl(b)).to_bits())
    }
    fn fdiv(&mut self, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok((fl(a) / fl(b)).to_bits())
    }
    fn fneg(&mut self, a: u64) -> Result<u64, Infallible> {
        Ok(a ^ (1 << 63))
    }
    fn fabs(&mut self, a: u64) -> Result<u64, Infallible> {
        Ok(a & !(1 << 63))
    }
    fn sqrt(&mut self, a: u64) -> Result<u64, Infallible> {
        Ok(fl(a).sqrt().to_bits())
    }
    fn fma(&mut self, a: u64, b: u64, c: u64) -> Result<u64, Infallible> {
        Ok(if self.fused {
            fl(a).mul_add(fl(b), fl(c))
        } else {
            fl(a) * fl(b) + fl(c)
        }
        .to_bits())
    }
    fn fcmp(&mut self, cc: Cmp, a: u64, b: u64) -> Result<u64, Infallible> {
        let (a, b) = (fl(a), fl(b));
        Ok(mask(match cc {
            Cmp::Le => a <= b,
            Cmp::Lt => a < b,
        }))
    }
    fn ieq(&mut self, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok(mask(a == b))
    }
    fn and(&mut self, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok(a & b)
    }
    fn select(&mut self, m: u64, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok(if m != 0 { a } else { b })
    }
    fn bits(&mut self, a: u64) -> Result<u64, Infallible> {
        Ok(a)
    }
    fn float(&mut self, a: u64) -> Result<u64, Infallible> {
        Ok(a)
    }
    fn iadd(&mut self, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok(a.wrapping_add(b))
    }
    fn isub(&mut self, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok(a.wrapping_sub(b))
    }
    fn iand(&mut self, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok(a & b)
    }
    fn ixor(&mut self, a: u64, b: u64) -> Result<u64, Infallible> {
        Ok(a ^ b)
    }
    fn shl(&mut self, a: u64, n: u32) -> Result<u64, Infallible> {
        Ok(a << n)
    }
    fn sshr(&mut self, a: u64, n: u32) -> Result<u64, Infallible> {
        Ok(((a as i64) >> n) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dense sweep's range of `f`: `(lo, hi, both signs)`.
    fn dense(f: MathFn) -> (f32, f32, bool) {
        match f {
            MathFn::Exp => (0.0, 90.0, true),
            MathFn::Exp2 => (0.0, 130.0, true),
            MathFn::Log | MathFn::Log2 | MathFn::Log10 => (0.0, 1e4, false),
            MathFn::Sinh | MathFn::Cosh => (0.0, 90.0, true),
            MathFn::Tanh => (0.0, 10.0, true),
            MathFn::Pow => (0.0, 10.0, true),
            MathFn::Atan2 => (0.0, 100.0, true),
            MathFn::Atan => (0.0, 1e3, true),
            MathFn::Asin | MathFn::Acos => (0.0, 1.0, true),
            _ => (0.0, 100.0, true),
        }
    }

    /// `n` values evenly spaced in bit pattern over `[lo, hi]` (`lo, hi ≥
    /// 0`), negated too when `neg`.
    fn sweep(lo: f32, hi: f32, n: u32, neg: bool) -> impl Iterator<Item = f32> {
        let (a, b) = (lo.to_bits(), hi.to_bits());
        let step = ((b - a) / n).max(1);
        (a..=b)
            .step_by(step as usize)
            .map(f32::from_bits)
            .flat_map(move |x| if neg { vec![x, -x] } else { vec![x] })
    }

    /// Every 4096th bit pattern, from an odd offset (so that NaN payloads,
    /// subnormals and both zeros' neighbourhoods are all met), and the
    /// special values themselves.
    fn all_patterns() -> impl Iterator<Item = f32> {
        (0..=u32::MAX)
            .step_by(4096)
            .map(|b| f32::from_bits(b ^ 0x5a5))
            .chain([
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                -f32::NAN,
                f32::from_bits(1),
                f32::from_bits(0x8000_0001),
                f32::MIN_POSITIVE,
                f32::MAX,
                f32::MIN,
            ])
    }

    /// Argument pairs: every bit pattern of [`all_patterns`] with a
    /// scrambled partner from the same stride (specials meet specials and
    /// numbers), then a dense grid of `[lo, hi]²` with signs.
    fn pairs(lo: f32, hi: f32) -> impl Iterator<Item = [f32; 2]> {
        let all: Vec<f32> = all_patterns().collect();
        let n = all.len();
        let spread = (0..n).map(move |i| [all[i], all[(i * 7919 + 13) % n]]);
        let grid: Vec<f32> = sweep(lo, hi, 256, true).collect();
        let g = grid.clone();
        let dense = grid
            .into_iter()
            .flat_map(move |x| g.clone().into_iter().map(move |y| [x, y]));
        spread.chain(dense)
    }

    /// `f` in `f64` (glibc's double functions, good to about 0.5 `f64`
    /// ulp), rounded to `f32`: the correctly rounded result but for double
    /// rounding at near-ties.
    fn reference(f: MathFn, args: &[f32]) -> f32 {
        let x = args[0] as f64;
        let y = args.get(1).map_or(0.0, |&y| y as f64);
        (match f {
            MathFn::Pow => x.powf(y),
            MathFn::Atan2 => x.atan2(y),
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Tan => x.tan(),
            MathFn::Exp => x.exp(),
            MathFn::Exp2 => x.exp2(),
            MathFn::Log => x.ln(),
            MathFn::Log2 => x.log2(),
            MathFn::Sinh => x.sinh(),
            MathFn::Cosh => x.cosh(),
            MathFn::Tanh => x.tanh(),
            MathFn::Atan => x.atan(),
            MathFn::Asin => x.asin(),
            MathFn::Acos => x.acos(),
            _ => x.log10(),
        }) as f32
    }

    #[test]
    fn matches_the_shims() {
        let mut report = String::new();
        let mut fail = false;
        let (fused, unfused) = (Exact { fused: true }, Exact { fused: false });
        for (f, max_shim, max_ref) in DIFFERING {
            let (lo, hi, neg) = dense(f);
            let bound = bound_ulps(f);
            let dense_n = if neg { 1 << 19 } else { 1 << 20 };
            let xs: Box<dyn Iterator<Item = [f32; 2]>> = if f.arity() == 2 {
                Box::new(pairs(lo, hi))
            } else {
                Box::new(
                    all_patterns()
                        .chain(sweep(lo, hi, dense_n, neg))
                        .map(|x| [x, 0.0]),
                )
            };
            let (mut n, mut d_shim, mut d_ref, mut worst) = (0u32, 0u32, 0u32, 0u64);
            for xy in xs {
                let x = &xy[..f.arity()];
                n += 1;
                let v = fused.eval(f, x).unwrap();
                // Without FMA: the same bits (on a sixteenth of the inputs).
                if n % 16 == 0 {
                    let u = unfused.eval(f, x).unwrap();
                    if u.to_bits() != v.to_bits() && !(u.is_nan() && v.is_nan()) {
                        fail = true;
                        report += &format!("{f:?}({x:?}): {v:e} fused, {u:e} not\n");
                    }
                }
                for (want, count, bound, what) in [
                    (crate::shims::eval_f32(f, x), &mut d_shim, bound, "shim"),
                    (reference(f, x), &mut d_ref, 1, "f64 reference"),
                ] {
                    let d = ulps_apart(v, want);
                    // Uncovered inputs are the shim's: only the shim's
                    // difference from the reference.
                    if d == 0 || !fused.covers(f, x) {
                        continue;
                    }
                    *count += 1;
                    worst = worst.max(d);
                    if d > bound {
                        fail = true;
                        report += &format!("{f:?}({x:?}): {v:e}, {what} {want:e}\n");
                    }
                }
            }
            assert!(n > 1_000_000, "{n}");
            report += &format!(
                "{f:?}: {d_shim} of {n} differ from the shim, {d_ref} from the f64 reference, by at most {worst} ulp\n"
            );
            fail |= d_shim > max_shim || d_ref > max_ref;
        }
        eprintln!("{report}");
        assert!(!fail, "{report}");
    }

    /// The special inputs are the shim's exactly (they are not covered, or
    /// are exact by the algebra), bit for bit; the ordinary ones are the
    /// reference's.
    #[test]
    fn special_values_are_the_shims() {
        let xs = [
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7fc1_2345),
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::from_bits(0x007f_ffff),
            f32::MAX,
            f32::MIN,
            1e30,
            -3e7,
            1.0,
            -1.0,
            88.8,
            -103.0,
            -150.0,
            127.99,
            1024.0,
        ];
        for f in MathFn::ALL.into_iter().filter(|&f| vectorizes(f)) {
            let seconds: &[f32] = if f.arity() == 2 { &xs } else { &[0.0] };
            for fused in [false, true] {
                for x in xs {
                    for &y in seconds {
                        let a = &[x, y][..f.arity()];
                        let o = Exact { fused };
                        let v = o.eval(f, a).unwrap();
                        // Covered ordinary arguments are correctly rounded
                        // (glibc's `sinhf`, ... are not always).
                        let s = if o.covers(f, a) && x != 0.0 {
                            reference(f, a)
                        } else {
                            crate::shims::eval_f32(f, a)
                        };
                        assert_eq!(v.to_bits(), s.to_bits(), "{f:?}{a:?}: {v:e} vs {s:e}");
                    }
                }
            }
        }
        let o = Exact { fused: true };
        assert!(!o.covers(MathFn::Sin, &[1e6]) && o.covers(MathFn::Sin, &[5e5]));
        assert!(!o.covers(MathFn::Log, &[0.0]) && o.covers(MathFn::Log, &[f32::from_bits(1)]));
        assert!(!o.covers(MathFn::Exp, &[f32::NAN]) && !o.covers(MathFn::Exp, &[105.0]));
        assert!(!o.covers(MathFn::Pow, &[-2.0, 2.0]) && o.covers(MathFn::Pow, &[2.0, 0.5]));
        assert!(o.eval(MathFn::Pow, &[1.0]).is_none() && !vectorizes(MathFn::Cbrt));
    }
}
