//! The generated programs that found bugs (`weft fuzz-diff --save`), kept
//! as conformance cases in `tests/fuzz_regressions/<fuzz_seed>/` with the
//! reference interpreter's outputs as the expected ones: each runs on every
//! device this build and machine have and must match by the conformance
//! rule (a device that cannot open says `SKIP`; a typed `Unsupported` is a
//! failure here, as none of these programs is unsupported).
//!
//! * `fuzz_59`: an SoA-hinted array stored into inside a `while` loop
//!   failed the `soa` pass (the frontend carried the array through the
//!   loop).
//! * `fuzz_1047`: `normalize` of a `quatd`, one ulp off on Vulkan (float64
//!   `sqrt` was only faithfully rounded). Its reduction array `r13` was
//!   `uint16`, whose atomics Warp rejects (and so does Weft now): it is
//!   `uint32`, its values unchanged.
//! * `fuzz_1623`: a float64 matrix product with entries near the largest
//!   double, NaN on Vulkan where the others give inf (the float64 `fma`
//!   emulation's fallback added inf and -inf).
//! * `fuzz_3368`: a float32 matrix product with a constant matrix, an ulp
//!   off on Vulkan (constants were written as their shortest float
//!   decimal, another value in the double arithmetic of the float `fma`).
//! * `fuzz_13267`: `pow(-inf, 103.5)` in float32, NaN on Vulkan where the
//!   others give +inf (the HLSL `weft_pow32` refused a negative base with a
//!   non-integral exponent before it looked at an infinite one).
//! * `fuzz_13383`: a `vec4d` divided by a float64 zero computed at run
//!   time, NaN on Vulkan where the others give ±inf (lavapipe divides
//!   doubles by a Newton-refined reciprocal; `weft_div64` gives IEEE's
//!   results at a zero or infinite divisor).
//! * `fuzz_31221364`: `y * wp.float32(b)` with `y` infinite and `b` a bool
//!   false at run time (carried through a loop), 0 on Vulkan where the
//!   others give NaN: lavapipe folded the product once it knew `b`, as the
//!   bool's conversion had a literal `0.0` (it is the constant buffer's
//!   opaque zero now, as every float zero constant).
//! * `fuzz_36221354`: a `mat44` times `float(wp.clamp(wp.uint32(0),
//!   wp.uint32(0), wp.uint32(t2)))`, 0 on Vulkan where the others give
//!   NaN (the matrix holds infinities): lavapipe folded the product once
//!   it knew the integer was 0. An int's conversion to float now adds the
//!   opaque zero.
//! * `fuzz_33220422`: a floor division by `-wp.min(vec4d(...))` of a vector
//!   holding 0.0 and -0.0, +inf on cpu and llvm-cpu where the interpreter
//!   and vulkan give -inf: Cranelift's `fmin` and the LLVM lowering ordered
//!   -0.0 < +0.0, where Warp's `min`/`max` return the first of equal
//!   operands (`min(0.0, -0.0)` is 0.0, as Warp 1.19 gives it).
//! * `fuzz_32220745`, `fuzz_35220431`: a struct of a `mat44` (or a nested
//!   struct) and a `bool`, stored lane by lane on llvm-cpu's vector tier,
//!   one constant element of the matrix read back as another: LLVM 19's SLP
//!   vectorizer merged a lane's scalar stores into a vector store and left
//!   the constant's lane `poison`. The host pipeline is `default<O3>`
//!   without that pass (`HOST_O3_PASSES` in backend-llvm).
//! * `fuzz_153072149`: `(o4[t0, t1] - o4[t0, t1]) * wp.quat_inverse(q)`
//!   right after the thread stored a constant quat into `o4[t0, t1]`, with
//!   `q` holding an infinity: inf on Vulkan where the others give NaN.
//!   lavapipe forwarded the store to the load, knew the constant and
//!   folded `(c - c) * inf` to 0; stored float bits are now or'd with the
//!   constant buffer's opaque zero.
//!
//! And one kernel written for its class, where the generated program that
//! found it was not kept (issue 27): `split_block_of_many_phis`, a panic
//! of llvm-cpu's code generation on a block of many phis.

mod common;

use std::path::Path;
use weft::Compiler;
use weft_conform as conform;

fn run_on(name: &str) {
    let Some(device) = common::device(name) else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let cases = conform::find_cases(&dir).expect("regression cases");
    assert!(!cases.is_empty(), "no case in {}", dir.display());
    let mut failures = Vec::new();
    for c in &cases {
        let r = conform::run_and_check(c, &device, &Compiler::new());
        if let Some(line) = r.line() {
            failures.push(line);
        }
    }
    assert!(failures.is_empty(), "on {name}:\n{}", failures.join("\n"));
}

#[test]
fn regressions_interp() {
    run_on("interp");
}

#[test]
fn regressions_cpu() {
    run_on("cpu");
}

#[test]
fn regressions_llvm_cpu() {
    run_on("llvm-cpu");
}

#[test]
fn regressions_vulkan() {
    run_on("vulkan");
}

/// A kernel whose LLVM function makes more than 2 000 calls (2 100 `sin`,
/// which keep it off the vector tier), so llvm-cpu generates its code with
/// the fast path, its blocks split every 256 instructions
/// (`weft::backend_llvm::host::FAST_CODEGEN_CALLS`, `split_block`), and whose
/// loop block holds 100 phis (the loop-carried values) and some 200 other
/// instructions: fewer than the phis plus 256, the block on which
/// `split_block` sliced past its end and panicked (issue 27).
#[cfg(feature = "llvm")]
fn many_phis_and_calls() -> String {
    use std::fmt::Write;
    let nv = 100;
    let mut s = String::from(
        "import warp as wp\n\n@wp.kernel\ndef many_calls(x: wp.array(dtype=float), out: wp.array(dtype=float), n: int):\n    i = wp.tid()\n",
    );
    for k in 0..nv {
        let _ = writeln!(s, "    a{k} = x[i] + {k}.0");
    }
    s.push_str("    for j in range(n):\n");
    for k in 0..nv {
        let _ = writeln!(
            s,
            "        a{k} = a{k} * a{} + {}.0",
            (k * 37 + 11) % nv,
            k % 7 + 1
        );
    }
    s.push_str("    s = float(0.0)\n");
    for c in 0..2100 {
        let _ = writeln!(s, "    s = s + wp.sin(a{} + {c}.0)", c % nv);
    }
    s.push_str("    out[i] = s\n");
    s
}

/// Whether the host LLVM IR `ir` has a function of more than 2 000 calls
/// with a block of more than 257 instructions, at least 2 of them phis,
/// and no more than its phis plus 256: the shape `split_block` failed on.
#[cfg(feature = "llvm")]
fn has_split_shape(ir: &str) -> bool {
    ir.split("\ndefine ").skip(1).any(|f| {
        let f = f.split("\n}\n").next().unwrap_or("");
        let calls = f
            .lines()
            .filter(|l| l.contains("call ") && !l.contains("@llvm."))
            .count();
        let mut blocks: Vec<(usize, usize)> = vec![(0, 0)];
        for l in f.lines().skip(1) {
            if l.starts_with("  ") {
                let b = blocks.last_mut().unwrap();
                b.0 += 1;
                b.1 += usize::from(l.contains(" = phi "));
            } else if l.contains(':') {
                blocks.push((0, 0));
            }
        }
        calls > 2000
            && blocks
                .iter()
                .any(|&(n, phis)| phis >= 2 && n > 257 && n <= phis + 256)
    })
}

#[cfg(feature = "llvm")]
#[test]
fn split_block_of_many_phis() {
    let m = Compiler::new()
        .compile("split_block.py", &many_phis_and_calls())
        .unwrap_or_else(|e| panic!("{e}"));
    let ir = m
        .host_llvm_ir(&weft::DeviceOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(has_split_shape(&ir), "the kernel no longer has the shape");
    let n = 64;
    let xs: Vec<f32> = (0..n).map(|i| (i as f32 - 31.5) / 64.0).collect();
    let run = |dev: &weft::Device| -> Vec<u32> {
        let x = weft::Array::from_slice(&xs, &[n]).unwrap();
        let out = weft::Array::from_slice(&vec![0f32; n], &[n]).unwrap();
        let k = dev.load(&m, "many_calls").unwrap_or_else(|e| panic!("{e}"));
        dev.launch(
            &k,
            &[n],
            &[
                weft::Arg::array(&x),
                weft::Arg::array(&out),
                weft::Arg::i32(3),
            ],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        out.to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect()
    };
    let want = run(&weft::Device::interp());
    for name in ["llvm-cpu", "cpu"] {
        let Some(dev) = common::device(name) else {
            continue;
        };
        assert_eq!(run(&dev), want, "{name}");
    }
}
