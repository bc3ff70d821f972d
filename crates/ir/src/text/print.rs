//! The printer. Never panics, even on malformed IR (dangling entities print
//! as `?`-prefixed placeholders) so that the verifier can show any
//! instruction.

use crate::ir::*;
use crate::types::{Scalar, StructTable, Type};
use cranelift_entity::SecondaryMap;
use std::fmt::{self, Write};

/// Print numbers of a function's values: `v0, v1, ...` in definition order
/// (see the module docs of [`crate::text`]).
pub(crate) struct Numbering {
    nums: SecondaryMap<Value, u32>,
    next: u32,
}

impl Numbering {
    pub(crate) fn new(f: &Function) -> Numbering {
        let mut n = Numbering {
            nums: SecondaryMap::with_default(u32::MAX),
            next: 0,
        };
        let mut seen = SecondaryMap::new();
        n.region(f, f.body, &mut seen);
        n
    }

    fn def(&mut self, f: &Function, v: Value) {
        if f.values.is_valid(v) && self.nums[v] == u32::MAX {
            self.nums[v] = self.next;
            self.next += 1;
        }
    }

    fn region(&mut self, f: &Function, r: Region, seen: &mut SecondaryMap<Region, bool>) {
        let Some(rd) = f.regions.get(r) else { return };
        if seen[r] {
            return;
        }
        seen[r] = true;
        for &p in &rd.params {
            self.def(f, p);
        }
        for &i in &rd.insts {
            let Some(id) = f.insts.get(i) else { continue };
            for &v in &id.results {
                self.def(f, v);
            }
            for sub in id.kind.regions() {
                self.region(f, sub, seen);
            }
        }
    }

    /// `vN` for a value defined in the region tree, `?vA` (arena number)
    /// otherwise.
    pub(crate) fn name(&self, v: Value) -> String {
        match self.nums.get(v) {
            Some(&n) if n != u32::MAX => format!("v{n}"),
            _ => format!("?v{}", v.as_u32()),
        }
    }
}

/// True if `s` can be printed without quotes after `@`/`%` or as a field
/// name: `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_ident(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Writes `s` as a double-quoted string literal with escapes.
pub(crate) fn write_str_lit(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_name(out: &mut String, s: &str) {
    if is_ident(s) {
        out.push_str(s);
    } else {
        write_str_lit(out, s);
    }
}

pub(crate) fn write_type(out: &mut String, ty: Type, structs: &StructTable) {
    match ty {
        Type::Scalar(s) => out.push_str(s.name()),
        Type::Vec(n, s) => {
            let _ = write!(out, "vec{n}<{s}>");
        }
        Type::Mat(r, c, s) => {
            let _ = write!(out, "mat{r}x{c}<{s}>");
        }
        Type::Quat(s) => {
            let _ = write!(out, "quat<{s}>");
        }
        Type::Transform(s) => {
            let _ = write!(out, "transform<{s}>");
        }
        Type::Struct(id) => {
            out.push('%');
            match structs.get(id) {
                Some(d) => write_name(out, &d.name),
                None => {
                    let _ = write!(out, "?{}", id.as_u32());
                }
            }
        }
        Type::Array(a) => {
            let _ = write!(out, "array{}<", a.ndim);
            write_type(out, Type::from(a.elem), structs);
            out.push('>');
        }
    }
}

fn type_str(ty: Type, structs: &StructTable) -> String {
    let mut s = String::new();
    write_type(&mut s, ty, structs);
    s
}

fn write_loc(out: &mut String, loc: Loc) {
    if !loc.is_none() {
        let _ = write!(out, " @{}:{}:{}", loc.file, loc.line, loc.col);
    }
}

/// The literal of a constant, exact: decimal for integers and bool, the
/// shortest decimal that reads back to the same value for finite floats,
/// `inf`/`-inf`, and raw hex bits (`0x` + 16 digits) for NaN or any
/// non-canonical bit pattern.
pub(crate) fn const_literal(c: Const) -> String {
    let canonical = match c.ty {
        t if t.is_float() => Const::float(t, f64::from_bits(c.bits)).bits == c.bits,
        t => Const::from_i128(t, c.as_i128()).bits == c.bits,
    };
    let hex = || format!("0x{:016x}", c.bits);
    if !canonical {
        return hex();
    }
    match c.ty {
        Scalar::Bool => (if c.bits != 0 { "true" } else { "false" }).to_string(),
        t if t.is_signed_int() => (c.bits as i64).to_string(),
        t if t.is_unsigned_int() => c.bits.to_string(),
        t => {
            let v = f64::from_bits(c.bits);
            if v.is_nan() {
                hex()
            } else if v.is_infinite() {
                (if v > 0.0 { "inf" } else { "-inf" }).to_string()
            } else if t == Scalar::F64 {
                format!("{v:?}")
            } else {
                format!("{:?}", v as f32)
            }
        }
    }
}

/// An instruction in text form, as one line (an `if`/`loop` shows its
/// header with its regions elided). Values are numbered as in
/// [`print_function`].
pub struct DisplayInst<'a> {
    pub func: &'a Function,
    pub module: &'a Module,
    pub inst: Inst,
}

impl fmt::Display for DisplayInst<'_> {
    fn fmt(&self, fm: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = Printer::new(self.module, self.func);
        let mut out = String::new();
        p.inst_line(&mut out, self.inst);
        match self.func.insts.get(self.inst).map(|d| &d.kind) {
            Some(InstKind::If { .. }) => out.push_str(" {...} else {...}"),
            Some(InstKind::Loop { .. }) => out.push_str(" {...}"),
            _ => {}
        }
        fm.write_str(&out)
    }
}

/// One instruction of `f` in text form (see [`DisplayInst`]).
pub fn display_inst(f: &Function, m: &Module, inst: Inst) -> String {
    DisplayInst {
        func: f,
        module: m,
        inst,
    }
    .to_string()
}

/// The text form of a whole module: files, structs, then functions in
/// [`FuncId`] order. Ends in a newline unless the module is empty.
pub fn print_module(m: &Module) -> String {
    let mut sections: Vec<String> = Vec::new();
    if !m.files.is_empty() {
        let mut s = String::new();
        for (i, name) in m.files.iter().enumerate() {
            let _ = write!(s, "file {i} ");
            write_str_lit(&mut s, name);
            s.push('\n');
        }
        sections.push(s);
    }
    if !m.structs.is_empty() {
        let mut s = String::new();
        for (_, d) in m.structs.iter() {
            s.push_str("struct %");
            write_name(&mut s, &d.name);
            if d.fields.is_empty() {
                s.push_str(" {}\n");
                continue;
            }
            s.push_str(" { ");
            for (i, fd) in d.fields.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                write_name(&mut s, &fd.name);
                s.push_str(": ");
                write_type(&mut s, fd.ty, &m.structs);
            }
            s.push_str(" }\n");
        }
        sections.push(s);
    }
    for (id, _) in m.funcs.iter() {
        sections.push(print_function(m, id));
    }
    sections.join("\n")
}

/// The text form of one function of `m` (empty if `f` is not in `m`).
pub fn print_function(m: &Module, f: FuncId) -> String {
    match m.funcs.get(f) {
        Some(func) => {
            let mut out = String::new();
            Printer::new(m, func).function(&mut out);
            out
        }
        None => String::new(),
    }
}

struct Printer<'a> {
    m: &'a Module,
    f: &'a Function,
    names: Numbering,
}

impl<'a> Printer<'a> {
    fn new(m: &'a Module, f: &'a Function) -> Printer<'a> {
        Printer {
            m,
            f,
            names: Numbering::new(f),
        }
    }

    fn ty(&self, ty: Type) -> String {
        type_str(ty, &self.m.structs)
    }

    fn val(&self, v: Value) -> String {
        self.names.name(v)
    }

    fn vals(&self, vs: &[Value]) -> String {
        vs.iter()
            .map(|&v| self.val(v))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `vN "name": T` — a value definition.
    fn def(&self, out: &mut String, v: Value) {
        out.push_str(&self.val(v));
        if let Some(n) = self.f.value_names.get(v).filter(|s| !s.is_empty()) {
            out.push(' ');
            write_str_lit(out, n);
        }
        out.push_str(": ");
        match self.f.values.get(v) {
            Some(d) => out.push_str(&self.ty(d.ty)),
            None => out.push('?'),
        }
    }

    fn function(&self, out: &mut String) {
        let f = self.f;
        out.push_str(match f.kind {
            FuncKind::Kernel => "kernel @",
            FuncKind::Func => "func @",
        });
        write_name(out, &f.name);
        out.push('(');
        let body_params: &[Value] = f.regions.get(f.body).map_or(&[], |r| &r.params);
        for i in 0..f.params.len().max(body_params.len()) {
            if i > 0 {
                out.push_str(", ");
            }
            let param = f.params.get(i);
            match body_params.get(i) {
                Some(&v) => {
                    out.push_str(&self.val(v));
                    let vname = f.value_name(v).unwrap_or("");
                    if !vname.is_empty() {
                        out.push(' ');
                        write_str_lit(out, vname);
                    }
                    if let Some(p) = param.filter(|p| p.name != vname) {
                        out.push_str(" as ");
                        write_str_lit(out, &p.name);
                    }
                }
                None => out.push('?'),
            }
            out.push_str(": ");
            let ty = match (param, body_params.get(i).and_then(|&v| f.values.get(v))) {
                (Some(p), _) => p.ty,
                (None, Some(d)) => d.ty,
                (None, None) => Type::BOOL,
            };
            out.push_str(&self.ty(ty));
            self.param_attrs(out, i as u32);
        }
        out.push(')');
        match f.returns.len() {
            0 => {}
            1 => {
                out.push_str(" -> ");
                out.push_str(&self.ty(f.returns[0]));
            }
            _ => {
                let ts: Vec<String> = f.returns.iter().map(|&t| self.ty(t)).collect();
                let _ = write!(out, " -> ({})", ts.join(", "));
            }
        }
        if f.fast_math {
            out.push_str(" fast_math");
        }
        if f.deterministic {
            out.push_str(" deterministic");
        }
        if !f.backward {
            out.push_str(" no_backward");
        }
        for (kw, g) in [
            ("adjoint", f.custom_adjoint),
            ("replay", f.custom_replay),
            ("grad", f.grad_of),
        ] {
            if let Some(g) = g {
                let name = self.m.funcs.get(g).map_or("?", |g| g.name.as_str());
                let _ = write!(out, " {kw}(@{name})");
            }
        }
        write_loc(out, f.loc);
        let mut seen = SecondaryMap::new();
        out.push_str(" {\n");
        self.region_insts(out, f.body, 1, &mut seen);
        out.push_str("}\n");
    }

    /// The layout attributes of param `i`: `hint(soa|aos)` for each entry
    /// of [`Function::layout_hints`], then `soa(ELEM, NDIM)` for each entry
    /// of [`Function::soa_params`], in their list order.
    fn param_attrs(&self, out: &mut String, i: u32) {
        for (_, layout) in self.f.layout_hints.iter().filter(|(p, _)| *p == i) {
            let _ = write!(out, " hint({})", layout_name(*layout));
        }
        for sp in self.f.soa_params.iter().filter(|sp| sp.param == i) {
            out.push_str(" soa(");
            out.push_str(&self.ty(Type::from(sp.elem)));
            let _ = write!(out, ", {})", sp.ndim);
        }
    }

    /// Writes the instructions of `r`, one per line, at `depth`.
    fn region_insts(
        &self,
        out: &mut String,
        r: Region,
        depth: usize,
        seen: &mut SecondaryMap<Region, bool>,
    ) {
        let indent = "  ".repeat(depth);
        let Some(rd) = self.f.regions.get(r) else {
            let _ = writeln!(out, "{indent}; missing region {}", r.as_u32());
            return;
        };
        if seen[r] {
            let _ = writeln!(out, "{indent}; region {} printed twice", r.as_u32());
            return;
        }
        seen[r] = true;
        for &inst in &rd.insts {
            out.push_str(&indent);
            self.inst_line(out, inst);
            match self.f.insts.get(inst).map(|d| &d.kind) {
                Some(InstKind::If {
                    then_region,
                    else_region,
                    ..
                }) => {
                    out.push_str(" {\n");
                    self.region_insts(out, *then_region, depth + 1, seen);
                    let _ = writeln!(out, "{indent}}} else {{");
                    self.region_insts(out, *else_region, depth + 1, seen);
                    let _ = writeln!(out, "{indent}}}");
                }
                Some(InstKind::Loop { body, .. }) => {
                    out.push_str(" {\n");
                    self.region_insts(out, *body, depth + 1, seen);
                    let _ = writeln!(out, "{indent}}}");
                }
                _ => out.push('\n'),
            }
        }
    }

    /// The line of an instruction without indentation and newline; for
    /// `if`/`loop` the header up to (not including) the opening brace.
    fn inst_line(&self, out: &mut String, inst: Inst) {
        let Some(d) = self.f.insts.get(inst) else {
            let _ = write!(out, "; missing instruction {}", inst.as_u32());
            return;
        };
        for (i, &v) in d.results.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.def(out, v);
        }
        if !d.results.is_empty() {
            out.push_str(" = ");
        }
        let single = match d.results.as_slice() {
            [v] => self.f.values.get(*v).map(|d| d.ty),
            _ => None,
        };
        // `op<T>`: the type is omitted when it is the single result's type.
        let explicit = |out: &mut String, op: &str, ty: Type| {
            out.push_str(op);
            if single != Some(ty) {
                let _ = write!(out, "<{}>", self.ty(ty));
            }
        };
        match &d.kind {
            InstKind::Const(c) => {
                explicit(out, "const", Type::Scalar(c.ty));
                out.push(' ');
                out.push_str(&const_literal(*c));
            }
            InstKind::Unary(op, a) => {
                let _ = write!(out, "{} {}", unary_name(*op), self.val(*a));
            }
            InstKind::Binary(op, a, b) => {
                let _ = write!(
                    out,
                    "{} {}, {}",
                    binary_name(*op),
                    self.val(*a),
                    self.val(*b)
                );
            }
            InstKind::Fma(a, b, c) => {
                let _ = write!(out, "fma {}", self.vals(&[*a, *b, *c]));
            }
            InstKind::Cast(a, s) => {
                explicit(out, "cast", Type::Scalar(*s));
                let _ = write!(out, " {}", self.val(*a));
            }
            InstKind::Bitcast(a, s) => {
                explicit(out, "bitcast", Type::Scalar(*s));
                let _ = write!(out, " {}", self.val(*a));
            }
            InstKind::Select(c, a, b) => {
                let _ = write!(out, "select {}", self.vals(&[*c, *a, *b]));
            }
            InstKind::Make(ty, vs) => {
                explicit(out, "make", *ty);
                if !vs.is_empty() {
                    let _ = write!(out, " {}", self.vals(vs));
                }
            }
            InstKind::Extract(a, path) => {
                let _ = write!(out, "extract {}", self.val(*a));
                write_path(out, path);
            }
            InstKind::Insert(a, path, v) => {
                let _ = write!(out, "insert {}", self.val(*a));
                write_path(out, path);
                let _ = write!(out, ", {}", self.val(*v));
            }
            InstKind::ThreadId => out.push_str("thread_id"),
            InstKind::LaunchDim(axis) => {
                let _ = write!(out, "launch_dim {axis}");
            }
            InstKind::BlockDim => out.push_str("block_dim"),
            InstKind::ArrayShape(a, axis) => {
                let _ = write!(out, "array_shape {}, {axis}", self.val(*a));
            }
            InstKind::Load(mem) => {
                out.push_str("load ");
                self.mem(out, mem);
            }
            InstKind::Store(mem, v) => {
                out.push_str("store ");
                self.mem(out, mem);
                let _ = write!(out, ", {}", self.val(*v));
            }
            InstKind::Atomic(op, mem, v) => {
                let _ = write!(out, "atomic {} ", atomic_name(*op));
                self.mem(out, mem);
                let _ = write!(out, ", {}", self.val(*v));
            }
            InstKind::AtomicCas(mem, c, v) => {
                out.push_str("atomic_cas ");
                self.mem(out, mem);
                let _ = write!(out, ", {}, {}", self.val(*c), self.val(*v));
            }
            InstKind::Call(fid, args) => {
                out.push_str("call @");
                match self.m.funcs.get(*fid) {
                    Some(callee) => write_name(out, &callee.name),
                    None => {
                        let _ = write!(out, "?{}", fid.as_u32());
                    }
                }
                let _ = write!(out, "({})", self.vals(args));
            }
            InstKind::Print(fmt, args) => {
                out.push_str("print ");
                write_str_lit(out, fmt);
                for &a in args {
                    let _ = write!(out, ", {}", self.val(a));
                }
            }
            InstKind::If { cond, .. } => {
                let _ = write!(out, "if {}", self.val(*cond));
            }
            InstKind::Loop { init, body } => {
                out.push_str("loop");
                let params: &[Value] = self.f.regions.get(*body).map_or(&[], |r| &r.params);
                if !init.is_empty() || !params.is_empty() {
                    out.push_str(" (");
                    for i in 0..init.len().max(params.len()) {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        match params.get(i) {
                            Some(&p) => self.def(out, p),
                            None => out.push('?'),
                        }
                        out.push_str(" = ");
                        match init.get(i) {
                            Some(&v) => out.push_str(&self.val(v)),
                            None => out.push('?'),
                        }
                    }
                    out.push(')');
                }
            }
            InstKind::Yield(vs) => self.term(out, "yield", vs),
            InstKind::Continue(vs) => self.term(out, "continue", vs),
            InstKind::Break(vs) => self.term(out, "break", vs),
            InstKind::Return(vs) => self.term(out, "return", vs),
            InstKind::Trap(TrapKind::OutOfBounds { axis }, vs) => {
                self.term(out, &format!("trap oob {axis}"), vs)
            }
            InstKind::Trap(TrapKind::DivByZero, vs) => self.term(out, "trap divzero", vs),
        }
        if !d.flags.is_empty() {
            out.push_str(" fast(");
            for (i, name) in d.flags.names().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(name);
            }
            out.push(')');
        }
        if d.inplace {
            out.push_str(" inplace");
        }
        write_loc(out, d.loc);
    }

    fn term(&self, out: &mut String, kw: &str, vs: &[Value]) {
        out.push_str(kw);
        if !vs.is_empty() {
            out.push(' ');
            out.push_str(&self.vals(vs));
        }
    }

    fn mem(&self, out: &mut String, mem: &MemAccess) {
        let _ = write!(out, "{}[{}]", self.val(mem.array), self.vals(&mem.indices));
        write_path(out, &mem.path);
    }
}

fn write_path(out: &mut String, path: &[u32]) {
    for i in path {
        let _ = write!(out, ".{i}");
    }
}

pub(crate) const UNARY_OPS: [(UnaryOp, &str); 31] = [
    (UnaryOp::Neg, "neg"),
    (UnaryOp::Not, "not"),
    (UnaryOp::Abs, "abs"),
    (UnaryOp::Sqrt, "sqrt"),
    (UnaryOp::Cbrt, "cbrt"),
    (UnaryOp::Floor, "floor"),
    (UnaryOp::Ceil, "ceil"),
    (UnaryOp::Trunc, "trunc"),
    (UnaryOp::Round, "round"),
    (UnaryOp::Rint, "rint"),
    (UnaryOp::Sin, "sin"),
    (UnaryOp::Cos, "cos"),
    (UnaryOp::Tan, "tan"),
    (UnaryOp::Asin, "asin"),
    (UnaryOp::Acos, "acos"),
    (UnaryOp::Atan, "atan"),
    (UnaryOp::Sinh, "sinh"),
    (UnaryOp::Cosh, "cosh"),
    (UnaryOp::Tanh, "tanh"),
    (UnaryOp::Exp, "exp"),
    (UnaryOp::Exp2, "exp2"),
    (UnaryOp::Log, "log"),
    (UnaryOp::Log2, "log2"),
    (UnaryOp::Log10, "log10"),
    (UnaryOp::Erf, "erf"),
    (UnaryOp::Erfc, "erfc"),
    (UnaryOp::Erfinv, "erfinv"),
    (UnaryOp::Popcount, "popcount"),
    (UnaryOp::IsNan, "isnan"),
    (UnaryOp::IsInf, "isinf"),
    (UnaryOp::IsFinite, "isfinite"),
];

pub(crate) const BINARY_OPS: [(BinaryOp, &str); 21] = [
    (BinaryOp::Add, "add"),
    (BinaryOp::Sub, "sub"),
    (BinaryOp::Mul, "mul"),
    (BinaryOp::Div, "div"),
    (BinaryOp::Rem, "rem"),
    (BinaryOp::Min, "min"),
    (BinaryOp::Max, "max"),
    (BinaryOp::Pow, "pow"),
    (BinaryOp::Atan2, "atan2"),
    (BinaryOp::Copysign, "copysign"),
    (BinaryOp::And, "and"),
    (BinaryOp::Or, "or"),
    (BinaryOp::Xor, "xor"),
    (BinaryOp::Shl, "shl"),
    (BinaryOp::Shr, "shr"),
    (BinaryOp::Eq, "eq"),
    (BinaryOp::Ne, "ne"),
    (BinaryOp::Lt, "lt"),
    (BinaryOp::Le, "le"),
    (BinaryOp::Gt, "gt"),
    (BinaryOp::Ge, "ge"),
];

pub(crate) const ATOMIC_OPS: [(AtomicOp, &str); 8] = [
    (AtomicOp::Add, "add"),
    (AtomicOp::Sub, "sub"),
    (AtomicOp::Min, "min"),
    (AtomicOp::Max, "max"),
    (AtomicOp::And, "and"),
    (AtomicOp::Or, "or"),
    (AtomicOp::Xor, "xor"),
    (AtomicOp::Exchange, "exchange"),
];

pub(crate) fn unary_name(op: UnaryOp) -> &'static str {
    UNARY_OPS
        .iter()
        .find(|(o, _)| *o == op)
        .map_or("?", |(_, n)| n)
}

pub(crate) fn binary_name(op: BinaryOp) -> &'static str {
    BINARY_OPS
        .iter()
        .find(|(o, _)| *o == op)
        .map_or("?", |(_, n)| n)
}

pub(crate) fn atomic_name(op: AtomicOp) -> &'static str {
    ATOMIC_OPS
        .iter()
        .find(|(o, _)| *o == op)
        .map_or("?", |(_, n)| n)
}

/// The text of a type, quoting struct names that need it.
/// The text name of an array layout: `aos` or `soa`.
pub(crate) fn layout_name(l: ArrayLayout) -> &'static str {
    match l {
        ArrayLayout::Aos => "aos",
        ArrayLayout::Soa => "soa",
    }
}

pub(crate) fn type_text(ty: Type, structs: &StructTable) -> String {
    type_str(ty, structs)
}
