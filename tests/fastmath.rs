//! Fast math end to end: off, the IR carries no flags and results are the
//! interpreter's (on `llvm-cpu`, whose vector tier computes the precise
//! functions inline, within an ulp per function); on, the flags appear in the IR text, the CPU code fuses
//! `a*b+c` into `fma`, the PTX uses `.approx`/`fma.rn` forms, the CPU
//! targets (Cranelift, LLVM host) inline `sin`/`cos`/`exp` instead of
//! calling the library (Cranelift also runs them in its 4-wide SIMD thread
//! loop), and the transcendental kernel stays within 1e-6 (relative to
//! max(1, |precise|)) of the precise result on cpu and llvm-cpu.

mod common;

#[cfg(feature = "llvm")]
use weft::PtxOptions;
use weft::{Arg, Array, CompileOptions, Compiler, Device};

const SOURCE: &str = r#"
import warp as wp

@wp.kernel
def transcendental(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    y[i] = wp.sin(v) * wp.cos(v) + wp.exp(-v * v) + wp.sqrt(wp.abs(v))

@wp.kernel
def axpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
"#;

fn compiler(fast_math: bool) -> Compiler {
    Compiler::with_options(CompileOptions {
        fast_math,
        ..CompileOptions::default()
    })
}

fn module(fast_math: bool) -> weft::Module {
    compiler(fast_math).compile("fm.py", SOURCE).unwrap()
}

fn transcendental(dev: &Device, fast_math: bool, x: &[f32]) -> Vec<f32> {
    let m = module(fast_math);
    let k = dev.load(&m, "transcendental").unwrap();
    let xa = Array::from_slice(x, &[x.len()]).unwrap();
    let ya = Array::from_slice(&vec![0.0f32; x.len()], &[x.len()]).unwrap();
    dev.launch(&k, &[x.len()], &[Arg::array(&xa), Arg::array(&ya)])
        .unwrap();
    ya.to_vec::<f32>().unwrap()
}

#[test]
fn off_means_no_flags_on_means_flags() {
    let precise = module(false).ir_text();
    assert!(!precise.contains("fast("), "{precise}");
    let fast = module(true).ir_text();
    assert!(fast.contains("sin "), "{fast}");
    for line in fast
        .lines()
        .filter(|l| l.contains(" = sin ") || l.contains(" = add "))
    {
        let float = line.contains(": f32 =");
        assert_eq!(line.contains("fast(contract,afn)"), float, "{line}");
    }
}

#[test]
fn cpu_code_fuses_multiply_add() {
    let has_fma = {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("fma")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            cfg!(target_arch = "aarch64")
        }
    };
    assert!(!module(false).clif_text().unwrap().contains(" fma "));
    let clif = module(true).clif_text().unwrap();
    assert_eq!(clif.contains(" fma "), has_fma, "{clif}");
}

#[test]
fn cpu_targets_inline_the_transcendentals() {
    let (precise, fast) = (module(false), module(true));
    // Cranelift: the precise kernel calls the library shims; the fast one
    // has no call at all and a vector (f32x4) thread loop.
    let clif = precise.clif_text().unwrap();
    assert!(clif.contains("call fn"), "{clif}");
    let clif = fast.clif_text().unwrap();
    assert!(!clif.contains("call "), "{clif}");
    assert!(clif.contains("f32x4"), "{clif}");
    // LLVM host: the shims go.
    #[cfg(feature = "llvm")]
    {
        let ll = precise.llvm_ir(None).unwrap();
        for f in ["weft_sin_f32", "weft_cos_f32", "weft_exp_f32"] {
            assert!(ll.contains(f), "{f} missing:\n{ll}");
        }
        let ll = fast.llvm_ir(None).unwrap();
        assert!(!ll.contains("weft_sin_f32"), "{ll}");
        assert!(!ll.contains("weft_exp_f32"), "{ll}");
    }
}

#[cfg(feature = "llvm")]
#[test]
fn ptx_uses_approximate_instructions() {
    let ptx = module(true).ptx(&PtxOptions::default()).unwrap().ptx;
    for op in [
        "sin.approx.f32",
        "cos.approx.f32",
        "ex2.approx",
        "sqrt.approx.f32",
        "fma.rn.f32",
    ] {
        assert!(ptx.contains(op), "{op} missing:\n{ptx}");
    }
}

#[test]
fn fast_results_are_close_and_precise_results_are_the_interpreters() {
    let n = 1 << 14;
    let mut x: Vec<f32> = (0..n).map(|i| -4.0 + 8.0 * i as f32 / n as f32).collect();
    // Wider arguments too: sin/cos reduce them, exp underflows to 0.
    x.extend((0..n).map(|i| -1e4 + 2e4 * i as f32 / n as f32));
    let oracle = transcendental(&Device::interp(), false, &x);
    for dev in common::devices(&["cpu", "llvm-cpu"]) {
        let precise = transcendental(&dev, false, &x);
        // `cpu` calls the interpreter's functions (the shims); `llvm-cpu`'s
        // vector tier computes them inline, correctly rounded, an ulp from
        // the shims at a few inputs (`weft_abi::precise`): its three terms
        // may each be an ulp off.
        let exact = dev.name() == "cpu";
        assert!(
            precise.iter().zip(&oracle).all(|(a, b)| {
                a.to_bits() == b.to_bits()
                    || (!exact && (a - b).abs() <= 3.0 * f32::EPSILON * b.abs().max(1.0))
            }),
            "{}: precise differs from the interpreter",
            dev.name()
        );
        let fast = transcendental(&dev, true, &x);
        let worst = fast
            .iter()
            .zip(&precise)
            .map(|(f, p)| (f - p).abs() as f64 / (p.abs() as f64).max(1.0))
            .fold(0.0, f64::max);
        assert!(worst <= 1e-6, "{}: error {worst:e}", dev.name());
    }
}

const EACH: &str = r#"
import warp as wp

@wp.kernel
def each(x: wp.array(dtype=float), p: wp.array(dtype=float),
         o0: wp.array(dtype=float), o1: wp.array(dtype=float), o2: wp.array(dtype=float),
         o3: wp.array(dtype=float), o4: wp.array(dtype=float), o5: wp.array(dtype=float),
         o6: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    w = p[i]
    o0[i] = wp.sin(v)
    o1[i] = wp.cos(v)
    o2[i] = wp.tan(v)
    o3[i] = wp.sin(v * 100.0)
    o4[i] = wp.exp(v)
    o5[i] = wp.log(w)
    o6[i] = wp.log2(w)
"#;

/// The approximated functions that Warp has (sin, cos, tan, sin(100x),
/// exp of `x`; log, log2 of `p`) on a device, precise or fast, as
/// `out[7 * i + function]`. (One output array per function, indexed by the
/// thread: the CPU backend runs this kernel 4 threads at a time and
/// inlines the approximations.)
fn each(dev: &Device, fast_math: bool, x: &[f32], p: &[f32]) -> Vec<f32> {
    let m = compiler(fast_math).compile("each.py", EACH).unwrap();
    let k = dev.load(&m, "each").unwrap();
    let n = x.len();
    let xa = Array::from_slice(x, &[n]).unwrap();
    let pa = Array::from_slice(p, &[n]).unwrap();
    let outs: Vec<Array> = (0..7)
        .map(|_| Array::from_slice(&vec![0.0f32; n], &[n]).unwrap())
        .collect();
    let mut args = vec![Arg::array(&xa), Arg::array(&pa)];
    args.extend(outs.iter().map(Arg::array));
    dev.launch(&k, &[n], &args).unwrap();
    let cols: Vec<Vec<f32>> = outs.iter().map(|o| o.to_vec::<f32>().unwrap()).collect();
    (0..7 * n).map(|j| cols[j % 7][j / 7]).collect()
}

#[test]
fn approximated_functions_are_close_on_cpu_and_llvm_cpu() {
    let n = 4099;
    let mut x: Vec<f32> = (0..n).map(|i| -30.0 + 60.0 * i as f32 / n as f32).collect();
    // log's argument: positive, over many binades, subnormals included.
    let mut p: Vec<f32> = (0..n)
        .map(|i| f32::from_bits(1 + (0x7f7f_ffffu32 / n as u32) * i as u32))
        .collect();
    let specials = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -1.0,
        200.0,
    ];
    x[..specials.len()].copy_from_slice(&specials);
    p[..specials.len()].copy_from_slice(&specials);
    let clif = compiler(true)
        .compile("each.py", EACH)
        .unwrap()
        .clif_text()
        .unwrap();
    assert!(!clif.contains("call "), "{clif}");
    for dev in common::devices(&["cpu", "llvm-cpu"]) {
        let precise = each(&dev, false, &x, &p);
        let fast = each(&dev, true, &x, &p);
        // The approximations are in effect (they differ somewhere).
        assert!(
            fast.iter()
                .zip(&precise)
                .any(|(f, e)| f.to_bits() != e.to_bits()),
            "{}: fast math changed nothing",
            dev.name()
        );
        for (i, (f, e)) in fast.iter().zip(&precise).enumerate() {
            let (func, arg) = (i % 7, if i % 7 < 5 { x[i / 7] } else { p[i / 7] });
            let ok = if e.is_nan() || e.is_infinite() || *e == 0.0 {
                // Special results are exact (zeros up to sign for tan/sin).
                f.to_bits() == e.to_bits() || (f.is_nan() && e.is_nan()) || (*e == 0.0 && *f == 0.0)
            } else {
                // A few ulp: relative 4e-7 (sin/cos/tan: of max(1, |e|)
                // near their zeros; exp: normal results).
                let scale = if func < 4 {
                    e.abs().max(1.0)
                } else {
                    e.abs().max(f32::MIN_POSITIVE)
                };
                ((f - e).abs() / scale) <= 4e-7
            };
            assert!(
                ok,
                "{}: function {func} of {arg:e}: fast {f:e}, precise {e:e}",
                dev.name()
            );
        }
    }
}

#[test]
fn cli_prints_the_pipeline_and_builds_fast_ir() {
    let weft = env!("CARGO_BIN_EXE_weft");
    let out = std::process::Command::new(weft)
        .args(["build", "--print-pipeline", "-O1", "--fast-math"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        [
            "inline",
            "fixpoint(max 8 rounds): simplify, dce",
            "fast-math"
        ]
    );
    let dir = std::env::temp_dir().join(format!("weft-fastmath-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fm.py");
    std::fs::write(&file, SOURCE).unwrap();
    let ir = |extra: &[&str]| {
        let out = std::process::Command::new(weft)
            .arg("build")
            .arg(&file)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(!ir(&[]).contains("fast("));
    assert!(ir(&["--fast-math"]).contains("fast(contract,afn)"));
    assert!(ir(&["-O0", "--fast-math"]).contains("fast(contract,afn)"));
    // Fast math asked for in the source shows in the built IR, no option.
    std::fs::write(&file, source_fast()).unwrap();
    let text = ir(&[]);
    assert!(text.contains(") fast_math @"), "{text}");
    assert!(text.contains("fast(contract,afn)"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// [`SOURCE`] with `wp.set_module_options({"fast_math": True})` after the
/// import (same line): fast math asked for in the source, no API option.
fn source_fast() -> String {
    SOURCE.replacen(
        "import warp as wp\n",
        // On the import's line, so that the kernels' locations stay.
        "import warp as wp; wp.set_module_options({\"fast_math\": True})\n",
        1,
    )
}

#[test]
fn set_module_options_makes_the_file_fast_without_the_api_option() {
    let precise = module(false);
    let fast = Compiler::new().compile("fm.py", &source_fast()).unwrap();
    // The IR: the kernel attribute and the same flags as the API option.
    let text = fast.ir_text();
    assert!(
        text.contains(
            "kernel @transcendental(v0 \"x\": array1<f32>, v1 \"y\": array1<f32>) fast_math @"
        ),
        "{text}"
    );
    assert!(text.contains("kernel @axpy("), "{text}");
    assert_eq!(text.matches(") fast_math @").count(), 2, "{text}");
    assert!(text.contains("fast(contract,afn)"), "{text}");
    let api_flags: Vec<String> = module(true)
        .ir_text()
        .lines()
        .map(|l| l.replace(" fast_math", ""))
        .collect();
    let src_flags: Vec<String> = text.lines().map(|l| l.replace(" fast_math", "")).collect();
    assert_eq!(api_flags, src_flags, "source and API fast math flag alike");
    // The CPU inlines the approximations (no call, f32x4 loop), LLVM too.
    let clif = fast.clif_text().unwrap();
    assert!(!clif.contains("call "), "{clif}");
    assert!(clif.contains("f32x4"), "{clif}");
    #[cfg(feature = "llvm")]
    {
        let ll = fast.llvm_ir(None).unwrap();
        assert!(!ll.contains("weft_sin_f32"), "{ll}");
        // The PTX is the API option's.
        let ptx = |m: &weft::Module| m.ptx(&PtxOptions::default()).unwrap().ptx;
        assert_eq!(ptx(&fast), ptx(&module(true)));
        assert!(ptx(&fast).contains("sin.approx.f32"));
    }
    // And runs them: the results are the API option's, bit for bit, and
    // differ from the precise ones.
    let x: Vec<f32> = (0..1024)
        .map(|i| -4.0 + i as f32 * (8.0 / 1024.0))
        .collect();
    let dev = Device::cpu();
    let run = |m: &weft::Module| {
        let k = dev.load(m, "transcendental").unwrap();
        let xa = Array::from_slice(&x, &[x.len()]).unwrap();
        let ya = Array::from_slice(&vec![0.0f32; x.len()], &[x.len()]).unwrap();
        dev.launch(&k, &[x.len()], &[Arg::array(&xa), Arg::array(&ya)])
            .unwrap();
        ya.to_vec::<f32>().unwrap()
    };
    let (s, a, p) = (run(&fast), run(&module(true)), run(&precise));
    assert_eq!(
        s.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        a.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert_ne!(s, p);
    // Without the statement the file is precise.
    assert!(!precise.ir_text().contains("fast"), "{}", precise.ir_text());
    assert!(precise.clif_text().unwrap().contains("call fn"));
    // `"fast_math": False` is precise too.
    let off = Compiler::new()
        .compile("fm.py", &source_fast().replace("True", "False"))
        .unwrap();
    assert!(!off.ir_text().contains("fast"), "{}", off.ir_text());
}

#[test]
fn a_kernels_module_options_make_that_kernel_fast() {
    let src = SOURCE.replacen(
        "@wp.kernel\ndef transcendental",
        "@wp.kernel(module_options={\"fast_math\": True}, module=\"unique\")\ndef transcendental",
        1,
    );
    let m = Compiler::new().compile("fm.py", &src).unwrap();
    let text = m.ir_text();
    let kernel = |name: &str| {
        let start = text.find(&format!("kernel @{name}(")).unwrap();
        let end = text[start..].find("\n}\n").unwrap() + start;
        text[start..end].to_string()
    };
    let t = kernel("transcendental");
    assert!(t.lines().next().unwrap().contains(") fast_math @"), "{t}");
    assert!(t.contains("fast(contract,afn)"), "{t}");
    let a = kernel("axpy");
    assert!(!a.contains("fast"), "{a}");
}
