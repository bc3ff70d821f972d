//! Expressions of `print`, breakpoint conditions and `watch`: a small part
//! of the kernel language over a stop's variables and the launch's
//! read-only arrays.
//!
//! ```text
//! expr    := or
//! or      := and (("or" | "||") and)*
//! and     := not (("and" | "&&") not)*
//! not     := ("not" | "!") not | cmp
//! cmp     := sum (("==" | "!=" | "<" | "<=" | ">" | ">=") sum)?
//! sum     := product (("+" | "-") product)*
//! product := unary (("*" | "/" | "%") unary)*
//! unary   := "-" unary | postfix
//! postfix := primary ("." NAME | "[" expr ("," expr)* "]")*
//! primary := NUMBER | "True" | "False" | NAME | "(" expr ")"
//! ```
//!
//! Arithmetic follows the operands: integers in `i64` (wrapping), floats in
//! `f64` rounded to `f32` when an operand is `f32`; a vector or matrix with
//! a scalar, or two of one shape, component by component; `/` of integers
//! truncates. Comparisons and `and`/`or`/`not` give `bool`.

use super::{DebugValue, ScalarValue};

/// What a name refers to, for [`eval`].
pub(super) trait Scope {
    /// A variable's value.
    fn var(&self, name: &str) -> Option<DebugValue>;
    /// Element `index` of array `name`: `None` if there is no such array;
    /// `Some(Err)` if it cannot be read here.
    fn element(&self, name: &str, index: &[i64]) -> Option<Result<DebugValue, String>>;
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(String),
    Name(String),
    Op(&'static str),
}

fn lex(s: &str) -> Result<Vec<Tok>, String> {
    const OPS: [&str; 20] = [
        "==", "!=", "<=", ">=", "&&", "||", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]",
        ",", ".", "!",
    ];
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let st = i;
            while i < b.len()
                && ((b[i] as char).is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || ((b[i] == b'+' || b[i] == b'-') && matches!(b[i - 1], b'e' | b'E')))
            {
                i += 1;
            }
            out.push(Tok::Num(s[st..i].to_string()));
        } else if c.is_alphabetic() || c == '_' {
            let st = i;
            while i < b.len() && ((b[i] as char).is_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Name(s[st..i].to_string()));
        } else if let Some(op) = OPS.iter().find(|o| s[i..].starts_with(**o)) {
            out.push(Tok::Op(op));
            i += op.len();
        } else {
            return Err(format!("unexpected `{c}`"));
        }
    }
    Ok(out)
}

/// A value during evaluation: a value, or an array not yet indexed.
enum Val {
    V(DebugValue),
    Array(String),
}

struct Parser<'a> {
    toks: Vec<Tok>,
    at: usize,
    scope: &'a dyn Scope,
}

/// Evaluates `src` in `scope`.
pub(super) fn eval(src: &str, scope: &dyn Scope) -> Result<DebugValue, String> {
    let mut p = Parser {
        toks: lex(src)?,
        at: 0,
        scope,
    };
    let v = p.or()?;
    if let Some(t) = p.toks.get(p.at) {
        return Err(format!("unexpected {t:?} after the expression"));
    }
    p.value(v)
}

/// Whether a value is true (a non-zero scalar).
pub(super) fn truthy(v: &DebugValue) -> Result<bool, String> {
    match v {
        DebugValue::Scalar(s) => Ok(s.as_f64() != 0.0),
        _ => Err("a condition must be a scalar".into()),
    }
}

fn bool_v(b: bool) -> DebugValue {
    DebugValue::Scalar(ScalarValue::Bool(b))
}

impl Parser<'_> {
    fn peek_op(&self, ops: &[&str]) -> Option<&'static str> {
        match self.toks.get(self.at) {
            Some(Tok::Op(o)) if ops.contains(o) => Some(o),
            Some(Tok::Name(n)) if ops.contains(&n.as_str()) => {
                ["and", "or", "not"].into_iter().find(|k| k == n)
            }
            _ => None,
        }
    }
    fn expect(&mut self, op: &str) -> Result<(), String> {
        if self.peek_op(&[op]).is_some() {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected `{op}`"))
        }
    }
    fn value(&self, v: Val) -> Result<DebugValue, String> {
        match v {
            Val::V(v) => Ok(v),
            Val::Array(n) => Err(format!("`{n}` is an array: index it (`{n}[i]`)")),
        }
    }
    fn or(&mut self) -> Result<Val, String> {
        self.logical(&["or", "||"], Self::and, |x, y| x || y)
    }
    fn and(&mut self) -> Result<Val, String> {
        self.logical(&["and", "&&"], Self::not, |x, y| x && y)
    }
    /// `operand (op operand)*` for a logical operator `op`.
    fn logical(
        &mut self,
        ops: &[&str],
        operand: fn(&mut Self) -> Result<Val, String>,
        f: fn(bool, bool) -> bool,
    ) -> Result<Val, String> {
        let mut a = operand(self)?;
        while self.peek_op(ops).is_some() {
            self.at += 1;
            let x = truthy(&self.value(a)?)?;
            let b = operand(self)?;
            let y = truthy(&self.value(b)?)?;
            a = Val::V(bool_v(f(x, y)));
        }
        Ok(a)
    }
    fn not(&mut self) -> Result<Val, String> {
        if self.peek_op(&["not", "!"]).is_some() {
            self.at += 1;
            let v = self.not()?;
            return Ok(Val::V(bool_v(!truthy(&self.value(v)?)?)));
        }
        self.cmp()
    }
    fn cmp(&mut self) -> Result<Val, String> {
        let a = self.sum()?;
        let Some(op) = self.peek_op(&["==", "!=", "<", "<=", ">", ">="]) else {
            return Ok(a);
        };
        self.at += 1;
        let b = self.sum()?;
        let (a, b) = (self.value(a)?, self.value(b)?);
        let r = match (&a, &b) {
            (DebugValue::Scalar(x), DebugValue::Scalar(y)) => {
                let (x, y) = (x.as_f64(), y.as_f64());
                match op {
                    "==" => x == y,
                    "!=" => x != y,
                    "<" => x < y,
                    "<=" => x <= y,
                    ">" => x > y,
                    _ => x >= y,
                }
            }
            _ => match op {
                "==" => a.leaves_f64() == b.leaves_f64(),
                "!=" => a.leaves_f64() != b.leaves_f64(),
                _ => return Err(format!("`{op}` compares scalars")),
            },
        };
        Ok(Val::V(bool_v(r)))
    }
    fn sum(&mut self) -> Result<Val, String> {
        let mut a = self.product()?;
        while let Some(op) = self.peek_op(&["+", "-"]) {
            self.at += 1;
            let b = self.product()?;
            a = Val::V(arith(op, &self.value(a)?, &self.value(b)?)?);
        }
        Ok(a)
    }
    fn product(&mut self) -> Result<Val, String> {
        let mut a = self.unary()?;
        while let Some(op) = self.peek_op(&["*", "/", "%"]) {
            self.at += 1;
            let b = self.unary()?;
            a = Val::V(arith(op, &self.value(a)?, &self.value(b)?)?);
        }
        Ok(a)
    }
    fn unary(&mut self) -> Result<Val, String> {
        if self.peek_op(&["-"]).is_some() {
            self.at += 1;
            let v = self.unary()?;
            let zero = DebugValue::Scalar(ScalarValue::Int(0));
            return Ok(Val::V(arith("-", &zero, &self.value(v)?)?));
        }
        self.postfix()
    }
    fn postfix(&mut self) -> Result<Val, String> {
        let mut v = self.primary()?;
        loop {
            if self.peek_op(&["."]).is_some() {
                self.at += 1;
                let Some(Tok::Name(field)) = self.toks.get(self.at).cloned() else {
                    return Err("expected a name after `.`".into());
                };
                self.at += 1;
                let base = self.value(v)?;
                v = Val::V(
                    base.part(&field)
                        .cloned()
                        .ok_or_else(|| format!("no component `{field}`"))?,
                );
            } else if self.peek_op(&["["]).is_some() {
                self.at += 1;
                let mut ix = Vec::new();
                loop {
                    let e = self.or()?;
                    let e = self.value(e)?;
                    match e {
                        DebugValue::Scalar(s @ (ScalarValue::Int(_) | ScalarValue::UInt(_))) => {
                            ix.push(s.as_f64() as i64)
                        }
                        _ => return Err("an index must be an integer".into()),
                    }
                    if self.peek_op(&[","]).is_some() {
                        self.at += 1;
                    } else {
                        break;
                    }
                }
                self.expect("]")?;
                v = match v {
                    Val::Array(name) => Val::V(
                        self.scope
                            .element(&name, &ix)
                            .unwrap_or_else(|| Err(format!("no array `{name}`")))?,
                    ),
                    Val::V(mut base) => {
                        for i in ix {
                            base = usize::try_from(i)
                                .ok()
                                .and_then(|i| base.index(i).cloned())
                                .ok_or_else(|| format!("index {i} out of range"))?;
                        }
                        Val::V(base)
                    }
                };
            } else {
                return Ok(v);
            }
        }
    }
    fn primary(&mut self) -> Result<Val, String> {
        let Some(t) = self.toks.get(self.at).cloned() else {
            return Err("expected an expression".into());
        };
        self.at += 1;
        match t {
            Tok::Num(n) => {
                if let Ok(i) = n.parse::<i64>() {
                    return Ok(Val::V(DebugValue::Scalar(ScalarValue::Int(i))));
                }
                n.parse::<f64>()
                    .map(|x| Val::V(DebugValue::Scalar(ScalarValue::F64(x))))
                    .map_err(|_| format!("bad number `{n}`"))
            }
            Tok::Name(n) if n == "True" || n == "False" => Ok(Val::V(bool_v(n == "True"))),
            Tok::Name(n) => {
                if let Some(v) = self.scope.var(&n) {
                    Ok(Val::V(v))
                } else if self.scope.element(&n, &[]).is_some() {
                    Ok(Val::Array(n))
                } else {
                    Err(format!("no variable `{n}` here"))
                }
            }
            Tok::Op("(") => {
                let v = self.or()?;
                self.expect(")")?;
                Ok(v)
            }
            Tok::Op(o) => Err(format!("unexpected `{o}`")),
        }
    }
}

/// `a op b` (see the module docs).
fn arith(op: &str, a: &DebugValue, b: &DebugValue) -> Result<DebugValue, String> {
    match (a, b) {
        (DebugValue::Scalar(x), DebugValue::Scalar(y)) => {
            scalar(op, *x, *y).map(DebugValue::Scalar)
        }
        (DebugValue::Aggregate { ty, parts }, DebugValue::Scalar(_)) => Ok(DebugValue::Aggregate {
            ty: ty.clone(),
            parts: parts
                .iter()
                .map(|(l, p)| Ok((l.clone(), arith(op, p, b)?)))
                .collect::<Result<_, String>>()?,
        }),
        (DebugValue::Scalar(_), DebugValue::Aggregate { ty, parts }) => Ok(DebugValue::Aggregate {
            ty: ty.clone(),
            parts: parts
                .iter()
                .map(|(l, p)| Ok((l.clone(), arith(op, a, p)?)))
                .collect::<Result<_, String>>()?,
        }),
        (
            DebugValue::Aggregate { ty, parts },
            DebugValue::Aggregate {
                ty: ty2,
                parts: parts2,
            },
        ) if ty == ty2 && parts.len() == parts2.len() => Ok(DebugValue::Aggregate {
            ty: ty.clone(),
            parts: parts
                .iter()
                .zip(parts2)
                .map(|((l, p), (_, q))| Ok((l.clone(), arith(op, p, q)?)))
                .collect::<Result<_, String>>()?,
        }),
        _ => Err(format!("`{op}` of values of different shapes")),
    }
}

fn scalar(op: &str, x: ScalarValue, y: ScalarValue) -> Result<ScalarValue, String> {
    use ScalarValue::*;
    let int = |v: ScalarValue| match v {
        Int(i) => Some(i),
        UInt(u) => Some(u as i64),
        Bool(b) => Some(b as i64),
        _ => None,
    };
    if let (Some(a), Some(b)) = (int(x), int(y)) {
        if matches!(op, "/" | "%") && b == 0 {
            return Err("integer division by zero".into());
        }
        return Ok(Int(match op {
            "+" => a.wrapping_add(b),
            "-" => a.wrapping_sub(b),
            "*" => a.wrapping_mul(b),
            "/" => a.wrapping_div(b),
            _ => a.wrapping_rem(b),
        }));
    }
    let (a, b) = (x.as_f64(), y.as_f64());
    let r = match op {
        "+" => a + b,
        "-" => a - b,
        "*" => a * b,
        "/" => a / b,
        _ => a % b,
    };
    Ok(if matches!(x, F32(_)) || matches!(y, F32(_)) {
        F32(r as f32)
    } else {
        F64(r)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct S;
    fn f32s(v: &[f32]) -> DebugValue {
        DebugValue::Aggregate {
            ty: "vec3<f32>".into(),
            parts: ["x", "y", "z"]
                .iter()
                .zip(v)
                .map(|(l, &x)| (l.to_string(), DebugValue::Scalar(ScalarValue::F32(x))))
                .collect(),
        }
    }
    impl Scope for S {
        fn var(&self, name: &str) -> Option<DebugValue> {
            match name {
                "j" => Some(DebugValue::Scalar(ScalarValue::Int(5))),
                "x" => Some(DebugValue::Scalar(ScalarValue::F32(0.1))),
                "d" => Some(f32s(&[1.0, -2.0, 0.5])),
                _ => None,
            }
        }
        fn element(&self, name: &str, index: &[i64]) -> Option<Result<DebugValue, String>> {
            (name == "pos").then(|| match index {
                [i] if (0..4).contains(i) => Ok(f32s(&[*i as f32, 0.0, 1.0])),
                [i] => Err(format!("index {i} out of bounds")),
                _ => Err("one index".into()),
            })
        }
    }
    fn ev(s: &str) -> Result<String, String> {
        eval(s, &S).map(|v| v.to_string())
    }

    #[test]
    fn arithmetic_comparisons_and_access() {
        assert_eq!(ev("j == 5").as_deref(), Ok("True"));
        assert_eq!(ev("j != 5 || !(j < 6)").as_deref(), Ok("False"));
        assert_eq!(ev("j == 5 and x > 0.0").as_deref(), Ok("True"));
        assert_eq!(ev("j * 2 + 1").as_deref(), Ok("11"));
        assert_eq!(ev("-j / 2").as_deref(), Ok("-2"));
        assert_eq!(ev("j % 3").as_deref(), Ok("2"));
        // f32 arithmetic rounds to f32, as the kernel computes it.
        assert_eq!(ev("x * 3.0"), Ok(format!("{:?}", 0.1f32 * 3.0)));
        assert_eq!(ev("d * 2.0").as_deref(), Ok("vec3<f32>(2.0, -4.0, 1.0)"));
        assert_eq!(ev("d.y").as_deref(), Ok("-2.0"));
        assert_eq!(ev("d[2] + 1.5e0").as_deref(), Ok("2.0"));
        assert_eq!(ev("pos[j - 2].x").as_deref(), Ok("3.0"));
        assert_eq!(ev("pos[1] - d").as_deref(), Ok("vec3<f32>(0.0, 2.0, 0.5)"));
        assert_eq!(ev("(j + 1) * 2").as_deref(), Ok("12"));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(ev("r2"), Err("no variable `r2` here".into()));
        assert!(ev("pos").unwrap_err().contains("is an array"));
        assert!(ev("pos[9]").unwrap_err().contains("out of bounds"));
        assert!(ev("d.w").unwrap_err().contains("no component `w`"));
        assert!(ev("j / 0").unwrap_err().contains("division by zero"));
        assert!(ev("j +").is_err());
        assert!(ev("j $ 2").is_err());
        assert!(ev("d < d").is_err());
        assert!(ev("pos[x]").unwrap_err().contains("integer"));
    }
}
