//! Values: the literals of generated programs and the contents of their
//! input arrays, chosen to make bugs visible — mostly small exact numbers,
//! now and then the edges of a type (its extremes, zero of either sign,
//! infinities, NaN).

use super::rng::Rng;
use weft::ir::Scalar;

/// How values are drawn.
#[derive(Clone, Debug)]
pub struct Values {
    /// Probability of an edge value (extremes, ±0, ±inf, NaN).
    pub edge: f64,
}

impl Default for Values {
    fn default() -> Values {
        Values { edge: 0.05 }
    }
}

/// The range of an integer type.
pub fn int_range(s: Scalar) -> (i128, i128) {
    match s {
        Scalar::Bool => (0, 1),
        Scalar::I8 => (i8::MIN as i128, i8::MAX as i128),
        Scalar::U8 => (0, u8::MAX as i128),
        Scalar::I16 => (i16::MIN as i128, i16::MAX as i128),
        Scalar::U16 => (0, u16::MAX as i128),
        Scalar::I32 => (i32::MIN as i128, i32::MAX as i128),
        Scalar::U32 => (0, u32::MAX as i128),
        Scalar::I64 => (i64::MIN as i128, i64::MAX as i128),
        _ => (0, u64::MAX as i128),
    }
}

impl Values {
    /// An integer of type `s` (in its range).
    pub fn int(&self, rng: &mut Rng, s: Scalar) -> i128 {
        let (lo, hi) = int_range(s);
        if rng.chance(self.edge) {
            return *rng.pick(&[lo, hi, 0, 1, hi / 2 + 1, lo.max(-1)]);
        }
        let v = if rng.chance(0.7) {
            rng.range(-9, 9) as i128
        } else {
            rng.range(-300, 300) as i128
        };
        v.clamp(lo, hi)
    }

    /// A float exactly representable in `s`: small integers, dyadic
    /// fractions, numbers of a few significant bits over a moderate range
    /// of exponents; now and then an edge value.
    pub fn nice_float(&self, rng: &mut Rng, s: Scalar) -> f64 {
        if rng.chance(self.edge) {
            let max = match s {
                Scalar::F16 => 65504.0,
                Scalar::F32 => f32::MAX as f64,
                _ => f64::MAX,
            };
            return *rng.pick(&[
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                max,
                -max,
            ]);
        }
        let v = match rng.below(4) {
            0 => rng.range(-8, 8) as f64,
            1 => rng.range(-64, 64) as f64 / 16.0,
            2 => {
                // A few significant bits, exponent in [-8, 8].
                let m = rng.range(1, 255) as f64 / 128.0;
                let e = rng.range(-8, 8) as i32;
                let v = m * 2f64.powi(e);
                if rng.chance(0.5) {
                    -v
                } else {
                    v
                }
            }
            _ => {
                let v = rng.range(-1000, 1000) as f64 / 8.0;
                if s == Scalar::F16 {
                    v / 4.0
                } else {
                    v
                }
            }
        };
        round_to(s, v)
    }

    /// The little-endian bytes of one scalar of `s` for an input array.
    pub fn scalar_bytes(&self, rng: &mut Rng, s: Scalar) -> Vec<u8> {
        match s {
            Scalar::Bool => vec![rng.chance(0.5) as u8],
            s if s.is_float() => float_bytes(s, self.nice_float(rng, s)),
            s => {
                let v = self.int(rng, s) as u128 as u64;
                v.to_le_bytes()[..s.size() as usize].to_vec()
            }
        }
    }
}

/// `v` rounded to float type `s`.
pub fn round_to(s: Scalar, v: f64) -> f64 {
    match s {
        Scalar::F16 => weft::ir::f16::f16_to_f64(weft::ir::f16::f64_to_f16(v)),
        Scalar::F32 => v as f32 as f64,
        _ => v,
    }
}

/// The little-endian bytes of `v` as float type `s`.
pub fn float_bytes(s: Scalar, v: f64) -> Vec<u8> {
    match s {
        Scalar::F16 => weft::ir::f16::f64_to_f16(v).to_le_bytes().to_vec(),
        Scalar::F32 => (v as f32).to_le_bytes().to_vec(),
        _ => v.to_le_bytes().to_vec(),
    }
}
