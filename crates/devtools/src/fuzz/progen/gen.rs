//! The generator's state and its statements: structs, funcs, the kernel's
//! signature and body.

use super::expr::Ex;
use super::rng::Rng;
use super::types::{StructDef, Ty, FLOATS, INTS};
use super::values::Values;
use super::{Config, ProgArg, Program};
use weft::ir::Scalar;

/// What a kernel does with an array.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Role {
    /// Read anywhere, never written.
    Input,
    /// Read and written by each thread at its own element only.
    Output,
    /// Updated only by commutative atomics, anywhere; never read.
    Reduce,
}

/// A kernel array parameter.
#[derive(Clone, Debug)]
pub struct Arr {
    pub name: String,
    pub elem: Ty,
    /// Its extents (empty for a func's array parameter: not known).
    pub shape: Vec<usize>,
    pub ndim: usize,
    pub role: Role,
    /// Approximate values may be stored into it (and reads are
    /// approximate); fixed when the array is made.
    pub approx: std::cell::Cell<bool>,
    /// Laid out structure of arrays (a `# weft: layout=soa` hint).
    pub soa: bool,
    /// A reduction array's atomics: one commutative family (`add` and
    /// `sub`, or one of `min`, `max`, `and`, `or`, `xor`), so that every
    /// order of the threads' updates gives the same result.
    pub ops: &'static [&'static str],
}

/// A local variable (or parameter) in scope.
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ty: Ty,
    pub approx: bool,
    /// May be assigned (loop counters and parameters may not).
    pub mutable: bool,
}

/// A generated func's signature.
#[derive(Clone, Debug)]
pub struct FuncSig {
    pub name: String,
    pub params: Vec<Ty>,
    /// An array parameter first (read only, like an input): its element
    /// and dimensionality; calls pass a kernel input of that type.
    pub array: Option<(Ty, usize)>,
    /// Its results (several: `return a, b`, called as `x, y = f(..)`).
    pub rets: Vec<Ty>,
    /// Its results may be approximate.
    pub approx: bool,
}

/// What is visible where a statement or expression is generated.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub vars: Vec<Var>,
    pub arrays: Vec<Arr>,
    /// The thread index names (a kernel's; empty in a func).
    pub tids: Vec<String>,
    /// Funcs `0..callable` may be called.
    pub callable: usize,
    /// Enclosing loops.
    pub loops: u32,
    /// Product of the enclosing loops' trip-count bounds.
    pub trips: u32,
    /// A func's result types (`None` in the kernel).
    pub ret: Option<Vec<Ty>>,
    /// A func's returns may be approximate.
    pub ret_approx: bool,
}

/// The generator: one per program.
pub struct Gen<'c> {
    pub rng: Rng,
    pub cfg: &'c Config,
    pub values: Values,
    pub structs: Vec<StructDef>,
    pub funcs: Vec<FuncSig>,
    /// The launch dimensions.
    pub dims: Vec<usize>,
    next: usize,
    /// Nesting of array index expressions being generated.
    pub indexing: u32,
    /// Statements generated so far (bounded by `Config::max_stmts`).
    stmts: usize,
}

/// The integer types of Warp's atomics.
const ATOMIC_INTS: [Scalar; 4] = [Scalar::I32, Scalar::U32, Scalar::I64, Scalar::U64];

/// Whether Warp has `atomic_<op>` for arrays of scalar `s` (`+=` on an
/// element is `add`).
fn atomic_ok(op: &str, s: Scalar) -> bool {
    let wide = ATOMIC_INTS.contains(&s);
    match op {
        "add" | "sub" => wide || s.is_float(),
        "min" | "max" | "exch" => wide || matches!(s, Scalar::F32 | Scalar::F64),
        _ => wide,
    }
}

/// Most loop iterations, all loops nested, per thread.
const TRIP_BUDGET: u32 = 64;

impl<'c> Gen<'c> {
    pub fn new(seed: u64, cfg: &'c Config) -> Gen<'c> {
        Gen {
            rng: Rng::new(seed),
            cfg,
            values: Values::default(),
            structs: Vec::new(),
            funcs: Vec::new(),
            dims: Vec::new(),
            next: 0,
            indexing: 0,
            stmts: 0,
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    /// A random value type; `depth` limits struct nesting.
    pub fn any_type(&mut self, structs: bool) -> Ty {
        let st = if structs && !self.structs.is_empty() {
            2
        } else {
            0
        };
        match self.rng.weighted(&[8, 4, 2, 1, 1, st]) {
            0 => {
                if self.rng.chance(0.5) {
                    *self.rng.pick(&[Ty::I32, Ty::F32, Ty::BOOL])
                } else if self.rng.chance(0.6) {
                    Ty::S(*self.rng.pick(&INTS))
                } else {
                    Ty::S(*self.rng.pick(&FLOATS))
                }
            }
            1 => self.vec_type(),
            2 => Ty::M(self.rng.range(2, 4) as u8, self.float_scalar()),
            3 => Ty::Q(self.float_scalar()),
            4 => Ty::X(self.float_scalar()),
            _ => Ty::St(self.rng.below(self.structs.len())),
        }
    }

    /// A float type, mostly float32.
    pub fn float_scalar(&mut self) -> Scalar {
        if self.rng.chance(0.7) {
            Scalar::F32
        } else {
            *self.rng.pick(&[Scalar::F64, Scalar::F16])
        }
    }

    /// The whole program: structs, the kernel's signature, funcs (which
    /// may read arrays of the kernel's input types), the kernel.
    pub fn program(mut self, seed: u64) -> Program {
        let mut src = String::from("import warp as wp\n\n");
        for i in 0..self.rng.below(self.cfg.structs + 1) {
            let def = self.struct_def(i);
            src.push_str(&format!("\n@wp.struct\nclass {}:\n", def.name));
            for (f, t) in &def.fields {
                src.push_str(&format!("    {f}: {}\n", t.name(&self.structs)));
            }
            self.structs.push(def);
        }
        let (arrays, values) = self.signature();
        let inputs: Vec<(Ty, usize)> = arrays
            .iter()
            .filter(|a| a.role == Role::Input)
            .map(|a| (a.elem, a.shape.len()))
            .collect();
        for _ in 0..self.rng.below(self.cfg.funcs + 1) {
            let text = self.func(&inputs);
            src.push_str(&text);
        }
        let (kernel_text, args) = self.kernel(arrays, values);
        src.push_str(&kernel_text);
        Program {
            seed,
            source: src,
            kernel: "kern".into(),
            dim: self.dims.clone(),
            args,
            structs: self.structs,
        }
    }

    fn struct_def(&mut self, i: usize) -> StructDef {
        let n = self.rng.range(1, 4) as usize;
        let fields = (0..n)
            .map(|k| (format!("f{k}"), self.any_type(true)))
            .collect();
        StructDef {
            name: format!("S{i}"),
            fields,
        }
    }

    /// A `@wp.func` (appended to `self.funcs`), as source text; it may
    /// take an array of one of the kernel's input types.
    fn func(&mut self, inputs: &[(Ty, usize)]) -> String {
        let name = format!("fn{}", self.funcs.len());
        let params: Vec<Ty> = (0..self.rng.range(1, 3))
            .map(|_| self.any_type(true))
            .collect();
        let array = if !inputs.is_empty() && self.rng.chance(0.3) {
            Some(*self.rng.pick(inputs))
        } else {
            None
        };
        let rets: Vec<Ty> = (0..if self.rng.chance(0.2) { 2 } else { 1 })
            .map(|_| self.any_type(true))
            .collect();
        let approx = self.cfg.approx && rets.iter().all(|t| t.is_float()) && self.rng.chance(0.3);
        let mut sc = Scope {
            callable: self.funcs.len(),
            // Funcs may be called inside loops: keep theirs shallow.
            trips: 4,
            ret: Some(rets.clone()),
            ret_approx: approx,
            ..Scope::default()
        };
        let mut text = format!("\n@wp.func\ndef {name}(");
        let mut ps = Vec::new();
        if let Some((elem, ndim)) = array {
            ps.push(format!(
                "arr: wp.array(dtype={}, ndim={ndim})",
                elem.name(&self.structs)
            ));
            sc.arrays.push(Arr {
                name: "arr".into(),
                elem,
                shape: Vec::new(),
                ndim,
                role: Role::Input,
                approx: std::cell::Cell::new(false),
                soa: false,
                ops: &[],
            });
        }
        for (k, t) in params.iter().enumerate() {
            let p = format!("p{k}");
            ps.push(format!("{p}: {}", t.name(&self.structs)));
            sc.vars.push(Var {
                name: p,
                ty: *t,
                approx: false,
                mutable: false,
            });
        }
        let ret_text: Vec<String> = rets.iter().map(|t| t.name(&self.structs)).collect();
        // Several results are not annotated (the first `return` types them).
        let ret_ann = if rets.len() == 1 {
            format!(" -> {}", ret_text[0])
        } else {
            String::new()
        };
        text.push_str(&format!("{}){ret_ann}:\n", ps.join(", ")));
        let mut body = String::new();
        let n = self.rng.range(1, 5) as usize;
        self.block(&mut sc, n, 2, 1, &mut body);
        let e = self.returned(&sc);
        body.push_str(&format!("    return {e}\n"));
        text.push_str(&body);
        self.funcs.push(FuncSig {
            name,
            params,
            array,
            rets,
            approx,
        });
        text
    }

    /// A func's returned values (`a` or `a, b`).
    fn returned(&mut self, sc: &Scope) -> String {
        let rets = sc.ret.clone().unwrap_or_default();
        let parts: Vec<String> = rets
            .iter()
            .map(|t| self.expr(sc, *t, self.cfg.depth, !sc.ret_approx).s)
            .collect();
        parts.join(", ")
    }

    /// The launch dimensions, the kernel's arrays and by-value
    /// parameters.
    fn signature(&mut self) -> (Vec<Arr>, Vec<(String, Ty)>) {
        let nd = self.rng.range(1, 4) as usize;
        let max_total = self.cfg.max_threads.max(1);
        self.dims = loop {
            let per_axis = match nd {
                1 => max_total,
                2 => 16,
                3 => 6,
                _ => 4,
            };
            let d: Vec<usize> = (0..nd)
                .map(|_| self.rng.range(1, per_axis as i64) as usize)
                .collect();
            if d.iter().product::<usize>() <= max_total {
                break d;
            }
        };
        let mut arrays = Vec::new();
        let inputs = self.rng.range(1, 3);
        let outputs = self.rng.range(1, 4);
        let reduces = self.rng.range(0, 2);
        for _ in 0..inputs {
            let elem = self.any_type(true);
            let shape = if self.rng.chance(0.5) {
                let mut s = self.dims.clone();
                if s.len() < 4 && self.rng.chance(0.3) {
                    s.push(self.rng.range(1, 4) as usize);
                }
                s
            } else {
                (0..self.rng.range(1, 3))
                    .map(|_| self.rng.range(1, 9) as usize)
                    .collect()
            };
            arrays.push(self.array("a", elem, shape, Role::Input));
        }
        for _ in 0..outputs {
            let elem = self.any_type(true);
            let mut shape = self.dims.clone();
            if shape.len() < 4 && self.rng.chance(0.3) {
                shape.push(self.rng.range(1, 3) as usize);
            }
            arrays.push(self.array("o", elem, shape, Role::Output));
        }
        for _ in 0..reduces {
            let elem = if self.rng.chance(0.3) {
                Ty::V(
                    self.rng.range(2, 4) as u8,
                    *self.rng.pick(&[Scalar::I32, Scalar::U32]),
                )
            } else if self.rng.chance(0.6) {
                Ty::S(*self.rng.pick(&ATOMIC_INTS))
            } else {
                Ty::S(*self.rng.pick(&FLOATS))
            };
            let shape: Vec<usize> = (0..self.rng.range(1, 2))
                .map(|_| self.rng.range(1, 5) as usize)
                .collect();
            arrays.push(self.array("r", elem, shape, Role::Reduce));
        }
        // By-value parameters: a trip count, and a few of any type.
        let mut values = vec![("n".to_string(), Ty::I32)];
        for k in 0..self.rng.below(3) {
            values.push((format!("s{k}"), self.any_type(true)));
        }
        (arrays, values)
    }

    /// The kernel: signature, body, a last store of every output slot.
    fn kernel(&mut self, arrays: Vec<Arr>, values: Vec<(String, Ty)>) -> (String, Vec<ProgArg>) {
        let nd = self.dims.len();
        let tids: Vec<String> = (0..nd).map(|k| format!("t{k}")).collect();
        let mut text = String::from("\n@wp.kernel\ndef kern(\n");
        let mut args = Vec::new();
        for a in &arrays {
            let ndim = a.ndim;
            let ann = if ndim == 1 {
                format!("wp.array(dtype={})", a.elem.name(&self.structs))
            } else if self.rng.chance(0.5) {
                format!("wp.array{ndim}d(dtype={})", a.elem.name(&self.structs))
            } else {
                format!(
                    "wp.array(dtype={}, ndim={ndim})",
                    a.elem.name(&self.structs)
                )
            };
            let hint = if a.soa { "  # weft: layout=soa" } else { "" };
            text.push_str(&format!("    {}: {ann},{hint}\n", a.name));
            args.push(ProgArg::Array {
                name: a.name.clone(),
                elem: a.elem,
                shape: a.shape.clone(),
                role: a.role,
                approx: a.approx.get(),
                data: self.array_data(a),
            });
        }
        let mut sc = Scope {
            arrays: arrays.clone(),
            tids: tids.clone(),
            callable: self.funcs.len(),
            trips: 1,
            ..Scope::default()
        };
        for (name, t) in &values {
            text.push_str(&format!("    {name}: {},\n", t.name(&self.structs)));
            let json = if name == "n" {
                serde_json::json!(self.rng.range(0, 5))
            } else {
                self.json_value(*t)
            };
            args.push(ProgArg::Value {
                name: name.clone(),
                ty: *t,
                json,
            });
            sc.vars.push(Var {
                name: name.clone(),
                ty: *t,
                approx: false,
                mutable: false,
            });
        }
        text.push_str("):\n");
        let lhs = tids.join(", ");
        text.push_str(&format!("    {lhs} = wp.tid()\n"));
        for t in &tids {
            sc.vars.push(Var {
                name: t.clone(),
                ty: Ty::I32,
                approx: false,
                mutable: false,
            });
        }
        let n = self.rng.range(3, self.cfg.max_stmts as i64) as usize;
        let mut body = String::new();
        self.block(&mut sc, n, 3, 1, &mut body);
        // Every output gets a last store of each slot.
        for a in arrays.iter().filter(|a| a.role == Role::Output) {
            let slots = if a.shape.len() > nd { a.shape[nd] } else { 1 };
            for s in 0..slots {
                let idx = self.own_index_slot(&sc, a, s);
                let e = self.expr(&sc, a.elem, self.cfg.depth, !a.approx.get());
                body.push_str(&format!("    {}[{idx}] = {}\n", a.name, e.s));
            }
        }
        text.push_str(&body);
        (text, args)
    }

    fn array(&mut self, prefix: &str, elem: Ty, shape: Vec<usize>, role: Role) -> Arr {
        let soa = elem.soa_eligible(&self.structs) && shape.len() < 4 && self.rng.chance(0.25);
        let approx = role == Role::Output && self.cfg.approx && self.rng.chance(0.3);
        // Warp's atomics: add/sub on 32/64-bit integers and floats,
        // min/max on those but float16, and/or/xor on integers.
        let s = elem.scalar().unwrap_or(Scalar::I32);
        let wide_int = ATOMIC_INTS.contains(&s);
        let families: &[&'static [&'static str]] = match s {
            Scalar::F16 => &[&["add", "sub"]],
            s if s.is_float() => &[&["add", "sub"], &["min"], &["max"]],
            _ if wide_int && !matches!(elem, Ty::V(..)) => &[
                &["add", "sub"],
                &["min"],
                &["max"],
                &["and"],
                &["or"],
                &["xor"],
            ],
            _ => &[&["add", "sub"], &["min"], &["max"]],
        };
        let ops = *self.rng.pick(families);
        Arr {
            ops,
            ndim: shape.len(),
            name: self.fresh(prefix),
            elem,
            shape,
            role,
            approx: std::cell::Cell::new(approx),
            soa,
        }
    }

    /// The initial contents of an array: packed scalar leaves, element by
    /// element (reduction arrays: small exact values).
    fn array_data(&mut self, a: &Arr) -> Vec<u8> {
        let n: usize = a.shape.iter().product();
        let leaves = a.elem.leaves(&self.structs);
        let mut out = Vec::new();
        for _ in 0..n {
            for &s in &leaves {
                if a.role == Role::Reduce && s.is_float() {
                    let v = self.rng.range(-8, 8) as f64 * 0.25;
                    out.extend(super::values::float_bytes(s, v));
                } else {
                    out.extend(self.values.scalar_bytes(&mut self.rng, s));
                }
            }
        }
        out
    }

    /// A by-value argument's case.json encoding.
    fn json_value(&mut self, t: Ty) -> serde_json::Value {
        use serde_json::json;
        let scalar = |g: &mut Gen, s: Scalar| -> serde_json::Value {
            match s {
                Scalar::Bool => json!(g.rng.chance(0.5)),
                s if s.is_float() => {
                    // JSON has no NaN or infinity.
                    let v = loop {
                        let v = g.values.nice_float(&mut g.rng, s);
                        if v.is_finite() {
                            break v;
                        }
                    };
                    json!(v)
                }
                s => {
                    let v = g.values.int(&mut g.rng, s);
                    if v < 0 {
                        json!(v as i64)
                    } else {
                        json!(v as u64)
                    }
                }
            }
        };
        match t {
            Ty::S(s) => scalar(self, s),
            Ty::M(n, s) => json!((0..n)
                .map(|_| (0..n).map(|_| scalar(self, s)).collect::<Vec<_>>())
                .collect::<Vec<_>>()),
            Ty::St(i) => {
                let def = self.structs[i].clone();
                let mut obj = serde_json::Map::new();
                for (f, ft) in &def.fields {
                    obj.insert(f.clone(), self.json_value(*ft));
                }
                serde_json::Value::Object(obj)
            }
            t => {
                let s = t.scalar().unwrap_or(Scalar::F32);
                json!((0..t.width()).map(|_| scalar(self, s)).collect::<Vec<_>>())
            }
        }
    }

    /// The thread's own element of output `a` (a random slot).
    pub fn own_index(&mut self, sc: &Scope, a: &Arr) -> String {
        let nd = sc.tids.len();
        let slot = if a.shape.len() > nd {
            self.rng.below(a.shape[nd])
        } else {
            0
        };
        self.own_index_slot(sc, a, slot)
    }

    fn own_index_slot(&mut self, sc: &Scope, a: &Arr, slot: usize) -> String {
        let mut parts = sc.tids.clone();
        if a.shape.len() > sc.tids.len() {
            parts.push(slot.to_string());
        }
        parts.join(", ")
    }

    /// `n` statements at indentation `indent` (4 spaces each); `depth`
    /// bounds the nesting of control flow. Variables declared here go out
    /// of scope at the end.
    fn block(&mut self, sc: &mut Scope, n: usize, depth: u32, indent: usize, out: &mut String) {
        let keep = sc.vars.len();
        let start = out.len();
        for i in 0..n {
            if self.stmts >= self.cfg.max_stmts * 3 {
                break;
            }
            self.stmts += 1;
            let last = i + 1 == n;
            if self.stmt(sc, depth, indent, last, out) {
                break;
            }
        }
        if out.len() == start {
            out.push_str(&format!("{}pass\n", pad(indent)));
        }
        sc.vars.truncate(keep);
    }

    /// One statement; returns true when it ended the block (`return`,
    /// `break`, `continue`), which is generated only as a block's last
    /// statement.
    fn stmt(
        &mut self,
        sc: &mut Scope,
        depth: u32,
        indent: usize,
        last: bool,
        out: &mut String,
    ) -> bool {
        let p = pad(indent);
        let kernel = sc.ret.is_none();
        let has = |role: Role| sc.arrays.iter().any(|a| a.role == role);
        let ctl = depth > 0;
        let loops_ok = ctl && sc.trips * 4 <= TRIP_BUDGET;
        let w = |c: bool, w: u32| if c { w } else { 0 };
        let k = self.rng.weighted(&[
            6,
            3,
            2,
            2,
            w(kernel && has(Role::Output), 4),
            w(kernel && (has(Role::Reduce) || has(Role::Output)), 2),
            w(ctl, 3),
            w(loops_ok, 2),
            w(loops_ok, 1),
            w(sc.loops > 0, 3),
            w(depth < 3, 1),
            1,
            2,
        ]);
        let d = self.cfg.depth;
        match k {
            11 => self.tuple_call(sc, &p, out),
            12 => self.random_draw(sc, &p, out),
            0 => {
                let ty = self.any_type(true);
                let e = self.expr(sc, ty, d, false);
                let name = self.fresh("v");
                out.push_str(&format!("{p}{name} = {}\n", self.declared(ty, &e)));
                sc.vars.push(Var {
                    name,
                    ty,
                    approx: e.approx,
                    mutable: true,
                });
            }
            1 => {
                if let Some(v) = self.pick_var(sc, |_| true) {
                    let e = self.expr(sc, v.ty, d, !v.approx);
                    out.push_str(&format!("{p}{} = {}\n", v.name, e.s));
                }
            }
            2 => {
                let numeric = |v: &Var| {
                    !v.approx && matches!(v.ty, Ty::S(s) | Ty::V(_, s) if s != Scalar::Bool)
                };
                if let Some(v) = self.pick_var(sc, numeric) {
                    let op = *self.rng.pick(&["+=", "-=", "*="]);
                    let (rhs, op) = match v.ty {
                        Ty::V(_, s) if op == "*=" => (Ty::S(s), op),
                        t => (t, op),
                    };
                    let e = self.expr(sc, rhs, d, true);
                    out.push_str(&format!("{p}{} {op} {}\n", v.name, e.s));
                }
            }
            3 => self.component_store(sc, &p, out),
            4 => self.output_store(sc, &p, out),
            5 => self.atomic(sc, &p, out),
            6 => {
                let c = self.expr(sc, Ty::BOOL, d, true);
                out.push_str(&format!("{p}if {}:\n", c.s));
                let n = self.rng.range(1, 4) as usize;
                self.block(sc, n, depth - 1, indent + 1, out);
                if self.rng.chance(0.3) {
                    let c = self.expr(sc, Ty::BOOL, d, true);
                    out.push_str(&format!("{p}elif {}:\n", c.s));
                    let n = self.rng.range(1, 3) as usize;
                    self.block(sc, n, depth - 1, indent + 1, out);
                }
                if self.rng.chance(0.5) {
                    out.push_str(&format!("{p}else:\n"));
                    let n = self.rng.range(1, 3) as usize;
                    self.block(sc, n, depth - 1, indent + 1, out);
                }
            }
            7 => self.for_loop(sc, depth, indent, out),
            8 => self.while_loop(sc, depth, indent, out),
            9 => {
                let kw = *self.rng.pick(&["break", "continue"]);
                return self.guarded(sc, &p, &format!("{kw}\n"), last, out);
            }
            _ => {
                let text = match sc.ret {
                    None => "return\n".to_string(),
                    Some(_) => format!("return {}\n", self.returned(sc)),
                };
                return self.guarded(sc, &p, &text, last, out);
            }
        }
        false
    }

    /// `x, y = f(..)` of a func with two results.
    fn tuple_call(&mut self, sc: &mut Scope, p: &str, out: &mut String) {
        let cands: Vec<usize> = (0..sc.callable)
            .filter(|&f| self.funcs[f].rets.len() == 2)
            .filter(|&f| {
                self.funcs[f]
                    .array
                    .is_none_or(|t| !self.inputs_of(sc, t).is_empty())
            })
            .collect();
        if cands.is_empty() {
            return;
        }
        let f = cands[self.rng.below(cands.len())];
        let (call, approx) = self.call_text(sc, f, self.cfg.depth);
        let names = [self.fresh("v"), self.fresh("v")];
        out.push_str(&format!("{p}{}, {} = {call}\n", names[0], names[1]));
        for (name, ty) in names.into_iter().zip(self.funcs[f].rets.clone()) {
            sc.vars.push(Var {
                name,
                ty,
                approx,
                mutable: true,
            });
        }
    }

    /// A random number generator: a new state (`wp.rand_init`), or a draw
    /// from a state variable (which advances it).
    fn random_draw(&mut self, sc: &mut Scope, p: &str, out: &mut String) {
        let u32_var = |v: &Var| v.ty == Ty::S(Scalar::U32) && !v.approx;
        let state = match self.pick_var(sc, u32_var) {
            Some(v) if self.rng.chance(0.7) => v.name,
            _ => {
                let seed = self.expr(sc, Ty::I32, 2, true);
                let init = if self.rng.chance(0.5) {
                    let off = self.expr(sc, Ty::I32, 2, true);
                    format!("wp.rand_init({}, {})", seed.s, off.s)
                } else {
                    format!("wp.rand_init({})", seed.s)
                };
                let name = self.fresh("rng");
                out.push_str(&format!("{p}{name} = {init}\n"));
                sc.vars.push(Var {
                    name,
                    ty: Ty::S(Scalar::U32),
                    approx: false,
                    mutable: true,
                });
                return;
            }
        };
        let f32 = Ty::F32;
        let (draw, ty, approx) = match self.rng.below(7) {
            0 => (format!("wp.randf({state})"), f32, false),
            1 => {
                let lo = self.expr(sc, f32, 1, true);
                let hi = self.expr(sc, f32, 1, true);
                (format!("wp.randf({state}, {}, {})", lo.s, hi.s), f32, false)
            }
            2 => (format!("wp.randi({state})"), Ty::I32, false),
            3 => {
                let lo = self.expr(sc, Ty::I32, 1, true);
                let hi = self.expr(sc, Ty::I32, 1, true);
                (
                    format!("wp.randi({state}, {}, {})", lo.s, hi.s),
                    Ty::I32,
                    false,
                )
            }
            4 => (format!("wp.randu({state})"), Ty::S(Scalar::U32), false),
            5 if self.cfg.approx => (format!("wp.randn({state})"), f32, true),
            _ => {
                let (f, t) = *self.rng.pick(&[
                    ("sample_unit_square", Ty::V(2, Scalar::F32)),
                    ("sample_unit_cube", Ty::V(3, Scalar::F32)),
                ]);
                (format!("wp.{f}({state})"), t, false)
            }
        };
        let name = self.fresh("v");
        out.push_str(&format!("{p}{name} = {draw}\n"));
        sc.vars.push(Var {
            name,
            ty,
            approx,
            mutable: true,
        });
    }

    /// `stmt` (a `return`, `break` or `continue` line), behind an `if`
    /// unless it is the block's `last` statement (then most of the time);
    /// returns whether it is unguarded, ending the block.
    fn guarded(&mut self, sc: &Scope, p: &str, stmt: &str, last: bool, out: &mut String) -> bool {
        // Unguarded only inside a nested block: the code after a
        // function's top-level block must stay reachable.
        if !last || p.len() <= 4 || self.rng.chance(0.8) {
            let c = self.expr(sc, Ty::BOOL, self.cfg.depth, true);
            out.push_str(&format!("{p}if {}:\n{p}    {stmt}", c.s));
            false
        } else {
            out.push_str(&format!("{p}{stmt}"));
            true
        }
    }

    /// A declaration's right-hand side: a bare literal is wrapped in its
    /// constructor (Warp forbids changing, in a dynamic loop, a variable
    /// first assigned a literal).
    fn declared(&self, ty: Ty, e: &Ex) -> String {
        if e.literal {
            format!("{}({})", ty.name(&self.structs), e.s)
        } else {
            e.s.clone()
        }
    }

    fn pick_var(&mut self, sc: &Scope, ok: impl Fn(&Var) -> bool) -> Option<Var> {
        let c: Vec<&Var> = sc.vars.iter().filter(|v| v.mutable && ok(v)).collect();
        if c.is_empty() {
            None
        } else {
            Some(c[self.rng.below(c.len())].clone())
        }
    }

    /// `v[k] = ..`, `v.x = ..`, `m[i, j] = ..`, `m[i] = ..`, `s.f = ..` on
    /// a local.
    fn component_store(&mut self, sc: &Scope, p: &str, out: &mut String) {
        let agg = |v: &Var| matches!(v.ty, Ty::V(..) | Ty::M(..) | Ty::St(_) | Ty::Q(_));
        let Some(v) = self.pick_var(sc, agg) else {
            return;
        };
        let d = self.cfg.depth;
        let (path, ty) = self.component_path(v.ty);
        let e = self.expr(sc, ty, d, !v.approx);
        out.push_str(&format!("{p}{}{path} = {}\n", v.name, e.s));
    }

    /// A component of an aggregate type: the path text and its type.
    fn component_path(&mut self, t: Ty) -> (String, Ty) {
        match t {
            Ty::V(n, s) => {
                let k = self.rng.below(n as usize);
                if self.rng.chance(0.4) {
                    (format!(".{}", ["x", "y", "z", "w"][k]), Ty::S(s))
                } else {
                    (format!("[{k}]"), Ty::S(s))
                }
            }
            Ty::Q(s) => (format!("[{}]", self.rng.below(4)), Ty::S(s)),
            Ty::M(n, s) => {
                let i = self.rng.below(n as usize);
                if self.rng.chance(0.5) {
                    (format!("[{i}, {}]", self.rng.below(n as usize)), Ty::S(s))
                } else {
                    (format!("[{i}]"), Ty::V(n, s))
                }
            }
            Ty::St(i) => {
                let fields = self.structs[i].fields.clone();
                let (f, ft) = self.rng.pick(&fields).clone();
                (format!(".{f}"), ft)
            }
            t => (String::new(), t),
        }
    }

    /// A store into the thread's own element of an output: whole, or a
    /// component of it.
    fn output_store(&mut self, sc: &Scope, p: &str, out: &mut String) {
        let outs: Vec<Arr> = sc
            .arrays
            .iter()
            .filter(|a| a.role == Role::Output)
            .cloned()
            .collect();
        let a = self.rng.pick(&outs).clone();
        let idx = self.own_index(sc, &a);
        let d = self.cfg.depth;
        let (path, ty) =
            if matches!(a.elem, Ty::V(..) | Ty::St(_) | Ty::M(..)) && self.rng.chance(0.4) {
                self.component_path(a.elem)
            } else {
                (String::new(), a.elem)
            };
        let e = self.expr(sc, ty, d, !a.approx.get());
        if path.is_empty()
            && self.rng.chance(0.2)
            && !a.approx.get()
            && matches!(a.elem, Ty::S(s) if atomic_ok("add", s))
        {
            // `+=` on an array element is an atomic add (own element).
            out.push_str(&format!("{p}{}[{idx}] += {}\n", a.name, e.s));
        } else {
            out.push_str(&format!("{p}{}[{idx}]{path} = {}\n", a.name, e.s));
        }
    }

    /// A commutative atomic into a reduction array (its old value unused),
    /// or any atomic on the thread's own output element (its old value
    /// kept in a new variable).
    fn atomic(&mut self, sc: &mut Scope, p: &str, out: &mut String) {
        let cands: Vec<Arr> = sc
            .arrays
            .iter()
            .filter(|a| {
                a.role == Role::Reduce
                    || (a.role == Role::Output && matches!(a.elem, Ty::S(s) if atomic_ok("add", s)))
            })
            // Float16 sums stay exact only outside loops (few updates).
            .filter(|a| a.elem.scalar() != Some(Scalar::F16) || sc.trips == 1)
            .cloned()
            .collect();
        if cands.is_empty() {
            return;
        }
        let a = self.rng.pick(&cands).clone();
        let s = a.elem.scalar().unwrap_or(Scalar::I32);
        let d = self.cfg.depth;
        if a.role == Role::Reduce {
            let ops = a.ops;
            let op = *self.rng.pick(ops);
            let value = if s == Scalar::F16 {
                // -1, 0 or 1, a few hundred times at most: exact sums.
                let i = self.expr(sc, Ty::I32, 2, true);
                format!("wp.float16(({}) % 2)", i.s)
            } else if s.is_float() && matches!(op, "add" | "sub") {
                // Multiples of 1/4 below 2^4, under 2^20 updates: every
                // order sums exactly.
                let i = self.expr(sc, Ty::I32, 2, true);
                let q = self.float_text(s, 0.25);
                format!("(wp.{}(({}) % 16) * {q})", s.warp_name(), i.s)
            } else {
                self.expr(sc, a.elem, d, true).s
            };
            let idx = self.read_index(sc, &a);
            if matches!(op, "add" | "sub") && self.rng.chance(0.3) {
                let aug = if op == "add" { "+=" } else { "-=" };
                out.push_str(&format!("{p}{}[{idx}] {aug} {value}\n", a.name));
            } else {
                out.push_str(&format!("{p}wp.atomic_{op}({}, {idx}, {value})\n", a.name));
            }
        } else {
            let ops: Vec<&str> = ["add", "sub", "min", "max", "and", "or", "xor", "exch"]
                .into_iter()
                .filter(|op| atomic_ok(op, s))
                .collect();
            let op = *self.rng.pick(&ops);
            let value = self.expr(sc, a.elem, d, true);
            let idx = self.own_index(sc, &a);
            let name = self.fresh("v");
            out.push_str(&format!(
                "{p}{name} = wp.atomic_{op}({}, {idx}, {})\n",
                a.name, value.s
            ));
            sc.vars.push(Var {
                name,
                ty: a.elem,
                approx: a.approx.get(),
                mutable: true,
            });
        }
    }

    /// A `for` over `range`: constant or run-time bounds, positive or
    /// negative steps; at most 4 iterations.
    fn for_loop(&mut self, sc: &mut Scope, depth: u32, indent: usize, out: &mut String) {
        let p = pad(indent);
        let var = self.fresh("k");
        let range = match self.rng.below(5) {
            0 => format!("range({})", self.rng.range(0, 4)),
            1 => {
                let lo = self.rng.range(-3, 3);
                format!("range({lo}, {})", lo + self.rng.range(-1, 4))
            }
            2 => {
                let st = *self.rng.pick(&[-2i64, -1, 1, 2]);
                let lo = self.rng.range(-3, 3);
                format!("range({lo}, {}, {st})", lo + st * self.rng.range(-1, 4))
            }
            3 if sc.ret.is_none() => "range(wp.min(n, 4))".to_string(),
            _ => {
                let e = self.expr(sc, Ty::I32, 2, true);
                format!("range(({}) % 5)", e.s)
            }
        };
        out.push_str(&format!("{p}for {var} in {range}:\n"));
        let mut inner = sc.clone();
        inner.loops += 1;
        inner.trips *= 4;
        inner.vars.push(Var {
            name: var,
            ty: Ty::I32,
            approx: false,
            mutable: false,
        });
        let n = self.rng.range(1, 4) as usize;
        self.block(&mut inner, n, depth - 1, indent + 1, out);
    }

    /// A `while` bounded by a counter (incremented first, so `continue`
    /// keeps it counting); at most 4 iterations.
    fn while_loop(&mut self, sc: &mut Scope, depth: u32, indent: usize, out: &mut String) {
        let p = pad(indent);
        let w = self.fresh("w");
        let bound = self.rng.range(0, 4);
        out.push_str(&format!("{p}{w} = int(0)\n"));
        let cond = if self.rng.chance(0.4) {
            let c = self.expr(sc, Ty::BOOL, 2, true);
            format!("{w} < {bound} and {}", c.s)
        } else {
            format!("{w} < {bound}")
        };
        out.push_str(&format!("{p}while {cond}:\n{p}    {w} = {w} + 1\n"));
        let mut inner = sc.clone();
        inner.loops += 1;
        inner.trips *= 4;
        inner.vars.push(Var {
            name: w.clone(),
            ty: Ty::I32,
            approx: false,
            mutable: false,
        });
        let n = self.rng.range(1, 4) as usize;
        self.block(&mut inner, n, depth - 1, indent + 1, out);
        sc.vars.push(Var {
            name: w,
            ty: Ty::I32,
            approx: false,
            mutable: false,
        });
    }
}

fn pad(indent: usize) -> String {
    "    ".repeat(indent)
}
