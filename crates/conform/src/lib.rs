//! # weft-conform — the conformance corpus and its runners
//!
//! The corpus format (`kernel.py`, `case.json`, npy inputs and Warp's
//! `expected_<name>.npy`) and what runs it on the `weft` library: `weft run`
//! and `weft conform` ([`run_case`], [`run_dir`]), `weft compare`
//! ([`compare`], every backend against the interpreter, and its HTML page,
//! [`report`]) and `weft gradcheck` ([`gradcheck`], adjoint gradients
//! against finite differences). It is a library: it returns what it found
//! and the command line (`weft-cli`) prints it.
//!
//! The runner loads a case of the corpus format (`kernel.py`,
//! `case.json`, npy inputs), runs it on a device, and compares the checked
//! arrays with Warp's `expected_<name>.npy` by the corpus rule:
//!
//! * integers and bools: exact;
//! * floats, in f64: `|got - expected| <= atol + rtol * |expected|`; NaN
//!   matches NaN, an infinity matches the same infinity, the sign of zero is
//!   ignored; `tolerances` overrides `rtol`/`atol` per array.
//!
//! Struct arrays compare field by field with the same rule per leaf.
//!
//! Buffers are laid out as the kernels take them: before each launch, a
//! buffer bound to a parameter the compiled kernel takes structure of
//! arrays (`CompileOptions::layout`, `--layout soa`) is converted to SoA
//! (and back to AoS for a later launch that takes it AoS). Inputs are read
//! and outputs written through the AoS view ([`Array::to_bytes`]), so the
//! npy files are the same in either layout.

pub mod case;
pub mod compare;
pub mod data;
mod error;
pub mod gradcheck;
pub mod npy;
pub mod report;

pub use case::{ArgSpec, BufferSpec, Case, CaseError, LaunchSpec};
pub use error::Error;

use npy::Npy;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use weft::ir::layout::Leaf;
use weft::ir::{Scalar, StructTable, Type};
use weft::{Arg, Array, Compiler, Device, Value};

/// A type's name in messages (`vec3<f32>`, a struct's name, ...).
pub fn type_label(ty: Type, structs: &StructTable) -> String {
    weft::type_name(ty, structs)
}

fn case_err(path: &Path, msg: impl Into<String>) -> Error {
    Error::Case(CaseError::Format {
        path: path.to_path_buf(),
        msg: msg.into(),
    })
}

/// Reads an npy file.
pub fn read_npy(path: &Path) -> Result<Npy, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Npy::parse(&bytes).map_err(|source| {
        Error::Case(CaseError::Npy {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// Writes an array as an npy file (packed items, as the corpus stores them).
pub fn write_npy(path: &Path, a: &Array) -> Result<(), Error> {
    std::fs::write(path, data::array_to_npy(a).to_bytes()).map_err(|e| Error::io(path, e))
}

/// The final contents of a case's buffers after running it, and, for a
/// gradient case, the gradients of its `adjoint.check` buffers after
/// backward.
pub struct CaseRun {
    pub buffers: Vec<(String, Array)>,
    pub grads: Vec<(String, Array)>,
}

impl CaseRun {
    pub fn buffer(&self, name: &str) -> Option<&Array> {
        self.buffers.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }
    /// Writes every buffer to `dir/<name>.npy`, and each checked gradient
    /// to `dir/grad_<name>.npy` (creating `dir`).
    pub fn write_outputs(&self, dir: &Path) -> Result<Vec<PathBuf>, Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let mut out = Vec::new();
        let named = self.buffers.iter().map(|(n, a)| (format!("{n}.npy"), a));
        let grads = self.grads.iter().map(|(n, a)| (format!("grad_{n}.npy"), a));
        for (file, a) in named.chain(grads) {
            let p = dir.join(file);
            write_npy(&p, a)?;
            out.push(p);
        }
        Ok(out)
    }
    pub fn grad(&self, name: &str) -> Option<&Array> {
        self.grads.iter().find(|(n, _)| n == name).map(|(_, a)| a)
    }
}

/// Compiles the case's `kernel.py`, creates its buffers and runs its
/// launches in order on `device`.
pub fn run_case(case: &Case, device: &Device, compiler: &Compiler) -> Result<CaseRun, Error> {
    let kpath = case.dir.join("kernel.py");
    let module = compiler.compile_file(&kpath)?;
    run_module(case, device, &module).map(|(run, _)| run)
}

/// Where the time of [`run_module`] went.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct RunTimes {
    /// Loading every launched kernel (compiling the module for the device).
    pub load: std::time::Duration,
    /// The launches, in order, each waited for.
    pub run: std::time::Duration,
}

/// [`run_case`] with the case's module already compiled: reads the
/// buffers' npy files, then [`run_module_with`].
pub fn run_module(
    case: &Case,
    device: &Device,
    module: &weft::Module,
) -> Result<(CaseRun, RunTimes), Error> {
    let mut inputs = Vec::new();
    for b in &case.buffers {
        inputs.push((b.name.clone(), read_npy(&case.dir.join(&b.file))?));
    }
    run_module_with(case, device, module, &inputs)
}

/// Runs the case's launches with `module` on `device`, its buffers made
/// from `inputs` (each buffer's npy contents, by name): loads every
/// launched kernel first, then creates the buffers and runs the launches,
/// timing both steps. A gradient case records its launches on a
/// [`weft::Tape`], seeds the output gradients and runs backward.
pub fn run_module_with(
    case: &Case,
    device: &Device,
    module: &weft::Module,
    inputs: &[(String, Npy)],
) -> Result<(CaseRun, RunTimes), Error> {
    let t = std::time::Instant::now();
    let mut kernels: Vec<(&str, weft::Kernel)> = Vec::new();
    for l in &case.launches {
        if !kernels.iter().any(|(n, _)| *n == l.kernel) {
            kernels.push((&l.kernel, device.load(module, &l.kernel)?));
        }
    }
    if case.adjoint.is_some() {
        for (name, _) in &kernels {
            device.load_adjoint(module, name)?;
        }
    }
    let load = t.elapsed();
    let structs = Arc::new(module.ir().structs.clone());
    let dtype = |name: &str, path: &Path| {
        data::warp_dtype(name, &structs)
            .ok_or_else(|| case_err(path, format!("unknown dtype `{name}`")))
    };
    let mut buffers = Vec::new();
    for b in &case.buffers {
        let path = case.dir.join(&b.file);
        let npy = inputs
            .iter()
            .find(|(n, _)| *n == b.name)
            .map(|(_, n)| n)
            .ok_or_else(|| case_err(&path, format!("no contents for array `{}`", b.name)))?;
        let mut a = data::array_from_npy(npy, dtype(&b.dtype, &path)?, &b.shape)
            .map_err(|m| case_err(&path, format!("array `{}`: {m}", b.name)))?;
        if let Some(adj) = &case.adjoint {
            if adj.requires_grad.contains(&b.name) {
                a = a
                    .requires_grad()
                    .with_retain_grad(adj.retain_grad.contains(&b.name));
            }
        }
        buffers.push((b.name.clone(), a));
    }
    let json = case.dir.join("case.json");
    let kernel_of = |name: &str| {
        kernels
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, k)| k)
            .ok_or_else(|| case_err(&json, format!("kernel `{name}` not loaded")))
    };
    let Some(adj) = &case.adjoint else {
        let mut run = std::time::Duration::ZERO;
        for l in &case.launches {
            let kernel = kernel_of(&l.kernel)?;
            set_layouts(l, kernel, &mut buffers, false)?;
            let args = launch_args(case, l, &buffers, &dtype)?;
            let t = std::time::Instant::now();
            device.launch(kernel, &l.dim, &args)?;
            run += t.elapsed();
        }
        let grads = Vec::new();
        return Ok((CaseRun { buffers, grads }, RunTimes { load, run }));
    };
    // A tape borrows the buffers: each is laid out once, as its first
    // launch takes it.
    for l in &case.launches {
        set_layouts(l, kernel_of(&l.kernel)?, &mut buffers, true)?;
    }
    let t = std::time::Instant::now();
    {
        let mut tape = weft::Tape::new();
        for l in &case.launches {
            let args = launch_args(case, l, &buffers, &dtype)?;
            tape.launch(device, module, &l.kernel, &l.dim, &args)?;
        }
        let mut seeds = Vec::new();
        for (name, file) in &adj.seed {
            let path = case.dir.join(file);
            let (_, arr) = buffers
                .iter()
                .find(|(n, _)| n == name)
                .ok_or_else(|| case_err(&json, format!("no buffer `{name}`")))?;
            let s = data::array_from_npy(&read_npy(&path)?, arr.dtype().clone(), arr.shape())
                .map_err(|m| case_err(&path, format!("seed of `{name}`: {m}")))?;
            seeds.push((arr, s));
        }
        let pairs: Vec<(&Array, &Array)> = seeds.iter().map(|(a, s)| (*a, s)).collect();
        tape.backward_with(&pairs)?;
    }
    let run = t.elapsed();
    let mut grads = Vec::new();
    for name in &adj.check {
        let g = buffers
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, a)| a.grad().map(|g| g.clone()))
            .ok_or_else(|| case_err(&json, format!("`{name}` has no gradient")))?;
        grads.push((name.clone(), g));
    }
    Ok((CaseRun { buffers, grads }, RunTimes { load, run }))
}

/// Converts the buffers launch `l` takes to the layouts `kernel` takes them
/// in (module docs). `once`: a buffer already converted for an earlier
/// launch must not change again (an error). A buffer that cannot be
/// converted is left for the launch to report.
fn set_layouts(
    l: &LaunchSpec,
    kernel: &weft::Kernel,
    buffers: &mut [(String, Array)],
    once: bool,
) -> Result<(), Error> {
    for (i, a) in l.args.iter().enumerate() {
        let ArgSpec::Array { buffer, .. } = a else {
            continue;
        };
        let want = kernel.signature().param_layout(i);
        if let Some((_, arr)) = buffers.iter_mut().find(|(n, _)| n == buffer) {
            if arr.layout() != want {
                if once && arr.layout() != weft::ArrayLayout::Aos {
                    return Err(case_err(
                        Path::new(buffer),
                        "a gradient case takes this buffer in two layouts",
                    ));
                }
                if let Ok(c) = arr.to_layout(want) {
                    *arr = c;
                }
            }
        }
    }
    Ok(())
}

/// The arguments of launch `l`: its buffers and its scalar values.
pub fn launch_args<'b>(
    case: &Case,
    l: &LaunchSpec,
    buffers: &'b [(String, Array)],
    dtype: &dyn Fn(&str, &Path) -> Result<weft::Dtype, Error>,
) -> Result<Vec<Arg<'b>>, Error> {
    let json = case.dir.join("case.json");
    let mut args = Vec::with_capacity(l.args.len());
    for a in &l.args {
        args.push(match a {
            ArgSpec::Array { buffer, .. } => {
                let (_, arr) = buffers
                    .iter()
                    .find(|(n, _)| n == buffer)
                    .ok_or_else(|| case_err(&json, format!("no buffer `{buffer}`")))?;
                Arg::Array(arr)
            }
            ArgSpec::Scalar {
                param,
                dtype: dt,
                value,
            } => {
                let d = dtype(dt, &json)?;
                let bytes = data::encode_value(value, &d)
                    .map_err(|m| case_err(&json, format!("argument `{param}`: {m}")))?;
                Arg::Value(Value::from_bytes(d, bytes)?)
            }
        });
    }
    Ok(args)
}

/// The worst mismatch of one checked array.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub array: String,
    /// Element index and component, e.g. `[3, 1]` or `[12].vel[2]`.
    pub index: String,
    pub expected: String,
    pub got: String,
    /// How many scalars differ, of how many.
    pub count: usize,
    pub total: usize,
    /// The element (row-major) and the scalar leaf within it of `index`.
    pub element: usize,
    pub leaf: usize,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}{}: expected {}, got {} ({} of {} values differ)",
            self.array, self.index, self.expected, self.got, self.count, self.total
        )
    }
}

fn leaf_label(ty: Type, path: &[u32], structs: &StructTable) -> String {
    let mut out = String::new();
    let mut t = ty;
    let mut i = 0;
    while i < path.len() {
        match t {
            Type::Struct(id) => {
                let name = structs
                    .get(id)
                    .and_then(|d| d.fields.get(path[i] as usize))
                    .map_or("?", |f| f.name.as_str());
                out.push('.');
                out.push_str(name);
            }
            Type::Mat(..) if i + 1 < path.len() => {
                out.push_str(&format!("[{}, {}]", path[i], path[i + 1]));
                t = t.project_path(&path[i..i + 2], structs).unwrap_or(t);
                i += 2;
                continue;
            }
            _ => out.push_str(&format!("[{}]", path[i])),
        }
        t = t.project(path[i], structs).unwrap_or(t);
        i += 1;
    }
    out
}

/// A decoded scalar for comparison.
#[derive(Copy, Clone, Debug)]
enum Num {
    Int(i128),
    Float(f64),
}

fn decode(s: Scalar, b: &[u8]) -> Num {
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    let u = u64::from_le_bytes(w);
    let n = s.bits();
    match s {
        Scalar::F16 => Num::Float(weft::ir::f16::f16_to_f64(u as u16)),
        Scalar::BF16 => Num::Float(weft::ir::f16::bf16_to_f32(u as u16) as f64),
        Scalar::F32 => Num::Float(f32::from_bits(u as u32) as f64),
        Scalar::F64 => Num::Float(f64::from_bits(u)),
        Scalar::Bool => Num::Int((u & 0xff) as i128),
        s if s.is_signed_int() => Num::Int(((u << (64 - n)) as i64 >> (64 - n)) as i128),
        _ => Num::Int(u as i128),
    }
}

fn show(s: Scalar, n: Num) -> String {
    match n {
        Num::Int(i) if s == Scalar::Bool => (i != 0).to_string(),
        Num::Int(i) => i.to_string(),
        Num::Float(f) if s == Scalar::F64 => format!("{f:?}"),
        Num::Float(f) => format!("{:?}", f as f32),
    }
}

/// How far `got` is from `expected`: 0 within tolerance, else the ratio of
/// the difference to the tolerance (infinite for a NaN/inf/exact mismatch).
fn badness(got: Num, expected: Num, rtol: f64, atol: f64) -> f64 {
    match (got, expected) {
        (Num::Int(g), Num::Int(e)) if g == e => 0.0,
        (Num::Int(_), Num::Int(_)) => f64::INFINITY,
        (Num::Float(g), Num::Float(e)) => {
            if e.is_nan() || g.is_nan() {
                return if e.is_nan() && g.is_nan() {
                    0.0
                } else {
                    f64::INFINITY
                };
            }
            if e.is_infinite() || g.is_infinite() {
                return if e == g { 0.0 } else { f64::INFINITY };
            }
            let diff = (g - e).abs();
            let tol = atol + rtol * e.abs();
            if diff <= tol {
                0.0
            } else if tol > 0.0 {
                diff / tol
            } else {
                f64::INFINITY
            }
        }
        _ => f64::INFINITY,
    }
}

/// Compares an array with an expected npy by the corpus rule; `None` if
/// they match.
pub fn compare(
    name: &str,
    got: &Array,
    expected: &Npy,
    rtol: f64,
    atol: f64,
) -> Result<Option<Mismatch>, String> {
    let actual = data::array_to_npy(got);
    if actual.shape != expected.shape {
        return Err(format!(
            "expected_{name}.npy has shape {:?}, the array {:?}",
            expected.shape, actual.shape
        ));
    }
    if actual.dtype.leaves() != expected.dtype.leaves() {
        return Err(format!(
            "expected_{name}.npy has dtype {}, the array {}",
            expected.dtype, actual.dtype
        ));
    }
    let dtype = got.dtype();
    let leaves: Vec<Leaf> = dtype.leaves();
    let item: usize = leaves.iter().map(|l| l.scalar.size() as usize).sum();
    let shape = got.shape();
    let (mut count, mut worst): (usize, Option<(f64, usize, usize)>) = (0, None);
    for e in 0..got.len() {
        let mut off = e * item;
        for (li, l) in leaves.iter().enumerate() {
            let w = l.scalar.size() as usize;
            let g = decode(l.scalar, &actual.data[off..off + w]);
            let x = decode(l.scalar, &expected.data[off..off + w]);
            off += w;
            let b = badness(g, x, rtol, atol);
            if b > 0.0 {
                count += 1;
                if worst.is_none_or(|(wb, _, _)| b > wb) {
                    worst = Some((b, e, li));
                }
            }
        }
    }
    let Some((_, e, li)) = worst else {
        return Ok(None);
    };
    let mut idx = vec![0usize; shape.len()];
    let mut rest = e;
    for k in (0..shape.len()).rev() {
        idx[k] = rest % shape[k].max(1);
        rest /= shape[k].max(1);
    }
    let l = &leaves[li];
    let po: usize = leaves[..li].iter().map(|l| l.scalar.size() as usize).sum();
    let off = e * item + po;
    let w = l.scalar.size() as usize;
    let idx_text: Vec<_> = idx.iter().map(|i| i.to_string()).collect();
    Ok(Some(Mismatch {
        array: name.to_string(),
        index: format!(
            "[{}]{}",
            idx_text.join(", "),
            leaf_label(dtype.ty(), &l.path, dtype.structs())
        ),
        expected: show(l.scalar, decode(l.scalar, &expected.data[off..off + w])),
        got: show(l.scalar, decode(l.scalar, &actual.data[off..off + w])),
        count,
        total: got.len() * leaves.len(),
        element: e,
        leaf: li,
    }))
}

/// Scalar leaf `leaf` of element `element` of `a` as text (as
/// [`Mismatch`] shows values); `None` out of range.
pub fn leaf_value(a: &Array, element: usize, leaf: usize) -> Option<String> {
    let npy = data::array_to_npy(a);
    let leaves: Vec<Leaf> = a.dtype().leaves();
    let l = leaves.get(leaf)?;
    let item: usize = leaves.iter().map(|l| l.scalar.size() as usize).sum();
    let off = element * item
        + leaves[..leaf]
            .iter()
            .map(|l| l.scalar.size() as usize)
            .sum::<usize>();
    let bytes = npy.data.get(off..off + l.scalar.size() as usize)?;
    Some(show(l.scalar, decode(l.scalar, bytes)))
}

/// Element-wise differences of one array from a reference ([`diff_stats`]).
#[derive(Clone, Debug, PartialEq)]
pub struct DiffStats {
    pub array: String,
    /// Largest `|got - reference|` over all scalars (in f64; 0 where both
    /// are NaN or the same infinity; infinite where only one is).
    pub max_abs: f64,
    /// Largest distance in units in the last place over the float scalars
    /// (`u64::MAX` for a NaN or infinity mismatch); `None` when the array
    /// holds no floats.
    pub max_ulp: Option<u64>,
    /// Scalars outside the tolerance, of `total`.
    pub bad: usize,
    pub total: usize,
}

impl DiffStats {
    /// Every scalar within the tolerance.
    pub fn passed(&self) -> bool {
        self.bad == 0
    }
}

/// Distance in ULPs of two floats of type `s` (raw little-endian bits):
/// the number of representable values between them; `-0.0` and `0.0` are
/// 0 apart, two NaNs 0 apart, a NaN and a number `u64::MAX`.
pub fn ulp_distance(s: Scalar, a: &[u8], b: &[u8]) -> u64 {
    let bits = |x: &[u8]| {
        let mut w = [0u8; 8];
        w[..x.len()].copy_from_slice(x);
        u64::from_le_bytes(w)
    };
    let (a, b) = (bits(a), bits(b));
    let nbits = s.bits();
    let sign = 1u64 << (nbits - 1);
    let exp_all = match s {
        Scalar::F16 => 0x7c00u64,
        Scalar::BF16 => 0x7f80u64,
        Scalar::F32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    };
    let is_nan = |x: u64| x & exp_all == exp_all && x & (exp_all ^ (sign - 1)) != 0;
    if is_nan(a) || is_nan(b) {
        return if is_nan(a) && is_nan(b) { 0 } else { u64::MAX };
    }
    // Map to a monotonic signed integer line (-0.0 and 0.0 both to 0).
    let ord = |x: u64| -> i128 {
        let mag = (x & (sign - 1)) as i128;
        if x & sign != 0 {
            -mag
        } else {
            mag
        }
    };
    (ord(a) - ord(b)).unsigned_abs().min(u64::MAX as u128) as u64
}

/// Element-wise differences of `got` from `reference` (an npy of the same
/// shape and leaves, e.g. another device's output through
/// [`data::array_to_npy`]), and how many scalars break the corpus rule
/// with `rtol`/`atol`.
pub fn diff_stats(
    name: &str,
    got: &Array,
    reference: &Npy,
    rtol: f64,
    atol: f64,
) -> Result<DiffStats, String> {
    let actual = data::array_to_npy(got);
    if actual.shape != reference.shape || actual.dtype.leaves() != reference.dtype.leaves() {
        return Err(format!(
            "`{name}`: shape {:?} dtype {} differs from the reference's {:?} {}",
            actual.shape, actual.dtype, reference.shape, reference.dtype
        ));
    }
    let leaves: Vec<Leaf> = got.dtype().leaves();
    let item: usize = leaves.iter().map(|l| l.scalar.size() as usize).sum();
    let mut st = DiffStats {
        array: name.to_string(),
        max_abs: 0.0,
        max_ulp: None,
        bad: 0,
        total: got.len() * leaves.len(),
    };
    for e in 0..got.len() {
        let mut off = e * item;
        for l in &leaves {
            let w = l.scalar.size() as usize;
            let (gb, rb) = (&actual.data[off..off + w], &reference.data[off..off + w]);
            off += w;
            let (g, r) = (decode(l.scalar, gb), decode(l.scalar, rb));
            if badness(g, r, rtol, atol) > 0.0 {
                st.bad += 1;
            }
            let abs = match (g, r) {
                (Num::Int(a), Num::Int(b)) => (a - b).unsigned_abs() as f64,
                (Num::Float(a), Num::Float(b)) if a.is_nan() && b.is_nan() => 0.0,
                (Num::Float(a), Num::Float(b)) if a.is_nan() || b.is_nan() => f64::INFINITY,
                (Num::Float(a), Num::Float(b)) if a == b => 0.0,
                (Num::Float(a), Num::Float(b)) => (a - b).abs(),
                _ => f64::INFINITY,
            };
            st.max_abs = st.max_abs.max(abs);
            if l.scalar.is_float() {
                let u = ulp_distance(l.scalar, gb, rb);
                st.max_ulp = Some(st.max_ulp.map_or(u, |m| m.max(u)));
            }
        }
    }
    Ok(st)
}

/// Compares every checked buffer of a run with its expected file, and, for
/// a gradient case, every checked gradient with `expected_grad_<name>.npy`
/// (reported as `grad_<name>`).
pub fn check_case(case: &Case, run: &CaseRun) -> Result<Vec<Mismatch>, Error> {
    let mut out = Vec::new();
    let forward = case.check.iter().map(|n| (n.clone(), false));
    let grads = case
        .adjoint
        .iter()
        .flat_map(|a| a.check.iter().map(|n| (n.clone(), true)));
    for (name, grad) in forward.chain(grads) {
        let label = if grad {
            format!("grad_{name}")
        } else {
            name.clone()
        };
        let path = case.dir.join(format!("expected_{label}.npy"));
        let expected = read_npy(&path)?;
        let arr = if grad {
            run.grad(&name)
        } else {
            run.buffer(&name)
        }
        .ok_or_else(|| case_err(&path, format!("no array `{label}`")))?;
        let (rtol, atol) = match (grad, &case.adjoint) {
            (true, Some(a)) => a.tolerance(&name),
            _ => case.tolerance(&name),
        };
        if let Some(m) =
            compare(&label, arr, &expected, rtol, atol).map_err(|m| case_err(&path, m))?
        {
            out.push(m);
        }
    }
    Ok(out)
}

/// The result of one case.
#[derive(Debug)]
pub enum Outcome {
    Pass,
    /// Ran, but some arrays differ from Warp's.
    Mismatch(Vec<Mismatch>),
    /// Did not run: compile, launch or case error (rendered, one line).
    Error(String),
}

#[derive(Debug)]
pub struct CaseResult {
    pub name: String,
    pub outcome: Outcome,
}

impl CaseResult {
    pub fn passed(&self) -> bool {
        matches!(self.outcome, Outcome::Pass)
    }
    /// The one-line report of a failing case (`None` if it passed).
    pub fn line(&self) -> Option<String> {
        match &self.outcome {
            Outcome::Pass => None,
            Outcome::Mismatch(ms) => {
                let first = ms.first().map_or(String::new(), |m| m.to_string());
                let more = if ms.len() > 1 {
                    let others: Vec<_> = ms[1..].iter().map(|m| m.array.as_str()).collect();
                    format!(" (also differs: {})", others.join(", "))
                } else {
                    String::new()
                };
                Some(format!("FAIL {}: {first}{more}", self.name))
            }
            Outcome::Error(e) => Some(format!("FAIL {}: {e}", self.name)),
        }
    }
}

/// An error squeezed onto one line: for diagnostics, the first message and
/// its location; otherwise the message's lines joined.
pub fn one_line(e: &Error) -> String {
    let text = e.render(false);
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut s = lines.next().unwrap_or("").to_string();
    if let Error::Weft(weft::Error::Frontend(_)) = e {
        let loc = text
            .lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix("┌─").or_else(|| l.strip_prefix("-->")));
        if let Some(loc) = loc {
            s.push_str(&format!(" (at {})", loc.trim()));
        }
    } else {
        for l in lines {
            s.push_str(" | ");
            s.push_str(l);
        }
    }
    if s.len() > 400 {
        let mut cut = 400;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str(" ...");
    }
    s
}

/// The message of a caught panic.
pub fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// Loads, runs and checks one case. A panic in a compiler layer is caught
/// and reported as that case's error, so one bad case cannot stop a run.
pub fn run_and_check(path: &Path, device: &Device, compiler: &Compiler) -> CaseResult {
    let fallback = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let fail = |name: &str, e: Error| (name.to_string(), one_line(&e));
        let case = Case::load(path).map_err(|e| fail(&fallback, Error::Case(e)))?;
        let run = run_case(&case, device, compiler).map_err(|e| fail(&case.name, e))?;
        let ms = check_case(&case, &run).map_err(|e| fail(&case.name, e))?;
        Ok::<_, (String, String)>((case.name.clone(), ms))
    }));
    match r {
        Ok(Ok((name, ms))) if ms.is_empty() => CaseResult {
            name,
            outcome: Outcome::Pass,
        },
        Ok(Ok((name, ms))) => CaseResult {
            name,
            outcome: Outcome::Mismatch(ms),
        },
        Ok(Err((name, e))) => CaseResult {
            name,
            outcome: Outcome::Error(e),
        },
        Err(p) => CaseResult {
            name: fallback,
            outcome: Outcome::Error(format!("internal error (panic): {}", panic_text(p))),
        },
    }
}

/// The case directories under `dir`: `dir` itself if it holds `case.json`,
/// else its (or its `cases/`'s) subdirectories holding one, sorted by name.
pub fn find_cases(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    if dir.join("case.json").is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let root = if dir.join("cases").is_dir() {
        dir.join("cases")
    } else {
        dir.to_path_buf()
    };
    let rd = std::fs::read_dir(&root).map_err(|e| Error::io(&root, e))?;
    let mut out = Vec::new();
    for ent in rd {
        let p = ent.map_err(|e| Error::io(&root, e))?.path();
        if p.join("case.json").is_file() {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// Totals of a corpus run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)
    }
}

/// Runs every case under `dir`, calling `report` with each result.
pub fn run_dir(
    dir: &Path,
    device: &Device,
    compiler: &Compiler,
    mut report: impl FnMut(&CaseResult),
) -> Result<Summary, Error> {
    let cases = find_cases(dir)?;
    if cases.is_empty() {
        return Err(case_err(dir, "no conformance cases found (no */case.json)"));
    }
    let mut s = Summary::default();
    for c in cases {
        let r = run_and_check(&c, device, compiler);
        if r.passed() {
            s.passed += 1;
        } else {
            s.failed += 1;
        }
        report(&r);
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_rule() {
        let f = |x: f64| Num::Float(x);
        assert_eq!(badness(f(f64::NAN), f(f64::NAN), 0.0, 0.0), 0.0);
        assert_eq!(badness(f(f64::INFINITY), f(f64::INFINITY), 0.0, 0.0), 0.0);
        assert!(badness(f(f64::INFINITY), f(f64::NEG_INFINITY), 1.0, 1.0).is_infinite());
        assert!(badness(f(1.0), f(f64::NAN), 1.0, 1.0).is_infinite());
        assert_eq!(badness(f(-0.0), f(0.0), 0.0, 0.0), 0.0);
        assert_eq!(badness(f(1.05), f(1.0), 0.1, 0.0), 0.0);
        assert!(badness(f(1.2), f(1.0), 0.1, 0.0) > 1.0);
        assert!(badness(Num::Int(3), Num::Int(4), 1.0, 1.0).is_infinite());
        assert_eq!(badness(Num::Int(-3), Num::Int(-3), 0.0, 0.0), 0.0);
        assert!(matches!(decode(Scalar::I8, &[0xff]), Num::Int(-1)));
        assert!(matches!(
            decode(Scalar::U16, &[0xff, 0xff]),
            Num::Int(65535)
        ));
    }

    #[test]
    fn ulps_and_diff_stats() {
        let f = |x: f32| x.to_le_bytes();
        assert_eq!(ulp_distance(Scalar::F32, &f(1.0), &f(1.0)), 0);
        let next = f32::from_bits(1.0f32.to_bits() + 1);
        assert_eq!(ulp_distance(Scalar::F32, &f(1.0), &f(next)), 1);
        assert_eq!(ulp_distance(Scalar::F32, &f(-0.0), &f(0.0)), 0);
        let tiny = f32::from_bits(1);
        assert_eq!(ulp_distance(Scalar::F32, &f(-tiny), &f(tiny)), 2);
        assert_eq!(ulp_distance(Scalar::F32, &f(f32::NAN), &f(f32::NAN)), 0);
        assert_eq!(ulp_distance(Scalar::F32, &f(f32::NAN), &f(1.0)), u64::MAX);
        let d = |x: f64| x.to_le_bytes();
        assert_eq!(
            ulp_distance(Scalar::F64, &d(2.0), &d(-2.0)),
            2 * 2.0f64.to_bits()
        );

        let got = Array::from_slice(&[1.0f32, 2.0, next], &[3]).unwrap();
        let reference = data::array_to_npy(&Array::from_slice(&[1.0f32, 2.5, 1.0], &[3]).unwrap());
        let st = diff_stats("a", &got, &reference, 0.0, 0.1).unwrap();
        assert_eq!(
            (st.max_abs, st.max_ulp, st.bad, st.total),
            (0.5, Some(1 << 21), 1, 3)
        );
        assert!(!st.passed());
        assert!(diff_stats("a", &got, &reference, 0.0, 0.5)
            .unwrap()
            .passed());
        let ints = Array::from_slice(&[3i32, -4], &[2]).unwrap();
        let iref = data::array_to_npy(&Array::from_slice(&[3i32, 4], &[2]).unwrap());
        let st = diff_stats("i", &ints, &iref, 1.0, 1.0).unwrap();
        assert_eq!((st.max_abs, st.max_ulp, st.bad), (8.0, None, 1));
        assert!(diff_stats("i", &ints, &reference, 0.0, 0.0).is_err());
    }

    #[test]
    fn reports_the_worst_element() {
        let got = Array::from_slice(&[[1.0f32, 2.0], [3.0, 4.5], [5.0, 9.0]], &[3]).unwrap();
        let exp = data::array_to_npy(
            &Array::from_slice(&[[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0]], &[3]).unwrap(),
        );
        let m = compare("v", &got, &exp, 0.0, 0.1).unwrap().unwrap();
        assert_eq!(m.index, "[2][1]");
        assert_eq!((m.expected.as_str(), m.got.as_str()), ("6.0", "9.0"));
        assert_eq!((m.count, m.total), (2, 6));
        assert!(compare("v", &got, &exp, 0.0, 4.0).unwrap().is_none());
        let bad_shape = data::array_to_npy(&Array::from_slice(&[[1.0f32, 2.0]], &[1]).unwrap());
        assert!(compare("v", &got, &bad_shape, 0.0, 0.0).is_err());
    }
}
