//! The inline approximations of `f32` transcendentals under `afn`
//! (`weft_abi::fastmath`): in a kernel with a SIMD thread loop the
//! JIT computes exactly what the Rust reference `fastmath::Exact` computes,
//! in the SIMD loop and in the scalar one, with no library call; without
//! `afn`, and in kernels without a SIMD loop, the call stays.

mod common;

use common::*;
use weft_abi::fastmath::{approximates, Exact};
use weft_backend_cpu::{emit_text, Options};
use weft_ir::text::parse_module;
use weft_ir::verify::verify_module;
use weft_ir::MathFn;

const FUNCS: [MathFn; 7] = [
    MathFn::Sin,
    MathFn::Cos,
    MathFn::Tan,
    MathFn::Exp,
    MathFn::Exp2,
    MathFn::Log,
    MathFn::Log2,
];

fn module(f: MathFn, flags: &str) -> weft_ir::Module {
    let src = format!(
        "kernel @k(v0: array1<f32>, v1: array1<f32>) {{
  v2: i32 = thread_id
  v3: f32 = load v0[v2]
  v4: f32 = {} v3 {flags}
  store v1[v2], v4
  return
}}
",
        f.name()
    );
    let m = parse_module(&src).unwrap();
    weft_ir::verify::verify_module(&m).unwrap();
    m
}

fn host_has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        cfg!(target_arch = "aarch64")
    }
}

fn inputs() -> Vec<f32> {
    let mut x = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::MAX,
        f32::MIN,
        88.7,
        -103.0,
        1e4,
    ];
    let mut s = 0x1234_5678u32;
    while x.len() < 1027 {
        // xorshift: bit patterns over the whole range, and small values.
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        x.push(f32::from_bits(s));
        x.push((s as f32 / u32::MAX as f32 - 0.5) * 40.0);
    }
    x.truncate(1027);
    x
}

#[test]
fn jit_matches_the_reference_in_vector_and_scalar_loops() {
    let x = inputs();
    for f in FUNCS {
        assert!(approximates(f));
        for (flags, fused) in [("fast(afn)", false), ("fast(contract,afn)", host_has_fma())] {
            let m = module(f, flags);
            let mut xs = x.clone();
            let mut ys = vec![0.0f32; x.len()];
            run(
                &m,
                x.len() as i32,
                &[Arg::Array(desc(&mut xs)), Arg::Array(desc(&mut ys))],
            );
            let o = Exact { fused };
            for (i, (&xi, &yi)) in x.iter().zip(&ys).enumerate() {
                let want = o.eval(f, xi).unwrap();
                assert!(
                    yi.to_bits() == want.to_bits() || (yi.is_nan() && want.is_nan()),
                    "{f:?} {flags} [{i}] x={xi:e}: jit {yi:e}, reference {want:e}"
                );
            }
        }
    }
}

#[test]
fn afn_replaces_the_call_and_vectorizes() {
    for f in FUNCS {
        let m = module(f, "");
        let precise = emit_text(&m, &verify_module(&m).unwrap(), &Options::default()).unwrap();
        assert!(precise.contains("call fn"), "{f:?}: {precise}");
        assert!(!precise.contains("f32x4"), "{f:?}: {precise}");
        let m = module(f, "fast(afn)");
        let fast = emit_text(&m, &verify_module(&m).unwrap(), &Options::default()).unwrap();
        assert!(!fast.contains("call "), "{f:?}: {fast}");
        assert!(fast.contains("f32x4"), "{f:?}: {fast}");
    }
    // f64 keeps the library call.
    let m = parse_module(
        "kernel @k(v0: array1<f64>) {
  v1: i32 = thread_id
  v2: f64 = load v0[v1]
  v3: f64 = sin v2 fast(afn)
  store v0[v1], v3
  return
}
",
    )
    .unwrap();
    let clif = emit_text(
        &m,
        &weft_ir::verify::verify_module(&m).expect("verifies"),
        &Options::default(),
    )
    .unwrap();
    assert!(clif.contains("call fn"), "{clif}");
}

#[test]
fn vector_and_scalar_loops_contract_alike() {
    // `x*x - (x+1)` and `(x+1) - x*x`: with `contract` on an FMA host both
    // thread loops (4 lanes, then the scalar tail) round once.
    let m = parse_module(
        "kernel @k(v0: array1<f32>, v1: array1<f32>) {
  v2: i32 = thread_id
  v3: f32 = load v0[v2]
  v4: f32 = const 1.0
  v5: f32 = add v3, v4
  v6: f32 = mul v3, v3 fast(contract)
  v7: f32 = sub v6, v5 fast(contract)
  v8: f32 = sub v5, v6 fast(contract)
  v9: f32 = mul v7, v8
  store v1[v2], v9
  return
}
",
    )
    .unwrap();
    let mut x: Vec<f32> = (0..1027).map(|i| 1.0 + i as f32 * 1.0e-3).collect();
    let mut y = vec![0.0f32; x.len()];
    let xs = x.clone();
    run(
        &m,
        x.len() as i32,
        &[Arg::Array(desc(&mut x)), Arg::Array(desc(&mut y))],
    );
    let fused = host_has_fma();
    // The inputs tell fused from unfused rounding in the vector range.
    assert!(xs[..1024].iter().any(|&x| {
        let c = x + 1.0;
        x.mul_add(x, -c) != x * x - c
    }));
    for (i, (&xi, &yi)) in xs.iter().zip(&y).enumerate() {
        let c = xi + 1.0;
        let (a, b) = if fused {
            (xi.mul_add(xi, -c), (-xi).mul_add(xi, c))
        } else {
            (xi * xi - c, c - xi * xi)
        };
        assert_eq!(yi.to_bits(), (a * b).to_bits(), "[{i}] x={xi}");
    }
}

#[test]
fn kernels_without_a_simd_loop_keep_the_library_calls() {
    // A 2-D array: no SIMD thread loop, so `afn` leaves `sin` to the shim
    // (which beats the inline code one value at a time) and the results
    // are the precise ones.
    let src = |flags: &str| {
        format!(
            "kernel @k(v0: array2<f32>, v1: array2<f32>) {{
  v2: i32 = thread_id
  v3: i32 = const 0
  v4: f32 = load v0[v2, v3]
  v5: f32 = sin v4 {flags}
  store v1[v2, v3], v5
  return
}}
"
        )
    };
    let fast = parse_module(&src("fast(contract,afn)")).unwrap();
    let clif = emit_text(
        &fast,
        &weft_ir::verify::verify_module(&fast).expect("verifies"),
        &Options::default(),
    )
    .unwrap();
    assert!(clif.contains("call fn"), "{clif}");
    assert!(!clif.contains("f32x4"), "{clif}");
    let mut x: Vec<f32> = (0..515).map(|i| i as f32 * 0.37 - 90.0).collect();
    let mut y = vec![0.0f32; x.len()];
    let xs = x.clone();
    let n = x.len();
    run(
        &fast,
        n as i32,
        &[
            Arg::Array(desc2(&mut x, n, 1)),
            Arg::Array(desc2(&mut y, n, 1)),
        ],
    );
    for (xi, yi) in xs.iter().zip(&y) {
        assert_eq!(yi.to_bits(), xi.sin().to_bits(), "sin({xi})");
    }
}
