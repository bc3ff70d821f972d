//! Tests of the reference interpreter on functions built with `FuncBuilder`.

use weft_ir::interp::{run_kernel, ArgValue, InterpError, InterpOptions};
use weft_ir::verify::verify_module;
use weft_ir::*;

const OPTS: InterpOptions = InterpOptions {
    print: false,
    deadline: None,
};

fn arr(elem: ElemType, ndim: u8) -> Type {
    Type::Array(ArrayType { elem, ndim })
}

fn arr1(s: Scalar) -> Type {
    arr(ElemType::Scalar(s), 1)
}

/// Adds a function to `m`, building its body with `build(builder, params)`.
fn add_func(
    m: &mut Module,
    name: &str,
    kind: FuncKind,
    params: &[(&str, Type)],
    returns: &[Type],
    build: impl FnOnce(&mut FuncBuilder, &[Value]),
) -> FuncId {
    let ps = params
        .iter()
        .map(|(n, t)| Param {
            name: n.to_string(),
            ty: *t,
        })
        .collect();
    let mut f = Function::new(name, kind, ps, returns.to_vec());
    let file = m.file_index("test.py");
    {
        let mut b = FuncBuilder::new(&mut f, &m.structs);
        b.set_loc(Loc::new(file, 7, 3));
        let vs = b.func.param_values().to_vec();
        build(&mut b, &vs);
    }
    m.funcs.push(f)
}

fn kernel(
    m: &mut Module,
    params: &[(&str, Type)],
    build: impl FnOnce(&mut FuncBuilder, &[Value]),
) -> FuncId {
    let k = add_func(m, "k", FuncKind::Kernel, params, &[], build);
    if let Err(e) = verify_module(m) {
        panic!("test module does not verify: {e}");
    }
    k
}

fn at(a: Value, i: Value) -> MemAccess {
    MemAccess {
        array: a,
        indices: vec![i],
        path: vec![],
    }
}

/// A typed host array: bytes plus a 1-D shape.
struct Host {
    bytes: Vec<u8>,
    elem_size: usize,
}

impl Host {
    fn new<T: Copy, const N: usize>(xs: &[T], enc: impl Fn(T) -> [u8; N]) -> Host {
        Host {
            bytes: xs.iter().flat_map(|&x| enc(x)).collect(),
            elem_size: N,
        }
    }
    fn f32s(xs: &[f32]) -> Host {
        Host::new(xs, f32::to_le_bytes)
    }
    fn i32s(xs: &[i32]) -> Host {
        Host::new(xs, i32::to_le_bytes)
    }
    /// Views the data as elements of `n` components each (vec3: 3).
    fn grouped(mut self, n: usize) -> Host {
        self.elem_size *= n;
        self
    }
    fn arg(&mut self) -> ArgValue<'_> {
        let n = (self.bytes.len() / self.elem_size) as i32;
        ArgValue::Array {
            data: &mut self.bytes,
            shape: [n, 1, 1, 1],
            strides: [self.elem_size as i64, 0, 0, 0],
        }
    }
    fn to_f32(&self) -> Vec<f32> {
        self.bytes
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    fn to_i32(&self) -> Vec<i32> {
        self.bytes
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
}

#[test]
fn int_division_and_remainder_signs() {
    let mut m = Module::new();
    let i32a = arr1(Scalar::I32);
    let k = kernel(
        &mut m,
        &[("a", i32a), ("b", i32a), ("q", i32a), ("r", i32a)],
        |b, p| {
            let t = b.thread_id();
            let x = b.load(at(p[0], t));
            let y = b.load(at(p[1], t));
            let q = b.binary(BinaryOp::Div, x, y);
            let r = b.binary(BinaryOp::Rem, x, y);
            b.store(at(p[2], t), q);
            b.store(at(p[3], t), r);
            b.return_(vec![]);
        },
    );
    let xs = [7, -7, 7, -7, 5, i32::MIN, i32::MIN, 0];
    let ys = [2, 2, -2, -2, 0, -1, 1, 3];
    let (mut a, mut bb) = (Host::i32s(&xs), Host::i32s(&ys));
    let (mut q, mut r) = (Host::i32s(&[99; 8]), Host::i32s(&[99; 8]));
    let mut args = [a.arg(), bb.arg(), q.arg(), r.arg()];
    run_kernel(&m, k, &[8], &mut args, &OPTS).unwrap();
    assert_eq!(q.to_i32(), [3, -3, -3, 3, 0, i32::MIN, i32::MIN, 0]);
    assert_eq!(r.to_i32(), [1, -1, 1, -1, 0, 0, 0, 0]);
}

#[test]
fn casts_shifts_and_wrapping() {
    let mut m = Module::new();
    let fa = arr1(Scalar::F32);
    let ia = arr1(Scalar::I32);
    let k = kernel(&mut m, &[("x", fa), ("out", ia)], |b, p| {
        let t = b.thread_id();
        let x = b.load(at(p[0], t));
        let w = b.iconst(Scalar::I32, 8);
        let base = b.binary(BinaryOp::Mul, t, w);
        let mut slot = 0;
        let mut put = |b: &mut FuncBuilder, v: Value| {
            let off = b.iconst(Scalar::I32, slot);
            let ix = b.binary(BinaryOp::Add, base, off);
            let v = if b.ty(v) == Type::I32 {
                v
            } else {
                b.cast(v, Scalar::I32)
            };
            b.store(at(p[1], ix), v);
            slot += 1;
        };
        let as_i32 = b.cast(x, Scalar::I32);
        put(b, as_i32);
        let as_u8 = b.cast(x, Scalar::U8);
        put(b, as_u8);
        let as_i8 = b.cast(as_i32, Scalar::I8);
        put(b, as_i8);
        let one = b.iconst(Scalar::I32, 1);
        let sh = b.iconst(Scalar::I32, 33);
        let shl = b.binary(BinaryOp::Shl, one, sh);
        put(b, shl);
        let two = b.iconst(Scalar::I32, 2);
        let sar = b.binary(BinaryOp::Shr, as_i32, two);
        put(b, sar);
        let as_u32 = b.cast(as_i32, Scalar::U32);
        let u2 = b.iconst(Scalar::U32, 28);
        let shr = b.binary(BinaryOp::Shr, as_u32, u2);
        put(b, shr);
        let big = b.iconst(Scalar::I32, i32::MAX as i64);
        let wrapped = b.binary(BinaryOp::Add, big, as_i32);
        put(b, wrapped);
        let d = b.cast(x, Scalar::F64);
        let back = b.cast(d, Scalar::F32);
        let eq = b.binary(BinaryOp::Eq, back, x);
        put(b, eq);
        b.return_(vec![]);
    });
    let xs = [-3.9f32, 300.7, f32::NAN, 5e9];
    let mut x = Host::f32s(&xs);
    let mut out = Host::i32s(&[0; 32]);
    let mut args = [x.arg(), out.arg()];
    run_kernel(&m, k, &[4], &mut args, &OPTS).unwrap();
    let o = out.to_i32();
    assert_eq!(
        &o[0..8],
        &[-3, 0, -3, 2, -1, 15, i32::MAX.wrapping_add(-3), 1]
    );
    assert_eq!(
        &o[8..16],
        &[300, 255, 44, 2, 75, 0, i32::MAX.wrapping_add(300), 1]
    );
    assert_eq!(&o[16..24], &[0, 0, 0, 2, 0, 0, i32::MAX, 0]);
    assert_eq!(&o[24..32], &[i32::MAX, 255, -1, 2, i32::MAX >> 2, 7, -2, 1]);
}

#[test]
fn f16_round_trip_and_arithmetic() {
    let mut m = Module::new();
    let ha = arr1(Scalar::F16);
    let k = kernel(&mut m, &[("x", ha), ("y", ha)], |b, p| {
        let t = b.thread_id();
        let x = b.load(at(p[0], t));
        let c = b.fconst(Scalar::F16, 1.0);
        // (x + 1) - x: 0 when x + 1 rounds back to x in f16.
        let s = b.binary(BinaryOp::Add, x, c);
        let s = b.binary(BinaryOp::Sub, s, x);
        b.store(at(p[1], t), s);
        b.return_(vec![]);
    });
    let xs: Vec<u16> = [0.5f32, 2048.0, -1.0, 65504.0]
        .iter()
        .map(|&v| f16::f32_to_f16(v))
        .collect();
    let mut x = Host::new(&xs, u16::to_le_bytes);
    let mut y = Host::new(&[0u16; 4], u16::to_le_bytes);
    let mut args = [x.arg(), y.arg()];
    run_kernel(&m, k, &[4], &mut args, &OPTS).unwrap();
    let ys: Vec<f32> = y
        .bytes
        .chunks(2)
        .map(|c| f16::f16_to_f32(u16::from_le_bytes([c[0], c[1]])))
        .collect();
    // 2049 and 65505 are not f16 numbers: the sums round back (ties to even).
    assert_eq!(ys, [1.0, 0.0, 1.0, 0.0]);
}

/// `s = 0; for i in 0..n { if i % 3 == 0 { continue } ; s += i; if s > limit { break } }`
/// carrying (i, s) through the loop and returning (i, s) as the results.
#[test]
fn loop_with_break_and_continue_carries_values() {
    let mut m = Module::new();
    let ia = arr1(Scalar::I32);
    let k = kernel(&mut m, &[("lim", ia), ("out", ia)], |b, p| {
        let t = b.thread_id();
        let limit = b.load(at(p[0], t));
        let zero = b.iconst(Scalar::I32, 0);
        let n = b.iconst(Scalar::I32, 20);
        let (lp, body, params) = b.loop_(vec![zero, zero], &[Type::I32, Type::I32]);
        let outer = b.region();
        b.switch_to(body);
        let (i, s) = (params[0], params[1]);
        let done = b.binary(BinaryOp::Ge, i, n);
        let (_, th, el) = b.if_(done, &[]);
        b.switch_to(th);
        b.break_(vec![i, s]);
        b.switch_to(el);
        b.yield_(vec![]);
        b.switch_to(body);
        let one = b.iconst(Scalar::I32, 1);
        let i1 = b.binary(BinaryOp::Add, i, one);
        let three = b.iconst(Scalar::I32, 3);
        let r = b.binary(BinaryOp::Rem, i, three);
        let skip = b.binary(BinaryOp::Eq, r, zero);
        let (_, th, el) = b.if_(skip, &[]);
        b.switch_to(th);
        b.continue_(vec![i1, s]);
        b.switch_to(el);
        b.yield_(vec![]);
        b.switch_to(body);
        let s1 = b.binary(BinaryOp::Add, s, i);
        let over = b.binary(BinaryOp::Gt, s1, limit);
        let (_, th, el) = b.if_(over, &[]);
        b.switch_to(th);
        b.break_(vec![i, s1]);
        b.switch_to(el);
        b.yield_(vec![]);
        b.switch_to(body);
        b.continue_(vec![i1, s1]);
        b.switch_to(outer);
        let res = b.func.results(lp).to_vec();
        let two = b.iconst(Scalar::I32, 2);
        let o0 = b.binary(BinaryOp::Mul, t, two);
        let one_out = one_of(b);
        let o1 = b.binary(BinaryOp::Add, o0, one_out);
        b.store(at(p[1], o0), res[0]);
        b.store(at(p[1], o1), res[1]);
        b.return_(vec![]);
    });
    fn one_of(b: &mut FuncBuilder) -> Value {
        b.iconst(Scalar::I32, 1)
    }
    let limits = [10, 1000, 0];
    let mut l = Host::i32s(&limits);
    let mut out = Host::i32s(&[0; 6]);
    let mut args = [l.arg(), out.arg()];
    run_kernel(&m, k, &[3], &mut args, &OPTS).unwrap();
    let reference = |limit: i32| {
        let (mut i, mut s) = (0, 0);
        while i < 20 {
            if i % 3 == 0 {
                i += 1;
                continue;
            }
            s += i;
            if s > limit {
                return (i, s);
            }
            i += 1;
        }
        (i, s)
    };
    let want: Vec<i32> = limits
        .iter()
        .flat_map(|&l| {
            let (i, s) = reference(l);
            [i, s]
        })
        .collect();
    assert_eq!(out.to_i32(), want);
    assert_eq!(&want[..2], &[5, 12]);
}

/// Nested ifs yielding a vec3; the result is written as a whole element.
#[test]
fn nested_ifs_yield_aggregates() {
    let mut m = Module::new();
    let v3 = Type::Vec(3, Scalar::F32);
    let va = arr(ElemType::Vec(3, Scalar::F32), 1);
    let k = kernel(&mut m, &[("x", arr1(Scalar::F32)), ("out", va)], |b, p| {
        let t = b.thread_id();
        let x = b.load(at(p[0], t));
        let zero = b.fconst(Scalar::F32, 0.0);
        let pos = b.binary(BinaryOp::Gt, x, zero);
        let (outer_if, th, el) = b.if_(pos, &[v3]);
        let top = b.region();
        b.switch_to(th);
        let ten = b.fconst(Scalar::F32, 10.0);
        let big = b.binary(BinaryOp::Gt, x, ten);
        let (inner_if, th2, el2) = b.if_(big, &[v3]);
        let mid = b.region();
        b.switch_to(th2);
        let v = b.make(v3, vec![x, x, x]);
        b.yield_(vec![v]);
        b.switch_to(el2);
        let v = b.make(v3, vec![x, zero, zero]);
        b.yield_(vec![v]);
        b.switch_to(mid);
        let r = b.func.first_result(inner_if).unwrap();
        let y = b.extract(r, vec![0]);
        let y2 = b.binary(BinaryOp::Add, y, y);
        let r2 = b.insert(r, vec![2], y2);
        b.yield_(vec![r2]);
        b.switch_to(el);
        let neg = b.unary(UnaryOp::Neg, x);
        let v = b.make(v3, vec![zero, neg, zero]);
        b.yield_(vec![v]);
        b.switch_to(top);
        let r = b.func.first_result(outer_if).unwrap();
        b.store(at(p[1], t), r);
        b.return_(vec![]);
    });
    let mut x = Host::f32s(&[20.0, 3.0, -4.0]);
    let mut out = Host::f32s(&[-1.0; 9]).grouped(3);
    let mut args = [x.arg(), out.arg()];
    run_kernel(&m, k, &[3], &mut args, &OPTS).unwrap();
    assert_eq!(
        out.to_f32(),
        [20.0, 20.0, 40.0, 3.0, 0.0, 6.0, 0.0, 4.0, 0.0]
    );
}

/// A func returning two values (quotient and remainder via floats), with an
/// early return, called from the kernel.
#[test]
fn call_with_two_results_and_early_return() {
    let mut m = Module::new();
    let divmod = add_func(
        &mut m,
        "divmod",
        FuncKind::Func,
        &[("a", Type::I32), ("b", Type::I32)],
        &[Type::I32, Type::I32],
        |b, p| {
            let zero = b.iconst(Scalar::I32, 0);
            let isz = b.binary(BinaryOp::Eq, p[1], zero);
            let (_, th, el) = b.if_(isz, &[]);
            let top = b.region();
            b.switch_to(th);
            let m1 = b.iconst(Scalar::I32, -1);
            b.return_(vec![m1, m1]);
            b.switch_to(el);
            b.yield_(vec![]);
            b.switch_to(top);
            let q = b.binary(BinaryOp::Div, p[0], p[1]);
            let r = b.binary(BinaryOp::Rem, p[0], p[1]);
            b.return_(vec![q, r]);
        },
    );
    let ia = arr1(Scalar::I32);
    let k = kernel(&mut m, &[("a", ia), ("out", ia)], |b, p| {
        let t = b.thread_id();
        let x = b.load(at(p[0], t));
        let d = b.iconst(Scalar::I32, 4);
        let c = b.call(divmod, vec![x, d], &[Type::I32, Type::I32]);
        let z = b.iconst(Scalar::I32, 0);
        let c0 = b.call(divmod, vec![x, z], &[Type::I32, Type::I32]);
        let rs = b.func.results(c).to_vec();
        let rz = b.func.results(c0).to_vec();
        let three = b.iconst(Scalar::I32, 3);
        let base = b.binary(BinaryOp::Mul, t, three);
        let one = b.iconst(Scalar::I32, 1);
        let b1 = b.binary(BinaryOp::Add, base, one);
        let b2 = b.binary(BinaryOp::Add, b1, one);
        b.store(at(p[1], base), rs[0]);
        b.store(at(p[1], b1), rs[1]);
        b.store(at(p[1], b2), rz[1]);
        b.return_(vec![]);
    });
    let mut a = Host::i32s(&[9, -9]);
    let mut out = Host::i32s(&[0; 6]);
    let mut args = [a.arg(), out.arg()];
    run_kernel(&m, k, &[2], &mut args, &OPTS).unwrap();
    assert_eq!(out.to_i32(), [2, 1, -1, -2, -1, -1]);
}

#[test]
fn atomics_on_scalars_and_aggregates() {
    let mut m = Module::new();
    let ia = arr1(Scalar::I32);
    let va = arr(ElemType::Vec(3, Scalar::F32), 1);
    let v3 = Type::Vec(3, Scalar::F32);
    let k = kernel(
        &mut m,
        &[
            ("cnt", ia),
            ("olds", ia),
            ("acc", va),
            ("mx", arr1(Scalar::F32)),
        ],
        |b, p| {
            let t = b.thread_id();
            let zero = b.iconst(Scalar::I32, 0);
            let one = b.iconst(Scalar::I32, 1);
            let old = b.atomic(AtomicOp::Add, at(p[0], zero), one);
            b.store(at(p[1], t), old);
            b.atomic(AtomicOp::Max, at(p[0], one), t);
            let two = b.iconst(Scalar::I32, 2);
            b.atomic(AtomicOp::Or, at(p[0], two), t);
            let tf = b.cast(t, Scalar::F32);
            let half = b.fconst(Scalar::F32, 0.5);
            let h = b.binary(BinaryOp::Mul, tf, half);
            let fone = one_f(b);
            let v = b.make(v3, vec![tf, h, fone]);
            b.atomic(AtomicOp::Add, at(p[2], zero), v);
            // A component path: acc[1].y -= t
            b.atomic(
                AtomicOp::Sub,
                MemAccess {
                    array: p[2],
                    indices: vec![one],
                    path: vec![1],
                },
                tf,
            );
            b.atomic(AtomicOp::Min, at(p[3], zero), tf);
            b.return_(vec![]);
        },
    );
    fn one_f(b: &mut FuncBuilder) -> Value {
        b.fconst(Scalar::F32, 1.0)
    }
    let n = 6;
    let mut cnt = Host::i32s(&[0, -5, 0]);
    let mut olds = Host::i32s(&[-1; 6]);
    let mut acc = Host::f32s(&[0.0; 6]).grouped(3);
    let mut mx = Host::f32s(&[f32::NAN]);
    let mut args = [cnt.arg(), olds.arg(), acc.arg(), mx.arg()];
    run_kernel(&m, k, &[n], &mut args, &OPTS).unwrap();
    assert_eq!(cnt.to_i32(), [6, 5, 7]);
    assert_eq!(olds.to_i32(), [0, 1, 2, 3, 4, 5]);
    assert_eq!(acc.to_f32(), [15.0, 7.5, 6.0, 0.0, -15.0, 0.0]);
    // fmin ignores the NaN that was there.
    assert_eq!(mx.to_f32(), [0.0]);
}

#[test]
fn out_of_bounds_is_an_error_and_touches_nothing() {
    let mut m = Module::new();
    let fa = arr1(Scalar::F32);
    let k = kernel(&mut m, &[("y", fa)], |b, p| {
        let t = b.thread_id();
        let two = b.iconst(Scalar::I32, 2);
        let i = b.binary(BinaryOp::Sub, t, two);
        let one = b.fconst(Scalar::F32, 1.0);
        b.store(at(p[0], i), one);
        b.return_(vec![]);
    });
    let mut y = Host::f32s(&[0.0; 4]);
    let mut args = [y.arg()];
    let err = run_kernel(&m, k, &[6], &mut args, &OPTS).unwrap_err();
    assert_eq!(
        err,
        InterpError::OutOfBounds {
            kernel: "k".into(),
            loc: Loc::new(0, 7, 3),
            axis: 0,
            index: -2,
            shape: 4
        }
    );
    assert_eq!(
        y.to_f32(),
        [0.0; 4],
        "thread 0 failed first: nothing was written"
    );
    assert!(err
        .to_string()
        .contains("index -2 is out of bounds for axis 0 with size 4"));
    // The upper bound, on a later axis of a 2-D array.
    let mut m = Module::new();
    let a2 = arr(ElemType::Scalar(Scalar::F32), 2);
    let k = kernel(&mut m, &[("y", a2)], |b, p| {
        let t = b.thread_id();
        let zero = b.iconst(Scalar::I32, 0);
        let v = b.load(MemAccess {
            array: p[0],
            indices: vec![zero, t],
            path: vec![],
        });
        b.store(
            MemAccess {
                array: p[0],
                indices: vec![zero, zero],
                path: vec![],
            },
            v,
        );
        b.return_(vec![]);
    });
    let mut y = Host::f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let mut args = [ArgValue::Array {
        data: &mut y.bytes,
        shape: [2, 3, 1, 1],
        strides: [12, 4, 0, 0],
    }];
    let err = run_kernel(&m, k, &[4], &mut args, &OPTS).unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::OutOfBounds {
                axis: 1,
                index: 3,
                shape: 3,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(y.to_f32(), [3.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // Strides that reach past the buffer are caught too.
    let mut y = Host::f32s(&[1.0; 6]);
    let mut args = [ArgValue::Array {
        data: &mut y.bytes,
        shape: [2, 3, 1, 1],
        strides: [12, 40, 0, 0],
    }];
    let err = run_kernel(&m, k, &[3], &mut args, &OPTS).unwrap_err();
    assert!(
        matches!(
            err,
            InterpError::ArrayMemory {
                offset: 40,
                len: 24,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn bad_arguments_and_launches_are_errors() {
    let mut m = Module::new();
    let k = kernel(
        &mut m,
        &[("y", arr1(Scalar::F32)), ("s", Type::F32)],
        |b, p| {
            let t = b.thread_id();
            b.store(at(p[0], t), p[1]);
            b.return_(vec![]);
        },
    );
    let mut y = Host::f32s(&[0.0; 2]);
    let err = run_kernel(&m, k, &[2], &mut [y.arg()], &OPTS).unwrap_err();
    assert!(matches!(
        err,
        InterpError::ArgCount {
            expected: 2,
            got: 1,
            ..
        }
    ));
    let err = run_kernel(
        &m,
        k,
        &[2],
        &mut [y.arg(), ArgValue::Value(vec![0; 8])],
        &OPTS,
    )
    .unwrap_err();
    assert!(
        matches!(&err, InterpError::BadArg { param, .. } if param == "s"),
        "{err}"
    );
    let err = run_kernel(
        &m,
        k,
        &[2],
        &mut [ArgValue::Value(vec![0; 4]), ArgValue::Value(vec![0; 4])],
        &OPTS,
    )
    .unwrap_err();
    assert!(
        matches!(&err, InterpError::BadArg { param, .. } if param == "y"),
        "{err}"
    );
    let mut z = Host::f32s(&[0.0]);
    let err = run_kernel(&m, k, &[2], &mut [y.arg(), z.arg()], &OPTS).unwrap_err();
    assert!(
        matches!(&err, InterpError::BadArg { param, .. } if param == "s"),
        "{err}"
    );
    for dim in [&[][..], &[1, 1, 1, 1, 1], &[-1], &[65536, 65536]] {
        let err = run_kernel(
            &m,
            k,
            dim,
            &mut [y.arg(), ArgValue::Value(2f32.to_le_bytes().to_vec())],
            &OPTS,
        )
        .unwrap_err();
        assert!(matches!(err, InterpError::BadDim { .. }), "{dim:?}: {err}");
    }
    run_kernel(
        &m,
        k,
        &[2],
        &mut [y.arg(), ArgValue::Value(2.5f32.to_le_bytes().to_vec())],
        &OPTS,
    )
    .unwrap();
    assert_eq!(y.to_f32(), [2.5, 2.5]);
    let err = run_kernel(&m, FuncId::from_u32(9), &[1], &mut [], &OPTS).unwrap_err();
    assert!(matches!(err, InterpError::NotAKernel { .. }));
}

/// A struct by value (with a matrix field), 2-D launch, array shapes.
#[test]
fn struct_params_matrices_and_2d_launch() {
    let mut m = Module::new();
    let m22 = Type::Mat(2, 2, Scalar::F32);
    let sid = m.structs.push(StructDef {
        name: "P".into(),
        fields: vec![
            Field {
                name: "flag".into(),
                ty: Type::Scalar(Scalar::U8),
            },
            Field {
                name: "m".into(),
                ty: m22,
            },
            Field {
                name: "scale".into(),
                ty: Type::F64,
            },
        ],
    });
    let st = Type::Struct(sid);
    let a2 = arr(ElemType::Scalar(Scalar::F32), 2);
    let k = kernel(&mut m, &[("p", st), ("out", a2)], |b, p| {
        let t = b.thread_id();
        let d1 = b.launch_dim(1);
        let i = b.binary(BinaryOp::Div, t, d1);
        let j = b.binary(BinaryOp::Rem, t, d1);
        // out[i, j] = p.m[i][j] * scale + flag + shape(out, 1)
        let mm = b.extract(p[0], vec![1]);
        let row0 = b.extract(mm, vec![0]);
        let row1 = b.extract(mm, vec![1]);
        let zero = b.iconst(Scalar::I32, 0);
        let is0 = b.binary(BinaryOp::Eq, i, zero);
        let row = b.select(is0, row0, row1);
        let e0 = b.extract(row, vec![0]);
        let e1 = b.extract(row, vec![1]);
        let j0 = b.binary(BinaryOp::Eq, j, zero);
        let e = b.select(j0, e0, e1);
        let sc = b.extract(p[0], vec![2]);
        let ed = b.cast(e, Scalar::F64);
        let x = b.binary(BinaryOp::Mul, ed, sc);
        let xf = b.cast(x, Scalar::F32);
        let fl = b.extract(p[0], vec![0]);
        let flf = b.cast(fl, Scalar::F32);
        let sh = b.array_shape(p[1], 1);
        let shf = b.cast(sh, Scalar::F32);
        let y = b.binary(BinaryOp::Add, xf, flf);
        let y = b.binary(BinaryOp::Add, y, shf);
        b.store(
            MemAccess {
                array: p[1],
                indices: vec![i, j],
                path: vec![],
            },
            y,
        );
        b.return_(vec![]);
    });
    // C layout: flag at 0, m at 4..20, scale at 24; size 32.
    assert_eq!(layout::size_of(st, &m.structs), 32);
    let mut bytes = vec![0u8; 32];
    bytes[0] = 3;
    for (n, v) in [1.0f32, 2.0, 3.0, 4.0].iter().enumerate() {
        bytes[4 + 4 * n..8 + 4 * n].copy_from_slice(&v.to_le_bytes());
    }
    bytes[24..32].copy_from_slice(&0.5f64.to_le_bytes());
    let mut out = Host::f32s(&[0.0; 4]);
    let mut args = [
        ArgValue::Value(bytes),
        ArgValue::Array {
            data: &mut out.bytes,
            shape: [2, 2, 1, 1],
            strides: [8, 4, 0, 0],
        },
    ];
    run_kernel(&m, k, &[2, 2], &mut args, &OPTS).unwrap();
    assert_eq!(out.to_f32(), [5.5, 6.0, 6.5, 7.0]);
}

/// Loads and stores of struct elements and of component paths in them.
#[test]
fn struct_arrays_and_component_paths() {
    let mut m = Module::new();
    let sid = m.structs.push(StructDef {
        name: "S".into(),
        fields: vec![
            Field {
                name: "a".into(),
                ty: Type::Scalar(Scalar::I16),
            },
            Field {
                name: "v".into(),
                ty: Type::Vec(2, Scalar::F64),
            },
        ],
    });
    let sa = arr(ElemType::Struct(sid), 1);
    let k = kernel(&mut m, &[("s", sa)], |b, p| {
        let t = b.thread_id();
        let e = b.load(at(p[0], t));
        let a = b.extract(e, vec![0]);
        let y = b.load(MemAccess {
            array: p[0],
            indices: vec![t],
            path: vec![1, 1],
        });
        let ad = b.cast(a, Scalar::F64);
        let y2 = b.binary(BinaryOp::Add, y, ad);
        let e2 = b.insert(e, vec![1, 0], y2);
        let one = b.iconst(Scalar::I16, 1);
        let a2 = b.binary(BinaryOp::Add, a, one);
        let e3 = b.insert(e2, vec![0], a2);
        b.store(at(p[0], t), e3);
        b.return_(vec![]);
    });
    // Element: i16 at 0, f64 pair at 8 and 16; size 24.
    let mut data = vec![0u8; 48];
    for (i, (a, v0, v1)) in [(5i16, 0.0f64, 1.5f64), (-7, 9.0, 2.0)].iter().enumerate() {
        data[24 * i..24 * i + 2].copy_from_slice(&a.to_le_bytes());
        data[24 * i + 8..24 * i + 16].copy_from_slice(&v0.to_le_bytes());
        data[24 * i + 16..24 * i + 24].copy_from_slice(&v1.to_le_bytes());
    }
    let mut args = [ArgValue::Array {
        data: &mut data,
        shape: [2, 1, 1, 1],
        strides: [24, 0, 0, 0],
    }];
    run_kernel(&m, k, &[2], &mut args, &OPTS).unwrap();
    let f = |o: usize| f64::from_le_bytes(data[o..o + 8].try_into().unwrap());
    let a = |o: usize| i16::from_le_bytes([data[o], data[o + 1]]);
    assert_eq!((a(0), f(8), f(16)), (6, 6.5, 1.5));
    assert_eq!((a(24), f(32), f(40)), (-6, -5.0, 2.0));
}

/// The seed's N-body step, written out in IR over vec3 values: the result
/// must equal the same f32 operations done in Rust, bit for bit.
#[test]
fn nbody_step_matches_host_computation() {
    let mut m = Module::new();
    let v3 = Type::Vec(3, Scalar::F32);
    let va = arr(ElemType::Vec(3, Scalar::F32), 1);
    let fa = arr1(Scalar::F32);
    let vsub = add_func(
        &mut m,
        "vsub",
        FuncKind::Func,
        &[("a", v3), ("b", v3)],
        &[v3],
        |b, p| {
            let mut c = Vec::new();
            for k in 0..3 {
                let x = b.extract(p[0], vec![k]);
                let y = b.extract(p[1], vec![k]);
                c.push(b.binary(BinaryOp::Sub, x, y));
            }
            let r = b.make(v3, c);
            b.return_(vec![r]);
        },
    );
    let params = [
        ("pos", va),
        ("mass", fa),
        ("acc", va),
        ("n", Type::I32),
        ("eps2", Type::F32),
    ];
    let k = kernel(&mut m, &params, |b, p| {
        let t = b.thread_id();
        let pi = b.load(at(p[0], t));
        let zero = b.iconst(Scalar::I32, 0);
        let fz = b.fconst(Scalar::F32, 0.0);
        let acc0 = b.make(v3, vec![fz, fz, fz]);
        let (lp, body, lps) = b.loop_(vec![zero, acc0], &[v3]);
        let top = b.region();
        b.switch_to(body);
        let (j, acc) = (lps[0], lps[1]);
        let done = b.binary(BinaryOp::Ge, j, p[3]);
        let (_, th, el) = b.if_(done, &[]);
        b.switch_to(th);
        b.break_(vec![acc]);
        b.switch_to(el);
        b.yield_(vec![]);
        b.switch_to(body);
        let pj = b.load(at(p[0], j));
        let c = b.call(vsub, vec![pj, pi], &[v3]);
        let d = b.func.first_result(c).unwrap();
        let mut r2 = p[4];
        let mut comps = Vec::new();
        for k in 0..3 {
            let x = b.extract(d, vec![k]);
            let xx = b.binary(BinaryOp::Mul, x, x);
            r2 = b.binary(BinaryOp::Add, r2, xx);
            comps.push(x);
        }
        let sq = b.unary(UnaryOp::Sqrt, r2);
        let one = b.fconst(Scalar::F32, 1.0);
        let inv = b.binary(BinaryOp::Div, one, sq);
        let mj = b.load(at(p[1], j));
        let s = b.binary(BinaryOp::Mul, mj, inv);
        let s = b.binary(BinaryOp::Mul, s, inv);
        let s = b.binary(BinaryOp::Mul, s, inv);
        let mut na = Vec::new();
        for (k, &x) in comps.iter().enumerate() {
            let a = b.extract(acc, vec![k as u32]);
            let f = b.binary(BinaryOp::Mul, x, s);
            na.push(b.binary(BinaryOp::Add, a, f));
        }
        let acc1 = b.make(v3, na);
        let one_i = b.iconst(Scalar::I32, 1);
        let j1 = b.binary(BinaryOp::Add, j, one_i);
        b.continue_(vec![j1, acc1]);
        b.switch_to(top);
        let a = b.func.first_result(lp).unwrap();
        b.store(at(p[2], t), a);
        b.return_(vec![]);
    });
    let n = 300usize;
    let mut seed = 12345u32;
    let mut rnd = || {
        seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    let pos: Vec<f32> = (0..3 * n).map(|_| rnd() * 2.0 - 1.0).collect();
    let mass: Vec<f32> = (0..n).map(|_| rnd() + 0.1).collect();
    let eps2 = 0.01f32;
    let mut hp = Host::f32s(&pos);
    let mut hm = Host::f32s(&mass);
    let mut ha = Host::f32s(&vec![0.0; 3 * n]);
    let mut args = [
        ArgValue::Array {
            data: &mut hp.bytes,
            shape: [n as i32, 1, 1, 1],
            strides: [12, 0, 0, 0],
        },
        hm.arg(),
        ArgValue::Array {
            data: &mut ha.bytes,
            shape: [n as i32, 1, 1, 1],
            strides: [12, 0, 0, 0],
        },
        ArgValue::Value((n as i32).to_le_bytes().to_vec()),
        ArgValue::Value(eps2.to_le_bytes().to_vec()),
    ];
    let start = std::time::Instant::now();
    run_kernel(&m, k, &[n as i32], &mut args, &OPTS).unwrap();
    eprintln!(
        "nbody n={n}: {:?} for {} interactions",
        start.elapsed(),
        n * n
    );
    let mut want = vec![0.0f32; 3 * n];
    for i in 0..n {
        let mut acc = [0.0f32; 3];
        for j in 0..n {
            let d: Vec<f32> = (0..3).map(|k| pos[3 * j + k] - pos[3 * i + k]).collect();
            let r2 = eps2 + d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            let inv = 1.0 / r2.sqrt();
            let s = mass[j] * inv * inv * inv;
            for k in 0..3 {
                acc[k] += d[k] * s;
            }
        }
        want[3 * i..3 * i + 3].copy_from_slice(&acc);
    }
    assert_eq!(ha.to_f32(), want);
}

#[test]
fn runaway_recursion_is_an_error() {
    let mut m = Module::new();
    let fid = FuncId::from_u32(0);
    add_func(
        &mut m,
        "f",
        FuncKind::Func,
        &[("x", Type::I32)],
        &[Type::I32],
        |b, p| {
            let c = b.call(fid, vec![p[0]], &[Type::I32]);
            let r = b.func.first_result(c).unwrap();
            b.return_(vec![r]);
        },
    );
    let k = add_func(&mut m, "k", FuncKind::Kernel, &[], &[], |b, _| {
        let z = b.iconst(Scalar::I32, 0);
        b.call(fid, vec![z], &[Type::I32]);
        b.return_(vec![]);
    });
    let err = run_kernel(&m, k, &[1], &mut [], &OPTS).unwrap_err();
    assert!(matches!(err, InterpError::TooDeep { .. }), "{err}");
}

#[test]
fn malformed_ir_is_an_error_not_a_panic() {
    // A region without a terminator.
    let mut m = Module::new();
    let k = add_func(&mut m, "k", FuncKind::Kernel, &[], &[], |b, _| {
        b.iconst(Scalar::I32, 1);
    });
    let err = run_kernel(&m, k, &[1], &mut [], &OPTS).unwrap_err();
    assert!(matches!(err, InterpError::Malformed { .. }), "{err}");
    // A value of another function, an op on the wrong type, a region owned twice.
    let mut m = Module::new();
    let k = add_func(&mut m, "k", FuncKind::Kernel, &[], &[], |b, _| {
        let x = b.iconst(Scalar::I32, 1);
        let bogus = Value::from_u32(1000);
        b.binary(BinaryOp::Add, x, bogus);
        b.return_(vec![]);
    });
    assert!(matches!(
        run_kernel(&m, k, &[1], &mut [], &OPTS),
        Err(InterpError::Malformed { .. })
    ));
    let mut m = Module::new();
    let k = add_func(&mut m, "k", FuncKind::Kernel, &[], &[], |b, _| {
        let x = b.iconst(Scalar::I32, 1);
        b.unary(UnaryOp::Sin, x);
        b.return_(vec![]);
    });
    assert!(matches!(
        run_kernel(&m, k, &[1], &mut [], &OPTS),
        Err(InterpError::Unsupported { .. })
    ));
    let mut m = Module::new();
    let k = add_func(&mut m, "k", FuncKind::Kernel, &[], &[], |b, _| {
        let c = b.bconst(true);
        let body = b.func.body;
        b.ins(
            InstKind::If {
                cond: c,
                then_region: body,
                else_region: body,
            },
            &[],
        );
        b.return_(vec![]);
    });
    assert!(matches!(
        run_kernel(&m, k, &[1], &mut [], &OPTS),
        Err(InterpError::Malformed { .. })
    ));
}

#[test]
fn empty_launch_runs_nothing() {
    let mut m = Module::new();
    let k = kernel(&mut m, &[("y", arr1(Scalar::I32))], |b, p| {
        let t = b.thread_id();
        b.store(at(p[0], t), t);
        b.return_(vec![]);
    });
    let mut y = Host::i32s(&[]);
    run_kernel(&m, k, &[0], &mut [y.arg()], &OPTS).unwrap();
    let mut y = Host::i32s(&[7; 3]);
    run_kernel(&m, k, &[3], &mut [y.arg()], &OPTS).unwrap();
    assert_eq!(y.to_i32(), [0, 1, 2]);
}

#[test]
fn constant_evaluation_agrees_with_the_interpreter() {
    use weft_ir::interp::{eval_binary, eval_bitcast, eval_cast, eval_fma, eval_unary};
    let f32c = |x: f32| Const::float(Scalar::F32, x as f64);
    let i32c = |x: i32| Const::int(Scalar::I32, x as i64);
    assert_eq!(
        eval_binary(BinaryOp::Div, i32c(-7), i32c(2)),
        Some(i32c(-3))
    );
    assert_eq!(eval_binary(BinaryOp::Rem, i32c(-7), i32c(0)), Some(i32c(0)));
    assert_eq!(
        eval_binary(BinaryOp::Add, f32c(0.1), f32c(0.2)),
        Some(f32c(0.1f32 + 0.2f32))
    );
    assert_eq!(
        eval_binary(BinaryOp::Lt, f32c(1.0), f32c(f32::NAN)),
        Some(Const::bool(false))
    );
    assert_eq!(eval_binary(BinaryOp::Add, f32c(1.0), i32c(1)), None);
    assert_eq!(eval_binary(BinaryOp::Shl, f32c(1.0), f32c(1.0)), None);
    assert_eq!(
        eval_unary(UnaryOp::Sin, f32c(1.0)),
        Some(f32c(1.0f32.sin()))
    );
    assert_eq!(
        eval_unary(UnaryOp::IsNan, f32c(f32::NAN)),
        Some(Const::bool(true))
    );
    assert_eq!(eval_unary(UnaryOp::Sqrt, i32c(4)), None);
    assert_eq!(eval_cast(f32c(-2.5), Scalar::U8), Const::int(Scalar::U8, 0));
    assert_eq!(
        eval_cast(Const::float(Scalar::F64, 0.1), Scalar::F32),
        f32c(0.1)
    );
    assert_eq!(
        eval_cast(i32c(70000), Scalar::F16),
        Const::float(Scalar::F16, f64::INFINITY)
    );
    assert_eq!(
        eval_bitcast(f32c(1.0), Scalar::U32),
        Some(Const::int(Scalar::U32, 0x3f80_0000))
    );
    assert_eq!(eval_bitcast(f32c(1.0), Scalar::U64), None);
    let fma = eval_fma(f32c(0.1), f32c(10.0), f32c(-1.0)).unwrap();
    assert_eq!(fma, f32c(0.1f32.mul_add(10.0, -1.0)));
    assert_ne!(fma, f32c(0.1f32 * 10.0 - 1.0), "fused: rounded once");
}

/// An array passed to a func, 4-D launch dims, unsigned and 64-bit indices,
/// and printing (enabled: the text goes to the test's captured stdout).
#[test]
fn arrays_through_funcs_launch_dims_and_print() {
    let mut m = Module::new();
    let ia = arr1(Scalar::I32);
    let put = add_func(
        &mut m,
        "put",
        FuncKind::Func,
        &[
            ("a", ia),
            ("i", Type::Scalar(Scalar::U64)),
            ("v", Type::I32),
        ],
        &[],
        |b, p| {
            b.store(at(p[0], p[1]), p[2]);
            b.print("put %d at %u (%s)\n", vec![p[2], p[1], p[2]]);
            b.return_(vec![]);
        },
    );
    let k = kernel(&mut m, &[("a", ia)], |b, p| {
        let t = b.thread_id();
        let i = b.cast(t, Scalar::U64);
        let mut acc = b.launch_dim(0);
        for axis in 1..4 {
            let d = b.launch_dim(axis);
            let ten = b.iconst(Scalar::I32, 10);
            let s = b.binary(BinaryOp::Mul, acc, ten);
            acc = b.binary(BinaryOp::Add, s, d);
        }
        let v = b.binary(BinaryOp::Add, acc, t);
        b.call(put, vec![p[0], i, v], &[]);
        b.return_(vec![]);
    });
    let mut a = Host::i32s(&[0; 6]);
    let opts = InterpOptions {
        print: true,
        ..Default::default()
    };
    run_kernel(&m, k, &[3, 2], &mut [a.arg()], &opts).unwrap();
    assert_eq!(a.to_i32(), [3211, 3212, 3213, 3214, 3215, 3216]);
}

/// Bitcast, fma, popcount and the float predicates inside a kernel.
#[test]
fn bit_level_and_predicate_ops() {
    let mut m = Module::new();
    let k = kernel(
        &mut m,
        &[("x", arr1(Scalar::F32)), ("out", arr1(Scalar::U32))],
        |b, p| {
            let t = b.thread_id();
            let x = b.load(at(p[0], t));
            let bits = b.bitcast(x, Scalar::U32);
            let pc = b.unary(UnaryOp::Popcount, bits);
            let nan = b.unary(UnaryOp::IsNan, x);
            let inf = b.unary(UnaryOp::IsInf, x);
            let fin = b.unary(UnaryOp::IsFinite, x);
            let ten = b.fconst(Scalar::F32, 10.0);
            let m1 = b.fconst(Scalar::F32, -1.0);
            let f = b.fma(x, ten, m1);
            let fb = b.bitcast(f, Scalar::U32);
            let mut flags = b.cast(nan, Scalar::U32);
            for (k, v) in [(1, inf), (2, fin)] {
                let c = b.cast(v, Scalar::U32);
                let sh = b.iconst(Scalar::U32, k);
                let c = b.binary(BinaryOp::Shl, c, sh);
                flags = b.binary(BinaryOp::Or, flags, c);
            }
            let three = b.iconst(Scalar::I32, 3);
            let base = b.binary(BinaryOp::Mul, t, three);
            let one = b.iconst(Scalar::I32, 1);
            let b1 = b.binary(BinaryOp::Add, base, one);
            let b2 = b.binary(BinaryOp::Add, b1, one);
            b.store(at(p[1], base), pc);
            b.store(at(p[1], b1), flags);
            b.store(at(p[1], b2), fb);
            b.return_(vec![]);
        },
    );
    let xs = [1.0f32, f32::NAN, f32::NEG_INFINITY, 0.1];
    let mut x = Host::f32s(&xs);
    let mut out = Host::new(&[0u32; 12], u32::to_le_bytes);
    run_kernel(&m, k, &[4], &mut [x.arg(), out.arg()], &OPTS).unwrap();
    let o: Vec<u32> = out
        .bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (n, &x) in xs.iter().enumerate() {
        assert_eq!(o[3 * n], x.to_bits().count_ones());
        let flags = x.is_nan() as u32 | (x.is_infinite() as u32) << 1 | (x.is_finite() as u32) << 2;
        assert_eq!(o[3 * n + 1], flags);
        let f = x.mul_add(10.0, -1.0);
        assert!(o[3 * n + 2] == f.to_bits() || f.is_nan() && f32::from_bits(o[3 * n + 2]).is_nan());
    }
    assert_eq!(
        f32::from_bits(o[11]),
        1.4901161e-8,
        "0.1 * 10 - 1 rounded once"
    );
}

/// A loop-free kernel using most instruction kinds (for mutation testing).
fn loop_free_module() -> (Module, FuncId) {
    let mut m = Module::new();
    let v3 = Type::Vec(3, Scalar::F32);
    let sid = m.structs.push(StructDef {
        name: "S".into(),
        fields: vec![
            Field {
                name: "a".into(),
                ty: Type::I32,
            },
            Field {
                name: "v".into(),
                ty: v3,
            },
        ],
    });
    let st = Type::Struct(sid);
    let half = add_func(
        &mut m,
        "half",
        FuncKind::Func,
        &[("v", v3)],
        &[v3, Type::F32],
        |b, p| {
            let h = b.fconst(Scalar::F32, 0.5);
            let mut c = Vec::new();
            for k in 0..3 {
                let x = b.extract(p[0], vec![k]);
                c.push(b.binary(BinaryOp::Mul, x, h));
            }
            let r = b.make(v3, c.clone());
            b.return_(vec![r, c[0]]);
        },
    );
    let va = arr(ElemType::Vec(3, Scalar::F32), 1);
    let sa = arr(ElemType::Struct(sid), 1);
    let params = [
        ("v", va),
        ("s", sa),
        ("n", arr1(Scalar::I32)),
        ("k", Type::F32),
    ];
    let k = kernel(&mut m, &params, |b, p| {
        let t = b.thread_id();
        let v = b.load(at(p[0], t));
        let c = b.call(half, vec![v], &[v3, Type::F32]);
        let r = b.func.results(c).to_vec();
        let pos = b.binary(BinaryOp::Gt, r[1], p[3]);
        let (iff, th, el) = b.if_(pos, &[st]);
        let top = b.region();
        b.switch_to(th);
        let e = b.load(at(p[1], t));
        let e2 = b.insert(e, vec![1], r[0]);
        b.yield_(vec![e2]);
        b.switch_to(el);
        let ti = b.cast(r[1], Scalar::I32);
        let s = b.make(st, vec![ti, v]);
        b.yield_(vec![s]);
        b.switch_to(top);
        let s = b.func.first_result(iff).unwrap();
        b.store(at(p[1], t), s);
        let a = b.extract(s, vec![0]);
        let zero = b.iconst(Scalar::I32, 0);
        b.atomic(AtomicOp::Add, at(p[2], zero), a);
        let y = b.extract(s, vec![1, 2]);
        b.store(
            MemAccess {
                array: p[0],
                indices: vec![t],
                path: vec![1],
            },
            y,
        );
        b.print("%d %f\n", vec![a, y]);
        b.return_(vec![]);
    });
    (m, k)
}

fn run_loop_free(m: &Module, k: FuncId) -> Result<(), InterpError> {
    let mut v = Host::f32s(&[1.0, 2.0, 3.0, -4.0, 5.0, 6.0]).grouped(3);
    let mut s = Host::new(&[0u8; 32], |x| [x]).grouped(16);
    let mut n = Host::i32s(&[0]);
    let mut args = [
        v.arg(),
        s.arg(),
        n.arg(),
        ArgValue::Value(0.25f32.to_le_bytes().to_vec()),
    ];
    run_kernel(m, k, &[2], &mut args, &OPTS)
}

/// Random mutations of a valid module (operands swapped for other values,
/// result types changed, paths altered, instructions dropped) never make
/// the interpreter panic: it runs, or returns an error.
#[test]
fn mutated_modules_never_panic() {
    let (m, k) = loop_free_module();
    run_loop_free(&m, k).unwrap();
    let types = [
        Type::I32,
        Type::F32,
        Type::BOOL,
        Type::Vec(3, Scalar::F32),
        Type::Vec(2, Scalar::F64),
        Type::Mat(2, 2, Scalar::F32),
    ];
    let mut seed = 0x9e37_79b9u64;
    let mut rnd = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let (mut ran, mut failed) = (0, 0);
    for _ in 0..3000 {
        let mut m2 = m.clone();
        let fid = FuncId::from_u32(rnd(m2.funcs.len()) as u32);
        let f = &mut m2.funcs[fid];
        let insts: Vec<Inst> = f.insts.keys().collect();
        let inst = insts[rnd(insts.len())];
        let nvals = f.values.len();
        match rnd(4) {
            0 => {
                let n = f.insts[inst].kind.args().len();
                let target = rnd(n);
                let new = Value::from_u32(rnd(nvals + 2) as u32);
                let mut idx = 0;
                f.insts[inst].kind.map_args(|v| {
                    idx += 1;
                    if idx - 1 == target {
                        new
                    } else {
                        v
                    }
                });
            }
            1 => {
                if let Some(&r) = f.insts[inst].results.first() {
                    f.values[r].ty = types[rnd(types.len())];
                }
            }
            2 => {
                let step = rnd(4) as u32;
                match &mut f.insts[inst].kind {
                    InstKind::Extract(_, p) | InstKind::Insert(_, p, _) => p.push(step),
                    InstKind::Load(a) | InstKind::Store(a, _) | InstKind::Atomic(_, a, _) => {
                        a.path = vec![step, step];
                    }
                    InstKind::Make(_, parts) => {
                        parts.pop();
                    }
                    _ => {}
                }
            }
            _ => {
                let r = Region::from_u32(rnd(f.regions.len()) as u32);
                let list = &mut f.regions[r].insts;
                if !list.is_empty() {
                    list.remove(rnd(list.len()));
                }
            }
        }
        let res = std::panic::catch_unwind(|| run_loop_free(&m2, k));
        match res {
            Ok(Ok(())) => ran += 1,
            Ok(Err(_)) => failed += 1,
            Err(_) => panic!("the interpreter panicked on a mutated module"),
        }
    }
    eprintln!("mutations: {ran} ran, {failed} errors");
    assert!(
        ran > 0 && failed > 0,
        "mutations both kept and broke the module ({ran} ran, {failed} errors)"
    );
}

#[test]
fn printf_formatting_of_constants() {
    use weft_ir::interp::format_printf;
    let args = [
        Const::int(Scalar::I32, -3),
        Const::float(Scalar::F32, 0.1),
        Const::int(Scalar::U8, 255),
        Const::float(Scalar::F64, 1e-7),
        Const::bool(true),
    ];
    assert_eq!(
        format_printf("i=%d x=%.3f u=%x g=%g b=%s %%", &args),
        "i=-3 x=0.100 u=ff g=1e-07 b=True %"
    );
}
