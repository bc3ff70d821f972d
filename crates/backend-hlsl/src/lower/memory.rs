//! Memory: byte addresses into the `RWByteAddressBuffer`s of array
//! parameters, loads and stores of scalars, vectors and aggregates, and
//! atomics (native `Interlocked*`, compare-exchange loops, or the lock
//! table for 64-bit ones).

use super::{is_wide_int, native_vec, scalar_base, Emitter, R, XYZW};
use crate::bindings::{LockBinding, CB_ZERO, LOCK_WORDS};
use std::collections::HashSet;
use weft_ir::layout;
use weft_ir::{AtomicOp, Function, InstKind, Loc, MemAccess, Module, Scalar, Type, Value};

/// `asfloat`/`asint`/nothing: reinterprets a `uint` word as a 32-bit scalar.
fn from_word(s: Scalar, w: &str) -> String {
    match s {
        Scalar::F32 => format!("asfloat({w})"),
        Scalar::I32 => format!("asint({w})"),
        _ => w.to_string(),
    }
}

/// The new bits (`uint2`) of a leaf updated under a lock, from the old
/// value and the old bits.
type NewBits = Box<dyn FnOnce(&mut Emitter<'_>, &str, &str) -> R<String>>;

/// One 64-bit leaf of an atomic done under the lock table.
struct LockedLeaf {
    /// Byte offset expression of the leaf.
    off: String,
    s: Scalar,
    /// The local that receives the old value.
    old: String,
    new: NewBits,
}

/// Reads of the lock word after each failed attempt to take it.
const BACKOFF_READS: usize = 8;

/// Whether a 64-bit atomic on an `s` leaf may be done word by word with
/// 32-bit `Interlocked*`: integer add, sub, and, or, xor whose old value is
/// unused (each word's update commutes with the others', add carrying
/// into the high word, so the memory result is exact).
fn word_wise(op: AtomicOp, s: Scalar, result_used: bool) -> bool {
    is_wide_int(s)
        && !result_used
        && matches!(
            op,
            AtomicOp::Add | AtomicOp::Sub | AtomicOp::And | AtomicOp::Or | AtomicOp::Xor
        )
}

/// Whether kernel `f` needs the lock table (`LockBinding`): some 64-bit
/// atomic (a float64 one, a min/max/exchange, one whose old value is used,
/// a 64-bit `atomic_cas`) cannot be done word by word. Then every 64-bit
/// atomic of the kernel takes the locks, since a word-by-word update of an
/// element would not be atomic with respect to a locked one.
pub(crate) fn needs_lock_table(m: &Module, f: &Function) -> bool {
    let mut used = HashSet::new();
    let mut atomics = Vec::new();
    let mut stack = vec![f.body];
    while let Some(r) = stack.pop() {
        let Some(rd) = f.regions.get(r) else { continue };
        for &i in &rd.insts {
            let k = &f.insts[i].kind;
            used.extend(k.args());
            stack.extend(k.regions());
            if matches!(k, InstKind::Atomic(..) | InstKind::AtomicCas(..)) {
                atomics.push(i);
            }
        }
    }
    atomics.into_iter().any(|i| {
        let Some(&v) = f.results(i).first() else {
            return false;
        };
        let leaves = layout::leaves(f.value_type(v), &m.structs);
        leaves.iter().any(|l| {
            l.scalar.size() == 8
                && match &f.insts[i].kind {
                    InstKind::Atomic(op, ..) => !word_wise(*op, l.scalar, used.contains(&v)),
                    _ => true,
                }
        })
    })
}

impl<'a> Emitter<'a> {
    /// The value an atomic `op` stores: `op(old, x)`, or `x` for an
    /// exchange.
    fn atomic_update(&mut self, op: AtomicOp, s: Scalar, old: &str, x: &str) -> R<String> {
        match op.update() {
            Some(b) => self.binary(b, s, old.to_string(), x.to_string(), Loc::NONE),
            None => Ok(x.to_string()),
        }
    }

    /// The array info and the byte offset expression of element `mem.indices`.
    fn address(&mut self, mem: &MemAccess) -> R<(String, String, Type)> {
        let (buf, elem, off, t) = self.address_parts(mem)?;
        let addr = match (elem.is_empty(), off) {
            (true, _) => format!("{off}u"),
            (false, 0) => elem,
            (false, _) => format!("{elem} + {off}u"),
        };
        Ok((buf, addr, t))
    }

    /// The buffer, the byte offset expression of the array element (empty
    /// for a 0-d access), the path's byte offset in it and its type.
    fn address_parts(&mut self, mem: &MemAccess) -> R<(String, String, u32, Type)> {
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
        let mut terms: Vec<String> = info.base.iter().cloned().collect();
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
        Ok((buf, terms.join(" + "), off, t))
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

    /// The bits of a float value to store, `bits`, or'd with the constant
    /// buffer's zero: the same bits, which no compiler can see. lavapipe
    /// forwards a store to a later load of the same address, and a float
    /// it then knows to be a constant it folds against IEEE (`(c - c) *
    /// inf` to 0, in spite of `NoContraction` and
    /// `SignedZeroInfNanPreserve`; `fuzz_153072149`, and
    /// [`Self::opaque_zero`]). Integers are stored as they are.
    fn opaque_bits(&mut self, s: Scalar, bits: String) -> String {
        if !s.is_float() {
            return bits;
        }
        let z = self.opaque_zero(Scalar::F32);
        format!("({bits} | asuint({z}))")
    }

    fn store_scalar(&mut self, buf: &str, off: &str, s: Scalar, x: &str) {
        let line = match s.size() {
            4 => {
                let bits = self.opaque_bits(s, format!("asuint({x})"));
                format!("{buf}.Store({off}, {bits});")
            }
            8 if s == Scalar::F64 => {
                let bits = format!("{}({x})", self.helpers.call("weft_bits64"));
                let bits = self.opaque_bits(s, bits);
                format!("{buf}.Store2({off}, {bits});")
            }
            8 => format!("{buf}.Store2({off}, {x});"),
            n => {
                let bits = match s {
                    Scalar::Bool => format!("({x} ? 1u : 0u)"),
                    Scalar::F16 => format!("f32tof16({x})"),
                    Scalar::BF16 => format!("{}({x})", self.helpers.call("weft_bf16_bits")),
                    _ => format!("(uint){x}"),
                };
                let bits = self.opaque_bits(s, bits);
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
        if let Some((n, s)) = Self::word_vector(t) {
            let store = if n == 1 {
                "Store".to_string()
            } else {
                format!("Store{n}")
            };
            let bits = self.opaque_bits(s, format!("asuint({xe})"));
            self.line(&format!("{buf}.{store}({addr}, {bits});"));
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
        _loc: Loc,
    ) -> R<()> {
        let (buf, addr, t) = self.address(mem)?;
        let xe = self.v(x)?;
        let result_used = self.used.contains(&v);
        let leaves = layout::leaves(t, &self.m.structs);
        for leaf in &leaves {
            let s = leaf.scalar;
            if s.size() == 8 && self.lock_buf.is_none() && !word_wise(op, s, result_used) {
                return Err(self.invalid("a 64-bit atomic without the lock table"));
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
        let mut locked: Vec<LockedLeaf> = Vec::new();
        for leaf in &leaves {
            let (suf, _) = self.path_suffix(t, &leaf.path)?;
            let off = if leaf.offset == 0 {
                addr.clone()
            } else {
                format!("{addr} + {}u", leaf.offset)
            };
            let (x, old) = (format!("{xe}{suf}"), format!("{old}{suf}"));
            let s = leaf.scalar;
            if s.size() == 8 && self.lock_buf.is_some() {
                let new: NewBits = Box::new(move |e, old, _| {
                    let new = e.atomic_update(op, s, old, &x)?;
                    Ok(e.bits64(s, &new))
                });
                locked.push(LockedLeaf { off, s, old, new });
            } else {
                self.atomic_leaf(op, &buf, &off, s, &x, &old)?;
            }
        }
        if !locked.is_empty() {
            let (_, elem, _, _) = self.address_parts(mem)?;
            self.locked(&buf, &elem, locked)?;
        }
        Ok(())
    }

    /// Compare-and-swap of a 32- or 64-bit scalar, comparing bits (floats
    /// through `asuint` / their bits): one `InterlockedCompareExchange` on
    /// a 32-bit word, the lock table for 64 bits.
    pub(super) fn atomic_cas(
        &mut self,
        v: Value,
        mem: &MemAccess,
        c: Value,
        x: Value,
        _loc: Loc,
    ) -> R<()> {
        let (buf, addr, t) = self.address(mem)?;
        let s = match t {
            Type::Scalar(
                s @ (Scalar::I32
                | Scalar::U32
                | Scalar::F32
                | Scalar::I64
                | Scalar::U64
                | Scalar::F64),
            ) => s,
            _ => return Err(self.invalid("atomic_cas on a type other than a 32- or 64-bit scalar")),
        };
        let (ce, xe) = (self.v(c)?, self.v(x)?);
        let old = self.decl(v)?;
        if s.size() == 8 {
            // Compared and stored as bits (a float64's through `weft_bits64`).
            let (cb, xb) = (self.names.fresh("weft_cmp"), self.names.fresh("weft_swap"));
            let (c_bits, x_bits) = (self.bits64(s, &ce), self.bits64(s, &xe));
            self.line(&format!("uint2 {cb} = {c_bits};"));
            self.line(&format!("uint2 {xb} = {x_bits};"));
            let new: NewBits =
                Box::new(move |_, _, raw| Ok(format!("(all({raw} == {cb}) ? {xb} : {raw})")));
            let (_, elem, _, _) = self.address_parts(mem)?;
            let leaf = LockedLeaf {
                off: addr,
                s,
                old,
                new,
            };
            return self.locked(&buf, &elem, vec![leaf]);
        }
        let o = self.names.fresh("weft_old");
        self.line(&format!("uint {o};"));
        self.line(&format!(
            "{buf}.InterlockedCompareExchange({addr}, asuint({ce}), asuint({xe}), {o});"
        ));
        self.line(&format!("{old} = {};", from_word(s, &o)));
        Ok(())
    }

    /// The bits of a 64-bit scalar as `uint2` (x = low word).
    fn bits64(&mut self, s: Scalar, x: &str) -> String {
        match s {
            Scalar::F64 => format!("{}({x})", self.helpers.call("weft_bits64")),
            _ => x.to_string(),
        }
    }

    /// 64-bit read-modify-writes of the leaves of one array element under
    /// the element's lock (the lock table, `LockBinding`, hashed from
    /// `elem`, the element's byte offset, so that an atomic on the whole
    /// element and one on a component take the same lock): per leaf, `old`
    /// = its value, then its bits = `new(old, its bits)` (a `uint2`).
    /// Every 64-bit atomic of the kernel on an element takes the same
    /// lock, so each is atomic with respect to the others. The loop is in
    /// the done-flag form: the thread that wins the lock finishes inside
    /// the same iteration, so lanes of a subgroup run in lockstep
    /// (lavapipe, pre-Volta GPUs) cannot wait on each other.
    ///
    /// Ordering without barriers (a `DeviceMemoryBarrier` in divergent
    /// code stops lavapipe's threads; see docs/hlsl.md): the leaves' words
    /// are read and written with atomics, which act at the device's
    /// coherence point (glslang drops `globallycoherent` when buffers share
    /// a type); the reads are inside the branch on the acquiring
    /// compare-exchange's result, and the releasing value is computed from
    /// the writes' results (the constant buffer's zero word `AND` them), so
    /// no thread can release before its writes are done.
    fn locked(&mut self, buf: &str, elem: &str, leaves: Vec<LockedLeaf>) -> R<()> {
        let locks = self
            .lock_buf
            .clone()
            .ok_or_else(|| self.invalid("a 64-bit atomic without the lock table"))?;
        let lock = self.names.fresh("weft_lock");
        let done = self.names.fresh("weft_done");
        let got = self.names.fresh("weft_got");
        let elem = if elem.is_empty() { "0u" } else { elem };
        self.line(&format!(
            "uint {lock} = ((({elem}) >> 3u) & {}u) * 4u;",
            LOCK_WORDS - 1
        ));
        // The lock's count of waits not yet finished (see `LockBinding`).
        let pending = format!("{lock} + {}u", LockBinding::PENDING);
        self.line(&format!("uint {got};"));
        self.line(&format!("{locks}.InterlockedAdd({pending}, 1u, {got});"));
        self.line(&format!("bool {done} = false;"));
        self.line(&format!("[loop] for (; !{done};)"));
        self.line("{");
        self.indent += 1;
        self.line(&format!(
            "{locks}.InterlockedCompareExchange({lock}, 0u, 1u, {got});"
        ));
        self.line(&format!("if ({got} == 0u)"));
        self.line("{");
        self.indent += 1;
        let mut written = Vec::new();
        for leaf in leaves {
            let at = self.names.fresh("weft_at");
            let (lo, hi) = (self.names.fresh("weft_lo"), self.names.fresh("weft_hi"));
            self.line(&format!("uint {at} = {};", leaf.off));
            self.line(&format!("uint {lo}, {hi};"));
            self.line(&format!("{buf}.InterlockedOr({at}, 0u, {lo});"));
            self.line(&format!("{buf}.InterlockedOr({at} + 4u, 0u, {hi});"));
            let decoded = match leaf.s {
                Scalar::F64 => format!("asdouble({lo}, {hi})"),
                _ => format!("uint2({lo}, {hi})"),
            };
            self.line(&format!("{} = {decoded};", leaf.old));
            let bits = (leaf.new)(self, &leaf.old, &format!("uint2({lo}, {hi})"))?;
            let w = self.names.fresh("weft_new");
            self.line(&format!("uint2 {w} = {bits};"));
            self.line(&format!("{buf}.InterlockedExchange({at}, {w}.x, {lo});"));
            self.line(&format!(
                "{buf}.InterlockedExchange({at} + 4u, {w}.y, {hi});"
            ));
            written.push(format!("{lo} | {hi}"));
        }
        self.line(&format!(
            "{locks}.InterlockedAdd({pending}, 0xffffffffu, {got});"
        ));
        self.line(&format!(
            "{locks}.InterlockedExchange({lock}, {} & ({}), {got});",
            super::frame::cb_word(CB_ZERO),
            written.join(" | ")
        ));
        self.line(&format!("{done} = true;"));
        self.indent -= 1;
        self.line("}");
        // Back off: a few reads of the lock word per failed attempt, so that
        // a driver's cap on loop iterations (lavapipe: 65 535) covers a
        // longer wait.
        self.line("else");
        self.line("{");
        self.indent += 1;
        for _ in 0..BACKOFF_READS {
            self.line(&format!("{locks}.InterlockedOr({lock}, 0u, {got});"));
        }
        self.indent -= 1;
        self.line("}");
        self.indent -= 1;
        self.line("}");
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
            // Word-wise (`word_wise`): the kernel has no lock table.
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
        let new = self.atomic_update(op, s, old, x)?;
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
