//! IR → HLSL text.
//!
//! Every SSA value becomes a local named after its Python variable (made
//! unique), except constants and `extract`s, which are written inline where
//! used. `if` results and loop-carried values become variables declared
//! before the construct and assigned by `yield` / `continue` / `break`.
//!
//! Value representation: `bool`; `int` for i8/i16/i32 (small types kept
//! sign-extended), `uint` for u8/u16/u32 (kept zero-extended), `uint2` for
//! i64/u64 (x = low word), `float` for f16 (rounded to binary16 after every
//! operation) and f32, `double` for f64. Vectors/quaternions of up to 4 and
//! matrices of up to 4×4 are native `float3`, `float3x3`, ...; transforms,
//! longer vectors, larger matrices and aggregates of 64-bit integers are
//! generated structs.
//!
//! The pieces, named as in the other backends' `lower` modules so that the
//! lowering of one operation reads side by side across them:
//!
//! - this file: [`emit_kernel`], the [`Emitter`] state and its shared helpers
//!   (errors, the use scan, HLSL types and access suffixes, output lines,
//!   naming and declaring values);
//! - `frame.rs`: the shader around the body: `main`, `numthreads`, the
//!   thread index and bounds, the constant buffer and the parameters;
//! - `instructions.rs`: the per-instruction dispatch, regions and structured
//!   control flow, aggregates, constants, `print`;
//! - `memory.rs`: byte addresses into the `RWByteAddressBuffer`s, loads,
//!   stores and atomics (64-bit ones under the lock table's locks);
//! - `arithmetic.rs`: binary operations and comparisons, casts, bitcasts and
//!   the `precise` / fast-math flag glue;
//! - `math.rs`: unary operations: the transcendentals, their exactness
//!   helpers and the `afn` choices;
//! - `debug.rs`: the trap record of bounds-checked mode and `#line`
//!   directives.

mod arithmetic;
mod debug;
mod frame;
mod instructions;
mod math;
mod memory;

pub(crate) use memory::needs_lock_table;

use crate::bindings::BindingLayout;
use crate::helpers::HelperSet;
use crate::names::Names;
use crate::{Error, Options};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use weft_ir::{Function, Loc, MathFlags, Module, Region, Scalar, Type, Value};

type R<T> = Result<T, Error>;

const XYZW: [&str; 4] = ["x", "y", "z", "w"];

pub(crate) fn emit_kernel(
    m: &Module,
    f: &Function,
    bindings: &BindingLayout,
    opts: &Options,
) -> R<String> {
    let mut e = Emitter {
        m,
        f,
        opts,
        names: Names::default(),
        val: HashMap::new(),
        helpers: HelperSet::default(),
        type_names: HashMap::new(),
        field_names: HashMap::new(),
        type_defs: String::new(),
        out: String::new(),
        indent: 1,
        line: None,
        used: HashSet::new(),
        arrays: HashMap::new(),
        loops: Vec::new(),
        trap_buf: None,
        lock_buf: None,
        flags: MathFlags::NONE,
        fast_fn: false,
        array_of: HashMap::new(),
        zero32: None,
        zero64: None,
        loop_on: Default::default(),
    };
    e.array_of = crate::arrays::resolve(f).map_err(|a| {
        e.unsupported(
            format!(
                "an array variable (`{}`) that stands for different arrays depending on control flow (HLSL cannot select a buffer at run time)",
                a.name
            ),
            a.loc,
        )
    })?;
    e.scan(f.body)?;
    e.emit_function(bindings)
}

/// An array parameter: its buffer and the locals holding shape and strides.
struct ArrayInfo {
    buf: String,
    /// Pooled kernels: the local holding the array's byte offset in the
    /// pool, added to every address.
    base: Option<String>,
    shape: String,
    strides: String,
}

/// The variables of the innermost loops being emitted: params, results.
struct LoopVars {
    params: Vec<Value>,
    results: Vec<Value>,
}

struct Emitter<'a> {
    m: &'a Module,
    f: &'a Function,
    opts: &'a Options,
    names: Names,
    /// The HLSL expression of each value defined so far.
    val: HashMap<Value, String>,
    helpers: HelperSet,
    type_names: HashMap<Type, String>,
    /// Struct field identifiers per struct type.
    field_names: HashMap<Type, Vec<String>>,
    type_defs: String,
    out: String,
    indent: usize,
    /// The (file, line) of the last `#line` directive.
    line: Option<(u32, u32)>,
    /// Values used as operands.
    used: HashSet<Value>,
    arrays: HashMap<Value, ArrayInfo>,
    loops: Vec<LoopVars>,
    /// The trap record's buffer (kernels with `trap`s only).
    trap_buf: Option<String>,
    /// The lock table's buffer (kernels with locked 64-bit atomics only).
    lock_buf: Option<String>,
    /// The fast-math flags of the instruction being emitted (with the
    /// module-wide ones of `Options::fast_math`).
    flags: MathFlags,
    /// Whether some instruction may be contracted: then only the values of
    /// float operations without `contract` are declared `precise`.
    fast_fn: bool,
    /// The kernel parameter each array value stands for (`arrays::resolve`).
    array_of: HashMap<Value, Value>,
    /// The locals holding the opaque float zeros (`CB_ZERO`), once used.
    zero32: Option<String>,
    zero64: Option<String>,
    /// Per loop depth, the local holding an opaque `true` (`CB_ZERO`
    /// shifted right by the depth is zero), the condition of loops with
    /// results at that depth (see `InstKind::Loop`), once used.
    loop_on: std::collections::BTreeMap<usize, String>,
}

fn scalar_base(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "bool",
        Scalar::I8 | Scalar::I16 | Scalar::I32 => "int",
        Scalar::U8 | Scalar::U16 | Scalar::U32 => "uint",
        Scalar::I64 | Scalar::U64 => "uint2",
        Scalar::F16 | Scalar::F32 | Scalar::BF16 => "float",
        Scalar::F64 => "double",
    }
}

fn is_wide_int(s: Scalar) -> bool {
    matches!(s, Scalar::I64 | Scalar::U64)
}

/// Whether a vector of `n` `s` is a native HLSL vector.
fn native_vec(n: u8, s: Scalar) -> bool {
    (1..=4).contains(&n) && !is_wide_int(s)
}

fn native_mat(r: u8, c: u8, s: Scalar) -> bool {
    (1..=4).contains(&r) && (1..=4).contains(&c) && !is_wide_int(s)
}

impl<'a> Emitter<'a> {
    // ---------------------------------------------------------------- errors

    /// The name of `loc`'s file (empty when unknown).
    fn file_of(&self, loc: Loc) -> String {
        self.m
            .files
            .get(loc.file as usize)
            .cloned()
            .unwrap_or_default()
    }

    fn unsupported(&self, what: impl Into<String>, loc: Loc) -> Error {
        Error::Unsupported {
            what: what.into(),
            pos: self.m.source_pos(loc),
        }
    }

    fn invalid(&self, what: impl Into<String>) -> Error {
        Error::Invalid {
            what: format!("in `{}`: {}", self.f.name, what.into()),
            pos: self.m.source_pos(self.f.loc),
        }
    }

    // ---------------------------------------------------------------- scan

    /// Records every operand use.
    fn scan(&mut self, r: Region) -> R<()> {
        let rd = self
            .f
            .regions
            .get(r)
            .ok_or_else(|| self.invalid("missing region"))?;
        for &i in &rd.insts {
            let d = &self.f.insts[i];
            self.fast_fn |= d.flags.contains(MathFlags::CONTRACT);
            let k = &d.kind;
            self.used.extend(k.args());
            for sub in k.regions() {
                self.scan(sub)?;
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------------- types

    /// The HLSL type of a value type, generating struct definitions as needed.
    fn ty(&mut self, t: Type) -> R<String> {
        if let Some(n) = self.type_names.get(&t) {
            return Ok(n.clone());
        }
        let name = match t {
            Type::Scalar(s) => return Ok(scalar_base(s).into()),
            Type::Vec(n, s) if native_vec(n, s) => return Ok(format!("{}{n}", scalar_base(s))),
            Type::Quat(s) if native_vec(4, s) => return Ok(format!("{}4", scalar_base(s))),
            Type::Mat(r, c, s) if native_mat(r, c, s) => {
                return Ok(format!("{}{r}x{c}", scalar_base(s)))
            }
            Type::Array(_) => return Err(self.invalid("an array value outside a memory access")),
            Type::Transform(s) if !is_wide_int(s) => {
                let b = scalar_base(s);
                let name = self.names.fresh(&format!("weft_transform_{}", s.name()));
                let _ = writeln!(
                    self.type_defs,
                    "struct {name}\n{{\n    {b}3 p;\n    {b}4 q;\n}};\n"
                );
                name
            }
            Type::Vec(n, s) => self.generic_vec(n, s),
            Type::Transform(s) => self.generic_vec(7, s),
            Type::Quat(s) => self.generic_vec(4, s),
            Type::Mat(r, c, s) => {
                let row = self.ty(Type::Vec(c, s))?;
                let name = self.names.fresh(&format!("weft_mat{r}x{c}_{}", s.name()));
                let _ = writeln!(
                    self.type_defs,
                    "struct {name}\n{{\n    {row} r[{r}];\n}};\n"
                );
                name
            }
            Type::Struct(id) => {
                let def = self
                    .m
                    .structs
                    .get(id)
                    .ok_or_else(|| self.invalid("unknown struct"))?
                    .clone();
                let mut fields = Vec::new();
                let mut fnames = Names::default();
                let mut body = String::new();
                for fl in &def.fields {
                    let ft = self.ty(fl.ty)?;
                    let fname = fnames.fresh(&fl.name);
                    let _ = writeln!(body, "    {ft} {fname};");
                    fields.push(fname);
                }
                let name = self.names.fresh(&def.name);
                let _ = writeln!(self.type_defs, "struct {name}\n{{\n{body}}};\n");
                self.field_names.insert(t, fields);
                name
            }
        };
        self.type_names.insert(t, name.clone());
        Ok(name)
    }

    fn generic_vec(&mut self, n: u8, s: Scalar) -> String {
        let name = self.names.fresh(&format!("weft_vec{n}_{}", s.name()));
        let _ = writeln!(
            self.type_defs,
            "struct {name}\n{{\n    {} c[{n}];\n}};\n",
            scalar_base(s)
        );
        name
    }

    /// The access suffix of component `i` of a value of type `t`, and the
    /// component's type.
    fn component(&mut self, t: Type, i: u32) -> R<(String, Type)> {
        let comp = t
            .project(i, &self.m.structs)
            .ok_or_else(|| self.invalid(format!("bad component {i}")))?;
        let suffix = match t {
            Type::Vec(n, s) if native_vec(n, s) => format!(".{}", XYZW[i as usize]),
            Type::Quat(s) if native_vec(4, s) => format!(".{}", XYZW[i as usize]),
            Type::Mat(r, c, s) if native_mat(r, c, s) => format!("[{i}]"),
            Type::Transform(s) if !is_wide_int(s) => {
                if i < 3 {
                    format!(".p.{}", XYZW[i as usize])
                } else {
                    format!(".q.{}", XYZW[i as usize - 3])
                }
            }
            Type::Vec(..) | Type::Quat(_) | Type::Transform(_) => format!(".c[{i}]"),
            Type::Mat(..) => format!(".r[{i}]"),
            Type::Struct(_) => {
                self.ty(t)?;
                let names = &self.field_names[&t];
                format!(".{}", names[i as usize])
            }
            _ => return Err(self.invalid("component of a non-aggregate")),
        };
        Ok((suffix, comp))
    }

    fn path_suffix(&mut self, t: Type, path: &[u32]) -> R<(String, Type)> {
        let mut s = String::new();
        let mut t = t;
        for &i in path {
            let (suf, c) = self.component(t, i)?;
            s.push_str(&suf);
            t = c;
        }
        Ok((s, t))
    }

    // ---------------------------------------------------------------- output

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn v(&self, v: Value) -> R<String> {
        self.val
            .get(&v)
            .cloned()
            .ok_or_else(|| self.invalid(format!("value {v} used before its definition")))
    }

    /// The buffer of the kernel parameter array value `a` stands for.
    fn array_info(&self, a: Value) -> Option<&ArrayInfo> {
        self.arrays.get(self.array_of.get(&a)?)
    }

    fn vty(&self, v: Value) -> Type {
        self.f.value_type(v)
    }

    fn scalar_of(&self, v: Value) -> R<Scalar> {
        self.vty(v)
            .as_scalar()
            .ok_or_else(|| self.invalid(format!("{v} is not a scalar")))
    }

    /// A fresh local name for value `v` (its Python name if it has one).
    fn name_for(&mut self, v: Value) -> String {
        let base = match self.f.value_name(v) {
            Some(n) => n.to_string(),
            None => format!("t{}", v.as_u32()),
        };
        self.names.fresh(&base)
    }

    /// Declares `v` as a local initialised with `expr`.
    fn def(&mut self, v: Value, expr: String) -> R<()> {
        let t = self.ty(self.vty(v))?;
        let name = self.name_for(v);
        let precise = if self.precise_value(v) {
            "precise "
        } else {
            ""
        };
        self.line(&format!("{precise}{t} {name} = {expr};"));
        self.val.insert(v, name);
        Ok(())
    }

    /// Declares `v` as an uninitialised local; returns its name.
    fn decl(&mut self, v: Value) -> R<String> {
        self.decl_with(v, false)
    }

    /// Declares `v` as a local, zero-initialised (`(T)0`) if `zeroed`;
    /// returns its name.
    fn decl_with(&mut self, v: Value, zeroed: bool) -> R<String> {
        let t = self.ty(self.vty(v))?;
        let name = self.name_for(v);
        if zeroed {
            self.line(&format!("{t} {name} = ({t})0;"));
        } else {
            self.line(&format!("{t} {name};"));
        }
        self.val.insert(v, name.clone());
        Ok(name)
    }
}
