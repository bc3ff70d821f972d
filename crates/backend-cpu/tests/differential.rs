//! The JIT against the reference interpreter: every unary op, binary op,
//! cast and bitcast on every scalar type, on random and special inputs
//! (oracle: `weft_ir::interp::eval_*`, the interpreter's own scalar code),
//! and whole kernels run by both (`weft_ir::interp::run_kernel`).

mod common;

use common::*;
use weft_backend_cpu::Options;
use weft_ir::interp::{
    eval_binary, eval_bitcast, eval_cast, eval_unary, run_kernel, ArgValue, InterpOptions,
};
use weft_ir::ir::{BinaryOp, MemAccess, UnaryOp};
use weft_ir::layout::ArrayDesc;
use weft_ir::{Const, Scalar, Value};

const UNARY: [UnaryOp; 31] = [
    UnaryOp::Neg,
    UnaryOp::Not,
    UnaryOp::Abs,
    UnaryOp::Sqrt,
    UnaryOp::Cbrt,
    UnaryOp::Floor,
    UnaryOp::Ceil,
    UnaryOp::Trunc,
    UnaryOp::Round,
    UnaryOp::Rint,
    UnaryOp::Sin,
    UnaryOp::Cos,
    UnaryOp::Tan,
    UnaryOp::Asin,
    UnaryOp::Acos,
    UnaryOp::Atan,
    UnaryOp::Sinh,
    UnaryOp::Cosh,
    UnaryOp::Tanh,
    UnaryOp::Exp,
    UnaryOp::Exp2,
    UnaryOp::Log,
    UnaryOp::Log2,
    UnaryOp::Log10,
    UnaryOp::Erf,
    UnaryOp::Erfc,
    UnaryOp::Erfinv,
    UnaryOp::Popcount,
    UnaryOp::IsNan,
    UnaryOp::IsInf,
    UnaryOp::IsFinite,
];

const BINARY: [BinaryOp; 21] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
    BinaryOp::Min,
    BinaryOp::Max,
    BinaryOp::Pow,
    BinaryOp::Atan2,
    BinaryOp::Copysign,
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::Xor,
    BinaryOp::Shl,
    BinaryOp::Shr,
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
];

/// xorshift64*: deterministic test inputs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Raw memory bits (low `size` bytes) of inputs for a scalar type: special
/// values, small values, and random bit patterns.
fn inputs(s: Scalar, rng: &mut Rng, n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = match s {
        Scalar::Bool => vec![0, 1],
        Scalar::F16 => [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.5,
            -2.5,
            0.1,
            65504.0,
            f32::INFINITY,
            f32::NAN,
            3.0,
            -7.75,
        ]
        .iter()
        .map(|&x| weft_ir::f16::f32_to_f16(x) as u64)
        .collect(),
        Scalar::BF16 => [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.5,
            -2.5,
            0.1,
            1e30,
            -3e9,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            300.7,
        ]
        .iter()
        .map(|&x| weft_ir::f16::f32_to_bf16(x) as u64)
        .collect(),
        Scalar::F32 => [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.5,
            -2.5,
            0.1,
            1e30,
            -3e9,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            300.7,
            -40000.2,
        ]
        .iter()
        .map(|&x| x.to_bits() as u64)
        .collect(),
        Scalar::F64 => [
            0.0f64,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.5,
            -2.5,
            0.1,
            1e300,
            -3e9,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            300.7,
            -1e19,
        ]
        .iter()
        .map(|&x| x.to_bits())
        .collect(),
        _ => {
            let bits = s.bits();
            let min = if s.is_signed_int() {
                1u64 << (bits - 1)
            } else {
                0
            };
            let max = if s.is_signed_int() {
                (1u64 << (bits - 1)) - 1
            } else {
                u64::MAX >> (64 - bits)
            };
            let neg1 = u64::MAX >> (64 - bits);
            vec![0, 1, 2, 3, 7, 31, 33, 64, 65, min, max, neg1, neg1 - 1]
        }
    };
    while v.len() < n {
        let r = rng.next();
        let x = match s {
            Scalar::Bool => r & 1,
            // mostly moderate floats, some raw bit patterns
            Scalar::F16 => {
                if r.is_multiple_of(4) {
                    r >> 48
                } else {
                    weft_ir::f16::f32_to_f16(
                        ((r >> 11) as f64 / (1u64 << 53) as f64 * 40.0 - 20.0) as f32,
                    ) as u64
                }
            }
            Scalar::BF16 => {
                if r.is_multiple_of(4) {
                    r >> 48
                } else {
                    weft_ir::f16::f32_to_bf16(
                        ((r >> 11) as f64 / (1u64 << 53) as f64 * 200.0 - 100.0) as f32,
                    ) as u64
                }
            }
            Scalar::F32 => {
                if r.is_multiple_of(4) {
                    r >> 32
                } else {
                    ((((r >> 11) as f64 / (1u64 << 53) as f64) * 200.0 - 100.0) as f32).to_bits()
                        as u64
                }
            }
            Scalar::F64 => {
                if r.is_multiple_of(4) {
                    r
                } else {
                    (((r >> 11) as f64 / (1u64 << 53) as f64) * 200.0 - 100.0).to_bits()
                }
            }
            _ => {
                // small magnitudes often, full range sometimes
                if r.is_multiple_of(3) {
                    r % 40
                } else {
                    r
                }
            }
        };
        v.push(x & mask(s));
    }
    v
}

fn mask(s: Scalar) -> u64 {
    u64::MAX >> (64 - 8 * s.size())
}

/// Memory bits → interpreter constant.
fn to_const(s: Scalar, raw: u64) -> Const {
    match s {
        Scalar::Bool => Const::bool(raw & 0xff != 0),
        Scalar::F16 => Const::float(s, weft_ir::f16::f16_to_f64(raw as u16)),
        Scalar::BF16 => Const::float(s, weft_ir::f16::bf16_to_f32(raw as u16) as f64),
        Scalar::F32 => Const::float(s, f32::from_bits(raw as u32) as f64),
        Scalar::F64 => Const::float(s, f64::from_bits(raw)),
        _ if s.is_signed_int() => {
            let sh = 64 - s.bits();
            Const::int(s, ((raw << sh) as i64) >> sh)
        }
        _ => Const::from_i128(s, raw as i128),
    }
}

/// Interpreter constant → memory bits.
fn from_const(c: Const) -> u64 {
    let f = f64::from_bits(c.bits);
    match c.ty {
        Scalar::F16 => weft_ir::f16::f64_to_f16(f) as u64,
        Scalar::BF16 => weft_ir::f16::f64_to_bf16(f) as u64,
        Scalar::F32 => (f as f32).to_bits() as u64,
        Scalar::F64 => c.bits,
        s => c.bits & mask(s),
    }
}

fn is_nan(s: Scalar, raw: u64) -> bool {
    match s {
        Scalar::F16 => weft_ir::f16::f16_to_f32(raw as u16).is_nan(),
        Scalar::BF16 => weft_ir::f16::bf16_to_f32(raw as u16).is_nan(),
        Scalar::F32 => f32::from_bits(raw as u32).is_nan(),
        Scalar::F64 => f64::from_bits(raw).is_nan(),
        _ => false,
    }
}

/// Equal bits, or both NaN (payloads are not specified).
fn same(s: Scalar, a: u64, b: u64) -> bool {
    a == b || (is_nan(s, a) && is_nan(s, b))
}

fn write_elems(s: Scalar, vals: &[u64]) -> Vec<u8> {
    let n = s.size() as usize;
    vals.iter()
        .flat_map(|v| v.to_le_bytes()[..n].to_vec())
        .collect()
}

fn read_elems(s: Scalar, bytes: &[u8]) -> Vec<u64> {
    let n = s.size() as usize;
    bytes
        .chunks(n)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

fn desc_bytes(v: &mut [u8], elem: u32) -> ArrayDesc {
    ArrayDesc {
        data: v.as_mut_ptr(),
        shape: [(v.len() as u32 / elem) as i32, 1, 1, 1],
        strides: [elem as i64, 0, 0, 0],
    }
}

fn at(array: Value, i: Value) -> MemAccess {
    MemAccess {
        array,
        indices: vec![i],
        path: vec![],
    }
}

/// Runs a kernel with inputs `ins` (array args of the given types) and one
/// output array of `out_s`, `n` threads; returns the output's raw bits.
fn jit_map(
    ins: &[(Scalar, &[u64])],
    out_s: Scalar,
    build: impl Fn(&mut weft_ir::FuncBuilder, &[Value]) -> Value,
) -> Vec<u64> {
    let n = ins[0].1.len();
    let mut params: Vec<(String, weft_ir::Type)> = ins
        .iter()
        .enumerate()
        .map(|(k, (s, _))| (format!("a{k}"), arr1(*s)))
        .collect();
    params.push(("o".into(), arr1(out_s)));
    let pr: Vec<(&str, weft_ir::Type)> = params.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    let ni = ins.len();
    let m = kernel_module(&pr, |b, p| {
        let i = b.thread_id();
        let xs: Vec<Value> = (0..ni).map(|k| b.load(at(p[k], i))).collect();
        let r = build(b, &xs);
        b.store(at(p[ni], i), r);
        b.return_(vec![]);
    });
    let mut bufs: Vec<Vec<u8>> = ins.iter().map(|(s, v)| write_elems(*s, v)).collect();
    let mut out = vec![0u8; n * out_s.size() as usize];
    let mut args: Vec<Arg> = bufs
        .iter_mut()
        .zip(ins)
        .map(|(b, (s, _))| Arg::Array(desc_bytes(b, s.size())))
        .collect();
    args.push(Arg::Array(desc_bytes(&mut out, out_s.size())));
    run(&m, n as i32, &args);
    read_elems(out_s, &out)
}

#[test]
fn unary_ops_match_the_interpreter() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for s in Scalar::ALL {
        for op in UNARY {
            if eval_unary(op, to_const(s, 0)).is_none() {
                continue;
            }
            let xs = inputs(s, &mut rng, 64);
            let out_s = if matches!(op, UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite) {
                Scalar::Bool
            } else {
                s
            };
            let got = jit_map(&[(s, &xs)], out_s, |b, x| b.unary(op, x[0]));
            for (k, &x) in xs.iter().enumerate() {
                let want = from_const(eval_unary(op, to_const(s, x)).unwrap());
                assert!(
                    same(out_s, got[k], want),
                    "{op:?} on {s}: input bits {x:#x}: jit {:#x}, interp {want:#x}",
                    got[k]
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 60, "only {checked} (op, type) pairs checked");
}

#[test]
fn binary_ops_match_the_interpreter() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut checked = 0;
    for s in Scalar::ALL {
        for op in BINARY {
            if eval_binary(op, to_const(s, 0), to_const(s, 0)).is_none() {
                continue;
            }
            // every special value against every other, then random pairs
            let sp = inputs(s, &mut rng, 0);
            let mut a: Vec<u64> = sp.iter().flat_map(|&x| sp.iter().map(move |_| x)).collect();
            let mut b: Vec<u64> = sp.iter().flat_map(|_| sp.iter().copied()).collect();
            a.extend(inputs(s, &mut rng, 80).into_iter().skip(sp.len()));
            b.extend(inputs(s, &mut rng, 80).into_iter().skip(sp.len()));
            let n = a.len().min(b.len());
            let (a, b) = (&a[..n], &b[..n]);
            let out_s = if op.is_comparison() { Scalar::Bool } else { s };
            let got = jit_map(&[(s, a), (s, b)], out_s, |bl, x| bl.binary(op, x[0], x[1]));
            for k in 0..n {
                let want =
                    from_const(eval_binary(op, to_const(s, a[k]), to_const(s, b[k])).unwrap());
                // The sign of min/max of +0 and -0 is unspecified (C fmin,
                // Rust's f32::min; the latter differs between debug and
                // release builds).
                let zeros = s.is_float()
                    && matches!(op, BinaryOp::Min | BinaryOp::Max)
                    && to_const(s, a[k]).as_f64() == 0.0
                    && to_const(s, b[k]).as_f64() == 0.0;
                assert!(
                    same(out_s, got[k], want) || (zeros && to_const(s, got[k]).as_f64() == 0.0),
                    "{op:?} on {s}: inputs {:#x}, {:#x}: jit {:#x}, interp {want:#x}",
                    a[k],
                    b[k],
                    got[k]
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} (op, type) pairs checked");
}

#[test]
fn casts_and_bitcasts_match_the_interpreter() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for from in Scalar::ALL {
        let xs = inputs(from, &mut rng, 96);
        for to in Scalar::ALL {
            let got = jit_map(&[(from, &xs)], to, |b, x| b.cast(x[0], to));
            for (k, &x) in xs.iter().enumerate() {
                let want = from_const(eval_cast(to_const(from, x), to));
                assert!(
                    same(to, got[k], want),
                    "cast {from} -> {to}: input bits {x:#x}: jit {:#x}, interp {want:#x}",
                    got[k]
                );
            }
            if from != to
                && from.size() == to.size()
                && eval_bitcast(to_const(from, 0), to).is_some()
                && from != Scalar::Bool
                && to != Scalar::Bool
            {
                let got = jit_map(&[(from, &xs)], to, |b, x| b.bitcast(x[0], to));
                for (k, &x) in xs.iter().enumerate() {
                    if is_nan(from, x) {
                        continue; // NaN payloads are not specified
                    }
                    let want = from_const(eval_bitcast(to_const(from, x), to).unwrap());
                    assert!(
                        same(to, got[k], want),
                        "bitcast {from} -> {to}: {x:#x}: jit {:#x}, interp {want:#x}",
                        got[k]
                    );
                }
            }
        }
    }
}

/// Runs kernel `name` of `m` over `0..n` in the JIT and in the
/// interpreter on copies of the same 1-D array buffers (`(bytes, elem size)`)
/// and by-value arguments, and asserts that every buffer ends equal.
fn jit_equals_interp(
    m: &weft_ir::Module,
    name: &str,
    n: usize,
    arrays: &[(Vec<u8>, u32)],
    values: &[Vec<u8>],
) -> Vec<Vec<u8>> {
    jit_equals_interp_with(&checked_options(), m, name, n, arrays, values)
}

fn jit_equals_interp_with(
    opts: &Options,
    m: &weft_ir::Module,
    name: &str,
    n: usize,
    arrays: &[(Vec<u8>, u32)],
    values: &[Vec<u8>],
) -> Vec<Vec<u8>> {
    let kid = m.func_by_name(name).unwrap();
    let mut ib: Vec<Vec<u8>> = arrays.iter().map(|(b, _)| b.clone()).collect();
    let mut jb = ib.clone();
    {
        let mut args: Vec<ArgValue> = ib
            .iter_mut()
            .zip(arrays)
            .map(|(b, (_, e))| ArgValue::Array {
                shape: [(b.len() / *e as usize) as i32, 1, 1, 1],
                data: b.as_mut_slice(),
                strides: [*e as i64, 0, 0, 0],
            })
            .collect();
        args.extend(values.iter().map(|s| ArgValue::Value(s.clone())));
        run_kernel(m, kid, &[n as i32], &mut args, &InterpOptions::default()).expect("interp");
    }
    let art = weft_backend_cpu::compile(m, &weft_ir::ModuleInfo::of(m), opts).expect("compile");
    let mut args: Vec<Arg> = jb
        .iter_mut()
        .zip(arrays)
        .map(|(b, (_, e))| Arg::Array(desc_bytes(b, *e)))
        .collect();
    args.extend(values.iter().map(|s| Arg::Bytes(s.clone())));
    let block = pack(m, name, [n as i32, 1, 1, 1], &args);
    // SAFETY: block matches the kernel; the buffers outlive the call.
    unsafe { (art.kernel(name).unwrap().entry)(block.ptr(), 0, n as i64) };
    for (k, (j, i)) in jb.iter().zip(&ib).enumerate() {
        assert_eq!(j, i, "array argument {k} differs");
    }
    jb
}

#[test]
fn nbody_kernel_matches_the_interpreter() {
    nbody_matches_the_interpreter(&checked_options());
}

/// The single-pass register allocator (used for very large functions,
/// [`weft_backend_cpu::SINGLE_PASS_REGALLOC_INSTS`]) forced on every
/// function: the same results as the interpreter.
#[test]
fn nbody_kernel_with_single_pass_regalloc_matches_the_interpreter() {
    nbody_matches_the_interpreter(&Options {
        single_pass_regalloc_above: 0,
        ..checked_options()
    });
}

fn nbody_matches_the_interpreter(opts: &Options) {
    let m = nbody::nbody_module();
    let n = 64usize;
    let pos: Vec<f32> = (0..n)
        .flat_map(|i| [(i as f32).sin(), (i as f32 * 0.7).cos(), i as f32 * 0.1])
        .collect();
    let vel: Vec<f32> = (0..n).flat_map(|i| [0.1, -0.2, i as f32 * 0.01]).collect();
    let mass: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 0.25).collect();
    let b = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    jit_equals_interp_with(
        opts,
        &m,
        "nbody_step",
        n,
        &[
            (b(&pos), 12),
            (b(&vel), 12),
            (b(&mass), 4),
            (vec![0; n * 12], 12),
            (vec![0; n * 12], 12),
        ],
        &[
            (n as i32).to_le_bytes().to_vec(),
            0.01f32.to_le_bytes().to_vec(),
            0.7f32.to_le_bytes().to_vec(),
            0.05f32.to_le_bytes().to_vec(),
        ],
    );
}

/// `old[i] = atomic op(a[i % 5], b[i])` for every atomic op and scalar type
/// the interpreter defines, single-threaded: final memory and old values
/// agree with the interpreter.
#[test]
fn atomics_match_the_interpreter() {
    use weft_ir::ir::AtomicOp;
    let ops = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exchange,
    ];
    let mut rng = Rng(77);
    for s in Scalar::ALL {
        for op in ops {
            let defined = match op {
                AtomicOp::Exchange | AtomicOp::Min | AtomicOp::Max => true,
                AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => !s.is_float(),
                AtomicOp::Add | AtomicOp::Sub => s != Scalar::Bool,
            };
            if !defined {
                continue;
            }
            let m = kernel_module(
                &[("a", arr1(s)), ("b", arr1(s)), ("old", arr1(s))],
                |bl, p| {
                    let i = bl.thread_id();
                    let five = bl.iconst(Scalar::I32, 5);
                    let j = bl.binary(BinaryOp::Rem, i, five);
                    let x = bl.load(at(p[1], i));
                    let o = bl.atomic(op, at(p[0], j), x);
                    bl.store(at(p[2], i), o);
                    bl.return_(vec![]);
                },
            );
            let b = inputs(s, &mut rng, 40);
            let a = inputs(s, &mut rng, 5);
            let n = b.len();
            jit_equals_interp(
                &m,
                "k",
                n,
                &[
                    (write_elems(s, &a[..5]), s.size()),
                    (write_elems(s, &b), s.size()),
                    (vec![0; n * s.size() as usize], s.size()),
                ],
                &[],
            );
        }
    }
}

#[test]
fn fma_and_select_match_the_interpreter() {
    let mut rng = Rng(99);
    for s in [Scalar::F16, Scalar::F32, Scalar::F64] {
        let xs = inputs(s, &mut rng, 64);
        let ys = inputs(s, &mut rng, 64);
        let zs: Vec<u64> = inputs(s, &mut rng, 64).into_iter().rev().collect();
        let got = jit_map(&[(s, &xs), (s, &ys), (s, &zs)], s, |b, v| {
            b.fma(v[0], v[1], v[2])
        });
        for k in 0..xs.len() {
            let want = from_const(
                weft_ir::interp::eval_fma(
                    to_const(s, xs[k]),
                    to_const(s, ys[k]),
                    to_const(s, zs[k]),
                )
                .unwrap(),
            );
            assert!(
                same(s, got[k], want),
                "fma on {s}: {:#x} {:#x} {:#x}: jit {:#x}, interp {want:#x}",
                xs[k],
                ys[k],
                zs[k],
                got[k]
            );
        }
    }
    let c: Vec<u64> = (0..16).map(|k| k & 1).collect();
    let a: Vec<u64> = (0..16).collect();
    let b: Vec<u64> = (100..116).collect();
    let got = jit_map(
        &[(Scalar::Bool, &c), (Scalar::I64, &a), (Scalar::I64, &b)],
        Scalar::I64,
        |bl, v| bl.select(v[0], v[1], v[2]),
    );
    let want: Vec<u64> = (0..16)
        .map(|k| if k & 1 == 1 { k } else { 100 + k })
        .collect();
    assert_eq!(got, want);
}

/// A func (not inlined) with a loop and an early return from inside it,
/// called per thread: the JIT's compiled func agrees with the interpreter.
#[test]
fn called_func_with_loop_and_early_return_matches_the_interpreter() {
    use weft_ir::{FuncBuilder, FuncKind, Function, Param, Type};
    let mut m = weft_ir::Module::new();
    let v3 = Type::Vec(3, Scalar::F32);
    // func f(x: i32, v: vec3) -> f32:
    //   acc = 0; j = 0
    //   loop { if j >= x: break acc; if j == 3: return v.y * j; acc += v.x; j += 1 }
    let mut f = Function::new(
        "f",
        FuncKind::Func,
        vec![
            Param {
                name: "x".into(),
                ty: Type::I32,
            },
            Param {
                name: "v".into(),
                ty: v3,
            },
        ],
        vec![Type::F32],
    );
    let pv = f.param_values().to_vec();
    {
        let mut b = FuncBuilder::new(&mut f, &m.structs);
        let zf = b.fconst(Scalar::F32, 0.0);
        let zi = b.iconst(Scalar::I32, 0);
        let (lp, body, ps) = b.loop_(vec![zi, zf], &[Type::F32]);
        b.switch_to(body);
        let done = b.binary(BinaryOp::Ge, ps[0], pv[0]);
        let (_, t, e) = b.if_(done, &[]);
        b.switch_to(t);
        b.break_(vec![ps[1]]);
        b.switch_to(e);
        b.yield_(vec![]);
        b.switch_to(body);
        let three = b.iconst(Scalar::I32, 3);
        let is3 = b.binary(BinaryOp::Eq, ps[0], three);
        let (_, t, e) = b.if_(is3, &[]);
        b.switch_to(t);
        let vy = b.extract(pv[1], vec![1]);
        let jf = b.cast(ps[0], Scalar::F32);
        let r = b.binary(BinaryOp::Mul, vy, jf);
        b.return_(vec![r]);
        b.switch_to(e);
        b.yield_(vec![]);
        b.switch_to(body);
        let vx = b.extract(pv[1], vec![0]);
        let acc = b.binary(BinaryOp::Add, ps[1], vx);
        let one = b.iconst(Scalar::I32, 1);
        let j = b.binary(BinaryOp::Add, ps[0], one);
        b.continue_(vec![j, acc]);
        let body_region = b.func.body;
        b.switch_to(body_region);
        let res = b.func.results(lp)[0];
        b.return_(vec![res]);
    }
    let fid = m.funcs.push(f);
    add_kernel(
        &mut m,
        "k",
        &[("o", arr1(Scalar::F32)), ("s", Type::F32)],
        |b, p| {
            let i = b.thread_id();
            let two = b.fconst(Scalar::F32, 2.0);
            let v = b.make(v3, vec![p[1], two, p[1]]);
            let c = b.call(fid, vec![i, v], &[Type::F32]);
            let r = b.func.results(c)[0];
            b.store(at(p[0], i), r);
            b.return_(vec![]);
        },
    );
    let n = 8;
    jit_equals_interp(
        &m,
        "k",
        n,
        &[(vec![0u8; 4 * n], 4)],
        &[1.25f32.to_le_bytes().to_vec()],
    );
}
