//! The per-instruction dispatch ([`Emitter::inst`]), regions and structured
//! control flow (`if`, `loop`, `yield`, `continue`, `break`, `return`),
//! aggregates (`make`, `extract`, `insert`, `select`), constants and `print`.

use super::{native_mat, native_vec, Emitter, LoopVars, R, XYZW};
use weft_ir::{Const, Inst, InstKind, MathFlags, Region, Scalar, Type, Value, ValueDef};

/// A float literal whose decimal is the float's exact value as a double (the
/// shortest one that reads back as that double): it reads back exactly as a
/// float, also through a parser that goes through double first, and as a
/// double where it is converted to one (`(double)x` in the float `fma`; a
/// float's shortest decimal, `-85.91553` for -85.91552734375, is another
/// double there: found by `weft fuzz-diff`).
fn f32_lit(x: f32) -> String {
    if !x.is_finite() {
        return format!("asfloat(0x{:08x}u)", x.to_bits());
    }
    let mut s = format!("{:?}", x as f64);
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
        Scalar::F16 | Scalar::F32 | Scalar::BF16 => f32_lit(f64::from_bits(c.bits) as f32),
        Scalar::F64 => f64_lit(f64::from_bits(c.bits)),
    }
}

impl<'a> Emitter<'a> {
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
        let name = self.opaque_zero(c.ty);
        Some(if neg { format!("(-{name})") } else { name })
    }

    /// The name of the constant buffer's zero of float type `s` (see
    /// [`Self::float_zero`]): `double` for `f64`, else `float`.
    pub(super) fn opaque_zero(&mut self, s: Scalar) -> String {
        if s == Scalar::F64 {
            self.zero64
                .get_or_insert_with(|| self.names.fresh("weft_zero64"))
                .clone()
        } else {
            self.zero32
                .get_or_insert_with(|| self.names.fresh("weft_zero32"))
                .clone()
        }
    }

    pub(super) fn region(&mut self, r: Region, kind: RegionKind) -> R<()> {
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
            data.flags
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
                    Scalar::BF16 => format!(
                        "{}((float)((double){a} * (double){b} + (double){c}))",
                        self.helpers.call("weft_bf16")
                    ),
                    // The product is exact in double; the sum rounded to
                    // odd, then to float, is the correctly rounded fma.
                    Scalar::F32 => format!(
                        "(float){}((double){a} * (double){b}, (double){c})",
                        self.helpers.call("weft_ro_sum64")
                    ),
                    // GLSL's `fma` need not be fused (lavapipe's is not).
                    Scalar::F64 if self.allows(MathFlags::CONTRACT) => {
                        format!("fma({a}, {b}, {c})")
                    }
                    Scalar::F64 => format!("{}({a}, {b}, {c})", self.helpers.call("weft_fma64")),
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
            // The workgroup size: `[numthreads(group_size, 1, 1)]`.
            InstKind::BlockDim => {
                let e = format!("{}", self.opts.group_size);
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
            InstKind::AtomicCas(mem, c, x) => {
                let v = need(self)?;
                self.atomic_cas(v, &mem, c, x, loc)?;
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
                // A loop's results are assigned at its `break`s. Where one
                // value reaches every `break`, the driver's compiler may
                // read that value after the loop instead of the variable,
                // and lavapipe (Mesa 22.3) then gives a thread the value
                // its last computation produced, an iteration after the
                // thread left the loop (docs/hlsl.md, "Loops with
                // results"). An opaque `true` loop condition adds an exit
                // that assigns nothing, so the variable stays. One per
                // depth: inside a loop whose condition is `c`, the driver
                // knows `c` is true and would drop the same exit again.
                let mut with_results = false;
                for &r in &res {
                    if !self.vty(r).is_array() {
                        self.decl_with(r, true)?;
                        with_results = true;
                    }
                }
                if with_results {
                    let depth = self.loops.len();
                    let on = match self.loop_on.get(&depth) {
                        Some(on) => on.clone(),
                        None => {
                            let on = self.names.fresh(&format!("weft_on{depth}"));
                            self.loop_on.insert(depth, on.clone());
                            on
                        }
                    };
                    self.line(&format!("[loop] for (; {on};)"));
                } else {
                    self.line("[loop] for (;;)");
                }
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
}

/// What a region's terminator assigns to.
#[derive(Clone, PartialEq, Eq)]
pub(super) enum RegionKind {
    Body,
    If(Vec<Value>),
    Loop,
}
