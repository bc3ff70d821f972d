//! Memory: byte addresses into the `RWByteAddressBuffer`s of array
//! parameters, loads and stores of scalars, vectors and aggregates, and
//! atomics (native `Interlocked*` or compare-exchange loops).

use super::{is_wide_int, native_vec, scalar_base, Emitter, R, XYZW};
use weft_ir::layout;
use weft_ir::{AtomicOp, BinaryOp, Loc, MemAccess, Scalar, Type, Value};

/// `asfloat`/`asint`/nothing: reinterprets a `uint` word as a 32-bit scalar.
fn from_word(s: Scalar, w: &str) -> String {
    match s {
        Scalar::F32 => format!("asfloat({w})"),
        Scalar::I32 => format!("asint({w})"),
        _ => w.to_string(),
    }
}

impl<'a> Emitter<'a> {
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
                    Scalar::BF16 => format!("{}({w})", self.helpers.call("weft_bf16_to_f32")),
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
                    Scalar::BF16 => format!("{}({x})", self.helpers.call("weft_bf16_bits")),
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

    pub(super) fn load(&mut self, v: Value, mem: &MemAccess) -> R<()> {
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

    pub(super) fn store(&mut self, mem: &MemAccess, x: Value) -> R<()> {
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

    pub(super) fn atomic(
        &mut self,
        op: AtomicOp,
        v: Value,
        mem: &MemAccess,
        x: Value,
        loc: Loc,
    ) -> R<()> {
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

    /// Compare-and-swap of a 32-bit scalar, comparing bits (floats through
    /// `asuint`); 64-bit elements are unsupported.
    pub(super) fn atomic_cas(
        &mut self,
        v: Value,
        mem: &MemAccess,
        c: Value,
        x: Value,
        loc: Loc,
    ) -> R<()> {
        let (buf, addr, t) = self.address(mem)?;
        let s = match t {
            Type::Scalar(s @ (Scalar::I32 | Scalar::U32 | Scalar::F32)) => s,
            Type::Scalar(s @ (Scalar::I64 | Scalar::U64 | Scalar::F64)) => {
                let name = match s {
                    Scalar::I64 => "int64",
                    Scalar::U64 => "uint64",
                    _ => "float64",
                };
                return Err(self.unsupported(
                    format!(
                        "atomic_cas on {name} (shader model 6.0 has no 64-bit compare-exchange)"
                    ),
                    loc,
                ));
            }
            _ => return Err(self.invalid("atomic_cas on a type other than a 32- or 64-bit scalar")),
        };
        let (ce, xe) = (self.v(c)?, self.v(x)?);
        let old = self.decl(v)?;
        let o = self.names.fresh("weft_old");
        self.line(&format!("uint {o};"));
        self.line(&format!(
            "{buf}.InterlockedCompareExchange({addr}, asuint({ce}), asuint({xe}), {o});"
        ));
        self.line(&format!("{old} = {};", from_word(s, &o)));
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
            Scalar::BF16 => format!("{}({bits})", self.helpers.call("weft_bf16_to_f32")),
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
            Scalar::BF16 => format!("{}({new})", self.helpers.call("weft_bf16_bits")),
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
