//! HLSL helper functions the emitted code calls, each written once here and
//! included in a shader only when used (with the helpers it calls).
//!
//! They implement the IR's semantics where HLSL's intrinsics differ or are
//! missing: NaN-ignoring min/max, exact `fmod`, rounding half away from zero
//! and half to even, saturating float→int casts, guarded integer division,
//! 64-bit integers as `uint2` (x = low word, y = high word; HLSL's
//! `int64_t` is not accepted by glslang), float64 rounding and square root
//! from operations every D3D12 double-precision device has, and race-free
//! stores of 8- and 16-bit values.

/// The NaN, zero and infinity cases of float `atan2(y, x)`, exact (the
/// body's start in `weft_atan2_32` and `weft_atan2_32_afn`).
macro_rules! atan2_32_special_cases {
    () => {
        "    if (weft_isnan32(x) || weft_isnan32(y))
        return x + y;
    bool xneg = (asuint(x) & 0x80000000u) != 0u;
    if (y == 0.0)
        return xneg ? weft_copysign32(3.14159265358979, y) : y;
    if (x == 0.0)
        return weft_copysign32(1.5707963267948966, y);
    if (weft_isinf32(x))
    {
        if (weft_isinf32(y))
            return weft_copysign32(xneg ? 2.356194490192345 : 0.7853981633974483, y);
        return weft_copysign32(xneg ? 3.14159265358979 : 0.0, y);
    }
    if (weft_isinf32(y))
        return weft_copysign32(1.5707963267948966, y);
"
    };
}

/// A helper: its name, the helpers it calls, and its HLSL text.
struct Helper {
    name: &'static str,
    deps: &'static [&'static str],
    text: &'static str,
}

/// Every helper, in an order where each comes after the helpers it calls.
const HELPERS: &[Helper] = &[
    Helper {
        name: "weft_f16",
        deps: &[],
        text: "// Rounds to the nearest binary16 value (f16 values live in floats).
float weft_f16(float x) { return f16tof32(f32tof16(x)); }",
    },
    Helper {
        name: "weft_bf16_bits",
        deps: &[],
        text: "// The bfloat16 nearest x (ties to even; NaN stays NaN), as weft_ir::f16::f32_to_bf16.
uint weft_bf16_bits(float x)
{
    uint b = asuint(x);
    if ((b & 0x7f800000u) == 0x7f800000u)
    {
        uint h = b >> 16;
        if ((b & 0x007fffffu) != 0u && (h & 0x7fu) == 0u)
            h |= 0x40u;
        return h;
    }
    return (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
}",
    },
    Helper {
        name: "weft_bf16_to_f32",
        deps: &[],
        text: "// The float of bfloat16 bits (the low 16 bits of h).
float weft_bf16_to_f32(uint h) { return asfloat((h & 0xffffu) << 16); }",
    },
    Helper {
        name: "weft_bf16",
        deps: &["weft_bf16_bits", "weft_bf16_to_f32"],
        text: "// Rounds to the nearest bfloat16 value (bf16 values live in floats).
float weft_bf16(float x) { return weft_bf16_to_f32(weft_bf16_bits(x)); }",
    },
    Helper {
        name: "weft_bits64",
        deps: &[],
        text: "// The bits of a double: x = low word, y = high word.
uint2 weft_bits64(double x)
{
#ifdef WEFT_GLSLANG
    // glslang's asuint(double) converts to float first: compute the bits.
    if (!(x == x))
        return uint2(0u, 0x7ff80000u);
    uint sign = (x < 0.0L || (x == 0.0L && 1.0L / x < 0.0L)) ? 0x80000000u : 0u;
    double a = abs(x);
    if (a == 0.0L)
        return uint2(0u, sign);
    if (a > 1.7976931348623157e308L)
        return uint2(0u, sign | 0x7ff00000u);
    if (a < 2.2250738585072014e-308L)
    {
        // Subnormal: the bits are a / 2^-1074.
        double m = a * 4.4989137945431964e161L * 4.4989137945431964e161L;
        uint mh = (uint)(m * 2.3283064365386962890625e-10L);
        return uint2((uint)(m - (double)mh * 4294967296.0L), sign | mh);
    }
    // Scale into [1, 2) by powers 2^512, 2^256, ..., 2 (exact), written
    // out with literal powers of two: lavapipe miscomputed the loop form
    // (asdouble of the loop counter) in kernels with other loops.
    int e = 0;
    if (a >= 1.3407807929942597e+154L) { a *= 7.458340731200207e-155L; e += 512; }
    if (a >= 1.157920892373162e+77L) { a *= 8.636168555094445e-78L; e += 256; }
    if (a >= 3.402823669209385e+38L) { a *= 2.938735877055719e-39L; e += 128; }
    if (a >= 1.8446744073709552e+19L) { a *= 5.421010862427522e-20L; e += 64; }
    if (a >= 4294967296.0L) { a *= 2.3283064365386963e-10L; e += 32; }
    if (a >= 65536.0L) { a *= 1.52587890625e-05L; e += 16; }
    if (a >= 256.0L) { a *= 0.00390625L; e += 8; }
    if (a >= 16.0L) { a *= 0.0625L; e += 4; }
    if (a >= 4.0L) { a *= 0.25L; e += 2; }
    if (a >= 2.0L) { a *= 0.5L; e += 1; }
    if (a < 1.4916681462400413e-154L) { a *= 1.3407807929942597e+154L; e -= 512; }
    if (a < 1.727233711018889e-77L) { a *= 1.157920892373162e+77L; e -= 256; }
    if (a < 5.877471754111438e-39L) { a *= 3.402823669209385e+38L; e -= 128; }
    if (a < 1.0842021724855044e-19L) { a *= 1.8446744073709552e+19L; e -= 64; }
    if (a < 4.656612873077393e-10L) { a *= 4294967296.0L; e -= 32; }
    if (a < 3.0517578125e-05L) { a *= 65536.0L; e -= 16; }
    if (a < 0.0078125L) { a *= 256.0L; e -= 8; }
    if (a < 0.125L) { a *= 16.0L; e -= 4; }
    if (a < 0.5L) { a *= 4.0L; e -= 2; }
    if (a < 1.0L) { a *= 2.0L; e -= 1; }
    double f = (a - 1.0L) * 4503599627370496.0L;
    uint hi = (uint)(f * 2.3283064365386962890625e-10L);
    return uint2((uint)(f - (double)hi * 4294967296.0L), sign | ((uint)(e + 1023) << 20) | hi);
#else
    uint lo, hi;
    asuint(x, lo, hi);
    return uint2(lo, hi);
#endif
}",
    },
    Helper {
        name: "weft_isnan32",
        deps: &[],
        text: "bool weft_isnan32(float x) { return (asuint(x) & 0x7fffffffu) > 0x7f800000u; }",
    },
    Helper {
        name: "weft_isinf32",
        deps: &[],
        text: "bool weft_isinf32(float x) { return (asuint(x) & 0x7fffffffu) == 0x7f800000u; }",
    },
    Helper {
        name: "weft_isfinite32",
        deps: &[],
        text: "bool weft_isfinite32(float x) { return (asuint(x) & 0x7fffffffu) < 0x7f800000u; }",
    },
    Helper {
        name: "weft_isnan64",
        deps: &["weft_bits64"],
        text: "bool weft_isnan64(double x)
{
    uint2 b = weft_bits64(x);
    uint h = b.y & 0x7fffffffu;
    return h > 0x7ff00000u || (h == 0x7ff00000u && b.x != 0u);
}",
    },
    Helper {
        name: "weft_isinf64",
        deps: &["weft_bits64"],
        text: "bool weft_isinf64(double x)
{
    uint2 b = weft_bits64(x);
    return (b.y & 0x7fffffffu) == 0x7ff00000u && b.x == 0u;
}",
    },
    Helper {
        name: "weft_isfinite64",
        deps: &["weft_bits64"],
        text: "bool weft_isfinite64(double x) { return (weft_bits64(x).y & 0x7ff00000u) != 0x7ff00000u; }",
    },
    Helper {
        name: "weft_copysign32",
        deps: &[],
        text: "float weft_copysign32(float a, float b) { return asfloat((asuint(a) & 0x7fffffffu) | (asuint(b) & 0x80000000u)); }",
    },
    Helper {
        name: "weft_copysign64",
        deps: &["weft_bits64"],
        text: "double weft_copysign64(double a, double b)
{
    uint2 x = weft_bits64(a);
    return asdouble(x.x, (x.y & 0x7fffffffu) | (weft_bits64(b).y & 0x80000000u));
}",
    },
    Helper {
        name: "weft_div64",
        deps: &["weft_copysign64"],
        text: "// Double division with IEEE's results at a zero or infinite divisor: a
// driver may divide by a reciprocal refined by Newton's method (Mesa's
// lavapipe does), which makes x / 0 and x / inf NaN.
double weft_div64(double a, double b)
{
    if (b == 0.0L)
        return (a == 0.0L || !(a == a)) ? asdouble(0u, 0x7ff80000u)
            : weft_copysign64(asdouble(0u, 0x7ff00000u), a) * weft_copysign64(1.0L, b);
    if (abs(b) > 1.7976931348623157e308L)
        return (abs(a) > 1.7976931348623157e308L || !(a == a)) ? asdouble(0u, 0x7ff80000u)
            : weft_copysign64(0.0L, a) * weft_copysign64(1.0L, b);
    precise double q = a / b;
    return q;
}",
    },
    Helper {
        name: "weft_fmin32",
        deps: &["weft_isnan32"],
        text: "// min/max ignore a NaN operand (IEEE minNum/maxNum).
float weft_fmin32(float a, float b) { return weft_isnan32(a) ? b : (weft_isnan32(b) ? a : (b < a ? b : a)); }
float weft_fmax32(float a, float b) { return weft_isnan32(a) ? b : (weft_isnan32(b) ? a : (b > a ? b : a)); }",
    },
    Helper {
        name: "weft_fmin64",
        deps: &["weft_isnan64"],
        text: "double weft_fmin64(double a, double b) { return weft_isnan64(a) ? b : (weft_isnan64(b) ? a : (b < a ? b : a)); }
double weft_fmax64(double a, double b) { return weft_isnan64(a) ? b : (weft_isnan64(b) ? a : (b > a ? b : a)); }",
    },
    Helper {
        name: "weft_fmod32",
        deps: &["weft_isnan32", "weft_isinf32", "weft_copysign32"],
        text: "// C fmod, exact: subtracts the largest fitting power-of-two multiple of |b|
// (each subtraction is exact by Sterbenz's lemma).
float weft_fmod32(float a, float b)
{
    if (weft_isnan32(a) || weft_isnan32(b) || weft_isinf32(a) || b == 0.0)
        return asfloat(0x7fc00000u);
    float r = abs(a);
    float d = abs(b);
    [loop] while (r >= d)
    {
        float t = d;
        [loop] while (t * 2.0 <= r)
            t *= 2.0;
        r -= t;
    }
    return weft_copysign32(r, a);
}",
    },
    Helper {
        name: "weft_fmod64",
        deps: &["weft_isnan64", "weft_isinf64", "weft_copysign64"],
        text: "double weft_fmod64(double a, double b)
{
    if (weft_isnan64(a) || weft_isnan64(b) || weft_isinf64(a) || b == 0.0L)
        return asdouble(0u, 0x7ff80000u);
    double r = abs(a);
    double d = abs(b);
    // t: the largest d * 2^k <= r, halved as r shrinks (each r - t, with
    // t <= r < 2t, is exact). At most ~2 * 2046 iterations in all: lavapipe
    // ends a loop after 65 535 iterations, which the quadratic form (t
    // doubled from d again for every subtraction) exceeded.
    double t = d;
    [loop] while (t * 2.0L <= r)
        t *= 2.0L;
    [loop] while (r >= d)
    {
        [loop] while (t > r)
            t *= 0.5L;
        r -= t;
    }
    return weft_copysign64(r, a);
}",
    },
    Helper {
        name: "weft_round32",
        deps: &["weft_copysign32"],
        text: "// Rounds half away from zero (HLSL's round() is half to even).
float weft_round32(float x)
{
    float t = trunc(x);
    return abs(x - t) >= 0.5 ? t + weft_copysign32(1.0, x) : t;
}",
    },
    Helper {
        name: "weft_rint32",
        deps: &["weft_copysign32"],
        text: "// Rounds half to even.
float weft_rint32(float x)
{
    float t = trunc(x);
    float d = abs(x - t);
    if (d > 0.5 || (d == 0.5 && frac(t * 0.5) != 0.0))
        t += weft_copysign32(1.0, x);
    return t;
}",
    },
    Helper {
        name: "weft_trunc64",
        deps: &["weft_copysign64"],
        text: "// Double rounding from additions only (DXIL has no double floor/trunc):
// adding 2^52 rounds the fraction away.
double weft_trunc64(double x)
{
    double a = abs(x);
    if (!(a < 4503599627370496.0L))
        return x;
    precise double r = (a + 4503599627370496.0L) - 4503599627370496.0L;
    if (r > a)
        r -= 1.0L;
    return weft_copysign64(r, x);
}
double weft_floor64(double x) { double t = weft_trunc64(x); return t > x ? t - 1.0L : t; }
double weft_ceil64(double x) { double t = weft_trunc64(x); return t < x ? t + 1.0L : t; }",
    },
    Helper {
        name: "weft_round64",
        deps: &["weft_trunc64"],
        text: "double weft_round64(double x)
{
    double t = weft_trunc64(x);
    return abs(x - t) >= 0.5L ? t + weft_copysign64(1.0L, x) : t;
}
double weft_rint64(double x)
{
    double t = weft_trunc64(x);
    double d = abs(x - t);
    double h = t * 0.5L;
    if (d > 0.5L || (d == 0.5L && weft_trunc64(h) != h))
        t += weft_copysign64(1.0L, x);
    return t;
}",
    },
    Helper {
        name: "weft_sqrt64",
        deps: &["weft_isinf64", "weft_bits64"],
        text: "// Double square root (DXIL has none): a float rsqrt seed, two Newton steps
// in double on the mantissa scaled to [1, 4), a fused residual correction,
// then correct rounding from the exact residual.
double weft_sqrt64_round(double r, double m)
{
    // One rounding step of r ~ sqrt(m), m in [1, 4), r in [1, 2): from
    // the exact residual m - r*r = a - q, a = m - p exact (Sterbenz),
    // q = r*r - p exact (Dekker's product: `precise`, no fma, which a
    // driver may split). m is above the midpoint r + u/2 iff
    // a - q > r*u + u*u/4, i.e. iff a - r*u > q (all but the u*u/4 are
    // multiples of 2^-104, and a - r*u is exact where it matters); below
    // r - u/2 iff a + r*u <= q. No midpoint squares to a double: no ties.
    // Constants are bit patterns, exact however a compiler reads literals.
    double u = asdouble(0u, 0x3cb00000u);            // 2^-52
    double top = asdouble(0xffffffffu, 0x3fffffffu); // 2 - 2^-52
    double split = asdouble(0x02000000u, 0x41a00000u); // 2^27 + 1
    if (r < 1.0L)
        r = 1.0L;
    if (r > top)
        r = top;
    precise double p = r * r;
    precise double c = r * split;
    precise double rh = c - (c - r);
    precise double rl = r - rh;
    precise double q = ((rh * rh - p) + 2.0L * rh * rl) + rl * rl;
    precise double a = m - p;
    precise double t = r * u;
    if (a - t > q)
        r += u;
    else if (a + t <= q)
        r -= u;
    return r;
}
double weft_sqrt64(double x)
{
    if (!(x > 0.0L) || weft_isinf64(x))
        return (x == 0.0L || x > 0.0L) ? x : asdouble(0u, 0x7ff80000u);
    precise double s = 1.0L;
    if (x < 2.2250738585072014e-308L)
    {
        x *= 18014398509481984.0L;
        s = 7.450580596923828125e-9L;
    }
    int e = (int)((weft_bits64(x).y >> 20) & 0x7ffu) - 1023;
    int k = e >> 1;
    precise double m = x * asdouble(0u, (uint)(1023 - 2 * k) << 20);
    precise double y = (double)rsqrt((float)m);
    y = y * (1.5L - 0.5L * m * y * y);
    y = y * (1.5L - 0.5L * m * y * y);
    precise double r = m * y;
    r = r + 0.5L * y * fma(-r, r, m);
    // Two steps of correct rounding (each moves r by at most an ulp).
    r = weft_sqrt64_round(r, m);
    r = weft_sqrt64_round(r, m);
    return r * asdouble(0u, (uint)(1023 + k) << 20) * s;
}",
    },
    Helper {
        name: "weft_fma64",
        deps: &[],
        text: "// x + y rounded to odd (the nearest double whose last bit is 1 when the
// sum is not exact): with a second rounding it gives the correctly rounded
// result of a longer sum (Boldo & Melquiond, 'Emulation of FMA and
// correctly rounded sums: proved algorithms using rounding to odd', 2008).
// For normal operands and sums. Constants are bit patterns.
double weft_ro_sum64(double x, double y)
{
    precise double v = x + y;
    precise double bb = v - x;
    precise double w = (x - (v - bb)) + (y - bb); // v + w = x + y exactly
    if (w == 0.0L)
        return v;
    // ufp(v), the largest power of two <= |v| (Rump): q = (2^52 + 1) v,
    // ufp = |q - (1 - 2^-53) q|; ulp(v) = ufp * 2^-52.
    precise double q = v * asdouble(0x00000001u, 0x43300000u);
    precise double f = abs(q - q * asdouble(0xffffffffu, 0x3fefffffu));
    precise double u = f * asdouble(0u, 0x3cb00000u);
    // v / u is an integer in [2^52, 2^53): odd iff adding 2^53 (spacing 2
    // there) does not keep it.
    precise double k = abs(v) / u;
    precise double big = asdouble(0u, 0x43400000u);
    if ((k + big) - big != k)
        return v;
    // v is even: the odd neighbour on w's side (half an ulp below a power
    // of two when going towards zero).
    bool away = (w > 0.0L) == (v > 0.0L);
    precise double step = (!away && abs(v) == f) ? u * 0.5L : u;
    return (w > 0.0L) ? v + step : v - step;
}
// fma of doubles, exactly rounded (GLSL lets a driver compute fma as a
// multiply and an add, and lavapipe does): Dekker's exact product
// p + e = a * b, c + p = s + t exactly, result = RN(s + RO(t + e)). Operands
// or results outside [2^-900, 2^500] (products and addends up to 2^1000)
// fall back to a * b + c, except that finite a, b and an infinite c give c
// (the exact product is finite even where a * b overflows).
double weft_fma64(double a, double b, double c)
{
    precise double p = a * b;
    double lo = asdouble(0u, 0x07b00000u);
    double hi = asdouble(0u, 0x5f300000u);
    double top = asdouble(0u, 0x7e700000u);
    double dmax = asdouble(0xffffffffu, 0x7fefffffu);
    double ap = abs(p);
    if (!(abs(a) <= hi && abs(b) <= hi && abs(c) <= top && ap >= lo && (c == 0.0L || abs(c) >= lo)))
        return (abs(c) > dmax && abs(a) <= dmax && abs(b) <= dmax) ? c : p + c;
    double split = asdouble(0x02000000u, 0x41a00000u); // 2^27 + 1
    precise double ca = a * split;
    precise double ah = ca - (ca - a);
    precise double al = a - ah;
    precise double cb = b * split;
    precise double bh = cb - (cb - b);
    precise double bl = b - bh;
    precise double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
    precise double s = c + p;
    precise double bs = s - c;
    precise double t = (c - (s - bs)) + (p - bs);
    return s + weft_ro_sum64(t, e);
}",
    },
    Helper {
        name: "weft_log32",
        deps: &[],
        text: "// log(x), also for subnormal x: without DenormPreserve a Vulkan driver may
// flush a subnormal operand (lavapipe's log reads it as 2^-127 * 1.m), so
// x = b * 2^-149 is taken from its bits b (integer operations, exact).
float weft_log32(float x)
{
    uint b = asuint(x);
    if (b - 1u < 0x007fffffu)
        return log((float)b) - 103.27892990343185;
    return log(x);
}",
    },
    Helper {
        name: "weft_log2_32",
        deps: &[],
        text: "// log2(x), also for subnormal x (see weft_log32).
float weft_log2_32(float x)
{
    uint b = asuint(x);
    if (b - 1u < 0x007fffffu)
        return log2((float)b) - 149.0;
    return log2(x);
}",
    },
    Helper {
        name: "weft_log10_32",
        deps: &[],
        text: "// log10(x), also for subnormal x (see weft_log32).
float weft_log10_32(float x)
{
    uint b = asuint(x);
    if (b - 1u < 0x007fffffu)
        return log10((float)b) - 44.8534693539332;
    return log10(x);
}",
    },
    Helper {
        name: "weft_exp32",
        deps: &[],
        text: "// exp(x), also where the result is subnormal (x <= ln 2^-126, rounded down):
// without DenormPreserve a driver may flush it (lavapipe does), so its bits
// m = exp(x) * 2^149 are computed (x + 149 ln 2 in two parts, the first exact).
float weft_exp32(float x)
{
    if (x <= -87.3365478515625)
        return asfloat((uint)(exp((x + 103.2789306640625) - 7.606306553498143e-07) + 0.5));
    return exp(x);
}",
    },
    Helper {
        name: "weft_cbrt32",
        deps: &["weft_isfinite32", "weft_copysign32"],
        text: "float weft_cbrt32(float x)
{
    if (x == 0.0 || !weft_isfinite32(x))
        return x;
    float a = abs(x);
    float y = exp2(log2(a) * (1.0 / 3.0));
    y = y - (y - a / (y * y)) * (1.0 / 3.0);
    return weft_copysign32(y, x);
}",
    },
    Helper {
        name: "weft_pow32",
        deps: &["weft_isnan32", "weft_isinf32", "weft_copysign32"],
        text: "// C pow: negative bases with integral exponents, zeros and infinities.
float weft_pow32(float a, float b)
{
    if (b == 0.0 || a == 1.0)
        return 1.0;
    if (weft_isnan32(a) || weft_isnan32(b))
        return asfloat(0x7fc00000u);
    if (weft_isinf32(b))
        return abs(a) == 1.0 ? 1.0 : (abs(a) < 1.0 == b > 0.0 ? 0.0 : asfloat(0x7f800000u));
    bool integral = trunc(b) == b;
    bool odd = integral && frac(abs(b) * 0.5) != 0.0;
    if (a == 0.0)
        return b < 0.0 ? (odd ? weft_copysign32(asfloat(0x7f800000u), a) : asfloat(0x7f800000u))
                       : (odd ? a : 0.0);
    // An infinite base before the negative one: pow(-inf, 2.5) is +inf.
    if (a < 0.0 && !integral && !weft_isinf32(a))
        return asfloat(0x7fc00000u);
    float r = weft_isinf32(a) ? (b > 0.0 ? asfloat(0x7f800000u) : 0.0) : pow(abs(a), b);
    return (a < 0.0 && odd) ? -r : r;
}",
    },
    Helper {
        name: "weft_pow32_fast",
        deps: &[],
        text: "// pow under no-NaN/no-Inf assumptions: the intrinsic on |a|, negated for a
// negative base and an odd integral exponent; x^0 = 1.
float weft_pow32_fast(float a, float b)
{
    if (b == 0.0)
        return 1.0;
    float r = pow(abs(a), b);
    return (a < 0.0 && frac(abs(b) * 0.5) == 0.5) ? -r : r;
}",
    },
    Helper {
        name: "weft_atan32",
        deps: &["weft_isnan32", "weft_isinf32", "weft_copysign32"],
        text: concat!(
            "// Inverse trigonometry to float precision (Cephes' polynomials): the
// intrinsics' precision is implementation-defined and often far coarser.
float weft_atan32(float x)
{
    float a = abs(x);
    float y = 0.0;
    if (a > 2.414213562373095)
    {
        y = 1.5707963267948966;
        a = -1.0 / a;
    }
    else if (a > 0.4142135623730950)
    {
        y = 0.7853981633974483;
        a = (a - 1.0) / (a + 1.0);
    }
    float z = a * a;
    y += (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * a + a;
    return weft_isnan32(x) ? x : weft_copysign32(y, x);
}
float weft_atan2_32(float y, float x)
{
",
            atan2_32_special_cases!(),
            "    float z = weft_atan32(abs(y / x));
    if (xneg)
        z = 3.14159265358979 - z;
    return weft_copysign32(z, y);
}
float weft_asin32(float x)
{
    float a = abs(x);
    if (!(a <= 1.0))
        return asfloat(0x7fc00000u);
    if (a < 1.0e-4)
        return x;
    bool big = a > 0.5;
    float z = big ? 0.5 * (1.0 - a) : a * a;
    float r = big ? sqrt(z) : a;
    float y = ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z
               + 1.6666752422e-1) * z * r + r;
    if (big)
        y = 1.5707963267948966 - (y + y);
    return weft_copysign32(y, x);
}
float weft_acos32(float x)
{
    if (!(abs(x) <= 1.0))
        return asfloat(0x7fc00000u);
    if (x < -0.5)
        return 3.14159265358979 - 2.0 * weft_asin32(sqrt(0.5 * (1.0 + x)));
    if (x > 0.5)
        return 2.0 * weft_asin32(sqrt(0.5 * (1.0 - x)));
    return 1.5707963267948966 - weft_asin32(x);
}"
        ),
    },
    Helper {
        name: "weft_atan2_32_afn",
        deps: &["weft_isnan32", "weft_isinf32", "weft_copysign32"],
        text: concat!(
            "// atan2 under `afn`: the intrinsic, with the NaN, zero and infinity cases
// kept exact (GLSL leaves atan(0, 0) undefined; lavapipe gives 3pi/4).
float weft_atan2_32_afn(float y, float x)
{
",
            atan2_32_special_cases!(),
            "    return atan2(y, x);
}"
        ),
    },
    Helper {
        name: "weft_asin32_afn",
        deps: &[],
        text: "// asin/acos under `afn`: the intrinsics, NaN outside [-1, 1] (where GLSL
// leaves them undefined). The range test is on the bits, which no float
// optimisation of non-precise code may change.
float weft_asin32_afn(float x) { return (asuint(x) & 0x7fffffffu) <= 0x3f800000u ? asin(x) : asfloat(0x7fc00000u); }
float weft_acos32_afn(float x) { return (asuint(x) & 0x7fffffffu) <= 0x3f800000u ? acos(x) : asfloat(0x7fc00000u); }",
    },
    Helper {
        name: "weft_erfc32",
        deps: &[],
        text: "// erfc with a Chebyshev fit (fractional error < 1.2e-7, Numerical Recipes).
float weft_erfc32(float x)
{
    float z = abs(x);
    float t = 1.0 / (1.0 + 0.5 * z);
    float p = -0.82215223 + t * 0.17087277;
    p = 1.48851587 + t * p;
    p = -1.13520398 + t * p;
    p = 0.27886807 + t * p;
    p = -0.18628806 + t * p;
    p = 0.09678418 + t * p;
    p = 0.37409196 + t * p;
    p = 1.00002368 + t * p;
    p = -1.26551223 + t * p;
    float r = t * exp(-z * z + p);
    return x >= 0.0 ? r : 2.0 - r;
}",
    },
    Helper {
        name: "weft_erf32",
        deps: &["weft_erfc32", "weft_copysign32"],
        text: "// erf: its Taylor series below 0.5, 1 - erfc above.
float weft_erf32(float x)
{
    float z = abs(x);
    if (z < 0.5)
    {
        float x2 = x * x;
        float p = -1.0 / 75600.0;
        p = 1.0 / 9360.0 + x2 * p;
        p = -1.0 / 1320.0 + x2 * p;
        p = 1.0 / 216.0 + x2 * p;
        p = -1.0 / 42.0 + x2 * p;
        p = 1.0 / 10.0 + x2 * p;
        p = -1.0 / 3.0 + x2 * p;
        p = 1.0 + x2 * p;
        return 1.1283791670955126 * x * p;
    }
    return weft_copysign32(1.0 - weft_erfc32(z), x);
}",
    },
    Helper {
        name: "weft_erfinv32",
        deps: &["weft_erf32"],
        text: "// erfinv: Giles' single-precision approximation and one Newton step.
float weft_erfinv32(float x)
{
    if (abs(x) >= 1.0)
        return abs(x) == 1.0 ? x * asfloat(0x7f800000u) : asfloat(0x7fc00000u);
    float w = -log((1.0 - x) * (1.0 + x));
    float p;
    if (w < 5.0)
    {
        w = w - 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    }
    else
    {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    float y = p * x;
    float d = 1.1283791670955126 * exp(-y * y);
    return d > 0.0 ? y - (weft_erf32(y) - x) / d : y;
}",
    },
    Helper {
        name: "weft_div_i32",
        deps: &[],
        text: "// Integer division truncates; x / 0 = 0 and INT_MIN / -1 wraps.
int weft_div_i32(int a, int b)
{
    if (b == 0)
        return 0;
    if (b == -1)
        return (int)(0u - (uint)a);
    return a / b;
}
int weft_rem_i32(int a, int b)
{
    if (b == 0 || b == -1)
        return 0;
    return a - (a / b) * b;
}
uint weft_div_u32(uint a, uint b)
{
    if (b == 0u)
        return 0u;
    return a / b;
}
uint weft_rem_u32(uint a, uint b)
{
    if (b == 0u)
        return 0u;
    return a - (a / b) * b;
}",
    },
    Helper {
        name: "weft_f32_to_i32",
        deps: &["weft_isnan32"],
        text: "// Float to integer: truncates, saturates, NaN -> 0.
int weft_f32_to_i32(float x)
{
    if (weft_isnan32(x))
        return 0;
    if (x >= 2147483648.0)
        return 2147483647;
    if (x <= -2147483648.0)
        return -2147483647 - 1;
    return (int)x;
}
uint weft_f32_to_u32(float x)
{
    if (weft_isnan32(x) || x <= 0.0)
        return 0u;
    if (x >= 4294967296.0)
        return 0xffffffffu;
    return (uint)x;
}",
    },
    Helper {
        name: "weft_f64_to_i32",
        deps: &["weft_isnan64"],
        text: "int weft_f64_to_i32(double x)
{
    if (weft_isnan64(x))
        return 0;
    if (x >= 2147483648.0L)
        return 2147483647;
    if (x <= -2147483648.0L)
        return -2147483647 - 1;
    return (int)x;
}
uint weft_f64_to_u32(double x)
{
    if (weft_isnan64(x) || x <= 0.0L)
        return 0u;
    if (x >= 4294967296.0L)
        return 0xffffffffu;
    return (uint)x;
}",
    },
    Helper {
        name: "weft_i64",
        deps: &[],
        text: "// 64-bit integers as uint2 (x = low word, y = high word), wrapping.
uint2 weft_i64_add(uint2 a, uint2 b)
{
    uint lo = a.x + b.x;
    return uint2(lo, a.y + b.y + (lo < a.x ? 1u : 0u));
}
uint2 weft_i64_sub(uint2 a, uint2 b) { return uint2(a.x - b.x, a.y - b.y - (a.x < b.x ? 1u : 0u)); }
uint2 weft_i64_neg(uint2 a) { return weft_i64_sub(uint2(0u, 0u), a); }
uint2 weft_mul32_wide(uint a, uint b)
{
    uint a0 = a & 0xffffu, a1 = a >> 16, b0 = b & 0xffffu, b1 = b >> 16;
    uint p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint mid = (p00 >> 16) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return uint2((p00 & 0xffffu) | (mid << 16), p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16));
}
uint2 weft_i64_mul(uint2 a, uint2 b)
{
    uint2 p = weft_mul32_wide(a.x, b.x);
    return uint2(p.x, p.y + a.x * b.y + a.y * b.x);
}
uint2 weft_i64_shl(uint2 a, uint n)
{
    n &= 63u;
    if (n == 0u)
        return a;
    if (n >= 32u)
        return uint2(0u, a.x << (n - 32u));
    return uint2(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}
uint2 weft_u64_shr(uint2 a, uint n)
{
    n &= 63u;
    if (n == 0u)
        return a;
    if (n >= 32u)
        return uint2(a.y >> (n - 32u), 0u);
    return uint2((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}
uint2 weft_i64_shr(uint2 a, uint n)
{
    n &= 63u;
    if (n == 0u)
        return a;
    uint sign = (uint)((int)a.y >> 31);
    if (n >= 32u)
        return uint2((uint)((int)a.y >> (n - 32u)), sign);
    return uint2((a.x >> n) | (a.y << (32u - n)), (uint)((int)a.y >> n));
}
bool weft_i64_eq(uint2 a, uint2 b) { return a.x == b.x && a.y == b.y; }
bool weft_u64_lt(uint2 a, uint2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
bool weft_i64_lt(uint2 a, uint2 b) { return (int)a.y < (int)b.y || (a.y == b.y && a.x < b.x); }
uint2 weft_i64_min(uint2 a, uint2 b) { return weft_i64_lt(b, a) ? b : a; }
uint2 weft_i64_max(uint2 a, uint2 b) { return weft_i64_lt(a, b) ? b : a; }
uint2 weft_u64_min(uint2 a, uint2 b) { return weft_u64_lt(b, a) ? b : a; }
uint2 weft_u64_max(uint2 a, uint2 b) { return weft_u64_lt(a, b) ? b : a; }
uint2 weft_i64_abs(uint2 a) { return (int)a.y < 0 ? weft_i64_neg(a) : a; }
uint2 weft_i64_popcount(uint2 a) { return uint2(countbits(a.x) + countbits(a.y), 0u); }
// Unsigned long division; d != 0.
uint2 weft_u64_divrem(uint2 n, uint2 d, out uint2 rem)
{
    uint2 q = uint2(0u, 0u);
    uint2 r = uint2(0u, 0u);
    [loop] for (int i = 63; i >= 0; --i)
    {
        r = weft_i64_shl(r, 1u);
        r.x |= (i >= 32 ? (n.y >> (uint)(i - 32)) : (n.x >> (uint)i)) & 1u;
        if (!weft_u64_lt(r, d))
        {
            r = weft_i64_sub(r, d);
            if (i >= 32)
                q.y |= 1u << (uint)(i - 32);
            else
                q.x |= 1u << (uint)i;
        }
    }
    rem = r;
    return q;
}
uint2 weft_u64_div(uint2 a, uint2 b)
{
    uint2 r;
    return (b.x | b.y) == 0u ? uint2(0u, 0u) : weft_u64_divrem(a, b, r);
}
uint2 weft_u64_rem(uint2 a, uint2 b)
{
    uint2 r = uint2(0u, 0u);
    if ((b.x | b.y) != 0u)
        weft_u64_divrem(a, b, r);
    return r;
}
uint2 weft_i64_div(uint2 a, uint2 b)
{
    if ((b.x | b.y) == 0u)
        return uint2(0u, 0u);
    uint2 r;
    uint2 q = weft_u64_divrem(weft_i64_abs(a), weft_i64_abs(b), r);
    return ((a.y ^ b.y) & 0x80000000u) != 0u ? weft_i64_neg(q) : q;
}
uint2 weft_i64_rem(uint2 a, uint2 b)
{
    if ((b.x | b.y) == 0u)
        return uint2(0u, 0u);
    uint2 r;
    weft_u64_divrem(weft_i64_abs(a), weft_i64_abs(b), r);
    return (int)a.y < 0 ? weft_i64_neg(r) : r;
}",
    },
    Helper {
        name: "weft_i64_to_f64",
        deps: &[],
        text: "double weft_i64_to_f64(uint2 a) { return (double)(int)a.y * 4294967296.0L + (double)a.x; }
double weft_u64_to_f64(uint2 a) { return (double)a.y * 4294967296.0L + (double)a.x; }",
    },
    Helper {
        name: "weft_f64_to_i64",
        deps: &["weft_isnan64", "weft_trunc64"],
        text: "// Double to 64-bit integer: truncates, saturates, NaN -> 0.
uint2 weft_f64_to_i64(double x)
{
    if (weft_isnan64(x))
        return uint2(0u, 0u);
    if (x >= 9223372036854775808.0L)
        return uint2(0xffffffffu, 0x7fffffffu);
    if (x <= -9223372036854775808.0L)
        return uint2(0u, 0x80000000u);
    double t = weft_trunc64(x);
    double hi = weft_floor64(t * 2.3283064365386962890625e-10L);
    double lo = t - hi * 4294967296.0L;
    return uint2((uint)lo, (uint)(int)hi);
}
uint2 weft_f64_to_u64(double x)
{
    if (weft_isnan64(x) || x <= 0.0L)
        return uint2(0u, 0u);
    if (x >= 18446744073709551616.0L)
        return uint2(0xffffffffu, 0xffffffffu);
    double t = weft_trunc64(x);
    double hi = weft_floor64(t * 2.3283064365386962890625e-10L);
    double lo = t - hi * 4294967296.0L;
    return uint2((uint)lo, (uint)hi);
}",
    },
    Helper {
        name: "weft_load_bits",
        deps: &[],
        text: "// 8- and 16-bit values in memory: the containing 32-bit word.
uint weft_load_bits(RWByteAddressBuffer buf, uint off, uint width)
{
    return (buf.Load(off & ~3u) >> ((off & 3u) * 8u)) & ((1u << width) - 1u);
}",
    },
    Helper {
        name: "weft_store_bits",
        deps: &[],
        text: "// Stores an 8- or 16-bit value with a compare-exchange loop on the containing
// word, so that threads writing neighbouring bytes do not race.
void weft_store_bits(RWByteAddressBuffer buf, uint off, uint value, uint width)
{
    uint word = off & ~3u;
    uint shift = (off & 3u) * 8u;
    uint mask = ((1u << width) - 1u) << shift;
    uint bits = (value << shift) & mask;
    uint old = buf.Load(word);
    [loop] for (;;)
    {
        uint prev;
        buf.InterlockedCompareExchange(word, old, (old & ~mask) | bits, prev);
        if (prev == old)
            break;
        old = prev;
    }
}",
    },
    Helper {
        name: "weft_load_f64",
        deps: &[],
        text: "double weft_load_f64(RWByteAddressBuffer buf, uint off)
{
    uint2 w = buf.Load2(off);
    return asdouble(w.x, w.y);
}",
    },
];

/// Helpers that a name is defined by (several functions share one entry).
fn entry_of(name: &str) -> &'static str {
    match name {
        "weft_fmax32" => "weft_fmin32",
        "weft_fmax64" => "weft_fmin64",
        "weft_floor64" | "weft_ceil64" => "weft_trunc64",
        "weft_rint64" => "weft_round64",
        "weft_rem_i32" | "weft_div_u32" | "weft_rem_u32" => "weft_div_i32",
        "weft_f32_to_u32" => "weft_f32_to_i32",
        "weft_atan2_32" | "weft_asin32" | "weft_acos32" => "weft_atan32",
        "weft_ro_sum64" => "weft_fma64",
        "weft_acos32_afn" => "weft_asin32_afn",
        "weft_f64_to_u32" => "weft_f64_to_i32",
        "weft_u64_to_f64" => "weft_i64_to_f64",
        "weft_f64_to_u64" => "weft_f64_to_i64",
        n => match HELPERS.iter().find(|h| h.name == n) {
            Some(h) => h.name,
            None if n.starts_with("weft_i64_") || n.starts_with("weft_u64_") => "weft_i64",
            None => "",
        },
    }
}

/// The set of helpers a shader uses.
#[derive(Default)]
pub(crate) struct HelperSet {
    used: Vec<&'static str>,
}

impl HelperSet {
    /// Records that the shader calls function `name` and returns the name.
    pub(crate) fn call(&mut self, name: &'static str) -> &'static str {
        let e = entry_of(name);
        if !e.is_empty() && !self.used.contains(&e) {
            self.used.push(e);
        }
        name
    }

    /// The text of every used helper and its dependencies, in definition
    /// order.
    pub(crate) fn text(&self) -> String {
        let mut need: Vec<&str> = self.used.clone();
        let mut i = 0;
        while i < need.len() {
            if let Some(h) = HELPERS.iter().find(|h| h.name == need[i]) {
                for d in h.deps {
                    if !need.contains(d) {
                        need.push(d);
                    }
                }
            }
            i += 1;
        }
        let mut out = String::new();
        for h in HELPERS.iter().filter(|h| need.contains(&h.name)) {
            out.push_str(h.text);
            out.push_str("\n\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependencies_come_first() {
        for (i, h) in HELPERS.iter().enumerate() {
            for d in h.deps {
                let j = HELPERS.iter().position(|x| x.name == *d);
                assert!(j.is_some_and(|j| j < i), "{} needs {d} before it", h.name);
            }
            assert!(h.text.contains(h.name), "{}", h.name);
        }
    }

    #[test]
    fn text_includes_dependencies_once() {
        let mut s = HelperSet::default();
        s.call("weft_floor64");
        s.call("weft_f64_to_i64");
        let t = s.text();
        assert_eq!(t.matches("double weft_trunc64(double x)").count(), 1);
        assert!(t.contains("uint2 weft_bits64(double x)"));
        assert!(
            t.find("weft_copysign64(double a").unwrap() < t.find("double weft_trunc64").unwrap()
        );
    }
}
