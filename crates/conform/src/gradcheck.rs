//! `weft gradcheck CASE`: a gradient case's adjoint gradients against
//! central finite differences.
//!
//! The objective is the one the case's seeds define, `L = Σ seed · final
//! contents` over the seeded arrays. Its derivative with respect to each
//! entry of each *input* (an array that carries a gradient and that no
//! launch writes) is estimated by `(L(x + h) - L(x - h)) / 2h`, running the
//! whole case forward for each, in float64 when the module can be promoted
//! ([`weft::Module::to_f64`]; float32 otherwise), with `h = 1e-6·max(1, |x|)`
//! (`1e-3` in float32). The adjoint's gradients (the case run as usual) are
//! compared normwise (with `--exact-loops`, also the arrays whose
//! difference is Warp's dynamic-loop rule): the error of an input is
//! `max |fd - grad| / max |fd|`, and it passes when every entry is within
//! `atol + rtol · max |fd|` with the case's gradient tolerances — or, where
//! the case asks for more than central differences can tell, the accuracy
//! of the differences ([`FD_RTOL`]: float64 differences are good to about
//! `1e-9` relative, not to the `1e-12` a float64 case compares Warp's
//! gradients with). Arrays whose
//! `grad_kind` says a Warp rule makes them differ from the derivative are
//! reported and not compared.

use crate as conform;
use crate::Error;
use crate::{ArgSpec, Case};
use std::path::Path;
use std::sync::Arc;
use weft::ir::{ElemType, Scalar, StructTable};
use weft::{Array, Compiler, Device, Dtype};

/// The relative accuracy a float64 (float32) central difference is trusted
/// to (the corpus's own finite-difference check uses the same thresholds).
pub const FD_RTOL: [f64; 2] = [1e-6, 2e-3];

/// Options of [`gradcheck`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Entries checked per array (spread evenly when it has more).
    pub max_entries: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_entries: 64 }
    }
}

/// Whether an array of grad kind `kind` is compared with the differences:
/// derivatives always; Warp's dynamic-loop rule too when the compiler
/// differentiates loops exactly (`exact`), which makes them derivatives.
fn compared(kind: Option<&str>, exact: bool) -> bool {
    match kind {
        Some(k) if k.starts_with("rule") => exact && k.contains("dynamic loop"),
        _ => true,
    }
}

/// One array's comparison.
#[derive(Clone, Debug)]
pub struct Row {
    pub array: String,
    /// Entries compared (0 when not compared).
    pub entries: usize,
    /// `max |fd - grad| / max |fd|` (0 when both are 0).
    pub error: f64,
    /// Within the tolerance; `None` when not compared (`note` says why).
    pub passed: Option<bool>,
    pub note: String,
}

/// The result of [`gradcheck`].
#[derive(Clone, Debug)]
pub struct Report {
    pub case: String,
    /// `float64` or `float32`: the precision of the finite differences.
    pub precision: &'static str,
    pub rows: Vec<Row>,
}

impl Report {
    /// Every compared input within its tolerance.
    pub fn passed(&self) -> bool {
        self.rows.iter().all(|r| r.passed != Some(false))
    }
}

/// The array parameters each kernel of `m` writes (stores or atomics), by
/// parameter name.
fn written(m: &weft::ir::Module, kernel: &str) -> Vec<String> {
    let Some(f) = m.kernels().find(|(_, f)| f.name == kernel).map(|(_, f)| f) else {
        return Vec::new();
    };
    let params = f.param_values();
    let mut out = Vec::new();
    for d in f.insts.values() {
        let arr = match d.kind.mem_access() {
            Some(m) if d.kind.writes_array() => m.array,
            _ => continue,
        };
        if let Some(k) = params.iter().position(|&p| p == arr) {
            out.push(f.params[k].name.clone());
        }
    }
    out
}

/// `dtype` with float32 made float64 (struct fields: in `structs`, the
/// promoted module's table).
fn promoted(dtype: &Dtype, structs: &Arc<StructTable>) -> Dtype {
    let f = |s: Scalar| if s == Scalar::F32 { Scalar::F64 } else { s };
    let e = match dtype.elem() {
        ElemType::Scalar(s) => ElemType::Scalar(f(s)),
        ElemType::Vec(n, s) => ElemType::Vec(n, f(s)),
        ElemType::Mat(r, c, s) => ElemType::Mat(r, c, f(s)),
        ElemType::Quat(s) => ElemType::Quat(f(s)),
        ElemType::Transform(s) => ElemType::Transform(f(s)),
        ElemType::Struct(id) => ElemType::Struct(id),
    };
    Dtype::with_structs(e, structs.clone())
}

/// `a`'s contents in `to` (the same leaves, each converted).
fn convert(a: &Array, to: &Dtype) -> Result<Array, Error> {
    let (from, bytes) = (a.dtype().leaves(), a.to_bytes());
    let into = to.leaves();
    let (fs, ts) = (a.dtype().size(), to.size());
    let mut out = vec![0u8; ts * a.len()];
    for e in 0..a.len() {
        for (l, m) in from.iter().zip(&into) {
            let src = &bytes[e * fs + l.offset as usize..][..l.scalar.size() as usize];
            let dst = &mut out[e * ts + m.offset as usize..][..m.scalar.size() as usize];
            match (l.scalar, m.scalar) {
                (Scalar::F32, Scalar::F64) => {
                    let v = f32::from_le_bytes(src.try_into().unwrap_or([0; 4])) as f64;
                    dst.copy_from_slice(&v.to_le_bytes());
                }
                _ => dst.copy_from_slice(src),
            }
        }
    }
    Ok(Array::from_bytes(to.clone(), &out, a.shape())?)
}

/// Float leaves of an array as f64, in C order.
fn floats(a: &Array) -> Vec<f64> {
    let (leaves, bytes, size) = (a.dtype().leaves(), a.to_bytes(), a.dtype().size());
    let mut out = Vec::new();
    for e in 0..a.len() {
        for l in &leaves {
            let b = &bytes[e * size + l.offset as usize..][..l.scalar.size() as usize];
            match l.scalar {
                Scalar::F32 => out.push(f32::from_le_bytes(b.try_into().unwrap_or([0; 4])) as f64),
                Scalar::F64 => out.push(f64::from_le_bytes(b.try_into().unwrap_or([0; 8]))),
                Scalar::F16 => out.push(weft::ir::f16::f16_to_f64(u16::from_le_bytes(
                    b.try_into().unwrap_or([0; 2]),
                ))),
                _ => {}
            }
        }
    }
    out
}

/// `a` with float leaf `k` (C order over [`floats`]) set to `v`.
fn with_float(a: &Array, k: usize, v: f64) -> Result<Array, Error> {
    let (leaves, mut bytes, size) = (a.dtype().leaves(), a.to_bytes(), a.dtype().size());
    let fl: Vec<_> = leaves.iter().filter(|l| l.scalar.is_float()).collect();
    let (e, l) = (k / fl.len().max(1), fl[k % fl.len().max(1)]);
    let b = &mut bytes[e * size + l.offset as usize..][..l.scalar.size() as usize];
    match l.scalar {
        Scalar::F32 => b.copy_from_slice(&(v as f32).to_le_bytes()),
        Scalar::F64 => b.copy_from_slice(&v.to_le_bytes()),
        _ => b.copy_from_slice(&weft::ir::f16::f64_to_f16(v).to_le_bytes()),
    }
    Ok(Array::from_bytes(a.dtype().clone(), &bytes, a.shape())?)
}

/// The case run forward from `buffers` with `module`: `L = Σ seed · final`.
fn objective(
    case: &Case,
    device: &Device,
    module: &weft::Module,
    buffers: &[(String, Array)],
    seeds: &[(String, Vec<f64>)],
    dtype: &dyn Fn(&str, &Path) -> Result<Dtype, Error>,
) -> Result<f64, Error> {
    let bufs: Vec<(String, Array)> = buffers.to_vec();
    for l in &case.launches {
        let k = device.load(module, &l.kernel)?;
        let args = conform::launch_args(case, l, &bufs, dtype)?;
        device.launch(&k, &l.dim, &args)?;
    }
    let mut sum = 0.0;
    for (name, s) in seeds {
        let (_, a) = bufs.iter().find(|(n, _)| n == name).ok_or_else(|| {
            Error::Case(conform::CaseError::Format {
                path: case.dir.join("case.json"),
                msg: format!("no buffer `{name}`"),
            })
        })?;
        sum += floats(a).iter().zip(s).map(|(x, y)| x * y).sum::<f64>();
    }
    Ok(sum)
}

/// Checks the adjoint gradients of `case` against finite differences.
pub fn gradcheck(
    case: &Case,
    device: &Device,
    compiler: &Compiler,
    opts: &Options,
) -> Result<Report, Error> {
    let json = case.dir.join("case.json");
    let err = |msg: String| {
        Error::Case(conform::CaseError::Format {
            path: json.clone(),
            msg,
        })
    };
    let Some(adj) = &case.adjoint else {
        return Err(err("not a gradient case (no `adjoint` section)".into()));
    };
    let module = compiler.compile_file(case.dir.join("kernel.py"))?;
    let run = conform::run_case(case, device, compiler)?;
    let kinds = grad_kinds(&json);
    // The inputs: gradient-carrying arrays that no launch writes.
    let mut writes: Vec<String> = Vec::new();
    for l in &case.launches {
        let w = written(module.ir(), &l.kernel);
        for a in &l.args {
            if let ArgSpec::Array { param, buffer } = a {
                if w.contains(param) {
                    writes.push(buffer.clone());
                }
            }
        }
    }
    let f64m = module.to_f64();
    let (fd_module, precision, eps) = match &f64m {
        Some(m) => (m, "float64", 1e-6),
        None => (&module, "float32", 1e-3),
    };
    let structs = Arc::new(fd_module.ir().structs.clone());
    let base_structs = Arc::new(module.ir().structs.clone());
    let promote = f64m.is_some();
    let dtype = |name: &str, path: &Path| -> Result<Dtype, Error> {
        let d = conform::data::warp_dtype(name, &base_structs).ok_or_else(|| {
            Error::Case(conform::CaseError::Format {
                path: path.to_path_buf(),
                msg: format!("unknown dtype `{name}`"),
            })
        })?;
        Ok(if promote { promoted(&d, &structs) } else { d })
    };
    // The inputs in the precision of the differences; the seeds as f64.
    let mut base = Vec::new();
    let mut seeds = Vec::new();
    for b in &case.buffers {
        let d = conform::data::warp_dtype(&b.dtype, &base_structs)
            .ok_or_else(|| err(format!("unknown dtype `{}`", b.dtype)))?;
        let load = |file: &str| -> Result<Array, Error> {
            let path = case.dir.join(file);
            conform::data::array_from_npy(&conform::read_npy(&path)?, d.clone(), &b.shape)
                .map_err(|m| err(format!("`{file}` of `{}`: {m}", b.name)))
        };
        let a = load(&b.file)?;
        let a = if promote {
            convert(&a, &promoted(a.dtype(), &structs))?
        } else {
            a
        };
        base.push((b.name.clone(), a));
        if let Some((_, file)) = adj.seed.iter().find(|(n, _)| *n == b.name) {
            seeds.push((b.name.clone(), floats(&load(file)?)));
        }
    }
    let mut rows = Vec::new();
    for name in &adj.requires_grad {
        let kind = kinds
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, k)| k.as_str());
        let skip = |note: &str| Row {
            array: name.clone(),
            entries: 0,
            error: 0.0,
            passed: None,
            note: note.to_string(),
        };
        if writes.contains(name) {
            rows.push(skip(
                "written by a launch: its gradient is a residual, not a derivative",
            ));
            continue;
        }
        let exact = compiler.options().exact_loops.is_some();
        if let Some(k) = kind.filter(|k| !compared(Some(k), exact)) {
            rows.push(skip(&format!("a Warp rule, not the derivative ({k})")));
            continue;
        }
        let Some(grad) = run.grad(name) else {
            rows.push(skip("no gradient computed"));
            continue;
        };
        let g = floats(grad);
        let k = base
            .iter()
            .position(|(n, _)| n == name)
            .ok_or_else(|| err(format!("no buffer `{name}`")))?;
        let x = floats(&base[k].1);
        let n = x.len();
        let picks: Vec<usize> = if n <= opts.max_entries {
            (0..n).collect()
        } else {
            (0..opts.max_entries)
                .map(|j| j * n / opts.max_entries)
                .collect()
        };
        let mut fd = Vec::new();
        for &j in &picks {
            let h = eps * x[j].abs().max(1.0);
            let eval = |v: f64| -> Result<f64, Error> {
                let mut bufs = base.clone();
                bufs[k].1 = with_float(&base[k].1, j, v)?;
                objective(case, device, fd_module, &bufs, &seeds, &dtype)
            };
            let (up, down) = (eval(x[j] + h)?, eval(x[j] - h)?);
            fd.push((up - down) / (2.0 * h));
        }
        let (rtol, atol) = adj.tolerance(name);
        let rtol = rtol.max(FD_RTOL[usize::from(!promote)]);
        let scale = fd.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let worst = picks
            .iter()
            .zip(&fd)
            .map(|(&j, &f)| (f - g[j]).abs())
            .fold(0.0f64, f64::max);
        let error = if scale > 0.0 { worst / scale } else { worst };
        rows.push(Row {
            array: name.clone(),
            entries: picks.len(),
            error,
            passed: Some(worst <= atol + rtol * scale),
            note: String::new(),
        });
    }
    Ok(Report {
        case: case.name.clone(),
        precision,
        rows,
    })
}

/// `adjoint.grad_kind` of `case.json`, if present: (array, text).
fn grad_kinds(json: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(json) else {
        return Vec::new();
    };
    let Ok(j) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    j.get("adjoint")
        .and_then(|a| a.get("grad_kind"))
        .and_then(|k| k.as_object())
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}
