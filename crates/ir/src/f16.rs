//! IEEE half-precision conversions (storage type `float16`) and bfloat16's
//! (`bfloat16`).

/// Converts an `f64` to the bits of the nearest `f16` (round to nearest even).
pub fn f64_to_f16(v: f64) -> u16 {
    half::f16::from_f64(v).to_bits()
}

/// Widens `f16` bits to `f64` exactly.
pub fn f16_to_f64(bits: u16) -> f64 {
    half::f16::from_bits(bits).to_f64()
}

/// Converts an `f32` to the bits of the nearest `f16`.
pub fn f32_to_f16(v: f32) -> u16 {
    half::f16::from_f32(v).to_bits()
}

/// Widens `f16` bits to `f32` exactly.
pub fn f16_to_f32(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

/// Rounds an `f32` to the bits of the nearest bfloat16 (round to nearest
/// even; NaN keeps its sign and top mantissa bits, quieted so that it stays
/// a NaN), as Warp's `wp_float_to_bfloat16_bits_sw` (`native/builtin.h`).
pub fn f32_to_bf16(v: f32) -> u16 {
    let bits = v.to_bits();
    if bits & 0x7f80_0000 == 0x7f80_0000 {
        let mut h = (bits >> 16) as u16;
        if bits & 0x007f_ffff != 0 && h & 0x7f == 0 {
            h |= 0x40;
        }
        return h;
    }
    let bias = (bits >> 16) & 1;
    (bits.wrapping_add(0x7fff + bias) >> 16) as u16
}

/// Widens bfloat16 bits to `f32` exactly.
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

/// An `f64` to bfloat16 bits: through `f32`, as Warp's `bfloat16(double)`
/// (the constructor takes a `float`).
pub fn f64_to_bf16(v: f64) -> u16 {
    f32_to_bf16(v as f32)
}

#[cfg(test)]
mod bf16_tests {
    use super::*;

    #[test]
    fn rounds_to_nearest_even() {
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
        assert_eq!(f32_to_bf16(1.0 + 1.0 / 256.0), 0x3f80);
        // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: to 1 + 2^-6.
        assert_eq!(f32_to_bf16(1.0 + 3.0 / 256.0), 0x3f82);
        assert_eq!(bf16_to_f32(0x3f82), 1.0 + 1.0 / 64.0);
        assert_eq!(f32_to_bf16(f32::INFINITY), 0x7f80);
        assert_eq!(f32_to_bf16(-0.0), 0x8000);
        // A NaN whose top mantissa bits are zero stays a NaN.
        let nan = f32::from_bits(0x7f80_0001);
        assert!(bf16_to_f32(f32_to_bf16(nan)).is_nan());
        // The largest finite f32 rounds to infinity.
        assert_eq!(f32_to_bf16(f32::MAX), 0x7f80);
    }
}
