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

use crate::bindings::{BindingLayout, CB_DISPATCH_BASE, CB_LAUNCH_TOTAL, CB_ZERO};
use crate::helpers::HelperSet;
use crate::names::Names;
use crate::{HlslError, HlslOptions};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use weft_ir::layout;
use weft_ir::{
    AtomicOp, BinaryOp, Const, Function, Inst, InstKind, Loc, MathFlags, MemAccess, Module, Region,
    Scalar, TrapKind, Type, UnaryOp, Value, ValueDef,
};

type R<T> = Result<T, HlslError>;

const XYZW: [&str; 4] = ["x", "y", "z", "w"];

pub(crate) fn emit_kernel(
    m: &Module,
    f: &Function,
    bindings: &BindingLayout,
    opts: &HlslOptions,
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
        flags: MathFlags::NONE,
        fast_fn: opts.fast_math,
        array_of: HashMap::new(),
        zero32: None,
        zero64: None,
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
    opts: &'a HlslOptions,
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
    /// The fast-math flags of the instruction being emitted (with the
    /// module-wide ones of `HlslOptions::fast_math`).
    flags: MathFlags,
    /// Whether some instruction may be contracted: then only the values of
    /// float operations without `contract` are declared `precise`.
    fast_fn: bool,
    /// The kernel parameter each array value stands for (`arrays::resolve`).
    array_of: HashMap<Value, Value>,
    /// The locals holding the opaque float zeros (`CB_ZERO`), once used.
    zero32: Option<String>,
    zero64: Option<String>,
}

fn scalar_base(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "bool",
        Scalar::I8 | Scalar::I16 | Scalar::I32 => "int",
        Scalar::U8 | Scalar::U16 | Scalar::U32 => "uint",
        Scalar::I64 | Scalar::U64 => "uint2",
        Scalar::F16 | Scalar::F32 => "float",
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

/// `asfloat`/`asint`/nothing: reinterprets a `uint` word as a 32-bit scalar.
fn from_word(s: Scalar, w: &str) -> String {
    match s {
        Scalar::F32 => format!("asfloat({w})"),
        Scalar::I32 => format!("asint({w})"),
        _ => w.to_string(),
    }
}

/// Keeps a value of a narrow type in its canonical form after arithmetic.
fn wrap(s: Scalar, e: String) -> String {
    match s {
        Scalar::I8 => format!("(((int)({e}) << 24) >> 24)"),
        Scalar::I16 => format!("(((int)({e}) << 16) >> 16)"),
        Scalar::U8 => format!("(({e}) & 0xffu)"),
        Scalar::U16 => format!("(({e}) & 0xffffu)"),
        _ => e,
    }
}

/// A float literal that reads back exactly, also through a parser that goes
/// through double first.
fn f32_lit(x: f32) -> String {
    if !x.is_finite() {
        return format!("asfloat(0x{:08x}u)", x.to_bits());
    }
    let mut s = format!("{x:?}");
    if s.parse::<f64>().map(|d| d as f32) != Ok(x) {
        s = format!("{:e}", x as f64);
    }
    if !s.contains(['.', 'e']) {
        s.push_str(".0");
    }
    if x.is_sign_negative() {
        format!("({s})")
    } else {
        s
    }
}

fn f64_lit(x: f64) -> String {
    if !x.is_finite() {
        let b = x.to_bits();
        return format!("asdouble(0x{:08x}u, 0x{:08x}u)", b as u32, (b >> 32) as u32);
    }
    let mut s = format!("{x:?}");
    if !s.contains(['.', 'e']) {
        s.push_str(".0");
    }
    s.push('L');
    if x.is_sign_negative() {
        format!("({s})")
    } else {
        s
    }
}

fn const_lit(c: Const) -> String {
    match c.ty {
        Scalar::Bool => (if c.bits != 0 { "true" } else { "false" }).into(),
        Scalar::I8 | Scalar::I16 | Scalar::I32 => {
            let v = c.bits as i64 as i32;
            match v {
                i32::MIN => "(-2147483647 - 1)".into(),
                v if v < 0 => format!("({v})"),
                v => v.to_string(),
            }
        }
        Scalar::U8 | Scalar::U16 | Scalar::U32 => format!("{}u", c.bits as u32),
        Scalar::I64 | Scalar::U64 => {
            format!("uint2({}u, {}u)", c.bits as u32, (c.bits >> 32) as u32)
        }
        Scalar::F16 | Scalar::F32 => f32_lit(f64::from_bits(c.bits) as f32),
        Scalar::F64 => f64_lit(f64::from_bits(c.bits)),
    }
}

/// The `uint` word at byte `off` of the constant buffer.
fn cb_word(off: u32) -> String {
    format!("weft_cb[{}].{}", off / 16, XYZW[(off % 16 / 4) as usize])
}

impl<'a> Emitter<'a> {
    // ---------------------------------------------------------------- errors

    fn file_of(&self, loc: Loc) -> String {
        self.m
            .files
            .get(loc.file as usize)
            .cloned()
            .unwrap_or_default()
    }

    fn unsupported(&self, what: impl Into<String>, loc: Loc) -> HlslError {
        HlslError::Unsupported {
            what: what.into(),
            loc,
            file: self.file_of(loc),
        }
    }

    fn invalid(&self, what: impl Into<String>) -> HlslError {
        HlslError::InvalidIr(format!("in `{}`: {}", self.f.name, what.into()))
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

    fn loc(&mut self, loc: Loc) {
        if loc.is_none() || self.line == Some((loc.file, loc.line)) {
            return;
        }
        self.line = Some((loc.file, loc.line));
        let file = self.file_of(loc).replace('\\', "/").replace('"', "'");
        let _ = writeln!(self.out, "#line {} \"{file}\"", loc.line);
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

    /// Whether values of type `t` are declared `precise`: floating-point
    /// values without fast math, so that no compiler reassociates, contracts
    /// or assumes away NaNs, infinities and signed zeros.
    fn precise(&self, t: Type) -> bool {
        !self.opts.fast_math && t.scalar_of().is_some_and(|s| s.is_float())
    }

    /// Whether the local of `v` is declared `precise`. In a function where
    /// some operation carries `contract`, only the results of float
    /// operations without it are: `precise` spreads to every computation
    /// that feeds the variable (in DXC and glslang alike), so a `precise`
    /// select, vector or loop variable would forbid contracting the
    /// operations it gathers. Those do no arithmetic of their own; each
    /// operation's own declaration keeps it exact or not. Without any
    /// `contract` every float value is `precise`, as before.
    fn precise_value(&self, v: Value) -> bool {
        if !self.precise(self.vty(v)) {
            return false;
        }
        if !self.fast_fn {
            return true;
        }
        match self.f.values[v].def {
            ValueDef::Result(i, _) if self.f.accepts_math_flags(i) => {
                let d = &self.f.insts[i];
                !d.flags.contains(MathFlags::CONTRACT)
                    || (self.times_zero(&d.kind)
                        && !d.flags.contains(MathFlags::NO_NANS | MathFlags::NO_INFS))
            }
            _ => false,
        }
    }

    /// Whether `k` multiplies by a constant zero. Such a product stays
    /// `precise` under `contract` (fusing it gains nothing): without
    /// `precise`, Mesa and DXC fold `x * 0.0` to `0.0`, dropping the NaN of
    /// an infinite or NaN `x`, which only `nnan` + `ninf` allow.
    fn times_zero(&self, k: &InstKind) -> bool {
        let zero = |v: Value| match self.f.values[v].def {
            ValueDef::Result(i, _) => matches!(
                self.f.insts[i].kind,
                InstKind::Const(c) if c.ty.is_float() && f64::from_bits(c.bits) == 0.0
            ),
            _ => false,
        };
        matches!(*k, InstKind::Binary(BinaryOp::Mul, a, b) if zero(a) || zero(b))
    }

    /// Whether the current instruction may assume `flag`.
    fn allows(&self, flag: MathFlags) -> bool {
        self.flags.contains(flag)
    }

    /// Declares `v` as an uninitialised local; returns its name.
    fn decl(&mut self, v: Value) -> R<String> {
        let t = self.ty(self.vty(v))?;
        let name = self.name_for(v);
        self.line(&format!("{t} {name};"));
        self.val.insert(v, name.clone());
        Ok(name)
    }

    // ---------------------------------------------------------------- function

    fn emit_function(mut self, b: &BindingLayout) -> R<String> {
        let f = self.f;
        let params = f.param_values().to_vec();
        if params.len() != f.params.len() {
            return Err(self.invalid("body params differ from the signature"));
        }
        // Buffers first, so that they keep their parameter names.
        let mut resources = String::new();
        for (ab, ca) in b.arrays.iter().zip(&b.cbuffer.arrays) {
            let v = params[ab.param_index];
            let buf = self.names.fresh(&ab.param);
            let _ = writeln!(
                resources,
                "[[vk::binding({}, {})]] RWByteAddressBuffer {buf} : register(u{});",
                ab.binding, ab.set, ab.register
            );
            let shape = self.names.fresh(&format!("{}_shape", ab.param));
            let strides = self.names.fresh(&format!("{}_strides", ab.param));
            let _ = ca;
            self.arrays.insert(
                v,
                ArrayInfo {
                    buf,
                    shape,
                    strides,
                },
            );
        }
        if let Some(t) = &b.trap {
            let buf = self.names.fresh("weft_trap");
            let _ = writeln!(
                resources,
                "[[vk::binding({}, {})]] RWByteAddressBuffer {buf} : register(u{}); // trap record (bounds-checked mode)",
                t.binding, t.set, t.register
            );
            self.trap_buf = Some(buf);
        }
        self.out.clear();
        let fast = if self.opts.fast_math {
            " (fast math)"
        } else {
            ""
        };
        let mut prologue = Vec::new();
        prologue.push(format!(
            "uint weft_tid = {} + weft_id.x;",
            cb_word(CB_DISPATCH_BASE)
        ));
        prologue.push(format!("if (weft_tid >= {})", cb_word(CB_LAUNCH_TOTAL)));
        prologue.push("    return;".into());
        if self.uses_launch_dim(f.body) {
            prologue.push("int4 weft_dim = asint(weft_cb[0]);".into());
        }
        for (ab, ca) in b.arrays.iter().zip(&b.cbuffer.arrays) {
            let v = params[ab.param_index];
            let info = &self.arrays[&v];
            let (uses_shape, uses_strides) = self.array_uses(f.body, v);
            if uses_shape {
                prologue.push(format!(
                    "uint4 {} = weft_cb[{}];",
                    info.shape,
                    ca.shape_offset / 16
                ));
            }
            if uses_strides {
                prologue.push(format!(
                    "uint4 {} = weft_cb[{}];",
                    info.strides,
                    ca.strides_offset / 16
                ));
            }
        }
        for line in prologue {
            self.line(&line);
        }
        // Scalar, vector, matrix and struct parameters.
        for (i, &v) in params.iter().enumerate() {
            if self.vty(v).is_array() || !self.used.contains(&v) {
                continue;
            }
            let fields: Vec<_> = b
                .cbuffer
                .fields
                .iter()
                .filter(|fl| fl.param_index == i)
                .cloned()
                .collect();
            let t = self.vty(v);
            if let Type::Scalar(s) = t {
                let e = fields.first().map(|fl| self.cb_leaf(s, fl.offset));
                let e = e.ok_or_else(|| self.invalid("scalar parameter without a field"))?;
                self.def(v, e)?;
            } else {
                let name = self.decl(v)?;
                for fl in fields {
                    let (suf, _) = self.path_suffix(t, &fl.path)?;
                    let e = self.cb_leaf(fl.scalar, fl.offset);
                    self.line(&format!("{name}{suf} = {e};"));
                }
            }
        }
        self.region(f.body, RegionKind::Body)?;
        let mut body = String::new();
        if let Some(z) = &self.zero32 {
            let _ = writeln!(body, "    float {z} = asfloat({});", cb_word(CB_ZERO));
        }
        if let Some(z) = &self.zero64 {
            let _ = writeln!(
                body,
                "    double {z} = asdouble({}, {});",
                cb_word(CB_ZERO),
                cb_word(CB_ZERO + 4)
            );
        }
        body.push_str(&std::mem::take(&mut self.out));
        let mut s = String::new();
        let src = self.file_of(f.loc);
        let _ = writeln!(
            s,
            "// Kernel `{}`{} compiled by weft-backend-hlsl{fast}.",
            f.name,
            if src.is_empty() {
                String::new()
            } else {
                format!(" ({src}:{})", f.loc.line)
            }
        );
        let _ = writeln!(s, "// D3D12: dxc -T cs_6_0 -E main -rootsig-define WEFT_ROOT_SIGNATURE; Vulkan: glslangValidator -D -V -S comp -e main -DWEFT_GLSLANG=1");
        let _ = writeln!(
            s,
            "// Constant buffer b0 (set 0, binding 0): {} bytes, see the binding layout.",
            b.total_cbuffer_size
        );
        let n_uav = b.arrays.len() + usize::from(b.trap.is_some());
        let table = if n_uav == 0 {
            String::new()
        } else {
            format!(", DescriptorTable(UAV(u0, numDescriptors = {n_uav}))")
        };
        let _ = writeln!(s, "#define WEFT_ROOT_SIGNATURE \"CBV(b0){table}\"");
        s.push('\n');
        s.push_str(&self.type_defs);
        let _ = writeln!(
            s,
            "[[vk::binding({}, {})]] cbuffer weft_params : register(b{})\n{{\n    uint4 weft_cb[{}];\n}};\n",
            b.cbuffer_binding,
            b.cbuffer_set,
            b.cbuffer_register,
            b.total_cbuffer_size / 16
        );
        if !resources.is_empty() {
            s.push_str(&resources);
            s.push('\n');
        }
        s.push_str(&self.helpers.text());
        let _ = writeln!(
            s,
            "[numthreads({}, 1, 1)]\nvoid main(uint3 weft_id : SV_DispatchThreadID)\n{{",
            self.opts.group_size
        );
        s.push_str(&body);
        s.push_str("}\n");
        Ok(s)
    }

    /// A float constant ±0.0 as the opaque zero of the constant buffer
    /// (`CB_ZERO`): lavapipe folds `x + 0.0` to `x` and `0.0 + x` (also
    /// after unrolling an accumulation from 0.0) in spite of
    /// `SignedZeroInfNanPreserve`, which is wrong for `x = -0.0`; it also
    /// folds `x * 0.0` to 0.0 and drops or miscomputes `x / 0.0`. A zero
    /// the compilers cannot see has none of these problems.
    fn float_zero(&mut self, c: Const) -> Option<String> {
        if !c.ty.is_float() || f64::from_bits(c.bits) != 0.0 {
            return None;
        }
        let neg = f64::from_bits(c.bits).is_sign_negative();
        let name = if c.ty == Scalar::F64 {
            self.zero64
                .get_or_insert_with(|| self.names.fresh("weft_zero64"))
                .clone()
        } else {
            self.zero32
                .get_or_insert_with(|| self.names.fresh("weft_zero32"))
                .clone()
        };
        Some(if neg { format!("(-{name})") } else { name })
    }

    fn cb_leaf(&mut self, s: Scalar, off: u32) -> String {
        let w = cb_word(off);
        match s {
            Scalar::Bool => format!("({w} != 0u)"),
            Scalar::I8 | Scalar::I16 | Scalar::I32 => format!("asint({w})"),
            Scalar::U8 | Scalar::U16 | Scalar::U32 => w,
            Scalar::F16 => format!("f16tof32({w})"),
            Scalar::F32 => format!("asfloat({w})"),
            Scalar::I64 | Scalar::U64 => format!("uint2({w}, {})", cb_word(off + 4)),
            Scalar::F64 => format!("asdouble({w}, {})", cb_word(off + 4)),
        }
    }

    fn walk(&self, r: Region, visit: &mut dyn FnMut(&InstKind)) {
        for &i in &self.f.regions[r].insts {
            let k = &self.f.insts[i].kind;
            visit(k);
            for sub in k.regions() {
                self.walk(sub, visit);
            }
        }
    }

    fn uses_launch_dim(&self, r: Region) -> bool {
        let mut found = false;
        self.walk(r, &mut |k| found |= matches!(k, InstKind::LaunchDim(_)));
        found
    }

    fn array_uses(&self, r: Region, a: Value) -> (bool, bool) {
        let (mut shape, mut strides) = (false, false);
        self.walk(r, &mut |k| match k {
            InstKind::ArrayShape(x, _) => shape |= self.array_of.get(x) == Some(&a),
            InstKind::Load(m) | InstKind::Store(m, _) | InstKind::Atomic(_, m, _) => {
                strides |= self.array_of.get(&m.array) == Some(&a)
            }
            _ => {}
        });
        (shape, strides)
    }

    // ---------------------------------------------------------------- regions

    fn region(&mut self, r: Region, kind: RegionKind) -> R<()> {
        let insts = self.f.regions[r].insts.clone();
        let n = insts.len();
        for (idx, i) in insts.into_iter().enumerate() {
            let last = idx + 1 == n;
            self.inst(i, &kind, last)?;
        }
        Ok(())
    }

    fn inst(&mut self, i: Inst, kind: &RegionKind, last: bool) -> R<()> {
        let data = &self.f.insts[i];
        let loc = data.loc;
        let k = data.kind.clone();
        let res: Vec<Value> = data.results.to_vec();
        let one = res.first().copied();
        self.flags = if self.f.accepts_math_flags(i) {
            let module_wide = if self.opts.fast_math {
                MathFlags::CONTRACT | MathFlags::APPROX_FUNC
            } else {
                MathFlags::NONE
            };
            data.flags | module_wide
        } else {
            MathFlags::NONE
        };
        match &k {
            InstKind::Const(c) => {
                if let Some(v) = one {
                    let e = self.float_zero(*c).unwrap_or_else(|| const_lit(*c));
                    self.val.insert(v, e);
                }
                return Ok(());
            }
            InstKind::Extract(a, path) => {
                let (suf, _) = self.path_suffix(self.vty(*a), path)?;
                let base = self.v(*a)?;
                if let Some(v) = one {
                    self.val.insert(v, format!("{base}{suf}"));
                }
                return Ok(());
            }
            // The body's final `return` is the end of `main`.
            InstKind::Return(vs) if vs.is_empty() && last && *kind == RegionKind::Body => {
                return Ok(());
            }
            _ => {}
        }
        self.loc(loc);
        let need = |e: &Emitter| one.ok_or_else(|| e.invalid("instruction without a result"));
        match k {
            InstKind::Const(_) | InstKind::Extract(..) => {}
            InstKind::Unary(op, x) => {
                let s = self.scalar_of(x)?;
                let e = self.unary(op, s, self.v(x)?, loc)?;
                self.def(need(self)?, e)?;
            }
            InstKind::Binary(op, a, b) => {
                let s = self.scalar_of(a)?;
                let e = self.binary(op, s, self.v(a)?, self.v(b)?, loc)?;
                self.def(need(self)?, e)?;
            }
            InstKind::Fma(a, b, c) => {
                let s = self.scalar_of(a)?;
                let (a, b, c) = (self.v(a)?, self.v(b)?, self.v(c)?);
                let e = match s {
                    // `contract`: fused or not, as the device likes.
                    _ if self.allows(MathFlags::CONTRACT) && s != Scalar::F64 => {
                        format!("mad({a}, {b}, {c})")
                    }
                    Scalar::F16 => format!("{}({a} * {b} + {c})", self.helpers.call("weft_f16")),
                    Scalar::F32 => format!("(float)((double){a} * (double){b} + (double){c})"),
                    Scalar::F64 => format!("fma({a}, {b}, {c})"),
                    _ => return Err(self.invalid("fma of a non-float")),
                };
                self.def(need(self)?, e)?;
            }
            InstKind::Cast(x, to) => {
                let from = self.scalar_of(x)?;
                let e = self.cast(self.v(x)?, from, to);
                self.def(need(self)?, e)?;
            }
            InstKind::Bitcast(x, to) => {
                let from = self.scalar_of(x)?;
                let e = self.bitcast(self.v(x)?, from, to)?;
                self.def(need(self)?, e)?;
            }
            InstKind::Select(c, a, b) => {
                let v = need(self)?;
                let (c, a, b) = (self.v(c)?, self.v(a)?, self.v(b)?);
                if self.vty(v).is_scalar() {
                    self.def(v, format!("({c} ? {a} : {b})"))?;
                } else {
                    self.def(v, b)?;
                    let name = self.v(v)?;
                    self.line(&format!("if ({c})"));
                    self.line(&format!("    {name} = {a};"));
                }
            }
            InstKind::Make(t, comps) => {
                let v = need(self)?;
                let args = comps.iter().map(|&c| self.v(c)).collect::<R<Vec<_>>>()?;
                let native = match t {
                    Type::Vec(n, s) => native_vec(n, s),
                    Type::Quat(s) => native_vec(4, s),
                    Type::Mat(r, c, s) => native_mat(r, c, s),
                    _ => false,
                };
                if native {
                    let tn = self.ty(t)?;
                    self.def(v, format!("{tn}({})", args.join(", ")))?;
                } else {
                    let name = self.decl(v)?;
                    for (i, a) in args.iter().enumerate() {
                        let (suf, _) = self.component(t, i as u32)?;
                        self.line(&format!("{name}{suf} = {a};"));
                    }
                }
            }
            InstKind::Insert(a, path, x) => {
                let v = need(self)?;
                let (suf, _) = self.path_suffix(self.vty(a), &path)?;
                let (a, x) = (self.v(a)?, self.v(x)?);
                self.def(v, a)?;
                let name = self.v(v)?;
                self.line(&format!("{name}{suf} = {x};"));
            }
            InstKind::ThreadId => self.def(need(self)?, "(int)weft_tid".into())?,
            InstKind::LaunchDim(axis) => {
                let e = match axis {
                    0..=3 => format!("weft_dim.{}", XYZW[axis as usize]),
                    _ => "1".into(),
                };
                self.def(need(self)?, e)?;
            }
            InstKind::ArrayShape(a, axis) => {
                let info = self
                    .array_info(a)
                    .ok_or_else(|| self.invalid("shape of a non-parameter array"))?;
                let e = format!("(int){}.{}", info.shape, XYZW[(axis & 3) as usize]);
                self.def(need(self)?, e)?;
            }
            InstKind::Load(mem) => {
                let v = need(self)?;
                self.load(v, &mem)?;
            }
            InstKind::Store(mem, x) => self.store(&mem, x)?,
            InstKind::Atomic(op, mem, x) => {
                let v = need(self)?;
                self.atomic(op, v, &mem, x, loc)?;
            }
            InstKind::Call(..) => {
                return Err(self.invalid("a call (run the inliner before the HLSL backend)"))
            }
            InstKind::Print(fmt, _) => {
                let fmt = fmt.escape_default().to_string();
                self.line(&format!(
                    "// print(\"{fmt}\") is not supported in shaders: omitted"
                ));
            }
            InstKind::If {
                cond,
                then_region,
                else_region,
            } => {
                for &r in &res {
                    if !self.vty(r).is_array() {
                        self.decl(r)?;
                    }
                }
                let c = self.v(cond)?;
                let then_empty = self.is_empty_yield(then_region);
                let else_empty = self.is_empty_yield(else_region);
                match (then_empty, else_empty) {
                    (true, true) => {}
                    (false, true) => {
                        self.line(&format!("if ({c})"));
                        self.block(then_region, RegionKind::If(res.clone()))?;
                    }
                    (true, false) => {
                        self.line(&format!("if (!{c})"));
                        self.block(else_region, RegionKind::If(res.clone()))?;
                    }
                    (false, false) => {
                        self.line(&format!("if ({c})"));
                        self.block(then_region, RegionKind::If(res.clone()))?;
                        self.line("else");
                        self.block(else_region, RegionKind::If(res.clone()))?;
                    }
                }
            }
            InstKind::Loop { init, body } => {
                let params = self.f.regions[body].params.clone();
                if params.len() != init.len() {
                    return Err(self.invalid("loop params differ from its init values"));
                }
                for (&p, &x) in params.iter().zip(&init) {
                    if self.vty(p).is_array() {
                        continue;
                    }
                    let e = self.v(x)?;
                    self.def(p, e)?;
                }
                for &r in &res {
                    if !self.vty(r).is_array() {
                        self.decl(r)?;
                    }
                }
                self.line("[loop] for (;;)");
                self.loops.push(LoopVars {
                    params,
                    results: res.clone(),
                });
                let r = self.block(body, RegionKind::Loop);
                self.loops.pop();
                r?;
            }
            InstKind::Yield(vs) => {
                let RegionKind::If(targets) = kind else {
                    return Err(self.invalid("yield outside an if"));
                };
                self.assign(targets, &vs)?;
            }
            InstKind::Continue(vs) => {
                let lv = self
                    .loops
                    .last()
                    .ok_or_else(|| self.invalid("continue outside a loop"))?;
                let targets = lv.params.clone();
                self.assign(&targets, &vs)?;
                if !(last && *kind == RegionKind::Loop) {
                    self.line("continue;");
                }
            }
            InstKind::Break(vs) => {
                let lv = self
                    .loops
                    .last()
                    .ok_or_else(|| self.invalid("break outside a loop"))?;
                let targets = lv.results.clone();
                self.assign(&targets, &vs)?;
                self.line("break;");
            }
            InstKind::Return(vs) => {
                if !vs.is_empty() {
                    return Err(self.invalid("a kernel returning values"));
                }
                self.line("return;");
            }
            InstKind::Trap(kind, vs) => self.trap(kind, &vs, loc)?,
        }
        Ok(())
    }

    /// `Trap`: the first failing thread (compare-exchange of the record's
    /// flag 0 → 1) writes the trap record (see `TrapBinding`); every failing
    /// thread then returns, touching nothing else.
    fn trap(&mut self, kind: TrapKind, vs: &[Value], loc: Loc) -> R<()> {
        let buf = self
            .trap_buf
            .clone()
            .ok_or_else(|| self.invalid("a trap without a trap record"))?;
        let mut ops = Vec::new();
        for k in 0..2 {
            let e = match vs.get(k) {
                Some(&v) => {
                    let s = self.scalar_of(v)?;
                    if !s.is_int() {
                        return Err(self.invalid("a trap operand that is not an integer"));
                    }
                    self.cast(self.v(v)?, s, Scalar::I64)
                }
                None => "uint2(0u, 0u)".to_string(),
            };
            ops.push(e);
        }
        let prev = self.names.fresh("weft_trap_prev");
        self.line(&format!("uint {prev};"));
        self.line(&format!(
            "{buf}.InterlockedCompareExchange(0u, 0u, 1u, {prev});"
        ));
        self.line(&format!("if ({prev} == 0u)"));
        self.line("{");
        self.indent += 1;
        self.line(&format!(
            "{buf}.Store4(4u, uint4({}u, {}u, {}u, {}u));",
            kind.code(),
            loc.file,
            loc.line,
            loc.col
        ));
        self.line(&format!("{buf}.Store(20u, weft_tid);"));
        self.line(&format!(
            "{buf}.Store4(24u, uint4({}, {}));",
            ops[0], ops[1]
        ));
        self.indent -= 1;
        self.line("}");
        self.line("return;");
        Ok(())
    }

    fn is_empty_yield(&self, r: Region) -> bool {
        let insts = &self.f.regions[r].insts;
        insts.len() == 1
            && matches!(&self.f.insts[insts[0]].kind, InstKind::Yield(v) if v.is_empty())
    }

    fn block(&mut self, r: Region, kind: RegionKind) -> R<()> {
        self.line("{");
        self.indent += 1;
        let res = self.region(r, kind);
        self.indent -= 1;
        self.line("}");
        res
    }

    /// The value an inline expression of `v` reads (through `extract`s).
    fn root(&self, mut v: Value) -> Value {
        while let ValueDef::Result(i, _) = self.f.values[v].def {
            match &self.f.insts[i].kind {
                InstKind::Extract(a, _) => v = *a,
                _ => break,
            }
        }
        v
    }

    /// `targets[i] = vs[i]` as one parallel assignment. Arrays have no
    /// variables (each stands for its kernel parameter, `array_of`).
    fn assign(&mut self, targets: &[Value], vs: &[Value]) -> R<()> {
        if targets.len() != vs.len() {
            return Err(self.invalid("wrong number of values for a region exit"));
        }
        let (targets, vs): (Vec<Value>, Vec<Value>) = targets
            .iter()
            .zip(vs)
            .filter(|(&t, _)| !self.vty(t).is_array())
            .map(|(&t, &v)| (t, v))
            .unzip();
        let (targets, vs) = (&targets[..], &vs[..]);
        let conflict = vs.iter().enumerate().any(|(i, &v)| {
            let r = self.root(v);
            targets[..i].contains(&r)
        });
        let mut exprs = Vec::new();
        for (&t, &v) in targets.iter().zip(vs) {
            let e = self.v(v)?;
            let name = self.v(t)?;
            if e == name {
                exprs.push(None);
                continue;
            }
            if conflict {
                let ty = self.ty(self.vty(t))?;
                let tmp = self.names.fresh(&format!("{name}_next"));
                self.line(&format!("{ty} {tmp} = {e};"));
                exprs.push(Some((name, tmp)));
            } else {
                exprs.push(Some((name, e)));
            }
        }
        for (name, e) in exprs.into_iter().flatten() {
            self.line(&format!("{name} = {e};"));
        }
        Ok(())
    }

    // ---------------------------------------------------------------- scalar ops

    fn f16(&mut self, s: Scalar, e: String) -> String {
        if s == Scalar::F16 {
            format!("{}({e})", self.helpers.call("weft_f16"))
        } else {
            e
        }
    }

    fn unary(&mut self, op: UnaryOp, s: Scalar, x: String, loc: Loc) -> R<String> {
        use UnaryOp::*;
        let h = |e: &mut Self, n: &'static str| e.helpers.call(n);
        if s.is_float() {
            let d = s == Scalar::F64;
            let e = match op {
                Neg => format!("(-{x})"),
                Abs => format!("abs({x})"),
                IsNan | IsInf | IsFinite => {
                    let n: &'static str = match (op, d) {
                        (IsNan, false) => "weft_isnan32",
                        (IsNan, true) => "weft_isnan64",
                        (IsInf, false) => "weft_isinf32",
                        (IsInf, true) => "weft_isinf64",
                        (_, false) => "weft_isfinite32",
                        (_, true) => "weft_isfinite64",
                    };
                    return Ok(format!("{}({x})", h(self, n)));
                }
                Sqrt if d => format!("{}({x})", h(self, "weft_sqrt64")),
                Floor | Ceil | Trunc | Round | Rint if d => {
                    let n = match op {
                        Floor => "weft_floor64",
                        Ceil => "weft_ceil64",
                        Trunc => "weft_trunc64",
                        Round => "weft_round64",
                        _ => "weft_rint64",
                    };
                    format!("{}({x})", h(self, n))
                }
                Round => format!("{}({x})", h(self, "weft_round32")),
                Rint => format!("{}({x})", h(self, "weft_rint32")),
                _ if d => {
                    return Err(self.unsupported(
                        format!("{} on float64 (HLSL has no double-precision {op:?}; float32 would lose precision)", format!("{op:?}").to_lowercase()),
                        loc,
                    ))
                }
                // `afn`: the intrinsics, without the exactness helpers.
                // (asin/acos keep NaN outside [-1, 1] unless `nnan`).
                Asin | Acos
                    if self.allows(MathFlags::APPROX_FUNC)
                        && !self.allows(MathFlags::NO_NANS) =>
                {
                    let n = if op == Asin {
                        "weft_asin32_afn"
                    } else {
                        "weft_acos32_afn"
                    };
                    format!("{}({x})", h(self, n))
                }
                Log | Log2 | Log10 | Exp | Asin | Acos | Atan
                    if self.allows(MathFlags::APPROX_FUNC) =>
                {
                    format!("{}({x})", format!("{op:?}").to_lowercase())
                }
                Log => format!("{}({x})", h(self, "weft_log32")),
                Log2 => format!("{}({x})", h(self, "weft_log2_32")),
                Log10 => format!("{}({x})", h(self, "weft_log10_32")),
                Exp => format!("{}({x})", h(self, "weft_exp32")),
                Sqrt | Floor | Ceil | Trunc | Sin | Cos | Tan | Sinh | Cosh | Tanh | Exp2 => {
                    format!("{}({x})", format!("{op:?}").to_lowercase())
                }
                Cbrt => format!("{}({x})", h(self, "weft_cbrt32")),
                Asin => format!("{}({x})", h(self, "weft_asin32")),
                Acos => format!("{}({x})", h(self, "weft_acos32")),
                Atan => format!("{}({x})", h(self, "weft_atan32")),
                Erf => format!("{}({x})", h(self, "weft_erf32")),
                Erfc => format!("{}({x})", h(self, "weft_erfc32")),
                Erfinv => format!("{}({x})", h(self, "weft_erfinv32")),
                Not | Popcount => return Err(self.invalid(format!("{op:?} on a float"))),
            };
            return Ok(self.f16(s, e));
        }
        if s == Scalar::Bool {
            return match op {
                Not => Ok(format!("(!{x})")),
                IsNan | IsInf => Ok("false".into()),
                IsFinite => Ok("true".into()),
                Abs | Floor | Ceil | Trunc | Round | Rint => Ok(x),
                _ => Err(self.invalid(format!("{op:?} on bool"))),
            };
        }
        if is_wide_int(s) {
            return Ok(match op {
                Neg => format!("{}({x})", h(self, "weft_i64_neg")),
                Not => format!("(~{x})"),
                Abs if s == Scalar::I64 => format!("{}({x})", h(self, "weft_i64_abs")),
                Popcount => format!("{}({x})", h(self, "weft_i64_popcount")),
                IsNan | IsInf => "false".into(),
                IsFinite => "true".into(),
                Abs | Floor | Ceil | Trunc | Round | Rint => x,
                _ => return Err(self.invalid(format!("{op:?} on an integer"))),
            });
        }
        let signed = s.is_signed_int();
        Ok(match op {
            Neg if signed => wrap(s, format!("(-{x})")),
            Neg => wrap(s, format!("(0u - {x})")),
            Not => wrap(s, format!("(~{x})")),
            Abs if signed => wrap(s, format!("abs({x})")),
            Popcount => {
                let mask = match s.bits() {
                    8 => "0xffu",
                    16 => "0xffffu",
                    _ => "0xffffffffu",
                };
                if signed {
                    format!("(int)countbits((uint){x} & {mask})")
                } else {
                    format!("countbits({x})")
                }
            }
            IsNan | IsInf => "false".into(),
            IsFinite => "true".into(),
            Abs | Floor | Ceil | Trunc | Round | Rint => x,
            _ => return Err(self.invalid(format!("{op:?} on an integer"))),
        })
    }

    fn binary(&mut self, op: BinaryOp, s: Scalar, a: String, b: String, loc: Loc) -> R<String> {
        use BinaryOp::*;
        let infix = |o: &str| format!("({a} {o} {b})");
        if s.is_float() {
            let d = s == Scalar::F64;
            let e = match op {
                Add => infix("+"),
                Sub => infix("-"),
                // Float zero constants are opaque (`float_zero`), so no
                // compiler folds `x * 0.0`, `x / 0.0` or `x + 0.0`.
                Mul => infix("*"),
                Div => infix("/"),
                Rem => {
                    let n = if d { "weft_fmod64" } else { "weft_fmod32" };
                    format!("{}({a}, {b})", self.helpers.call(n))
                }
                // `nnan`: the hardware min/max (undefined on NaN).
                Min | Max if self.allows(MathFlags::NO_NANS) => {
                    format!("{}({a}, {b})", if op == Min { "min" } else { "max" })
                }
                Min | Max => {
                    let n = match (op, d) {
                        (Min, false) => "weft_fmin32",
                        (Min, true) => "weft_fmin64",
                        (_, false) => "weft_fmax32",
                        (_, true) => "weft_fmax64",
                    };
                    format!("{}({a}, {b})", self.helpers.call(n))
                }
                Copysign => {
                    let n = if d { "weft_copysign64" } else { "weft_copysign32" };
                    format!("{}({a}, {b})", self.helpers.call(n))
                }
                Pow | Atan2 if d => {
                    return Err(self.unsupported(
                        format!(
                            "{} on float64 (HLSL has no double-precision {}; float32 would lose precision)",
                            if op == Pow { "pow" } else { "atan2" },
                            if op == Pow { "pow" } else { "atan2" }
                        ),
                        loc,
                    ))
                }
                Pow if self.allows(MathFlags::NO_NANS | MathFlags::NO_INFS) => {
                    format!("{}({a}, {b})", self.helpers.call("weft_pow32_fast"))
                }
                Pow => format!("{}({a}, {b})", self.helpers.call("weft_pow32")),
                Atan2 if self.allows(MathFlags::APPROX_FUNC) => {
                    format!("{}({a}, {b})", self.helpers.call("weft_atan2_32_afn"))
                }
                Atan2 => format!("{}({a}, {b})", self.helpers.call("weft_atan2_32")),
                Eq => return Ok(infix("==")),
                Ne if self.allows(MathFlags::NO_NANS) => return Ok(infix("!=")),
                Ne => return Ok(format!("(!({a} == {b}))")),
                Lt => return Ok(infix("<")),
                Le => return Ok(infix("<=")),
                Gt => return Ok(infix(">")),
                Ge => return Ok(infix(">=")),
                And | Or | Xor | Shl | Shr => return Err(self.invalid(format!("{op:?} on floats"))),
            };
            return Ok(self.f16(s, e));
        }
        if s == Scalar::Bool {
            return Ok(match op {
                And | Min | Mul => infix("&&"),
                Or | Max => infix("||"),
                Xor | Ne => infix("!="),
                Eq => infix("=="),
                Lt => format!("((int){a} < (int){b})"),
                Le => format!("((int){a} <= (int){b})"),
                Gt => format!("((int){a} > (int){b})"),
                Ge => format!("((int){a} >= (int){b})"),
                _ => return Err(self.invalid(format!("{op:?} on bools"))),
            });
        }
        let signed = s.is_signed_int();
        if is_wide_int(s) {
            let call = |e: &mut Self, n: &'static str| format!("{}({a}, {b})", e.helpers.call(n));
            let lt = if signed { "weft_i64_lt" } else { "weft_u64_lt" };
            return Ok(match op {
                Add => call(self, "weft_i64_add"),
                Sub => call(self, "weft_i64_sub"),
                Mul => call(self, "weft_i64_mul"),
                Div => call(
                    self,
                    if signed {
                        "weft_i64_div"
                    } else {
                        "weft_u64_div"
                    },
                ),
                Rem => call(
                    self,
                    if signed {
                        "weft_i64_rem"
                    } else {
                        "weft_u64_rem"
                    },
                ),
                Min => call(
                    self,
                    if signed {
                        "weft_i64_min"
                    } else {
                        "weft_u64_min"
                    },
                ),
                Max => call(
                    self,
                    if signed {
                        "weft_i64_max"
                    } else {
                        "weft_u64_max"
                    },
                ),
                And => infix("&"),
                Or => infix("|"),
                Xor => infix("^"),
                Shl => format!("{}({a}, {b}.x)", self.helpers.call("weft_i64_shl")),
                Shr => {
                    let n = if signed {
                        "weft_i64_shr"
                    } else {
                        "weft_u64_shr"
                    };
                    format!("{}({a}, {b}.x)", self.helpers.call(n))
                }
                Eq => call(self, "weft_i64_eq"),
                Ne => format!("(!{})", call(self, "weft_i64_eq")),
                Lt => call(self, lt),
                Gt => format!("{}({b}, {a})", self.helpers.call(lt)),
                Le => format!("(!{}({b}, {a}))", self.helpers.call(lt)),
                Ge => format!("(!{}({a}, {b}))", self.helpers.call(lt)),
                Pow | Atan2 | Copysign => return Err(self.invalid(format!("{op:?} on integers"))),
            });
        }
        let width_mask = s.bits() - 1;
        Ok(match op {
            Add => wrap(s, infix("+")),
            Sub => wrap(s, infix("-")),
            Mul => wrap(s, infix("*")),
            Div | Rem => {
                let n = match (op, signed) {
                    (Div, true) => "weft_div_i32",
                    (Div, false) => "weft_div_u32",
                    (_, true) => "weft_rem_i32",
                    (_, false) => "weft_rem_u32",
                };
                wrap(s, format!("{}({a}, {b})", self.helpers.call(n)))
            }
            Min => format!("min({a}, {b})"),
            Max => format!("max({a}, {b})"),
            And => infix("&"),
            Or => infix("|"),
            Xor => infix("^"),
            Shl => wrap(s, format!("({a} << ((uint){b} & {width_mask}u))")),
            Shr => format!("({a} >> ((uint){b} & {width_mask}u))"),
            Eq => infix("=="),
            Ne => infix("!="),
            Lt => infix("<"),
            Le => infix("<="),
            Gt => infix(">"),
            Ge => infix(">="),
            Pow | Atan2 | Copysign => return Err(self.invalid(format!("{op:?} on integers"))),
        })
    }

    fn cast(&mut self, x: String, from: Scalar, to: Scalar) -> String {
        use Scalar::*;
        if from == to {
            return x;
        }
        let h = |e: &mut Self, n: &'static str| e.helpers.call(n);
        match (from, to) {
            (_, Bool) => match from {
                F16 | F32 | F64 => format!("(!({x} == 0.0))"),
                I64 | U64 => format!("(({x}.x | {x}.y) != 0u)"),
                _ => format!("({x} != 0)"),
            },
            (Bool, F64) => format!("({x} ? 1.0L : 0.0L)"),
            (Bool, F16 | F32) => format!("({x} ? 1.0 : 0.0)"),
            (Bool, I64 | U64) => format!("uint2({x} ? 1u : 0u, 0u)"),
            (Bool, _) if to.is_signed_int() => format!("({x} ? 1 : 0)"),
            (Bool, _) => format!("({x} ? 1u : 0u)"),
            // int -> int
            (I64 | U64, I64 | U64) => x,
            (I64 | U64, _) if to.is_int() => {
                let lo = format!("{x}.x");
                wrap(
                    to,
                    if to.is_signed_int() {
                        format!("(int){lo}")
                    } else {
                        lo
                    },
                )
            }
            (_, I64 | U64) if from.is_int() => {
                if from.is_signed_int() {
                    format!("uint2((uint){x}, {x} < 0 ? 0xffffffffu : 0u)")
                } else {
                    format!("uint2({x}, 0u)")
                }
            }
            _ if from.is_int() && to.is_int() => {
                let c = if to.is_signed_int() {
                    format!("(int){x}")
                } else {
                    format!("(uint){x}")
                };
                if to.bits() < from.bits() || to.is_signed_int() != from.is_signed_int() {
                    wrap(to, c)
                } else {
                    c
                }
            }
            // int -> float
            (I64, _) | (U64, _) => {
                let n = if from == I64 {
                    "weft_i64_to_f64"
                } else {
                    "weft_u64_to_f64"
                };
                let d = format!("{}({x})", h(self, n));
                match to {
                    F64 => d,
                    F32 => format!("(float){d}"),
                    _ => format!("{}((float){d})", h(self, "weft_f16")),
                }
            }
            (_, F64) if from.is_int() => format!("(double){x}"),
            (_, F32) if from.is_int() => format!("(float){x}"),
            (_, F16) if from.is_int() => format!("{}((float){x})", h(self, "weft_f16")),
            // float -> float
            (F16, F32) => x,
            (F16 | F32, F64) => format!("(double){x}"),
            (F64, F32) => format!("(float){x}"),
            (F64, F16) => format!("{}((float){x})", h(self, "weft_f16")),
            (F32, F16) => format!("{}({x})", h(self, "weft_f16")),
            // float -> int
            _ => {
                let d = from == F64;
                match to {
                    I64 | U64 => {
                        let n = if to == I64 {
                            "weft_f64_to_i64"
                        } else {
                            "weft_f64_to_u64"
                        };
                        let arg = if d { x } else { format!("(double){x}") };
                        format!("{}({arg})", h(self, n))
                    }
                    _ => {
                        let n = match (d, to.is_signed_int()) {
                            (false, true) => "weft_f32_to_i32",
                            (false, false) => "weft_f32_to_u32",
                            (true, true) => "weft_f64_to_i32",
                            (true, false) => "weft_f64_to_u32",
                        };
                        let c = format!("{}({x})", h(self, n));
                        match to {
                            I8 => format!("clamp({c}, -128, 127)"),
                            I16 => format!("clamp({c}, -32768, 32767)"),
                            U8 => format!("min({c}, 255u)"),
                            U16 => format!("min({c}, 65535u)"),
                            _ => c,
                        }
                    }
                }
            }
        }
    }

    fn bitcast(&mut self, x: String, from: Scalar, to: Scalar) -> R<String> {
        use Scalar::*;
        if from.size() != to.size() || from == Bool || to == Bool {
            return Err(self.invalid(format!("bitcast {from} -> {to}")));
        }
        Ok(match (from, to) {
            _ if from == to => x,
            (F32, I32) => format!("asint({x})"),
            (F32, U32) => format!("asuint({x})"),
            (I32 | U32, F32) => format!("asfloat({x})"),
            (F64, I64 | U64) => format!("{}({x})", self.helpers.call("weft_bits64")),
            (I64 | U64, F64) => format!("asdouble({x}.x, {x}.y)"),
            (F16, U16) => format!("f32tof16({x})"),
            (F16, I16) => wrap(I16, format!("(int)f32tof16({x})")),
            (I16 | U16, F16) => format!("f16tof32((uint){x} & 0xffffu)"),
            _ => self.cast(x, from, to),
        })
    }

    // ---------------------------------------------------------------- memory

    /// The array info and the byte offset expression of element `mem.indices`.
    fn address(&mut self, mem: &MemAccess) -> R<(String, String, Type)> {
        let Type::Array(at) = self.vty(mem.array) else {
            return Err(self.invalid("memory access on a non-array"));
        };
        let info = self
            .array_info(mem.array)
            .ok_or_else(|| self.invalid("memory access on a non-parameter array"))?;
        let (buf, strides) = (info.buf.clone(), info.strides.clone());
        if mem.indices.len() != at.ndim as usize {
            return Err(self.invalid("wrong number of indices"));
        }
        let mut terms = Vec::new();
        for (axis, &ix) in mem.indices.iter().enumerate() {
            let e = self.v(ix)?;
            let s = self.scalar_of(ix)?;
            let u = if is_wide_int(s) {
                format!("{e}.x")
            } else {
                format!("(uint){e}")
            };
            terms.push(format!("{u} * {strides}.{}", XYZW[axis]));
        }
        let elem = Type::from(at.elem);
        let (off, t) = layout::path_offset(elem, &mem.path, &self.m.structs)
            .ok_or_else(|| self.invalid("bad access path"))?;
        if off != 0 {
            terms.push(format!("{off}u"));
        }
        Ok((buf, terms.join(" + "), t))
    }

    /// A name for an address used more than once.
    fn addr_var(&mut self, buf: &str, addr: String) -> String {
        let name = self.names.fresh(&format!("{buf}_at"));
        self.line(&format!("uint {name} = {addr};"));
        name
    }

    fn load_scalar(&mut self, buf: &str, off: &str, s: Scalar) -> String {
        match s.size() {
            4 => from_word(s, &format!("{buf}.Load({off})")),
            8 if s == Scalar::F64 => {
                format!("{}({buf}, {off})", self.helpers.call("weft_load_f64"))
            }
            8 => format!("{buf}.Load2({off})"),
            n => {
                let w = format!(
                    "{}({buf}, {off}, {}u)",
                    self.helpers.call("weft_load_bits"),
                    n * 8
                );
                match s {
                    Scalar::Bool => format!("({w} != 0u)"),
                    Scalar::I8 => format!("(((int){w} << 24) >> 24)"),
                    Scalar::I16 => format!("(((int){w} << 16) >> 16)"),
                    Scalar::F16 => format!("f16tof32({w})"),
                    _ => w,
                }
            }
        }
    }

    fn store_scalar(&mut self, buf: &str, off: &str, s: Scalar, x: &str) {
        let line = match s.size() {
            4 => format!("{buf}.Store({off}, asuint({x}));"),
            8 if s == Scalar::F64 => {
                format!(
                    "{buf}.Store2({off}, {}({x}));",
                    self.helpers.call("weft_bits64")
                )
            }
            8 => format!("{buf}.Store2({off}, {x});"),
            n => {
                let bits = match s {
                    Scalar::Bool => format!("({x} ? 1u : 0u)"),
                    Scalar::F16 => format!("f32tof16({x})"),
                    _ => format!("(uint){x}"),
                };
                format!(
                    "{}({buf}, {off}, {bits}, {}u);",
                    self.helpers.call("weft_store_bits"),
                    n * 8
                )
            }
        };
        self.line(&line);
    }

    /// For a native vector/quat of 32-bit scalars: its length.
    fn word_vector(t: Type) -> Option<(u8, Scalar)> {
        match t {
            Type::Vec(n, s) if native_vec(n, s) && s.size() == 4 => Some((n, s)),
            Type::Quat(s) if s.size() == 4 => Some((4, s)),
            _ => None,
        }
    }

    fn load(&mut self, v: Value, mem: &MemAccess) -> R<()> {
        let (buf, addr, t) = self.address(mem)?;
        if let Type::Scalar(s) = t {
            let e = self.load_scalar(&buf, &addr, s);
            return self.def(v, e);
        }
        if let Some((n, s)) = Self::word_vector(t) {
            let load = if n == 1 {
                "Load".to_string()
            } else {
                format!("Load{n}")
            };
            let e = from_word(s, &format!("{buf}.{load}({addr})"));
            let e = if n == 1 {
                format!("{}1({e})", scalar_base(s))
            } else {
                e
            };
            return self.def(v, e);
        }
        let addr = self.addr_var(&buf, addr);
        let name = self.decl(v)?;
        for leaf in layout::leaves(t, &self.m.structs) {
            let (suf, _) = self.path_suffix(t, &leaf.path)?;
            let off = if leaf.offset == 0 {
                addr.clone()
            } else {
                format!("{addr} + {}u", leaf.offset)
            };
            let e = self.load_scalar(&buf, &off, leaf.scalar);
            self.line(&format!("{name}{suf} = {e};"));
        }
        Ok(())
    }

    fn store(&mut self, mem: &MemAccess, x: Value) -> R<()> {
        let (buf, addr, t) = self.address(mem)?;
        let xe = self.v(x)?;
        if let Type::Scalar(s) = t {
            self.store_scalar(&buf, &addr, s, &xe);
            return Ok(());
        }
        if let Some((n, _)) = Self::word_vector(t) {
            let store = if n == 1 {
                "Store".to_string()
            } else {
                format!("Store{n}")
            };
            self.line(&format!("{buf}.{store}({addr}, asuint({xe}));"));
            return Ok(());
        }
        let addr = self.addr_var(&buf, addr);
        for leaf in layout::leaves(t, &self.m.structs) {
            let (suf, _) = self.path_suffix(t, &leaf.path)?;
            let off = if leaf.offset == 0 {
                addr.clone()
            } else {
                format!("{addr} + {}u", leaf.offset)
            };
            self.store_scalar(&buf, &off, leaf.scalar, &format!("{xe}{suf}"));
        }
        Ok(())
    }

    fn atomic(&mut self, op: AtomicOp, v: Value, mem: &MemAccess, x: Value, loc: Loc) -> R<()> {
        let (buf, addr, t) = self.address(mem)?;
        let xe = self.v(x)?;
        let result_used = self.used.contains(&v);
        let leaves = layout::leaves(t, &self.m.structs);
        for leaf in &leaves {
            let s = leaf.scalar;
            if s == Scalar::F64 {
                return Err(self.unsupported(
                    "float64 atomics (HLSL has no 64-bit compare-exchange in shader model 6.0)",
                    loc,
                ));
            }
            if is_wide_int(s)
                && (result_used
                    || !matches!(
                        op,
                        AtomicOp::Add
                            | AtomicOp::Sub
                            | AtomicOp::And
                            | AtomicOp::Or
                            | AtomicOp::Xor
                    ))
            {
                return Err(self.unsupported(
                    format!(
                        "64-bit integer atomic {op:?}{} (shader model 6.0 has 32-bit atomics only)",
                        if result_used {
                            " whose old value is used"
                        } else {
                            ""
                        }
                    )
                    .to_lowercase(),
                    loc,
                ));
            }
            if s == Scalar::Bool && matches!(op, AtomicOp::Add | AtomicOp::Sub) {
                return Err(self.invalid("atomic add on bool"));
            }
        }
        let addr = if leaves.len() > 1 {
            self.addr_var(&buf, addr)
        } else {
            addr
        };
        let old = self.decl(v)?;
        for leaf in &leaves {
            let (suf, _) = self.path_suffix(t, &leaf.path)?;
            let off = if leaf.offset == 0 {
                addr.clone()
            } else {
                format!("{addr} + {}u", leaf.offset)
            };
            self.atomic_leaf(
                op,
                &buf,
                &off,
                leaf.scalar,
                &format!("{xe}{suf}"),
                &format!("{old}{suf}"),
            )?;
        }
        Ok(())
    }

    /// One scalar atomic: `old = mem[off]; mem[off] = op(old, x)`.
    fn atomic_leaf(
        &mut self,
        op: AtomicOp,
        buf: &str,
        off: &str,
        s: Scalar,
        x: &str,
        old: &str,
    ) -> R<()> {
        if is_wide_int(s) {
            // Word-wise; only reached when the old value is unused.
            let d = if op == AtomicOp::Sub {
                format!("{}({x})", self.helpers.call("weft_i64_neg"))
            } else {
                x.to_string()
            };
            let tmp = self.names.fresh("weft_d");
            self.line(&format!("uint2 {tmp} = {d};"));
            let intr = match op {
                AtomicOp::And => "InterlockedAnd",
                AtomicOp::Or => "InterlockedOr",
                AtomicOp::Xor => "InterlockedXor",
                _ => "InterlockedAdd",
            };
            self.line(&format!("{buf}.{intr}({off}, {tmp}.x, {old}.x);"));
            if intr == "InterlockedAdd" {
                self.line(&format!(
                    "{buf}.InterlockedAdd({off} + 4u, {tmp}.y + ({old}.x + {tmp}.x < {old}.x ? 1u : 0u), {old}.y);"
                ));
            } else {
                self.line(&format!("{buf}.{intr}({off} + 4u, {tmp}.y, {old}.y);"));
            }
            return Ok(());
        }
        let native = s.size() == 4
            && s != Scalar::F32
            && match op {
                AtomicOp::Add
                | AtomicOp::Sub
                | AtomicOp::And
                | AtomicOp::Or
                | AtomicOp::Xor
                | AtomicOp::Exchange => true,
                AtomicOp::Min | AtomicOp::Max => s == Scalar::U32,
            };
        if native {
            let intr = match op {
                AtomicOp::Add | AtomicOp::Sub => "InterlockedAdd",
                AtomicOp::And => "InterlockedAnd",
                AtomicOp::Or => "InterlockedOr",
                AtomicOp::Xor => "InterlockedXor",
                AtomicOp::Exchange => "InterlockedExchange",
                AtomicOp::Min => "InterlockedMin",
                AtomicOp::Max => "InterlockedMax",
            };
            let val = if op == AtomicOp::Sub {
                format!("0u - asuint({x})")
            } else {
                format!("asuint({x})")
            };
            let o = self.names.fresh("weft_old");
            self.line(&format!("uint {o};"));
            self.line(&format!("{buf}.{intr}({off}, {val}, {o});"));
            self.line(&format!("{old} = {};", from_word(s, &o)));
            return Ok(());
        }
        // Compare-exchange loop on the containing word.
        let bop = match op {
            AtomicOp::Add => Some(BinaryOp::Add),
            AtomicOp::Sub => Some(BinaryOp::Sub),
            AtomicOp::Min => Some(BinaryOp::Min),
            AtomicOp::Max => Some(BinaryOp::Max),
            AtomicOp::And => Some(BinaryOp::And),
            AtomicOp::Or => Some(BinaryOp::Or),
            AtomicOp::Xor => Some(BinaryOp::Xor),
            AtomicOp::Exchange => None,
        };
        let word = self.names.fresh("weft_word");
        let shift = self.names.fresh("weft_shift");
        let cur = self.names.fresh("weft_cur");
        let sub = s.size() < 4;
        if sub {
            self.line(&format!("uint {word} = ({off}) & ~3u;"));
            self.line(&format!("uint {shift} = (({off}) & 3u) * 8u;"));
        } else {
            self.line(&format!("uint {word} = {off};"));
        }
        self.line(&format!("uint {cur} = {buf}.Load({word});"));
        self.line("[loop] for (;;)");
        self.line("{");
        self.indent += 1;
        let bits = if sub {
            format!("({cur} >> {shift})")
        } else {
            cur.clone()
        };
        let decoded = match s {
            Scalar::F32 => format!("asfloat({bits})"),
            Scalar::I32 => format!("asint({bits})"),
            Scalar::U32 => bits,
            Scalar::Bool => format!("(({bits} & 0xffu) != 0u)"),
            Scalar::I8 => format!("(((int){bits} << 24) >> 24)"),
            Scalar::U8 => format!("({bits} & 0xffu)"),
            Scalar::I16 => format!("(((int){bits} << 16) >> 16)"),
            Scalar::U16 => format!("({bits} & 0xffffu)"),
            Scalar::F16 => format!("f16tof32({bits})"),
            _ => return Err(self.invalid("atomic on a 64-bit scalar")),
        };
        self.line(&format!("{old} = {decoded};"));
        let new = match bop {
            Some(b) => self.binary(b, s, old.to_string(), x.to_string(), Loc::NONE)?,
            None => x.to_string(),
        };
        let enc = match s {
            Scalar::Bool => format!("({new} ? 1u : 0u)"),
            Scalar::F16 => format!("f32tof16({new})"),
            _ => format!("asuint({new})"),
        };
        let next = self.names.fresh("weft_next");
        if sub {
            let mask = if s.size() == 1 { "0xffu" } else { "0xffffu" };
            self.line(&format!(
                "uint {next} = ({cur} & ~({mask} << {shift})) | (({enc} & {mask}) << {shift});"
            ));
        } else {
            self.line(&format!("uint {next} = {enc};"));
        }
        let prev = self.names.fresh("weft_prev");
        self.line(&format!("uint {prev};"));
        self.line(&format!(
            "{buf}.InterlockedCompareExchange({word}, {cur}, {next}, {prev});"
        ));
        self.line(&format!("if ({prev} == {cur})"));
        self.line("    break;");
        self.line(&format!("{cur} = {prev};"));
        self.indent -= 1;
        self.line("}");
        Ok(())
    }
}

/// What a region's terminator assigns to.
#[derive(Clone, PartialEq, Eq)]
enum RegionKind {
    Body,
    If(Vec<Value>),
    Loop,
}
