//! The vector tier (`docs/vector.md`) against the scalar thread loop: every
//! conformance case (the shared corpus, its gradient cases and Weft's own
//! cases) runs on `llvm-cpu` with the tier on and off, and every buffer
//! must be bit for bit the same, except where float atomic adds are
//! reassociated (the reductions, and atomics whose lanes add in lane order
//! per instruction rather than in thread order) and where the tier computes
//! precise `f32` transcendentals inline ([`weft_abi::precise`]: correctly
//! rounded, where the scalar tier's glibc shims are off by an ulp at a few
//! inputs): those buffers, and the gradients (which adjoints accumulate
//! with atomic adds), are compared within the case's tolerance. The inline
//! functions themselves are checked over many inputs against the
//! Cranelift tier (the shims) within [`weft_abi::precise::bound_ulps`],
//! and bit for bit against the Rust evaluator of the same algorithm; the
//! lanes they do not cover (huge arguments, NaN, ±∞, ...) must be the
//! shim's bits. Also: the tier takes the kernels it should (the IR of a
//! kernel that it takes has `<W x ...>` vectors), and kernels that run
//! lanes apart (divergent loops, early returns, masked stores at the tail)
//! match.
#![cfg(feature = "llvm")]

mod common;

use std::path::Path;
use weft::{Arg, Array, Compiler, Device, DeviceOptions};
use weft_abi::precise::{self, Exact};
use weft_conform::{self as conform, Case};
use weft_ir::MathFn;

/// `llvm-cpu`'s options here: the vector tier as asked, with its inline
/// math (opt-in, `DeviceOptions::inline_math`) on.
fn opts(vector: bool) -> DeviceOptions {
    DeviceOptions {
        vector,
        inline_math: true,
        ..DeviceOptions::default()
    }
}

fn llvm_cpu(vector: bool) -> Device {
    Device::open_with("llvm-cpu", &opts(vector)).expect("llvm-cpu")
}

/// Buffers written by a float atomic add (whose sum the reductions
/// reassociate): any `atomic_add`/`atomic_sub` or `+=` into an array of a
/// float type is enough to compare that case within its tolerance.
fn reassociates(case: &Case) -> bool {
    let src = std::fs::read_to_string(case.dir.join("kernel.py")).unwrap_or_default();
    src.contains("atomic_add")
        || src.contains("atomic_sub")
        || src.contains("] +=")
        || src.contains("] -=")
}

/// Whether the vector tier computes a transcendental of the case inline
/// (its lanes that the inline form does not cover call the shim from a
/// block named `vmath_shim`).
fn inline_math(compiler: &Compiler, case: &Case) -> bool {
    let m = compiler
        .compile_file(case.dir.join("kernel.py"))
        .expect("compiles");
    m.host_llvm_ir(&opts(true))
        .expect("llvm ir")
        .contains("vmath_shim")
}

fn same(a: &Array, b: &Array, case: &Case, name: &str, loose: bool) -> Result<(), String> {
    if a.to_bytes() == b.to_bytes() {
        return Ok(());
    }
    if loose {
        let (rtol, atol) = case.tolerance(name);
        let want = weft_conform::data::array_to_npy(b);
        if let Ok(None) = conform::compare(name, a, &want, rtol, atol) {
            return Ok(());
        }
    }
    Err(format!(
        "{}: buffer `{name}` differs between the tiers",
        case.name
    ))
}

fn check_dir(dir: &Path) -> usize {
    let (vec_dev, scalar_dev) = (llvm_cpu(true), llvm_cpu(false));
    let compiler = Compiler::new();
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in conform::find_cases(dir).expect("cases") {
        let case = Case::load(&path).expect("case");
        let (v, s) = (
            conform::run_case(&case, &vec_dev, &compiler),
            conform::run_case(&case, &scalar_dev, &compiler),
        );
        let (v, s) = match (v, s) {
            (Ok(v), Ok(s)) => (v, s),
            (v, s) => {
                failures.push(format!("{}: {:?} / {:?}", case.name, v.err(), s.err()));
                continue;
            }
        };
        ran += 1;
        let loose = reassociates(&case) || inline_math(&compiler, &case);
        for ((name, a), (_, b)) in v.buffers.iter().zip(&s.buffers) {
            if let Err(e) = same(a, b, &case, name, loose) {
                failures.push(e);
            }
        }
        // Gradients are accumulated by float atomic adds, in lane order
        // here and thread order there.
        for ((name, a), (_, b)) in v.grads.iter().zip(&s.grads) {
            if let Err(e) = same(a, b, &case, name, true) {
                failures.push(format!("{e} (gradient)"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    ran
}

#[test]
fn every_conformance_case_is_the_same_in_both_tiers() {
    let Some(dir) = common::corpus() else { return };
    assert!(check_dir(&dir) > 100);
    assert!(check_dir(&dir.join("grad")) > 40);
}

#[test]
fn own_cases_are_the_same_in_both_tiers() {
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    assert!(check_dir(&own) > 20);
}

const LANES_APART: &str = r#"import warp as wp

@wp.kernel
def apart(a: wp.array(dtype=float), n: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    if i % 7 == 3:
        return
    s = float(0.0)
    k = int(0)
    # A loop whose trip count differs per thread, with a break and a
    # continue taken by some lanes only.
    while k < n[i]:
        k = k + 1
        if k % 5 == 0:
            continue
        # (Integer division runs lane by lane; the transcendentals, which
        # the tier computes inline and may round differently, are tested
        # below.)
        s = s + a[i] * float(k // 3) * 0.25
        if s > 3.0:
            break
    if i % 2 == 0:
        out[i] = s
    else:
        out[i] = -s
"#;

#[test]
fn divergent_control_matches_the_scalar_loop() {
    let m = Compiler::new().compile("apart.py", LANES_APART).unwrap();
    let text = m.host_llvm_ir(&opts(true)).unwrap();
    assert!(text.contains("x float>"), "the vector tier took the kernel");
    // Sizes around the vector width: tails of every length.
    for n in [1usize, 5, 16, 17, 33, 100, 1001] {
        let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
        let counts: Vec<i32> = (0..n).map(|i| (i * 13 % 29) as i32).collect();
        let mut outs = Vec::new();
        for dev in [llvm_cpu(true), llvm_cpu(false)] {
            let k = dev.load(&m, "apart").unwrap();
            let aa = Array::from_slice(&a, &[n]).unwrap();
            let na = Array::from_slice(&counts, &[n]).unwrap();
            let out = Array::from_slice(&vec![7.5f32; n], &[n]).unwrap();
            dev.launch(
                &k,
                &[n],
                &[Arg::array(&aa), Arg::array(&na), Arg::array(&out)],
            )
            .unwrap();
            outs.push(out.to_vec::<f32>().unwrap());
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&outs[0]), bits(&outs[1]), "n = {n}");
        if n > 3 {
            assert!(outs[0].contains(&7.5), "returned lanes store nothing");
        }
    }
}

/// The inline functions, one output array each (`exp2` has no Warp
/// builtin: `weft_abi::precise`'s sweeps test it).
const EVERY_FUNCTION: &str = r#"import warp as wp

@wp.kernel
def every(x: wp.array(dtype=float), x2: wp.array(dtype=float), o0: wp.array(dtype=float), o1: wp.array(dtype=float),
          o2: wp.array(dtype=float), o3: wp.array(dtype=float), o4: wp.array(dtype=float),
          o5: wp.array(dtype=float), o6: wp.array(dtype=float), o7: wp.array(dtype=float),
          o8: wp.array(dtype=float), o9: wp.array(dtype=float), o10: wp.array(dtype=float),
          o11: wp.array(dtype=float), o12: wp.array(dtype=float), o13: wp.array(dtype=float),
          o14: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    o0[i] = wp.sin(v)
    o1[i] = wp.cos(v)
    o2[i] = wp.tan(v)
    o3[i] = wp.exp(v)
    o4[i] = wp.log(v)
    o5[i] = wp.log2(v)
    o6[i] = wp.log10(v)
    o7[i] = wp.sinh(v)
    o8[i] = wp.cosh(v)
    o9[i] = wp.tanh(v)
    o10[i] = wp.atan(v)
    o11[i] = wp.asin(v)
    o12[i] = wp.acos(v)
    o13[i] = wp.pow(v, x2[i])
    o14[i] = wp.atan2(v, x2[i])
"#;

/// In the order of [`EVERY_FUNCTION`]'s outputs.
const FUNCS: [MathFn; 15] = [
    MathFn::Sin,
    MathFn::Cos,
    MathFn::Tan,
    MathFn::Exp,
    MathFn::Log,
    MathFn::Log2,
    MathFn::Log10,
    MathFn::Sinh,
    MathFn::Cosh,
    MathFn::Tanh,
    MathFn::Atan,
    MathFn::Asin,
    MathFn::Acos,
    MathFn::Pow,
    MathFn::Atan2,
];

/// The second argument of the binary functions at input `i`: the inputs
/// scrambled.
fn second(xs: &[f32], i: usize) -> f32 {
    xs[(i * 7919 + 13) % xs.len()]
}

/// `f`'s arguments at input `i`.
fn args(f: MathFn, xs: &[f32], i: usize) -> Vec<f32> {
    [xs[i], second(xs, i)][..f.arity()].to_vec()
}

/// `f` of every input on `dev`.
fn run_every(dev: &Device, xs: &[f32]) -> Vec<Vec<f32>> {
    let m = Compiler::new().compile("every.py", EVERY_FUNCTION).unwrap();
    let k = dev.load(&m, "every").unwrap();
    let n = xs.len();
    let x = Array::from_slice(xs, &[n]).unwrap();
    let ys: Vec<f32> = (0..n).map(|i| second(xs, i)).collect();
    let x2 = Array::from_slice(&ys, &[n]).unwrap();
    let outs: Vec<Array> = (0..FUNCS.len())
        .map(|_| Array::from_slice(&vec![0f32; n], &[n]).unwrap())
        .collect();
    let mut a = vec![Arg::array(&x), Arg::array(&x2)];
    a.extend(outs.iter().map(Arg::array));
    dev.launch(&k, &[n], &a).unwrap();
    outs.iter().map(|o| o.to_vec::<f32>().unwrap()).collect()
}

/// Whether the kernel's input `x` reaches `f`'s math function unchanged:
/// Warp's `asin` and `acos` clamp it to `[−1, 1]` first (that clamp is not
/// the subject here).
fn direct(f: MathFn, x: f32) -> bool {
    !matches!(f, MathFn::Asin | MathFn::Acos) || x.abs() <= 1.0
}

/// The Rust evaluator of the inline algorithm gives `v` at `x` (with or
/// without FMA: the host's choice).
fn is_inline_result(f: MathFn, x: &[f32], v: f32) -> bool {
    [false, true].into_iter().any(|fused| {
        let e = Exact { fused }.eval(f, x).unwrap();
        e.to_bits() == v.to_bits()
    })
}

#[test]
fn inline_transcendentals_are_within_the_bound_of_the_shims() {
    // A stride through every bit pattern, and the common range densely.
    let mut xs: Vec<f32> = (0..=u32::MAX).step_by(4099).map(f32::from_bits).collect();
    xs.extend((0..400_000).map(|i| (i as f32 - 200_000.0) * 4.7e-4));
    xs.extend((1..200_000).map(|i| i as f32 * 0.05));
    let m = Compiler::new().compile("every.py", EVERY_FUNCTION).unwrap();
    let ir = m.host_llvm_ir(&opts(true)).unwrap();
    assert!(ir.contains("x double>"), "inline forms in the IR");
    assert!(ir.contains("vmath_shim"), "what `inline_math` looks for");
    let vec = run_every(&llvm_cpu(true), &xs);
    let cranelift = Device::open_with(
        "cpu",
        &DeviceOptions {
            vector: false,
            ..DeviceOptions::default()
        },
    )
    .expect("cpu");
    let scalar = run_every(&cranelift, &xs);
    let mut report = String::new();
    for (j, f) in FUNCS.into_iter().enumerate() {
        let mut differ = 0;
        for (i, &x) in xs.iter().enumerate() {
            let (v, s) = (vec[j][i], scalar[j][i]);
            if !direct(f, x) {
                continue;
            }
            let a = args(f, &xs, i);
            let shim = weft_abi::shims::eval_f32(f, &a);
            assert_eq!(
                s.to_bits(),
                shim.to_bits(),
                "{f:?}{a:?}: the scalar tier is the shim"
            );
            assert!(
                is_inline_result(f, &a, v),
                "{f:?}{a:?} = {v:e}: not the algorithm's result"
            );
            let d = precise::ulps_apart(v, s);
            assert!(d <= precise::bound_ulps(f), "{f:?}{a:?}: {v:e} vs {s:e}");
            differ += (d > 0) as usize;
        }
        report += &format!("{f:?}: {differ} of {} differ from the shim\n", xs.len());
    }
    eprintln!("{report}");
}

#[test]
fn uncovered_lanes_are_the_shims_bits() {
    // Huge arguments, NaNs (with payloads), infinities, zeros, subnormals
    // and negatives, interleaved with ordinary values so that vectors mix
    // covered and uncovered lanes; sizes leave tails of every length.
    let special = [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7fc0_1234),
        f32::from_bits(0xff80_0001),
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::from_bits(1),
        f32::from_bits(0x8000_0003),
        f32::from_bits(0x007f_ffff),
        1e6,
        -3.3e7,
        1e30,
        f32::MAX,
        f32::MIN,
        -1.0,
        105.0,
        -200.0,
        160.0,
    ];
    let xs: Vec<f32> = (0..1000)
        .map(|i| {
            if i % 3 == 0 {
                0.37 * i as f32
            } else {
                special[i % special.len()]
            }
        })
        .collect();
    let o = Exact { fused: true };
    for n in [1usize, 7, 16, 17, 31, 1000] {
        let vec = run_every(&llvm_cpu(true), &xs[..n]);
        let mut uncovered = 0;
        for (j, f) in FUNCS.into_iter().enumerate() {
            for (i, &x) in xs[..n].iter().enumerate() {
                let v = vec[j][i];
                if !direct(f, x) {
                    continue;
                }
                let a = args(f, &xs[..n], i);
                if o.covers(f, &a) {
                    assert!(is_inline_result(f, &a, v), "{f:?}{a:?} = {v:e}");
                } else {
                    uncovered += 1;
                    let s = weft_abi::shims::eval_f32(f, &a);
                    assert_eq!(v.to_bits(), s.to_bits(), "{f:?}{a:?}: {v:e} vs shim {s:e}");
                }
            }
        }
        assert!(uncovered > 0, "n = {n}");
    }
}

const SCALE: &str = r#"import warp as wp

@wp.kernel
def scale(a: wp.array(dtype=float), k: float):
    i = wp.tid()
    a[i] = a[i] * k
"#;

/// `Kernel::tier` says which code runs: `llvm-cpu`'s vector tier at the
/// host's width (scalar LLVM with the tier off), and on `cpu` Cranelift's
/// until the module tiers up (`DeviceOptions::tier_up`: zero at once, a
/// long one not within a few launches).
#[test]
fn kernel_tier_names_the_code_that_runs() {
    let m = Compiler::new()
        .compile("scale.py", SCALE)
        .expect("compiles");
    let lanes = weft::build_info()
        .cpu_tiers
        .iter()
        .find_map(|t| match t {
            weft::CodeTier::Llvm { lanes } => Some(*lanes),
            _ => None,
        })
        .expect("a build with llvm has the vector tier");
    let tier = |dev: &Device| {
        let k = dev.load(&m, "scale").expect("loads");
        let a = Array::from_slice(&[1.0f32; 64], &[64]).expect("array");
        dev.launch(&k, &[64], &[Arg::array(&a), Arg::f32(2.0)])
            .expect("launches");
        k.tier().expect("its own device's kernel")
    };
    assert_eq!(tier(&llvm_cpu(true)), weft::CodeTier::Llvm { lanes });
    assert_eq!(tier(&llvm_cpu(false)), weft::CodeTier::Llvm { lanes: 1 });
    let cpu = |tier_up| {
        let o = DeviceOptions {
            tier_up,
            ..DeviceOptions::default()
        };
        Device::open_with("cpu", &o).expect("cpu")
    };
    assert_eq!(
        tier(&cpu(std::time::Duration::ZERO)),
        weft::CodeTier::Llvm { lanes }
    );
    assert_eq!(
        tier(&cpu(std::time::Duration::from_secs(3600))),
        weft::CodeTier::Cranelift
    );
}

/// Streaming stores (`docs/vector.md`): a launch over an output larger
/// than the last-level cache, written only, gives the same bits with the
/// option on (the default) and off, and the same as the scalar tier; an
/// in-place update (not streamed) too.
#[test]
fn streamed_outputs_are_the_same_bits() {
    const SRC: &str = r#"
import warp as wp

@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i]

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
"#;
    // Larger than this machine's LLC (and than 32 MiB), with a tail.
    let n = (weft::backend_llvm::host::stream_min_bytes() as usize / 4).max(1 << 23) + 13;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 1e-3 - 0.5).collect();
    let m = Compiler::new().compile("stream.py", SRC).expect("compiles");
    let run = |opts: &DeviceOptions, kernel: &str| -> Vec<u32> {
        let dev = Device::open_with("llvm-cpu", opts).expect("llvm-cpu");
        let k = dev.load(&m, kernel).expect("loads");
        let xa = Array::from_slice(&x, &[n]).unwrap();
        let ya = Array::from_slice(&vec![1.0f32; n], &[n]).unwrap();
        dev.launch(&k, &[n], &[Arg::array(&xa), Arg::array(&ya), Arg::f32(0.7)])
            .expect("launches");
        let y = ya.to_vec::<f32>().unwrap();
        y.iter().map(|v| v.to_bits()).collect()
    };
    for kernel in ["scale", "saxpy"] {
        let on = run(
            &DeviceOptions {
                stream_stores: true,
                ..opts(true)
            },
            kernel,
        );
        let off = run(
            &DeviceOptions {
                stream_stores: false,
                ..opts(true)
            },
            kernel,
        );
        let scalar = run(&opts(false), kernel);
        assert!(on == off, "{kernel}: streaming on and off differ");
        assert!(on == scalar, "{kernel}: vector and scalar tiers differ");
        let want = |i: usize| {
            if kernel == "scale" {
                0.7 * x[i]
            } else {
                0.7 * x[i] + 1.0
            }
        };
        for i in [0, 1, 15, 16, n / 2, n - 14, n - 1] {
            assert_eq!(on[i], want(i).to_bits(), "{kernel}[{i}]");
        }
    }
}
