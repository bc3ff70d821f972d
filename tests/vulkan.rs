//! The `vulkan` device through the public API: saxpy, a launch split into
//! several dispatches, arrays passed twice, argument checks identical to the
//! CPU device's, the conformance corpus (every case that compiles matches
//! Warp's outputs), `spirv-val` on the kernels of multi-kernel cases,
//! and a clear error without a device.
//!
//! Without a Vulkan device or `glslangValidator` each test prints
//! `SKIP: no Vulkan device: <reason>` and returns (the `spirv-val` test needs
//! the tools only, and says `SKIP:` without them).

mod common;

use std::process::Command;
use weft::{Arg, Array, Compiler, Device, Error};
use weft_conform::{self as conform, Case};

use common::vulkan;

const SRC: &str = r#"
import warp as wp

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]

@wp.kernel
def index2d(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i * 10000 + j

@wp.kernel
def add_into(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] + b[i]

@wp.kernel
def count(c: wp.array(dtype=int)):
    wp.atomic_add(c, 0, 1)
"#;

fn module() -> weft::Module {
    Compiler::new().compile("vk.py", SRC).expect("compiles")
}

#[test]
fn saxpy_runs_on_vulkan() {
    let Some(dev) = vulkan() else { return };
    let m = module();
    let k = dev.load(&m, "saxpy").expect("loads");
    let n = 1000;
    let x = Array::from_slice(&(0..n).map(|i| i as f32).collect::<Vec<_>>(), &[n]).unwrap();
    let y = Array::from_slice(&vec![1.0f32; n], &[n]).unwrap();
    dev.launch(&k, &[n], &[Arg::array(&x), Arg::array(&y), Arg::f32(2.0)])
        .expect("launches");
    let y = y.to_vec::<f32>().unwrap();
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, 2.0 * i as f32 + 1.0, "y[{i}]");
    }
    // A launch of zero threads does nothing.
    dev.launch(&k, &[0], &[Arg::array(&x), Arg::array(&x), Arg::f32(2.0)])
        .expect("empty launch");
}

#[test]
fn launch_over_65535_workgroups_is_split() {
    let Some(dev) = vulkan() else { return };
    let m = module();
    // 5 million threads: more than 65 535 workgroups of 64 in x.
    let n = 5_000_000;
    let k = dev.load(&m, "saxpy").expect("loads");
    let x =
        Array::from_slice(&(0..n).map(|i| (i % 1000) as f32).collect::<Vec<_>>(), &[n]).unwrap();
    let y = Array::from_slice(&vec![0.5f32; n], &[n]).unwrap();
    dev.launch(&k, &[n], &[Arg::array(&x), Arg::array(&y), Arg::f32(3.0)])
        .expect("launches");
    let y = y.to_vec::<f32>().unwrap();
    let bad = (0..n).find(|&i| y[i] != 3.0 * (i % 1000) as f32 + 0.5);
    assert_eq!(bad, None, "first wrong element");

    // Two axes: every (i, j) of a 2500 x 2000 launch is written once, with
    // its own indices (the dispatch base feeds the tid decomposition).
    let (r, c) = (2500, 2000);
    let k = dev.load(&m, "index2d").expect("loads");
    let out = Array::from_slice(&vec![-1i32; r * c], &[r, c]).unwrap();
    dev.launch(&k, &[r, c], &[Arg::array(&out)])
        .expect("launches");
    let out = out.to_vec::<i32>().unwrap();
    let bad = (0..r * c).find(|&t| out[t] != (t / c * 10000 + t % c) as i32);
    assert_eq!(bad, None, "first wrong element");

    // Atomics across dispatches: every thread counts once.
    let k = dev.load(&m, "count").expect("loads");
    let cnt = Array::from_slice(&[0i32], &[1]).unwrap();
    dev.launch(&k, &[n], &[Arg::array(&cnt)]).expect("launches");
    assert_eq!(cnt.to_vec::<i32>().unwrap(), vec![n as i32]);
}

const SPECIAL_SRC: &str = r#"
import warp as wp

@wp.kernel
def special(a: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    x = a[i]
    out[i, 0] = x * 0.0
    out[i, 1] = 0.0 * x
    out[i, 2] = wp.log(x)
    out[i, 3] = wp.log2(x)
    out[i, 4] = wp.log10(x)
    out[i, 5] = wp.exp(x)
"#;

/// Within `ulps` units in the last place (NaN matches NaN, infinities and
/// zeros exactly).
fn close(got: f32, want: f32, ulps: u32) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || want == 0.0 {
        return got.to_bits() == want.to_bits();
    }
    got.is_sign_negative() == want.is_sign_negative()
        && (got.to_bits() as i64 - want.to_bits() as i64).unsigned_abs() <= u64::from(ulps)
}

/// IEEE semantics where lavapipe needed help (docs/vulkan.md): a product with
/// the constant 0.0 is NaN for NaN/inf operands, `log`/`log2`/`log10` of
/// subnormals and `exp` with subnormal results are not flushed.
#[test]
fn special_values_follow_ieee() {
    let Some(dev) = vulkan() else { return };
    let m = Compiler::new()
        .compile("special.py", SPECIAL_SRC)
        .expect("compiles");
    let k = dev.load(&m, "special").expect("loads");
    let xs = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        -2.5,
        1.0,
        2.5,
        1e-40,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        -87.0,
        -87.336_55,
        -87.336_54,
        -90.0,
        -100.0,
        -103.9,
        -104.0,
        -150.0,
    ];
    let n = xs.len();
    let a = Array::from_slice(&xs, &[n]).unwrap();
    let out = Array::from_slice(&vec![7.0f32; n * 6], &[n, 6]).unwrap();
    dev.launch(&k, &[n], &[Arg::array(&a), Arg::array(&out)])
        .expect("launches");
    let out = out.to_vec::<f32>().unwrap();
    for (i, &x) in xs.iter().enumerate() {
        let got = &out[i * 6..i * 6 + 6];
        let zero = x * 0.0;
        assert!(
            close(got[0], zero, 0) && close(got[1], zero, 0),
            "x = {x:e}: {got:?}"
        );
        assert!(close(got[2], x.ln(), 4), "log({x:e}) = {}", got[2]);
        assert!(close(got[3], x.log2(), 4), "log2({x:e}) = {}", got[3]);
        assert!(close(got[4], x.log10(), 4), "log10({x:e}) = {}", got[4]);
        // Vulkan's precision for exp: 3 + 2|x| ulp (lavapipe is ~28 ulp off
        // at x = -87); subnormal results are computed from exp(x + 149 ln 2).
        let ulps = if x.is_finite() {
            3 + 2 * x.abs().min(128.0) as u32
        } else {
            0
        };
        assert!(close(got[5], x.exp(), ulps), "exp({x:e}) = {:e}", got[5]);
    }
}

const FAST_SRC: &str = r#"
import warp as wp

@wp.kernel
def fast(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    out[i, 0] = a * 0.0
    out[i, 1] = wp.atan2(b, a)
    out[i, 2] = wp.asin(a)
    out[i, 3] = wp.sin(a) * wp.cos(a) + wp.exp(-a * a)
    out[i, 4] = a * b + b
"#;

/// `--fast-math` (contract, afn) on Vulkan: approximations stay close to
/// the precise kernel's results, and what `contract`/`afn` do not allow is
/// kept — `x * 0.0` is NaN for infinite and NaN `x`, `atan2` of zeros,
/// infinities and NaN is exact (docs/hlsl.md).
#[test]
fn fast_math_stays_close_and_keeps_special_values() {
    let Some(dev) = vulkan() else { return };
    let pairs: [(f32, f32); 14] = [
        (0.0, 0.0),
        (-0.0, 0.0),
        (0.0, -1.0),
        (f32::INFINITY, 1.0),
        (f32::NEG_INFINITY, f32::INFINITY),
        (f32::NAN, 1.0),
        (2.0, 1.0),
        (-1.5, 0.5),
        (0.5, 0.25),
        (-0.75, -2.0),
        (0.999, 3.0),
        (0.1, -0.3),
        (-0.3, 10.0),
        (1.0, -1.0),
    ];
    let n = pairs.len();
    let x = Array::from_slice(&pairs.map(|p| p.0), &[n]).unwrap();
    let y = Array::from_slice(&pairs.map(|p| p.1), &[n]).unwrap();
    let mut outs = Vec::new();
    for fast_math in [false, true] {
        let m = Compiler::with_options(weft::CompileOptions {
            fast_math,
            ..weft::CompileOptions::default()
        })
        .compile("fast.py", FAST_SRC)
        .expect("compiles");
        let k = dev.load(&m, "fast").expect("loads");
        let out = Array::from_slice(&vec![7.0f32; n * 5], &[n, 5]).unwrap();
        dev.launch(
            &k,
            &[n],
            &[Arg::array(&x), Arg::array(&y), Arg::array(&out)],
        )
        .expect("launches");
        outs.push(out.to_vec::<f32>().unwrap());
    }
    let (p, f) = (&outs[0], &outs[1]);
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let (p, f) = (&p[i * 5..i * 5 + 5], &f[i * 5..i * 5 + 5]);
        let near = |k: usize, tol: f32| {
            assert!(
                (p[k] - f[k]).abs() <= tol * p[k].abs().max(1.0),
                "({a}, {b}) column {k}: precise {} fast {}",
                p[k],
                f[k]
            )
        };
        assert!(close(f[0], p[0], 0), "{a} * 0.0 = {} (fast)", f[0]);
        if a == 0.0 || b == 0.0 || !a.is_finite() || !b.is_finite() {
            assert!(close(f[1], p[1], 0), "atan2({b}, {a}) = {} (fast)", f[1]);
        } else {
            near(1, 2e-3);
        }
        // Warp's asin clamps its argument to [-1, 1] (NaN-ignoring clamp).
        near(2, 2e-3);
        if a.is_finite() && b.is_finite() {
            near(3, 1e-5);
            near(4, 1e-6);
        }
    }
}

#[test]
fn an_array_passed_twice_is_one_buffer() {
    let Some(dev) = vulkan() else { return };
    let m = module();
    let n = 300;
    let run = |dev: &Device| {
        let k = dev.load(&m, "add_into").expect("loads");
        let a = Array::from_slice(&(0..n).map(|i| i as f32).collect::<Vec<_>>(), &[n]).unwrap();
        let b = Array::from_slice(&vec![0.25f32; n], &[n]).unwrap();
        // out aliases a: a[i] = a[i] + b[i].
        dev.launch(&k, &[n], &[Arg::array(&a), Arg::array(&b), Arg::array(&a)])
            .expect("launches");
        a.to_vec::<f32>().unwrap()
    };
    assert_eq!(run(&dev), run(&Device::cpu()));
}

#[test]
fn launches_from_several_threads() {
    let Some(dev) = vulkan() else { return };
    let m = module();
    let k = dev.load(&m, "saxpy").expect("loads");
    std::thread::scope(|s| {
        for t in 0..4 {
            let (dev, k) = (&dev, &k);
            s.spawn(move || {
                let n = 10_000 + t * 777;
                let x = Array::from_slice(&vec![t as f32; n], &[n]).unwrap();
                let y = Array::from_slice(&vec![1.0f32; n], &[n]).unwrap();
                for _ in 0..5 {
                    dev.launch(k, &[n], &[Arg::array(&x), Arg::array(&y), Arg::f32(2.0)])
                        .expect("launches");
                }
                let want = 1.0 + 5.0 * 2.0 * t as f32;
                assert!(y.to_vec::<f32>().unwrap().iter().all(|&v| v == want));
            });
        }
    });
}

/// The launch error of `args`, as text.
fn launch_error(dev: &Device, kernel: &str, dim: &[usize], args: &[Arg]) -> String {
    let m = module();
    let k = dev.load(&m, kernel).expect("loads");
    match dev.launch(&k, dim, args) {
        Err(Error::Launch(e)) => e.to_string(),
        other => panic!("expected a launch error on {}, got {other:?}", dev.name()),
    }
}

#[test]
fn argument_errors_are_the_cpus() {
    let Some(dev) = vulkan() else { return };
    let cpu = Device::cpu();
    let x = Array::from_slice(&[1.0f32; 8], &[8]).unwrap();
    let ints = Array::from_slice(&[1i32; 8], &[8]).unwrap();
    let cases: Vec<(&str, Vec<usize>, Vec<Arg>)> = vec![
        ("saxpy", vec![8], vec![Arg::array(&x)]),
        (
            "saxpy",
            vec![8],
            vec![Arg::array(&x), Arg::array(&x), Arg::f32(1.0), Arg::f32(2.0)],
        ),
        (
            "saxpy",
            vec![8],
            vec![Arg::f32(1.0), Arg::array(&x), Arg::f32(1.0)],
        ),
        (
            "saxpy",
            vec![8],
            vec![Arg::array(&x), Arg::array(&x), Arg::array(&x)],
        ),
        (
            "saxpy",
            vec![8],
            vec![Arg::array(&ints), Arg::array(&x), Arg::f32(1.0)],
        ),
        (
            "saxpy",
            vec![8],
            vec![Arg::array(&x), Arg::array(&x), Arg::i32(1)],
        ),
        ("index2d", vec![2, 4], vec![Arg::array(&ints)]),
        (
            "saxpy",
            vec![],
            vec![Arg::array(&x), Arg::array(&x), Arg::f32(1.0)],
        ),
        (
            "saxpy",
            vec![1, 1, 1, 1, 1],
            vec![Arg::array(&x), Arg::array(&x), Arg::f32(1.0)],
        ),
        (
            "saxpy",
            vec![1 << 20, 1 << 20],
            vec![Arg::array(&x), Arg::array(&x), Arg::f32(1.0)],
        ),
    ];
    // (The array-length rule is left out: at this commit the CPU device
    // misses it for these kernels, see tests/launch_errors.rs.)
    for (kernel, dim, args) in &cases {
        let want = launch_error(&cpu, kernel, dim, args);
        let got = launch_error(&dev, kernel, dim, args);
        assert_eq!(got, want, "{kernel} over {dim:?}");
    }
    // Nothing ran: the arrays are as they were.
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![1.0; 8]);
}

#[test]
fn a_kernel_of_another_device_is_refused() {
    let Some(dev) = vulkan() else { return };
    let m = module();
    let k = Device::cpu().load(&m, "count").expect("loads");
    let c = Array::from_slice(&[0i32], &[1]).unwrap();
    let e = dev.launch(&k, &[1], &[Arg::array(&c)]).unwrap_err();
    assert!(e.to_string().contains("loaded for the `cpu` device"), "{e}");
}

#[test]
fn conformance_vulkan() {
    let Some(dev) = vulkan() else { return };
    let Some(dir) = common::corpus() else { return };
    run_cases(&dev, &dir);
}

/// Own cases whose results depend on the last ulp of a float32
/// transcendental, which lavapipe's intrinsics do not round correctly
/// (`docs/hlsl.md`, "Known open issues", lists each with its reason).
const ULP_SENSITIVE: &[&str] = &["random_poisson_large"];

/// Weft's own cases (`conformance/`, made with real Warp).
#[test]
fn own_cases_vulkan() {
    let Some(dev) = vulkan() else { return };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let hlsl_md = std::fs::read_to_string(root.join("docs/hlsl.md")).expect("docs/hlsl.md");
    for name in ULP_SENSITIVE {
        assert!(
            hlsl_md.contains(&format!("`{name}`")),
            "{name} is not documented in docs/hlsl.md"
        );
    }
    run_cases_except(&dev, &root.join("conformance"), ULP_SENSITIVE);
}

/// Every case of `dir` that compiles passes; the typed-unsupported ones
/// are listed.
fn run_cases(dev: &Device, dir: &std::path::Path) {
    run_cases_except(dev, dir, &[]);
}

/// [`run_cases`], with the mismatches of the cases in `lenient` printed,
/// not failing.
fn run_cases_except(dev: &Device, dir: &std::path::Path, lenient: &[&str]) {
    let only = std::env::var("WEFT_CASE").ok();
    let compiler = Compiler::new();
    let (mut passed, mut skipped, mut failures) = (0, Vec::new(), Vec::new());
    for path in conform::find_cases(dir).expect("cases") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if only.as_ref().is_some_and(|o| *o != name) {
            continue;
        }
        let case = Case::load(&path).expect("case loads");
        match common::run_checked(&case, dev, &compiler) {
            common::Outcome::Passed => passed += 1,
            common::Outcome::Unsupported(e) => skipped.push(format!("{name}: {e}")),
            common::Outcome::Failed(e) if lenient.contains(&name.as_str()) => {
                println!("differs (known, docs/hlsl.md): {name}: {e}")
            }
            common::Outcome::Failed(e) => failures.push(format!("{name}: {e}")),
        }
    }
    for s in &skipped {
        println!("unsupported: {s}");
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    println!(
        "vulkan ({}): {passed} passed, {} unsupported, {} failed",
        dev.describe().description,
        skipped.len(),
        failures.len()
    );
    assert!(passed > 0, "no case ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The kernels of the corpus's multi-kernel cases emit HLSL whose SPIR-V
/// `spirv-val` accepts. (The backend's own `tests/conformance.rs` validates
/// each case's first kernel; this covers the ones launched after it.)
#[test]
fn multi_kernel_cases_spirv_validates() {
    use weft_backend_hlsl::{compile_spirv, find_glslang, find_spirv_val, validate_spirv};
    let Some(dir) = common::corpus() else { return };
    if find_glslang().is_none() || find_spirv_val().is_none() {
        weft_testkit::skip("glslangValidator or spirv-val not found");
        return;
    }
    let compiler = Compiler::new();
    let (mut valid, mut unsupported, mut failures) = (0, 0, Vec::new());
    for path in conform::find_cases(&dir).expect("cases") {
        let case = Case::load(&path).expect("case loads");
        let mut kernels: Vec<&str> = case.launches.iter().map(|l| l.kernel.as_str()).collect();
        kernels.sort_unstable();
        kernels.dedup();
        if kernels.len() < 2 {
            continue;
        }
        let src = std::fs::read_to_string(case.dir.join("kernel.py")).expect("kernel.py");
        let m = compiler.compile("kernel.py", &src).expect("compiles");
        for k in kernels {
            let spv = m
                .hlsl(k, &Default::default())
                .and_then(|art| compile_spirv(&art).map_err(|e| Error::Backend(Box::new(e))));
            let valid_spv =
                spv.and_then(|spv| validate_spirv(&spv).map_err(|e| Error::Backend(Box::new(e))));
            match valid_spv {
                Ok(()) => valid += 1,
                Err(e) if e.is_unsupported() => unsupported += 1,
                Err(e) => failures.push(format!("{} `{k}`: {e}", case.name)),
            }
        }
    }
    println!("{valid} kernels validated, {unsupported} unsupported");
    assert!(valid > 0, "no kernel validated");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_vulkan_device_is_an_error_not_a_panic() {
    let Some(case) = common::corpus_case("atomic_histogram_int") else {
        return;
    };
    // No installable client driver: the loader finds no device.
    let out = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["run", "--backend", "vulkan", "--out"])
        .arg(std::env::temp_dir().join("weft-vk-none"))
        .arg(&case)
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .output()
        .expect("weft runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("vulkan device"), "{err}");
}
