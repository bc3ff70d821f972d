//! The shader frame: the resources, the constant buffer, `[numthreads]` and
//! `main` with the thread index, its bounds check and the kernel prologue
//! (shapes, strides, parameters read from the constant buffer), around the
//! body that `instructions` emits.

use super::instructions::RegionKind;
use super::{ArrayInfo, Emitter, R, XYZW};
use crate::bindings::{BindingLayout, CB_DISPATCH_BASE, CB_LAUNCH_TOTAL, CB_ZERO};
use std::fmt::Write as _;
use weft_ir::{InstKind, Region, Scalar, Type, Value};

/// The `uint` word at byte `off` of the constant buffer.
pub(super) fn cb_word(off: u32) -> String {
    format!("weft_cb[{}].{}", off / 16, XYZW[(off % 16 / 4) as usize])
}

impl<'a> Emitter<'a> {
    pub(super) fn emit_function(mut self, b: &BindingLayout) -> R<String> {
        let f = self.f;
        let params = f.param_values().to_vec();
        if params.len() != f.params.len() {
            return Err(self.invalid("body params differ from the signature"));
        }
        // Buffers first, so that they keep their parameter names.
        let mut resources = String::new();
        let pool = match b.arrays.first() {
            Some(ab) if b.pooled => {
                let buf = self.names.fresh("weft_pool");
                let _ = writeln!(
                    resources,
                    "[[vk::binding({}, {})]] RWByteAddressBuffer {buf} : register(u{}); // every array, each at its base",
                    ab.binding, ab.set, ab.register
                );
                Some(buf)
            }
            _ => None,
        };
        for ab in &b.arrays {
            let v = params[ab.param_index];
            let (buf, base) = match &pool {
                Some(pool) => {
                    let base = self.names.fresh(&format!("{}_base", ab.param));
                    (pool.clone(), Some(base))
                }
                None => {
                    let buf = self.names.fresh(&ab.param);
                    let _ = writeln!(
                        resources,
                        "[[vk::binding({}, {})]] RWByteAddressBuffer {buf} : register(u{});",
                        ab.binding, ab.set, ab.register
                    );
                    (buf, None)
                }
            };
            let shape = self.names.fresh(&format!("{}_shape", ab.param));
            let strides = self.names.fresh(&format!("{}_strides", ab.param));
            self.arrays.insert(
                v,
                ArrayInfo {
                    buf,
                    base,
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
        if let Some(l) = &b.locks {
            let buf = self.names.fresh("weft_locks");
            let _ = writeln!(
                resources,
                "[[vk::binding({}, {})]] RWByteAddressBuffer {buf} : register(u{}); // lock table of 64-bit atomics",
                l.binding, l.set, l.register
            );
            self.lock_buf = Some(buf);
        }
        self.out.clear();
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
                if let (Some(base), Some(off)) = (&info.base, ca.base_offset) {
                    prologue.push(format!("uint {base} = {};", cb_word(off)));
                }
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
        for (depth, on) in &self.loop_on {
            let _ = writeln!(
                body,
                "    bool {on} = (({} >> {depth}u) == 0u);",
                cb_word(CB_ZERO)
            );
        }
        body.push_str(&std::mem::take(&mut self.out));
        let mut s = String::new();
        let src = self.file_of(f.loc);
        let _ = writeln!(
            s,
            "// Kernel `{}`{} compiled by weft-backend-hlsl.",
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
        let n_uav = b.storage_bindings().count();
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

    fn cb_leaf(&mut self, s: Scalar, off: u32) -> String {
        let w = cb_word(off);
        match s {
            Scalar::Bool => format!("({w} != 0u)"),
            Scalar::I8 | Scalar::I16 | Scalar::I32 => format!("asint({w})"),
            Scalar::U8 | Scalar::U16 | Scalar::U32 => w,
            Scalar::F16 => format!("f16tof32({w})"),
            Scalar::BF16 => format!("{}({w})", self.helpers.call("weft_bf16_to_f32")),
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
            k => {
                if let Some(m) = k.mem_access() {
                    strides |= self.array_of.get(&m.array) == Some(&a)
                }
            }
        });
        (shape, strides)
    }
}
