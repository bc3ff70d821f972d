//! printf-style formatting for [`crate::InstKind::Print`].
//!
//! Supported: conversions `%d %i %u %x %X %f %F %e %E %g %G %s %c %%`, the
//! flags `- + space 0 #`, a decimal width and `.precision`; C length
//! modifiers (`h l ll z j t L q`) are accepted and ignored. Arguments are
//! scalars (aggregates were flattened by the caller) and are converted to
//! what the conversion needs: `%d` of a float truncates, `%f` of an integer
//! widens, `%u`/`%x` of a negative integer show its two's complement in its
//! own width. A conversion with no argument left, or an unknown one, is
//! copied to the output as written.

use super::scalar::{float_to_f64, raw_bits};
use crate::types::Scalar;
use std::fmt::Write;

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    prec: Option<usize>,
}

fn as_i128(s: Scalar, v: u64) -> i128 {
    if s.is_float() {
        float_to_f64(s, v) as i128
    } else if s.is_signed_int() {
        v as i64 as i128
    } else {
        v as i128
    }
}

fn as_u64(s: Scalar, v: u64) -> u64 {
    if s.is_float() {
        float_to_f64(s, v) as u64
    } else {
        raw_bits(s, v)
    }
}

fn as_f64(s: Scalar, v: u64) -> f64 {
    if s.is_float() {
        float_to_f64(s, v)
    } else {
        as_i128(s, v) as f64
    }
}

/// Natural text of a scalar (for `%s`).
fn display(s: Scalar, v: u64) -> String {
    match s {
        Scalar::Bool => if v != 0 { "True" } else { "False" }.to_string(),
        _ if s.is_float() => format!("{}", float_to_f64(s, v)),
        _ => format!("{}", as_i128(s, v)),
    }
}

/// Pads `body` (after its sign/prefix `head`) to the spec's width.
fn pad(out: &mut String, spec: &Spec, head: &str, body: &str, zero_ok: bool) {
    let len = head.chars().count() + body.chars().count();
    let fill = spec.width.saturating_sub(len);
    if spec.left {
        out.push_str(head);
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if spec.zero && zero_ok {
        out.push_str(head);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(body);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(head);
        out.push_str(body);
    }
}

fn sign_str(neg: bool, spec: &Spec) -> &'static str {
    if neg {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

/// `%e` body of a non-negative finite value: `d.ddde±XX`.
fn fmt_exp(x: f64, prec: usize, alt: bool, upper: bool) -> String {
    let s = format!("{:.*e}", prec, x);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = exp.parse().unwrap_or(0);
    let mut out = mant.to_string();
    if alt && prec == 0 {
        out.push('.');
    }
    out.push(if upper { 'E' } else { 'e' });
    out.push(if e < 0 { '-' } else { '+' });
    let _ = write!(out, "{:02}", e.unsigned_abs());
    out
}

fn strip_zeros(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    let t = s.trim_end_matches('0');
    t.trim_end_matches('.').to_string()
}

/// `%g` body of a non-negative finite value.
fn fmt_general(x: f64, prec: usize, alt: bool, upper: bool) -> String {
    let p = if prec == 0 { 1 } else { prec };
    let exp = if x == 0.0 {
        0
    } else {
        let s = format!("{:.*e}", p - 1, x);
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i64>().ok())
            .unwrap_or(0)
    };
    if (p as i64) > exp && exp >= -4 {
        let s = format!("{:.*}", (p as i64 - 1 - exp) as usize, x);
        if alt {
            s
        } else {
            strip_zeros(&s)
        }
    } else {
        let s = fmt_exp(x, p - 1, alt, upper);
        if alt {
            return s;
        }
        let (m, e) = s.split_at(s.find(['e', 'E']).unwrap_or(s.len()));
        format!("{}{}", strip_zeros(m), e)
    }
}

fn fmt_float(out: &mut String, spec: &Spec, conv: char, x: f64) {
    let upper = conv.is_ascii_uppercase();
    let head = sign_str(x.is_sign_negative() && !x.is_nan(), spec);
    if !x.is_finite() {
        let body = match (x.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        pad(out, spec, head, body, false);
        return;
    }
    let a = x.abs();
    let prec = spec.prec.unwrap_or(6);
    let body = match conv.to_ascii_lowercase() {
        'f' => {
            let mut s = format!("{:.*}", prec, a);
            if spec.alt && prec == 0 {
                s.push('.');
            }
            s
        }
        'e' => fmt_exp(a, prec, spec.alt, upper),
        _ => fmt_general(a, prec, spec.alt, upper),
    };
    pad(out, spec, head, &body, true);
}

fn fmt_int(out: &mut String, spec: &Spec, neg: bool, digits: String, prefix: &str) {
    let mut body = digits;
    if let Some(p) = spec.prec {
        if p == 0 && body == "0" {
            body.clear();
        }
        if body.len() < p {
            body = "0".repeat(p - body.len()) + &body;
        }
    }
    let head = format!("{}{}", sign_str(neg, spec), prefix);
    pad(out, spec, &head, &body, spec.prec.is_none());
}

/// Formats `fmt` with the scalar arguments `args` (type, slot encoding).
pub fn format(fmt: &str, args: &[(Scalar, u64)]) -> String {
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut next = args.iter();
    let b = fmt.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let Some(rel) = fmt[i..].find('%') else {
            out.push_str(&fmt[i..]);
            break;
        };
        out.push_str(&fmt[i..i + rel]);
        let start = i + rel;
        let mut j = start + 1;
        let mut spec = Spec::default();
        while j < b.len() {
            match b[j] {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'0' => spec.zero = true,
                b'#' => spec.alt = true,
                _ => break,
            }
            j += 1;
        }
        while j < b.len() && b[j].is_ascii_digit() {
            spec.width = spec
                .width
                .saturating_mul(10)
                .saturating_add((b[j] - b'0') as usize);
            j += 1;
        }
        if j < b.len() && b[j] == b'.' {
            j += 1;
            let mut p = 0usize;
            while j < b.len() && b[j].is_ascii_digit() {
                p = p.saturating_mul(10).saturating_add((b[j] - b'0') as usize);
                j += 1;
            }
            spec.prec = Some(p);
        }
        // Keep widths sane: a huge width is a malformed format, not a request
        // for gigabytes of padding.
        spec.width = spec.width.min(4096);
        spec.prec = spec.prec.map(|p| p.min(4096));
        while j < b.len() && matches!(b[j], b'h' | b'l' | b'L' | b'q' | b'j' | b'z' | b't') {
            j += 1;
        }
        let Some(conv) = fmt[j..].chars().next() else {
            out.push_str(&fmt[start..]);
            break;
        };
        let end = j + conv.len_utf8();
        if conv == '%' {
            out.push('%');
            i = end;
            continue;
        }
        if !"diuxXfFeEgGsc".contains(conv) {
            out.push_str(&fmt[start..end]);
            i = end;
            continue;
        }
        let Some(&(s, v)) = next.next() else {
            out.push_str(&fmt[start..end]);
            i = end;
            continue;
        };
        match conv {
            'd' | 'i' => {
                let n = as_i128(s, v);
                fmt_int(&mut out, &spec, n < 0, n.unsigned_abs().to_string(), "");
            }
            'u' => fmt_int(&mut out, &spec, false, as_u64(s, v).to_string(), ""),
            'x' | 'X' => {
                let n = as_u64(s, v);
                let mut d = format!("{n:x}");
                if conv == 'X' {
                    d = d.to_uppercase();
                }
                let prefix = match (spec.alt && n != 0, conv) {
                    (false, _) => "",
                    (true, 'x') => "0x",
                    (true, _) => "0X",
                };
                let sp = Spec {
                    plus: false,
                    space: false,
                    ..spec
                };
                fmt_int(&mut out, &sp, false, d, prefix);
            }
            's' => {
                let mut t = display(s, v);
                if let Some(p) = spec.prec {
                    t = t.chars().take(p).collect();
                }
                pad(&mut out, &spec, "", &t, false);
            }
            'c' => {
                let c = char::from_u32(as_u64(s, v) as u32).unwrap_or('\u{fffd}');
                pad(&mut out, &spec, "", &c.to_string(), false);
            }
            _ => fmt_float(&mut out, &spec, conv, as_f64(s, v)),
        }
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> (Scalar, u64) {
        (Scalar::F32, x.to_bits() as u64)
    }
    fn d(x: f64) -> (Scalar, u64) {
        (Scalar::F64, x.to_bits())
    }
    fn i(x: i32) -> (Scalar, u64) {
        (Scalar::I32, x as i64 as u64)
    }

    #[test]
    fn integers() {
        assert_eq!(
            format("%d|%i|%5d|%-5d|%05d", &[i(42), i(-7), i(42), i(42), i(-42)]),
            "42|-7|   42|42   |-0042"
        );
        assert_eq!(
            format("%u %x %X %#x", &[i(-1), i(255), i(255), i(255)]),
            "4294967295 ff FF 0xff"
        );
        assert_eq!(format("%+d % d %.3d", &[i(5), i(5), i(5)]), "+5  5 005");
        assert_eq!(
            format("%ld %lld", &[(Scalar::I64, -3i64 as u64), i(4)]),
            "-3 4"
        );
        assert_eq!(format("%d", &[f(-2.9)]), "-2");
    }

    #[test]
    fn floats() {
        assert_eq!(
            format(
                "%f %.3f %8.2f %-8.2f|",
                &[f(1.5), d(1.23456), d(-2.5), d(2.5)]
            ),
            "1.500000 1.235    -2.50 2.50    |"
        );
        assert_eq!(
            format("%e %.2E", &[d(12345.678), d(0.000123)]),
            "1.234568e+04 1.23E-04"
        );
        assert_eq!(
            format("%g %g %g %g", &[d(100000.0), d(1e6), d(0.0001), d(1e-5)]),
            "100000 1e+06 0.0001 1e-05"
        );
        assert_eq!(
            format("%g %.3g %#g", &[d(3.5), d(1.23456), d(2.0)]),
            "3.5 1.23 2.00000"
        );
        assert_eq!(
            format(
                "%f %f %F",
                &[d(f64::INFINITY), d(-f64::INFINITY), d(f64::NAN)]
            ),
            "inf -inf NAN"
        );
        assert_eq!(format("%g", &[d(0.0)]), "0");
        assert_eq!(format("%f", &[i(3)]), "3.000000");
        assert_eq!(format("%.0f %.0f", &[d(0.5), d(1.5)]), "0 2");
    }

    #[test]
    fn strings_percent_and_leftovers() {
        assert_eq!(
            format("100%% %s %s", &[f(0.5), (Scalar::Bool, 1)]),
            "100% 0.5 True"
        );
        assert_eq!(format("a=%d b=%d", &[i(1)]), "a=1 b=%d");
        assert_eq!(format("%q %", &[i(1)]), "%q %");
        assert_eq!(format("no args\n", &[]), "no args\n");
        assert_eq!(format("é%dü", &[i(3)]), "é3ü");
    }
}
