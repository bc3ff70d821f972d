//! Inline approximations of `f32` transcendentals for fast math (`afn`).
//!
//! Under [`weft_ir::MathFlags::APPROX_FUNC`] the backends may replace the
//! precise `libm` call of `sin`, `cos`, `tan`, `exp`, `exp2`, `log` and
//! `log2` on `f32` by straight-line code: a range reduction, a polynomial,
//! and a reconstruction, with no call and no branch, so that it runs in
//! vector lanes as well as in scalars.
//!
//! Where it pays: 4 values at a time. The Cranelift backend inlines these
//! functions in kernels that have a SIMD thread loop (in all their loops,
//! the scalar tail included, so that a thread's result does not depend on
//! which loop ran it); kernels without one keep the library calls, because
//! one value at a time the inline code (computed in lane 0 of a vector,
//! which is its fastest scalar form in Cranelift) is slower than glibc's
//! `sinf`/`expf`/`logf`: 0.58× (`sin`) to 0.89× (`exp`), only `tan` gained
//! (1.17×), against 2.2× (`sin`) to 5.2× (`tan`) in the SIMD loop
//! (single-threaded, 2^22 values). The LLVM host target inlines them
//! everywhere: LLVM's scalar code for the same operations beats the calls
//! (1.16× for `log` to 1.6× for `exp`).
//!
//! Each algorithm is written once, generically over [`Ops`] (the
//! operations it needs); the Cranelift backend implements `Ops` for
//! `f32x4` lanes (`Cl`; a scalar runs in lane 0), the LLVM host target (`weft-backend-llvm`) for LLVM IR, and
//! [`Exact`] runs the same operations in Rust (the reference the tests
//! sweep). The coefficients below are the one source of truth for all of
//! them.
//!
//! # Algorithms and accuracy
//!
//! All arithmetic is `f32`; `fma(a, b, c)` is fused when the caller allows
//! contraction on a host with FMA, else a multiply and an add (the
//! reductions below are exact either way). Polynomial coefficients are
//! weighted-minimax (Remez) fits, derived by `tools/fastmath_remez.py`.
//!
//! * `sin`/`cos`/`tan`: `k = round(x·2/π)` (by the 1.5·2²³ rounding
//!   trick), `r = x − k·π/2` with π/2 split in three parts, the first two
//!   short enough that `k·P1`, `k·P2` are exact for `|k| < 2¹³` (`|x|` up
//!   to about 12 800: Cody–Waite reduction); `sin r = r + r³·S(r²)`,
//!   `cos r = 1 − r²/2 + r⁴·C(r²)` on `|r| ≤ π/4`; the quadrant `k mod 4`
//!   picks and negates. `tan = sin/cos` (or `−cos/sin` in odd quadrants).
//!   Beyond `|x| ≈ 12 800` the reduction loses accuracy progressively;
//!   past 2²² it is meaningless (`r` is then clamped to ±0.8, so results
//!   stay bounded: `sin`/`cos` in `[−1, 1]`, `tan` not NaN). NaN and ±∞
//!   give NaN.
//! * `exp`: `x` clamped to `[−104, 89]` (NaN passes through), `k =
//!   round(x·log₂e)`, `r = x − k·ln2` (ln 2 in two parts),
//!   `exp r = 1 + r + r²·E(r)` on `|r| ≤ ln2/2`, scaled by `2^⌊k/2⌋ ·
//!   2^(k−⌊k/2⌋)`: overflow gives `+∞`, underflow rounds once into the
//!   subnormals and to `0`. `exp2`: `k = round(x)`, `r = (x−k)·ln2`, the
//!   same polynomial and scaling.
//! * `log`: subnormals are scaled by 2²³, `x = 2^e·m` with `m` in
//!   `[√½, √2)`, `f = m − 1` (exact), `s = f/(2+f)`, `log m = f +
//!   s·(s²·L(s²) − f)` (the same as `2·atanh s`, arranged so that the
//!   rounding of `s` is damped), plus `e·ln2` (two parts). `log2` scales
//!   `log m` by log₂e and adds `e`. `log(±0) = −∞`, `log(x<0) = NaN`,
//!   `log(+∞) = +∞`, NaN propagates.
//!
//! Measured over the sweeps of this module's tests, in units of the last
//! place of the correctly rounded result (ulp; for `sin`/`cos`/`tan` of
//! large arguments where the result is tiny, the absolute error in units
//! of 2⁻²⁴ is counted instead), with and without FMA — see the test
//! `documented_error_bounds_hold` for the exact sweep and bounds:
//!
//! | function | sweep | bound |
//! |---|---|---|
//! | `sin`, `cos` | `|x| ≤ π/4` | 2 ulp |
//! | `sin`, `cos` | `|x| ≤ 10⁴` | 2 ulp or 2·2⁻²⁴ absolute |
//! | `tan` | `|x| ≤ π/4` | 3 ulp |
//! | `tan` | `|x| ≤ 10⁴`, `|tan x| ≤ 10³` | 4 ulp or 4·2⁻²⁴ absolute |
//! | `exp` | `|x| ≤ 110` (beyond: ∞ or 0) | 2 ulp |
//! | `exp2` | `|x| ≤ 160` (beyond: ∞ or 0) | 2 ulp |
//! | `log`, `log2` | all positive `f32` | 2 ulp |

use std::convert::Infallible;
use weft_ir::MathFn;

/// The polynomial coefficients and reduction constants (see the module
/// docs; the polynomials by `tools/fastmath_remez.py`).
pub mod coeffs {
    /// `sin r = r + r³·(S[0] + r²·S[1] + r⁴·S[2])` on `|r| ≤ π/4`.
    pub const SIN: [f32; 3] = [-0.166_666_55, 0.008_332_178, -0.000_195_173];
    /// `cos r = 1 − r²/2 + r⁴·(C[0] + r²·C[1] + r⁴·C[2])` on `|r| ≤ π/4`.
    pub const COS: [f32; 3] = [0.041_666_646, -0.001_388_736_8, 2.443_845_2e-5];
    /// `exp r = 1 + r + r²·(E[0] + r·E[1] + … + r⁴·E[4])` on `|r| ≤ ln2/2`.
    pub const EXP: [f32; 5] = [
        0.5,
        0.166_665_2,
        0.041_666_206,
        0.008_368_882,
        0.001_395_048,
    ];
    /// `log m = 2s + s³·(L[0] + z·L[1] + z²·L[2])`, `z = s²`,
    /// `s = (m−1)/(m+1)`, `m` in `[√½, √2)`.
    pub const LOG: [f32; 3] = [0.666_667_76, 0.399_775_42, 0.298_717_3];
    /// π/2 = `PIO2[0] + PIO2[1] + PIO2[2]`; the first two have at most 11
    /// significant bits, so `k·PIO2[i]` is exact for `|k| < 2¹³`.
    pub const PIO2: [f32; 3] = [1.570_312_5, 0.000_483_751_3, 7.549_79e-8];
    /// The reduced argument `r` of `sin`/`cos`/`tan` is clamped to
    /// `±R_MAX` (only reached when the reduction has failed, |x| > 2²²).
    pub const R_MAX: f32 = 0.8;
    /// 2/π.
    pub const TWO_OVER_PI: f32 = std::f32::consts::FRAC_2_PI;
    /// ln 2 = `LN2_SPLIT[0] + LN2_SPLIT[1]`, the first with 16 significant
    /// bits (`k·LN2_SPLIT[0]` exact for `|k| < 2⁸`).
    pub const LN2_SPLIT: [f32; 2] = [0.693_145_75, 1.428_606_8e-6];
    /// ln 2 rounded to `f32`.
    pub const LN2: f32 = std::f32::consts::LN_2;
    /// log₂ e.
    pub const LOG2E: f32 = std::f32::consts::LOG2_E;
    /// 1.5·2²³: `(x + R) − R` rounds `x` to an integer (`|x| < 2²²`), and
    /// `bits(x + R) − bits(R)` is that integer.
    pub const ROUND: f32 = 12_582_912.0;
    /// `exp` clamps its argument to `[EXP_MIN, EXP_MAX]`: past these the
    /// result is `0` and `+∞`.
    pub const EXP_MIN: f32 = -104.0;
    pub const EXP_MAX: f32 = 89.0;
    /// `exp2`'s clamp.
    pub const EXP2_MIN: f32 = -151.0;
    pub const EXP2_MAX: f32 = 129.0;
    /// The bits of √½ rounded to `f32`: `log` splits `x` as `2^e·m` with
    /// `m` from √½.
    pub const SQRT_HALF_BITS: i32 = 0x3f35_04f3;
}

use coeffs::*;

/// Whether [`emit`] approximates `f` (for `f32`).
pub fn approximates(f: MathFn) -> bool {
    matches!(
        f,
        MathFn::Sin
            | MathFn::Cos
            | MathFn::Tan
            | MathFn::Exp
            | MathFn::Exp2
            | MathFn::Log
            | MathFn::Log2
    )
}

/// A float comparison giving a lane mask.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Cmp {
    /// `a < b` (false if either is NaN).
    Lt,
    /// `a == b` (false if either is NaN).
    Eq,
    /// `!(a < b)`: `a >= b` or either is NaN.
    NotLt,
}

/// The operations the approximations are written in. Values are `f32`
/// (or lanes of them) or their `i32` bits; the algorithm converts
/// explicitly with [`Ops::bits`] and [`Ops::float`]. Masks are `i32` values
/// with all bits set (true) or clear (false).
pub trait Ops {
    type V: Copy;
    type E;
    fn fconst(&mut self, x: f32) -> Result<Self::V, Self::E>;
    fn iconst(&mut self, x: i32) -> Result<Self::V, Self::E>;
    fn fadd(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn fsub(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn fmul(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn fdiv(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn fneg(&mut self, a: Self::V) -> Result<Self::V, Self::E>;
    /// `a·b + c`: fused or not, as the implementation was told.
    fn fma(&mut self, a: Self::V, b: Self::V, c: Self::V) -> Result<Self::V, Self::E>;
    /// A float comparison as an `i32` mask.
    fn fcmp(&mut self, cc: Cmp, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    /// Float → its bits.
    fn bits(&mut self, a: Self::V) -> Result<Self::V, Self::E>;
    /// Bits → float.
    fn float(&mut self, a: Self::V) -> Result<Self::V, Self::E>;
    fn iadd(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn isub(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn band(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn bxor(&mut self, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
    fn shl(&mut self, a: Self::V, n: u32) -> Result<Self::V, Self::E>;
    /// Arithmetic shift right.
    fn sshr(&mut self, a: Self::V, n: u32) -> Result<Self::V, Self::E>;
    /// Per bit: `mask ? a : b` (all three `i32`).
    fn bitselect(&mut self, mask: Self::V, a: Self::V, b: Self::V) -> Result<Self::V, Self::E>;
}

/// Float `mask ? a : b`.
fn fselect<O: Ops>(o: &mut O, mask: O::V, a: O::V, b: O::V) -> Result<O::V, O::E> {
    let (a, b) = (o.bits(a)?, o.bits(b)?);
    let r = o.bitselect(mask, a, b)?;
    o.float(r)
}

/// Horner: `c[0] + x·(c[1] + x·(…))`.
fn horner<O: Ops>(o: &mut O, x: O::V, c: &[f32]) -> Result<O::V, O::E> {
    let (last, rest) = c.split_last().expect("non-empty table");
    let mut acc = o.fconst(*last)?;
    for &k in rest.iter().rev() {
        let kc = o.fconst(k)?;
        acc = o.fma(acc, x, kc)?;
    }
    Ok(acc)
}

/// `round(y)` as a float and as an integer, for `|y| < 2²²`.
fn round_int<O: Ops>(o: &mut O, y: O::V) -> Result<(O::V, O::V), O::E> {
    let r = o.fconst(ROUND)?;
    let t = o.fadd(y, r)?;
    let kf = o.fsub(t, r)?;
    let tb = o.bits(t)?;
    let rb = o.iconst(ROUND.to_bits() as i32)?;
    let ki = o.isub(tb, rb)?;
    Ok((kf, ki))
}

/// The approximation of `f` at `x` (`None` if `f` is not approximated:
/// see [`approximates`]).
pub fn emit<O: Ops>(o: &mut O, f: MathFn, x: O::V) -> Result<Option<O::V>, O::E> {
    Ok(Some(match f {
        MathFn::Sin => sin_cos_tan(o, x, 0)?,
        MathFn::Cos => sin_cos_tan(o, x, 1)?,
        MathFn::Tan => sin_cos_tan(o, x, 2)?,
        MathFn::Exp => exp(o, x, false)?,
        MathFn::Exp2 => exp(o, x, true)?,
        MathFn::Log => log(o, x, false)?,
        MathFn::Log2 => log(o, x, true)?,
        _ => return Ok(None),
    }))
}

/// `which`: 0 `sin`, 1 `cos`, 2 `tan`.
fn sin_cos_tan<O: Ops>(o: &mut O, x: O::V, which: u8) -> Result<O::V, O::E> {
    let tp = o.fconst(TWO_OVER_PI)?;
    let y = o.fmul(x, tp)?;
    let (kf, ki) = round_int(o, y)?;
    let nk = o.fneg(kf)?;
    let mut r = x;
    for p in PIO2 {
        let pc = o.fconst(p)?;
        r = o.fma(nk, pc, r)?;
    }
    // Past the reduction's range (|x| beyond about 2²²) `r` is not small:
    // clamped, the polynomials stay bounded (|sin|, |cos| < 1, no NaN).
    // On the range, |r| <= π/4 (plus rounding) < R_MAX: no change.
    let rmax = o.fconst(R_MAX)?;
    let above = o.fcmp(Cmp::Lt, rmax, r)?;
    let r = fselect(o, above, rmax, r)?;
    let rmin = o.fconst(-R_MAX)?;
    let below = o.fcmp(Cmp::Lt, r, rmin)?;
    let r = fselect(o, below, rmin, r)?;
    let z = o.fmul(r, r)?;
    // sin r = r + (r·z)·S(z)
    let ps = horner(o, z, &SIN)?;
    let rz = o.fmul(r, z)?;
    let s = o.fma(rz, ps, r)?;
    // cos r = (1 − z/2) + z²·C(z)
    let pc = horner(o, z, &COS)?;
    let z2 = o.fmul(z, z)?;
    let mh = o.fconst(-0.5)?;
    let one = o.fconst(1.0)?;
    let c0 = o.fma(z, mh, one)?;
    let c = o.fma(z2, pc, c0)?;
    // Quadrant q = k (+1 for cos): odd swaps sin and cos, bit 1 negates.
    let q = if which == 1 {
        let one = o.iconst(1)?;
        o.iadd(ki, one)?
    } else {
        ki
    };
    let odd = o.shl(q, 31)?;
    let odd = o.sshr(odd, 31)?;
    if which == 2 {
        let t = o.fdiv(s, c)?;
        let nc = o.fneg(c)?;
        let cot = o.fdiv(nc, s)?;
        let v = fselect(o, odd, cot, t)?;
        return keep_zero(o, x, v);
    }
    let v = fselect(o, odd, c, s)?;
    let vb = o.bits(v)?;
    let sign = o.shl(q, 30)?;
    let m = o.iconst(i32::MIN)?;
    let sign = o.band(sign, m)?;
    let vb = o.bxor(vb, sign)?;
    let v = o.float(vb)?;
    if which == 0 {
        keep_zero(o, x, v)
    } else {
        Ok(v)
    }
}

/// `x` where `x` is ±0 (the polynomials lose the sign of a zero), else `v`.
fn keep_zero<O: Ops>(o: &mut O, x: O::V, v: O::V) -> Result<O::V, O::E> {
    let zero = o.fconst(0.0)?;
    let is0 = o.fcmp(Cmp::Eq, x, zero)?;
    fselect(o, is0, x, v)
}

/// `exp` (`two` false) or `exp2`.
fn exp<O: Ops>(o: &mut O, x: O::V, two: bool) -> Result<O::V, O::E> {
    let (lo, hi) = if two {
        (EXP2_MIN, EXP2_MAX)
    } else {
        (EXP_MIN, EXP_MAX)
    };
    // Clamp; a NaN compares false and passes through.
    let hic = o.fconst(hi)?;
    let big = o.fcmp(Cmp::Lt, hic, x)?;
    let x = fselect(o, big, hic, x)?;
    let loc = o.fconst(lo)?;
    let small = o.fcmp(Cmp::Lt, x, loc)?;
    let x = fselect(o, small, loc, x)?;
    let (r, ki) = if two {
        let (kf, ki) = round_int(o, x)?;
        let d = o.fsub(x, kf)?;
        let l = o.fconst(LN2)?;
        (o.fmul(d, l)?, ki)
    } else {
        let l2 = o.fconst(LOG2E)?;
        let y = o.fmul(x, l2)?;
        let (kf, ki) = round_int(o, y)?;
        let nk = o.fneg(kf)?;
        let mut r = x;
        for p in LN2_SPLIT {
            let pc = o.fconst(p)?;
            r = o.fma(nk, pc, r)?;
        }
        (r, ki)
    };
    // exp r = 1 + (r + r²·E(r))
    let e = horner(o, r, &EXP)?;
    let r2 = o.fmul(r, r)?;
    let q = o.fma(r2, e, r)?;
    let one = o.fconst(1.0)?;
    let p = o.fadd(q, one)?;
    // 2^k as 2^(k>>1) · 2^(k − k>>1): both factors are normal.
    let k1 = o.sshr(ki, 1)?;
    let k2 = o.isub(ki, k1)?;
    let bias = o.iconst(127)?;
    let mut out = p;
    for k in [k1, k2] {
        let b = o.iadd(k, bias)?;
        let b = o.shl(b, 23)?;
        let scale = o.float(b)?;
        out = o.fmul(out, scale)?;
    }
    Ok(out)
}

/// `log` (`two` false) or `log2`.
fn log<O: Ops>(o: &mut O, x: O::V, two: bool) -> Result<O::V, O::E> {
    // Subnormals (and anything below the smallest normal) scaled by 2²³.
    let minn = o.fconst(f32::MIN_POSITIVE)?;
    let tiny = o.fcmp(Cmp::Lt, x, minn)?;
    let sc = o.fconst(8_388_608.0)?;
    let xs = o.fmul(x, sc)?;
    let xs = fselect(o, tiny, xs, x)?;
    let m23 = o.iconst(-23)?;
    let eadj = o.band(tiny, m23)?;
    // x = 2^e · m, m in [√½, √2).
    let xb = o.bits(xs)?;
    let sh = o.iconst(SQRT_HALF_BITS)?;
    let ix = o.isub(xb, sh)?;
    let e = o.sshr(ix, 23)?;
    let e = o.iadd(e, eadj)?;
    let mant = o.iconst(0x007f_ffff)?;
    let mb = o.band(ix, mant)?;
    let mb = o.iadd(mb, sh)?;
    let m = o.float(mb)?;
    let one = o.fconst(1.0)?;
    let f = o.fsub(m, one)?;
    let two_c = o.fconst(2.0)?;
    let d = o.fadd(f, two_c)?;
    let s = o.fdiv(f, d)?;
    let z = o.fmul(s, s)?;
    let l = horner(o, z, &LOG)?;
    // log m = f + s·(z·L(z) − f)
    let nf = o.fneg(f)?;
    let t = o.fma(z, l, nf)?;
    let logm = o.fma(s, t, f)?;
    // e as a float: exact for |e| < 2²² by the rounding trick backwards.
    let rb = o.iconst(ROUND.to_bits() as i32)?;
    let eb = o.iadd(e, rb)?;
    let ef = o.float(eb)?;
    let rc = o.fconst(ROUND)?;
    let ef = o.fsub(ef, rc)?;
    let r = if two {
        let c = o.fconst(LOG2E)?;
        o.fma(logm, c, ef)?
    } else {
        let lo = o.fconst(LN2_SPLIT[1])?;
        let r = o.fma(ef, lo, logm)?;
        let hi = o.fconst(LN2_SPLIT[0])?;
        o.fma(ef, hi, r)?
    };
    // Special values: x < 0 → NaN, ±0 → −∞, +∞ and NaN → x.
    let zero = o.fconst(0.0)?;
    let neg = o.fcmp(Cmp::Lt, x, zero)?;
    let nan = o.fconst(f32::NAN)?;
    let r = fselect(o, neg, nan, r)?;
    let is0 = o.fcmp(Cmp::Eq, x, zero)?;
    let ninf = o.fconst(f32::NEG_INFINITY)?;
    let r = fselect(o, is0, ninf, r)?;
    let inf = o.fconst(f32::INFINITY)?;
    let top = o.fcmp(Cmp::NotLt, x, inf)?;
    fselect(o, top, x, r)
}

/// [`Ops`] in Rust on one `f32` (values held as their bits): the
/// reference the tests sweep, computing exactly what the generated code
/// computes.
#[derive(Copy, Clone, Debug)]
pub struct Exact {
    /// Whether `fma` is fused.
    pub fused: bool,
}

impl Exact {
    /// The approximation of `f` at `x` (`None` if not approximated).
    pub fn eval(self, f: MathFn, x: f32) -> Option<f32> {
        let mut o = self;
        match emit(&mut o, f, x.to_bits()) {
            Ok(v) => v.map(f32::from_bits),
            Err(e) => match e {},
        }
    }
}

fn fl(x: u32) -> f32 {
    f32::from_bits(x)
}

impl Ops for Exact {
    type V = u32;
    type E = Infallible;
    fn fconst(&mut self, x: f32) -> Result<u32, Infallible> {
        Ok(x.to_bits())
    }
    fn iconst(&mut self, x: i32) -> Result<u32, Infallible> {
        Ok(x as u32)
    }
    fn fadd(&mut self, a: u32, b: u32) -> Result<u32, Infallible> {
        Ok((fl(a) + fl(b)).to_bits())
    }
    fn fsub(&mut self, a: u32, b: u32) -> Result<u32, Infallible> {
        Ok((fl(a) - fl(b)).to_bits())
    }
    fn fmul(&mut self, a: u32, b: u32) -> Result<u32, Infallible> {
        Ok((fl(a) * fl(b)).to_bits())
    }
    fn fdiv(&mut self, a: u32, b: u32) -> Result<u32, Infallible> {
        Ok((fl(a) / fl(b)).to_bits())
    }
    fn fneg(&mut self, a: u32) -> Result<u32, Infallible> {
        Ok(a ^ 0x8000_0000)
    }
    fn fma(&mut self, a: u32, b: u32, c: u32) -> Result<u32, Infallible> {
        Ok(if self.fused {
            fl(a).mul_add(fl(b), fl(c))
        } else {
            fl(a) * fl(b) + fl(c)
        }
        .to_bits())
    }
    fn fcmp(&mut self, cc: Cmp, a: u32, b: u32) -> Result<u32, Infallible> {
        let (a, b) = (fl(a), fl(b));
        let t = match cc {
            Cmp::Lt => a < b,
            Cmp::Eq => a == b,
            Cmp::NotLt => a >= b || a.is_nan() || b.is_nan(),
        };
        Ok(if t { u32::MAX } else { 0 })
    }
    fn bits(&mut self, a: u32) -> Result<u32, Infallible> {
        Ok(a)
    }
    fn float(&mut self, a: u32) -> Result<u32, Infallible> {
        Ok(a)
    }
    fn iadd(&mut self, a: u32, b: u32) -> Result<u32, Infallible> {
        Ok(a.wrapping_add(b))
    }
    fn isub(&mut self, a: u32, b: u32) -> Result<u32, Infallible> {
        Ok(a.wrapping_sub(b))
    }
    fn band(&mut self, a: u32, b: u32) -> Result<u32, Infallible> {
        Ok(a & b)
    }
    fn bxor(&mut self, a: u32, b: u32) -> Result<u32, Infallible> {
        Ok(a ^ b)
    }
    fn shl(&mut self, a: u32, n: u32) -> Result<u32, Infallible> {
        Ok(a << n)
    }
    fn sshr(&mut self, a: u32, n: u32) -> Result<u32, Infallible> {
        Ok(((a as i32) >> n) as u32)
    }
    fn bitselect(&mut self, mask: u32, a: u32, b: u32) -> Result<u32, Infallible> {
        Ok((a & mask) | (b & !mask))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spacing of `f32` values at the correctly rounded `e`
    /// (subnormal spacing at the bottom).
    fn ulp(e: f64) -> f64 {
        let r = (e as f32).abs();
        if r < f32::MIN_POSITIVE {
            return 2f64.powi(-149);
        }
        let exp = ((r.to_bits() >> 23) as i32) - 127;
        2f64.powi(exp - 23)
    }

    fn precise(f: MathFn, x: f32) -> f64 {
        let x = x as f64;
        match f {
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Tan => x.tan(),
            MathFn::Exp => x.exp(),
            MathFn::Exp2 => x.exp2(),
            MathFn::Log => x.ln(),
            MathFn::Log2 => x.log2(),
            _ => unreachable!(),
        }
    }

    /// About `n` `f32` values evenly spaced in bit pattern from `lo` up to
    /// `hi` (both `>= 0`, `hi` included), and their negations when `neg`.
    fn sweep(lo: f32, hi: f32, n: u32, neg: bool) -> impl Iterator<Item = f32> {
        let (a, b) = (lo.to_bits(), hi.to_bits());
        let step = ((b - a) / n).max(1);
        (a..=b)
            .step_by(step as usize)
            .chain(std::iter::once(b))
            .map(f32::from_bits)
            .flat_map(move |x| if neg { vec![x, -x] } else { vec![x] })
    }

    /// The worst error over `xs` in ulps, the absolute error counted in
    /// units of `floor` where that is larger than the ulp (`floor` 0:
    /// pure ulps). Also `(x, approx)` at the worst point.
    fn worst(f: MathFn, fused: bool, xs: impl Iterator<Item = f32>, floor: f64) -> (f64, f32) {
        let o = Exact { fused };
        let mut w = (0.0f64, 0.0f32);
        for x in xs {
            let a = o.eval(f, x).unwrap();
            let e = precise(f, x);
            let err = if a == e as f32 {
                0.0 // the correctly rounded result (also when infinite)
            } else {
                (a as f64 - e).abs() / ulp(e).max(floor)
            };
            if err > w.0 || err.is_nan() {
                w = (err, x);
            }
        }
        w
    }

    /// A sweep: the function, its inputs, the absolute-error unit (0:
    /// none) and the bound.
    type Case = (
        MathFn,
        Box<dyn Fn() -> Box<dyn Iterator<Item = f32>>>,
        f64,
        f64,
    );

    #[test]
    fn documented_error_bounds_hold() {
        let t = 2f64.powi(-24);
        const N: u32 = 200_000;
        let cases: Vec<Case> = vec![
            // Primary range: relative, in ulps.
            (
                MathFn::Sin,
                Box::new(|| Box::new(sweep(1e-30, 0.785, N, true))),
                0.0,
                2.0,
            ),
            (
                MathFn::Cos,
                Box::new(|| Box::new(sweep(1e-30, 0.785, N, true))),
                0.0,
                2.0,
            ),
            (
                MathFn::Tan,
                Box::new(|| Box::new(sweep(1e-30, 0.785, N, true))),
                0.0,
                3.0,
            ),
            // Wide range: ulps, or absolute in units of 2^-24.
            (
                MathFn::Sin,
                Box::new(|| Box::new(sweep(0.785, 1e4, N, true))),
                t,
                2.0,
            ),
            (
                MathFn::Cos,
                Box::new(|| Box::new(sweep(0.785, 1e4, N, true))),
                t,
                2.0,
            ),
            // tan off its poles (|tan x| <= 1e3): ulps, or absolute in units
            // of 2^-24.
            (
                MathFn::Tan,
                Box::new(|| {
                    Box::new(sweep(0.785, 1e4, N, true).filter(|x| (*x as f64).tan().abs() <= 1e3))
                }),
                t,
                4.0,
            ),
            (
                MathFn::Exp,
                Box::new(|| Box::new(sweep(0.0, 110.0, N, true))),
                0.0,
                2.0,
            ),
            (
                MathFn::Exp2,
                Box::new(|| Box::new(sweep(0.0, 160.0, N, true))),
                0.0,
                2.0,
            ),
            (
                MathFn::Log,
                Box::new(|| Box::new(sweep(1e-45, f32::MAX, N, false))),
                0.0,
                2.0,
            ),
            (
                MathFn::Log2,
                Box::new(|| Box::new(sweep(1e-45, f32::MAX, N, false))),
                0.0,
                2.0,
            ),
        ];
        let mut report = String::new();
        let mut fail = false;
        for (f, xs, floor, bound) in cases {
            for fused in [false, true] {
                let (err, x) = worst(f, fused, xs(), floor);
                report += &format!("{f:?} fused={fused}: {err:.3} at {x:e}\n");
                fail |= err.is_nan() || err > bound;
            }
        }
        eprintln!("{report}");
        assert!(!fail, "{report}");
    }

    #[test]
    fn huge_arguments_give_bounded_results() {
        for fused in [false, true] {
            let o = Exact { fused };
            for x in sweep(0.0, f32::MAX, 200_000, true) {
                for f in [MathFn::Sin, MathFn::Cos] {
                    let v = o.eval(f, x).unwrap();
                    assert!((-1.0..=1.0).contains(&v), "{f:?}({x:e}) = {v:e}");
                }
                assert!(!o.eval(MathFn::Tan, x).unwrap().is_nan(), "tan({x:e})");
            }
        }
    }

    #[test]
    fn special_values() {
        for fused in [false, true] {
            let o = Exact { fused };
            let ev = |f, x: f32| o.eval(f, x).unwrap();
            for f in [MathFn::Sin, MathFn::Cos, MathFn::Tan] {
                for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                    assert!(ev(f, x).is_nan(), "{f:?}({x})");
                }
                assert_eq!(ev(f, 0.0), precise(f, 0.0) as f32, "{f:?}(0)");
            }
            assert_eq!(ev(MathFn::Sin, -0.0).to_bits(), (-0.0f32).to_bits());
            for f in [MathFn::Exp, MathFn::Exp2] {
                assert_eq!(ev(f, f32::INFINITY), f32::INFINITY);
                assert_eq!(ev(f, 1e3), f32::INFINITY);
                assert_eq!(ev(f, f32::MAX), f32::INFINITY);
                assert_eq!(ev(f, f32::NEG_INFINITY), 0.0);
                assert_eq!(ev(f, -1e3), 0.0);
                assert_eq!(ev(f, f32::MIN), 0.0);
                assert!(ev(f, f32::NAN).is_nan());
                assert_eq!(ev(f, 0.0), 1.0);
            }
            assert_eq!(ev(MathFn::Exp2, -149.0), f32::from_bits(1));
            assert_eq!(ev(MathFn::Exp2, 127.0), 2f32.powi(127));
            for f in [MathFn::Log, MathFn::Log2] {
                assert_eq!(ev(f, 0.0), f32::NEG_INFINITY);
                assert_eq!(ev(f, -0.0), f32::NEG_INFINITY);
                assert_eq!(ev(f, f32::INFINITY), f32::INFINITY);
                assert!(ev(f, -1.0).is_nan());
                assert!(ev(f, f32::NEG_INFINITY).is_nan());
                assert!(ev(f, f32::NAN).is_nan());
                assert_eq!(ev(f, 1.0), 0.0);
            }
            assert_eq!(ev(MathFn::Log2, 1024.0), 10.0);
            assert_eq!(ev(MathFn::Log2, f32::from_bits(1)), -149.0);
            assert!(
                !approximates(MathFn::Pow) && Exact { fused }.eval(MathFn::Atan, 1.0).is_none()
            );
        }
    }
}
