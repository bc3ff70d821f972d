//! The verifier: checks every invariant of the IR.
//!
//! [`verify_module`] checks the module and each function; [`verify_function`]
//! checks one function against its module. The first broken invariant is
//! reported as a [`VerifyError`] naming the function, the instruction (in
//! text form, values numbered as by [`crate::text::print_function`]) and the
//! [`Rule`]. The verifier never panics, whatever the input.
//!
//! # Invariants
//!
//! Module level:
//! * [`Rule::UniqueFuncName`]: function names are unique (calls in the text
//!   form refer to functions by name).
//! * [`Rule::UniqueStructName`]: struct names are unique.
//! * [`Rule::StructDef`]: struct fields have well-formed, non-array types and
//!   no struct contains itself, directly or through other structs.
//!
//! Types (of values, params, returns, struct fields, `make`):
//! * [`Rule::TypeWellFormed`]: `vecN` has 1 ≤ N ≤ 16, `matRxC` has
//!   1 ≤ R, C ≤ 16, quaternions and transforms are of a float type, arrays
//!   have 1 ≤ ndim ≤ 4, struct ids exist.
//!
//! Function level:
//! * [`Rule::Signature`]: the body region exists and its params equal the
//!   function's params (count and types); kernels return nothing.
//! * [`Rule::LocFile`]: every location that is not `Loc::NONE` (the
//!   function's and every instruction's) indexes [`Module::files`].
//!
//! Structure:
//! * [`Rule::RegionOwnership`]: every region referenced exists, and each is
//!   reached once: it is the body or owned by exactly one instruction that is
//!   itself reached once. (Unreached arena entries are garbage left by
//!   passes and are ignored.)
//! * [`Rule::InstPlacement`]: every instruction referenced by a region
//!   exists and appears in one region, once.
//! * [`Rule::Terminator`]: every region ends in exactly one terminator
//!   (`yield`, `continue`, `break`, `return`) and has none before its end.
//! * [`Rule::IfRegions`]: the regions of an `if` have no params.
//!
//! Values:
//! * [`Rule::ValueDefinition`]: every value defined in the region tree exists
//!   in the arena, is defined exactly once (as a region param or an
//!   instruction result), and its recorded [`ValueDef`] says where.
//! * [`Rule::ValueVisibility`]: every operand is visible where it is used:
//!   defined earlier in the same region, or a param of it, or visible in the
//!   region enclosing it (a value defined inside an `if`/`loop` region is not
//!   visible after the `if`/`loop`; an instruction's results are not visible
//!   in its own regions).
//!
//! Control flow:
//! * [`Rule::Yield`]: `yield` ends only a region of an `if` (directly), and
//!   its values match the `if`'s result types.
//! * [`Rule::Continue`]: `continue` appears only inside a loop body (possibly
//!   through `if`s) and its values match the innermost loop body's param
//!   types.
//! * [`Rule::Break`]: likewise, with values matching the innermost loop's
//!   result types.
//! * [`Rule::Return`]: `return`'s values match the function's return types.
//! * [`Rule::LoopInit`]: a loop's init values match its body's param types.
//! * [`Rule::Trap`]: `trap oob AXIS` takes `(index: i64, size: i64)` with
//!   AXIS < 4; `trap divzero` takes nothing.
//!
//! Instructions (the typing rules of [`InstKind`]):
//! * [`Rule::ResultTypes`]: the number and types of results are those the
//!   instruction defines (terminators, `store` and `print` have none; `if`
//!   and `loop` results are checked through `yield`/`break`).
//! * [`Rule::OperandTypes`]: unary ops take a scalar (`not`: bool or integer;
//!   `popcount`: integer; `neg`/`abs`: integer or float; the others and the
//!   `is*` predicates: float); binary ops take two scalars of the same type
//!   (arithmetic, `min`, `max`: integer or float; `pow`, `atan2`,
//!   `copysign`: float; `and`/`or`/`xor`: integer or bool; shifts: integer;
//!   comparisons: any scalar); `fma` takes three floats of one type; `cast`
//!   a scalar; `bitcast` a non-bool scalar to a non-bool scalar of the same
//!   size; `select` a bool and two values of one non-array type; `make`
//!   builds an aggregate type from one value per component of the
//!   component's type; `print` takes non-array values; the `if` condition is
//!   bool.
//! * [`Rule::Path`]: `extract`/`insert` paths are non-empty and valid for the
//!   aggregate's type, and `insert`'s value has the component's type;
//!   memory-access paths are valid for the element type.
//! * [`Rule::ArrayAccess`]: `load`/`store`/`atomic`/`array_shape` operate on
//!   an array-typed value; memory accesses have one integer index per
//!   dimension; the stored value has the accessed type.
//! * [`Rule::Atomic`]: atomics operate on integer or float scalars or on
//!   aggregates made only of them; `and`/`or`/`xor` on integers only; the
//!   operand has the accessed type; `atomic_cas` on a 32- or 64-bit integer
//!   or float scalar, its compare and value operands of the accessed type.
//! * [`Rule::Axis`]: `array_shape` axis < the array's ndim; `launch_dim`
//!   axis < 4.
//! * [`Rule::Call`]: the callee exists and is a func (not a kernel); the
//!   arguments and results match its params and returns.
//! * [`Rule::ConstBits`]: a constant's bits are canonical for its type
//!   (integers sign/zero-extended, bool 0 or 1, floats exactly
//!   representable in their width; any NaN is accepted).
//! * [`Rule::MathFlags`]: only float `unary`, `binary` and `fma`
//!   instructions carry fast-math flags ([`MathFlags`]).
//! * [`Rule::Inplace`]: only `insert` carries the `inplace` mark
//!   ([`InstData::inplace`]).
//!
//! Autodiff (see `docs/autodiff.md`):
//! * [`Rule::CustomAdjoint`]: a [`Function::custom_adjoint`] is a func
//!   whose params are the func's params then one per return (the same
//!   types) and which returns one value per param of the param's type; the
//!   func has no array params. A [`Function::custom_replay`] is a func with
//!   the func's signature. Both are set on funcs only. A
//!   [`Function::grad_of`] `g` (`wp.grad`) is a func with `g`'s params (by
//!   value; `g` returns something and is no gradient itself) that returns
//!   one value per param, of the param's type.
//!
//! Layout (structure of arrays, see [`ArrayLayout`] and [`SoaParam`]):
//! * [`Rule::LayoutHint`]: each [`Function::layout_hints`] entry names an
//!   array param, at most one entry per param.
//! * [`Rule::SoaParam`]: [`Function::soa_params`] appear on kernels only;
//!   each names an existing param, at most once; its `elem` is an
//!   aggregate whose scalar leaves are all of one scalar type `S`; its
//!   `ndim` is in 1..=3; and the param's type is `array(S, ndim + 1)`.

use crate::info::ModuleInfo;
use crate::ir::*;
use crate::text::Numbering;
use crate::types::{Scalar, StructTable, Type, MAX_DIMS};
use cranelift_entity::SecondaryMap;
use std::cell::OnceCell;
use std::fmt;

/// An invariant of the IR (see the module docs for each rule).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    UniqueFuncName,
    UniqueStructName,
    StructDef,
    TypeWellFormed,
    Signature,
    LocFile,
    RegionOwnership,
    InstPlacement,
    Terminator,
    IfRegions,
    ValueDefinition,
    ValueVisibility,
    Yield,
    Continue,
    Break,
    Return,
    LoopInit,
    ResultTypes,
    OperandTypes,
    Path,
    ArrayAccess,
    Atomic,
    Axis,
    Call,
    ConstBits,
    Trap,
    MathFlags,
    Inplace,
    CustomAdjoint,
    LayoutHint,
    SoaParam,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::UniqueFuncName => "function names are unique",
            Rule::UniqueStructName => "struct names are unique",
            Rule::StructDef => "struct fields are well-formed, not arrays, not recursive",
            Rule::TypeWellFormed => "types are well-formed",
            Rule::Signature => "the body's params match the signature; kernels return nothing",
            Rule::LocFile => "locations index the module's files",
            Rule::RegionOwnership => "each region exists and is reached once",
            Rule::InstPlacement => "each instruction exists and is placed once",
            Rule::Terminator => "a region ends in exactly one terminator",
            Rule::IfRegions => "`if` regions have no params",
            Rule::ValueDefinition => "each value is defined exactly once",
            Rule::ValueVisibility => "values are used only where visible",
            Rule::Yield => "`yield` ends an `if` region with the `if`'s result types",
            Rule::Continue => "`continue` is in a loop and matches its body params",
            Rule::Break => "`break` is in a loop and matches its result types",
            Rule::Return => "`return` matches the function's return types",
            Rule::LoopInit => "loop init values match the body params",
            Rule::ResultTypes => "results match the instruction",
            Rule::OperandTypes => "operand types match the instruction",
            Rule::Path => "component paths are valid",
            Rule::ArrayAccess => "array accesses are well-typed",
            Rule::Atomic => "atomics operate on integers or floats",
            Rule::Axis => "axes are in range",
            Rule::Call => "calls match a func's signature",
            Rule::ConstBits => "constant bits are canonical for their type",
            Rule::Trap => "`trap` operands match its kind",
            Rule::MathFlags => "only float arithmetic carries fast-math flags",
            Rule::Inplace => "only `insert` is marked `inplace`",
            Rule::CustomAdjoint => "custom adjoints and replays match the func's signature",
            Rule::LayoutHint => "layout hints name array params, once each",
            Rule::SoaParam => "SoA params are kernel arrays of the element's scalar, ndim + 1 axes",
        })
    }
}

/// A broken invariant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct VerifyError {
    /// The function's name (empty for module-level rules).
    pub func: String,
    /// The offending instruction in text form, if the rule concerns one.
    pub inst: Option<String>,
    pub rule: Rule,
    /// What exactly is wrong.
    pub detail: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.func.is_empty() {
            write!(f, "in module")?;
        } else {
            write!(f, "in @{}", self.func)?;
        }
        if let Some(i) = &self.inst {
            write!(f, ", at `{i}`")?;
        }
        write!(f, ": {} (rule: {})", self.detail, self.rule)
    }
}

/// Checks the whole module: module-level rules, then every function; for a
/// module that passes, what the backends and the runtime may rely on
/// ([`ModuleInfo`]).
pub fn verify_module(m: &Module) -> Result<ModuleInfo, VerifyError> {
    let module_err = |rule, detail: String| VerifyError {
        func: String::new(),
        inst: None,
        rule,
        detail,
    };
    let mut names = std::collections::HashSet::new();
    for (_, f) in m.funcs.iter() {
        if !names.insert(f.name.as_str()) {
            return Err(module_err(
                Rule::UniqueFuncName,
                format!("function @{} is defined twice", f.name),
            ));
        }
    }
    let mut snames = std::collections::HashSet::new();
    for (_, d) in m.structs.iter() {
        if !snames.insert(d.name.as_str()) {
            return Err(module_err(
                Rule::UniqueStructName,
                format!("struct %{} is defined twice", d.name),
            ));
        }
    }
    for (id, d) in m.structs.iter() {
        for fd in &d.fields {
            if fd.ty.is_array() {
                return Err(module_err(
                    Rule::StructDef,
                    format!("field `{}` of struct %{} is an array", fd.name, d.name),
                ));
            }
            if let Err(e) = check_type(fd.ty, &m.structs) {
                return Err(module_err(
                    Rule::StructDef,
                    format!("field `{}` of struct %{}: {e}", fd.name, d.name),
                ));
            }
        }
        if contains_struct(m, id, id, 0) {
            return Err(module_err(
                Rule::StructDef,
                format!("struct %{} contains itself", d.name),
            ));
        }
    }
    for (_, f) in m.funcs.iter() {
        verify_function(m, f)?;
    }
    Ok(ModuleInfo::of(m))
}

/// True if struct `s` contains `target` (through fields, at any depth).
fn contains_struct(m: &Module, s: StructId, target: StructId, depth: usize) -> bool {
    if depth > m.structs.len() {
        return true; // a cycle not through `target`; reported from its own struct
    }
    m.structs.get(s).is_some_and(|d| {
        d.fields.iter().any(|f| match f.ty {
            Type::Struct(id) => id == target || contains_struct(m, id, target, depth + 1),
            _ => false,
        })
    })
}

/// Why a type is malformed.
fn check_type(ty: Type, structs: &StructTable) -> Result<(), String> {
    let ok_len = |n: u8| (1..=16).contains(&n);
    match ty {
        Type::Scalar(_) => Ok(()),
        Type::Vec(n, _) if !ok_len(n) => Err(format!("vector length {n} is not in 1..=16")),
        Type::Mat(r, c, _) if !ok_len(r) || !ok_len(c) => {
            Err(format!("matrix shape {r}x{c} is not within 1..=16"))
        }
        Type::Quat(s) | Type::Transform(s) if !s.is_float() => Err(format!(
            "quaternions and transforms must be of floats, not {s}"
        )),
        Type::Struct(id) if structs.get(id).is_none() => {
            Err(format!("struct id {} does not exist", id.as_u32()))
        }
        Type::Array(a) if a.ndim == 0 || a.ndim as usize > MAX_DIMS => {
            Err(format!("array ndim {} is not in 1..=4", a.ndim))
        }
        Type::Array(a) => check_type(Type::from(a.elem), structs),
        _ => Ok(()),
    }
}

/// Checks one function against its module (the module-level rules are not
/// checked: see [`verify_module`]).
pub fn verify_function(m: &Module, f: &Function) -> Result<(), VerifyError> {
    let mut v = Verifier {
        m,
        f,
        names: OnceCell::new(),
        defined: SecondaryMap::new(),
        visible: SecondaryMap::new(),
        region_seen: SecondaryMap::new(),
        inst_seen: SecondaryMap::new(),
    };
    v.function()
}

/// The enclosing control constructs of a region.
#[derive(Copy, Clone)]
struct Ctx {
    /// The `if` whose region this is (directly).
    if_inst: Option<Inst>,
    /// The innermost enclosing loop.
    loop_inst: Option<Inst>,
}

struct Verifier<'a> {
    m: &'a Module,
    f: &'a Function,
    names: OnceCell<Numbering>,
    defined: SecondaryMap<Value, bool>,
    visible: SecondaryMap<Value, bool>,
    region_seen: SecondaryMap<Region, bool>,
    inst_seen: SecondaryMap<Inst, bool>,
}

type VResult = Result<(), VerifyError>;

impl Verifier<'_> {
    fn err(&self, rule: Rule, inst: Option<Inst>, detail: impl Into<String>) -> VerifyError {
        VerifyError {
            func: self.f.name.clone(),
            inst: inst.map(|i| crate::text::display_inst(self.f, self.m, i)),
            rule,
            detail: detail.into(),
        }
    }
    fn fail(&self, rule: Rule, inst: Option<Inst>, detail: impl Into<String>) -> VResult {
        Err(self.err(rule, inst, detail))
    }
    fn val(&self, v: Value) -> String {
        self.names.get_or_init(|| Numbering::new(self.f)).name(v)
    }
    fn ty(&self, t: Type) -> String {
        crate::text::type_text(t, &self.m.structs)
    }
    fn tys(&self, ts: &[Type]) -> String {
        let v: Vec<String> = ts.iter().map(|&t| self.ty(t)).collect();
        format!("({})", v.join(", "))
    }
    /// The type of a value known to exist (checked by `use_`/`define`).
    fn vty(&self, v: Value) -> Type {
        self.f.values.get(v).map_or(Type::BOOL, |d| d.ty)
    }
    fn vtys(&self, vs: &[Value]) -> Vec<Type> {
        vs.iter().map(|&v| self.vty(v)).collect()
    }

    fn function(&mut self) -> VResult {
        let f = self.f;
        if !f.loc.is_none() && f.loc.file as usize >= self.m.files.len() {
            return self.fail(
                Rule::LocFile,
                None,
                format!("the function's location names file {}", f.loc.file),
            );
        }
        if f.kind == FuncKind::Kernel && !f.returns.is_empty() {
            return self.fail(Rule::Signature, None, "a kernel returns values");
        }
        for (i, p) in f.params.iter().enumerate() {
            if let Err(e) = check_type(p.ty, &self.m.structs) {
                return self.fail(Rule::TypeWellFormed, None, format!("param {i}: {e}"));
            }
        }
        for (i, &t) in f.returns.iter().enumerate() {
            if let Err(e) = check_type(t, &self.m.structs) {
                return self.fail(Rule::TypeWellFormed, None, format!("return {i}: {e}"));
            }
        }
        self.layout()?;
        self.custom()?;
        let Some(body) = f.regions.get(f.body) else {
            return self.fail(Rule::Signature, None, "the body region does not exist");
        };
        let ptys: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
        let btys: Vec<Type> = body
            .params
            .iter()
            .map(|&v| f.values.get(v).map_or(Type::BOOL, |d| d.ty))
            .collect();
        if ptys != btys || body.params.iter().any(|&v| !f.values.is_valid(v)) {
            return self.fail(
                Rule::Signature,
                None,
                format!(
                    "the body's params {} differ from the function's params {}",
                    self.tys(&btys),
                    self.tys(&ptys)
                ),
            );
        }
        self.region(
            f.body,
            None,
            Ctx {
                if_inst: None,
                loop_inst: None,
            },
        )
    }

    /// [`Rule::LayoutHint`] and [`Rule::SoaParam`].
    fn layout(&self) -> VResult {
        let f = self.f;
        let mut seen = std::collections::HashSet::new();
        for &(i, _) in &f.layout_hints {
            match f.params.get(i as usize) {
                Some(p) if p.ty.is_array() => {}
                Some(p) => {
                    return self.fail(
                        Rule::LayoutHint,
                        None,
                        format!(
                            "layout hint on param {i} `{}` of type {}, not an array",
                            p.name,
                            self.ty(p.ty)
                        ),
                    )
                }
                None => {
                    return self.fail(
                        Rule::LayoutHint,
                        None,
                        format!("layout hint on param {i}, which does not exist"),
                    )
                }
            }
            if !seen.insert(i) {
                return self.fail(
                    Rule::LayoutHint,
                    None,
                    format!("two layout hints on param {i}"),
                );
            }
        }
        if !f.soa_params.is_empty() && f.kind != FuncKind::Kernel {
            return self.fail(Rule::SoaParam, None, "a func has SoA params");
        }
        let mut seen = std::collections::HashSet::new();
        for sp in &f.soa_params {
            let i = sp.param;
            let Some(p) = f.params.get(i as usize) else {
                return self.fail(
                    Rule::SoaParam,
                    None,
                    format!("SoA param {i} does not exist"),
                );
            };
            if !seen.insert(i) {
                return self.fail(Rule::SoaParam, None, format!("param {i} is SoA twice"));
            }
            let elem = Type::from(sp.elem);
            let leaves = crate::layout::leaves(elem, &self.m.structs);
            let scalar = match leaves.first() {
                Some(l) if !elem.is_scalar() && leaves.iter().all(|x| x.scalar == l.scalar) => {
                    l.scalar
                }
                _ => {
                    return self.fail(
                        Rule::SoaParam,
                        None,
                        format!(
                            "SoA param {i}: element {} is not an aggregate of one scalar type",
                            self.ty(elem)
                        ),
                    )
                }
            };
            if !(1..=3).contains(&sp.ndim) {
                return self.fail(
                    Rule::SoaParam,
                    None,
                    format!("SoA param {i}: ndim {} is not in 1..=3", sp.ndim),
                );
            }
            let want = Type::Array(crate::types::ArrayType {
                elem: crate::types::ElemType::Scalar(scalar),
                ndim: sp.ndim + 1,
            });
            if p.ty != want {
                return self.fail(
                    Rule::SoaParam,
                    None,
                    format!(
                        "SoA param {i} `{}` has type {}, expected {}",
                        p.name,
                        self.ty(p.ty),
                        self.ty(want)
                    ),
                );
            }
        }
        Ok(())
    }

    fn define(&mut self, v: Value, def: ValueDef, inst: Option<Inst>) -> VResult {
        let Some(d) = self.f.values.get(v) else {
            return self.fail(
                Rule::ValueDefinition,
                inst,
                format!("value {} is not in the function's arena", v.as_u32()),
            );
        };
        if self.defined[v] {
            return self.fail(
                Rule::ValueDefinition,
                inst,
                format!("{} is defined twice", self.val(v)),
            );
        }
        if d.def != def {
            return self.fail(
                Rule::ValueDefinition,
                inst,
                format!(
                    "{} records its definition as {:?} but is defined as {:?}",
                    self.val(v),
                    d.def,
                    def
                ),
            );
        }
        if let Err(e) = check_type(d.ty, &self.m.structs) {
            return self.fail(Rule::TypeWellFormed, inst, format!("{}: {e}", self.val(v)));
        }
        self.defined[v] = true;
        self.visible[v] = true;
        Ok(())
    }

    fn use_(&self, v: Value, inst: Inst) -> VResult {
        if !self.f.values.is_valid(v) {
            return self.fail(
                Rule::ValueDefinition,
                Some(inst),
                format!("operand {} is not in the function's arena", v.as_u32()),
            );
        }
        if !self.visible[v] {
            return self.fail(
                Rule::ValueVisibility,
                Some(inst),
                format!(
                    "{} is not visible here (it must be defined earlier in this region or an enclosing one)",
                    self.val(v)
                ),
            );
        }
        Ok(())
    }

    /// Verifies region `r`, owned by `owner` (None for the body).
    fn region(&mut self, r: Region, owner: Option<Inst>, ctx: Ctx) -> VResult {
        let f = self.f;
        let Some(rd) = f.regions.get(r) else {
            return self.fail(
                Rule::RegionOwnership,
                owner,
                format!("region {} does not exist", r.as_u32()),
            );
        };
        if self.region_seen[r] {
            return self.fail(
                Rule::RegionOwnership,
                owner,
                format!("region {} is reached twice", r.as_u32()),
            );
        }
        self.region_seen[r] = true;
        let mut local: Vec<Value> = Vec::new();
        for (i, &p) in rd.params.iter().enumerate() {
            self.define(p, ValueDef::Param(r, i as u32), owner)?;
            local.push(p);
        }
        if rd.insts.is_empty() {
            return self.fail(
                Rule::Terminator,
                owner,
                "a region is empty (it must end in a terminator)",
            );
        }
        let n = rd.insts.len();
        for (k, &inst) in rd.insts.iter().enumerate() {
            let Some(d) = f.insts.get(inst) else {
                return self.fail(
                    Rule::InstPlacement,
                    owner,
                    format!("instruction {} does not exist", inst.as_u32()),
                );
            };
            if self.inst_seen[inst] {
                return self.fail(
                    Rule::InstPlacement,
                    Some(inst),
                    "the instruction is placed twice",
                );
            }
            self.inst_seen[inst] = true;
            let last = k + 1 == n;
            if d.kind.is_terminator() && !last {
                return self.fail(
                    Rule::Terminator,
                    Some(inst),
                    "a terminator before the end of its region",
                );
            }
            if last && !d.kind.is_terminator() {
                return self.fail(
                    Rule::Terminator,
                    Some(inst),
                    "the region does not end in a terminator",
                );
            }
            if !d.loc.is_none() && d.loc.file as usize >= self.m.files.len() {
                return self.fail(
                    Rule::LocFile,
                    Some(inst),
                    format!("location names file {}", d.loc.file),
                );
            }
            for a in d.kind.args() {
                self.use_(a, inst)?;
            }
            for &v in &d.results {
                if let Some(Err(e)) = f.values.get(v).map(|vd| check_type(vd.ty, &self.m.structs)) {
                    return self.fail(
                        Rule::TypeWellFormed,
                        Some(inst),
                        format!("{}: {e}", self.val(v)),
                    );
                }
            }
            self.inst(inst, ctx)?;
            self.nested(inst, ctx)?;
            for (i, &v) in d.results.iter().enumerate() {
                self.define(v, ValueDef::Result(inst, i as u32), Some(inst))?;
                local.push(v);
            }
        }
        for v in local {
            self.visible[v] = false;
        }
        Ok(())
    }

    fn expect_results(&self, inst: Inst, want: &[Type]) -> VResult {
        let got = self.vtys(self.f.results(inst));
        if got != want {
            return self.fail(
                Rule::ResultTypes,
                Some(inst),
                format!(
                    "results are {} but the instruction gives {}",
                    self.tys(&got),
                    self.tys(want)
                ),
            );
        }
        Ok(())
    }

    fn operand(&self, inst: Inst, ok: bool, detail: impl FnOnce() -> String) -> VResult {
        if ok {
            Ok(())
        } else {
            self.fail(Rule::OperandTypes, Some(inst), detail())
        }
    }

    /// The type at `path` inside an aggregate of type `ty`.
    fn project(&self, inst: Inst, ty: Type, path: &[u32]) -> Result<Type, VerifyError> {
        ty.project_path(path, &self.m.structs).ok_or_else(|| {
            self.err(
                Rule::Path,
                Some(inst),
                format!("path {path:?} is not valid in {}", self.ty(ty)),
            )
        })
    }

    /// Checks a memory access; returns the accessed type.
    fn mem(&self, inst: Inst, mem: &MemAccess) -> Result<Type, VerifyError> {
        let Type::Array(a) = self.vty(mem.array) else {
            return Err(self.err(
                Rule::ArrayAccess,
                Some(inst),
                format!(
                    "{} is not an array but {}",
                    self.val(mem.array),
                    self.ty(self.vty(mem.array))
                ),
            ));
        };
        if mem.indices.len() != a.ndim as usize {
            return Err(self.err(
                Rule::ArrayAccess,
                Some(inst),
                format!(
                    "{} indices for an array of {} dimensions",
                    mem.indices.len(),
                    a.ndim
                ),
            ));
        }
        for &i in &mem.indices {
            if !self.vty(i).as_scalar().is_some_and(Scalar::is_int) {
                return Err(self.err(
                    Rule::ArrayAccess,
                    Some(inst),
                    format!(
                        "index {} is {}, not an integer",
                        self.val(i),
                        self.ty(self.vty(i))
                    ),
                ));
            }
        }
        self.project(inst, Type::from(a.elem), &mem.path)
    }

    fn types_match(
        &self,
        inst: Inst,
        rule: Rule,
        what: &str,
        vs: &[Value],
        want: &[Type],
    ) -> VResult {
        let got = self.vtys(vs);
        if got != want {
            return self.fail(
                rule,
                Some(inst),
                format!(
                    "{what}: values of types {} where {} are expected",
                    self.tys(&got),
                    self.tys(want)
                ),
            );
        }
        Ok(())
    }

    /// Verifies the regions of an `if` or `loop`. Kept apart from the
    /// large [`Self::inst`] so that its frame is not on the recursion path.
    fn nested(&mut self, inst: Inst, ctx: Ctx) -> VResult {
        match &self.f.insts[inst].kind {
            InstKind::If {
                then_region,
                else_region,
                ..
            } => {
                let sub = Ctx {
                    if_inst: Some(inst),
                    loop_inst: ctx.loop_inst,
                };
                self.region(*then_region, Some(inst), sub)?;
                self.region(*else_region, Some(inst), sub)
            }
            InstKind::Loop { body, .. } => {
                let sub = Ctx {
                    if_inst: None,
                    loop_inst: Some(inst),
                };
                self.region(*body, Some(inst), sub)
            }
            _ => Ok(()),
        }
    }

    /// [`Rule::CustomAdjoint`] of the function's custom adjoint and replay,
    /// and of what it is the gradient of.
    fn custom(&self) -> VResult {
        let f = self.f;
        if f.custom_adjoint.is_none() && f.custom_replay.is_none() && f.grad_of.is_none() {
            return Ok(());
        }
        let fail = |detail: String| self.fail(Rule::CustomAdjoint, None, detail);
        if f.kind != FuncKind::Func {
            return fail("a kernel has a custom adjoint or replay".into());
        }
        let ptys: Vec<Type> = f.params.iter().map(|p| p.ty).collect();
        let sig = |g: FuncId, what: &str, params: &[Type], returns: &[Type]| -> VResult {
            let Some(gf) = self.m.funcs.get(g) else {
                return fail(format!("the custom {what} does not exist"));
            };
            let gp: Vec<Type> = gf.params.iter().map(|p| p.ty).collect();
            if gf.kind != FuncKind::Func || gp != params || gf.returns != returns {
                return fail(format!(
                    "the custom {what} @{} takes {} and returns {}; expected {} -> {}",
                    gf.name,
                    self.tys(&gp),
                    self.tys(&gf.returns),
                    self.tys(params),
                    self.tys(returns)
                ));
            }
            Ok(())
        };
        if let Some(g) = f.custom_adjoint {
            if ptys.iter().any(|t| t.is_array()) {
                return fail("a func with array params has a custom adjoint".into());
            }
            let mut params = ptys.clone();
            params.extend(&f.returns);
            sig(g, "adjoint", &params, &ptys)?;
        }
        if let Some(r) = f.custom_replay {
            sig(r, "replay", &ptys, &f.returns)?;
        }
        if let Some(g) = f.grad_of {
            // `f` is the gradient of `g`: `g`'s signature, one adjoint per param.
            let Some(gf) = self.m.funcs.get(g) else {
                return fail("the func of `grad` does not exist".into());
            };
            let gp: Vec<Type> = gf.params.iter().map(|p| p.ty).collect();
            if gf.kind != FuncKind::Func
                || gf.grad_of.is_some()
                || gp.iter().any(|t| t.is_array())
                || gf.returns.is_empty()
                || gp != ptys
                || f.returns != ptys
            {
                return fail(format!(
                    "the gradient of @{} ({} -> {}) takes {} and returns {}; expected \
                     its by-value params -> one adjoint per param",
                    gf.name,
                    self.tys(&gp),
                    self.tys(&gf.returns),
                    self.tys(&ptys),
                    self.tys(&f.returns)
                ));
            }
        }
        Ok(())
    }

    /// The typing rules of one instruction (not of its regions).
    #[inline(never)]
    fn inst(&self, inst: Inst, ctx: Ctx) -> VResult {
        let f = self.f;
        let d = &f.insts[inst];
        if d.inplace && !matches!(d.kind, InstKind::Insert(..)) {
            return self.fail(
                Rule::Inplace,
                Some(inst),
                "`inplace` on an instruction that is not `insert`",
            );
        }
        if !d.flags.is_empty() && !f.accepts_math_flags(inst) {
            return self.fail(
                Rule::MathFlags,
                Some(inst),
                "fast-math flags on an instruction that is not float arithmetic",
            );
        }
        let scalar = |v: Value| self.vty(v).as_scalar();
        match &d.kind {
            InstKind::Const(c) => {
                let canonical = if c.ty.is_float() {
                    let v = f64::from_bits(c.bits);
                    v.is_nan() || Const::float(c.ty, v).bits == c.bits
                } else {
                    Const::from_i128(c.ty, c.as_i128()).bits == c.bits
                };
                if !canonical {
                    return self.fail(
                        Rule::ConstBits,
                        Some(inst),
                        format!("bits {:#x} are not a canonical {}", c.bits, c.ty),
                    );
                }
                self.expect_results(inst, &[Type::Scalar(c.ty)])
            }
            InstKind::Unary(op, x) => {
                let s = scalar(*x);
                use UnaryOp::*;
                let ok = s.is_some_and(|s| match op {
                    Not => s == Scalar::Bool || s.is_int(),
                    Popcount => s.is_int(),
                    Neg | Abs => s.is_int() || s.is_float(),
                    _ => s.is_float(),
                });
                self.operand(inst, ok, || {
                    format!(
                        "`{}` cannot take {}",
                        crate::text::unary_name(*op),
                        self.ty(self.vty(*x))
                    )
                })?;
                let rt = match op {
                    IsNan | IsInf | IsFinite => Type::BOOL,
                    _ => self.vty(*x),
                };
                self.expect_results(inst, &[rt])
            }
            InstKind::Binary(op, a, b) => {
                let (ta, tb) = (self.vty(*a), self.vty(*b));
                self.operand(inst, ta == tb && ta.is_scalar(), || {
                    format!(
                        "operands must be scalars of one type, not {} and {}",
                        self.ty(ta),
                        self.ty(tb)
                    )
                })?;
                use BinaryOp::*;
                let s = ta.as_scalar().unwrap_or(Scalar::Bool);
                let ok = match op {
                    Add | Sub | Mul | Div | Rem | Min | Max => s.is_int() || s.is_float(),
                    Pow | Atan2 | Copysign => s.is_float(),
                    And | Or | Xor => s.is_int() || s == Scalar::Bool,
                    Shl | Shr => s.is_int(),
                    Eq | Ne | Lt | Le | Gt | Ge => true,
                };
                self.operand(inst, ok, || {
                    format!("`{}` cannot take {s}", crate::text::binary_name(*op))
                })?;
                let rt = if op.is_comparison() { Type::BOOL } else { ta };
                self.expect_results(inst, &[rt])
            }
            InstKind::Fma(a, b, c) => {
                let t = self.vty(*a);
                let ok = t.as_scalar().is_some_and(Scalar::is_float)
                    && self.vty(*b) == t
                    && self.vty(*c) == t;
                self.operand(inst, ok, || {
                    "fma takes three floats of one type".to_string()
                })?;
                self.expect_results(inst, &[t])
            }
            InstKind::Cast(x, to) => {
                self.operand(inst, self.vty(*x).is_scalar(), || {
                    format!("cast of a non-scalar {}", self.ty(self.vty(*x)))
                })?;
                self.expect_results(inst, &[Type::Scalar(*to)])
            }
            InstKind::Bitcast(x, to) => {
                let ok = scalar(*x).is_some_and(|s| {
                    s != Scalar::Bool && *to != Scalar::Bool && s.size() == to.size()
                });
                self.operand(inst, ok, || {
                    format!(
                        "bitcast needs non-bool scalars of one size, not {} to {to}",
                        self.ty(self.vty(*x))
                    )
                })?;
                self.expect_results(inst, &[Type::Scalar(*to)])
            }
            InstKind::Select(c, a, b) => {
                let (tc, ta, tb) = (self.vty(*c), self.vty(*a), self.vty(*b));
                self.operand(inst, tc == Type::BOOL && ta == tb && !ta.is_array(), || {
                    format!(
                        "select takes (bool, T, T), T not an array; got ({}, {}, {})",
                        self.ty(tc),
                        self.ty(ta),
                        self.ty(tb)
                    )
                })?;
                self.expect_results(inst, &[ta])
            }
            InstKind::Make(ty, parts) => {
                if let Err(e) = check_type(*ty, &self.m.structs) {
                    return self.fail(Rule::TypeWellFormed, Some(inst), e);
                }
                self.operand(inst, ty.is_aggregate(), || {
                    format!("make of a non-aggregate {}", self.ty(*ty))
                })?;
                let want: Vec<Type> = (0..ty.arity(&self.m.structs))
                    .filter_map(|i| ty.project(i, &self.m.structs))
                    .collect();
                self.types_match(inst, Rule::OperandTypes, "make", parts, &want)?;
                self.expect_results(inst, &[*ty])
            }
            InstKind::Extract(a, path) => {
                if path.is_empty() {
                    return self.fail(Rule::Path, Some(inst), "extract with an empty path");
                }
                let t = self.project(inst, self.vty(*a), path)?;
                self.expect_results(inst, &[t])
            }
            InstKind::Insert(a, path, v) => {
                if path.is_empty() {
                    return self.fail(Rule::Path, Some(inst), "insert with an empty path");
                }
                let t = self.project(inst, self.vty(*a), path)?;
                if self.vty(*v) != t {
                    return self.fail(
                        Rule::Path,
                        Some(inst),
                        format!(
                            "inserting {} where the component is {}",
                            self.ty(self.vty(*v)),
                            self.ty(t)
                        ),
                    );
                }
                self.expect_results(inst, &[self.vty(*a)])
            }
            InstKind::ThreadId | InstKind::BlockDim => self.expect_results(inst, &[Type::I32]),
            InstKind::LaunchDim(axis) => {
                if *axis as usize >= MAX_DIMS {
                    return self.fail(Rule::Axis, Some(inst), format!("launch axis {axis} ≥ 4"));
                }
                self.expect_results(inst, &[Type::I32])
            }
            InstKind::ArrayShape(a, axis) => {
                let Type::Array(at) = self.vty(*a) else {
                    return self.fail(
                        Rule::ArrayAccess,
                        Some(inst),
                        format!("{} is not an array", self.val(*a)),
                    );
                };
                if *axis >= at.ndim {
                    return self.fail(
                        Rule::Axis,
                        Some(inst),
                        format!("axis {axis} of an array of {} dimensions", at.ndim),
                    );
                }
                self.expect_results(inst, &[Type::I32])
            }
            InstKind::Load(mem) => {
                let t = self.mem(inst, mem)?;
                self.expect_results(inst, &[t])
            }
            InstKind::Store(mem, v) => {
                let t = self.mem(inst, mem)?;
                if self.vty(*v) != t {
                    return self.fail(
                        Rule::ArrayAccess,
                        Some(inst),
                        format!("storing {} into {}", self.ty(self.vty(*v)), self.ty(t)),
                    );
                }
                self.expect_results(inst, &[])
            }
            InstKind::Atomic(op, mem, v) => {
                let t = self.mem(inst, mem)?;
                let bitwise = matches!(op, AtomicOp::And | AtomicOp::Or | AtomicOp::Xor);
                if !atomic_ok(t, bitwise, &self.m.structs, 0) {
                    return self.fail(
                        Rule::Atomic,
                        Some(inst),
                        format!("atomic {} on {}", crate::text::atomic_name(*op), self.ty(t)),
                    );
                }
                if self.vty(*v) != t {
                    return self.fail(
                        Rule::Atomic,
                        Some(inst),
                        format!(
                            "atomic operand {} where {} is accessed",
                            self.ty(self.vty(*v)),
                            self.ty(t)
                        ),
                    );
                }
                self.expect_results(inst, &[t])
            }
            InstKind::AtomicCas(mem, c, v) => {
                let t = self.mem(inst, mem)?;
                let wide = t.as_scalar().is_some_and(|s| {
                    matches!(s, Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64)
                        || matches!(s, Scalar::F32 | Scalar::F64)
                });
                if !wide {
                    return self.fail(
                        Rule::Atomic,
                        Some(inst),
                        format!("atomic_cas on {}", self.ty(t)),
                    );
                }
                if self.vty(*c) != t || self.vty(*v) != t {
                    return self.fail(
                        Rule::Atomic,
                        Some(inst),
                        format!(
                            "atomic_cas operands {}, {} where {} is accessed",
                            self.ty(self.vty(*c)),
                            self.ty(self.vty(*v)),
                            self.ty(t)
                        ),
                    );
                }
                self.expect_results(inst, &[t])
            }
            InstKind::Call(fid, args) => {
                let Some(callee) = self.m.funcs.get(*fid) else {
                    return self.fail(
                        Rule::Call,
                        Some(inst),
                        format!("function {} does not exist", fid.as_u32()),
                    );
                };
                if callee.kind == FuncKind::Kernel {
                    return self.fail(
                        Rule::Call,
                        Some(inst),
                        format!("@{} is a kernel", callee.name),
                    );
                }
                let ptys: Vec<Type> = callee.params.iter().map(|p| p.ty).collect();
                self.types_match(inst, Rule::Call, "arguments", args, &ptys)?;
                self.types_match(
                    inst,
                    Rule::Call,
                    "results",
                    f.results(inst),
                    &callee.returns,
                )
            }
            InstKind::Print(_, args) => {
                if let Some(&a) = args.iter().find(|&&a| self.vty(a).is_array()) {
                    return self.fail(
                        Rule::OperandTypes,
                        Some(inst),
                        format!("cannot print the array {}", self.val(a)),
                    );
                }
                self.expect_results(inst, &[])
            }
            InstKind::If {
                cond,
                then_region,
                else_region,
            } => {
                self.operand(inst, self.vty(*cond) == Type::BOOL, || {
                    format!("`if` condition is {}, not bool", self.ty(self.vty(*cond)))
                })?;
                for &r in &[*then_region, *else_region] {
                    if f.regions.get(r).is_some_and(|rd| !rd.params.is_empty()) {
                        return self.fail(Rule::IfRegions, Some(inst), "an `if` region has params");
                    }
                }
                Ok(())
            }
            InstKind::Loop { init, body } => {
                if let Some(rd) = f.regions.get(*body) {
                    let ptys = self.vtys(&rd.params);
                    self.types_match(inst, Rule::LoopInit, "loop init", init, &ptys)?;
                }
                Ok(())
            }
            InstKind::Yield(vs) => {
                let Some(owner) = ctx.if_inst else {
                    return self.fail(Rule::Yield, Some(inst), "`yield` outside an `if` region");
                };
                let want = self.vtys(f.results(owner));
                self.types_match(inst, Rule::Yield, "yield", vs, &want)?;
                self.expect_results(inst, &[])
            }
            InstKind::Continue(vs) => {
                let Some(lp) = ctx.loop_inst else {
                    return self.fail(Rule::Continue, Some(inst), "`continue` outside a loop");
                };
                let want = match &f.insts[lp].kind {
                    InstKind::Loop { body, .. } => f
                        .regions
                        .get(*body)
                        .map_or(Vec::new(), |rd| self.vtys(&rd.params)),
                    _ => Vec::new(),
                };
                self.types_match(inst, Rule::Continue, "continue", vs, &want)?;
                self.expect_results(inst, &[])
            }
            InstKind::Break(vs) => {
                let Some(lp) = ctx.loop_inst else {
                    return self.fail(Rule::Break, Some(inst), "`break` outside a loop");
                };
                let want = self.vtys(f.results(lp));
                self.types_match(inst, Rule::Break, "break", vs, &want)?;
                self.expect_results(inst, &[])
            }
            InstKind::Return(vs) => {
                self.types_match(inst, Rule::Return, "return", vs, &f.returns)?;
                self.expect_results(inst, &[])
            }
            InstKind::Trap(kind, vs) => {
                let want: &[Type] = match kind {
                    TrapKind::OutOfBounds { axis } if *axis < 4 => {
                        &[Type::Scalar(Scalar::I64), Type::Scalar(Scalar::I64)]
                    }
                    TrapKind::OutOfBounds { axis } => {
                        return self.fail(
                            Rule::Trap,
                            Some(inst),
                            format!("trap axis {axis} is not below 4"),
                        )
                    }
                    TrapKind::DivByZero => &[],
                };
                self.types_match(inst, Rule::Trap, "trap", vs, want)?;
                self.expect_results(inst, &[])
            }
        }
    }
}

/// Whether an atomic may operate on `t`: integer/float scalars (integers
/// only for bitwise ops), or aggregates made only of them.
fn atomic_ok(t: Type, bitwise: bool, structs: &StructTable, depth: usize) -> bool {
    let scalar_ok = |s: Scalar| s.is_int() || (!bitwise && s.is_float());
    match t {
        Type::Array(_) => false,
        Type::Struct(id) => {
            depth <= structs.len()
                && structs.get(id).is_some_and(|d| {
                    !d.fields.is_empty()
                        && d.fields
                            .iter()
                            .all(|f| atomic_ok(f.ty, bitwise, structs, depth + 1))
                })
        }
        t => t.scalar_of().is_some_and(scalar_ok),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{ArrayType, ElemType, Field, StructDef};
    use crate::FuncBuilder;

    fn param(ty: Type) -> Param {
        Param {
            name: "p".into(),
            ty,
        }
    }

    fn arr(s: Scalar, ndim: u8) -> Type {
        Type::Array(ArrayType {
            elem: ElemType::Scalar(s),
            ndim,
        })
    }

    /// Builds a func with the given params and returns in a fresh module,
    /// lets `body` fill it, and verifies the module.
    fn check_with(
        m: &mut Module,
        kind: FuncKind,
        params: Vec<Type>,
        returns: Vec<Type>,
        body: impl FnOnce(&mut FuncBuilder, &[Value]),
    ) -> Result<(), VerifyError> {
        let mut f = Function::new("f", kind, params.into_iter().map(param).collect(), returns);
        let ps = f.param_values().to_vec();
        let mut b = FuncBuilder::new(&mut f, &m.structs);
        body(&mut b, &ps);
        m.funcs.push(f);
        verify_module(m).map(drop)
    }

    fn check(
        params: Vec<Type>,
        returns: Vec<Type>,
        body: impl FnOnce(&mut FuncBuilder, &[Value]),
    ) -> Result<(), VerifyError> {
        check_with(&mut Module::new(), FuncKind::Func, params, returns, body)
    }

    fn rule_of(r: Result<(), VerifyError>) -> Rule {
        match r {
            Ok(()) => panic!("expected a verifier error"),
            Err(e) => e.rule,
        }
    }

    #[test]
    fn valid_function() {
        let mut m = Module::new();
        m.files.push("k.py".into());
        let r = check_with(
            &mut m,
            FuncKind::Kernel,
            vec![arr(Scalar::F32, 1), Type::I32],
            vec![],
            |b, ps| {
                b.set_loc(Loc::new(0, 3, 5));
                let tid = b.thread_id();
                let zero = b.iconst(Scalar::I32, 0);
                let fz = b.fconst(Scalar::F32, 0.0);
                let (lp, body, lps) = b.loop_(vec![zero, fz], &[Type::F32]);
                b.switch_to(body);
                let done = b.binary(BinaryOp::Ge, lps[0], ps[1]);
                let (_, t, e) = b.if_(done, &[Type::I32]);
                b.switch_to(t);
                b.break_(vec![lps[1]]);
                b.switch_to(e);
                let one = b.iconst(Scalar::I32, 1);
                let i2 = b.binary(BinaryOp::Add, lps[0], one);
                b.yield_(vec![i2]);
                b.switch_to(body);
                let x = b.load(MemAccess {
                    array: ps[0],
                    indices: vec![lps[0]],
                    path: vec![],
                });
                let acc = b.binary(BinaryOp::Add, lps[1], x);
                let next = b.func.results(b.func.regions[body].insts[1])[0];
                b.continue_(vec![next, acc]);
                b.switch_to(b.func.body);
                let total = b.func.results(lp)[0];
                b.store(
                    MemAccess {
                        array: ps[0],
                        indices: vec![tid],
                        path: vec![],
                    },
                    total,
                );
                b.return_(vec![]);
            },
        );
        assert_eq!(r, Ok(()));
    }

    #[test]
    fn error_names_function_instruction_and_rule() {
        let e = check(vec![Type::I32, Type::F32], vec![], |b, ps| {
            b.set_loc(Loc::new(0, 7, 3));
            b.ins1(InstKind::Binary(BinaryOp::Add, ps[0], ps[1]), Type::I32);
            b.return_(vec![]);
        })
        .unwrap_err();
        assert_eq!(e.rule, Rule::LocFile);
        let e = check(vec![Type::I32, Type::F32], vec![], |b, ps| {
            b.ins1(InstKind::Binary(BinaryOp::Add, ps[0], ps[1]), Type::I32);
            b.return_(vec![]);
        })
        .unwrap_err();
        assert_eq!(e.rule, Rule::OperandTypes);
        assert_eq!(e.func, "f");
        assert_eq!(e.inst.as_deref(), Some("v2: i32 = add v0, v1"));
        let msg = e.to_string();
        assert!(
            msg.contains("@f") && msg.contains("v2: i32 = add v0, v1"),
            "{msg}"
        );
        assert!(msg.contains("operand types"), "{msg}");
    }

    #[test]
    fn unique_func_name() {
        let mut m = Module::new();
        for _ in 0..2 {
            let mut f = Function::new("g", FuncKind::Func, vec![], vec![]);
            FuncBuilder::new(&mut f, &m.structs).return_(vec![]);
            m.funcs.push(f);
        }
        assert_eq!(rule_of(verify_module(&m).map(drop)), Rule::UniqueFuncName);
    }

    #[test]
    fn unique_struct_name() {
        let mut m = Module::new();
        for _ in 0..2 {
            m.structs.push(StructDef {
                name: "S".into(),
                fields: vec![],
            });
        }
        assert_eq!(rule_of(verify_module(&m).map(drop)), Rule::UniqueStructName);
    }

    #[test]
    fn struct_def() {
        let mut m = Module::new();
        m.structs.push(StructDef {
            name: "A".into(),
            fields: vec![Field {
                name: "xs".into(),
                ty: arr(Scalar::F32, 1),
            }],
        });
        assert_eq!(rule_of(verify_module(&m).map(drop)), Rule::StructDef);
        let mut m = Module::new();
        let a = m.structs.next_key();
        let b = StructId::from_u32(a.as_u32() + 1);
        m.structs.push(StructDef {
            name: "A".into(),
            fields: vec![Field {
                name: "b".into(),
                ty: Type::Struct(b),
            }],
        });
        m.structs.push(StructDef {
            name: "B".into(),
            fields: vec![Field {
                name: "a".into(),
                ty: Type::Struct(a),
            }],
        });
        assert_eq!(rule_of(verify_module(&m).map(drop)), Rule::StructDef);
    }

    #[test]
    fn type_well_formed() {
        let r = check(vec![Type::Vec(0, Scalar::F32)], vec![], |b, _| {
            b.return_(vec![])
        });
        assert_eq!(rule_of(r), Rule::TypeWellFormed);
        let r = check(vec![arr(Scalar::F32, 5)], vec![], |b, _| b.return_(vec![]));
        assert_eq!(rule_of(r), Rule::TypeWellFormed);
        let r = check(vec![], vec![], |b, _| {
            b.ins1(InstKind::ThreadId, Type::Quat(Scalar::I32));
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::TypeWellFormed);
        let r = check(vec![Type::Struct(StructId::from_u32(3))], vec![], |b, _| {
            b.return_(vec![])
        });
        assert_eq!(rule_of(r), Rule::TypeWellFormed);
    }

    #[test]
    fn signature() {
        let mut m = Module::new();
        let r = check_with(&mut m, FuncKind::Kernel, vec![], vec![Type::I32], |b, _| {
            let z = b.iconst(Scalar::I32, 0);
            b.return_(vec![z]);
        });
        assert_eq!(rule_of(r), Rule::Signature);
        let r = check(vec![Type::I32], vec![], |b, _| {
            let body = b.func.body;
            b.func.add_region_param(body, Type::F32);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Signature);
    }

    #[test]
    fn loc_file() {
        let r = check(vec![], vec![], |b, _| {
            b.set_loc(Loc::new(2, 1, 1));
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::LocFile);
    }

    #[test]
    fn region_ownership() {
        // Two ifs share one region.
        let r = check(vec![Type::BOOL], vec![], |b, ps| {
            let (_, t, e) = b.if_(ps[0], &[]);
            b.switch_to(t);
            b.yield_(vec![]);
            b.switch_to(e);
            b.yield_(vec![]);
            b.switch_to(b.func.body);
            b.ins(
                InstKind::If {
                    cond: ps[0],
                    then_region: t,
                    else_region: e,
                },
                &[],
            );
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::RegionOwnership);
        // A loop whose body does not exist.
        let r = check(vec![], vec![], |b, _| {
            b.ins(
                InstKind::Loop {
                    init: vec![],
                    body: Region::from_u32(99),
                },
                &[],
            );
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::RegionOwnership);
    }

    #[test]
    fn inst_placement() {
        let r = check(vec![], vec![], |b, _| {
            let i = b.ins(InstKind::Print("x".into(), vec![]), &[]);
            let body = b.func.body;
            b.func.regions[body].insts.push(i);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::InstPlacement);
    }

    #[test]
    fn terminator() {
        // Missing at the end.
        let r = check(vec![], vec![], |b, _| {
            b.thread_id();
        });
        assert_eq!(rule_of(r), Rule::Terminator);
        // Before the end.
        let r = check(vec![], vec![], |b, _| {
            b.return_(vec![]);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Terminator);
        // An empty region.
        let r = check(vec![Type::BOOL], vec![], |b, ps| {
            let (_, _t, e) = b.if_(ps[0], &[]);
            b.switch_to(e);
            b.yield_(vec![]);
            b.switch_to(b.func.body);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Terminator);
    }

    #[test]
    fn if_regions() {
        let r = check(vec![Type::BOOL], vec![], |b, ps| {
            let (_, t, e) = b.if_(ps[0], &[]);
            b.func.add_region_param(t, Type::I32);
            b.switch_to(t);
            b.yield_(vec![]);
            b.switch_to(e);
            b.yield_(vec![]);
            b.switch_to(b.func.body);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::IfRegions);
    }

    #[test]
    fn value_definition() {
        // One value as the result of two instructions.
        let r = check(vec![], vec![], |b, _| {
            let v = b.thread_id();
            let i = b.ins(InstKind::ThreadId, &[]);
            b.func.insts[i].results.push(v);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ValueDefinition);
        // A recorded definition that disagrees with the placement.
        let r = check(vec![], vec![], |b, _| {
            let v = b.thread_id();
            let w = b.thread_id();
            b.func.values[w].def = b.func.values[v].def;
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ValueDefinition);
    }

    #[test]
    fn value_visibility() {
        // Used after the `if` whose region defines it.
        let r = check(vec![Type::BOOL], vec![Type::I32], |b, ps| {
            let (_, t, e) = b.if_(ps[0], &[]);
            b.switch_to(t);
            let inner = b.iconst(Scalar::I32, 1);
            b.yield_(vec![]);
            b.switch_to(e);
            b.yield_(vec![]);
            b.switch_to(b.func.body);
            b.return_(vec![inner]);
        });
        assert_eq!(rule_of(r), Rule::ValueVisibility);
        // Used before its definition.
        let r = check(vec![], vec![Type::I32], |b, _| {
            let c = b.iconst(Scalar::I32, 1);
            let s = b.binary(BinaryOp::Add, c, c);
            b.return_(vec![s]);
            let body = b.func.body;
            b.func.regions[body].insts.swap(0, 1);
        });
        assert_eq!(rule_of(r), Rule::ValueVisibility);
        // A result used inside its own instruction's region.
        let r = check(vec![Type::BOOL], vec![], |b, ps| {
            let (i, t, e) = b.if_(ps[0], &[Type::I32]);
            let res = b.func.results(i)[0];
            b.switch_to(t);
            b.yield_(vec![res]);
            b.switch_to(e);
            b.yield_(vec![res]);
            b.switch_to(b.func.body);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ValueVisibility);
    }

    fn in_loop(body_fill: impl FnOnce(&mut FuncBuilder, Value)) -> Result<(), VerifyError> {
        check(vec![], vec![], |b, _| {
            let z = b.iconst(Scalar::I32, 0);
            let (_, body, ps) = b.loop_(vec![z], &[Type::I32]);
            b.switch_to(body);
            body_fill(b, ps[0]);
            b.switch_to(b.func.body);
            b.return_(vec![]);
        })
    }

    #[test]
    fn yield_rule() {
        // In a loop body.
        let r = in_loop(|b, _| b.yield_(vec![]));
        assert_eq!(rule_of(r), Rule::Yield);
        // Wrong types.
        let r = check(vec![Type::BOOL], vec![], |b, ps| {
            let (_, t, e) = b.if_(ps[0], &[Type::I32]);
            b.switch_to(t);
            let f = b.fconst(Scalar::F32, 1.0);
            b.yield_(vec![f]);
            b.switch_to(e);
            let i = b.iconst(Scalar::I32, 1);
            b.yield_(vec![i]);
            b.switch_to(b.func.body);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Yield);
    }

    #[test]
    fn continue_rule() {
        let r = check(vec![], vec![], |b, _| b.continue_(vec![]));
        assert_eq!(rule_of(r), Rule::Continue);
        let r = in_loop(|b, _| {
            let f = b.fconst(Scalar::F32, 1.0);
            b.continue_(vec![f]);
        });
        assert_eq!(rule_of(r), Rule::Continue);
        // The matching form is accepted.
        assert_eq!(in_loop(|b, p| b.continue_(vec![p])), Ok(()));
    }

    #[test]
    fn break_rule() {
        let r = check(vec![], vec![], |b, _| b.break_(vec![]));
        assert_eq!(rule_of(r), Rule::Break);
        let r = in_loop(|b, _| b.break_(vec![]));
        assert_eq!(rule_of(r), Rule::Break);
        assert_eq!(in_loop(|b, p| b.break_(vec![p])), Ok(()));
    }

    #[test]
    fn return_rule() {
        let r = check(vec![], vec![Type::F32], |b, _| {
            let i = b.iconst(Scalar::I32, 0);
            b.return_(vec![i]);
        });
        assert_eq!(rule_of(r), Rule::Return);
    }

    #[test]
    fn loop_init() {
        let r = check(vec![], vec![], |b, _| {
            let z = b.iconst(Scalar::I32, 0);
            let (lp, body, _) = b.loop_(vec![z], &[]);
            b.func.regions[body].params.clear();
            b.func.add_region_param(body, Type::F32);
            let _ = lp;
            b.switch_to(body);
            b.break_(vec![]);
            b.switch_to(b.func.body);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::LoopInit);
    }

    #[test]
    fn result_types() {
        let r = check(vec![Type::I32], vec![], |b, ps| {
            b.ins1(InstKind::Binary(BinaryOp::Add, ps[0], ps[0]), Type::F64);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ResultTypes);
        let r = check(vec![], vec![], |b, _| {
            b.ins(InstKind::ThreadId, &[Type::I32, Type::I32]);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ResultTypes);
    }

    #[test]
    fn operand_types() {
        type Fill = Box<dyn FnOnce(&mut FuncBuilder, &[Value])>;
        let cases: Vec<Fill> = vec![
            // i32 + f32
            Box::new(|b, ps| {
                b.binary(BinaryOp::Add, ps[0], ps[1]);
            }),
            // sqrt of an int
            Box::new(|b, ps| {
                b.unary(UnaryOp::Sqrt, ps[0]);
            }),
            // shift of floats
            Box::new(|b, ps| {
                b.binary(BinaryOp::Shl, ps[1], ps[1]);
            }),
            // xor of floats
            Box::new(|b, ps| {
                b.binary(BinaryOp::Xor, ps[1], ps[1]);
            }),
            // fma of ints
            Box::new(|b, ps| {
                b.fma(ps[0], ps[0], ps[0]);
            }),
            // bitcast between sizes
            Box::new(|b, ps| {
                b.bitcast(ps[0], Scalar::F64);
            }),
            // select on a non-bool condition
            Box::new(|b, ps| {
                b.select(ps[0], ps[1], ps[1]);
            }),
            // make with a missing component
            Box::new(|b, ps| {
                b.make(Type::Vec(3, Scalar::F32), vec![ps[1], ps[1]]);
            }),
            // make of a scalar
            Box::new(|b, ps| {
                b.make(Type::F32, vec![ps[1]]);
            }),
            // cast of an array
            Box::new(|b, ps| {
                b.cast(ps[2], Scalar::I32);
            }),
            // print of an array
            Box::new(|b, ps| {
                b.print("%d", vec![ps[2]]);
            }),
        ];
        for (i, fill) in cases.into_iter().enumerate() {
            let r = check(
                vec![Type::I32, Type::F32, arr(Scalar::I32, 1)],
                vec![],
                |b, ps| {
                    fill(b, ps);
                    b.return_(vec![]);
                },
            );
            assert_eq!(rule_of(r), Rule::OperandTypes, "case {i}");
        }
        // `if` on a non-bool.
        let r = check(vec![Type::I32], vec![], |b, ps| {
            let (_, t, e) = b.if_(ps[0], &[]);
            for r in [t, e] {
                b.switch_to(r);
                b.yield_(vec![]);
            }
            b.switch_to(b.func.body);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::OperandTypes);
    }

    #[test]
    fn path() {
        let v3 = Type::Vec(3, Scalar::F32);
        let r = check(vec![v3], vec![], |b, ps| {
            b.extract(ps[0], vec![3]);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Path);
        let r = check(vec![v3], vec![], |b, ps| {
            b.extract(ps[0], vec![]);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Path);
        let r = check(vec![v3, Type::I32], vec![], |b, ps| {
            b.insert(ps[0], vec![0], ps[1]);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Path);
        let r = check(vec![arr(Scalar::F32, 1), Type::I32], vec![], |b, ps| {
            b.load(MemAccess {
                array: ps[0],
                indices: vec![ps[1]],
                path: vec![0],
            });
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Path);
    }

    #[test]
    fn array_access() {
        let a = arr(Scalar::F32, 2);
        let m = |array, indices| MemAccess {
            array,
            indices,
            path: vec![],
        };
        // Not an array.
        let r = check(vec![a, Type::I32, Type::F32], vec![], |b, ps| {
            b.load(m(ps[1], vec![ps[1]]));
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ArrayAccess);
        // One index for two dimensions.
        let r = check(vec![a, Type::I32, Type::F32], vec![], |b, ps| {
            b.load(m(ps[0], vec![ps[1]]));
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ArrayAccess);
        // A float index.
        let r = check(vec![a, Type::I32, Type::F32], vec![], |b, ps| {
            b.load(m(ps[0], vec![ps[1], ps[2]]));
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ArrayAccess);
        // Storing an int into a float array.
        let r = check(vec![a, Type::I32, Type::F32], vec![], |b, ps| {
            b.store(m(ps[0], vec![ps[1], ps[1]]), ps[1]);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ArrayAccess);
        // array_shape of a scalar.
        let r = check(vec![a, Type::I32, Type::F32], vec![], |b, ps| {
            b.array_shape(ps[1], 0);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ArrayAccess);
    }

    #[test]
    fn atomic() {
        let m = |array, i| MemAccess {
            array,
            indices: vec![i],
            path: vec![],
        };
        let r = check(
            vec![arr(Scalar::Bool, 1), Type::I32, Type::BOOL],
            vec![],
            |b, ps| {
                b.atomic(AtomicOp::Exchange, m(ps[0], ps[1]), ps[2]);
                b.return_(vec![]);
            },
        );
        assert_eq!(rule_of(r), Rule::Atomic);
        let r = check(
            vec![arr(Scalar::F32, 1), Type::I32, Type::F32],
            vec![],
            |b, ps| {
                b.atomic(AtomicOp::And, m(ps[0], ps[1]), ps[2]);
                b.return_(vec![]);
            },
        );
        assert_eq!(rule_of(r), Rule::Atomic);
        let r = check(
            vec![arr(Scalar::F32, 1), Type::I32, Type::F32],
            vec![],
            |b, ps| {
                b.atomic(AtomicOp::Add, m(ps[0], ps[1]), ps[1]);
                b.return_(vec![]);
            },
        );
        assert_eq!(rule_of(r), Rule::Atomic);
        // Aggregates of floats are fine.
        let va = Type::Array(ArrayType {
            elem: ElemType::Vec(3, Scalar::F32),
            ndim: 1,
        });
        let r = check(
            vec![va, Type::I32, Type::Vec(3, Scalar::F32)],
            vec![],
            |b, ps| {
                b.atomic(AtomicOp::Add, m(ps[0], ps[1]), ps[2]);
                b.return_(vec![]);
            },
        );
        assert_eq!(r, Ok(()));
    }

    #[test]
    fn atomic_cas() {
        let m = |array, i| MemAccess {
            array,
            indices: vec![i],
            path: vec![],
        };
        let cas = |elem: Scalar, operand: Type| {
            check(vec![arr(elem, 1), Type::I32, operand], vec![], |b, ps| {
                b.atomic_cas(m(ps[0], ps[1]), ps[2], ps[2]);
                b.return_(vec![]);
            })
        };
        assert_eq!(cas(Scalar::F64, Type::Scalar(Scalar::F64)), Ok(()));
        assert_eq!(cas(Scalar::U32, Type::Scalar(Scalar::U32)), Ok(()));
        // 16-bit and bool elements have no compare-and-swap.
        assert_eq!(
            rule_of(cas(Scalar::F16, Type::Scalar(Scalar::F16))),
            Rule::Atomic
        );
        assert_eq!(
            rule_of(cas(Scalar::I16, Type::Scalar(Scalar::I16))),
            Rule::Atomic
        );
        // The operands have the element's type.
        assert_eq!(rule_of(cas(Scalar::I32, Type::F32)), Rule::Atomic);
    }

    #[test]
    fn axis() {
        let r = check(vec![], vec![], |b, _| {
            b.launch_dim(4);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Axis);
        let r = check(vec![arr(Scalar::F32, 1)], vec![], |b, ps| {
            b.array_shape(ps[0], 1);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Axis);
    }

    #[test]
    fn call() {
        let callee = |kind| {
            let mut m = Module::new();
            let mut g = Function::new("g", kind, vec![param(Type::I32)], vec![]);
            FuncBuilder::new(&mut g, &m.structs).return_(vec![]);
            let id = m.funcs.push(g);
            (m, id)
        };
        // Missing callee.
        let r = check(vec![], vec![], |b, _| {
            b.call(FuncId::from_u32(7), vec![], &[]);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Call);
        // A kernel.
        let (mut m, g) = callee(FuncKind::Kernel);
        let r = check_with(&mut m, FuncKind::Func, vec![Type::I32], vec![], |b, ps| {
            b.call(g, vec![ps[0]], &[]);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Call);
        // Wrong argument type.
        let (mut m, g) = callee(FuncKind::Func);
        let r = check_with(&mut m, FuncKind::Func, vec![Type::F32], vec![], |b, ps| {
            b.call(g, vec![ps[0]], &[]);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Call);
        // Wrong result count.
        let (mut m, g) = callee(FuncKind::Func);
        let r = check_with(&mut m, FuncKind::Func, vec![Type::I32], vec![], |b, ps| {
            b.call(g, vec![ps[0]], &[Type::I32]);
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::Call);
        // The right call verifies.
        let (mut m, g) = callee(FuncKind::Func);
        let r = check_with(&mut m, FuncKind::Func, vec![Type::I32], vec![], |b, ps| {
            b.call(g, vec![ps[0]], &[]);
            b.return_(vec![]);
        });
        assert_eq!(r, Ok(()));
    }

    #[test]
    fn const_bits() {
        let r = check(vec![], vec![], |b, _| {
            b.konst(Const {
                ty: Scalar::I32,
                bits: 0xffff_ffff,
            });
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ConstBits);
        let r = check(vec![], vec![], |b, _| {
            b.konst(Const {
                ty: Scalar::F32,
                bits: 0.1f64.to_bits(),
            });
            b.return_(vec![]);
        });
        assert_eq!(rule_of(r), Rule::ConstBits);
    }

    #[test]
    fn garbage_does_not_panic() {
        // Dangling entities everywhere: the verifier reports, never panics.
        let mut f = Function::new("f", FuncKind::Func, vec![], vec![]);
        let body = f.body;
        f.regions[body].insts.push(Inst::from_u32(42));
        let m = Module::new();
        assert_eq!(rule_of(verify_function(&m, &f)), Rule::InstPlacement);
        let mut f = Function::new("f", FuncKind::Func, vec![], vec![]);
        f.body = Region::from_u32(5);
        assert_eq!(rule_of(verify_function(&m, &f)), Rule::Signature);
        let mut f = Function::new("f", FuncKind::Func, vec![], vec![]);
        let i = f.create_inst(InstKind::Return(vec![Value::from_u32(77)]), &[], Loc::NONE);
        f.regions[body].insts.push(i);
        let e = verify_function(&m, &f).unwrap_err();
        assert_eq!(e.rule, Rule::ValueDefinition);
        assert_eq!(e.inst.as_deref(), Some("return ?v77"));
    }
}
