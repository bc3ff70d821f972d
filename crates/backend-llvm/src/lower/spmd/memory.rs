//! Memory in the vector tier: dense (consecutive) loads and stores as
//! masked vector accesses, gathers and scatters otherwise, streaming
//! stores into arrays the kernel only writes.

use super::*;

/// The array params of `f` that the kernel only stores into: every use
/// is as the array of a `store` (no load, atomic, shape query, or copy
/// into another value). Their dense vector stores may be streaming
/// (non-temporal) stores: nothing in the kernel reads the lines back, so
/// bringing them into the cache (the read-for-ownership of a normal
/// store, then the eviction of other data) is traffic for nothing.
pub(super) fn streamed_params(f: &weft_ir::Function) -> Vec<Value> {
    let Some(body) = f.regions.get(f.body) else {
        return Vec::new();
    };
    let arrays: Vec<Value> = body
        .params
        .iter()
        .copied()
        .filter(|&v| matches!(f.value_type(v), Type::Array(_)))
        .collect();
    let mut stores: HashMap<Value, usize> = HashMap::new();
    let mut other: std::collections::HashSet<Value> = std::collections::HashSet::new();
    weft_ir::info::for_each_inst(f, &mut |i| {
        let kind = &f.insts[i].kind;
        let stored = match kind {
            InstKind::Store(m, _) => Some(m.array),
            _ => None,
        };
        let mut skipped = false;
        for a in kind.args() {
            if !arrays.contains(&a) {
                continue;
            }
            if Some(a) == stored && !skipped {
                skipped = true;
                *stores.entry(a).or_default() += 1;
            } else {
                other.insert(a);
            }
        }
    });
    arrays
        .into_iter()
        .filter(|v| stores.contains_key(v) && !other.contains(v))
        .collect()
}

impl<'a, 'ctx, 'm> Lx<'a, 'ctx, 'm> {
    /// At the kernel's entry: for each param of [`streamed_params`], the
    /// flag "this array's extent (outer length × outer stride, bytes) is
    /// at least [`crate::lower::TargetCfg::stream_min_bytes`]". Off (0) or on a
    /// target other than x86-64, none.
    pub(super) fn begin_streams(&mut self, f: &'m weft_ir::Function) -> Result<()> {
        let min = self.cfg.stream_min_bytes;
        if min == 0 || !cfg!(target_arch = "x86_64") {
            return Ok(());
        }
        let i64t = self.ctx.i64_type();
        for p in streamed_params(f) {
            let Type::Array(at) = f.value_type(p) else {
                continue;
            };
            let nd = at.ndim as usize;
            let leaves = self.get(p)?;
            let (Some(len), Some(stride)) = (leaves.get(1), leaves.get(1 + nd)) else {
                continue;
            };
            let len = self
                .b
                .build_int_cast_sign_flag(len.into_int_value(), i64t, false, "")?;
            let stride =
                self.b
                    .build_int_cast_sign_flag(stride.into_int_value(), i64t, true, "")?;
            let bytes = self.b.build_int_mul(len, stride, "")?;
            let big = self.b.build_int_compare(
                IntPredicate::SGE,
                bytes,
                i64t.const_int(min, false),
                "stream",
            )?;
            self.vx_mut()?.streams.insert(p, big);
        }
        Ok(())
    }

    /// The dense load of `wt` (`W * p` words of `sz` bytes) at `base`
    /// under the word mask `wm`: plain vector loads when every lane is on
    /// (the lanes' elements are all in bounds, so are the words of them
    /// no slot reads), else masked loads. A masked load streams at half
    /// the speed of a plain one on AMD Zen 5 (`docs/vector.md`, "Loop
    /// shape"), and a full vector is every iteration but a range's last.
    /// Only pieces of `W` words cross the blocks: a `<48 x i32>` phi (a
    /// `vec3` array at 16 lanes) is scalarized by LLVM's instruction
    /// selection into 48 loads and inserts.
    pub(super) fn dense_load(
        &mut self,
        wt: VectorType<'ctx>,
        base: PointerValue<'ctx>,
        wm: VectorValue<'ctx>,
        sz: u32,
    ) -> Result<VectorValue<'ctx>> {
        let w = self.width();
        let p = wt.get_size() / w;
        let pt = wt.get_element_type().into_int_type().vec_type(w);
        let mut wms = Vec::with_capacity(p as usize);
        for k in 0..p {
            wms.push(self.piece(wm, k)?);
        }
        let (part, done) = self.branch_on_all_on("loaded")?;
        let mut plain = Vec::with_capacity(p as usize);
        for k in 0..p {
            let at = self.piece_ptr(base, k, sz)?;
            let v = self.b.build_load(pt, at, "")?;
            if let Some(i) = v.as_instruction_value() {
                i.set_alignment(sz)
                    .map_err(|e| Error::Llvm(e.to_string()))?;
            }
            plain.push(v);
        }
        let full_end = self.cur_block()?;
        self.b.build_unconditional_branch(done)?;
        self.switch_to(part);
        let align = self.i32c(sz as u64);
        let mut masked = Vec::with_capacity(p as usize);
        for (k, m) in wms.iter().enumerate() {
            let at = self.piece_ptr(base, k as u32, sz)?;
            masked.push(self.call_intr(
                "llvm.masked.load",
                &[pt.into(), at.get_type().into()],
                &[at.into(), align.into(), (*m).into(), pt.get_poison().into()],
            )?);
        }
        let part_end = self.cur_block()?;
        self.b.build_unconditional_branch(done)?;
        self.switch_to(done);
        let mut pieces = Vec::with_capacity(p as usize);
        for (a, b) in plain.iter().zip(&masked) {
            let phi = self.b.build_phi(pt, "")?;
            phi.add_incoming(&[(a, full_end), (b, part_end)]);
            pieces.push(phi.as_basic_value().into_vector_value());
        }
        self.concat(&pieces, wt)
    }

    /// `base + k * W * sz` bytes: piece `k` of a dense access.
    pub(super) fn piece_ptr(
        &mut self,
        base: PointerValue<'ctx>,
        k: u32,
        sz: u32,
    ) -> Result<PointerValue<'ctx>> {
        if k == 0 {
            return Ok(base);
        }
        let off = (k * self.width() * sz) as u64;
        let off = self.ctx.i64_type().const_int(off, false);
        // SAFETY: address arithmetic only, inside the access's elements.
        Ok(unsafe { self.b.build_gep(self.ctx.i8_type(), base, &[off], "")? })
    }

    /// The pieces (`W` words each) one after the other, as `wt`.
    pub(super) fn concat(
        &mut self,
        pieces: &[VectorValue<'ctx>],
        wt: VectorType<'ctx>,
    ) -> Result<VectorValue<'ctx>> {
        let [first, rest @ ..] = pieces else {
            return self.invalid("a dense access of no pieces");
        };
        if rest.is_empty() {
            return Ok(*first);
        }
        let w = self.width();
        let n = wt.get_size();
        let wide_idx: Vec<u32> = (0..n).map(|i| i.min(w - 1)).collect();
        let mut all = wt.get_poison();
        for (k, piece) in pieces.iter().enumerate() {
            let k = k as u32;
            let wide = self.b.build_shuffle_vector(
                *piece,
                piece.get_type().get_poison(),
                self.shuffle_mask(&wide_idx),
                "",
            )?;
            let idx: Vec<u32> = (0..n)
                .map(|i| if i / w == k { n + i - k * w } else { i })
                .collect();
            all = self
                .b
                .build_shuffle_vector(all, wide, self.shuffle_mask(&idx), "")?;
        }
        Ok(all)
    }

    /// Piece `k` (`W` lanes) of `v`.
    pub(super) fn piece(&mut self, v: VectorValue<'ctx>, k: u32) -> Result<VectorValue<'ctx>> {
        let w = self.width();
        if v.get_type().get_size() == w {
            return Ok(v);
        }
        let idx: Vec<u32> = (k * w..(k + 1) * w).collect();
        Ok(self.b.build_shuffle_vector(
            v,
            v.get_type().get_poison(),
            self.shuffle_mask(&idx),
            "",
        )?)
    }

    /// The dense store of `all` (`W * p` words of `sz` bytes) at `base`
    /// under the word mask `wm`, in pieces of `W` words (see
    /// [`Lx::dense_load`]). When every word of each element is written
    /// (`whole`) and every lane is on: plain vector stores, or, into an
    /// array of [`streamed_params`] large enough at an address aligned
    /// for the vector's pieces, streaming (non-temporal) stores.
    /// Otherwise masked stores.
    pub(super) fn dense_store(
        &mut self,
        array: Value,
        whole: bool,
        all: VectorValue<'ctx>,
        base: PointerValue<'ctx>,
        wm: VectorValue<'ctx>,
        sz: u32,
    ) -> Result<()> {
        let w = self.width();
        let p = all.get_type().get_size() / w;
        let mut pieces = Vec::with_capacity(p as usize);
        let mut wms = Vec::with_capacity(p as usize);
        for k in 0..p {
            pieces.push(self.piece(all, k)?);
            wms.push(self.piece(wm, k)?);
        }
        let masked = |lx: &mut Self| -> Result<()> {
            let align = lx.i32c(sz as u64);
            for (k, (v, m)) in pieces.iter().zip(&wms).enumerate() {
                let at = lx.piece_ptr(base, k as u32, sz)?;
                lx.call_intr_void(
                    "llvm.masked.store",
                    &[v.get_type().into(), at.get_type().into()],
                    &[(*v).into(), at.into(), align.into(), (*m).into()],
                )?;
            }
            Ok(())
        };
        if !whole {
            return masked(self);
        }
        let (part, done) = self.branch_on_all_on("stored")?;
        let stream = self.vx()?.streams.get(&array).copied();
        if let Some(stream) = stream {
            // Each piece is stored in parts of at most 64 bytes (a zmm),
            // each aligned to its size: the base aligned to the piece's
            // bytes (at most 64) aligns them all.
            let bytes = (w * sz) as u64;
            let align = (1u64 << bytes.trailing_zeros()).min(64);
            let i64t = self.ctx.i64_type();
            let addr = self.b.build_ptr_to_int(base, i64t, "")?;
            let low = self
                .b
                .build_and(addr, i64t.const_int(align - 1, false), "")?;
            let aligned = self
                .b
                .build_int_compare(IntPredicate::EQ, low, i64t.const_zero(), "")?;
            let c = self.b.build_and(stream, aligned, "")?;
            let nt = self.new_block("stream")?;
            let plain = self.new_block("plain")?;
            self.b.build_conditional_branch(c, nt, plain)?;
            self.switch_to(nt);
            let kind = self.ctx.get_kind_id("nontemporal");
            let one = self.ctx.metadata_node(&[self.i32c(1).into()]);
            for (k, v) in pieces.iter().enumerate() {
                let at = self.piece_ptr(base, k as u32, sz)?;
                let st = self.b.build_store(at, *v)?;
                st.set_alignment(align as u32)
                    .map_err(|e| Error::Llvm(e.to_string()))?;
                st.set_metadata(one, kind)
                    .map_err(|e| Error::Llvm(e.to_string()))?;
            }
            self.b.build_unconditional_branch(done)?;
            self.switch_to(plain);
        }
        for (k, v) in pieces.iter().enumerate() {
            let at = self.piece_ptr(base, k as u32, sz)?;
            let st = self.b.build_store(at, *v)?;
            st.set_alignment(sz)
                .map_err(|e| Error::Llvm(e.to_string()))?;
        }
        self.b.build_unconditional_branch(done)?;
        self.switch_to(part);
        masked(self)?;
        self.b.build_unconditional_branch(done)?;
        self.switch_to(done);
        Ok(())
    }

    /// A varying access to a uniform array: its data pointer, each axis's
    /// index (as the IR value) and stride, the path's offset in the
    /// element, its type and the element's size; `None` when the array
    /// handle itself is varying.
    pub(super) fn vaccess(&mut self, m: &weft_ir::ir::MemAccess) -> Result<Option<Access<'ctx>>> {
        let Type::Array(at) = self.cur().value_type(m.array) else {
            return self.invalid("memory access on a non-array");
        };
        if self.is_var(m.array) || m.indices.len() != at.ndim as usize {
            return Ok(None);
        }
        let leaves = self.get(m.array)?;
        let nd = at.ndim as usize;
        let axes = m
            .indices
            .iter()
            .enumerate()
            .map(|(k, &ix)| (ix, leaves[1 + nd + k].into_int_value()))
            .collect();
        let Some((poff, ty)) = layout::path_offset(at.elem.into(), &m.path, &self.m.structs) else {
            return self.invalid("bad component path in a memory access");
        };
        Ok(Some(Access {
            data: leaves[0].into_pointer_value(),
            axes,
            poff,
            ty,
            esize: layout::elem_size(at.elem, &self.m.structs),
        }))
    }

    /// An index as `i64`: a vector when `vector`, else the scalar (of a
    /// uniform index, or lane 0 of a varying one).
    pub(super) fn index64(&mut self, ix: Value, vector: bool) -> Result<BasicValueEnum<'ctx>> {
        let s = self.scalar_of(ix)?;
        let i64t = self.ctx.i64_type();
        let v: BasicValueEnum = if vector {
            self.vget1(ix)?
        } else if self.is_var(ix) {
            let v = self.vget1(ix)?.into_vector_value();
            self.b.build_extract_element(v, self.i32c(0), "")?
        } else {
            self.get1(ix)?
        };
        let wide = |t: BasicTypeEnum<'ctx>| -> Result<BasicTypeEnum<'ctx>> {
            Ok(match t {
                BasicTypeEnum::VectorType(_) => i64t.vec_type(self.width()).into(),
                _ => i64t.into(),
            })
        };
        let to = wide(v.get_type())?;
        Ok(match (s, v) {
            (Scalar::I64 | Scalar::U64, v) => v,
            (s, BasicValueEnum::VectorValue(x)) if s.is_signed_int() => self
                .b
                .build_int_s_extend(x, to.into_vector_type(), "")?
                .into(),
            (_, BasicValueEnum::VectorValue(x)) => self
                .b
                .build_int_z_extend(x, to.into_vector_type(), "")?
                .into(),
            (s, BasicValueEnum::IntValue(x)) if s.is_signed_int() => {
                self.b.build_int_s_extend(x, i64t, "")?.into()
            }
            (_, BasicValueEnum::IntValue(x)) => self.b.build_int_z_extend(x, i64t, "")?.into(),
            _ => return self.invalid("float array index"),
        })
    }

    /// The lanes' byte offsets from the data pointer (`<W x i64>`).
    pub(super) fn lane_offsets(&mut self, a: &Access<'ctx>) -> Result<VectorValue<'ctx>> {
        let i64v = self.ctx.i64_type().vec_type(self.width());
        let mut off = i64v.const_zero();
        for &(ix, stride) in &a.axes {
            let iv = self.index64(ix, true)?.into_vector_value();
            let st = self.splat(stride.into())?.into_vector_value();
            let o = self.b.build_int_mul(iv, st, "")?;
            off = self.b.build_int_add(off, o, "")?;
        }
        Ok(off)
    }

    /// The slot size shared by every slot of `ty` (4 or 8 bytes, numbers
    /// only), or `None`.
    pub(super) fn plain_slot_size(&mut self, ty: Type) -> Option<u32> {
        let slots = self.flat(ty);
        let mut size = None;
        for s in slots.iter() {
            let SlotKind::Scalar(sc) = s.kind else {
                return None;
            };
            if matches!(sc, Scalar::Bool | Scalar::F16 | Scalar::BF16)
                || !matches!(sc.size(), 4 | 8)
            {
                return None;
            }
            if size.is_some_and(|z| z != sc.size()) {
                return None;
            }
            size = Some(sc.size());
        }
        size
    }

    /// When exactly one axis's index is varying: branches on whether its
    /// lanes are consecutive (`i, i+1, ...`) and its stride is the
    /// element's size, so that the lanes' elements are consecutive in
    /// memory. Returns the scattered block and the join, with the builder
    /// in the consecutive block, and lane 0's element pointer there.
    pub(super) fn split_consecutive(
        &mut self,
        a: &Access<'ctx>,
    ) -> Result<Option<(BasicBlock<'ctx>, BasicBlock<'ctx>, PointerValue<'ctx>)>> {
        let varying: Vec<usize> = (0..a.axes.len())
            .filter(|&k| self.is_var(a.axes[k].0))
            .collect();
        let [k] = varying[..] else {
            return Ok(None);
        };
        let (ix, stride) = a.axes[k];
        let iv = self.vget1(ix)?.into_vector_value();
        let it = iv.get_type().get_element_type().into_int_type();
        let i0 = self.b.build_extract_element(iv, self.i32c(0), "")?;
        let steps: Vec<IntValue> = (0..self.width())
            .map(|l| it.const_int(l as u64, false))
            .collect();
        let want = self.b.build_int_add(
            self.splat(i0)?.into_vector_value(),
            VectorType::const_vector(&steps),
            "",
        )?;
        let eq = self.b.build_int_compare(IntPredicate::EQ, iv, want, "")?;
        let all = self
            .call_intr(
                "llvm.vector.reduce.and",
                &[eq.get_type().into()],
                &[eq.into()],
            )?
            .into_int_value();
        let es = self.ctx.i64_type().const_int(a.esize as u64, false);
        let dense_stride = self.b.build_int_compare(IntPredicate::EQ, stride, es, "")?;
        let ok = self.b.build_and(all, dense_stride, "")?;
        let dense = self.new_block("dense")?;
        let sparse = self.new_block("sparse")?;
        let join = self.new_block("mem_end")?;
        self.b.build_conditional_branch(ok, dense, sparse)?;
        self.switch_to(dense);
        let mut off = self.ctx.i64_type().const_zero();
        for &(ix, st) in &a.axes {
            let i = self.index64(ix, false)?.into_int_value();
            let o = self.b.build_int_mul(i, st, "")?;
            off = self.b.build_int_add(off, o, "")?;
        }
        // SAFETY: address arithmetic only; the masked access touches the
        // elements of the mask's lanes.
        let base = unsafe { self.b.build_gep(self.ctx.i8_type(), a.data, &[off], "")? };
        Ok(Some((sparse, join, base)))
    }

    /// The mask of the `p` words of each of the `W` elements: word `k` of
    /// lane `l` is on when `l` is in the mask and `used[k]`.
    pub(super) fn word_mask(&mut self, p: u32, used: &[bool]) -> Result<VectorValue<'ctx>> {
        let m = self.mask()?;
        let w = self.width();
        let idx: Vec<u32> = (0..w * p).map(|i| i / p).collect();
        let spread = self.b.build_shuffle_vector(
            m,
            m.get_type().get_poison(),
            self.shuffle_mask(&idx),
            "",
        )?;
        if used.iter().all(|&u| u) {
            return Ok(spread);
        }
        let bits: Vec<IntValue> = (0..w * p)
            .map(|i| {
                self.ctx
                    .bool_type()
                    .const_int(used[(i % p) as usize] as u64, false)
            })
            .collect();
        Ok(self
            .b
            .build_and(spread, VectorType::const_vector(&bits), "")?)
    }

    pub(super) fn vload(&mut self, inst: Inst, m: &weft_ir::ir::MemAccess) -> Result<bool> {
        let Some(acc) = self.vaccess(m)? else {
            return Ok(false);
        };
        let (poff, esize) = (acc.poff, acc.esize);
        let Some(sz) = self.plain_slot_size(acc.ty) else {
            return Ok(false);
        };
        let slots = self.flat(acc.ty);
        let w = self.width();
        let stys: Vec<BasicTypeEnum> = slots.iter().map(|&s| self.slot_ty(s)).collect();
        let vtys: Vec<VectorType> = stys.iter().map(|&t| self.vty(t)).collect::<Result<_>>()?;
        let mask = self.mask()?;
        let p = esize / sz;
        let dense_ok = esize % sz == 0 && poff % sz == 0 && p * w <= 256;
        let split = if dense_ok {
            self.split_consecutive(&acc)?
        } else {
            None
        };
        let mut dense = None;
        if let Some((sparse, join, base)) = split {
            let wt = self.word_type(sz).vec_type(w * p);
            let mut used = vec![false; p as usize];
            for s in slots.iter() {
                used[((poff + s.offset) / sz) as usize] = true;
            }
            let wm = self.word_mask(p, &used)?;
            let all = self.dense_load(wt, base, wm, sz)?;
            let mut outs = Vec::with_capacity(slots.len());
            for (s, vt) in slots.iter().zip(&vtys) {
                let k = (poff + s.offset) / sz;
                let idx: Vec<u32> = (0..w).map(|l| l * p + k).collect();
                let lane = self.b.build_shuffle_vector(
                    all,
                    all.get_type().get_poison(),
                    self.shuffle_mask(&idx),
                    "",
                )?;
                outs.push(self.b.build_bit_cast(lane, *vt, "")?);
            }
            let Some(db) = self.b.get_insert_block() else {
                return Err(Error::Llvm("builder not positioned".into()));
            };
            self.b.build_unconditional_branch(join)?;
            self.switch_to(sparse);
            dense = Some((outs, db, join));
        }
        let off = self.lane_offsets(&acc)?;
        let ptrs = self.vptrs(off, acc.data)?;
        let mut outs = Vec::with_capacity(slots.len());
        for (s, vt) in slots.iter().zip(&vtys) {
            let at = self.voffset(ptrs, poff + s.offset)?;
            let align = self.i32c(sz as u64);
            outs.push(self.call_intr(
                "llvm.masked.gather",
                &[(*vt).into(), at.get_type().into()],
                &[at.into(), align.into(), mask.into(), vt.get_poison().into()],
            )?);
        }
        if let Some((dense_out, db, join)) = dense {
            let Some(sb) = self.b.get_insert_block() else {
                return Err(Error::Llvm("builder not positioned".into()));
            };
            self.b.build_unconditional_branch(join)?;
            self.switch_to(join);
            let mut merged = Vec::with_capacity(outs.len());
            for ((d, s), vt) in dense_out.iter().zip(&outs).zip(&vtys) {
                let phi = self.b.build_phi(*vt, "")?;
                phi.add_incoming(&[(d as &dyn BasicValue, db), (s as &dyn BasicValue, sb)]);
                merged.push(phi.as_basic_value());
            }
            outs = merged;
        }
        self.vdef_results(inst, outs)?;
        Ok(true)
    }

    pub(super) fn vstore(&mut self, m: &weft_ir::ir::MemAccess, v: Value) -> Result<bool> {
        let Some(acc) = self.vaccess(m)? else {
            return Ok(false);
        };
        let (poff, esize) = (acc.poff, acc.esize);
        let Some(sz) = self.plain_slot_size(acc.ty) else {
            return Ok(false);
        };
        let slots = self.flat(acc.ty);
        let vals = self.vget(v)?;
        let w = self.width();
        let mask = self.mask()?;
        let p = esize / sz;
        let dense_ok = esize % sz == 0 && poff % sz == 0 && p * w <= 256;
        let split = if dense_ok {
            self.split_consecutive(&acc)?
        } else {
            None
        };
        let join = if let Some((sparse, join, base)) = split {
            let word = self.word_type(sz);
            let lanes_t = word.vec_type(w);
            let wt = word.vec_type(w * p);
            let mut used = vec![false; p as usize];
            let mut by_word: Vec<Option<VectorValue>> = vec![None; p as usize];
            for (s, &x) in slots.iter().zip(&vals) {
                let k = ((poff + s.offset) / sz) as usize;
                used[k] = true;
                by_word[k] = Some(self.b.build_bit_cast(x, lanes_t, "")?.into_vector_value());
            }
            // Interleave: word k of lane l is lane l of the slot at word k
            // (words no slot covers are masked off).
            let Some(fill) = by_word.iter().flatten().next().copied() else {
                return self.invalid("a store of no slots");
            };
            // Each slot's lanes widened to `W * p` words, then merged in:
            // word `l * p + k` takes lane `l` of the slot at word `k`.
            let wide_idx: Vec<u32> = (0..w * p).map(|i| i.min(w - 1)).collect();
            let mut all = wt.get_poison();
            for (k, word) in by_word.iter().enumerate() {
                let src = word.unwrap_or(fill);
                let wide = self.b.build_shuffle_vector(
                    src,
                    lanes_t.get_poison(),
                    self.shuffle_mask(&wide_idx),
                    "",
                )?;
                let idx: Vec<u32> = (0..w * p)
                    .map(|i| if i % p == k as u32 { w * p + i / p } else { i })
                    .collect();
                all = self
                    .b
                    .build_shuffle_vector(all, wide, self.shuffle_mask(&idx), "")?;
            }
            let wm = self.word_mask(p, &used)?;
            let whole = used.iter().all(|&u| u);
            self.dense_store(m.array, whole, all, base, wm, sz)?;
            self.b.build_unconditional_branch(join)?;
            self.switch_to(sparse);
            Some(join)
        } else {
            None
        };
        let off = self.lane_offsets(&acc)?;
        let ptrs = self.vptrs(off, acc.data)?;
        for (s, &x) in slots.iter().zip(&vals) {
            let at = self.voffset(ptrs, poff + s.offset)?;
            let align = self.i32c(sz as u64);
            self.call_intr_void(
                "llvm.masked.scatter",
                &[x.get_type(), at.get_type().into()],
                &[x, at.into(), align.into(), mask.into()],
            )?;
        }
        if let Some(join) = join {
            self.b.build_unconditional_branch(join)?;
            self.switch_to(join);
        }
        Ok(true)
    }

    /// The lanes' element pointers: `data + off`.
    pub(super) fn vptrs(
        &mut self,
        off: VectorValue<'ctx>,
        data: PointerValue<'ctx>,
    ) -> Result<VectorValue<'ctx>> {
        let i64t = self.ctx.i64_type();
        let d = self.b.build_ptr_to_int(data, i64t, "")?;
        let dv = self.splat(d.into())?.into_vector_value();
        let a = self.b.build_int_add(dv, off, "")?;
        let pt = data.get_type().vec_type(self.width());
        Ok(self.b.build_int_to_ptr(a, pt, "")?)
    }

    pub(super) fn voffset(
        &mut self,
        ptrs: VectorValue<'ctx>,
        by: u32,
    ) -> Result<VectorValue<'ctx>> {
        if by == 0 {
            return Ok(ptrs);
        }
        let i64t = self.ctx.i64_type();
        let i64v = i64t.vec_type(self.width());
        let a = self.b.build_ptr_to_int(ptrs, i64v, "")?;
        let k = self
            .splat(i64t.const_int(by as u64, false).into())?
            .into_vector_value();
        let a = self.b.build_int_add(a, k, "")?;
        Ok(self.b.build_int_to_ptr(a, ptrs.get_type(), "")?)
    }
}
