//! IEEE half-precision conversions (storage type `float16`).

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
