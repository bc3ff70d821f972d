//! Compile-time evaluation of module-level constants (`X = wp.constant(...)`)
//! and of `range(...)` bounds for loop unrolling.
//!
//! Values follow Python: an untyped int is arbitrary precision (kept in
//! `i128`), an untyped float is a double. Typed values come from
//! `wp.float32(x)`, `np.int32(x)`, ...; vector/matrix constants from
//! `wp.vec3(...)`, `wp.mat33(...)`. In a kernel, an untyped int becomes an
//! `int32`, an untyped float a `float32`.

use crate::diag::{Diagnostic, Span};
use crate::typenames;
use ruff_python_ast::{self as ast, Expr, Number, Operator, UnaryOp};
use ruff_text_size::Ranged;
use std::collections::HashMap;
use weft_ir::{Const, Scalar, Type};

/// A compile-time value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CVal {
    Int(i128),
    Float(f64),
    Bool(bool),
    /// A typed scalar (`wp.float64(1.5)`, `np.int32(8)`).
    Typed(Const),
    /// A vector/matrix/quat/transform: its type and its scalars in memory
    /// (row-major) order.
    Agg(Type, Vec<Const>),
}

/// Python number view of a scalar constant.
#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i128),
    Float(f64),
}

impl CVal {
    fn num(&self) -> Option<Num> {
        Some(match self {
            CVal::Int(i) => Num::Int(*i),
            CVal::Bool(b) => Num::Int(*b as i128),
            CVal::Float(f) => Num::Float(*f),
            CVal::Typed(c) if c.ty.is_float() => Num::Float(c.as_f64()),
            CVal::Typed(c) => Num::Int(c.as_i128()),
            CVal::Agg(..) => return None,
        })
    }
    fn typed_scalar(&self) -> Option<Scalar> {
        match self {
            CVal::Typed(c) => Some(c.ty),
            _ => None,
        }
    }
    /// The value as an integer, if it is one (for `range` bounds).
    pub(crate) fn as_int(&self) -> Option<i128> {
        match self {
            CVal::Int(i) => Some(*i),
            CVal::Bool(b) => Some(*b as i128),
            CVal::Typed(c) if c.ty.is_int() => Some(c.as_i128()),
            _ => None,
        }
    }
}

/// Converts a scalar value to `ty` (Python/Warp conversion rules: floats to
/// ints truncate).
pub(crate) fn to_const(v: &CVal, ty: Scalar) -> Option<Const> {
    Some(match v.num()? {
        Num::Int(i) => Const::from_i128(ty, i),
        Num::Float(f) if ty.is_float() => Const::float(ty, f),
        Num::Float(f) if ty == Scalar::Bool => Const::bool(f != 0.0),
        Num::Float(f) => {
            if !f.is_finite() {
                return None;
            }
            Const::from_i128(ty, f.trunc() as i128)
        }
    })
}

/// Module aliases in scope: `import warp as wp`, `import numpy as np`,
/// `import math`.
#[derive(Default, Debug)]
pub(crate) struct Imports {
    pub wp: Vec<String>,
    pub np: Vec<String>,
    pub math: Vec<String>,
}

impl Imports {
    pub(crate) fn is_wp(&self, name: &str) -> bool {
        self.wp.iter().any(|n| n == name)
    }
    pub(crate) fn is_np(&self, name: &str) -> bool {
        self.np.iter().any(|n| n == name)
    }
    pub(crate) fn is_math(&self, name: &str) -> bool {
        self.math.iter().any(|n| n == name)
    }
}

/// `module.attr` where `module` is a plain name.
pub(crate) fn dotted(e: &Expr) -> Option<(&str, &str)> {
    if let Expr::Attribute(a) = e {
        if let Expr::Name(n) = &*a.value {
            return Some((n.id.as_str(), a.attr.id.as_str()));
        }
    }
    None
}

/// The evaluator: module imports and the constants defined so far.
pub(crate) struct ConstEval<'a> {
    pub imports: &'a Imports,
    pub consts: &'a HashMap<String, CVal>,
}

type R = Result<CVal, Diagnostic>;

fn not_const(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(span, format!("{what} cannot be evaluated at compile time"))
        .with_label("not a compile-time constant")
        .with_help(
            "constants may use numbers, other constants, arithmetic, `np.pi`, \
             `math`/`np` functions, `float()`/`int()` and Warp type constructors",
        )
}

impl ConstEval<'_> {
    pub(crate) fn eval(&self, e: &Expr) -> R {
        crate::lower::grow(|| self.eval_inner(e))
    }

    fn eval_inner(&self, e: &Expr) -> R {
        let span = e.range();
        match e {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => i
                    .to_string()
                    .parse::<i128>()
                    .map(CVal::Int)
                    .map_err(|_| Diagnostic::error(span, "integer literal is too large")),
                Number::Float(f) => Ok(CVal::Float(*f)),
                Number::Complex { .. } => Err(Diagnostic::error(
                    span,
                    "complex numbers are not supported in kernels",
                )),
            },
            Expr::BooleanLiteral(b) => Ok(CVal::Bool(b.value)),
            Expr::Name(n) => self
                .consts
                .get(n.id.as_str())
                .cloned()
                .ok_or_else(|| not_const(span, &format!("`{}`", n.id))),
            Expr::Attribute(_) => {
                let Some((m, attr)) = dotted(e) else {
                    return Err(not_const(span, "this expression"));
                };
                let is_np = self.imports.is_np(m);
                if is_np || self.imports.is_math(m) {
                    match attr {
                        "pi" => return Ok(CVal::Float(std::f64::consts::PI)),
                        "e" => return Ok(CVal::Float(std::f64::consts::E)),
                        "tau" => return Ok(CVal::Float(std::f64::consts::TAU)),
                        "inf" => return Ok(CVal::Float(f64::INFINITY)),
                        "nan" => return Ok(CVal::Float(f64::NAN)),
                        _ => {}
                    }
                }
                if self.imports.is_wp(m) {
                    if let Some(v) = warp_constant(attr) {
                        return Ok(CVal::Float(v));
                    }
                }
                Err(not_const(span, &format!("`{m}.{attr}`")))
            }
            Expr::UnaryOp(u) => {
                let v = self.eval(&u.operand)?;
                let ty = v.typed_scalar();
                let n = v.num().ok_or_else(|| not_const(span, "this operation"))?;
                let r = match (u.op, n) {
                    (UnaryOp::USub, Num::Int(i)) => CVal::Int(-i),
                    (UnaryOp::USub, Num::Float(f)) => CVal::Float(-f),
                    (UnaryOp::UAdd, _) => v.clone(),
                    (UnaryOp::Not, Num::Int(i)) => CVal::Bool(i == 0),
                    (UnaryOp::Not, Num::Float(f)) => CVal::Bool(f == 0.0),
                    (UnaryOp::Invert, Num::Int(i)) => CVal::Int(!i),
                    (UnaryOp::Invert, Num::Float(_)) => {
                        return Err(Diagnostic::error(span, "`~` needs an integer"))
                    }
                };
                Ok(retype(r, ty))
            }
            Expr::BinOp(bin) => {
                let a = self.eval(&bin.left)?;
                let b = self.eval(&bin.right)?;
                let ty = a.typed_scalar().or(b.typed_scalar());
                let (Some(x), Some(y)) = (a.num(), b.num()) else {
                    return Err(not_const(span, "arithmetic on vectors/matrices"));
                };
                Ok(retype(binop(bin.op, x, y, span)?, ty))
            }
            Expr::Call(call) => self.call(call),
            _ => Err(not_const(span, "this expression")),
        }
    }

    fn call(&self, call: &ast::ExprCall) -> R {
        let span = call.range();
        if !call.arguments.keywords.is_empty() {
            return Err(not_const(span, "a call with keyword arguments"));
        }
        let args: Vec<CVal> = call
            .arguments
            .args
            .iter()
            .map(|a| self.eval(a))
            .collect::<Result<_, _>>()?;
        let arg_num = |i: usize| -> Result<Num, Diagnostic> {
            args.get(i).and_then(CVal::num).ok_or_else(|| {
                Diagnostic::error(span, "expected a number argument").with_label("here")
            })
        };
        let (module, name) = match &*call.func {
            Expr::Name(n) => (None, n.id.as_str()),
            f => match dotted(f) {
                Some((m, a)) => (Some(m), a),
                None => return Err(not_const(span, "this call")),
            },
        };
        let is_wp = module.is_some_and(|m| self.imports.is_wp(m));
        let is_np = module.is_some_and(|m| self.imports.is_np(m));
        let is_math = module.is_some_and(|m| self.imports.is_math(m));
        if module.is_none() {
            match name {
                "float" => return Ok(CVal::Float(as_f64(arg_num(0)?))),
                "int" => {
                    return Ok(CVal::Int(match arg_num(0)? {
                        Num::Int(i) => i,
                        Num::Float(f) => f.trunc() as i128,
                    }))
                }
                "bool" => {
                    return Ok(CVal::Bool(match arg_num(0)? {
                        Num::Int(i) => i != 0,
                        Num::Float(f) => f != 0.0,
                    }))
                }
                "abs" => {
                    return Ok(match arg_num(0)? {
                        Num::Int(i) => CVal::Int(i.abs()),
                        Num::Float(f) => CVal::Float(f.abs()),
                    })
                }
                "min" | "max" if args.len() == 2 => {
                    let (a, b) = (arg_num(0)?, arg_num(1)?);
                    let lt = as_f64(a) < as_f64(b);
                    let pick_a = if name == "min" { lt } else { !lt };
                    return Ok(args[if pick_a { 0 } else { 1 }].clone());
                }
                _ => return Err(not_const(span, &format!("`{name}(...)`"))),
            }
        }
        if is_wp && (name == "constant" || name == "static") && args.len() == 1 {
            return Ok(args.into_iter().next().unwrap_or(CVal::Int(0)));
        }
        if is_wp {
            if let Some(ty) = typenames::wp_type(name) {
                return construct(ty, &args, span);
            }
        }
        if is_np {
            if let Some(s) = typenames::np_scalar(name) {
                let v = args.first().ok_or_else(|| not_const(span, "this call"))?;
                return to_const(v, s)
                    .map(CVal::Typed)
                    .ok_or_else(|| Diagnostic::error(span, "cannot convert this value"));
            }
        }
        if is_np || is_math || is_wp {
            let f = |i: usize| arg_num(i).map(as_f64);
            let r = match (name, args.len()) {
                ("sqrt", 1) => f(0)?.sqrt(),
                ("sin", 1) => f(0)?.sin(),
                ("cos", 1) => f(0)?.cos(),
                ("tan", 1) => f(0)?.tan(),
                ("asin" | "arcsin", 1) => f(0)?.asin(),
                ("acos" | "arccos", 1) => f(0)?.acos(),
                ("atan" | "arctan", 1) => f(0)?.atan(),
                ("sinh", 1) => f(0)?.sinh(),
                ("cosh", 1) => f(0)?.cosh(),
                ("tanh", 1) => f(0)?.tanh(),
                ("exp", 1) => f(0)?.exp(),
                ("log", 1) => f(0)?.ln(),
                ("log2", 1) => f(0)?.log2(),
                ("log10", 1) => f(0)?.log10(),
                ("fabs" | "abs", 1) => f(0)?.abs(),
                ("radians" | "deg2rad", 1) => f(0)?.to_radians(),
                ("degrees" | "rad2deg", 1) => f(0)?.to_degrees(),
                ("atan2" | "arctan2", 2) => f(0)?.atan2(f(1)?),
                ("pow" | "power", 2) => f(0)?.powf(f(1)?),
                ("hypot", 2) => f(0)?.hypot(f(1)?),
                ("floor", 1) if is_math => return Ok(CVal::Int(f(0)?.floor() as i128)),
                ("ceil", 1) if is_math => return Ok(CVal::Int(f(0)?.ceil() as i128)),
                ("floor", 1) => f(0)?.floor(),
                ("ceil", 1) => f(0)?.ceil(),
                _ => return Err(not_const(span, &format!("`{name}(...)`"))),
            };
            return Ok(CVal::Float(r));
        }
        Err(not_const(span, &format!("`{name}(...)`")))
    }
}

fn as_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

/// Keeps a result typed when an operand was typed.
fn retype(v: CVal, ty: Option<Scalar>) -> CVal {
    match ty {
        Some(s) => to_const(&v, s).map_or(v, CVal::Typed),
        None => v,
    }
}

fn binop(op: Operator, a: Num, b: Num, span: Span) -> R {
    use Num::*;
    let div0 = || Diagnostic::error(span, "division by zero in a constant expression");
    Ok(match (a, b) {
        (Int(x), Int(y)) => match op {
            Operator::Add => CVal::Int(x.wrapping_add(y)),
            Operator::Sub => CVal::Int(x.wrapping_sub(y)),
            Operator::Mult => CVal::Int(x.wrapping_mul(y)),
            Operator::Div => {
                if y == 0 {
                    return Err(div0());
                }
                CVal::Float(x as f64 / y as f64)
            }
            Operator::FloorDiv => {
                if y == 0 {
                    return Err(div0());
                }
                CVal::Int(x.div_euclid(y) - if y < 0 && x.rem_euclid(y) != 0 { 1 } else { 0 })
            }
            Operator::Mod => {
                if y == 0 {
                    return Err(div0());
                }
                let r = x % y;
                CVal::Int(if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                })
            }
            Operator::Pow if y >= 0 => CVal::Int(x.wrapping_pow(y.min(u32::MAX as i128) as u32)),
            Operator::Pow => CVal::Float((x as f64).powf(y as f64)),
            Operator::LShift => CVal::Int(x.checked_shl(y as u32).unwrap_or(0)),
            Operator::RShift => CVal::Int(x >> (y.clamp(0, 127) as u32)),
            Operator::BitAnd => CVal::Int(x & y),
            Operator::BitOr => CVal::Int(x | y),
            Operator::BitXor => CVal::Int(x ^ y),
            Operator::MatMult => return Err(not_const(span, "`@`")),
        },
        _ => {
            let (x, y) = (as_f64(a), as_f64(b));
            match op {
                Operator::Add => CVal::Float(x + y),
                Operator::Sub => CVal::Float(x - y),
                Operator::Mult => CVal::Float(x * y),
                Operator::Div => CVal::Float(x / y),
                Operator::FloorDiv => CVal::Float((x / y).floor()),
                Operator::Mod => CVal::Float(x - y * (x / y).floor()),
                Operator::Pow => CVal::Float(x.powf(y)),
                _ => return Err(not_const(span, "this operator on floats")),
            }
        }
    })
}

/// `wp.vec3(...)`, `wp.float64(x)`, `wp.mat33(...)`, ... at compile time.
fn construct(ty: Type, args: &[CVal], span: Span) -> R {
    let bad = || {
        Diagnostic::error(span, "wrong arguments for this type constructor")
            .with_label("in this constant")
    };
    if let Type::Scalar(s) = ty {
        let [v] = args else { return Err(bad()) };
        return to_const(v, s).map(CVal::Typed).ok_or_else(bad);
    }
    let s = ty.scalar_of().ok_or_else(bad)?;
    let n = match ty {
        Type::Vec(n, _) => n as usize,
        Type::Mat(r, c, _) => r as usize * c as usize,
        Type::Quat(_) => 4,
        Type::Transform(_) => 7,
        _ => return Err(bad()),
    };
    let mut flat = Vec::new();
    for a in args {
        match a {
            CVal::Agg(_, cs) => flat.extend(cs.iter().map(|c| CVal::Typed(*c))),
            v => flat.push(v.clone()),
        }
    }
    let comps: Vec<Const> = if flat.is_empty() {
        vec![Const::from_i128(s, 0); n]
    } else if flat.len() == 1 {
        vec![to_const(&flat[0], s).ok_or_else(bad)?; n]
    } else if flat.len() == n {
        flat.iter()
            .map(|v| to_const(v, s).ok_or_else(bad))
            .collect::<Result<_, _>>()?
    } else {
        return Err(bad());
    };
    Ok(CVal::Agg(ty, comps))
}

/// Warp's named constants (`warp/_src/constants.py`, `wp.pi` and the
/// others), each under its lower- and upper-case name: Python floats, so
/// float32 in kernels unless converted.
pub(crate) fn warp_constant(name: &str) -> Option<f64> {
    use std::f64::consts;
    Some(match name {
        "e" | "E" => consts::E,
        "log2e" | "LOG2E" => consts::LOG2_E,
        "log10e" | "LOG10E" => consts::LOG10_E,
        "ln2" | "LN2" => consts::LN_2,
        "ln10" | "LN10" => consts::LN_10,
        "pi" | "PI" => consts::PI,
        "half_pi" | "HALF_PI" => consts::FRAC_PI_2,
        "tau" | "TAU" => consts::TAU,
        "phi" | "PHI" => 1.618_033_988_749_895,
        "inf" | "INF" => f64::INFINITY,
        "nan" | "NAN" => f64::NAN,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(src: &str) -> Result<CVal, Diagnostic> {
        let parsed = ruff_python_parser::parse_module(src).expect("parses");
        let imports = Imports {
            wp: vec!["wp".into()],
            np: vec!["np".into()],
            math: vec!["math".into()],
        };
        let mut consts = HashMap::new();
        consts.insert("K".to_string(), CVal::Int(3));
        let e = ConstEval {
            imports: &imports,
            consts: &consts,
        };
        match &parsed.syntax().body[0] {
            ast::Stmt::Expr(x) => e.eval(&x.value),
            _ => panic!("not an expression"),
        }
    }

    #[test]
    fn python_arithmetic() {
        assert_eq!(ev("7 // -2").unwrap(), CVal::Int(-4));
        assert_eq!(ev("-7 % 3").unwrap(), CVal::Int(2));
        assert_eq!(ev("K * 2 + 1").unwrap(), CVal::Int(7));
        assert_eq!(ev("1 / 2").unwrap(), CVal::Float(0.5));
        assert_eq!(ev("2 ** 10").unwrap(), CVal::Int(1024));
        assert_eq!(
            ev("float(2.0 * np.pi)").unwrap(),
            CVal::Float(2.0 * std::f64::consts::PI)
        );
        assert_eq!(ev("int(np.int32(8))").unwrap(), CVal::Int(8));
        assert_eq!(ev("math.sqrt(4.0)").unwrap(), CVal::Float(2.0));
    }

    #[test]
    fn typed_and_aggregates() {
        assert_eq!(
            ev("wp.float64(0.1)").unwrap(),
            CVal::Typed(Const::float(Scalar::F64, 0.1))
        );
        assert_eq!(
            ev("wp.uint64(0xFFFFFFFFFFFFFFFF)").unwrap(),
            CVal::Typed(Const::from_i128(Scalar::U64, u64::MAX as i128))
        );
        let CVal::Agg(t, cs) = ev("wp.vec2i(4, 7)").unwrap() else {
            panic!("not an aggregate")
        };
        assert_eq!(t, Type::Vec(2, Scalar::I32));
        assert_eq!(cs[1].as_i128(), 7);
        let CVal::Agg(t, cs) =
            ev("wp.mat33(1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0)").unwrap()
        else {
            panic!("not an aggregate")
        };
        assert_eq!(t, Type::Mat(3, 3, Scalar::F32));
        assert_eq!(cs[4].as_f64(), -1.0);
    }

    #[test]
    fn errors() {
        assert!(ev("1 // 0").is_err());
        assert!(ev("unknown + 1").is_err());
        assert!(ev("wp.vec3(1.0, 2.0)").is_err());
    }
}
