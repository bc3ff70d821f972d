//! The passes on real kernels: every case of the conformance corpus
//! (`$WEFT_CONFORMANCE_DIR`, default `../shared/conformance` from the
//! workspace root) is compiled by the frontend, run through the pipeline
//! of every optimization level (O2 also without inlining and with the
//! opt-in passes, O0 also with forced inlining) with the verifier after every pass, and launched on the reference interpreter before and after; the
//! final contents of every
//! array must be bit for bit the same (the passes only fold what they can
//! compute exactly as the interpreter does).
//!
//! Cases the frontend cannot compile yet are listed and skipped: they test
//! the frontend, not the passes.

use serde_json::Value as Json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use weft_ir::interp::{run_kernel, ArgValue, InterpOptions};
use weft_ir::{layout, Module, Scalar, StructTable, Type};
use weft_passes::{run_pipeline, OptLevel, PipelineOptions, VerifyMode};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("WEFT_CONFORMANCE_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance"),
    }
}

/// Reads a .npy file (format 1.0, C order): returns its data bytes.
fn npy_data(path: &Path) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(format!("{}: not an npy file", path.display()));
    }
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        _ => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
    };
    Ok(bytes[start + hlen..].to_vec())
}

/// Flattens a JSON scalar-argument value to its leaves in path order.
fn flatten(ty: Type, v: &Json, structs: &StructTable, out: &mut Vec<Json>) -> Result<(), String> {
    match (ty, v) {
        (Type::Struct(id), Json::Object(o)) => {
            let def = &structs[id];
            for f in &def.fields {
                let fv = o.get(&f.name).ok_or(format!("missing field {}", f.name))?;
                flatten(f.ty, fv, structs, out)?;
            }
        }
        (Type::Mat(..), Json::Array(rows)) => {
            for r in rows {
                flatten(ty.project(0, structs).unwrap_or(ty), r, structs, out)?;
            }
        }
        (_, Json::Array(xs)) => {
            for x in xs {
                out.push(x.clone());
            }
        }
        (_, x) => out.push(x.clone()),
    }
    Ok(())
}

fn encode_scalar(s: Scalar, v: &Json, out: &mut [u8]) -> Result<(), String> {
    let bytes: Vec<u8> = match s {
        Scalar::Bool => vec![v.as_bool().unwrap_or_else(|| v.as_i64().unwrap_or(0) != 0) as u8],
        Scalar::F16 => weft_ir::f16::f64_to_f16(v.as_f64().ok_or("float")?)
            .to_le_bytes()
            .to_vec(),
        Scalar::F32 => (v.as_f64().ok_or("float")? as f32).to_le_bytes().to_vec(),
        Scalar::F64 => v.as_f64().ok_or("float")?.to_le_bytes().to_vec(),
        _ => {
            let i: i128 = match (v.as_i64(), v.as_u64()) {
                (Some(i), _) => i as i128,
                (None, Some(u)) => u as i128,
                _ => return Err(format!("not an integer: {v}")),
            };
            let le = (i as u64).to_le_bytes();
            le[..s.size() as usize].to_vec()
        }
    };
    out[..bytes.len()].copy_from_slice(&bytes);
    Ok(())
}

/// Bytes of a by-value argument of type `ty`.
fn scalar_arg(ty: Type, v: &Json, structs: &StructTable) -> Result<Vec<u8>, String> {
    let mut flat = Vec::new();
    flatten(ty, v, structs, &mut flat)?;
    let leaves = layout::leaves(ty, structs);
    if leaves.len() != flat.len() {
        return Err(format!("value {v} does not fit {ty:?}"));
    }
    let mut buf = vec![0u8; layout::size_of(ty, structs) as usize];
    for (leaf, x) in leaves.iter().zip(&flat) {
        encode_scalar(leaf.scalar, x, &mut buf[leaf.offset as usize..])?;
    }
    Ok(buf)
}

/// Converts packed npy element data to the C layout of `elem`.
fn repack(data: &[u8], elem: Type, structs: &StructTable) -> Vec<u8> {
    let leaves = layout::leaves(elem, structs);
    let packed: usize = leaves.iter().map(|l| l.scalar.size() as usize).sum();
    let size = layout::size_of(elem, structs) as usize;
    if packed == size || packed == 0 {
        return data.to_vec();
    }
    let n = data.len() / packed;
    let mut out = vec![0u8; n * size];
    for i in 0..n {
        let mut src = i * packed;
        for l in &leaves {
            let w = l.scalar.size() as usize;
            let dst = i * size + l.offset as usize;
            out[dst..dst + w].copy_from_slice(&data[src..src + w]);
            src += w;
        }
    }
    out
}

struct Buffer {
    data: Vec<u8>,
    shape: Vec<i32>,
}

/// Runs every launch of a case on `m`; returns the final buffers by name.
fn run_case(m: &Module, dir: &Path, case: &Json) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut buffers: HashMap<String, Buffer> = HashMap::new();
    let mut order = Vec::new();
    let single;
    let launches: Vec<&Json> = match case.get("launches").and_then(Json::as_array) {
        Some(ls) => {
            for b in case["buffers"].as_array().ok_or("buffers")? {
                let name = b["name"].as_str().ok_or("buffer name")?.to_string();
                let shape = b["shape"].as_array().ok_or("shape")?;
                let data = npy_data(&dir.join(b["file"].as_str().ok_or("file")?))?;
                let shape = shape
                    .iter()
                    .map(|s| s.as_i64().unwrap_or(0) as i32)
                    .collect();
                order.push(name.clone());
                buffers.insert(name, Buffer { data, shape });
            }
            ls.iter().collect()
        }
        None => {
            single = case.clone();
            vec![&single]
        }
    };
    for launch in launches {
        let kname = launch["kernel"].as_str().ok_or("kernel")?;
        let kid = m
            .func_by_name(kname)
            .ok_or(format!("kernel `{kname}` not in the module"))?;
        let kf = &m.funcs[kid];
        let dim: Vec<i32> = launch["dim"]
            .as_array()
            .ok_or("dim")?
            .iter()
            .map(|d| d.as_i64().unwrap_or(0) as i32)
            .collect();
        let args = launch["args"].as_array().ok_or("args")?;
        if args.len() != kf.params.len() {
            return Err("argument count".into());
        }
        // Load this launch's own arrays.
        let mut arg_buffers = Vec::new();
        for (a, p) in args.iter().zip(&kf.params) {
            if a["kind"] != "array" {
                arg_buffers.push(None);
                continue;
            }
            let name = match a.get("buffer").and_then(Json::as_str) {
                Some(b) => b.to_string(),
                None => {
                    let name = a["name"].as_str().ok_or("name")?.to_string();
                    if !buffers.contains_key(&name) {
                        let Type::Array(at) = p.ty else {
                            return Err(format!("`{name}` is not an array param"));
                        };
                        let raw = npy_data(&dir.join(a["file"].as_str().ok_or("file")?))?;
                        let data = repack(&raw, Type::from(at.elem), &m.structs);
                        let shape = a["shape"]
                            .as_array()
                            .ok_or("shape")?
                            .iter()
                            .map(|s| s.as_i64().unwrap_or(0) as i32)
                            .collect();
                        order.push(name.clone());
                        buffers.insert(name.clone(), Buffer { data, shape });
                    }
                    name
                }
            };
            arg_buffers.push(Some(name));
        }
        // Take the buffers out to lend them mutably to the interpreter.
        let mut taken: Vec<Option<(String, Buffer)>> = arg_buffers
            .iter()
            .map(|n| n.as_ref().and_then(|n| buffers.remove_entry(n)))
            .collect();
        let mut iargs = Vec::new();
        for ((a, p), t) in args.iter().zip(&kf.params).zip(taken.iter_mut()) {
            match (p.ty, t) {
                (Type::Array(at), Some((_, buf))) => {
                    let esize = layout::elem_size(at.elem, &m.structs) as i64;
                    let mut shape = [1i32; 4];
                    let mut strides = [0i64; 4];
                    let nd = buf.shape.len().min(4);
                    shape[..nd].copy_from_slice(&buf.shape[..nd]);
                    let mut s = esize;
                    for ax in (0..nd).rev() {
                        strides[ax] = s;
                        s *= shape[ax] as i64;
                    }
                    iargs.push(ArgValue::Array {
                        data: buf.data.as_mut_slice(),
                        shape,
                        strides,
                    });
                }
                (ty, None) => iargs.push(ArgValue::Value(scalar_arg(ty, &a["value"], &m.structs)?)),
                _ => return Err("array argument used twice in one launch".into()),
            }
        }
        let res = run_kernel(m, kid, &dim, &mut iargs, &InterpOptions::default());
        drop(iargs);
        for (name, buf) in taken.into_iter().flatten() {
            buffers.insert(name, buf);
        }
        res.map_err(|e| format!("interpreter: {e}"))?;
    }
    Ok(order
        .into_iter()
        .filter_map(|n| buffers.remove(&n).map(|b| (n, b.data)))
        .collect())
}

#[test]
fn conformance_kernels_run_the_same_after_the_pipeline() {
    let root = corpus_dir();
    let cases_dir = root.join("cases");
    let Ok(entries) = std::fs::read_dir(&cases_dir) else {
        println!(
            "SKIPPED: conformance corpus not found at {} (set WEFT_CONFORMANCE_DIR)",
            root.display()
        );
        return;
    };
    let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    let only = std::env::var("WEFT_CASE").ok();
    let (mut passed, mut skipped, mut failures) = (0, Vec::new(), Vec::new());
    let mut pipeline_time = std::time::Duration::ZERO;
    let mut slowest = (std::time::Duration::ZERO, String::new());
    for dir in dirs {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if only.as_ref().is_some_and(|o| *o != name) {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(dir.join("kernel.py")) else {
            continue;
        };
        let case: Json = match std::fs::read_to_string(dir.join("case.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
        {
            Some(c) => c,
            None => {
                failures.push(format!("{name}: unreadable case.json"));
                continue;
            }
        };
        let m = match weft_frontend::compile("kernel.py", &src) {
            Ok(m) => m,
            Err(d) => {
                let first = d.items.first().map_or(String::new(), |i| format!("{i:?}"));
                skipped.push(format!(
                    "{name}: {}",
                    first.chars().take(160).collect::<String>()
                ));
                continue;
            }
        };
        let mut opt = m.clone();
        let opts = PipelineOptions {
            verify: VerifyMode::Always,
            ..PipelineOptions::default()
        };
        if let Err(e) = run_pipeline(&mut opt, &opts) {
            failures.push(format!("{name}: pipeline: {e}"));
            continue;
        }
        // Timing without the verifier (what a release build runs).
        let mut timed = m.clone();
        let start = std::time::Instant::now();
        let no_verify = PipelineOptions {
            verify: VerifyMode::Never,
            ..PipelineOptions::default()
        };
        match run_pipeline(&mut timed, &no_verify) {
            Ok(r) if only.is_some() => println!("{r:#?}"),
            Ok(_) => {}
            Err(_) => failures.push(format!("{name}: pipeline without the verifier failed")),
        }
        let took = start.elapsed();
        pipeline_time += took;
        slowest = slowest.max((took, name.clone()));
        if only.is_some() {
            println!("{}", weft_ir::text::print_module(&opt));
        }
        let before = match run_case(&m, &dir, &case) {
            Ok(b) => b,
            Err(e) => {
                skipped.push(format!("{name}: unoptimized run: {e}"));
                continue;
            }
        };
        // Optimized IR prints and parses back to the same text.
        let text = weft_ir::text::print_module(&opt);
        match weft_ir::text::parse_module(&text) {
            Ok(back) if weft_ir::text::print_module(&back) == text => {}
            Ok(_) => failures.push(format!("{name}: optimized IR does not round-trip")),
            Err(e) => failures.push(format!("{name}: optimized IR does not parse: {e:?}")),
        }
        // The pipeline without inlining (calls kept, funcs simplified too).
        let mut no_inline = m.clone();
        let opts_ni = PipelineOptions {
            inline: false,
            ..opts.clone()
        };
        if let Err(e) = run_pipeline(&mut no_inline, &opts_ni) {
            failures.push(format!("{name}: pipeline without inlining: {e}"));
            continue;
        }
        // The other levels: O1, and O0 (nothing, or only `inline` when
        // forced, as for the HLSL backend).
        let mut levels = Vec::new();
        for (what, level, force_inline, enable) in [
            ("O1 pipeline", OptLevel::O1, false, &[][..]),
            ("O0 pipeline", OptLevel::O0, false, &[]),
            ("O0 pipeline with forced inlining", OptLevel::O0, true, &[]),
            (
                "O2 pipeline with unroll and strength-reduce",
                OptLevel::O2,
                false,
                &["unroll", "strength-reduce"],
            ),
        ] {
            let mut lm = m.clone();
            let o = PipelineOptions {
                opt_level: level,
                force_inline,
                enable: enable.iter().map(|s| s.to_string()).collect(),
                ..opts.clone()
            };
            match run_pipeline(&mut lm, &o) {
                Ok(_) => levels.push((what, lm)),
                Err(e) => failures.push(format!("{name}: {what}: {e}")),
            }
        }
        let mut ok = true;
        for (what, module) in [
            ("O2 pipeline", &opt),
            ("O2 pipeline without inlining", &no_inline),
        ]
        .into_iter()
        .chain(levels.iter().map(|(w, lm)| (*w, lm)))
        {
            match run_case(module, &dir, &case) {
                Ok(after) if after == before => {}
                Ok(after) => {
                    let diff: Vec<&str> = before
                        .iter()
                        .zip(&after)
                        .filter(|(b, a)| b != a)
                        .map(|(b, _)| b.0.as_str())
                        .collect();
                    failures.push(format!("{name}: arrays differ after the {what}: {diff:?}"));
                    ok = false;
                }
                Err(e) => {
                    failures.push(format!("{name}: run after the {what}: {e}"));
                    ok = false;
                }
            }
        }
        passed += ok as usize;
    }
    println!("{passed} cases identical before/after the pipeline");
    println!(
        "pipeline time (no verifier): {pipeline_time:?} in all, slowest {:?} ({})",
        slowest.0, slowest.1
    );
    if !skipped.is_empty() {
        println!(
            "{} skipped (frontend or interpreter cannot run them yet):",
            skipped.len()
        );
        for s in &skipped {
            println!("  {s}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
