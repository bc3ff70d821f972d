//! A cursor for appending instructions to a function's regions.
//!
//! The builder infers result types from operand types; it does not check
//! them (the verifier does). Build a function, then push it into
//! [`Module::funcs`](crate::Module::funcs).

use crate::ir::*;
use crate::types::{Scalar, StructTable, Type};

pub struct FuncBuilder<'a> {
    pub func: &'a mut Function,
    pub structs: &'a StructTable,
    region: Region,
    loc: Loc,
    flags: MathFlags,
}

impl<'a> FuncBuilder<'a> {
    /// A builder appending to the function's body region.
    pub fn new(func: &'a mut Function, structs: &'a StructTable) -> Self {
        let region = func.body;
        FuncBuilder {
            func,
            structs,
            region,
            loc: Loc::NONE,
            flags: MathFlags::NONE,
        }
    }
    /// The region instructions are appended to.
    pub fn region(&self) -> Region {
        self.region
    }
    pub fn switch_to(&mut self, r: Region) {
        self.region = r;
    }
    /// The location given to the instructions built from now on.
    pub fn set_loc(&mut self, loc: Loc) {
        self.loc = loc;
    }
    pub fn loc(&self) -> Loc {
        self.loc
    }
    /// The fast-math flags given to the float operations built from now on
    /// (instructions that cannot carry flags get none).
    pub fn set_math_flags(&mut self, flags: MathFlags) {
        self.flags = flags;
    }
    pub fn math_flags(&self) -> MathFlags {
        self.flags
    }
    pub fn ty(&self, v: Value) -> Type {
        self.func.value_type(v)
    }
    /// Whether the current region already ends in a terminator.
    pub fn is_terminated(&self) -> bool {
        self.func.regions[self.region]
            .insts
            .last()
            .is_some_and(|&i| self.func.insts[i].kind.is_terminator())
    }
    /// Appends an instruction with the given result types.
    pub fn ins(&mut self, kind: InstKind, result_types: &[Type]) -> Inst {
        let inst = self.func.create_inst(kind, result_types, self.loc);
        if !self.flags.is_empty() && self.func.accepts_math_flags(inst) {
            self.func.insts[inst].flags = self.flags;
        }
        self.func.regions[self.region].insts.push(inst);
        inst
    }
    /// Appends an instruction with exactly one result and returns it.
    pub fn ins1(&mut self, kind: InstKind, ty: Type) -> Value {
        let i = self.ins(kind, &[ty]);
        self.func.insts[i].results[0]
    }
    pub fn name_value(&mut self, v: Value, name: &str) {
        self.func.value_names[v] = name.to_string();
    }

    pub fn konst(&mut self, c: Const) -> Value {
        self.ins1(InstKind::Const(c), Type::Scalar(c.ty))
    }
    pub fn iconst(&mut self, ty: Scalar, v: i64) -> Value {
        self.konst(Const::int(ty, v))
    }
    pub fn fconst(&mut self, ty: Scalar, v: f64) -> Value {
        self.konst(Const::float(ty, v))
    }
    pub fn bconst(&mut self, b: bool) -> Value {
        self.konst(Const::bool(b))
    }
    pub fn unary(&mut self, op: UnaryOp, x: Value) -> Value {
        let ty = match op {
            UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite => Type::BOOL,
            _ => self.ty(x),
        };
        self.ins1(InstKind::Unary(op, x), ty)
    }
    pub fn binary(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let ty = if op.is_comparison() {
            Type::BOOL
        } else {
            self.ty(a)
        };
        self.ins1(InstKind::Binary(op, a, b), ty)
    }
    pub fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        let ty = self.ty(a);
        self.ins1(InstKind::Fma(a, b, c), ty)
    }
    pub fn cast(&mut self, x: Value, to: Scalar) -> Value {
        self.ins1(InstKind::Cast(x, to), Type::Scalar(to))
    }
    pub fn bitcast(&mut self, x: Value, to: Scalar) -> Value {
        self.ins1(InstKind::Bitcast(x, to), Type::Scalar(to))
    }
    pub fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        self.ins1(InstKind::Select(c, a, b), ty)
    }
    pub fn make(&mut self, ty: Type, parts: Vec<Value>) -> Value {
        self.ins1(InstKind::Make(ty, parts), ty)
    }
    /// Extracts the component at `path`. The path must be valid for the
    /// aggregate's type; an invalid path yields a value of the aggregate's
    /// own type, which the verifier rejects.
    pub fn extract(&mut self, agg: Value, path: Vec<u32>) -> Value {
        let at = self.ty(agg);
        let ty = at.project_path(&path, self.structs).unwrap_or(at);
        self.ins1(InstKind::Extract(agg, path), ty)
    }
    pub fn insert(&mut self, agg: Value, path: Vec<u32>, v: Value) -> Value {
        let ty = self.ty(agg);
        self.ins1(InstKind::Insert(agg, path, v), ty)
    }
    pub fn thread_id(&mut self) -> Value {
        self.ins1(InstKind::ThreadId, Type::I32)
    }
    pub fn launch_dim(&mut self, axis: u8) -> Value {
        self.ins1(InstKind::LaunchDim(axis), Type::I32)
    }
    pub fn block_dim(&mut self) -> Value {
        self.ins1(InstKind::BlockDim, Type::I32)
    }
    pub fn array_shape(&mut self, arr: Value, axis: u8) -> Value {
        self.ins1(InstKind::ArrayShape(arr, axis), Type::I32)
    }
    /// Type of `array[indices].path` (the element type if the array's type
    /// is not an array, which the verifier rejects).
    pub fn access_type(&self, m: &MemAccess) -> Type {
        match self.ty(m.array) {
            Type::Array(a) => Type::from(a.elem)
                .project_path(&m.path, self.structs)
                .unwrap_or(Type::from(a.elem)),
            t => t,
        }
    }
    pub fn load(&mut self, m: MemAccess) -> Value {
        let ty = self.access_type(&m);
        self.ins1(InstKind::Load(m), ty)
    }
    pub fn store(&mut self, m: MemAccess, v: Value) -> Inst {
        self.ins(InstKind::Store(m, v), &[])
    }
    pub fn atomic(&mut self, op: AtomicOp, m: MemAccess, v: Value) -> Value {
        let ty = self.access_type(&m);
        self.ins1(InstKind::Atomic(op, m, v), ty)
    }
    /// Compare-and-swap; returns the old value.
    pub fn atomic_cas(&mut self, m: MemAccess, compare: Value, v: Value) -> Value {
        let ty = self.access_type(&m);
        self.ins1(InstKind::AtomicCas(m, compare, v), ty)
    }
    /// Calls `f` whose return types are `returns`.
    pub fn call(&mut self, f: FuncId, args: Vec<Value>, returns: &[Type]) -> Inst {
        self.ins(InstKind::Call(f, args), returns)
    }
    pub fn print(&mut self, fmt: &str, args: Vec<Value>) -> Inst {
        self.ins(InstKind::Print(fmt.to_string(), args), &[])
    }
    /// Appends an `if` with the given result types; returns it and its
    /// (empty) then/else regions. Fill each with [`switch_to`](Self::switch_to).
    pub fn if_(&mut self, cond: Value, result_types: &[Type]) -> (Inst, Region, Region) {
        let then_region = self.func.new_region();
        let else_region = self.func.new_region();
        let i = self.ins(
            InstKind::If {
                cond,
                then_region,
                else_region,
            },
            result_types,
        );
        (i, then_region, else_region)
    }
    /// Appends a loop with initial values `init` (the body gets one param
    /// per init value, of the same type) and the given result types. Returns
    /// the loop, its body region and the body's params.
    pub fn loop_(&mut self, init: Vec<Value>, result_types: &[Type]) -> (Inst, Region, Vec<Value>) {
        let body = self.func.new_region();
        let params = init
            .iter()
            .map(|&v| {
                let t = self.ty(v);
                self.func.add_region_param(body, t)
            })
            .collect();
        let i = self.ins(InstKind::Loop { init, body }, result_types);
        (i, body, params)
    }
    pub fn yield_(&mut self, vs: Vec<Value>) {
        self.ins(InstKind::Yield(vs), &[]);
    }
    pub fn continue_(&mut self, vs: Vec<Value>) {
        self.ins(InstKind::Continue(vs), &[]);
    }
    pub fn break_(&mut self, vs: Vec<Value>) {
        self.ins(InstKind::Break(vs), &[]);
    }
    pub fn return_(&mut self, vs: Vec<Value>) {
        self.ins(InstKind::Return(vs), &[]);
    }
}
