//! Formatting of the IR's `Print` instruction (C `printf` conventions).
//!
//! The generated code passes each scalar leaf of the arguments as one
//! 8-byte slot plus a kind byte: [`KIND_BOOL`], [`KIND_SIGNED`] (the value
//! sign-extended to `i64`), [`KIND_UNSIGNED`] (zero-extended to `u64`) or
//! [`KIND_FLOAT`] (the bits of the value widened to `f64`). Each conversion
//! `%d %i %u %f %F %g %G %e %E %x %X %o %c %s` consumes one leaf (aggregates
//! print as their components); `%%` prints `%`. Flags `-+ 0#`, a width and a
//! precision are honoured, length modifiers (`l`, `ll`, `h`, `z`) ignored. A
//! conversion without an argument left is printed as written.

pub const KIND_BOOL: u8 = 0;
pub const KIND_SIGNED: u8 = 1;
pub const KIND_UNSIGNED: u8 = 2;
pub const KIND_FLOAT: u8 = 3;

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

/// Formats `fmt` with the encoded arguments.
pub fn format(fmt: &str, kinds: &[u8], values: &[u64]) -> String {
    let mut out = String::new();
    let mut args = kinds.iter().zip(values);
    let mut it = fmt.char_indices().peekable();
    while let Some((start, c)) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&(_, f)) = it.peek() {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '0' => spec.zero = true,
                '#' => spec.alt = true,
                _ => break,
            }
            it.next();
        }
        while let Some(&(_, d)) = it.peek() {
            let Some(d) = d.to_digit(10) else { break };
            spec.width = spec.width.saturating_mul(10).saturating_add(d as usize);
            it.next();
        }
        if it.peek().is_some_and(|&(_, c)| c == '.') {
            it.next();
            let mut p = 0usize;
            while let Some(&(_, d)) = it.peek() {
                let Some(d) = d.to_digit(10) else { break };
                p = p.saturating_mul(10).saturating_add(d as usize);
                it.next();
            }
            spec.prec = Some(p);
        }
        while it
            .peek()
            .is_some_and(|&(_, c)| matches!(c, 'l' | 'h' | 'z' | 'j' | 't' | 'L' | 'q'))
        {
            it.next();
        }
        let Some((end, conv)) = it.next() else {
            out.push_str(&fmt[start..]);
            break;
        };
        if conv == '%' {
            out.push('%');
            continue;
        }
        if !"diufFgGeExXocs".contains(conv) {
            out.push_str(&fmt[start..end + conv.len_utf8()]);
            continue;
        }
        let Some((&kind, &bits)) = args.next() else {
            out.push_str(&fmt[start..end + conv.len_utf8()]);
            continue;
        };
        out.push_str(&convert(&spec, conv, kind, bits));
    }
    out
}

fn as_f64(kind: u8, bits: u64) -> f64 {
    match kind {
        KIND_FLOAT => f64::from_bits(bits),
        KIND_SIGNED => bits as i64 as f64,
        _ => bits as f64,
    }
}

fn as_i64(kind: u8, bits: u64) -> i64 {
    match kind {
        KIND_FLOAT => f64::from_bits(bits) as i64,
        _ => bits as i64,
    }
}

fn convert(spec: &Spec, conv: char, kind: u8, bits: u64) -> String {
    let (sign, body) = match conv {
        'd' | 'i' => {
            let v = as_i64(kind, bits);
            let mut digits = v.unsigned_abs().to_string();
            pad_prec(&mut digits, spec.prec);
            (sign_of(v < 0, spec), digits)
        }
        'u' | 'x' | 'X' | 'o' => {
            let v = as_i64(kind, bits) as u64;
            let mut digits = match conv {
                'u' => v.to_string(),
                'x' => format!("{v:x}"),
                'X' => format!("{v:X}"),
                _ => format!("{v:o}"),
            };
            pad_prec(&mut digits, spec.prec);
            if spec.alt && v != 0 {
                digits = match conv {
                    'x' => format!("0x{digits}"),
                    'X' => format!("0X{digits}"),
                    'o' => format!("0{digits}"),
                    _ => digits,
                };
            }
            ("", digits)
        }
        'c' => (
            "",
            char::from_u32(as_i64(kind, bits) as u32)
                .unwrap_or('?')
                .to_string(),
        ),
        's' => {
            let s = match kind {
                KIND_BOOL => if bits != 0 { "True" } else { "False" }.to_string(),
                KIND_FLOAT => format!("{}", f64::from_bits(bits)),
                KIND_SIGNED => (bits as i64).to_string(),
                _ => bits.to_string(),
            };
            ("", s)
        }
        _ => {
            let v = as_f64(kind, bits);
            let prec = spec.prec.unwrap_or(6);
            let body = if !v.is_finite() {
                let s = if v.is_nan() { "nan" } else { "inf" };
                if conv.is_ascii_uppercase() {
                    s.to_uppercase()
                } else {
                    s.to_string()
                }
            } else {
                match conv {
                    'f' | 'F' => format!("{:.*}", prec, v.abs()),
                    'e' | 'E' => exp_form(v.abs(), prec, conv == 'E'),
                    _ => general(v.abs(), prec, spec.alt, conv == 'G'),
                }
            };
            (sign_of(v.is_sign_negative() && !v.is_nan(), spec), body)
        }
    };
    let len = sign.len() + body.chars().count();
    if len >= spec.width {
        return format!("{sign}{body}");
    }
    let fill = spec.width - len;
    let numeric = !matches!(conv, 's' | 'c');
    if spec.left {
        format!("{sign}{body}{}", " ".repeat(fill))
    } else if spec.zero && numeric && (spec.prec.is_none() || "fFeEgG".contains(conv)) {
        format!("{sign}{}{body}", "0".repeat(fill))
    } else {
        format!("{}{sign}{body}", " ".repeat(fill))
    }
}

fn sign_of(neg: bool, spec: &Spec) -> &'static str {
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

fn pad_prec(digits: &mut String, prec: Option<usize>) {
    if let Some(p) = prec {
        if digits.len() < p {
            *digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
    }
}

/// `%e` of a non-negative finite value: `d.ddddde+XX`.
fn exp_form(v: f64, prec: usize, upper: bool) -> String {
    let s = format!("{:.*e}", prec, v);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}{e}{sign}{:02}", exp.abs())
}

/// `%g` of a non-negative finite value.
fn general(v: f64, prec: usize, alt: bool, upper: bool) -> String {
    let p = prec.max(1);
    let exp = if v == 0.0 {
        0
    } else {
        let s = format!("{:.*e}", p - 1, v);
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i32>().ok())
            .unwrap_or(0)
    };
    let mut s = if exp < -4 || exp >= p as i32 {
        exp_form(v, p - 1, upper)
    } else {
        format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, v)
    };
    if !alt {
        let (mant, tail) = match s.find(['e', 'E']) {
            Some(i) => (s[..i].to_string(), s[i..].to_string()),
            None => (s.clone(), String::new()),
        };
        let mant = if mant.contains('.') {
            mant.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            mant
        };
        s = mant + &tail;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64) -> u64 {
        x.to_bits()
    }

    #[test]
    fn c_style_conversions() {
        let kinds = [
            KIND_SIGNED,
            KIND_FLOAT,
            KIND_FLOAT,
            KIND_UNSIGNED,
            KIND_FLOAT,
            KIND_BOOL,
        ];
        let vals = [(-42i64) as u64, f(1.5), f(0.0001234), 255, f(1234567.0), 1];
        let s = format("%d %f %g %x %e %s 100%%\n", &kinds, &vals);
        assert_eq!(s, "-42 1.500000 0.0001234 ff 1.234567e+06 True 100%\n");
        assert_eq!(
            format("[%5.2f|%-4d|%03d]", &kinds[..3], &vals[..3]),
            "[-42.00|1   |000]"
        );
        assert_eq!(
            format("%g %g", &[KIND_FLOAT, KIND_FLOAT], &[f(100000.0), f(1e6)]),
            "100000 1e+06"
        );
        assert_eq!(format("%d %d", &[KIND_SIGNED], &[7]), "7 %d");
    }
}
