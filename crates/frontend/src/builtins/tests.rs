//! Tests of the builtins: kernels compiled with [`crate::compile`] and run
//! by the reference interpreter, compared with values computed here
//! independently (Rust float arithmetic, a Rust PCG), plus diagnostics.

use weft_ir::interp::{run_kernel, ArgValue, InterpOptions};

/// Compiles `src`, runs kernel `k` over `dim` threads with 1-D arrays
/// `arrays` (bytes, element size) and returns their final bytes.
fn run(src: &str, dim: i32, arrays: Vec<(Vec<u8>, usize)>) -> Vec<Vec<u8>> {
    let m = match crate::compile("test.py", src) {
        Ok(m) => m,
        Err(d) => panic!("compile failed:\n{}", d.render(false)),
    };
    let (kid, _) = m.kernels().next().expect("a kernel");
    let mut arrays = arrays;
    let mut args: Vec<ArgValue> = arrays
        .iter_mut()
        .map(|(bytes, es)| {
            let n = (bytes.len() / *es) as i32;
            ArgValue::Array {
                data: bytes.as_mut_slice(),
                shape: [n, 1, 1, 1],
                strides: [*es as i64, 0, 0, 0],
            }
        })
        .collect();
    run_kernel(&m, kid, &[dim], &mut args, &InterpOptions::default()).expect("kernel runs");
    drop(args);
    arrays.into_iter().map(|(b, _)| b).collect()
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs a one-thread kernel `def k(out: wp.array(dtype=DT))` with `n`
/// output elements of `es` bytes.
fn run_out(dtype: &str, n: usize, es: usize, body: &str) -> Vec<u8> {
    let src =
        format!("import warp as wp\n\n@wp.kernel\ndef k(out: wp.array(dtype={dtype})):\n{body}\n");
    run(&src, 1, vec![(vec![0u8; n * es], es)]).remove(0)
}

fn compile_err(src: &str) -> String {
    match crate::compile("test.py", src) {
        Ok(_) => panic!("expected a compile error"),
        Err(d) => d.render(false),
    }
}

fn close32(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn integer_division_and_modulo_follow_warp() {
    let body = "    a = int(-7)\n    b = int(2)\n    out[0] = a / b\n    out[1] = a // b\n    out[2] = a % b\n    out[3] = wp.floordiv(7, -2)\n    out[4] = wp.mod(7, -2)\n    out[5] = wp.div(-7, -2)\n    out[6] = -8 // 2\n    out[7] = a >> 1";
    let r = i32s(&run_out("int", 8, 4, body));
    assert_eq!(r, vec![-3, -4, -1, -4, 1, 3, -4, -4]);
}

#[test]
fn small_and_unsigned_integers_wrap() {
    let body = "    a = wp.int8(120)\n    out[0] = int(a + wp.int8(10))\n    u = wp.uint8(3)\n    out[1] = int(u - wp.uint8(5))\n    w = wp.uint32(5)\n    out[2] = int(w >> wp.uint32(1))\n    out[3] = int(wp.int16(-3) // wp.int16(2))";
    let r = i32s(&run_out("int", 4, 4, body));
    assert_eq!(r, vec![-126, 254, 2, -2]);
}

#[test]
fn float_floordiv_and_mod() {
    let body = "    out[0] = -7.5 // 2.0\n    out[1] = -7.5 % 2.0\n    out[2] = wp.mod(7.5, -2.0)\n    out[3] = 2.0 ** 10.0";
    let r = f32s(&run_out("float", 4, 4, body));
    assert_eq!(r, vec![-4.0, -1.5, 1.5, 1024.0]);
}

#[test]
fn conversions() {
    let body = "    out[0] = int(-2.7)\n    out[1] = int(wp.int8(300))\n    out[2] = int(wp.bool(5))\n    out[3] = int(True)\n    out[4] = int(wp.uint8(-1))\n    f = float(3)\n    out[5] = int(f * 2.0)";
    let r = i32s(&run_out("int", 6, 4, body));
    assert_eq!(r, vec![-2, 44, 1, 1, 255, 6]);
}

#[test]
fn float64_literals_are_exact() {
    // As Warp 1.19 (checked with warp-lang on CPU): literals keep their
    // value through vector constructors and plain variables; computed
    // float32 values widen exactly.
    let body = "    out[0] = wp.float64(0.1)\n    x = 0.1\n    out[1] = wp.float64(x)\n    v = wp.vec3d(0.1, 0.2, 0.3)\n    out[2] = v[1]\n    out[3] = wp.vec3d(wp.vec3(0.1, 0.2, 0.3))[1]\n    out[4] = wp.float64(wp.float32(0.5) * 0.2)\n    out[5] = wp.mat22d(0.1, 0.2, 0.3, 0.4)[1, 1]\n    out[6] = wp.float64(1.0e300)";
    let r = f64s(&run_out("wp.float64", 7, 8, body));
    assert_eq!(r[0], 0.1);
    assert_eq!(r[1], 0.1);
    assert_eq!(r[2], 0.2);
    assert_eq!(r[3], 0.2f32 as f64);
    assert_eq!(r[4], (0.5f32 * 0.2f32) as f64);
    assert_eq!(r[5], 0.4);
    assert_eq!(r[6], 1.0e300);
}

#[test]
fn sign_step_round_frac() {
    let body = "    out[0] = wp.sign(0.0)\n    out[1] = wp.sign(-0.0)\n    out[2] = wp.sign(-3.0)\n    out[3] = wp.step(-1.0)\n    out[4] = wp.step(0.0)\n    out[5] = wp.round(-2.5)\n    out[6] = wp.rint(2.5)\n    out[7] = wp.frac(-2.25)\n    out[8] = wp.nonzero(-0.5)\n    out[9] = float(wp.sign(-4))";
    let r = f32s(&run_out("float", 10, 4, body));
    assert_eq!(
        r,
        vec![1.0, 1.0, -1.0, 1.0, 0.0, -3.0, 2.0, -0.25, 1.0, -1.0]
    );
}

#[test]
fn min_max_ignore_nan_and_clamp() {
    let body = "    n = wp.log(-1.0)\n    out[0] = wp.min(n, 2.0)\n    out[1] = wp.max(3.0, n)\n    out[2] = wp.clamp(5.0, -1.0, 1.0)\n    out[3] = float(wp.clamp(-5, 0, 10))\n    out[4] = wp.min(wp.vec3(3.0, -1.0, 2.0))\n    out[5] = wp.max(wp.vec3(3.0, -1.0, 2.0))\n    out[6] = wp.abs(-2.0)\n    out[7] = wp.max(wp.vec2(1.0, 5.0), wp.vec2(2.0, 4.0))[1]";
    let r = f32s(&run_out("float", 8, 4, body));
    assert_eq!(r, vec![2.0, 3.0, 1.0, 0.0, -1.0, 3.0, 2.0, 5.0]);
}

#[test]
fn lerp_smoothstep_degrees() {
    let body = "    out[0] = wp.lerp(1.0, 3.0, 0.25)\n    out[1] = wp.smoothstep(0.0, 2.0, 1.0)\n    out[2] = wp.degrees(1.0)\n    out[3] = wp.radians(180.0)\n    out[4] = wp.lerp(wp.vec2(0.0, 2.0), wp.vec2(4.0, 6.0), 0.5)[1]\n    out[5] = wp.acos(2.0)";
    let r = f32s(&run_out("float", 6, 4, body));
    assert_eq!(r[0], 1.5);
    assert_eq!(r[1], 0.5);
    assert_eq!(r[2], (1.0f64 * 57.295_779_513_082_32) as f32);
    assert_eq!(r[3], (180.0f64 * 0.017_453_292_519_943_295) as f32);
    assert_eq!(r[4], 4.0);
    assert_eq!(r[5], 0.0);
}

#[test]
fn argmin_argmax_skip_nan() {
    let body = "    n = wp.log(-1.0)\n    v = wp.vec4(n, 3.0, -2.0, -2.0)\n    out[0] = wp.argmin(v)\n    out[1] = wp.argmax(v)\n    out[2] = wp.argmin(wp.vec3(n, n, n))";
    let r = u32s(&run_out("wp.uint32", 3, 4, body));
    assert_eq!(r, vec![2, 1, 0]);
}

#[test]
fn vector_arithmetic_and_components() {
    let body = "    a = wp.vec3(1.0, 2.0, 3.0)\n    b = wp.vec3(4.0)\n    c = a + b * 2.0 - 0.5 * a / 2.0\n    c.y = 10.0\n    c[2] = c[2] + 1.0\n    out[0] = c\n    out[1] = wp.cw_mul(a, b)\n    out[2] = -a\n    out[3] = wp.vec3()";
    let r = f32s(&run_out("wp.vec3", 4, 12, body));
    assert_eq!(&r[0..3], &[8.75, 10.0, 11.25]);
    assert_eq!(&r[3..6], &[4.0, 8.0, 12.0]);
    assert_eq!(&r[6..9], &[-1.0, -2.0, -3.0]);
    assert_eq!(&r[9..12], &[0.0, 0.0, 0.0]);
}

#[test]
fn dynamic_component_index() {
    let src = "import warp as wp\n\n@wp.kernel\ndef k(out: wp.array(dtype=float)):\n    i = wp.tid()\n    v = wp.vec4(10.0, 20.0, 30.0, 40.0)\n    v[i] = v[i] + 1.0\n    m = wp.mat22(1.0, 2.0, 3.0, 4.0)\n    out[i] = v[i] + m[i % 2, (i + 1) % 2] + v[-1 - i] * 0.0\n";
    let r = f32s(&run(src, 4, vec![(vec![0u8; 16], 4)])[0]);
    assert_eq!(r, vec![13.0, 24.0, 33.0, 44.0]);
}

#[test]
fn matrix_products_follow_warp() {
    let body = "    m = wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0)\n    v = wp.vec3(1.0, -1.0, 2.0)\n    out[0] = m * v\n    out[1] = v * m\n    p = m * wp.transpose(m)\n    out[2] = p[1]\n    out[3] = wp.vec3(0.0, 0.0, 1.0)\n    out[4] = wp.matrix_from_cols(v, v, v)[2]\n    out[5] = wp.outer(v, v)[1]";
    let r = f32s(&run_out("wp.vec3", 6, 12, body));
    assert_eq!(&r[0..3], &[5.0, 11.0, 19.0]);
    assert_eq!(&r[3..6], &[11.0, 13.0, 17.0]);
    assert_eq!(&r[6..9], &[32.0, 77.0, 128.0]);
    assert_eq!(&r[9..12], &[0.0, 0.0, 1.0]);
    assert_eq!(&r[12..15], &[2.0, 2.0, 2.0]);
    assert_eq!(&r[15..18], &[-1.0, 1.0, -2.0]);
}

#[test]
fn determinant_and_inverse() {
    let body = "    m = wp.mat33(2.0, 0.0, 1.0, 1.0, 3.0, 0.0, 0.0, 1.0, 4.0)\n    out[0] = wp.determinant(m)\n    e = wp.inverse(m) * m\n    out[1] = e[0, 0] + e[1, 1] + e[2, 2]\n    out[2] = wp.abs(e[0, 1]) + wp.abs(e[1, 2]) + wp.abs(e[2, 0])\n    q = wp.mat44(2.0, 0.0, 0.0, 1.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, 1.0, 0.0, 0.0, 1.0)\n    out[3] = wp.determinant(q)\n    out[4] = wp.trace(wp.inverse(q) * q)\n    out[5] = wp.determinant(wp.inverse(wp.mat22(1.0, 2.0, 2.0, 4.0)))\n    out[6] = wp.inverse(wp.mat22(4.0, 0.0, 0.0, 2.0))[1, 1]";
    let r = f32s(&run_out("float", 7, 4, body));
    assert_eq!(r[0], 25.0);
    assert!(close32(r[1], 3.0), "{r:?}");
    assert!(r[2] < 1e-6, "{r:?}");
    assert_eq!(r[3], 12.0);
    assert!(close32(r[4], 4.0), "{r:?}");
    assert_eq!(r[5], 0.0);
    assert_eq!(r[6], 0.5);
}

#[test]
fn dot_cross_length_normalize() {
    let body = "    a = wp.vec3(3.0, 0.0, 4.0)\n    b = wp.vec3(0.0, 1.0, 0.0)\n    out[0] = wp.dot(a, b + a)\n    out[1] = wp.length(a)\n    out[2] = wp.normalize(a)[2]\n    out[3] = wp.normalize(wp.vec3())[0]\n    out[4] = wp.cross(a, b)[0]\n    out[5] = wp.length_sq(wp.vec2(1.0, 2.0))\n    out[6] = wp.dot(wp.vec4(1.0), wp.vec4(2.0))\n    out[7] = float(wp.dot(wp.vec3i(1, 2, 3), wp.vec3i(4, -5, 6)))";
    let r = f32s(&run_out("float", 8, 4, body));
    assert_eq!(r, vec![25.0, 5.0, 0.8, 0.0, -4.0, 5.0, 8.0, 12.0]);
}

/// Hamilton product, written independently of the prelude.
fn qmul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let (ax, ay, az, aw) = (a[0], a[1], a[2], a[3]);
    let (bx, by, bz, bw) = (b[0], b[1], b[2], b[3]);
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

#[test]
fn quaternion_algebra() {
    let body = "    p = wp.quat(0.1, 0.2, 0.3, 0.9)\n    q = wp.quat_from_axis_angle(wp.normalize(wp.vec3(1.0, 1.0, 0.0)), 0.7)\n    out[0] = p * q\n    v = wp.vec3(1.0, 2.0, 3.0)\n    r = wp.quat_rotate(q, v)\n    out[1] = wp.quat(r, 0.0)\n    back = wp.quat_rotate_inv(q, r)\n    out[2] = wp.quat(back, 0.0)\n    m = wp.quat_to_matrix(q)\n    out[3] = wp.quat(m * v, 0.0)\n    out[4] = wp.quat_from_matrix(m)\n    out[5] = wp.quat_slerp(wp.quat_identity(), q, 0.5)\n    out[6] = wp.quat_inverse(p) * p";
    let r = f32s(&run_out("wp.quat", 7, 16, body));
    let q4 = |i: usize| {
        [
            r[4 * i] as f64,
            r[4 * i + 1] as f64,
            r[4 * i + 2] as f64,
            r[4 * i + 3] as f64,
        ]
    };
    let h = 0.35f64;
    let s = h.sin() / 2f64.sqrt();
    let q = [s, s, 0.0, h.cos()];
    let pq = qmul([0.1, 0.2, 0.3, 0.9], q);
    for k in 0..4 {
        assert!((q4(0)[k] - pq[k]).abs() < 1e-6, "{:?} vs {pq:?}", q4(0));
    }
    // rotation as q * (v, 0) * conj(q)
    let rv = qmul(qmul(q, [1.0, 2.0, 3.0, 0.0]), [-q[0], -q[1], -q[2], q[3]]);
    for k in 0..3 {
        assert!((q4(1)[k] - rv[k]).abs() < 1e-5, "{:?} vs {rv:?}", q4(1));
        assert!((q4(3)[k] - rv[k]).abs() < 1e-5, "{:?} vs {rv:?}", q4(3));
    }
    for (k, want) in [1.0, 2.0, 3.0].iter().enumerate() {
        assert!((q4(2)[k] - want).abs() < 1e-5);
    }
    for k in 0..4 {
        assert!(
            (q4(4)[k] - q[k]).abs() < 1e-5,
            "from_matrix {:?} vs {q:?}",
            q4(4)
        );
    }
    let hs = 0.175f64;
    let half = [
        hs.sin() / 2f64.sqrt(),
        hs.sin() / 2f64.sqrt(),
        0.0,
        hs.cos(),
    ];
    for k in 0..4 {
        assert!(
            (q4(5)[k] - half[k]).abs() < 1e-5,
            "slerp {:?} vs {half:?}",
            q4(5)
        );
    }
    let pn = 0.01 + 0.04 + 0.09 + 0.81;
    assert!((q4(6)[3] - pn).abs() < 1e-6);
}

#[test]
fn transforms() {
    let body = "    q = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 1.5707963)\n    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), q)\n    out[0] = wp.transform_point(t, wp.vec3(1.0, 0.0, 0.0))\n    out[1] = wp.transform_vector(t, wp.vec3(1.0, 0.0, 0.0))\n    ti = wp.transform_inverse(t)\n    out[2] = wp.transform_point(wp.transform_multiply(ti, t), wp.vec3(5.0, 6.0, 7.0))\n    out[3] = wp.transform_get_translation(t * wp.transform_identity())\n    out[4] = t.p";
    let r = f32s(&run_out("wp.vec3", 5, 12, body));
    let want = [
        [1.0, 3.0, 3.0],
        [0.0, 1.0, 0.0],
        [5.0, 6.0, 7.0],
        [1.0, 2.0, 3.0],
        [1.0, 2.0, 3.0],
    ];
    for (i, w) in want.iter().enumerate() {
        for k in 0..3 {
            assert!(
                (r[3 * i + k] - w[k]).abs() < 1e-5,
                "row {i}: {:?}",
                &r[3 * i..3 * i + 3]
            );
        }
    }
}

fn pcg(s: u32) -> u32 {
    let b = s.wrapping_mul(747796405).wrapping_add(2891336453);
    let c = ((b >> ((b >> 28) + 4)) ^ b).wrapping_mul(277803737);
    (c >> 22) ^ c
}

#[test]
fn random_numbers_match_warps_pcg() {
    let src = "import warp as wp\n\n@wp.kernel\ndef k(out: wp.array(dtype=float), oi: wp.array(dtype=int)):\n    state = wp.rand_init(42, 7)\n    out[0] = wp.randf(state)\n    out[1] = wp.randf(state, -5.0, 5.0)\n    oi[0] = wp.randi(state)\n    oi[1] = wp.randi(state, -10, 10)\n    out[2] = wp.randn(state)\n    s2 = wp.rand_init(3)\n    oi[2] = int(wp.randu(s2))\n";
    let r = run(src, 1, vec![(vec![0u8; 12], 4), (vec![0u8; 12], 4)]);
    let (f, i) = (f32s(&r[0]), i32s(&r[1]));
    let mut s = pcg(42u32.wrapping_add(pcg(7)));
    let mut draw = || {
        s = pcg(s);
        s
    };
    let unit = |x: u32| (x >> 8) as f32 * (1.0 / 16777216.0);
    assert_eq!(f[0], unit(draw()));
    assert_eq!(f[1], 10.0 * unit(draw()) + -5.0);
    assert_eq!(i[0], draw() as i32);
    assert_eq!(i[1], (draw() % 20).wrapping_add(-10i32 as u32) as i32);
    let (u1, u2) = (unit(draw()), unit(draw()));
    let n = (-2.0f32 * (u1 + 5.96e-8).ln()).sqrt() * (6.283_185_5f32 * u2).cos();
    assert!(close32(f[2], n), "{} vs {n}", f[2]);
    assert_eq!(i[2] as u32, pcg(pcg(3)));
}

#[test]
fn atomics_return_old_values() {
    let src = "import warp as wp\n\n@wp.kernel\ndef k(acc: wp.array(dtype=int), old: wp.array(dtype=int)):\n    i = wp.tid()\n    old[i] = wp.atomic_add(acc, 0, 2)\n    wp.atomic_max(acc, 1, i)\n    wp.atomic_min(acc, 2, -i)\n    wp.atomic_or(acc, 3, 1 << i)\n";
    let r = run(src, 4, vec![(vec![0u8; 16], 4), (vec![0u8; 16], 4)]);
    assert_eq!(i32s(&r[0]), vec![8, 3, -3, 15]);
    assert_eq!(i32s(&r[1]), vec![0, 2, 4, 6]);
}

#[test]
fn prelude_expands_per_float_type() {
    let src = super::prelude_source();
    for name in [
        "wp.vec3h",
        "wp.vec3d",
        "wp.mat44d",
        "wp.quath",
        "wp.transformd",
        "wp.float16",
        "wp.bfloat16",
        "__weft_mat33bf",
    ] {
        assert!(src.contains(name), "{name} missing");
    }
    let code = src.lines().filter(|l| !l.trim_start().starts_with('#'));
    assert!(
        code.clone().all(|l| !l.contains('$')),
        "unexpanded placeholder"
    );
    assert_eq!(src.matches("def __weft_cross(").count(), 4);
    assert_eq!(src.matches("def __weft_pcg(").count(), 1);
    // spatial_cross has a float16 overload in Warp; velocity_at_point not
    assert_eq!(src.matches("def __weft_spatial_cross(").count(), 4);
    assert_eq!(src.matches("def __weft_velocity_at_point(").count(), 2);
    assert!(src.contains("a: wp.spatial_vectorh"));
    assert!(!src.contains("qd: wp.spatial_vectorh"));
    assert_eq!(src.matches("def __weft_svd3(").count(), 4);
    assert_eq!(src.matches("def __weft_spatial_adjoint(").count(), 4);
    assert!(src.contains("m = __weft_mat66d()"));
    // noise: float32 only, four dimensions (curlnoise's defaults are
    // filled in by calls.rs)
    assert_eq!(src.matches("def __weft_noise(").count(), 4);
    assert_eq!(src.matches("def __weft_curlnoise(").count(), 3);
    assert!(ruff_python_parser::parse_module(src).is_ok());
}

#[test]
fn every_prelude_builtin_has_its_func() {
    let src = super::prelude_source();
    let names = super::calls::prelude_names();
    assert!(names.len() > 20);
    for n in names {
        assert!(
            src.contains(&format!("def __weft_{n}(")),
            "prelude lacks __weft_{n}"
        );
    }
}

#[test]
fn mixed_precision_is_an_error_with_a_fix() {
    let src = "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=wp.float64)):\n    x[0] = x[0] * 2.0\n";
    let msg = compile_err(src);
    assert!(msg.contains("float64 and float32"), "{msg}");
    assert!(msg.contains("wp.float64(2.0)"), "{msg}");
}

#[test]
fn wrong_builtin_arguments_list_the_overloads() {
    let src = "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float)):\n    x[0] = wp.dot(wp.vec3(1.0), wp.vec2(1.0))\n";
    let msg = compile_err(src);
    assert!(
        msg.contains("no overload of `wp.dot` accepts (vec3, vec2)"),
        "{msg}"
    );
    assert!(msg.contains("dot(a: vecN, b: vecN) (same type)"), "{msg}");
    let src = "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=wp.vec3)):\n    x[0] = wp.clamp(x[0], x[0], x[0])\n";
    let msg = compile_err(src);
    assert!(msg.contains("no vector overload"), "{msg}");
    let src =
        "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=int)):\n    x[0] = x[0] ** 2\n";
    let msg = compile_err(src);
    assert!(msg.contains("floats only"), "{msg}");
    let src = "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=wp.mat33)):\n    x[0] = wp.mat33(wp.vec3(), wp.vec3(), wp.vec3())\n";
    let msg = compile_err(src);
    assert!(msg.contains("matrix_from_rows"), "{msg}");
    // Warp 1.19 has no vector overloads of the transcendental functions.
    let src = "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=wp.vec3)):\n    x[0] = wp.sin(x[0])\n";
    let msg = compile_err(src);
    assert!(
        msg.contains("no overload of `wp.sin` accepts (vec3)"),
        "{msg}"
    );
    // Atomics take exactly the element type.
    let src = "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=wp.float64)):\n    wp.atomic_add(x, 0, 1.0)\n";
    let msg = compile_err(src);
    assert!(msg.contains("needs a float64 value, got float32"), "{msg}");
    assert!(msg.contains("wp.float64(1.0)"), "{msg}");
}

/// A caller for direct unit tests: records prelude calls, returns nothing.
struct NoPrelude(Vec<String>);

impl super::FuncCaller for NoPrelude {
    fn call_prelude(
        &mut self,
        _b: &mut weft_ir::FuncBuilder,
        name: &str,
        _args: &[weft_ir::Value],
        span: crate::Span,
    ) -> Result<Vec<weft_ir::Value>, crate::Diagnostic> {
        self.0.push(name.to_string());
        Err(crate::Diagnostic::error(span, "no prelude in this test"))
    }
}

#[test]
fn identity_takes_n_and_dtype_keywords() {
    use weft_ir::{FuncBuilder, FuncKind, Function, Scalar, StructTable, Type};
    let structs = StructTable::new();
    let mut f = Function::new("t", FuncKind::Func, vec![], vec![]);
    let mut b = FuncBuilder::new(&mut f, &structs);
    let mut c = NoPrelude(vec![]);
    let n = b.iconst(Scalar::I32, 3);
    let dt = b.fconst(Scalar::F64, 0.0);
    let kw = [("n".to_string(), n), ("dtype".to_string(), dt)];
    let span = crate::Span::default();
    let m = super::call_builtin(&mut b, &mut c, "identity", &[], &kw, span).unwrap();
    assert_eq!(b.ty(m[0]), Type::Mat(3, 3, Scalar::F64));
    let q = super::call_builtin(&mut b, &mut c, "quat_identity", &[], &[], span).unwrap();
    assert_eq!(b.ty(q[0]), Type::Quat(Scalar::F32));
    let bad = super::call_builtin(&mut b, &mut c, "identity", &[dt], &[], span).unwrap_err();
    assert!(bad.message.contains("wp.identity"), "{}", bad.message);
    // Prelude builtins go through the caller under the __weft_ prefix.
    let v = b.fconst(Scalar::F32, 1.0);
    let v3 = super::construct(&mut b, &mut c, Type::Vec(3, Scalar::F32), &[v], &[], span).unwrap();
    assert!(super::call_builtin(&mut b, &mut c, "normalize", &[v3], &[], span).is_err());
    assert_eq!(c.0, vec!["__weft_normalize".to_string()]);
}

// ---------------------------------------------------------------------------
// Differential cases produced by real Warp 1.19 on CPU (`warp_cases/`,
// generated by `warp_cases/defs_weft_extra.py` with the corpus generator):
// f64/f16 vectors, matrices and quaternions, mat44 inverse, small integers,
// sampling functions, indexing. Same format and comparison rule as the
// conformance corpus.

/// A parsed `.npy` file: dtype descriptor and raw little-endian data.
struct Npy {
    descr: String,
    data: Vec<u8>,
}

fn read_npy(path: &std::path::Path) -> Npy {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[..6], b"\x93NUMPY", "{}", path.display());
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        _ => (
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
            12,
        ),
    };
    let header = std::str::from_utf8(&bytes[start..start + hlen]).unwrap();
    assert!(header.contains("'fortran_order': False"), "{header}");
    let d = header.split("'descr': '").nth(1).unwrap();
    let descr = d[..d.find('\'').unwrap()].to_string();
    Npy {
        descr,
        data: bytes[start + hlen..].to_vec(),
    }
}

/// Element values of an npy as f64 (ints exact up to 2^53).
fn npy_values(n: &Npy) -> (bool, Vec<f64>) {
    let d = &n.data;
    let v: Vec<f64> = match &n.descr[1..] {
        "f2" => d
            .chunks(2)
            .map(|c| weft_ir::f16::f16_to_f64(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
        "f4" => f32s(d).into_iter().map(f64::from).collect(),
        "f8" => f64s(d),
        "i4" => i32s(d).into_iter().map(f64::from).collect(),
        "u4" => u32s(d).into_iter().map(f64::from).collect(),
        "i1" => d.iter().map(|&x| x as i8 as f64).collect(),
        "u1" | "b1" => d.iter().map(|&x| x as f64).collect(),
        "i2" => d
            .chunks(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]) as f64)
            .collect(),
        "u2" => d
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]) as f64)
            .collect(),
        "i8" => d
            .chunks(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect(),
        "u8" => d
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect(),
        other => panic!("unsupported npy dtype {other}"),
    };
    (n.descr.contains('f'), v)
}

fn run_warp_case(dir: &std::path::Path) -> Result<(), String> {
    use serde_json::Value as J;
    let case: J =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let src = std::fs::read_to_string(dir.join("kernel.py")).unwrap();
    let m = crate::compile("kernel.py", &src).map_err(|d| d.render(false))?;
    let kname = case["kernel"].as_str().unwrap();
    let kid = m.func_by_name(kname).ok_or("kernel not found")?;
    let specs = case["args"].as_array().unwrap();
    let mut bufs: Vec<(String, Npy)> = Vec::new();
    let mut scalars: Vec<Vec<u8>> = Vec::new();
    for a in specs {
        let name = a["name"].as_str().unwrap().to_string();
        if a["kind"] == "array" {
            bufs.push((name.clone(), read_npy(&dir.join(format!("{name}.npy")))));
        } else {
            assert_eq!(a["dtype"], "int32", "only int32 scalars in these cases");
            scalars.push((a["value"].as_i64().unwrap() as i32).to_le_bytes().to_vec());
        }
    }
    let mut buf_iter = bufs.iter_mut();
    let mut scal_iter = scalars.into_iter();
    let mut args = Vec::new();
    for a in specs {
        if a["kind"] == "array" {
            let shape: Vec<i64> = a["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect();
            let (_, npy) = buf_iter.next().unwrap();
            let count: i64 = shape.iter().product();
            let es = npy.data.len() as i64 / count;
            let mut sh = [1i32; 4];
            let mut st = [0i64; 4];
            let mut stride = es;
            for k in (0..shape.len()).rev() {
                sh[k] = shape[k] as i32;
                st[k] = stride;
                stride *= shape[k];
            }
            args.push(ArgValue::Array {
                data: npy.data.as_mut_slice(),
                shape: sh,
                strides: st,
            });
        } else {
            args.push(ArgValue::Value(scal_iter.next().unwrap()));
        }
    }
    let dim: Vec<i32> = case["dim"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap() as i32)
        .collect();
    run_kernel(&m, kid, &dim, &mut args, &InterpOptions::default()).map_err(|e| e.to_string())?;
    drop(args);
    let (rtol, atol) = (
        case["rtol"].as_f64().unwrap(),
        case["atol"].as_f64().unwrap(),
    );
    for name in case["check"].as_array().unwrap() {
        let name = name.as_str().unwrap();
        let got = &bufs.iter().find(|(n, _)| n == name).unwrap().1;
        let want = read_npy(&dir.join(format!("expected_{name}.npy")));
        let ((is_float, g), (_, w)) = (npy_values(got), npy_values(&want));
        for (k, (x, y)) in g.iter().zip(&w).enumerate() {
            let ok = if is_float {
                (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= atol + rtol * y.abs()
            } else {
                x == y
            };
            if !ok {
                return Err(format!("{name}[{k}]: got {x}, Warp gives {y}"));
            }
        }
    }
    Ok(())
}

#[test]
fn matches_warp_on_extra_cases() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/builtins/warp_cases");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 9, "cases missing under {}", root.display());
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            run_warp_case(d)
                .err()
                .map(|e| format!("{}: {e}", d.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Builds a one-thread kernel whose body `build` returns f64 values, stores
/// them into `out: array(dtype=float64)` and runs it in the interpreter.
fn eval_f64(
    build: impl FnOnce(&mut weft_ir::FuncBuilder, &mut NoPrelude) -> Vec<weft_ir::Value>,
) -> Vec<f64> {
    use weft_ir::{
        ArrayType, ElemType, FuncBuilder, FuncKind, Function, MemAccess, Module, Param, Scalar,
        Type,
    };
    let mut m = Module::new();
    let out_ty = Type::Array(ArrayType {
        elem: ElemType::Scalar(Scalar::F64),
        ndim: 1,
    });
    let mut f = Function::new(
        "k",
        FuncKind::Kernel,
        vec![Param {
            name: "out".into(),
            ty: out_ty,
        }],
        vec![],
    );
    let out = f.param_values()[0];
    let structs = m.structs.clone();
    let mut b = FuncBuilder::new(&mut f, &structs);
    let mut c = NoPrelude(vec![]);
    let vals = build(&mut b, &mut c);
    for (k, &v) in vals.iter().enumerate() {
        let i = b.iconst(Scalar::I32, k as i64);
        b.store(
            MemAccess {
                array: out,
                indices: vec![i],
                path: vec![],
            },
            v,
        );
    }
    b.return_(vec![]);
    let n = vals.len();
    let kid = m.funcs.push(f);
    let mut bytes = vec![0u8; 8 * n];
    let mut args = [ArgValue::Array {
        data: &mut bytes,
        shape: [n as i32, 1, 1, 1],
        strides: [8, 0, 0, 0],
    }];
    run_kernel(&m, kid, &[1], &mut args, &InterpOptions::default()).expect("kernel runs");
    f64s(&bytes)
}

#[test]
fn generic_length_vectors_use_warps_formulas() {
    use weft_ir::{Scalar, Type};
    let span = crate::Span::default();
    let r = eval_f64(|b, c| {
        let xs: Vec<_> = [1.0, -2.0, 3.0, 0.5, 4.0]
            .iter()
            .map(|&x| b.fconst(Scalar::F64, x))
            .collect();
        let v5 = super::construct(b, c, Type::Vec(5, Scalar::F64), &xs, &[], span).unwrap();
        let z5 = super::construct(b, c, Type::Vec(5, Scalar::F64), &[], &[], span).unwrap();
        let mut out = Vec::new();
        for (name, args) in [
            ("dot", vec![v5, v5]),
            ("length", vec![v5]),
            ("length_sq", vec![v5]),
        ] {
            out.push(super::call_builtin(b, c, name, &args, &[], span).unwrap()[0]);
        }
        let n = super::call_builtin(b, c, "normalize", &[v5], &[], span).unwrap()[0];
        let z = super::call_builtin(b, c, "normalize", &[z5], &[], span).unwrap()[0];
        let i4 = b.iconst(Scalar::I32, 4);
        out.push(super::get_index(b, n, &[i4], span).unwrap());
        out.push(super::get_index(b, z, &[i4], span).unwrap());
        // No prelude call was needed.
        assert!(c.0.is_empty(), "{:?}", c.0);
        out
    });
    let dot = 1.0 + 4.0 + 9.0 + 0.25 + 16.0;
    assert_eq!(r, vec![dot, f64::sqrt(dot), dot, 4.0 / f64::sqrt(dot), 0.0]);
}

#[test]
fn cast_reinterprets_bits() {
    let r = run_out(
        "int",
        3,
        4,
        "    out[0] = wp.cast(2.0, wp.int32)\n    out[1] = wp.cast(wp.cast(-1, wp.uint32), wp.int32)\n    out[2] = wp.int32(wp.cast(wp.int32(0x40000000), wp.float32))",
    );
    assert_eq!(i32s(&r), vec![0x4000_0000, -1, 2]);
    let e = compile_err(
        "import warp as wp\n\n@wp.kernel\ndef k():\n    x = wp.cast(wp.vec3(), wp.float32)\n",
    );
    assert!(
        e.contains("`wp.cast` from vec3") && e.contains("test.py:5"),
        "{e}"
    );
    let e = compile_err(
        "import warp as wp\n\n@wp.kernel\ndef k():\n    x = wp.cast(wp.int64(1), wp.float32)\n",
    );
    assert!(e.contains("not supported"), "{e}");
}

#[test]
fn output_argument_forms_write_their_variables() {
    // svd3(A, U, sigma, V) stores what `U, sigma, V = svd3(A)` returns.
    let r = run_out(
        "float",
        6,
        4,
        "    a = wp.mat33(3.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 1.0)\n    U, s, V = wp.svd3(a)\n    U2 = wp.mat33()\n    s2 = wp.vec3()\n    V2 = wp.mat33()\n    wp.svd3(a, U2, s2, V2)\n    out[0] = s[0]\n    out[1] = s[1]\n    out[2] = s[2]\n    out[3] = wp.length(s2 - s)\n    out[4] = wp.ddot(U2 - U, U2 - U) + wp.ddot(V2 - V, V2 - V)\n    ax = wp.vec3()\n    ang = float(0.0)\n    wp.quat_to_axis_angle(wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), 0.5), ax, ang)\n    out[5] = ang",
    );
    let v = f32s(&r);
    // U and V are rotations (svd.h): det(a) < 0 leaves the smallest
    // singular value negative, as in Warp.
    assert!(
        close32(v[0], 3.0) && close32(v[1], 2.0) && close32(v[2], -1.0),
        "{v:?}"
    );
    assert_eq!((v[3], v[4]), (0.0, 0.0));
    assert!(close32(v[5], 0.5), "{v:?}");
    let e = compile_err("import warp as wp\n\n@wp.kernel\ndef k():\n    wp.qr3(wp.mat33(), wp.mat33(), wp.mat33())\n");
    assert!(e.contains("writes its result here"), "{e}");
}
