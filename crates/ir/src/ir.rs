//! The IR data model: modules, functions, regions, instructions, values.
//!
//! # Shape
//!
//! A [`Module`] holds struct definitions, functions (kernels and funcs) and a
//! table of source files. A [`Function`] owns three arenas — values, insts and
//! regions — indexed by the entity types [`Value`], [`Inst`] and [`Region`].
//!
//! Control flow is *structured*. A [`Region`] is an ordered list of
//! instructions with block parameters; its last instruction is a
//! *terminator* ([`InstKind::Yield`], [`InstKind::Continue`],
//! [`InstKind::Break`] or [`InstKind::Return`]). Nested control flow is an
//! instruction that owns regions:
//!
//! * [`InstKind::If`]: `cond`, a `then` and an `else` region (no params). A
//!   region that ends in `yield vs` makes `vs` the `if`'s results.
//! * [`InstKind::Loop`]: `init` values bound to the body region's params on
//!   entry. `continue vs` starts the next iteration with params `vs`;
//!   `break vs` leaves the loop with results `vs`. `break`/`continue` may
//!   appear in any region nested in the loop body (through `if`s, not through
//!   another loop: they refer to the innermost loop).
//! * `return vs` leaves the function from any depth.
//!
//! The function body is a region whose params are the function's params and
//! which ends in `return`.
//!
//! # Values
//!
//! Every value is defined once: as a region parameter or as a result of an
//! instruction (an instruction has zero or more results, e.g. a call to a
//! func returning a tuple). A value may be used in the region that defines
//! it after its definition, and in any region nested inside that one.
//!
//! # Source locations
//!
//! Every instruction carries a [`Loc`]: file (index into
//! [`Module::files`]), line and column, 1-based. Values may carry a debug
//! name (the Python variable they were assigned to).

use crate::types::{StructTable, Type};
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};
use smallvec::SmallVec;

/// An SSA value.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// An instruction.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A region: an ordered instruction list with block parameters.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region(u32);
entity_impl!(Region, "region");

/// A function (kernel or func) of a module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "fn");

/// A struct definition of a module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(u32);
entity_impl!(StructId, "struct");

/// A source location: file index into [`Module::files`], 1-based line and
/// column. `Loc::NONE` (line 0) means "no location".
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

impl Loc {
    pub const NONE: Loc = Loc {
        file: 0,
        line: 0,
        col: 0,
    };
    pub fn new(file: u32, line: u32, col: u32) -> Loc {
        Loc { file, line, col }
    }
    pub fn is_none(self) -> bool {
        self.line == 0
    }
}

/// A source location with its file's name: where a backend's
/// `Unsupported` and `Invalid` errors point. Displayed `file:line:col`
/// (`<unknown>` for a location without a file, `:0:0` for none).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct SourcePos {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for SourcePos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// A compilation unit: structs, functions, source files.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub structs: StructTable,
    pub funcs: PrimaryMap<FuncId, Function>,
    /// Source file names; [`Loc::file`] indexes this list.
    pub files: Vec<String>,
}

impl Module {
    pub fn new() -> Module {
        Module::default()
    }
    /// `loc` with its file's name ([`Module::files`]).
    pub fn source_pos(&self, loc: Loc) -> SourcePos {
        SourcePos {
            file: self
                .files
                .get(loc.file as usize)
                .cloned()
                .unwrap_or_else(|| "<unknown>".to_string()),
            line: loc.line,
            col: loc.col,
        }
    }
    /// Finds a function by name (kernels and funcs share one namespace in
    /// the IR; the frontend mangles overloads).
    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.funcs
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }
    pub fn kernels(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.funcs
            .iter()
            .filter(|(_, f)| f.kind == FuncKind::Kernel)
    }
    /// The kernels, then every function reachable from them through
    /// `Call`s, each once, in discovery order (what a backend compiles).
    pub fn reachable_funcs(&self) -> Vec<FuncId> {
        self.reachable_from(self.kernels().map(|(id, _)| id))
    }
    /// `roots` (each once), then every function reachable from them
    /// through `Call`s, each once, in discovery order.
    pub fn reachable_from(&self, roots: impl IntoIterator<Item = FuncId>) -> Vec<FuncId> {
        let mut order: Vec<FuncId> = Vec::new();
        let mut seen: std::collections::HashSet<FuncId> = std::collections::HashSet::new();
        for r in roots {
            if self.funcs.get(r).is_some() && seen.insert(r) {
                order.push(r);
            }
        }
        let mut i = 0;
        while i < order.len() {
            for (_, d) in self.funcs[order[i]].insts.iter() {
                if let InstKind::Call(callee, _) = &d.kind {
                    if self.funcs.get(*callee).is_some() && seen.insert(*callee) {
                        order.push(*callee);
                    }
                }
            }
            i += 1;
        }
        order
    }
    /// Interns a file name, returning its index for [`Loc::file`].
    pub fn file_index(&mut self, name: &str) -> u32 {
        if let Some(i) = self.files.iter().position(|f| f == name) {
            return i as u32;
        }
        self.files.push(name.to_string());
        (self.files.len() - 1) as u32
    }
}

/// Kernel (launched over a grid of threads) or func (called).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FuncKind {
    Kernel,
    Func,
}

/// A function parameter: its name (from the source) and type.
#[derive(Clone, PartialEq, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Type,
}

/// Per-value data.
#[derive(Clone, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

/// Where a value is defined.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// The `index`th result of an instruction.
    Result(Inst, u32),
    /// The `index`th parameter of a region.
    Param(Region, u32),
}

/// Per-region data.
#[derive(Clone, Debug, Default)]
pub struct RegionData {
    pub params: Vec<Value>,
    pub insts: Vec<Inst>,
}

/// Per-instruction data.
#[derive(Clone, Debug)]
pub struct InstData {
    pub kind: InstKind,
    pub results: SmallVec<[Value; 1]>,
    pub loc: Loc,
    /// Fast-math permissions of this operation (empty: exact IEEE
    /// semantics). See [`MathFlags`].
    pub flags: MathFlags,
    /// Warp's in-place component write (`v[1] = e`, `v.y = e`, `m[0, 1] = e`
    /// on a local vector, matrix or quaternion); only on [`InstKind::Insert`].
    /// It changes nothing in the forward semantics. The adjoint pass gives
    /// the aggregate operand the result's *whole* adjoint, the overwritten
    /// component's included, as Warp 1.19's `adj_assign_inplace` does (see
    /// `docs/autodiff.md`). Text form: an `inplace` suffix.
    pub inplace: bool,
}

/// Per-operation fast-math permissions, a set of bits.
///
/// Empty (the default) means the operation has exactly the semantics the
/// interpreter gives it. Each bit *allows* a backend to deviate; none
/// requires it, so the interpreter (the precise oracle) ignores them all.
/// Only float `unary`, `binary` and `fma` operations may carry flags (the
/// verifier's [`crate::verify::Rule::MathFlags`]). The text form is a
/// `fast(contract,afn,nnan,ninf)` suffix before the location.
///
/// * [`MathFlags::CONTRACT`] (`contract`): this operation may be fused with
///   another that also carries it — `add(mul(a, b), c)` may become one
///   `fma(a, b, c)` rounded once.
/// * [`MathFlags::APPROX_FUNC`] (`afn`): transcendentals, `sqrt` and
///   division may use approximations (e.g. PTX `.approx`, HLSL intrinsics
///   without `precise`).
/// * [`MathFlags::NO_NANS`] (`nnan`): operands and result may be assumed not
///   NaN (the result is unspecified if one is).
/// * [`MathFlags::NO_INFS`] (`ninf`): likewise for infinities.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct MathFlags(u8);

impl MathFlags {
    pub const NONE: MathFlags = MathFlags(0);
    pub const CONTRACT: MathFlags = MathFlags(1);
    pub const APPROX_FUNC: MathFlags = MathFlags(2);
    pub const NO_NANS: MathFlags = MathFlags(4);
    pub const NO_INFS: MathFlags = MathFlags(8);
    /// Every flag.
    pub const ALL: MathFlags = MathFlags(15);
    /// Each flag with its text-form name, in printing order.
    pub const NAMES: [(MathFlags, &'static str); 4] = [
        (MathFlags::CONTRACT, "contract"),
        (MathFlags::APPROX_FUNC, "afn"),
        (MathFlags::NO_NANS, "nnan"),
        (MathFlags::NO_INFS, "ninf"),
    ];
    pub fn bits(self) -> u8 {
        self.0
    }
    /// The set of the given bits; unknown bits are dropped.
    pub fn from_bits(bits: u8) -> MathFlags {
        MathFlags(bits & MathFlags::ALL.0)
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// True if every flag of `other` is set in `self`.
    pub fn contains(self, other: MathFlags) -> bool {
        self.0 & other.0 == other.0
    }
    pub const fn union(self, other: MathFlags) -> MathFlags {
        MathFlags(self.0 | other.0)
    }
    /// The flag called `name` in the text form.
    pub fn from_name(name: &str) -> Option<MathFlags> {
        MathFlags::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(f, _)| *f)
    }
    /// The text-form names of the flags set, in printing order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        MathFlags::NAMES
            .into_iter()
            .filter(move |(f, _)| self.contains(*f))
            .map(|(_, n)| n)
    }
}

impl std::ops::BitOr for MathFlags {
    type Output = MathFlags;
    fn bitor(self, rhs: MathFlags) -> MathFlags {
        self.union(rhs)
    }
}

/// Memory layout of an array whose elements are aggregates.
///
/// * `Aos` (array of structures, the default and Warp's layout): each element
///   is stored whole, in its C data layout (see [`crate::layout`]).
/// * `Soa` (structure of arrays): each scalar slot of the element type (in
///   [`crate::layout::slots`] order) is stored as its own plane of scalars.
///   Only element types made of one scalar type qualify (vectors, matrices,
///   quaternions, transforms, and structs whose fields all share one
///   scalar).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum ArrayLayout {
    #[default]
    Aos,
    Soa,
}

/// A kernel array parameter that the `soa` pass lowered to structure of
/// arrays.
///
/// The user-facing parameter was `array(elem, ndim)`. After the pass the
/// kernel's parameter `param` has type `array(S, ndim + 1)`, `S` being the
/// one scalar type of `elem`: its first `ndim` axes are the user's axes, and
/// its last axis selects the scalar slot (the plane). The runtime passes an
/// SoA array with `shape[ndim]` = number of slots and `strides[ndim]` = the
/// byte distance between planes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct SoaParam {
    /// Index into [`Function::params`].
    pub param: u32,
    /// The element type the user sees.
    pub elem: crate::ElemType,
    /// The user-visible dimensionality (1..=3).
    pub ndim: u8,
}

/// A function: signature, arenas, and its body region.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub kind: FuncKind,
    pub params: Vec<Param>,
    pub returns: Vec<Type>,
    /// Where the function is defined (the `def` line).
    pub loc: Loc,
    pub values: PrimaryMap<Value, ValueData>,
    pub insts: PrimaryMap<Inst, InstData>,
    pub regions: PrimaryMap<Region, RegionData>,
    /// Debug names of values (Python variable names); empty when unknown.
    pub value_names: SecondaryMap<Value, String>,
    pub body: Region,
    /// Layouts asked for in the source (a `# weft: layout=soa` hint on a
    /// kernel parameter): `(param index, layout)`. Read by the `soa` pass.
    pub layout_hints: Vec<(u32, ArrayLayout)>,
    /// Parameters the `soa` pass lowered to structure of arrays (kernels
    /// only); empty when every array is in the default layout.
    pub soa_params: Vec<SoaParam>,
    /// Fast math asked for in the source (`wp.set_module_options({"fast_math":
    /// True})`, or a kernel's `module_options`): the `fast-math` pass flags
    /// this function's float arithmetic even without the API option. Printed
    /// as the `fast_math` function attribute.
    pub fast_math: bool,
    /// Deterministic launches asked for (`wp.set_module_options({"deterministic":
    /// ...})`, Warp's `wp.config.deterministic`, or the API's
    /// `CompileOptions::deterministic`): a kernel's results must not depend
    /// on how many threads run it or in what order. What that takes is
    /// [`crate::info::Determinism`]; `docs/runtime.md`, "Deterministic
    /// launches". Printed as the `deterministic` function attribute.
    pub deterministic: bool,
    /// Whether a backward (adjoint) function may be generated for this
    /// kernel: Warp's `enable_backward` module or kernel option (default
    /// true). Printed as the `no_backward` attribute when false.
    pub backward: bool,
    /// A custom adjoint (`@wp.func_grad`): the adjoint pass calls it instead
    /// of generating one, at every call of this func. Its params are this
    /// func's params followed by one adjoint per return value; it returns
    /// one adjoint per param, of the param's type (see `docs/autodiff.md`).
    /// Printed as `adjoint(@g)`.
    pub custom_adjoint: Option<FuncId>,
    /// A custom replay (`@wp.func_replay`): called instead of this func when
    /// a backward function recomputes the forward values; same signature.
    /// Printed as `replay(@r)`.
    pub custom_replay: Option<FuncId>,
    /// `wp.grad(f)`: this func is the gradient of func `f` (its params,
    /// which are by value; it returns one adjoint per param, with the
    /// adjoint of each of `f`'s results 1), a placeholder until
    /// `weft_passes::adjoint::expand_grads` gives it its body (the first
    /// step of every pass pipeline). Printed as `grad(@f)`.
    pub grad_of: Option<FuncId>,
}

impl Function {
    /// A new function with an empty body region whose params are the
    /// function's params.
    pub fn new(name: &str, kind: FuncKind, params: Vec<Param>, returns: Vec<Type>) -> Function {
        let mut f = Function {
            name: name.to_string(),
            kind,
            params: Vec::new(),
            returns,
            loc: Loc::NONE,
            values: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            regions: PrimaryMap::new(),
            value_names: SecondaryMap::new(),
            body: Region::from_u32(0),
            layout_hints: Vec::new(),
            soa_params: Vec::new(),
            fast_math: false,
            deterministic: false,
            backward: true,
            custom_adjoint: None,
            custom_replay: None,
            grad_of: None,
        };
        let body = f.regions.push(RegionData::default());
        f.body = body;
        for p in &params {
            let v = f.add_region_param(body, p.ty);
            f.value_names[v] = p.name.clone();
        }
        f.params = params;
        f
    }
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }
    /// The scalar an `atomic_cas` on an element of type `elem` with
    /// operands `compare` and `value` swaps, or what is wrong with it (the
    /// check backends repeat before emitting; the verifier's rule).
    pub fn atomic_cas_scalar(
        &self,
        elem: Type,
        compare: Value,
        value: Value,
    ) -> Result<crate::Scalar, &'static str> {
        let Type::Scalar(s) = elem else {
            return Err("atomic_cas on an aggregate");
        };
        if self.value_type(compare) != elem || self.value_type(value) != elem {
            return Err("atomic_cas with operands of the wrong type");
        }
        Ok(s)
    }
    /// Appends a parameter to a region.
    pub fn add_region_param(&mut self, r: Region, ty: Type) -> Value {
        let idx = self.regions[r].params.len() as u32;
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Param(r, idx),
        });
        self.regions[r].params.push(v);
        v
    }
    /// Creates an instruction (not yet placed in a region) with results of
    /// the given types.
    pub fn create_inst(&mut self, kind: InstKind, result_types: &[Type], loc: Loc) -> Inst {
        let inst = self.insts.push(InstData {
            kind,
            results: SmallVec::new(),
            loc,
            flags: MathFlags::NONE,
            inplace: false,
        });
        for (i, &ty) in result_types.iter().enumerate() {
            let v = self.values.push(ValueData {
                ty,
                def: ValueDef::Result(inst, i as u32),
            });
            self.insts[inst].results.push(v);
        }
        inst
    }
    pub fn new_region(&mut self) -> Region {
        self.regions.push(RegionData::default())
    }
    pub fn results(&self, inst: Inst) -> &[Value] {
        &self.insts[inst].results
    }
    pub fn first_result(&self, inst: Inst) -> Option<Value> {
        self.insts[inst].results.first().copied()
    }
    /// The body's params (one per function param).
    pub fn param_values(&self) -> &[Value] {
        &self.regions[self.body].params
    }
    /// The regions owned by an instruction, in order.
    pub fn inst_regions(&self, inst: Inst) -> SmallVec<[Region; 2]> {
        self.insts[inst].kind.regions()
    }
    /// Whether `inst` may carry [`MathFlags`]: a `unary`, `binary` or `fma`
    /// whose first operand is a float.
    pub fn accepts_math_flags(&self, inst: Inst) -> bool {
        let Some(d) = self.insts.get(inst) else {
            return false;
        };
        let x = match d.kind {
            InstKind::Unary(_, x) | InstKind::Binary(_, x, _) | InstKind::Fma(x, _, _) => x,
            _ => return false,
        };
        self.values
            .get(x)
            .and_then(|v| v.ty.as_scalar())
            .is_some_and(|s| s.is_float())
    }
    /// The debug name of a value, if any.
    pub fn value_name(&self, v: Value) -> Option<&str> {
        self.value_names
            .get(v)
            .filter(|s| !s.is_empty())
            .map(|s| s.as_str())
    }
    /// Whether `v` is a region param whose name an earlier param of the
    /// same region has (a loop's `(j, acc, j)`: the second `j` is the value
    /// the loop leaves behind, not the current one).
    pub fn shadowed_param(&self, v: Value) -> bool {
        let Some(ValueDef::Param(r, k)) = self.values.get(v).map(|d| d.def) else {
            return false;
        };
        let name = self.value_name(v);
        self.regions
            .get(r)
            .and_then(|rd| rd.params.get(..k as usize))
            .is_some_and(|ps| ps.iter().any(|&p| self.value_name(p) == name))
    }
    /// The source variable `v` holds, as the debugger shows it: its debug
    /// name, unless it is a [`Function::shadowed_param`] or an array
    /// handle.
    pub fn var_name(&self, v: Value) -> Option<&str> {
        let name = self.value_name(v)?;
        let ty = self.values.get(v)?.ty;
        (!matches!(ty, crate::Type::Array(_)) && !self.shadowed_param(v)).then_some(name)
    }
}

/// Unary operators. Result type equals the operand type except for the
/// `Is*` predicates, which return `bool`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum UnaryOp {
    /// Arithmetic negation (wrapping for integers).
    Neg,
    /// Logical not (bool) or bitwise not (integers).
    Not,
    Abs,
    Sqrt,
    Cbrt,
    Floor,
    Ceil,
    Trunc,
    /// Round half away from zero.
    Round,
    /// Round half to even.
    Rint,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Exp2,
    Log,
    Log2,
    Log10,
    Erf,
    Erfc,
    Erfinv,
    /// Population count (integers).
    Popcount,
    IsNan,
    IsInf,
    IsFinite,
}

/// Binary operators on two operands of the same scalar type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BinaryOp {
    /// Wrapping for integers.
    Add,
    Sub,
    Mul,
    /// Integer: truncating division (division by zero yields 0). Float: IEEE.
    Div,
    /// Integer: remainder with the sign of the dividend (`x % 0` yields 0).
    /// Float: `fmod`.
    Rem,
    /// Float: `fmin` (a NaN operand is ignored). Integer: min.
    Min,
    Max,
    Pow,
    Atan2,
    Copysign,
    /// Bitwise on integers, logical on bool.
    And,
    Or,
    Xor,
    /// Shift amount taken modulo the bit width.
    Shl,
    /// Arithmetic on signed, logical on unsigned types.
    Shr,
    // Comparisons: result is bool. Float comparisons are ordered (false on
    // NaN) except `Ne`, which is true on NaN.
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }
}

/// Read-modify-write operations of [`InstKind::Atomic`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exchange,
}

impl AtomicOp {
    /// The binary operation that combines two values as this op does
    /// (`add` → `add`, ...), for the ops a reduction may use; `None` for
    /// `sub` and `exchange`.
    pub fn combine(self) -> Option<BinaryOp> {
        Some(match self {
            AtomicOp::Add => BinaryOp::Add,
            AtomicOp::Min => BinaryOp::Min,
            AtomicOp::Max => BinaryOp::Max,
            AtomicOp::And => BinaryOp::And,
            AtomicOp::Or => BinaryOp::Or,
            AtomicOp::Xor => BinaryOp::Xor,
            AtomicOp::Sub | AtomicOp::Exchange => return None,
        })
    }
    /// The binary operation computing the value this op stores from the
    /// old value and the operand (`add` → `add`, `sub` → `sub`, ...);
    /// `None` for `exchange`, which stores the operand. Every backend's
    /// compare-and-swap loop and the interpreter use it.
    pub fn update(self) -> Option<BinaryOp> {
        match self {
            AtomicOp::Sub => Some(BinaryOp::Sub),
            AtomicOp::Exchange => None,
            op => op.combine(),
        }
    }
    /// The value that leaves every operand as it is when combined with
    /// this op on `s` (`-0.0` for float `add`, `+inf`/`-inf` for float
    /// `min`/`max`, the type's extremes for integer `min`/`max`, all ones
    /// for `and`, zero otherwise): the start of a reduction's accumulator.
    pub fn identity(self, s: crate::Scalar) -> Const {
        let bits = s.bits();
        let (min, max) = if s.is_signed_int() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        match (self, s.is_float()) {
            (AtomicOp::Add, true) => Const::float(s, -0.0),
            (AtomicOp::Min, true) => Const::float(s, f64::INFINITY),
            (AtomicOp::Max, true) => Const::float(s, f64::NEG_INFINITY),
            (AtomicOp::Min, false) => Const::from_i128(s, max),
            (AtomicOp::Max, false) => Const::from_i128(s, min),
            (AtomicOp::And, _) => Const::from_i128(s, -1),
            _ => Const::from_i128(s, 0),
        }
    }
}

/// A constant scalar: its type and bits. Integers are stored sign- or
/// zero-extended to 64 bits; floats of every width are stored as the `f64`
/// bits of their (exactly representable) value; bool is 0 or 1.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Const {
    pub ty: crate::Scalar,
    pub bits: u64,
}

impl Const {
    pub fn int(ty: crate::Scalar, v: i64) -> Const {
        Const::from_i128(ty, v as i128)
    }
    /// Wraps `v` into `ty` (integers) and normalises the stored bits.
    pub fn from_i128(ty: crate::Scalar, v: i128) -> Const {
        use crate::Scalar::*;
        let bits = match ty {
            Bool => (v != 0) as u64,
            I8 => v as i8 as i64 as u64,
            I16 => v as i16 as i64 as u64,
            I32 => v as i32 as i64 as u64,
            I64 => v as i64 as u64,
            U8 => v as u8 as u64,
            U16 => v as u16 as u64,
            U32 => v as u32 as u64,
            U64 => v as u64,
            F16 | F32 | F64 | BF16 => return Const::float(ty, v as f64),
        };
        Const { ty, bits }
    }
    /// A float constant; the value is rounded to `ty` first.
    pub fn float(ty: crate::Scalar, v: f64) -> Const {
        let v = match ty {
            crate::Scalar::F32 => v as f32 as f64,
            crate::Scalar::F16 => crate::f16::f16_to_f64(crate::f16::f64_to_f16(v)),
            crate::Scalar::BF16 => crate::f16::bf16_to_f32(crate::f16::f64_to_bf16(v)) as f64,
            _ => v,
        };
        Const {
            ty,
            bits: v.to_bits(),
        }
    }
    pub fn bool(b: bool) -> Const {
        Const {
            ty: crate::Scalar::Bool,
            bits: b as u64,
        }
    }
    /// The value as f64 (floats exact; integers converted).
    pub fn as_f64(self) -> f64 {
        if self.ty.is_float() {
            f64::from_bits(self.bits)
        } else if self.ty.is_signed_int() {
            self.bits as i64 as f64
        } else {
            self.bits as f64
        }
    }
    /// The value as i128 (integers exact, bool 0/1; floats truncated).
    pub fn as_i128(self) -> i128 {
        if self.ty.is_float() {
            f64::from_bits(self.bits) as i128
        } else if self.ty.is_signed_int() {
            self.bits as i64 as i128
        } else {
            self.bits as i128
        }
    }
}

/// The operation of an instruction.
///
/// Operand/result typing rules are listed per variant; the verifier checks
/// them all.
#[derive(Clone, Debug, PartialEq)]
pub enum InstKind {
    /// `-> c.ty`
    Const(Const),
    /// `(x: S) -> S` (or `bool` for `Is*`). Scalars only.
    Unary(UnaryOp, Value),
    /// `(a: S, b: S) -> S` (or `bool` for comparisons). Scalars only.
    Binary(BinaryOp, Value, Value),
    /// `fma(a, b, c) = a * b + c` rounded once. Floats only.
    Fma(Value, Value, Value),
    /// Scalar conversion `(x: S) -> to`: float→int truncates toward zero
    /// and saturates (NaN → 0); int→int wraps; float→float rounds to
    /// nearest even; →bool is `x != 0`; bool→number is 0/1.
    Cast(Value, crate::Scalar),
    /// Reinterprets bits between same-size scalars.
    Bitcast(Value, crate::Scalar),
    /// `(c: bool, a: T, b: T) -> T`, any non-array T: `c ? a : b`, both
    /// evaluated.
    Select(Value, Value, Value),
    /// Builds an aggregate of type `ty` from its components in path order:
    /// vector/quat/transform: N scalars; matrix: R row vectors; struct: one
    /// value per field.
    Make(Type, Vec<Value>),
    /// `(agg, path) -> component type at path`.
    Extract(Value, Vec<u32>),
    /// `(agg, path, v) -> agg` with the component at `path` replaced by v.
    Insert(Value, Vec<u32>, Value),
    /// The thread's linear index in the launch, `i32`, in `0..product(dim)`.
    ThreadId,
    /// Launch dimension `axis` (0..4), `i32`; 1 for axes past the launch's
    /// dimensionality.
    LaunchDim(u8),
    /// Threads per block of the launch, `i32`: each device defines it (1 on
    /// the CPU devices, as Warp's CPU; the block size on CUDA; the
    /// workgroup size on Vulkan).
    BlockDim,
    /// Size of an array along `axis` (< ndim), `i32`.
    ArrayShape(Value, u8),
    /// `array[indices].path -> T` (one `i32`-or-any-int index per dim).
    Load(MemAccess),
    /// `array[indices].path = value` (no result).
    Store(MemAccess, Value),
    /// Atomic read-modify-write on `array[indices].path`, returning the old
    /// value. For aggregates, each scalar component is updated atomically on
    /// its own.
    Atomic(AtomicOp, MemAccess, Value),
    /// `(mem, compare, value)`: atomic compare-and-swap on the scalar at
    /// `array[indices].path`: stores `value` if the element's bits equal
    /// `compare`'s, and returns the old value either way. Integers or
    /// floats of 32 or 64 bits; floats compare by bits (`-0.0` differs
    /// from `0.0`, a NaN matches a NaN of the same bits).
    AtomicCas(MemAccess, Value, Value),
    /// Calls a func: `args` match its params, results match its returns.
    Call(FuncId, Vec<Value>),
    /// printf-style output: `%d %i %u %f %g %e %x %s %%` consume `args` in
    /// order (aggregates print as their components). Not compared by tests.
    Print(String, Vec<Value>),
    /// Structured `if`; results are yielded by both regions.
    If {
        cond: Value,
        then_region: Region,
        else_region: Region,
    },
    /// Structured loop; see the module docs.
    Loop { init: Vec<Value>, body: Region },
    // ---- terminators (last instruction of a region, and only there) ----
    /// Ends an `if` region, giving the `if`'s results.
    Yield(Vec<Value>),
    /// Starts the next iteration of the innermost loop with these params.
    Continue(Vec<Value>),
    /// Leaves the innermost loop with these results.
    Break(Vec<Value>),
    /// Returns from the function.
    Return(Vec<Value>),
    /// Stops the thread with an error (bounds-checked mode, see
    /// `weft_passes::bounds`): the launch reports `kind` at this
    /// instruction's [`Loc`] with the operands (for
    /// [`TrapKind::OutOfBounds`]: `index: i64, size: i64`; for
    /// [`TrapKind::DivByZero`]: none). No later instruction of the thread
    /// runs; other threads are not stopped.
    Trap(TrapKind, Vec<Value>),
}

/// What an [`InstKind::Trap`] reports.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum TrapKind {
    /// An array index outside `0..size` on `axis`.
    OutOfBounds { axis: u8 },
    /// Integer division or remainder by zero.
    DivByZero,
}

impl TrapKind {
    /// The `u32` code the backends pass to the runtime: `axis` (0..4) for
    /// an out-of-bounds index, [`TrapKind::DIV_BY_ZERO_CODE`] for a
    /// division by zero.
    pub fn code(self) -> u32 {
        match self {
            TrapKind::OutOfBounds { axis } => axis as u32,
            TrapKind::DivByZero => TrapKind::DIV_BY_ZERO_CODE,
        }
    }
    pub const DIV_BY_ZERO_CODE: u32 = 0x100;
    /// The inverse of [`TrapKind::code`].
    pub fn from_code(code: u32) -> Option<TrapKind> {
        match code {
            0..=3 => Some(TrapKind::OutOfBounds { axis: code as u8 }),
            TrapKind::DIV_BY_ZERO_CODE => Some(TrapKind::DivByZero),
            _ => None,
        }
    }
}

/// An array access: the array handle, one index per dimension, and a
/// component path inside the element (empty for the whole element).
#[derive(Clone, Debug, PartialEq)]
pub struct MemAccess {
    pub array: Value,
    pub indices: Vec<Value>,
    pub path: Vec<u32>,
}

impl InstKind {
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstKind::Yield(_)
                | InstKind::Continue(_)
                | InstKind::Break(_)
                | InstKind::Return(_)
                | InstKind::Trap(..)
        )
    }
    /// True if the instruction has an effect beyond its results (memory,
    /// output, control flow), so it may not be removed when unused.
    pub fn has_side_effects(&self) -> bool {
        matches!(
            self,
            InstKind::Print(..) | InstKind::Call(..) | InstKind::If { .. } | InstKind::Loop { .. }
        ) || self.writes_array()
            || self.is_terminator()
    }
    /// True for the instructions that write array memory themselves
    /// (`store`, `atomic`, `atomic_cas`; calls and regions aside).
    pub fn writes_array(&self) -> bool {
        matches!(
            self,
            InstKind::Store(..) | InstKind::Atomic(..) | InstKind::AtomicCas(..)
        )
    }
    /// The array access of a `load`, `store`, `atomic` or `atomic_cas`.
    pub fn mem_access(&self) -> Option<&MemAccess> {
        match self {
            InstKind::Load(m)
            | InstKind::Store(m, _)
            | InstKind::Atomic(_, m, _)
            | InstKind::AtomicCas(m, ..) => Some(m),
            _ => None,
        }
    }
    /// The regions this instruction owns.
    pub fn regions(&self) -> SmallVec<[Region; 2]> {
        match self {
            InstKind::If {
                then_region,
                else_region,
                ..
            } => SmallVec::from_slice(&[*then_region, *else_region]),
            InstKind::Loop { body, .. } => SmallVec::from_slice(&[*body]),
            _ => SmallVec::new(),
        }
    }
    /// All value operands, in order.
    pub fn args(&self) -> SmallVec<[Value; 4]> {
        let mut out = SmallVec::new();
        self.for_each_arg(|v| out.push(v));
        out
    }
    fn for_each_arg(&self, mut f: impl FnMut(Value)) {
        let mem = |m: &MemAccess, f: &mut dyn FnMut(Value)| {
            f(m.array);
            m.indices.iter().for_each(|&v| f(v));
        };
        match self {
            InstKind::Const(_)
            | InstKind::ThreadId
            | InstKind::LaunchDim(_)
            | InstKind::BlockDim
            | InstKind::If { .. }
            | InstKind::Loop { .. } => {}
            InstKind::Unary(_, a) | InstKind::Cast(a, _) | InstKind::Bitcast(a, _) => f(*a),
            InstKind::Extract(a, _) | InstKind::ArrayShape(a, _) => f(*a),
            InstKind::Binary(_, a, b) | InstKind::Insert(a, _, b) => {
                f(*a);
                f(*b)
            }
            InstKind::Fma(a, b, c) | InstKind::Select(a, b, c) => {
                f(*a);
                f(*b);
                f(*c)
            }
            InstKind::Make(_, vs)
            | InstKind::Call(_, vs)
            | InstKind::Print(_, vs)
            | InstKind::Yield(vs)
            | InstKind::Continue(vs)
            | InstKind::Break(vs)
            | InstKind::Return(vs)
            | InstKind::Trap(_, vs) => vs.iter().for_each(|&v| f(v)),
            InstKind::Load(m) => mem(m, &mut f),
            InstKind::Store(m, v) | InstKind::Atomic(_, m, v) => {
                mem(m, &mut f);
                f(*v)
            }
            InstKind::AtomicCas(m, c, v) => {
                mem(m, &mut f);
                f(*c);
                f(*v)
            }
        }
        if let InstKind::If { cond, .. } = self {
            f(*cond)
        }
        if let InstKind::Loop { init, .. } = self {
            init.iter().for_each(|&v| f(v))
        }
    }
    /// Applies `f` to every value operand in place (for passes that
    /// substitute values).
    pub fn map_args(&mut self, mut f: impl FnMut(Value) -> Value) {
        let mem = |m: &mut MemAccess, f: &mut dyn FnMut(Value) -> Value| {
            m.array = f(m.array);
            m.indices.iter_mut().for_each(|v| *v = f(*v));
        };
        match self {
            InstKind::Const(_)
            | InstKind::ThreadId
            | InstKind::LaunchDim(_)
            | InstKind::BlockDim => {}
            InstKind::If { cond, .. } => *cond = f(*cond),
            InstKind::Loop { init, .. } => init.iter_mut().for_each(|v| *v = f(*v)),
            InstKind::Unary(_, a) | InstKind::Cast(a, _) | InstKind::Bitcast(a, _) => *a = f(*a),
            InstKind::Extract(a, _) | InstKind::ArrayShape(a, _) => *a = f(*a),
            InstKind::Binary(_, a, b) | InstKind::Insert(a, _, b) => {
                *a = f(*a);
                *b = f(*b)
            }
            InstKind::Fma(a, b, c) | InstKind::Select(a, b, c) => {
                *a = f(*a);
                *b = f(*b);
                *c = f(*c)
            }
            InstKind::Make(_, vs)
            | InstKind::Call(_, vs)
            | InstKind::Print(_, vs)
            | InstKind::Yield(vs)
            | InstKind::Continue(vs)
            | InstKind::Break(vs)
            | InstKind::Return(vs)
            | InstKind::Trap(_, vs) => vs.iter_mut().for_each(|v| *v = f(*v)),
            InstKind::Load(m) => mem(m, &mut f),
            InstKind::Store(m, v) | InstKind::Atomic(_, m, v) => {
                mem(m, &mut f);
                *v = f(*v)
            }
            InstKind::AtomicCas(m, c, v) => {
                mem(m, &mut f);
                *c = f(*c);
                *v = f(*v)
            }
        }
    }
}
