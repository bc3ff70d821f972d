//! File tests of the verifier and the backends: each `tests/filetests/**/*.ir`
//! is IR text with directives (`weft_testkit::filetest`), so that a backend
//! bug can be pinned by a ten-line file.
//!
//! * `; test verify`: the module verifies; with `; error:` lines, the
//!   verifier rejects it with those texts.
//! * `; test run B...` (`interp`, `cpu`, `llvm-cpu`, `vulkan`, `cuda`): each
//!   `; run:` line launches a kernel on every listed device that opens here
//!   (the others print a counted `SKIP`) and compares the arrays:
//!   `; run: k(4) x=[1, 2, 3, 4] n=3 -> x=[2, 4, 6, 8]` — the kernel, its
//!   launch dims, each parameter's value (a 1-D array of scalars in
//!   brackets, or a scalar), then after `->` the expected final arrays.
//!   Values are written as the parameter's scalar type reads them (`nan`,
//!   `inf`, `-0.0` for floats); floats compare bit for bit (any NaN equals
//!   any NaN).
//! * `; test emit clif|ptx|llvm|hlsl`: the backend's text, checked with
//!   `; check:` (in order), `; not:` and `; expect:`; `; error:` for a
//!   module the backend must refuse (an `Unsupported`). `; kernel: NAME`
//!   picks the kernel for `hlsl` (default: the first).
//!
//! `WEFT_BLESS=1` rewrites the `; expect:` sections of `emit` tests.

use std::path::{Path, PathBuf};
use weft::ir::{ElemType, Module as IrModule, Scalar, Type};
use weft::{Arg, Array, Device, Dtype, Value};
use weft_testkit::filetest::FileTest;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "ir") {
            out.push(p);
        }
    }
}

fn parse(t: &FileTest) -> Result<IrModule, String> {
    weft::ir::text::parse_module(&t.head)
        .map_err(|e| format!("input does not parse: {}:{}: {}", e.line, e.col, e.message))
}

/// `; test verify`.
fn verify(t: &FileTest) -> Result<(), String> {
    match weft::ir::verify::verify_module(&parse(t)?) {
        Ok(_) if t.values("error").next().is_none() => Ok(()),
        Ok(_) => Err("the verifier accepted the module".into()),
        Err(e) => t.check_error(&e.to_string()),
    }
}

/// A scalar literal as the bytes of `s`.
fn scalar_bytes(s: Scalar, text: &str) -> Result<Vec<u8>, String> {
    let t = text.trim();
    let bad = || format!("`{t}` is not a {s}");
    let int = || t.parse::<i128>().map_err(|_| bad());
    let float = || -> Result<f64, String> {
        match t {
            "nan" => Ok(f64::NAN),
            "inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            _ => t.parse::<f64>().map_err(|_| bad()),
        }
    };
    Ok(match s {
        Scalar::Bool => vec![u8::from(matches!(t, "true" | "1"))],
        Scalar::I8 | Scalar::U8 => vec![int()? as u8],
        Scalar::I16 | Scalar::U16 => (int()? as u16).to_le_bytes().to_vec(),
        Scalar::I32 | Scalar::U32 => (int()? as u32).to_le_bytes().to_vec(),
        Scalar::I64 | Scalar::U64 => (int()? as u64).to_le_bytes().to_vec(),
        Scalar::F16 => weft::ir::f16::f64_to_f16(float()?).to_le_bytes().to_vec(),
        Scalar::BF16 => weft::ir::f16::f64_to_bf16(float()?).to_le_bytes().to_vec(),
        Scalar::F32 => (float()? as f32).to_le_bytes().to_vec(),
        Scalar::F64 => float()?.to_le_bytes().to_vec(),
    })
}

/// `[a, b, c]` → the items.
fn list(text: &str) -> Result<Vec<&str>, String> {
    let inner = text
        .trim()
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| format!("`{text}` is not a [list]"))?;
    Ok(inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect())
}

/// `name=value` items, splitting on spaces outside brackets.
fn assignments(text: &str) -> Result<Vec<(&str, &str)>, String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    let bytes = text.as_bytes();
    for i in 0..=bytes.len() {
        let end = i == bytes.len();
        let c = if end { b' ' } else { bytes[i] };
        match c {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b' ' if depth == 0 => {
                let item = text[start..i].trim();
                if !item.is_empty() {
                    let (k, v) = item
                        .split_once('=')
                        .ok_or_else(|| format!("`{item}` is not name=value"))?;
                    out.push((k.trim(), v.trim()));
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    Ok(out)
}

/// A parameter's value on a run line.
#[derive(Clone, Debug)]
enum RunArg {
    /// A 1-D array: its element scalar and each element's bytes.
    Array(Scalar, Vec<Vec<u8>>),
    Value(Value),
}

/// One `; run:` line, parsed against the kernel's parameters.
#[derive(Debug)]
struct Run {
    kernel: String,
    dims: Vec<usize>,
    /// Per parameter, its value.
    args: Vec<RunArg>,
    /// Expected arrays by parameter index.
    expect: Vec<(usize, Vec<Vec<u8>>)>,
}

fn parse_run(m: &IrModule, line: &str) -> Result<Run, String> {
    let (call, rest) = line
        .split_once(')')
        .ok_or("a run line starts with `kernel(dims)`")?;
    let (kernel, dims) = call.split_once('(').ok_or("no `(` after the kernel")?;
    let dims = dims
        .split(',')
        .map(|d| {
            d.trim()
                .parse::<usize>()
                .map_err(|_| format!("bad dim `{d}`"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let f = m
        .func_by_name(kernel.trim())
        .map(|id| &m.funcs[id])
        .ok_or_else(|| format!("no kernel `{kernel}`"))?;
    let (ins, outs) = rest.split_once("->").unwrap_or((rest, ""));
    let param = |name: &str| {
        f.params
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| format!("no parameter `{name}`"))
    };
    let elem_of = |i: usize| match f.params[i].ty {
        Type::Array(a) => match a.elem {
            ElemType::Scalar(s) => Ok(s),
            _ => Err(format!("`{}`: only arrays of scalars", f.params[i].name)),
        },
        _ => Err(format!("`{}` is not an array", f.params[i].name)),
    };
    let mut args: Vec<Option<RunArg>> = vec![None; f.params.len()];
    for (name, v) in assignments(ins)? {
        let i = param(name)?;
        args[i] = Some(match f.params[i].ty {
            Type::Array(_) => {
                let s = elem_of(i)?;
                let items = list(v)?
                    .into_iter()
                    .map(|x| scalar_bytes(s, x))
                    .collect::<Result<_, _>>()?;
                RunArg::Array(s, items)
            }
            Type::Scalar(s) => RunArg::Value(
                Value::from_bytes(Dtype::scalar(s), scalar_bytes(s, v)?)
                    .map_err(|e| e.to_string())?,
            ),
            _ => return Err(format!("`{name}`: only scalars and arrays of scalars")),
        });
    }
    let args = args
        .into_iter()
        .enumerate()
        .map(|(i, a)| a.ok_or_else(|| format!("no value for `{}`", f.params[i].name)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut expect = Vec::new();
    for (name, v) in assignments(outs)? {
        let i = param(name)?;
        let s = elem_of(i)?;
        let items = list(v)?
            .into_iter()
            .map(|x| scalar_bytes(s, x))
            .collect::<Result<_, _>>()?;
        expect.push((i, items));
    }
    Ok(Run {
        kernel: kernel.trim().to_string(),
        dims,
        args,
        expect,
    })
}

/// Whether two elements of `s` are the same result (floats bit for bit,
/// any NaN equal to any NaN).
fn same(s: Scalar, a: &[u8], b: &[u8]) -> bool {
    let nan = |x: &[u8]| match s {
        Scalar::F32 => f32::from_le_bytes(x.try_into().unwrap_or([0; 4])).is_nan(),
        Scalar::F64 => f64::from_le_bytes(x.try_into().unwrap_or([0; 8])).is_nan(),
        Scalar::F16 => {
            weft::ir::f16::f16_to_f32(u16::from_le_bytes(x.try_into().unwrap_or([0; 2]))).is_nan()
        }
        _ => false,
    };
    a == b || (nan(a) && nan(b))
}

/// Runs one `; run:` line on `dev`.
fn run_on(dev: &Device, module: &weft::Module, r: &Run) -> Result<(), String> {
    let k = dev.load(module, &r.kernel).map_err(|e| e.to_string())?;
    let arrays: Vec<Option<Array>> = r
        .args
        .iter()
        .map(|a| match a {
            RunArg::Array(s, items) => {
                let bytes: Vec<u8> = items.concat();
                Array::from_bytes(Dtype::scalar(*s), &bytes, &[items.len()])
                    .map(Some)
                    .map_err(|e| e.to_string())
            }
            RunArg::Value(_) => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    let args: Vec<Arg<'_>> = r
        .args
        .iter()
        .zip(&arrays)
        .map(|(a, arr)| match (a, arr) {
            (RunArg::Value(v), _) => Arg::value(v.clone()),
            (RunArg::Array(..), arr) => Arg::array(arr.as_ref().expect("made above")),
        })
        .collect();
    dev.launch(&k, &r.dims, &args).map_err(|e| e.to_string())?;
    for (i, want) in &r.expect {
        let (Some(arr), RunArg::Array(s, _)) = (&arrays[*i], &r.args[*i]) else {
            continue;
        };
        let got = arr.to_bytes();
        let size = s.size() as usize;
        if got.len() != want.len() * size {
            return Err(format!(
                "parameter {i}: {} elements, expected {}",
                got.len() / size,
                want.len()
            ));
        }
        for (j, w) in want.iter().enumerate() {
            let g = &got[j * size..(j + 1) * size];
            if !same(*s, g, w) {
                return Err(format!(
                    "`{}`[{j}]: got bytes {g:?}, expected {w:?}",
                    k.signature().params[*i].name
                ));
            }
        }
    }
    Ok(())
}

/// `; test run B...`.
fn run(t: &FileTest, devices: &[String], name: &str) -> Result<(), String> {
    let ir = parse(t)?;
    weft::ir::verify::verify_module(&ir).map_err(|e| format!("does not verify: {e}"))?;
    let runs = t
        .values("run")
        .map(|l| parse_run(&ir, l).map_err(|e| format!("`; run: {l}`: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    if runs.is_empty() {
        return Err("no `; run:` lines".into());
    }
    let module = weft::Module::from_ir(ir);
    let mut failures = Vec::new();
    for d in devices {
        let dev = match Device::open(d) {
            Ok(dev) => dev,
            Err(e) => {
                weft_testkit::skip(format!("{name} on {d}: {e}"));
                continue;
            }
        };
        for (r, line) in runs.iter().zip(t.values("run")) {
            if let Err(e) = run_on(&dev, &module, r) {
                failures.push(format!("{d}: `; run: {line}`: {e}"));
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// The text `target` emits for `m`, or the backend's error.
fn emit_text(
    m: &weft::Module,
    target: &str,
    t: &FileTest,
) -> Result<Result<String, String>, String> {
    let text = match target {
        "clif" => m.clif_text(),
        "hlsl" => {
            let kernel = match t.values("kernel").next() {
                Some(k) => k.to_string(),
                None => m.kernel_names().into_iter().next().ok_or("no kernel")?,
            };
            m.hlsl(&kernel, &Default::default()).map(|s| s.source)
        }
        #[cfg(feature = "llvm")]
        "ptx" => m
            .ptx(&weft::PtxOptions {
                line_info: false,
                ..Default::default()
            })
            .map(|a| a.ptx),
        #[cfg(feature = "llvm")]
        "llvm" => m.llvm_ir(None),
        #[cfg(not(feature = "llvm"))]
        "ptx" | "llvm" => return Err(String::new()),
        other => return Err(format!("unknown emit target `{other}`")),
    };
    Ok(text.map_err(|e| e.to_string()))
}

/// `; test emit TARGET`.
fn emit(t: &FileTest, target: &str, path: &Path) -> Result<(), String> {
    let ir = parse(t)?;
    weft::ir::verify::verify_module(&ir).map_err(|e| format!("does not verify: {e}"))?;
    let m = weft::Module::from_ir(ir);
    let text = match emit_text(&m, target, t) {
        Err(e) if e.is_empty() => {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            weft_testkit::skip(format!("{name}: `emit {target}` needs the `llvm` feature"));
            return Ok(());
        }
        Err(e) => return Err(e),
        Ok(r) => r,
    };
    match text {
        Err(e) => t.check_error(&e),
        Ok(_) if t.values("error").next().is_some() => {
            Err("the backend accepted the module".into())
        }
        Ok(text) if weft_testkit::bless() && t.expect.is_some() => t
            .check_output(&text)
            .or_else(|_| std::fs::write(path, t.blessed(&text)).map_err(|e| e.to_string())),
        Ok(text) => t.check_output(&text),
    }
}

fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let t = FileTest::parse(&text);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match t.test.first().map(String::as_str) {
        Some("verify") => verify(&t),
        Some("run") if t.test.len() > 1 => run(&t, &t.test[1..], &name),
        Some("emit") if t.test.len() == 2 => emit(&t, &t.test[1], path),
        _ => Err("the first line must be `; test verify`, `; test run DEVICE...` or `; test emit TARGET`".into()),
    }
}

#[test]
fn filetests() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let mut all = Vec::new();
    files(&dir, &mut all);
    all.sort();
    assert!(
        all.len() >= 10,
        "{} file tests in {}",
        all.len(),
        dir.display()
    );
    let failures: Vec<String> = all
        .iter()
        .filter_map(|f| {
            check_file(f)
                .err()
                .map(|e| format!("FAIL {}:\n{e}", f.display()))
        })
        .collect();
    println!("{} file tests, {} failed", all.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The runner's own parsing of run lines.
#[test]
fn run_lines_parse() {
    let m = weft::ir::text::parse_module(
        "kernel @k(v0 \"x\": array1<f32>, v1 \"n\": i32) {\n  return\n}\n",
    )
    .unwrap();
    let r = parse_run(&m, "k(2) x=[1.5, nan] n=-3 -> x=[3, -0.0]").unwrap();
    assert_eq!((r.kernel.as_str(), r.dims.as_slice()), ("k", &[2usize][..]));
    assert!(matches!(&r.args[0], RunArg::Array(Scalar::F32, v) if v.len() == 2));
    assert_eq!(r.expect[0].1[1], (-0.0f32).to_le_bytes().to_vec());
    assert!(parse_run(&m, "k(2) x=[1, 2]").unwrap_err().contains("`n`"));
    assert!(parse_run(&m, "k(2) y=[1] n=1")
        .unwrap_err()
        .contains("no parameter"));
    assert!(same(
        Scalar::F32,
        &f32::NAN.to_le_bytes(),
        &(-f32::NAN).to_le_bytes()
    ));
    assert!(!same(
        Scalar::F32,
        &0.0f32.to_le_bytes(),
        &(-0.0f32).to_le_bytes()
    ));
}
