//! End-to-end tests of the CPU JIT on hand-built IR.

mod common;

use common::*;
use weft_backend_cpu::{compile, emit_text, Error, OptLevel, Options};
use weft_ir::ir::{AtomicOp, BinaryOp, MemAccess, UnaryOp};
use weft_ir::layout::ArrayDesc;
use weft_ir::{ElemType, FuncBuilder, FuncKind, Function, Param, Scalar, StructDef, Type, Value};

fn at(array: Value, i: Value) -> MemAccess {
    MemAccess {
        array,
        indices: vec![i],
        path: vec![],
    }
}

fn to_bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    let n = std::mem::size_of_val(v);
    let mut out = vec![0u8; n];
    // SAFETY: plain-data scalars.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr() as *const u8, out.as_mut_ptr(), n) };
    out
}

fn from_bytes<T: Copy>(b: &[u8]) -> Vec<T> {
    let sz = std::mem::size_of::<T>();
    (0..b.len() / sz)
        // SAFETY: in bounds; read_unaligned copes with any alignment.
        .map(|i| unsafe { std::ptr::read_unaligned(b.as_ptr().add(i * sz) as *const T) })
        .collect()
}

fn raw_desc(v: &mut [u8], elem: u32) -> ArrayDesc {
    ArrayDesc {
        data: v.as_mut_ptr(),
        shape: [(v.len() as u32 / elem) as i32, 1, 1, 1],
        strides: [elem as i64, 0, 0, 0],
    }
}

/// Runs `out[i] = a[i] op b[i]` over raw element bytes.
fn run_binary(s: Scalar, op: BinaryOp, a: &[u8], b: &[u8]) -> Vec<u8> {
    let out_s = if op.is_comparison() { Scalar::Bool } else { s };
    let n = a.len() / s.size() as usize;
    let m = kernel_module(
        &[("a", arr1(s)), ("b", arr1(s)), ("o", arr1(out_s))],
        |bl, p| {
            let i = bl.thread_id();
            let x = bl.load(at(p[0], i));
            let y = bl.load(at(p[1], i));
            let r = bl.binary(op, x, y);
            bl.store(at(p[2], i), r);
            bl.return_(vec![]);
        },
    );
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    let mut o = vec![0u8; n * out_s.size() as usize];
    run(
        &m,
        n as i32,
        &[
            Arg::Array(raw_desc(&mut a, s.size())),
            Arg::Array(raw_desc(&mut b, s.size())),
            Arg::Array(raw_desc(&mut o, out_s.size())),
        ],
    );
    o
}

/// Runs `out[i] = op(a[i])`.
fn run_unary(s: Scalar, op: UnaryOp, a: &[u8]) -> Vec<u8> {
    let out_s = if matches!(op, UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite) {
        Scalar::Bool
    } else {
        s
    };
    let n = a.len() / s.size() as usize;
    let m = kernel_module(&[("a", arr1(s)), ("o", arr1(out_s))], |bl, p| {
        let i = bl.thread_id();
        let x = bl.load(at(p[0], i));
        let r = bl.unary(op, x);
        bl.store(at(p[1], i), r);
        bl.return_(vec![]);
    });
    let mut a = a.to_vec();
    let mut o = vec![0u8; n * out_s.size() as usize];
    run(
        &m,
        n as i32,
        &[
            Arg::Array(raw_desc(&mut a, s.size())),
            Arg::Array(raw_desc(&mut o, out_s.size())),
        ],
    );
    o
}

/// Runs `out[i] = cast(a[i], to)`.
fn run_cast(from: Scalar, to: Scalar, a: &[u8]) -> Vec<u8> {
    let n = a.len() / from.size() as usize;
    let m = kernel_module(&[("a", arr1(from)), ("o", arr1(to))], |bl, p| {
        let i = bl.thread_id();
        let x = bl.load(at(p[0], i));
        let r = bl.cast(x, to);
        bl.store(at(p[1], i), r);
        bl.return_(vec![]);
    });
    let mut a = a.to_vec();
    let mut o = vec![0u8; n * to.size() as usize];
    run(
        &m,
        n as i32,
        &[
            Arg::Array(raw_desc(&mut a, from.size())),
            Arg::Array(raw_desc(&mut o, to.size())),
        ],
    );
    o
}

#[test]
fn saxpy() {
    let m = kernel_module(
        &[
            ("a", Type::F32),
            ("x", arr1(Scalar::F32)),
            ("y", arr1(Scalar::F32)),
        ],
        |b, p| {
            let i = b.thread_id();
            let x = b.load(at(p[1], i));
            let y = b.load(at(p[2], i));
            let ax = b.binary(BinaryOp::Mul, p[0], x);
            let r = b.binary(BinaryOp::Add, ax, y);
            b.store(at(p[2], i), r);
            b.return_(vec![]);
        },
    );
    let mut x: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5).collect();
    let mut y: Vec<f32> = (0..1000).map(|i| 1.0 - i as f32).collect();
    let expect: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 3.0f32 * x + y).collect();
    run(
        &m,
        1000,
        &[
            bytes_of(3.0f32),
            Arg::Array(desc(&mut x)),
            Arg::Array(desc(&mut y)),
        ],
    );
    assert_eq!(y, expect);
}

#[test]
fn int_div_rem_never_trap() {
    let a = [7i32, -7, 7, i32::MIN, i32::MIN, 5, 0, -9, i32::MAX];
    let b = [2i32, 2, 0, -1, 1, -1, 0, -4, -1];
    let q: Vec<i32> = from_bytes(&run_binary(
        Scalar::I32,
        BinaryOp::Div,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    let r: Vec<i32> = from_bytes(&run_binary(
        Scalar::I32,
        BinaryOp::Rem,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    for k in 0..a.len() {
        let (eq, er) = if b[k] == 0 {
            (0, 0)
        } else {
            (a[k].wrapping_div(b[k]), a[k].wrapping_rem(b[k]))
        };
        assert_eq!((q[k], r[k]), (eq, er), "{} / {}", a[k], b[k]);
    }
    let a = [i8::MIN, 100, -100, 5];
    let b = [-1i8, 0, 7, -2];
    let q: Vec<i8> = from_bytes(&run_binary(
        Scalar::I8,
        BinaryOp::Div,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    assert_eq!(q, vec![i8::MIN, 0, -14, -2]);
    let a = [u64::MAX, 10, 3];
    let b = [0u64, 3, u64::MAX];
    let q: Vec<u64> = from_bytes(&run_binary(
        Scalar::U64,
        BinaryOp::Div,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    let r: Vec<u64> = from_bytes(&run_binary(
        Scalar::U64,
        BinaryOp::Rem,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    assert_eq!(q, vec![0, 3, 0]);
    assert_eq!(r, vec![0, 1, 3]);
}

#[test]
fn shifts_take_amount_mod_width() {
    let a = [1i32, -8, 1, 0x40];
    let b = [33i32, 1, 31, -1];
    let l: Vec<i32> = from_bytes(&run_binary(
        Scalar::I32,
        BinaryOp::Shl,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    let r: Vec<i32> = from_bytes(&run_binary(
        Scalar::I32,
        BinaryOp::Shr,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    for k in 0..a.len() {
        assert_eq!(l[k], a[k].wrapping_shl(b[k] as u32));
        assert_eq!(r[k], a[k].wrapping_shr(b[k] as u32));
    }
    let a = [0x80u8, 0xff, 3];
    let b = [9u8, 4, 8];
    let r: Vec<u8> = from_bytes(&run_binary(
        Scalar::U8,
        BinaryOp::Shr,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    assert_eq!(r, vec![0x40, 0x0f, 3]);
}

#[test]
fn fmin_fmax_ignore_nan() {
    let a = [f32::NAN, 1.0, f32::NAN, -3.0, 2.0];
    let b = [2.0f32, f32::NAN, f32::NAN, 4.0, -1.0];
    let mn: Vec<f32> = from_bytes(&run_binary(
        Scalar::F32,
        BinaryOp::Min,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    let mx: Vec<f32> = from_bytes(&run_binary(
        Scalar::F32,
        BinaryOp::Max,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    assert_eq!(mn[0], 2.0);
    assert_eq!(mn[1], 1.0);
    assert!(mn[2].is_nan());
    assert_eq!(mn[3], -3.0);
    assert_eq!(mn[4], -1.0);
    assert_eq!(mx[0], 2.0);
    assert_eq!(mx[1], 1.0);
    assert!(mx[2].is_nan());
    assert_eq!(mx[3], 4.0);
    let a = [f64::NAN, 5.0];
    let b = [-2.0f64, f64::NAN];
    let mn: Vec<f64> = from_bytes(&run_binary(
        Scalar::F64,
        BinaryOp::Min,
        &to_bytes(&a),
        &to_bytes(&b),
    ));
    assert_eq!(mn, vec![-2.0, 5.0]);
}

#[test]
fn float_comparisons_are_ordered_except_ne() {
    let a = [f32::NAN, 1.0, 2.0];
    let b = [1.0f32, 1.0, 1.0];
    let ne: Vec<u8> = run_binary(Scalar::F32, BinaryOp::Ne, &to_bytes(&a), &to_bytes(&b));
    let lt: Vec<u8> = run_binary(Scalar::F32, BinaryOp::Lt, &to_bytes(&a), &to_bytes(&b));
    let ge: Vec<u8> = run_binary(Scalar::F32, BinaryOp::Ge, &to_bytes(&a), &to_bytes(&b));
    assert_eq!(ne, vec![1, 0, 1]);
    assert_eq!(lt, vec![0, 0, 0]);
    assert_eq!(ge, vec![0, 1, 1]);
    let a = [-1i32, 5];
    let b = [1i32, 5];
    assert_eq!(
        run_binary(Scalar::I32, BinaryOp::Lt, &to_bytes(&a), &to_bytes(&b)),
        vec![1, 0]
    );
    let a = [u32::MAX, 5];
    let b = [1u32, 5];
    assert_eq!(
        run_binary(Scalar::U32, BinaryOp::Lt, &to_bytes(&a), &to_bytes(&b)),
        vec![0, 0]
    );
}

#[test]
fn float_to_int_casts_saturate() {
    let xs = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e10,
        -1e10,
        3.7,
        -3.7,
        200.5,
        -200.5,
        70000.0,
        -0.5,
        40000.0,
    ];
    let a = to_bytes(&xs);
    macro_rules! check {
        ($s:expr, $t:ty) => {{
            let got: Vec<$t> = from_bytes(&run_cast(Scalar::F32, $s, &a));
            let want: Vec<$t> = xs.iter().map(|&x| x as $t).collect();
            assert_eq!(got, want, "f32 -> {}", stringify!($t));
        }};
    }
    check!(Scalar::I8, i8);
    check!(Scalar::U8, u8);
    check!(Scalar::I16, i16);
    check!(Scalar::U16, u16);
    check!(Scalar::I32, i32);
    check!(Scalar::U32, u32);
    check!(Scalar::I64, i64);
    check!(Scalar::U64, u64);
    let ds = [f64::NAN, 1e300, -3.99, 4e9];
    let got: Vec<u32> = from_bytes(&run_cast(Scalar::F64, Scalar::U32, &to_bytes(&ds)));
    assert_eq!(got, ds.iter().map(|&x| x as u32).collect::<Vec<_>>());
    // to bool: x != 0 (NaN is true)
    let got = run_cast(
        Scalar::F32,
        Scalar::Bool,
        &to_bytes(&[0.0f32, -0.0, f32::NAN, 0.1]),
    );
    assert_eq!(got, vec![0, 0, 1, 1]);
}

#[test]
fn int_casts_wrap_and_extend() {
    let xs = [-1i32, 300, -129, i32::MIN];
    let got: Vec<u8> = from_bytes(&run_cast(Scalar::I32, Scalar::U8, &to_bytes(&xs)));
    assert_eq!(got, xs.iter().map(|&x| x as u8).collect::<Vec<_>>());
    let got: Vec<u64> = from_bytes(&run_cast(Scalar::I32, Scalar::U64, &to_bytes(&xs)));
    assert_eq!(got, xs.iter().map(|&x| x as u64).collect::<Vec<_>>());
    let us = [u32::MAX, 7];
    let got: Vec<i64> = from_bytes(&run_cast(Scalar::U32, Scalar::I64, &to_bytes(&us)));
    assert_eq!(got, vec![u32::MAX as i64, 7]);
    let got: Vec<f32> = from_bytes(&run_cast(Scalar::U32, Scalar::F32, &to_bytes(&us)));
    assert_eq!(got, vec![u32::MAX as f32, 7.0]);
    let bs = [1u8, 0];
    let got: Vec<f64> = from_bytes(&run_cast(Scalar::Bool, Scalar::F64, &bs));
    assert_eq!(got, vec![1.0, 0.0]);
    let got: Vec<i32> = from_bytes(&run_cast(Scalar::Bool, Scalar::I32, &bs));
    assert_eq!(got, vec![1, 0]);
}

fn h(x: f32) -> u16 {
    weft_ir::f16::f32_to_f16(x)
}
fn hf(b: u16) -> f32 {
    weft_ir::f16::f16_to_f32(b)
}

#[test]
fn f16_is_a_storage_type_rounded_after_each_op() {
    let a: Vec<u16> = [2048.0f32, 0.1, -3.5, 65504.0, 1.0 / 3.0]
        .iter()
        .map(|&x| h(x))
        .collect();
    let b: Vec<u16> = [1.0f32, 0.2, 2.25, 65504.0, 3.0]
        .iter()
        .map(|&x| h(x))
        .collect();
    for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div] {
        let got: Vec<u16> = from_bytes(&run_binary(Scalar::F16, op, &to_bytes(&a), &to_bytes(&b)));
        for k in 0..a.len() {
            let (x, y) = (hf(a[k]), hf(b[k]));
            let r = match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                _ => x / y,
            };
            assert_eq!(got[k], h(r), "{op:?} {x} {y}");
        }
    }
    // 2048 + 1 rounds back to 2048 in f16.
    let got: Vec<u16> = from_bytes(&run_binary(
        Scalar::F16,
        BinaryOp::Add,
        &to_bytes(&a[..1]),
        &to_bytes(&b[..1]),
    ));
    assert_eq!(hf(got[0]), 2048.0);
    // f32 -> f16 -> f32 and f64 -> f16 round once.
    let xs = [0.1f32, 1e-8, 70000.0, -2.5];
    let got: Vec<u16> = from_bytes(&run_cast(Scalar::F32, Scalar::F16, &to_bytes(&xs)));
    assert_eq!(got, xs.iter().map(|&x| h(x)).collect::<Vec<_>>());
    let ds = [0.1f64, 1.0 + 1.0 / 2048.0 + 1e-12];
    let got: Vec<u16> = from_bytes(&run_cast(Scalar::F64, Scalar::F16, &to_bytes(&ds)));
    assert_eq!(
        got,
        ds.iter()
            .map(|&x| weft_ir::f16::f64_to_f16(x))
            .collect::<Vec<_>>()
    );
    let got: Vec<f64> = from_bytes(&run_cast(Scalar::F16, Scalar::F64, &to_bytes(&a)));
    assert_eq!(got, a.iter().map(|&x| hf(x) as f64).collect::<Vec<_>>());
}

#[test]
fn rounding_and_predicates() {
    let xs = [
        2.5f32,
        -2.5,
        0.5,
        -0.4,
        1.5,
        f32::NAN,
        f32::INFINITY,
        8388609.0,
    ];
    let a = to_bytes(&xs);
    let round: Vec<f32> = from_bytes(&run_unary(Scalar::F32, UnaryOp::Round, &a));
    let rint: Vec<f32> = from_bytes(&run_unary(Scalar::F32, UnaryOp::Rint, &a));
    for k in 0..xs.len() {
        let (er, en) = (xs[k].round(), xs[k].round_ties_even());
        assert!(
            round[k] == er || (er.is_nan() && round[k].is_nan()),
            "round {}",
            xs[k]
        );
        assert!(
            rint[k] == en || (en.is_nan() && rint[k].is_nan()),
            "rint {}",
            xs[k]
        );
    }
    assert_eq!(
        run_unary(Scalar::F32, UnaryOp::IsNan, &a),
        vec![0, 0, 0, 0, 0, 1, 0, 0]
    );
    assert_eq!(
        run_unary(Scalar::F32, UnaryOp::IsInf, &a),
        vec![0, 0, 0, 0, 0, 0, 1, 0]
    );
    assert_eq!(
        run_unary(Scalar::F32, UnaryOp::IsFinite, &a),
        vec![1, 1, 1, 1, 1, 0, 0, 1]
    );
}

#[test]
fn transcendentals_match_std() {
    let xs = [0.3f32, -1.2, 2.0, 0.0, 10.0];
    let a = to_bytes(&xs);
    type F = fn(f32) -> f32;
    let cases: [(UnaryOp, F); 6] = [
        (UnaryOp::Sin, f32::sin),
        (UnaryOp::Exp, f32::exp),
        (UnaryOp::Tanh, f32::tanh),
        (UnaryOp::Cbrt, f32::cbrt),
        (UnaryOp::Atan, f32::atan),
        (UnaryOp::Exp2, f32::exp2),
    ];
    for (op, f) in cases {
        let got: Vec<f32> = from_bytes(&run_unary(Scalar::F32, op, &a));
        // black_box: compile-time folding would use a different libm.
        let want: Vec<f32> = xs.iter().map(|&x| f(std::hint::black_box(x))).collect();
        assert_eq!(got, want, "{op:?}");
    }
    let ys = [2.0f64, 0.5, 3.0];
    let zs = [10.0f64, -2.0, 0.5];
    let got: Vec<f64> = from_bytes(&run_binary(
        Scalar::F64,
        BinaryOp::Pow,
        &to_bytes(&ys),
        &to_bytes(&zs),
    ));
    assert_eq!(
        got,
        ys.iter()
            .zip(&zs)
            .map(|(a, b)| std::hint::black_box(*a).powf(*b))
            .collect::<Vec<_>>()
    );
    let got: Vec<f32> = from_bytes(&run_binary(
        Scalar::F32,
        BinaryOp::Rem,
        &to_bytes(&[7.5f32, -7.5]),
        &to_bytes(&[2.0f32, 2.0]),
    ));
    assert_eq!(got, vec![1.5, -1.5]);
}

/// `acc = vec3(0); for j in 0..n { if j % 3 == 1 { continue } if j == 8 { break } acc += (j, 2j, 1 + tid) }`
#[test]
fn loop_with_break_and_continue_carries_an_aggregate() {
    let v3 = Type::Vec(3, Scalar::F32);
    let m = kernel_module(
        &[
            ("n", Type::I32),
            ("out", arr(ElemType::Vec(3, Scalar::F32), 1)),
        ],
        |b, p| {
            let i = b.thread_id();
            let z = b.fconst(Scalar::F32, 0.0);
            let acc0 = b.make(v3, vec![z, z, z]);
            let j0 = b.iconst(Scalar::I32, 0);
            let (lp, body, params) = b.loop_(vec![j0, acc0], &[v3]);
            b.switch_to(body);
            let (j, acc) = (params[0], params[1]);
            let done = b.binary(BinaryOp::Ge, j, p[0]);
            let (_, t1, e1) = b.if_(done, &[]);
            b.switch_to(t1);
            b.break_(vec![acc]);
            b.switch_to(e1);
            b.yield_(vec![]);
            b.switch_to(body);
            let one = b.iconst(Scalar::I32, 1);
            let j1 = b.binary(BinaryOp::Add, j, one);
            let three = b.iconst(Scalar::I32, 3);
            let r = b.binary(BinaryOp::Rem, j, three);
            let skip = b.binary(BinaryOp::Eq, r, one);
            let (_, t2, e2) = b.if_(skip, &[]);
            b.switch_to(t2);
            b.continue_(vec![j1, acc]);
            b.switch_to(e2);
            b.yield_(vec![]);
            b.switch_to(body);
            let seven = b.iconst(Scalar::I32, 8);
            let stop = b.binary(BinaryOp::Eq, j, seven);
            let (_, t3, e3) = b.if_(stop, &[]);
            b.switch_to(t3);
            b.break_(vec![acc]);
            b.switch_to(e3);
            b.yield_(vec![]);
            b.switch_to(body);
            let jf = b.cast(j, Scalar::F32);
            let two = b.fconst(Scalar::F32, 2.0);
            let j2 = b.binary(BinaryOp::Mul, jf, two);
            let onef = b.fconst(Scalar::F32, 1.0);
            let ti = b.cast(i, Scalar::F32);
            let c = b.binary(BinaryOp::Add, onef, ti);
            let d = b.make(v3, vec![jf, j2, c]);
            let mut parts = vec![];
            for k in 0..3 {
                let x = b.extract(acc, vec![k]);
                let y = b.extract(d, vec![k]);
                parts.push(b.binary(BinaryOp::Add, x, y));
            }
            let acc1 = b.make(v3, parts);
            b.continue_(vec![j1, acc1]);
            b.switch_to(b.func.body);
            let res = b.func.results(lp)[0];
            b.store(at(p[1], i), res);
            b.return_(vec![]);
        },
    );
    let mut out = vec![[0f32; 3]; 4];
    run(&m, 4, &[bytes_of(20i32), Arg::Array(desc(&mut out))]);
    // j in {0, 2, 3, 5, 6} contribute; 8 breaks.
    for (t, o) in out.iter().enumerate() {
        assert_eq!(*o, [16.0, 32.0, 5.0 * (1.0 + t as f32)]);
    }
}

#[test]
fn early_return_and_subrange() {
    let m = kernel_module(&[("o", arr1(Scalar::I32))], |b, p| {
        let i = b.thread_id();
        let two = b.iconst(Scalar::I32, 2);
        let r = b.binary(BinaryOp::Rem, i, two);
        let zero = b.iconst(Scalar::I32, 0);
        let even = b.binary(BinaryOp::Eq, r, zero);
        let (_, t, e) = b.if_(even, &[]);
        b.switch_to(t);
        b.return_(vec![]);
        b.switch_to(e);
        b.yield_(vec![]);
        b.switch_to(b.func.body);
        b.store(at(p[0], i), i);
        b.return_(vec![]);
    });
    let art = compile_checked(&m);
    let k = art.kernel("k").unwrap();
    let mut o = vec![-1i32; 10];
    let block = pack(&m, "k", [10, 1, 1, 1], &[Arg::Array(desc(&mut o))]);
    // SAFETY: block matches the kernel; `o` outlives the call.
    unsafe { (k.entry)(block.ptr(), 3, 8) };
    assert_eq!(o, vec![-1, -1, -1, 3, -1, 5, -1, 7, -1, -1]);
}

#[test]
fn two_d_arrays_shapes_and_launch_dims() {
    let m = kernel_module(&[("o", arr(ElemType::Scalar(Scalar::I64), 2))], |b, p| {
        let t = b.thread_id();
        let cols = b.launch_dim(1);
        let i = b.binary(BinaryOp::Div, t, cols);
        let j = b.binary(BinaryOp::Rem, t, cols);
        let rows = b.array_shape(p[0], 0);
        let hundred = b.iconst(Scalar::I32, 100);
        let v = b.binary(BinaryOp::Mul, rows, hundred);
        let v = b.binary(BinaryOp::Add, v, t);
        let v = b.cast(v, Scalar::I64);
        b.store(
            MemAccess {
                array: p[0],
                indices: vec![i, j],
                path: vec![],
            },
            v,
        );
        b.return_(vec![]);
    });
    let (rows, cols) = (3, 5);
    let mut o = vec![0i64; rows * cols];
    let art = compile_checked(&m);
    let block = pack(
        &m,
        "k",
        [rows as i32, cols as i32, 1, 1],
        &[Arg::Array(desc2(&mut o, rows, cols))],
    );
    // SAFETY: block matches the kernel; `o` outlives the call.
    unsafe { (art.kernel("k").unwrap().entry)(block.ptr(), 0, (rows * cols) as i64) };
    assert_eq!(o, (0..15).map(|t| 300 + t).collect::<Vec<i64>>());
}

#[test]
fn structs_by_value_and_in_arrays() {
    let mut m = weft_ir::Module::new();
    let sid = m.structs.push(StructDef {
        name: "P".into(),
        fields: vec![
            weft_ir::Field {
                name: "a".into(),
                ty: Type::Scalar(Scalar::U8),
            },
            weft_ir::Field {
                name: "b".into(),
                ty: Type::Vec(3, Scalar::F32),
            },
            weft_ir::Field {
                name: "c".into(),
                ty: Type::F64,
            },
        ],
    });
    let st = Type::Struct(sid);
    add_kernel(
        &mut m,
        "k",
        &[
            ("p", st),
            ("xs", arr(ElemType::Struct(sid), 1)),
            ("o", arr1(Scalar::F64)),
        ],
        |b, p| {
            let i = b.thread_id();
            let c = b.extract(p[0], vec![2]);
            let by = b.extract(p[0], vec![1, 1]);
            let by = b.cast(by, Scalar::F64);
            let xc = b.load(MemAccess {
                array: p[1],
                indices: vec![i],
                path: vec![2],
            });
            let elem = b.load(at(p[1], i));
            let ea = b.extract(elem, vec![0]);
            let ea = b.cast(ea, Scalar::F64);
            let s = b.binary(BinaryOp::Add, c, by);
            let s = b.binary(BinaryOp::Add, s, xc);
            let s = b.binary(BinaryOp::Add, s, ea);
            b.store(at(p[2], i), s);
            // write back the element with a changed field
            let nb = b.fconst(Scalar::F32, 9.0);
            let e2 = b.insert(elem, vec![1, 2], nb);
            b.store(at(p[1], i), e2);
            b.return_(vec![]);
        },
    );
    #[repr(C)]
    #[derive(Copy, Clone, Debug, PartialEq)]
    struct P {
        a: u8,
        b: [f32; 3],
        c: f64,
    }
    let mut xs: Vec<P> = (0..4)
        .map(|k| P {
            a: k as u8,
            b: [1.0, 2.0, 3.0],
            c: 10.0 * k as f64,
        })
        .collect();
    let mut o = vec![0f64; 4];
    let p = P {
        a: 1,
        b: [0.0, 0.5, 0.0],
        c: 100.0,
    };
    run(
        &m,
        4,
        &[
            bytes_of(p),
            Arg::Array(desc(&mut xs)),
            Arg::Array(desc(&mut o)),
        ],
    );
    for k in 0..4 {
        assert_eq!(o[k], 100.5 + 10.0 * k as f64 + k as f64);
        assert_eq!(xs[k].b, [1.0, 2.0, 9.0]);
        assert_eq!(xs[k].a, k as u8);
    }
}

#[test]
fn atomics_race_correctly_on_two_threads() {
    let m = kernel_module(
        &[
            ("ci", arr1(Scalar::I32)),
            ("cf", arr1(Scalar::F32)),
            ("cd", arr1(Scalar::F64)),
            ("mx", arr1(Scalar::F32)),
            ("mn", arr1(Scalar::I64)),
            ("v", arr(ElemType::Vec(3, Scalar::F32), 1)),
        ],
        |b, p| {
            let i = b.thread_id();
            let z = b.iconst(Scalar::I32, 0);
            let one = b.iconst(Scalar::I32, 1);
            b.atomic(AtomicOp::Add, at(p[0], z), one);
            let onef = b.fconst(Scalar::F32, 1.0);
            b.atomic(AtomicOp::Add, at(p[1], z), onef);
            let half = b.fconst(Scalar::F64, 0.5);
            b.atomic(AtomicOp::Sub, at(p[2], z), half);
            let fi = b.cast(i, Scalar::F32);
            b.atomic(AtomicOp::Max, at(p[3], z), fi);
            let li = b.cast(i, Scalar::I64);
            let nli = b.unary(UnaryOp::Neg, li);
            b.atomic(AtomicOp::Min, at(p[4], z), nli);
            let two = b.fconst(Scalar::F32, 2.0);
            let vv = b.make(Type::Vec(3, Scalar::F32), vec![onef, two, fi]);
            b.atomic(AtomicOp::Add, at(p[5], z), vv);
            b.return_(vec![]);
        },
    );
    let n: i64 = 200_000;
    let mut ci = vec![0i32];
    let mut cf = vec![0f32];
    let mut cd = vec![0f64];
    let mut mx = vec![f32::NEG_INFINITY];
    let mut mn = vec![0i64];
    let mut v = vec![[0f32; 3]];
    let art = compile_checked(&m);
    let k = art.kernel("k").unwrap();
    let block = pack(
        &m,
        "k",
        [2 * n as i32, 1, 1, 1],
        &[
            Arg::Array(desc(&mut ci)),
            Arg::Array(desc(&mut cf)),
            Arg::Array(desc(&mut cd)),
            Arg::Array(desc(&mut mx)),
            Arg::Array(desc(&mut mn)),
            Arg::Array(desc(&mut v)),
        ],
    );
    let block = &block;
    std::thread::scope(|s| {
        for t in 0..2 {
            s.spawn(move || {
                // SAFETY: the block matches the kernel; every write to the
                // shared arrays is atomic; the arrays outlive the scope.
                unsafe { (k.entry)(block.ptr(), t * n, (t + 1) * n) };
            });
        }
    });
    assert_eq!(ci[0], 2 * n as i32);
    assert_eq!(cf[0], (2 * n) as f32);
    assert_eq!(cd[0], -(n as f64));
    assert_eq!(mx[0], (2 * n - 1) as f32);
    assert_eq!(mn[0], -(2 * n - 1));
    assert_eq!(v[0][0], (2 * n) as f32);
    assert_eq!(v[0][1], (4 * n) as f32);
}

#[test]
fn calls_to_funcs() {
    let mut m = weft_ir::Module::new();
    let v3 = Type::Vec(3, Scalar::F32);
    // func scale(x: vec3, s: f32) -> (vec3, f32): (x*s, x.x + x.y + x.z)
    let mut f = Function::new(
        "scale",
        FuncKind::Func,
        vec![
            Param {
                name: "x".into(),
                ty: v3,
            },
            Param {
                name: "s".into(),
                ty: Type::F32,
            },
        ],
        vec![v3, Type::F32],
    );
    let pv = f.param_values().to_vec();
    {
        let mut b = FuncBuilder::new(&mut f, &m.structs);
        let mut parts = vec![];
        let mut sum = b.fconst(Scalar::F32, 0.0);
        for k in 0..3 {
            let c = b.extract(pv[0], vec![k]);
            parts.push(b.binary(BinaryOp::Mul, c, pv[1]));
            sum = b.binary(BinaryOp::Add, sum, c);
        }
        let r = b.make(v3, parts);
        b.return_(vec![r, sum]);
    }
    let fid = m.funcs.push(f);
    add_kernel(
        &mut m,
        "k",
        &[
            ("xs", arr(ElemType::Vec(3, Scalar::F32), 1)),
            ("o", arr1(Scalar::F32)),
        ],
        |b, p| {
            let i = b.thread_id();
            let x = b.load(at(p[0], i));
            let s = b.fconst(Scalar::F32, 2.0);
            let c = b.call(fid, vec![x, s], &[v3, Type::F32]);
            let rs = b.func.results(c).to_vec();
            b.store(at(p[0], i), rs[0]);
            b.store(at(p[1], i), rs[1]);
            b.return_(vec![]);
        },
    );
    // The call goes through the callee's 64-bit address, never a 32-bit
    // PC-relative one (the JIT maps code chunks independently; see
    // `FnTx::import_func`).
    let info = weft_ir::verify::verify_module(&m).expect("verifies");
    let text = emit_text(&m, &info, &Options::default()).expect("clif");
    assert!(text.contains("call fn0"), "{text}");
    assert!(!text.contains("colocated"), "{text}");
    let mut xs = vec![[1f32, 2.0, 3.0], [-1.0, 0.5, 4.0]];
    let mut o = vec![0f32; 2];
    run(
        &m,
        2,
        &[Arg::Array(desc(&mut xs)), Arg::Array(desc(&mut o))],
    );
    assert_eq!(xs, vec![[2.0, 4.0, 6.0], [-2.0, 1.0, 8.0]]);
    assert_eq!(o, vec![6.0, 3.5]);
}

#[test]
fn print_runs() {
    let m = kernel_module(&[("x", Type::F32)], |b, p| {
        let i = b.thread_id();
        let v = b.make(Type::Vec(2, Scalar::F32), vec![p[0], p[0]]);
        b.print("thread %d x=%f v=(%g, %g)\n", vec![i, p[0], v]);
        b.return_(vec![]);
    });
    run(&m, 2, &[bytes_of(1.5f32)]);
}

#[test]
fn emit_clif_and_opt_none() {
    let m = kernel_module(&[("x", arr1(Scalar::F32))], |b, p| {
        let i = b.thread_id();
        let x = b.load(at(p[0], i));
        let y = b.unary(UnaryOp::Sin, x);
        b.store(at(p[0], i), y);
        b.return_(vec![]);
    });
    let text = emit_text(
        &m,
        &weft_ir::verify::verify_module(&m).expect("verifies"),
        &Options::default(),
    )
    .unwrap();
    assert!(text.contains("function") && text.contains("call"), "{text}");
    let art = compile(
        &m,
        &weft_ir::verify::verify_module(&m).expect("verifies"),
        &Options {
            opt_level: OptLevel::O0,
            verify: true,
            ..Options::default()
        },
    )
    .unwrap();
    let mut x = vec![1.0f32, 2.0];
    let block = pack(&m, "k", [2, 1, 1, 1], &[Arg::Array(desc(&mut x))]);
    // SAFETY: block matches the kernel; `x` outlives the call.
    unsafe { (art.kernel("k").unwrap().entry)(block.ptr(), 0, 2) };
    assert_eq!(x, vec![1f32.sin(), 2f32.sin()]);
    assert!(art.kernel("nope").is_none());
}

#[test]
fn errors_not_panics() {
    // sin of an integer is unsupported
    let m = kernel_module(&[("x", arr1(Scalar::I32))], |b, p| {
        let i = b.thread_id();
        let x = b.load(at(p[0], i));
        let y = b.unary(UnaryOp::Sin, x);
        b.store(at(p[0], i), y);
        b.return_(vec![]);
    });
    assert!(matches!(
        compile(&m, &weft_ir::ModuleInfo::of(&m), &Options::default()),
        Err(Error::Unsupported { .. })
    ));
    // a body without a terminator is invalid
    let m = kernel_module(&[("x", arr1(Scalar::I32))], |b, _| {
        b.thread_id();
    });
    assert!(matches!(
        compile(&m, &weft_ir::ModuleInfo::of(&m), &Options::default()),
        Err(Error::Invalid { .. })
    ));
}

#[test]
fn nbody_matches_plain_rust_exactly() {
    let m = nbody::nbody_module();
    let art = compile_checked(&m);
    let k = art.kernel("nbody_step").unwrap();
    let n = 300usize;
    let mut pos: Vec<[f32; 3]> = (0..n)
        .map(|i| {
            let t = i as f32;
            [(t * 0.37).sin() * 10.0, (t * 0.11).cos() * 5.0, t * 0.01]
        })
        .collect();
    let mut vel: Vec<[f32; 3]> = (0..n).map(|i| [0.0, i as f32 * 0.001, -0.5]).collect();
    let mut mass: Vec<f32> = (0..n).map(|i| 1.0 + (i % 7) as f32).collect();
    let mut np = vec![[0f32; 3]; n];
    let mut nv = vec![[0f32; 3]; n];
    let (dt, grav, eps2) = (0.01f32, 0.5f32, 0.01f32);
    let want: Vec<_> = (0..n)
        .map(|i| nbody::nbody_ref(i, &pos, &vel, &mass, dt, grav, eps2))
        .collect();
    let block = pack(
        &m,
        "nbody_step",
        [n as i32, 1, 1, 1],
        &[
            Arg::Array(desc(&mut pos)),
            Arg::Array(desc(&mut vel)),
            Arg::Array(desc(&mut mass)),
            Arg::Array(desc(&mut np)),
            Arg::Array(desc(&mut nv)),
            bytes_of(n as i32),
            bytes_of(dt),
            bytes_of(grav),
            bytes_of(eps2),
        ],
    );
    // SAFETY: block matches the kernel; the arrays outlive the call.
    unsafe { (k.entry)(block.ptr(), 0, n as i64) };
    for i in 0..n {
        assert_eq!((np[i], nv[i]), want[i], "body {i}");
    }
}

/// Code after an `if` whose branches both leave (its merge block is
/// unreachable) and a loop that only returns (its exit is unreachable).
#[test]
fn unreachable_merge_and_exit_blocks() {
    let m = kernel_module(&[("o", arr1(Scalar::I32))], |b, p| {
        let i = b.thread_id();
        let three = b.iconst(Scalar::I32, 3);
        let small = b.binary(BinaryOp::Lt, i, three);
        let (_, t, e) = b.if_(small, &[Type::I32]);
        b.switch_to(t);
        let (_, body, params) = b.loop_(vec![i], &[Type::I32]);
        b.switch_to(body);
        let ten = b.iconst(Scalar::I32, 10);
        let x = b.binary(BinaryOp::Add, params[0], ten);
        b.store(at(p[0], i), x);
        b.return_(vec![]);
        b.switch_to(t);
        b.return_(vec![]);
        b.switch_to(e);
        b.store(at(p[0], i), i);
        b.return_(vec![]);
        b.switch_to(b.func.body);
        let r = b
            .func
            .results(b.func.regions[b.func.body].insts[3])
            .to_vec();
        b.store(at(p[0], i), r[0]);
        b.return_(vec![]);
    });
    let mut o = vec![0i32; 5];
    run(&m, 5, &[Arg::Array(desc(&mut o))]);
    assert_eq!(o, vec![10, 11, 12, 3, 4]);
}

/// Division and remainder of the same operands share one division, but
/// never across regions that do not dominate each other.
#[test]
fn div_and_rem_share_a_division_only_where_it_dominates() {
    let m = kernel_module(
        &[("q", arr1(Scalar::I32)), ("r", arr1(Scalar::I32))],
        |b, p| {
            let i = b.thread_id();
            let five = b.iconst(Scalar::I32, 5);
            let a = b.binary(BinaryOp::Add, i, five);
            let three = b.iconst(Scalar::I32, 3);
            let two = b.iconst(Scalar::I32, 2);
            let c = b.binary(BinaryOp::Lt, i, two);
            let (_, t, e) = b.if_(c, &[]);
            b.switch_to(t);
            let r = b.binary(BinaryOp::Rem, a, three);
            b.store(at(p[1], i), r);
            b.yield_(vec![]);
            b.switch_to(e);
            b.yield_(vec![]);
            b.switch_to(b.func.body);
            let q = b.binary(BinaryOp::Div, a, three);
            b.store(at(p[0], i), q);
            let r = b.binary(BinaryOp::Rem, a, three);
            let r2 = b.binary(BinaryOp::Mul, r, two);
            let q2 = b.binary(BinaryOp::Add, q, r2);
            b.store(at(p[0], i), q2);
            b.return_(vec![]);
        },
    );
    let mut q = vec![0i32; 4];
    let mut r = vec![-1i32; 4];
    run(&m, 4, &[Arg::Array(desc(&mut q)), Arg::Array(desc(&mut r))]);
    assert_eq!(r, vec![2, 0, -1, -1]);
    assert_eq!(
        q,
        (0..4)
            .map(|i| (i + 5) / 3 + 2 * ((i + 5) % 3))
            .collect::<Vec<i32>>()
    );
}

/// The unit-stride version (unrolled) and the general version of the
/// thread loop compute the same thing, over every small sub-range.
#[test]
fn strided_and_contiguous_arrays_over_all_subranges() {
    let m = kernel_module(
        &[
            ("a", Type::F32),
            ("x", arr1(Scalar::F32)),
            ("y", arr1(Scalar::F32)),
        ],
        |b, p| {
            let i = b.thread_id();
            let x = b.load(at(p[1], i));
            let y = b.load(at(p[2], i));
            let ax = b.binary(BinaryOp::Mul, p[0], x);
            let r = b.binary(BinaryOp::Add, ax, y);
            b.store(at(p[2], i), r);
            b.return_(vec![]);
        },
    );
    let art = compile_checked(&m);
    let k = art.kernel("k").unwrap();
    let n = 11usize;
    for start in 0..n {
        for end in start..=n {
            for x_stride in [1usize, 2] {
                // x read with stride `x_stride` (in elements) from a wider buffer
                let mut xbuf: Vec<f32> = (0..n * 2).map(|v| v as f32).collect();
                let mut y: Vec<f32> = (0..n).map(|v| 100.0 + v as f32).collect();
                let xd = ArrayDesc {
                    data: xbuf.as_mut_ptr() as *mut u8,
                    shape: [n as i32, 1, 1, 1],
                    strides: [(4 * x_stride) as i64, 0, 0, 0],
                };
                let block = pack(
                    &m,
                    "k",
                    [n as i32, 1, 1, 1],
                    &[bytes_of(2.0f32), Arg::Array(xd), Arg::Array(desc(&mut y))],
                );
                // SAFETY: block matches the kernel; buffers outlive the call.
                unsafe { (k.entry)(block.ptr(), start as i64, end as i64) };
                for (t, yv) in y.iter().enumerate() {
                    let want = if (start..end).contains(&t) {
                        2.0 * xbuf[t * x_stride] + 100.0 + t as f32
                    } else {
                        100.0 + t as f32
                    };
                    assert_eq!(
                        *yv, want,
                        "range {start}..{end}, x stride {x_stride}, thread {t}"
                    );
                }
            }
        }
    }
}

#[test]
fn artifact_is_send_and_sync_and_usable_from_other_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<weft_backend_cpu::Artifact>();
    let m = kernel_module(&[("o", arr1(Scalar::I32))], |b, p| {
        let i = b.thread_id();
        b.store(at(p[0], i), i);
        b.return_(vec![]);
    });
    let art = std::sync::Arc::new(compile_checked(&m));
    let mut o = vec![0i32; 8];
    let block = pack(&m, "k", [8, 1, 1, 1], &[Arg::Array(desc(&mut o))]);
    let a2 = art.clone();
    let bp = block.ptr() as usize;
    std::thread::spawn(move || {
        let k = a2.kernel("k").unwrap();
        // SAFETY: the block matches the kernel; `o` outlives the join.
        unsafe { (k.entry)(bp as *const u8, 0, 8) };
    })
    .join()
    .unwrap();
    assert_eq!(o, (0..8).collect::<Vec<i32>>());
    assert_eq!(art.kernel_names().collect::<Vec<_>>(), vec!["k"]);
}

/// Threads run in order even where arrays overlap at different bases (the
/// SIMD stage steps aside): `y[i] = x[i] + 1` with `y` = `x` shifted by one
/// element cascades.
#[test]
fn overlapping_views_run_threads_in_order() {
    let m = kernel_module(
        &[("x", arr1(Scalar::F32)), ("y", arr1(Scalar::F32))],
        |b, p| {
            let i = b.thread_id();
            let x = b.load(at(p[0], i));
            let one = b.fconst(Scalar::F32, 1.0);
            let r = b.binary(BinaryOp::Add, x, one);
            b.store(at(p[1], i), r);
            b.return_(vec![]);
        },
    );
    let n = 37usize;
    let mut buf = vec![0f32; n + 1];
    let base = buf.as_mut_ptr();
    let x = ArrayDesc {
        data: base as *mut u8,
        shape: [n as i32, 1, 1, 1],
        strides: [4, 0, 0, 0],
    };
    // SAFETY: one element past the start, `n` elements: inside `buf`.
    let y = ArrayDesc {
        data: unsafe { base.add(1) } as *mut u8,
        ..x
    };
    run(&m, n as i32, &[Arg::Array(x), Arg::Array(y)]);
    assert_eq!(buf, (0..=n).map(|k| k as f32).collect::<Vec<_>>());
    // Disjoint arrays still take the vector path and agree.
    let mut a: Vec<f32> = (0..n).map(|k| k as f32).collect();
    let mut c = vec![0f32; n];
    run(
        &m,
        n as i32,
        &[Arg::Array(desc(&mut a)), Arg::Array(desc(&mut c))],
    );
    assert_eq!(c, (1..=n).map(|k| k as f32).collect::<Vec<_>>());
}

/// The frontend's thread-index decomposition (`if dims[1]*dims[2]*dims[3]
/// == 1 { tid } else { tid / ... }`) folds away in the SIMD stage of a 1-D
/// launch; a 2-D launch of the same kernel takes the scalar loops.
#[test]
fn tid_decomposition_vectorizes_for_1d_launches_only() {
    let m = kernel_module(
        &[("x", arr1(Scalar::F32)), ("o", arr1(Scalar::F32))],
        |b, p| {
            let t = b.thread_id();
            let d1 = b.launch_dim(1);
            let d2 = b.launch_dim(2);
            let m12 = b.binary(BinaryOp::Mul, d1, d2);
            let d3 = b.launch_dim(3);
            let m123 = b.binary(BinaryOp::Mul, m12, d3);
            let one = b.iconst(Scalar::I32, 1);
            let c = b.binary(BinaryOp::Eq, m123, one);
            let (iff, th, el) = b.if_(c, &[Type::I32]);
            b.switch_to(th);
            b.yield_(vec![t]);
            b.switch_to(el);
            let q = b.binary(BinaryOp::Div, t, m123);
            b.yield_(vec![q]);
            b.switch_to(b.func.body);
            let i = b.func.results(iff)[0];
            let x = b.load(at(p[0], i));
            let two = b.fconst(Scalar::F32, 2.0);
            let onef = b.fconst(Scalar::F32, 1.0);
            let y = b.binary(BinaryOp::Mul, two, x);
            let y = b.binary(BinaryOp::Add, y, onef);
            b.store(at(p[1], i), y);
            b.return_(vec![]);
        },
    );
    let clif = emit_text(
        &m,
        &weft_ir::verify::verify_module(&m).expect("verifies"),
        &Options::default(),
    )
    .unwrap();
    assert!(clif.contains("f32x4"), "expected a SIMD stage:\n{clif}");
    let art = compile_checked(&m);
    let k = art.kernel("k").unwrap();
    let n = 23usize;
    let mut x: Vec<f32> = (0..n).map(|v| v as f32 * 0.5).collect();
    let mut o = vec![-1f32; n];
    let block = pack(
        &m,
        "k",
        [n as i32, 1, 1, 1],
        &[Arg::Array(desc(&mut x)), Arg::Array(desc(&mut o))],
    );
    // SAFETY: block matches the kernel; buffers outlive the call.
    unsafe { (k.entry)(block.ptr(), 0, n as i64) };
    assert_eq!(o, x.iter().map(|v| 2.0 * v + 1.0).collect::<Vec<_>>());
    let mut o = vec![-1f32; n];
    let block = pack(
        &m,
        "k",
        [2, 12, 1, 1],
        &[Arg::Array(desc(&mut x)), Arg::Array(desc(&mut o))],
    );
    // SAFETY: as above; 24 threads write o[0] and o[1] only.
    unsafe { (k.entry)(block.ptr(), 0, 24) };
    let mut want = vec![-1f32; n];
    want[0] = 1.0;
    want[1] = 2.0;
    assert_eq!(o, want);
}
