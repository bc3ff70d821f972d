//! The parser: a lexer into tokens, a pre-scan that assigns struct and
//! function ids (so types and calls may refer forward), then a
//! recursive-descent parse. Errors carry the 1-based line and column.

use super::print::{ATOMIC_OPS, BINARY_OPS, UNARY_OPS};
use crate::ir::*;
use crate::types::{ArrayType, Field, Scalar, StructDef, Type};
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;
use std::collections::HashMap;

/// A syntax error in IR text, at a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

type PResult<T> = Result<T, ParseError>;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// A number literal as written (optional `-`, decimal, float or `0x` hex).
    Num(String),
    Str(String),
    /// `@name` or `@"name"`.
    Func(String),
    /// `%name` or `%"name"`.
    Struct(String),
    /// `@file:line:col`.
    Loc(Loc),
    Punct(char),
    Arrow,
    Eof,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: u32,
    col: u32,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Num(s) => format!("number `{s}`"),
        Tok::Str(_) => "a string".to_string(),
        Tok::Func(s) => format!("`@{s}`"),
        Tok::Struct(s) => format!("`%{s}`"),
        Tok::Loc(_) => "a location".to_string(),
        Tok::Punct(c) => format!("`{c}`"),
        Tok::Arrow => "`->`".to_string(),
        Tok::Eof => "end of input".to_string(),
    }
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u32,
    col: u32,
}

impl Lexer<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }
    fn err<T>(&self, line: u32, col: u32, message: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            line,
            col,
            message: message.into(),
        })
    }
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek().filter(|&c| f(c)) {
            s.push(c);
            self.bump();
        }
        s
    }
    fn ident(&mut self) -> String {
        self.take_while(|c| c.is_ascii_alphanumeric() || c == '_')
    }
    fn digits(&mut self) -> String {
        self.take_while(|c| c.is_ascii_digit())
    }
    fn string(&mut self, line: u32, col: u32) -> PResult<String> {
        self.bump(); // opening quote
        let mut s = String::new();
        loop {
            match self.bump() {
                None => return self.err(line, col, "unterminated string"),
                Some('"') => return Ok(s),
                Some('\\') => {
                    let (l, c) = (self.line, self.col - 1);
                    match self.bump() {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('r') => s.push('\r'),
                        Some('"') => s.push('"'),
                        Some('\\') => s.push('\\'),
                        Some('u') if self.peek() == Some('{') => {
                            self.bump();
                            let hex = self.take_while(|c| c.is_ascii_hexdigit());
                            if self.bump() != Some('}') {
                                return self.err(l, c, "bad `\\u{...}` escape");
                            }
                            match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                                Some(ch) => s.push(ch),
                                None => return self.err(l, c, "bad `\\u{...}` escape"),
                            }
                        }
                        _ => return self.err(l, c, "unknown escape in string"),
                    }
                }
                Some(ch) => s.push(ch),
            }
        }
    }
    /// A name after `@` or `%`: an identifier or a string.
    fn name(&mut self, sigil: char, line: u32, col: u32) -> PResult<String> {
        match self.peek() {
            Some('"') => {
                let (l, c) = (self.line, self.col);
                self.string(l, c)
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => Ok(self.ident()),
            _ => self.err(line, col, format!("expected a name after `{sigil}`")),
        }
    }
    fn number(&mut self, after_dot: bool) -> String {
        let mut s = String::new();
        if self.peek() == Some('-') {
            self.bump();
            s.push('-');
        }
        if after_dot {
            s.push_str(&self.digits());
            return s;
        }
        s.push_str(&self.digits());
        if s.ends_with('0') && s.len() <= 2 && self.peek() == Some('x') {
            self.bump();
            s.push('x');
            s.push_str(&self.take_while(|c| c.is_ascii_hexdigit()));
            return s;
        }
        if self.peek() == Some('.') {
            let mut ahead = self.chars.clone();
            ahead.next();
            if ahead.next().is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
                s.push('.');
                s.push_str(&self.digits());
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            let mut ahead = self.chars.clone();
            ahead.next();
            let mut n = ahead.next();
            if matches!(n, Some('+' | '-')) {
                n = ahead.next();
            }
            if n.is_some_and(|c| c.is_ascii_digit()) {
                s.push(self.bump().unwrap_or('e'));
                if matches!(self.peek(), Some('+' | '-')) {
                    s.push(self.bump().unwrap_or('+'));
                }
                s.push_str(&self.digits());
            }
        }
        s
    }
    fn u32_field(&mut self, line: u32, col: u32) -> PResult<u32> {
        let d = self.digits();
        d.parse()
            .or_else(|_| self.err(line, col, "bad location: expected `@file:line:col`"))
    }
    fn tokens(mut self) -> PResult<Vec<Token>> {
        let mut out: Vec<Token> = Vec::new();
        loop {
            let (line, col) = (self.line, self.col);
            let Some(c) = self.peek() else {
                out.push(Token {
                    tok: Tok::Eof,
                    line,
                    col,
                });
                return Ok(out);
            };
            let after_dot = matches!(
                out.last(),
                Some(Token {
                    tok: Tok::Punct('.'),
                    ..
                })
            );
            let tok = match c {
                c if c.is_whitespace() => {
                    self.bump();
                    continue;
                }
                ';' => {
                    self.take_while(|c| c != '\n');
                    continue;
                }
                '"' => Tok::Str(self.string(line, col)?),
                '@' => {
                    self.bump();
                    if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        let file = self.u32_field(line, col)?;
                        let mut f = [file, 0, 0];
                        for slot in &mut f[1..] {
                            if self.bump() != Some(':') {
                                return self.err(
                                    line,
                                    col,
                                    "bad location: expected `@file:line:col`",
                                );
                            }
                            *slot = self.u32_field(line, col)?;
                        }
                        Tok::Loc(Loc::new(f[0], f[1], f[2]))
                    } else {
                        Tok::Func(self.name('@', line, col)?)
                    }
                }
                '%' => {
                    self.bump();
                    Tok::Struct(self.name('%', line, col)?)
                }
                '-' => {
                    let mut ahead = self.chars.clone();
                    ahead.next();
                    match ahead.next() {
                        Some('>') => {
                            self.bump();
                            self.bump();
                            Tok::Arrow
                        }
                        Some(d) if d.is_ascii_digit() => Tok::Num(self.number(after_dot)),
                        _ => {
                            self.bump();
                            Tok::Punct('-')
                        }
                    }
                }
                c if c.is_ascii_digit() => Tok::Num(self.number(after_dot)),
                c if c.is_ascii_alphabetic() || c == '_' => Tok::Ident(self.ident()),
                '(' | ')' | '{' | '}' | '[' | ']' | '<' | '>' | ',' | ':' | '=' | '.' => {
                    self.bump();
                    Tok::Punct(c)
                }
                c => return self.err(line, col, format!("unexpected character `{c}`")),
            };
            out.push(Token { tok, line, col });
        }
    }
}

/// Parses the text form of a module (see `docs/ir.md`). Structs and
/// functions may be referred to before their definition. The result is
/// not verified: run [`crate::verify::verify_module`] for the typing rules.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let toks = Lexer {
        chars: text.chars().peekable(),
        line: 1,
        col: 1,
    }
    .tokens()?;
    let mut p = Parser {
        toks,
        pos: 0,
        funcs: HashMap::new(),
        structs: HashMap::new(),
        module: Module::new(),
        depth: 0,
    };
    p.prescan()?;
    p.module_items()?;
    Ok(p.module)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    funcs: HashMap<String, FuncId>,
    structs: HashMap<String, StructId>,
    module: Module,
    /// Current region nesting depth (bounded by [`MAX_DEPTH`]).
    depth: usize,
}

/// The deepest region nesting the parser accepts (it recurses per level).
pub const MAX_DEPTH: usize = 256;

/// Per-function state: text value names to values, and where each value
/// was first used (to report uses of values never defined).
struct FnCtx {
    f: Function,
    names: HashMap<String, Value>,
    defined: SecondaryMap<Value, bool>,
    first_use: Vec<(Value, String, u32, u32)>,
}

fn is_value_name(s: &str) -> bool {
    s.len() > 1 && s.starts_with('v') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

impl Parser {
    fn tok(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn line(&self) -> u32 {
        self.toks[self.pos].line
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn err_at<T>(&self, pos: usize, message: impl Into<String>) -> PResult<T> {
        let t = &self.toks[pos];
        Err(ParseError {
            line: t.line,
            col: t.col,
            message: message.into(),
        })
    }
    fn err<T>(&self, message: impl Into<String>) -> PResult<T> {
        self.err_at(self.pos, message)
    }
    fn unexpected<T>(&self, what: &str) -> PResult<T> {
        self.err(format!("expected {what}, found {}", describe(self.tok())))
    }
    fn is_punct(&self, c: char) -> bool {
        *self.tok() == Tok::Punct(c)
    }
    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn expect_punct(&mut self, c: char) -> PResult<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.unexpected(&format!("`{c}`"))
        }
    }
    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.tok(), Tok::Ident(s) if s == kw)
    }
    fn expect_kw(&mut self, kw: &str) -> PResult<()> {
        if self.is_kw(kw) {
            self.bump();
            Ok(())
        } else {
            self.unexpected(&format!("`{kw}`"))
        }
    }
    fn is_value(&self) -> bool {
        matches!(self.tok(), Tok::Ident(s) if is_value_name(s))
    }
    fn opt_str(&mut self) -> Option<String> {
        match self.tok() {
            Tok::Str(s) => {
                let s = s.clone();
                self.bump();
                Some(s)
            }
            _ => None,
        }
    }
    fn expect_str(&mut self) -> PResult<String> {
        match self.opt_str() {
            Some(s) => Ok(s),
            None => self.unexpected("a string"),
        }
    }
    fn expect_u32(&mut self, what: &str) -> PResult<u32> {
        match self.tok() {
            Tok::Num(s) => match s.parse::<u32>() {
                Ok(n) => {
                    self.bump();
                    Ok(n)
                }
                Err(_) => self.err(format!("{what} out of range: `{s}`")),
            },
            _ => self.unexpected(what),
        }
    }
    fn expect_u8(&mut self, what: &str) -> PResult<u8> {
        let pos = self.pos;
        let n = self.expect_u32(what)?;
        u8::try_from(n).or_else(|_| self.err_at(pos, format!("{what} out of range: {n}")))
    }
    fn opt_loc(&mut self) -> Loc {
        match *self.tok() {
            Tok::Loc(l) => {
                self.bump();
                l
            }
            _ => Loc::NONE,
        }
    }

    /// Assigns ids to every top-level struct and function by name.
    fn prescan(&mut self) -> PResult<()> {
        let mut depth = 0usize;
        let mut nfuncs = 0u32;
        for i in 0..self.toks.len() {
            match &self.toks[i].tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth = depth.saturating_sub(1),
                Tok::Ident(kw) if depth == 0 => {
                    let Some(Tok::Struct(name) | Tok::Func(name)) =
                        self.toks.get(i + 1).map(|t| &t.tok)
                    else {
                        continue;
                    };
                    let is_struct = matches!(self.toks[i + 1].tok, Tok::Struct(_));
                    if kw == "struct" && is_struct {
                        if self.structs.contains_key(name) {
                            return self.err_at(i + 1, format!("struct %{name} is defined twice"));
                        }
                        let id = self.module.structs.push(StructDef {
                            name: name.clone(),
                            fields: Vec::new(),
                        });
                        self.structs.insert(name.clone(), id);
                    } else if (kw == "kernel" || kw == "func") && !is_struct {
                        if self.funcs.contains_key(name) {
                            return self
                                .err_at(i + 1, format!("function @{name} is defined twice"));
                        }
                        self.funcs.insert(name.clone(), FuncId::from_u32(nfuncs));
                        nfuncs += 1;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn module_items(&mut self) -> PResult<()> {
        loop {
            match self.tok().clone() {
                Tok::Eof => return Ok(()),
                Tok::Ident(kw) if kw == "file" => {
                    self.bump();
                    let pos = self.pos;
                    let idx = self.expect_u32("a file index")?;
                    if idx as usize != self.module.files.len() {
                        return self.err_at(
                            pos,
                            format!(
                                "file index {idx} out of order (expected {})",
                                self.module.files.len()
                            ),
                        );
                    }
                    let name = self.expect_str()?;
                    self.module.files.push(name);
                }
                Tok::Ident(kw) if kw == "struct" => self.struct_def()?,
                Tok::Ident(kw) if kw == "kernel" || kw == "func" => self.function()?,
                _ => return self.unexpected("`file`, `struct`, `kernel` or `func`"),
            }
        }
    }

    fn struct_def(&mut self) -> PResult<()> {
        self.bump();
        let Tok::Struct(name) = self.tok().clone() else {
            return self.unexpected("a struct name `%Name`");
        };
        self.bump();
        let Some(&id) = self.structs.get(&name) else {
            return self.err(format!("struct %{name} is not at the top level"));
        };
        self.expect_punct('{')?;
        let mut fields = Vec::new();
        if !self.eat_punct('}') {
            loop {
                let fname = match self.tok().clone() {
                    Tok::Ident(s) | Tok::Str(s) => s,
                    _ => return self.unexpected("a field name"),
                };
                self.bump();
                self.expect_punct(':')?;
                let ty = self.ty()?;
                fields.push(Field { name: fname, ty });
                if self.eat_punct('}') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        self.module.structs[id].fields = fields;
        Ok(())
    }

    fn scalar_in_angles(&mut self) -> PResult<Scalar> {
        self.expect_punct('<')?;
        let s = match self.tok() {
            Tok::Ident(s) => Scalar::from_name(s),
            _ => None,
        };
        let Some(s) = s else {
            return self.unexpected("a scalar type");
        };
        self.bump();
        self.expect_punct('>')?;
        Ok(s)
    }

    fn ty(&mut self) -> PResult<Type> {
        let pos = self.pos;
        match self.bump() {
            Tok::Struct(name) => match self.structs.get(&name) {
                Some(&id) => Ok(Type::Struct(id)),
                None => self.err_at(pos, format!("unknown struct %{name}")),
            },
            Tok::Ident(s) => {
                if let Some(sc) = Scalar::from_name(&s) {
                    return Ok(Type::Scalar(sc));
                }
                let num = |t: &str| t.parse::<u8>().ok();
                if s == "quat" {
                    return Ok(Type::Quat(self.scalar_in_angles()?));
                }
                if s == "transform" {
                    return Ok(Type::Transform(self.scalar_in_angles()?));
                }
                if let Some(n) = s.strip_prefix("vec").and_then(num) {
                    return Ok(Type::Vec(n, self.scalar_in_angles()?));
                }
                if let Some((r, c)) = s
                    .strip_prefix("mat")
                    .and_then(|rc| rc.split_once('x'))
                    .and_then(|(r, c)| Some((num(r)?, num(c)?)))
                {
                    return Ok(Type::Mat(r, c, self.scalar_in_angles()?));
                }
                if let Some(ndim) = s.strip_prefix("array").and_then(num) {
                    self.expect_punct('<')?;
                    let epos = self.pos;
                    let elem = self.ty()?;
                    let Some(elem) = elem.as_elem() else {
                        return self.err_at(epos, "array elements cannot be arrays");
                    };
                    self.expect_punct('>')?;
                    return Ok(Type::Array(ArrayType { elem, ndim }));
                }
                self.err_at(pos, format!("unknown type `{s}`"))
            }
            _ => self.err_at(
                pos,
                format!("expected a type, found {}", describe(&self.toks[pos].tok)),
            ),
        }
    }

    fn function(&mut self) -> PResult<()> {
        let kind = if self.is_kw("kernel") {
            FuncKind::Kernel
        } else {
            FuncKind::Func
        };
        self.bump();
        let Tok::Func(name) = self.tok().clone() else {
            return self.unexpected("a function name `@name`");
        };
        self.bump();
        self.expect_punct('(')?;
        // (value name token position, value debug name, param name, type)
        let mut params = Vec::new();
        let (mut hints, mut soa) = (Vec::new(), Vec::new());
        if !self.eat_punct(')') {
            loop {
                if !self.is_value() {
                    return self.unexpected("a parameter value `vN`");
                }
                let vpos = self.pos;
                self.bump();
                let vname = self.opt_str().unwrap_or_default();
                let pname = if self.is_kw("as") {
                    self.bump();
                    Some(self.expect_str()?)
                } else {
                    None
                };
                self.expect_punct(':')?;
                let ty = self.ty()?;
                self.param_attrs(params.len() as u32, &mut hints, &mut soa)?;
                params.push((vpos, vname, pname, ty));
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        let mut returns = Vec::new();
        if *self.tok() == Tok::Arrow {
            self.bump();
            if self.eat_punct('(') {
                if !self.eat_punct(')') {
                    loop {
                        returns.push(self.ty()?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
            } else {
                returns.push(self.ty()?);
            }
        }
        let fast_math = self.is_kw("fast_math");
        if fast_math {
            self.bump();
        }
        let deterministic = self.is_kw("deterministic");
        if deterministic {
            self.bump();
        }
        let backward = !self.is_kw("no_backward");
        if !backward {
            self.bump();
        }
        let mut custom = [None, None, None];
        for (slot, kw) in custom.iter_mut().zip(["adjoint", "replay", "grad"]) {
            if self.is_kw(kw) {
                self.bump();
                self.expect_punct('(')?;
                let fpos = self.pos;
                let Tok::Func(name) = self.bump() else {
                    return self.err_at(fpos, "expected a function name `@name`");
                };
                let Some(&fid) = self.funcs.get(&name) else {
                    return self.err_at(fpos, format!("unknown function @{name}"));
                };
                self.expect_punct(')')?;
                *slot = Some(fid);
            }
        }
        let loc = self.opt_loc();
        let mut cx = FnCtx {
            f: Function::new(&name, kind, Vec::new(), returns),
            names: HashMap::new(),
            defined: SecondaryMap::new(),
            first_use: Vec::new(),
        };
        cx.f.loc = loc;
        cx.f.layout_hints = hints;
        cx.f.soa_params = soa;
        cx.f.fast_math = fast_math;
        cx.f.deterministic = deterministic;
        cx.f.backward = backward;
        [cx.f.custom_adjoint, cx.f.custom_replay, cx.f.grad_of] = custom;
        let body = cx.f.body;
        for (i, (vpos, vname, pname, ty)) in params.into_iter().enumerate() {
            let v = self.define(&mut cx, vpos, ty, ValueDef::Param(body, i as u32), &vname)?;
            cx.f.regions[body].params.push(v);
            cx.f.params.push(Param {
                name: pname.unwrap_or(vname),
                ty,
            });
        }
        self.expect_punct('{')?;
        self.region(&mut cx, body)?;
        for (v, vname, line, col) in &cx.first_use {
            if !cx.defined[*v] {
                return Err(ParseError {
                    line: *line,
                    col: *col,
                    message: format!("unknown value {vname} (never defined in @{name})"),
                });
            }
        }
        if self.funcs.get(&name) != Some(&self.module.funcs.next_key()) {
            return self.err(format!("function @{name} is not at the top level"));
        }
        self.module.funcs.push(cx.f);
        Ok(())
    }

    /// The layout attributes after param `i`'s type: any number of
    /// `hint(soa|aos)` and `soa(ELEM, NDIM)`.
    fn param_attrs(
        &mut self,
        i: u32,
        hints: &mut Vec<(u32, ArrayLayout)>,
        soa: &mut Vec<SoaParam>,
    ) -> PResult<()> {
        loop {
            if self.is_kw("hint") {
                self.bump();
                self.expect_punct('(')?;
                let layout = match self.tok() {
                    Tok::Ident(s) if s == "soa" => ArrayLayout::Soa,
                    Tok::Ident(s) if s == "aos" => ArrayLayout::Aos,
                    _ => return self.unexpected("a layout (`soa` or `aos`)"),
                };
                self.bump();
                self.expect_punct(')')?;
                hints.push((i, layout));
            } else if self.is_kw("soa") {
                self.bump();
                self.expect_punct('(')?;
                let epos = self.pos;
                let Some(elem) = self.ty()?.as_elem() else {
                    return self.err_at(epos, "an SoA element type cannot be an array");
                };
                self.expect_punct(',')?;
                let ndim = self.expect_u8("a dimension count")?;
                self.expect_punct(')')?;
                soa.push(SoaParam {
                    param: i,
                    elem,
                    ndim,
                });
            } else {
                return Ok(());
            }
        }
    }

    /// The value named by the token at `pos`, allocated on first mention.
    fn value_at(&self, cx: &mut FnCtx, pos: usize) -> Value {
        let name = match &self.toks[pos].tok {
            Tok::Ident(n) => n,
            _ => "",
        };
        if let Some(&v) = cx.names.get(name) {
            return v;
        }
        let v = cx.f.values.push(ValueData {
            ty: Type::BOOL,
            def: ValueDef::Param(cx.f.body, u32::MAX),
        });
        cx.names.insert(name.to_string(), v);
        cx.first_use
            .push((v, name.to_string(), self.toks[pos].line, self.toks[pos].col));
        v
    }

    fn define(
        &self,
        cx: &mut FnCtx,
        pos: usize,
        ty: Type,
        def: ValueDef,
        debug_name: &str,
    ) -> PResult<Value> {
        let v = self.value_at(cx, pos);
        if cx.defined[v] {
            let name = describe(&self.toks[pos].tok);
            return self.err_at(pos, format!("value {name} is defined twice"));
        }
        cx.defined[v] = true;
        cx.f.values[v] = ValueData { ty, def };
        if !debug_name.is_empty() {
            cx.f.value_names[v] = debug_name.to_string();
        }
        Ok(v)
    }

    /// A value use.
    fn use_value(&mut self, cx: &mut FnCtx) -> PResult<Value> {
        if !self.is_value() {
            return self.unexpected("a value `vN`");
        }
        let v = self.value_at(cx, self.pos);
        self.bump();
        Ok(v)
    }

    /// `v, v, ...` (at least one).
    fn value_list(&mut self, cx: &mut FnCtx) -> PResult<Vec<Value>> {
        let mut vs = vec![self.use_value(cx)?];
        while self.eat_punct(',') {
            vs.push(self.use_value(cx)?);
        }
        Ok(vs)
    }

    /// An optional value list that must start on line `line` (the line of
    /// its keyword): terminators and `make` end their line.
    fn values_on_line(&mut self, cx: &mut FnCtx, line: u32) -> PResult<Vec<Value>> {
        if self.is_value() && self.line() == line {
            self.value_list(cx)
        } else {
            Ok(Vec::new())
        }
    }

    /// `.i.j...`
    fn path(&mut self) -> PResult<Vec<u32>> {
        let mut path = Vec::new();
        while self.eat_punct('.') {
            path.push(self.expect_u32("a path index")?);
        }
        Ok(path)
    }

    /// `v[i, j].path`
    fn mem(&mut self, cx: &mut FnCtx) -> PResult<MemAccess> {
        let array = self.use_value(cx)?;
        self.expect_punct('[')?;
        let indices = if self.eat_punct(']') {
            Vec::new()
        } else {
            let vs = self.value_list(cx)?;
            self.expect_punct(']')?;
            vs
        };
        let path = self.path()?;
        Ok(MemAccess {
            array,
            indices,
            path,
        })
    }

    /// The instructions of a region up to and including its closing `}`
    /// (the opening `{` is already consumed).
    fn region(&mut self, cx: &mut FnCtx, r: Region) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return self.err(format!("regions nested more than {MAX_DEPTH} deep"));
        }
        self.depth += 1;
        let r = self.region_insts(cx, r);
        self.depth -= 1;
        r
    }

    fn region_insts(&mut self, cx: &mut FnCtx, r: Region) -> PResult<()> {
        loop {
            if self.eat_punct('}') {
                return Ok(());
            }
            if *self.tok() == Tok::Eof {
                return self.unexpected("`}`");
            }
            self.inst(cx, r)?;
        }
    }

    /// `op<T>`'s explicit type, or the single result's type.
    fn op_type(&mut self, single: Option<Type>, op: &str) -> PResult<Type> {
        if self.is_punct('<') {
            self.bump();
            let t = self.ty()?;
            self.expect_punct('>')?;
            return Ok(t);
        }
        match single {
            Some(t) => Ok(t),
            None => self.err(format!(
                "`{op}` needs one result or an explicit type `{op}<T>`"
            )),
        }
    }

    fn op_scalar(&mut self, single: Option<Type>, op: &str) -> PResult<Scalar> {
        let pos = self.pos;
        match self.op_type(single, op)? {
            Type::Scalar(s) => Ok(s),
            _ => self.err_at(pos, format!("`{op}` needs a scalar type")),
        }
    }

    /// One instruction. Only the `if`/`loop` path recurses; the large
    /// frames of [`Self::inst_head`] and [`Self::simple_op`] are not on it.
    fn inst(&mut self, cx: &mut FnCtx, r: Region) -> PResult<()> {
        let (inst, single) = self.inst_head(cx, r)?;
        if self.is_kw("if") {
            self.bump();
            self.if_(cx, inst)
        } else if self.is_kw("loop") {
            self.bump();
            self.loop_(cx, inst)
        } else {
            self.simple_op(cx, inst, single)
        }
    }

    /// `if c [loc] { ... } else { ... }` after the keyword.
    fn if_(&mut self, cx: &mut FnCtx, inst: Inst) -> PResult<()> {
        let cond = self.use_value(cx)?;
        cx.f.insts[inst].loc = self.opt_loc();
        let then_region = cx.f.new_region();
        let else_region = cx.f.new_region();
        self.expect_punct('{')?;
        self.region(cx, then_region)?;
        self.expect_kw("else")?;
        self.expect_punct('{')?;
        self.region(cx, else_region)?;
        cx.f.insts[inst].kind = InstKind::If {
            cond,
            then_region,
            else_region,
        };
        Ok(())
    }

    /// `loop [(p: T = v, ...)] [loc] { ... }` after the keyword.
    fn loop_(&mut self, cx: &mut FnCtx, inst: Inst) -> PResult<()> {
        let body = cx.f.new_region();
        let init = self.loop_params(cx, body)?;
        cx.f.insts[inst].loc = self.opt_loc();
        self.expect_punct('{')?;
        self.region(cx, body)?;
        cx.f.insts[inst].kind = InstKind::Loop { init, body };
        Ok(())
    }

    #[inline(never)]
    fn loop_params(&mut self, cx: &mut FnCtx, body: Region) -> PResult<Vec<Value>> {
        let mut init = Vec::new();
        if self.eat_punct('(') && !self.eat_punct(')') {
            loop {
                if !self.is_value() {
                    return self.unexpected("a loop parameter `vN`");
                }
                let vpos = self.pos;
                self.bump();
                let name = self.opt_str().unwrap_or_default();
                self.expect_punct(':')?;
                let ty = self.ty()?;
                let idx = cx.f.regions[body].params.len() as u32;
                let p = self.define(cx, vpos, ty, ValueDef::Param(body, idx), &name)?;
                cx.f.regions[body].params.push(p);
                self.expect_punct('=')?;
                init.push(self.use_value(cx)?);
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        Ok(init)
    }

    /// The results (`vN "name": T, ... =`) of an instruction; creates the
    /// instruction in region `r` and returns it with its single result type.
    #[inline(never)]
    fn inst_head(&mut self, cx: &mut FnCtx, r: Region) -> PResult<(Inst, Option<Type>)> {
        let mut results = Vec::new();
        if self.is_value() {
            loop {
                if !self.is_value() {
                    return self.unexpected("a result value `vN`");
                }
                let vpos = self.pos;
                self.bump();
                let name = self.opt_str().unwrap_or_default();
                self.expect_punct(':')?;
                let ty = self.ty()?;
                results.push((vpos, name, ty));
                if !self.eat_punct(',') {
                    break;
                }
            }
            self.expect_punct('=')?;
        }
        let inst = cx.f.insts.push(InstData {
            kind: InstKind::ThreadId,
            results: SmallVec::new(),
            loc: Loc::NONE,
            flags: MathFlags::NONE,
            inplace: false,
        });
        for (i, (vpos, name, ty)) in results.iter().enumerate() {
            let v = self.define(cx, *vpos, *ty, ValueDef::Result(inst, i as u32), name)?;
            cx.f.insts[inst].results.push(v);
        }
        cx.f.regions[r].insts.push(inst);
        let single = match results.as_slice() {
            [(_, _, t)] => Some(*t),
            _ => None,
        };
        Ok((inst, single))
    }

    /// Every instruction but `if` and `loop`: the operation and its location.
    #[inline(never)]
    fn simple_op(&mut self, cx: &mut FnCtx, inst: Inst, single: Option<Type>) -> PResult<()> {
        let op_pos = self.pos;
        let op_line = self.line();
        let Tok::Ident(op) = self.bump() else {
            return self.err_at(
                op_pos,
                format!(
                    "expected an instruction, found {}",
                    describe(&self.toks[op_pos].tok)
                ),
            );
        };
        let kind = match op.as_str() {
            "const" => {
                let ty = self.op_scalar(single, "const")?;
                InstKind::Const(self.const_lit(ty)?)
            }
            "fma" => {
                let vs = self.fixed_values(cx, 3)?;
                InstKind::Fma(vs[0], vs[1], vs[2])
            }
            "cast" => {
                let s = self.op_scalar(single, "cast")?;
                InstKind::Cast(self.use_value(cx)?, s)
            }
            "bitcast" => {
                let s = self.op_scalar(single, "bitcast")?;
                InstKind::Bitcast(self.use_value(cx)?, s)
            }
            "select" => {
                let vs = self.fixed_values(cx, 3)?;
                InstKind::Select(vs[0], vs[1], vs[2])
            }
            "make" => {
                let ty = self.op_type(single, "make")?;
                InstKind::Make(ty, self.values_on_line(cx, op_line)?)
            }
            "extract" => {
                let a = self.use_value(cx)?;
                InstKind::Extract(a, self.path()?)
            }
            "insert" => {
                let a = self.use_value(cx)?;
                let path = self.path()?;
                self.expect_punct(',')?;
                InstKind::Insert(a, path, self.use_value(cx)?)
            }
            "thread_id" => InstKind::ThreadId,
            "launch_dim" => InstKind::LaunchDim(self.expect_u8("an axis")?),
            "block_dim" => InstKind::BlockDim,
            "array_shape" => {
                let a = self.use_value(cx)?;
                self.expect_punct(',')?;
                InstKind::ArrayShape(a, self.expect_u8("an axis")?)
            }
            "load" => InstKind::Load(self.mem(cx)?),
            "store" => {
                let m = self.mem(cx)?;
                self.expect_punct(',')?;
                InstKind::Store(m, self.use_value(cx)?)
            }
            "atomic" => {
                let opos = self.pos;
                let aop = match self.bump() {
                    Tok::Ident(s) => ATOMIC_OPS.iter().find(|(_, n)| *n == s).map(|(o, _)| *o),
                    _ => None,
                };
                let Some(aop) = aop else {
                    return self.err_at(
                        opos,
                        "expected an atomic operation (add, sub, min, max, and, or, xor, exchange)",
                    );
                };
                let m = self.mem(cx)?;
                self.expect_punct(',')?;
                InstKind::Atomic(aop, m, self.use_value(cx)?)
            }
            "atomic_cas" => {
                let m = self.mem(cx)?;
                self.expect_punct(',')?;
                let c = self.use_value(cx)?;
                self.expect_punct(',')?;
                InstKind::AtomicCas(m, c, self.use_value(cx)?)
            }
            "call" => {
                let fpos = self.pos;
                let Tok::Func(name) = self.bump() else {
                    return self.err_at(fpos, "expected a function name `@name`");
                };
                let Some(&fid) = self.funcs.get(&name) else {
                    return self.err_at(fpos, format!("unknown function @{name}"));
                };
                self.expect_punct('(')?;
                let args = if self.eat_punct(')') {
                    Vec::new()
                } else {
                    let vs = self.value_list(cx)?;
                    self.expect_punct(')')?;
                    vs
                };
                InstKind::Call(fid, args)
            }
            "print" => {
                let fmt = self.expect_str()?;
                let mut args = Vec::new();
                while self.eat_punct(',') {
                    args.push(self.use_value(cx)?);
                }
                InstKind::Print(fmt, args)
            }
            "yield" => InstKind::Yield(self.values_on_line(cx, op_line)?),
            "continue" => InstKind::Continue(self.values_on_line(cx, op_line)?),
            "break" => InstKind::Break(self.values_on_line(cx, op_line)?),
            "return" => InstKind::Return(self.values_on_line(cx, op_line)?),
            "trap" => {
                let kpos = self.pos;
                let kind = match self.bump() {
                    Tok::Ident(s) if s == "oob" => TrapKind::OutOfBounds {
                        axis: self.expect_u8("an axis")?,
                    },
                    Tok::Ident(s) if s == "divzero" => TrapKind::DivByZero,
                    _ => return self.err_at(kpos, "expected a trap kind (oob AXIS, divzero)"),
                };
                InstKind::Trap(kind, self.values_on_line(cx, op_line)?)
            }
            other => {
                if let Some((uop, _)) = UNARY_OPS.iter().find(|(_, n)| *n == other) {
                    InstKind::Unary(*uop, self.use_value(cx)?)
                } else if let Some((bop, _)) = BINARY_OPS.iter().find(|(_, n)| *n == other) {
                    let vs = self.fixed_values(cx, 2)?;
                    InstKind::Binary(*bop, vs[0], vs[1])
                } else {
                    return self.err_at(op_pos, format!("unknown instruction `{other}`"));
                }
            }
        };
        cx.f.insts[inst].kind = kind;
        cx.f.insts[inst].flags = self.opt_math_flags()?;
        if matches!(self.tok(), Tok::Ident(s) if s == "inplace") {
            self.bump();
            cx.f.insts[inst].inplace = true;
        }
        cx.f.insts[inst].loc = self.opt_loc();
        Ok(())
    }

    /// An optional `fast(name, ...)` suffix (see [`MathFlags`]).
    fn opt_math_flags(&mut self) -> PResult<MathFlags> {
        if !matches!(self.tok(), Tok::Ident(s) if s == "fast") {
            return Ok(MathFlags::NONE);
        }
        self.bump();
        self.expect_punct('(')?;
        let mut flags = MathFlags::NONE;
        loop {
            let pos = self.pos;
            let flag = match self.bump() {
                Tok::Ident(name) => MathFlags::from_name(&name),
                _ => None,
            };
            let Some(flag) = flag else {
                return self.err_at(pos, "expected a fast-math flag (contract, afn, nnan, ninf)");
            };
            flags = flags | flag;
            if self.eat_punct(')') {
                return Ok(flags);
            }
            self.expect_punct(',')?;
        }
    }

    /// Exactly `n` comma-separated values.
    fn fixed_values(&mut self, cx: &mut FnCtx, n: usize) -> PResult<Vec<Value>> {
        let mut vs = Vec::with_capacity(n);
        for i in 0..n {
            if i > 0 {
                self.expect_punct(',')?;
            }
            vs.push(self.use_value(cx)?);
        }
        Ok(vs)
    }

    /// A constant literal of type `ty` (see `const_literal` in the printer).
    fn const_lit(&mut self, ty: Scalar) -> PResult<Const> {
        let pos = self.pos;
        let bad = |p: &Parser, what: &str| -> PResult<Const> {
            p.err_at(pos, format!("bad {ty} constant: {what}"))
        };
        let (neg, tok) = if self.is_punct('-') {
            self.bump();
            (true, self.bump())
        } else {
            (false, self.bump())
        };
        match tok {
            Tok::Ident(s) if s == "inf" && ty.is_float() => Ok(Const::float(
                ty,
                if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                },
            )),
            Tok::Ident(s) if (s == "true" || s == "false") && ty == Scalar::Bool && !neg => {
                Ok(Const::bool(s == "true"))
            }
            Tok::Num(s) if !neg => {
                if let Some(hex) = s.strip_prefix("0x") {
                    return match u64::from_str_radix(hex, 16) {
                        Ok(bits) => Ok(Const { ty, bits }),
                        Err(_) => bad(self, "expected at most 16 hex digits after `0x`"),
                    };
                }
                if ty.is_float() {
                    let v = match ty {
                        Scalar::F64 => s.parse::<f64>().ok(),
                        _ => s.parse::<f32>().ok().map(f64::from),
                    };
                    return match v {
                        Some(v) => Ok(Const::float(ty, v)),
                        None => bad(self, &format!("`{s}`")),
                    };
                }
                if ty == Scalar::Bool {
                    return bad(self, "expected `true` or `false`");
                }
                let Ok(v) = s.parse::<i128>() else {
                    return bad(self, &format!("`{s}` is not an integer"));
                };
                let b = ty.bits();
                let (lo, hi) = if ty.is_signed_int() {
                    (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
                } else {
                    (0, (1i128 << b) - 1)
                };
                if v < lo || v > hi {
                    return bad(self, &format!("{v} is out of range"));
                }
                Ok(Const::from_i128(ty, v))
            }
            _ => bad(self, "expected a literal"),
        }
    }
}
