//! Scalar math that `std` lacks: `erf`, `erfc`, `erfinv`.
//!
//! `erf`/`erfc` come from `libm` (a port of the C library's algorithms, as
//! Warp's CPU build uses the host libm). `erfinv` starts from Giles'
//! polynomial approximation ("Approximating the erfinv function", 2010) and
//! polishes it with two Newton steps on `erf` in `f64`.
//!
//! These are the functions the JIT's shims call. The reference interpreter
//! must compute the same values; when it exposes its own helpers, switch the
//! bodies here to call them (one place).

pub fn erf_f32(x: f32) -> f32 {
    libm::erff(x)
}

pub fn erf_f64(x: f64) -> f64 {
    libm::erf(x)
}

pub fn erfc_f32(x: f32) -> f32 {
    libm::erfcf(x)
}

pub fn erfc_f64(x: f64) -> f64 {
    libm::erfc(x)
}

pub fn erfinv_f32(x: f32) -> f32 {
    erfinv_f64(x as f64) as f32
}

pub fn erfinv_f64(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    if x.abs() == 1.0 {
        return f64::INFINITY.copysign(x);
    }
    if x == 0.0 {
        return x;
    }
    let mut w = -((1.0 - x) * (1.0 + x)).ln();
    let p = if w < 5.0 {
        w -= 2.5;
        [
            3.43273939e-07,
            -3.5233877e-06,
            -4.39150654e-06,
            0.00021858087,
            -0.00125372503,
            -0.00417768164,
            0.246640727,
            1.50140941,
        ]
        .iter()
        .fold(2.81022636e-08, |p, c| c + p * w)
    } else {
        w = w.sqrt() - 3.0;
        [
            0.000100950558,
            0.00134934322,
            -0.00367342844,
            0.00573950773,
            -0.0076224613,
            0.00943887047,
            1.00167406,
            2.83297682,
        ]
        .iter()
        .fold(-0.000200214257, |p, c| c + p * w)
    };
    let mut y = p * x;
    // d/dy erf(y) = 2/sqrt(pi) * exp(-y^2)
    let two_over_sqrt_pi = std::f64::consts::FRAC_2_SQRT_PI;
    for _ in 0..2 {
        let d = two_over_sqrt_pi * (-y * y).exp();
        if d == 0.0 {
            break;
        }
        y -= (libm::erf(y) - x) / d;
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfinv_inverts_erf() {
        for &x in &[-0.999, -0.7, -0.1, 0.05, 0.3, 0.9, 0.99999] {
            let y = erfinv_f64(x);
            assert!((libm::erf(y) - x).abs() < 1e-14, "x={x} y={y}");
        }
        assert_eq!(erfinv_f64(1.0), f64::INFINITY);
        assert!(erfinv_f64(1.5).is_nan());
        assert!((erfinv_f32(0.5) - 0.476_936_28).abs() < 1e-6);
    }
}
