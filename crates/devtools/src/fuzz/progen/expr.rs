//! Expressions of a given type.
//!
//! Every expression is fully parenthesised. An expression is *approximate*
//! when it holds a transcendental function (whose last bits a GPU backend
//! need not match); approximate values only flow into float stores (see
//! the module docs of [`super`]), so an expression that feeds a
//! condition, an index, a cast, a comparison or any integer is built
//! exact.

use super::gen::{Arr, Gen, Role, Scope};
use super::types::{Ty, FLOATS, INTS};
use weft::ir::Scalar;

/// A generated expression.
#[derive(Clone, Debug)]
pub struct Ex {
    pub s: String,
    /// Holds a transcendental (see the module docs).
    pub approx: bool,
    /// A bare literal (Warp forbids reassigning, in a dynamic loop, a
    /// variable first assigned from one).
    pub literal: bool,
}

impl Ex {
    pub fn new(s: String) -> Ex {
        Ex {
            s,
            approx: false,
            literal: false,
        }
    }
    fn of(s: String, parts: &[&Ex]) -> Ex {
        Ex {
            s,
            approx: parts.iter().any(|p| p.approx),
            literal: false,
        }
    }
}

/// Float unary builtins that are exact (correctly rounded or exact) on
/// every backend.
const EXACT_UNARY: &[&str] = &[
    "abs", "floor", "ceil", "trunc", "round", "rint", "sqrt", "frac",
];
/// Float unary builtins computed to the device's precision on GPUs.
const APPROX_UNARY: &[&str] = &[
    "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "exp", "log", "log2", "log10", "cbrt",
    "erf", "erfc", "asin", "acos",
];

impl Gen<'_> {
    /// An expression of type `ty`; `exact` forbids approximate parts.
    pub fn expr(&mut self, sc: &Scope, ty: Ty, depth: u32, exact: bool) -> Ex {
        let exact = exact || !self.cfg.approx;
        if depth == 0 || self.rng.chance(0.25) {
            return self.leaf(sc, ty, exact);
        }
        let d = depth - 1;
        // A call of a func returning `ty`, sometimes.
        if self.rng.chance(0.08) {
            if let Some(e) = self.call(sc, ty, d, exact) {
                return e;
            }
        }
        match ty {
            Ty::S(Scalar::Bool) => self.bool_expr(sc, d),
            Ty::S(s) if s.is_float() => self.float_expr(sc, s, d, exact),
            Ty::S(s) => self.int_expr(sc, s, d),
            Ty::V(n, s) => self.vec_expr(sc, n, s, d, exact),
            Ty::M(n, s) => self.mat_expr(sc, n, s, d, exact),
            Ty::Q(s) => self.quat_expr(sc, s, d, exact),
            Ty::X(s) => self.xform_expr(sc, s, d, exact),
            Ty::St(i) => self.struct_expr(sc, i, d, exact),
        }
    }

    /// A variable, array element, parameter or literal of `ty`.
    fn leaf(&mut self, sc: &Scope, ty: Ty, exact: bool) -> Ex {
        if let Some(e) = self.value_of(sc, ty, exact) {
            if self.rng.chance(0.85) {
                return e;
            }
        }
        if self.rng.chance(0.7) {
            if let Some(e) = self.built_from_values(sc, ty, exact) {
                return e;
            }
        }
        self.literal(ty)
    }

    /// A variable or array element of exactly `ty`, if there is one.
    fn value_of(&mut self, sc: &Scope, ty: Ty, exact: bool) -> Option<Ex> {
        let vars: Vec<&super::gen::Var> = sc
            .vars
            .iter()
            .filter(|v| v.ty == ty && !(exact && v.approx))
            .collect();
        // No array reads inside an index expression of another read.
        let arrays: Vec<&Arr> = sc
            .arrays
            .iter()
            .filter(|a| a.elem == ty && a.role != Role::Reduce && !(exact && a.approx.get()))
            .filter(|_| self.indexing == 0)
            .collect();
        let choice = self.rng.weighted(&[
            if vars.is_empty() { 0 } else { 3 },
            if arrays.is_empty() { 0 } else { 2 },
        ]);
        if vars.is_empty() && arrays.is_empty() {
            return None;
        }
        Some(if choice == 0 {
            let v = vars[self.rng.below(vars.len())];
            Ex {
                s: v.name.clone(),
                approx: v.approx,
                literal: false,
            }
        } else {
            let a = arrays[self.rng.below(arrays.len())].clone();
            let idx = if a.role == Role::Output {
                self.own_index(sc, &a)
            } else {
                self.read_index(sc, &a)
            };
            Ex {
                s: format!("{}[{idx}]", a.name),
                approx: a.approx.get(),
                literal: false,
            }
        })
    }

    /// A value of `ty` made from the values in scope of other types: a
    /// number converted from another number type, an aggregate built from
    /// scalars; `None` when nothing in scope helps.
    fn built_from_values(&mut self, sc: &Scope, ty: Ty, exact: bool) -> Option<Ex> {
        match ty {
            Ty::S(Scalar::Bool) => {
                let s = self.any_number();
                let v = self.value_of(sc, Ty::S(s), true)?;
                let k = self.scalar_literal(s);
                let op = *self.rng.pick(&["<", ">=", "==", "!="]);
                Some(Ex::of(format!("({} {op} {k})", v.s), &[&v]))
            }
            Ty::S(s) => {
                let from = self.any_number();
                let v = self.value_of(sc, Ty::S(from), true)?;
                Some(Ex::of(format!("wp.{}({})", s.warp_name(), v.s), &[&v]))
            }
            Ty::St(_) => None,
            Ty::X(s) => {
                let p = self.leaf(sc, Ty::V(3, s), exact);
                let q = self.leaf(sc, Ty::Q(s), exact);
                Some(Ex::of(
                    format!("{}({}, {})", ty.name(&self.structs), p.s, q.s),
                    &[&p, &q],
                ))
            }
            t => {
                let s = t.scalar().unwrap_or(Scalar::F32);
                let mut parts = Vec::new();
                for _ in 0..t.width() {
                    parts.push(self.leaf(sc, Ty::S(s), exact));
                }
                let texts: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
                let refs: Vec<&Ex> = parts.iter().collect();
                Some(Ex::of(
                    format!("{}({})", t.name(&self.structs), texts.join(", ")),
                    &refs,
                ))
            }
        }
    }

    /// A literal (or constructor of literals) of `ty`.
    pub fn literal(&mut self, ty: Ty) -> Ex {
        let s = match ty {
            Ty::S(s) => {
                let mut e = Ex::new(self.scalar_literal(s));
                e.literal = matches!(s, Scalar::I32 | Scalar::F32 | Scalar::Bool);
                return e;
            }
            Ty::St(i) => format!("{}()", self.structs[i].name),
            t => {
                let s = t.scalar().unwrap_or(Scalar::F32);
                let n = match t {
                    Ty::X(_) => {
                        let p = self.literal(Ty::V(3, s)).s;
                        let q = self.quat_literal(s);
                        return Ex::new(format!("{}({p}, {q})", t.name(&self.structs)));
                    }
                    Ty::Q(_) => return Ex::new(self.quat_literal(s)),
                    _ => t.width(),
                };
                let parts: Vec<String> = (0..n).map(|_| self.scalar_literal(s)).collect();
                format!("{}({})", t.name(&self.structs), parts.join(", "))
            }
        };
        Ex::new(s)
    }

    /// A unit-ish quaternion literal (components small dyadics).
    fn quat_literal(&mut self, s: Scalar) -> String {
        let parts: Vec<String> = (0..4)
            .map(|_| {
                let v = *self.rng.pick(&[0.0, 0.5, -0.5, 1.0, 0.25, -0.75]);
                self.float_text(s, v)
            })
            .collect();
        format!("{}({})", Ty::Q(s).name(&self.structs), parts.join(", "))
    }

    /// A literal scalar of `s` as Warp types it.
    pub fn scalar_literal(&mut self, s: Scalar) -> String {
        match s {
            Scalar::Bool => if self.rng.chance(0.5) {
                "True"
            } else {
                "False"
            }
            .into(),
            s if s.is_float() => {
                let v = self.values.nice_float(&mut self.rng, s);
                self.float_text(s, v)
            }
            s => {
                let v = self.values.int(&mut self.rng, s);
                if s == Scalar::I32 {
                    if v < 0 {
                        format!("({v})")
                    } else {
                        v.to_string()
                    }
                } else {
                    format!("wp.{}({v})", s.warp_name())
                }
            }
        }
    }

    /// `v` written as a literal of float type `s`.
    pub fn float_text(&self, s: Scalar, v: f64) -> String {
        let t = if v.is_nan() {
            "wp.nan".to_string()
        } else if v.is_infinite() {
            if v > 0.0 { "wp.inf" } else { "(-wp.inf)" }.to_string()
        } else {
            let mut t = format!("{v:?}");
            if !t.contains(['.', 'e']) {
                t.push_str(".0");
            }
            if v < 0.0 || t.starts_with('-') {
                t = format!("({t})");
            }
            t
        };
        match s {
            Scalar::F32 if !v.is_nan() && !v.is_infinite() => t,
            s => format!("wp.{}({t})", s.warp_name()),
        }
    }

    /// A scalar type other than bool, for casts and comparisons.
    pub fn any_number(&mut self) -> Scalar {
        if self.rng.chance(0.5) {
            *self.rng.pick(&[Scalar::I32, Scalar::F32])
        } else if self.rng.chance(0.6) {
            *self.rng.pick(&INTS)
        } else {
            *self.rng.pick(&FLOATS)
        }
    }

    fn bool_expr(&mut self, sc: &Scope, d: u32) -> Ex {
        match self.rng.weighted(&[6, 2, 2, 2, 1, 1]) {
            0 => {
                let s = self.any_number();
                let a = self.expr(sc, Ty::S(s), d, true);
                let b = self.expr(sc, Ty::S(s), d, true);
                let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                Ex::of(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            1 => {
                let a = self.expr(sc, Ty::BOOL, d, true);
                let b = self.expr(sc, Ty::BOOL, d, true);
                let op = *self.rng.pick(&["and", "or"]);
                Ex::of(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            2 => {
                let a = self.expr(sc, Ty::BOOL, d, true);
                Ex::of(format!("(not {})", a.s), &[&a])
            }
            3 => {
                let s = *self.rng.pick(&FLOATS);
                let a = self.expr(sc, Ty::S(s), d, true);
                let f = *self.rng.pick(&["isnan", "isinf", "isfinite"]);
                Ex::of(format!("wp.{f}({})", a.s), &[&a])
            }
            4 => {
                let t = self.vec_type();
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                // Warp 1.19's C++ has no `!=` on vectors: `not (a == b)`.
                if self.rng.chance(0.5) {
                    Ex::of(format!("({} == {})", a.s, b.s), &[&a, &b])
                } else {
                    Ex::of(format!("(not ({} == {}))", a.s, b.s), &[&a, &b])
                }
            }
            _ => {
                // Warp 1.19's C++ cannot convert float16 to bool.
                let s = match self.any_number() {
                    Scalar::F16 => Scalar::F32,
                    s => s,
                };
                let a = self.expr(sc, Ty::S(s), d, true);
                Ex::of(format!("wp.bool({})", a.s), &[&a])
            }
        }
    }

    /// A random vector type (any component type).
    pub fn vec_type(&mut self) -> Ty {
        let n = self.rng.range(2, 4) as u8;
        let s = if self.rng.chance(0.6) {
            *self.rng.pick(&[Scalar::F32, Scalar::I32])
        } else {
            *self.rng.pick(&[
                Scalar::F64,
                Scalar::F16,
                Scalar::I8,
                Scalar::U8,
                Scalar::I16,
                Scalar::U16,
                Scalar::U32,
                Scalar::I64,
                Scalar::U64,
            ])
        };
        Ty::V(n, s)
    }

    /// The shared choices of every number-valued type: `where`, a
    /// conditional expression.
    fn choice_expr(&mut self, sc: &Scope, ty: Ty, d: u32, exact: bool) -> Ex {
        // Choosing between approximate values keeps their error.
        let c = self.expr(sc, Ty::BOOL, d, true);
        let a = self.expr(sc, ty, d, exact);
        let b = self.expr(sc, ty, d, exact);
        if self.rng.chance(0.5) {
            Ex::of(
                format!("wp.where({}, {}, {})", c.s, a.s, b.s),
                &[&c, &a, &b],
            )
        } else {
            Ex::of(format!("({} if {} else {})", a.s, c.s, b.s), &[&c, &a, &b])
        }
    }

    /// A cast of another scalar type's expression to `s`.
    fn cast_expr(&mut self, sc: &Scope, s: Scalar, d: u32) -> Ex {
        // Warp 1.19's C++ cannot convert between float16 and bool.
        let from = if s != Scalar::F16 && self.rng.chance(0.15) {
            Scalar::Bool
        } else {
            self.any_number()
        };
        let mut a = self.expr(sc, Ty::S(from), d, true);
        if from == Scalar::Bool && a.literal {
            // Warp 1.19 emits `Falseull` for `wp.uint64(False)`.
            let v = self.expr(sc, Ty::I32, 0, true);
            a = Ex::of(format!("({} != 0)", v.s), &[&v]);
        }
        let f = match s {
            Scalar::I32 if self.rng.chance(0.3) => "int".to_string(),
            Scalar::F32 if self.rng.chance(0.3) => "float".to_string(),
            s => format!("wp.{}", s.warp_name()),
        };
        Ex::of(format!("{f}({})", a.s), &[&a])
    }

    fn int_expr(&mut self, sc: &Scope, s: Scalar, d: u32) -> Ex {
        let t = Ty::S(s);
        match self.rng.weighted(&[10, 3, 3, 2, 2, 2, 2, 1]) {
            0 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                let op = *self.rng.pick(&[
                    "+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "+", "-", "*",
                ]);
                Ex::of(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            1 => {
                let a = self.expr(sc, t, d, true);
                let op = if s.is_signed_int() && self.rng.chance(0.6) {
                    "-"
                } else {
                    "~"
                };
                Ex::of(format!("({op}{})", a.s), &[&a])
            }
            2 => self.cast_expr(sc, s, d),
            3 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                let f = *self.rng.pick(&["min", "max"]);
                Ex::of(format!("wp.{f}({}, {})", a.s, b.s), &[&a, &b])
            }
            4 => {
                let a = self.expr(sc, t, d, true);
                match self.rng.below(3) {
                    0 => Ex::of(format!("wp.abs({})", a.s), &[&a]),
                    1 => Ex::of(format!("wp.sign({})", a.s), &[&a]),
                    _ => {
                        let lo = self.expr(sc, t, d, true);
                        let hi = self.expr(sc, t, d, true);
                        Ex::of(
                            format!("wp.clamp({}, {}, {})", a.s, lo.s, hi.s),
                            &[&a, &lo, &hi],
                        )
                    }
                }
            }
            5 => self.choice_expr(sc, t, d, true),
            6 => self.component_of(sc, t, d, true),
            _ => {
                if s == Scalar::I32 && !sc.tids.is_empty() {
                    Ex::new(self.rng.pick(&sc.tids).clone())
                } else {
                    let v = Ty::V(self.rng.range(2, 4) as u8, s);
                    let a = self.expr(sc, v, d, true);
                    let b = self.expr(sc, v, d, true);
                    Ex::of(format!("wp.dot({}, {})", a.s, b.s), &[&a, &b])
                }
            }
        }
    }

    fn float_expr(&mut self, sc: &Scope, s: Scalar, d: u32, exact: bool) -> Ex {
        let t = Ty::S(s);
        let approx_w = if exact { 0 } else { 2 };
        match self.rng.weighted(&[10, 2, 3, 2, 2, 2, 2, 3, approx_w, 2]) {
            0 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                let op = *self
                    .rng
                    .pick(&["+", "-", "*", "/", "+", "-", "*", "%", "//"]);
                Ex::of(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            1 => {
                let a = self.expr(sc, t, d, exact);
                Ex::of(format!("(-{})", a.s), &[&a])
            }
            2 => {
                let a = self.expr(sc, t, d, true);
                let f = *self.rng.pick(EXACT_UNARY);
                Ex::of(format!("wp.{f}({})", a.s), &[&a])
            }
            3 => self.cast_expr(sc, s, d),
            4 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                match self.rng.below(4) {
                    0 | 1 => {
                        let f = *self.rng.pick(&["min", "max"]);
                        Ex::of(format!("wp.{f}({}, {})", a.s, b.s), &[&a, &b])
                    }
                    2 => {
                        let c = self.expr(sc, t, d, true);
                        Ex::of(
                            format!("wp.clamp({}, {}, {})", a.s, b.s, c.s),
                            &[&a, &b, &c],
                        )
                    }
                    _ => {
                        let c = self.expr(sc, t, d, true);
                        Ex::of(format!("wp.lerp({}, {}, {})", a.s, b.s, c.s), &[&a, &b, &c])
                    }
                }
            }
            5 => self.choice_expr(sc, t, d, exact),
            6 => {
                let a = self.expr(sc, t, d, true);
                let f = *self.rng.pick(&["sign", "step", "nonzero"]);
                Ex::of(format!("wp.{f}({})", a.s), &[&a])
            }
            7 => self.component_of(sc, t, d, true),
            8 => {
                // Approximate: a transcendental of exact operands, maybe
                // scaled by an exact value (relative error is kept).
                let a = self.expr(sc, t, d, true);
                let mut e = match self.rng.below(5) {
                    0 => {
                        let b = self.expr(sc, t, d, true);
                        let f = *self.rng.pick(&["atan2", "pow"]);
                        Ex::of(format!("wp.{f}({}, {})", a.s, b.s), &[&a, &b])
                    }
                    // Trigonometric functions of arguments wrapped into
                    // (-64, 64): GPUs reduce larger ones with less
                    // precision than relative error bounds (lavapipe's
                    // cos(-3e38) is 1), which is the device's precision too.
                    _ => match *self.rng.pick(APPROX_UNARY) {
                        f @ ("sin" | "cos" | "tan") => Ex::of(
                            format!("wp.{f}({} % wp.{}(64.0))", a.s, s.warp_name()),
                            &[&a],
                        ),
                        f => Ex::of(format!("wp.{f}({})", a.s), &[&a]),
                    },
                };
                e.approx = true;
                if self.rng.chance(0.3) {
                    let k = self.expr(sc, t, 0, true);
                    e = Ex::of(format!("({} * {})", e.s, k.s), &[&e, &k]);
                }
                e
            }
            _ => {
                let v = Ty::V(self.rng.range(2, 4) as u8, s);
                let a = self.expr(sc, v, d, true);
                match self.rng.below(4) {
                    0 => {
                        let b = self.expr(sc, v, d, true);
                        Ex::of(format!("wp.dot({}, {})", a.s, b.s), &[&a, &b])
                    }
                    1 => Ex::of(format!("wp.length_sq({})", a.s), &[&a]),
                    2 => Ex::of(format!("wp.length({})", a.s), &[&a]),
                    _ => {
                        let f = *self.rng.pick(&["min", "max"]);
                        Ex::of(format!("wp.{f}({})", a.s), &[&a])
                    }
                }
            }
        }
    }

    /// A scalar component of an aggregate (vector, matrix, quat, struct
    /// variable).
    fn component_of(&mut self, sc: &Scope, t: Ty, d: u32, exact: bool) -> Ex {
        let s = t.scalar().unwrap_or(Scalar::F32);
        match self.rng.below(4) {
            0 if s.is_float() => {
                let n = self.rng.range(2, 4) as u8;
                let m = self.expr(sc, Ty::M(n, s), d, exact);
                let (i, j) = (self.rng.below(n as usize), self.rng.below(n as usize));
                Ex::of(format!("{}[{i}, {j}]", m.s), &[&m])
            }
            1 => {
                // A struct variable's field of this type.
                let fields: Vec<(String, bool)> = sc
                    .vars
                    .iter()
                    .filter(|v| !(exact && v.approx))
                    .filter_map(|v| match v.ty {
                        Ty::St(i) => self.structs[i]
                            .fields
                            .iter()
                            .find(|(_, ft)| *ft == t)
                            .map(|(f, _)| (format!("{}.{f}", v.name), v.approx)),
                        _ => None,
                    })
                    .collect();
                if fields.is_empty() {
                    return self.literal(t);
                }
                let (s, approx) = fields[self.rng.below(fields.len())].clone();
                Ex {
                    s,
                    approx,
                    literal: false,
                }
            }
            2 if s.is_float() && self.rng.chance(0.5) => {
                let q = self.expr(sc, Ty::Q(s), d, exact);
                let k = self.rng.below(4);
                Ex::of(format!("{}[{k}]", q.s), &[&q])
            }
            _ => {
                let n = self.rng.range(2, 4) as u8;
                let v = self.expr(sc, Ty::V(n, s), d, exact);
                let k = self.rng.below(n as usize);
                let c = match (k, self.rng.chance(0.4)) {
                    (k, true) => format!(".{}", ["x", "y", "z", "w"][k]),
                    (k, false) => format!("[{k}]"),
                };
                Ex::of(format!("{}{c}", v.s), &[&v])
            }
        }
    }

    fn vec_expr(&mut self, sc: &Scope, n: u8, s: Scalar, d: u32, exact: bool) -> Ex {
        let t = Ty::V(n, s);
        let name = t.name(&self.structs);
        let float = s.is_float();
        let w = |c: bool, w: u32| if c { w } else { 0 };
        match self.rng.weighted(&[
            4,
            5,
            3,
            2,
            2,
            w(float, 2),
            w(float && n == 3, 2),
            w(float, 2),
            w(float && n == 3, 2),
            w(!float, 2),
            2,
            w(float && !exact, 1),
        ]) {
            0 => {
                let parts: Vec<Ex> = (0..n).map(|_| self.expr(sc, Ty::S(s), d, exact)).collect();
                let texts: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
                let refs: Vec<&Ex> = parts.iter().collect();
                Ex::of(format!("{name}({})", texts.join(", ")), &refs)
            }
            1 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                let op = *self.rng.pick(&["+", "-"]);
                Ex::of(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            2 => {
                let a = self.expr(sc, t, d, exact);
                let k = self.expr(sc, Ty::S(s), d, true);
                match self.rng.below(3) {
                    0 => Ex::of(format!("({} * {})", a.s, k.s), &[&a, &k]),
                    1 => Ex::of(format!("({} * {})", k.s, a.s), &[&a, &k]),
                    _ => Ex::of(format!("({} / {})", a.s, k.s), &[&a, &k]),
                }
            }
            3 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                let f = *self.rng.pick(&["cw_mul", "cw_div", "min", "max"]);
                Ex::of(format!("wp.{f}({}, {})", a.s, b.s), &[&a, &b])
            }
            4 => {
                let a = self.expr(sc, t, d, exact);
                if s.is_unsigned_int() || self.rng.chance(0.3) {
                    Ex::of(format!("wp.abs({})", a.s), &[&a])
                } else {
                    Ex::of(format!("(-{})", a.s), &[&a])
                }
            }
            5 => {
                let a = self.expr(sc, t, d, true);
                if self.rng.chance(0.5) {
                    Ex::of(format!("wp.normalize({})", a.s), &[&a])
                } else {
                    let b = self.expr(sc, t, d, true);
                    let k = self.expr(sc, Ty::S(s), d, true);
                    Ex::of(format!("wp.lerp({}, {}, {})", a.s, b.s, k.s), &[&a, &b, &k])
                }
            }
            6 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                Ex::of(format!("wp.cross({}, {})", a.s, b.s), &[&a, &b])
            }
            7 => {
                let m = self.expr(sc, Ty::M(n, s), d, true);
                let v = self.expr(sc, t, d, true);
                match self.rng.below(3) {
                    0 => Ex::of(format!("({} * {})", m.s, v.s), &[&m, &v]),
                    1 => Ex::of(format!("({} * {})", v.s, m.s), &[&m, &v]),
                    _ => {
                        let r = self.rng.below(n as usize);
                        Ex::of(format!("{}[{r}]", m.s), &[&m])
                    }
                }
            }
            8 => {
                let v = self.expr(sc, t, d, true);
                if self.rng.chance(0.5) {
                    let q = self.expr(sc, Ty::Q(s), d, true);
                    let f = *self.rng.pick(&["quat_rotate", "quat_rotate_inv"]);
                    Ex::of(format!("wp.{f}({}, {})", q.s, v.s), &[&q, &v])
                } else {
                    let x = self.expr(sc, Ty::X(s), d, true);
                    let f = *self.rng.pick(&["transform_point", "transform_vector"]);
                    Ex::of(format!("wp.{f}({}, {})", x.s, v.s), &[&x, &v])
                }
            }
            9 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                let op = *self.rng.pick(&["%", "&", "|", "^", "<<", ">>"]);
                Ex::of(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            10 => self.choice_expr(sc, t, d, true),
            _ => {
                // Approximate: a vector of transcendentals.
                let parts: Vec<Ex> = (0..n).map(|_| self.expr(sc, Ty::S(s), d, false)).collect();
                let texts: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
                let refs: Vec<&Ex> = parts.iter().collect();
                Ex::of(format!("{name}({})", texts.join(", ")), &refs)
            }
        }
    }

    fn mat_expr(&mut self, sc: &Scope, n: u8, s: Scalar, d: u32, exact: bool) -> Ex {
        let t = Ty::M(n, s);
        let name = t.name(&self.structs);
        let v = Ty::V(n, s);
        match self
            .rng
            .weighted(&[3, 3, 3, 2, 2, 2, 2, if n == 3 { 1 } else { 0 }, 1])
        {
            0 => {
                let parts: Vec<Ex> = (0..n as usize * n as usize)
                    .map(|_| self.expr(sc, Ty::S(s), d.saturating_sub(1), exact))
                    .collect();
                let texts: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
                let refs: Vec<&Ex> = parts.iter().collect();
                Ex::of(format!("{name}({})", texts.join(", ")), &refs)
            }
            1 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                let op = *self.rng.pick(&["+", "-", "*"]);
                Ex::of(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            2 => {
                let a = self.expr(sc, t, d, exact);
                let k = self.expr(sc, Ty::S(s), d, true);
                if self.rng.chance(0.5) {
                    Ex::of(format!("({} * {})", a.s, k.s), &[&a, &k])
                } else {
                    Ex::of(format!("({} * {})", k.s, a.s), &[&a, &k])
                }
            }
            3 => {
                let a = self.expr(sc, t, d, true);
                let f = *self.rng.pick(&["transpose", "-"]);
                if f == "-" {
                    Ex::of(format!("(-{})", a.s), &[&a])
                } else {
                    Ex::of(format!("wp.{f}({})", a.s), &[&a])
                }
            }
            4 => {
                let a = self.expr(sc, v, d, true);
                let b = self.expr(sc, v, d, true);
                match self.rng.below(3) {
                    0 => Ex::of(format!("wp.outer({}, {})", a.s, b.s), &[&a, &b]),
                    1 => Ex::of(format!("wp.diag({})", a.s), &[&a]),
                    _ => {
                        let c = self.expr(sc, v, d, true);
                        let mut rows = vec![a, b, c];
                        while rows.len() < n as usize {
                            rows.push(self.expr(sc, v, d, true));
                        }
                        rows.truncate(n as usize);
                        let f = *self.rng.pick(&["matrix_from_rows", "matrix_from_cols"]);
                        let texts: Vec<&str> = rows.iter().map(|p| p.s.as_str()).collect();
                        let refs: Vec<&Ex> = rows.iter().collect();
                        Ex::of(format!("wp.{f}({})", texts.join(", ")), &refs)
                    }
                }
            }
            5 => Ex::new(format!("wp.identity(n={n}, dtype=wp.{})", s.warp_name())),
            6 => self.choice_expr(sc, t, d, true),
            7 => {
                let q = self.expr(sc, Ty::Q(s), d, true);
                Ex::of(format!("wp.quat_to_matrix({})", q.s), &[&q])
            }
            _ => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                Ex::of(format!("wp.cw_mul({}, {})", a.s, b.s), &[&a, &b])
            }
        }
    }

    fn quat_expr(&mut self, sc: &Scope, s: Scalar, d: u32, exact: bool) -> Ex {
        let t = Ty::Q(s);
        let name = t.name(&self.structs);
        match self
            .rng
            .weighted(&[3, 3, 2, 2, 1, 2, if exact { 0 } else { 1 }])
        {
            0 => {
                let parts: Vec<Ex> = (0..4).map(|_| self.expr(sc, Ty::S(s), d, exact)).collect();
                let texts: Vec<&str> = parts.iter().map(|p| p.s.as_str()).collect();
                let refs: Vec<&Ex> = parts.iter().collect();
                Ex::of(format!("{name}({})", texts.join(", ")), &refs)
            }
            1 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                let op = *self.rng.pick(&["*", "+", "-"]);
                Ex::of(format!("({} {op} {})", a.s, b.s), &[&a, &b])
            }
            2 => {
                let a = self.expr(sc, t, d, exact);
                let k = self.expr(sc, Ty::S(s), d, true);
                Ex::of(format!("({} * {})", a.s, k.s), &[&a, &k])
            }
            3 => {
                let a = self.expr(sc, t, d, true);
                let f = *self.rng.pick(&["quat_inverse", "normalize"]);
                Ex::of(format!("wp.{f}({})", a.s), &[&a])
            }
            4 => Ex::new(format!("wp.quat_identity(dtype=wp.{})", s.warp_name())),
            5 => self.choice_expr(sc, t, d, true),
            _ => {
                let axis = self.expr(sc, Ty::V(3, s), d, true);
                let angle = self.expr(sc, Ty::S(s), d, true);
                // The angle wrapped into (-64, 64), as for `sin` and `cos`.
                let mut e = Ex::of(
                    format!(
                        "wp.quat_from_axis_angle({}, {} % wp.{}(64.0))",
                        axis.s,
                        angle.s,
                        s.warp_name()
                    ),
                    &[&axis, &angle],
                );
                e.approx = true;
                e
            }
        }
    }

    fn xform_expr(&mut self, sc: &Scope, s: Scalar, d: u32, exact: bool) -> Ex {
        let t = Ty::X(s);
        let name = t.name(&self.structs);
        match self.rng.weighted(&[4, 2, 2, 1, 2]) {
            0 => {
                let p = self.expr(sc, Ty::V(3, s), d, exact);
                let q = self.expr(sc, Ty::Q(s), d, exact);
                Ex::of(format!("{name}({}, {})", p.s, q.s), &[&p, &q])
            }
            1 => {
                let a = self.expr(sc, t, d, true);
                let b = self.expr(sc, t, d, true);
                Ex::of(format!("({} * {})", a.s, b.s), &[&a, &b])
            }
            2 => {
                let a = self.expr(sc, t, d, true);
                Ex::of(format!("wp.transform_inverse({})", a.s), &[&a])
            }
            3 => Ex::new(format!("wp.transform_identity(dtype=wp.{})", s.warp_name())),
            _ => self.choice_expr(sc, t, d, true),
        }
    }

    fn struct_expr(&mut self, sc: &Scope, i: usize, d: u32, exact: bool) -> Ex {
        let def = self.structs[i].clone();
        if self.rng.chance(0.3) {
            return Ex::new(format!("{}()", def.name));
        }
        let mut parts = Vec::new();
        let mut texts = Vec::new();
        // Every field: Warp matches keyword arguments to all fields.
        for (f, ft) in &def.fields {
            let e = self.expr(sc, *ft, d.saturating_sub(1), exact);
            texts.push(format!("{f}={}", e.s));
            parts.push(e);
        }
        let refs: Vec<&Ex> = parts.iter().collect();
        Ex::of(format!("{}({})", def.name, texts.join(", ")), &refs)
    }

    /// A call of one of the program's funcs returning `ty` alone.
    fn call(&mut self, sc: &Scope, ty: Ty, d: u32, exact: bool) -> Option<Ex> {
        let cands: Vec<usize> = (0..sc.callable)
            .filter(|&f| self.funcs[f].rets == [ty] && !(exact && self.funcs[f].approx))
            .filter(|&f| {
                self.funcs[f]
                    .array
                    .is_none_or(|t| !self.inputs_of(sc, t).is_empty())
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let f = cands[self.rng.below(cands.len())];
        let (text, approx) = self.call_text(sc, f, d);
        Some(Ex {
            s: text,
            approx,
            literal: false,
        })
    }

    /// The input arrays in scope of element and dimensionality `t`.
    pub fn inputs_of(&self, sc: &Scope, t: (Ty, usize)) -> Vec<String> {
        sc.arrays
            .iter()
            .filter(|a| a.role == Role::Input && (a.elem, a.ndim) == t)
            .map(|a| a.name.clone())
            .collect()
    }

    /// A call of func `f` (its array argument an input of its type, which
    /// the caller checked exists); whether its results are approximate.
    pub fn call_text(&mut self, sc: &Scope, f: usize, d: u32) -> (String, bool) {
        let sig = self.funcs[f].clone();
        let mut args: Vec<String> = Vec::new();
        if let Some(t) = sig.array {
            let arrs = self.inputs_of(sc, t);
            args.push(self.rng.pick(&arrs).clone());
        }
        for t in &sig.params {
            args.push(self.expr(sc, *t, d.min(2), true).s);
        }
        (format!("{}({})", sig.name, args.join(", ")), sig.approx)
    }

    /// An in-bounds index for reading array `a` (comma-separated, one per
    /// dimension): a thread index where the extent is the launch's, else
    /// an integer wrapped into range.
    pub fn read_index(&mut self, sc: &Scope, a: &Arr) -> String {
        self.indexing += 1;
        let parts: Vec<String> = (0..a.ndim).map(|k| self.axis_index(sc, a, k)).collect();
        self.indexing -= 1;
        parts.join(", ")
    }

    /// An in-bounds index of axis `k` of `a`.
    pub fn axis_index(&mut self, sc: &Scope, a: &Arr, k: usize) -> String {
        // A func's array: extents known only at run time.
        let extent = a.shape.get(k).copied();
        if let (Some(t), Some(e)) = (sc.tids.get(k), extent) {
            if self.dims.get(k) == Some(&e) && self.rng.chance(0.7) {
                return t.clone();
            }
        }
        if extent == Some(1) {
            return "0".into();
        }
        if let Some(e) = extent {
            if self.rng.chance(0.3) {
                return self.rng.below(e).to_string();
            }
        }
        let e = self.expr(sc, Ty::I32, 1, true);
        let n = match extent {
            Some(e) if self.rng.chance(0.5) => e.to_string(),
            _ => format!("{}.shape[{k}]", a.name),
        };
        format!("(({} % {n}) + {n}) % {n}", e.s)
    }
}
