//! The JIT against the reference interpreter: every unary op, binary op,
//! cast and bitcast on every scalar type, on random and special inputs
//! (oracle: `weft_ir::interp::eval_*`, the interpreter's own scalar code),
//! and whole kernels run by both (`weft_ir::interp::run_kernel`).

mod common;

use common::*;
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
        Scalar::F32 => (f as f32).to_bits() as u64,
        Scalar::F64 => c.bits,
        s => c.bits & mask(s),
    }
}

fn is_nan(s: Scalar, raw: u64) -> bool {
    match s {
        Scalar::F16 => weft_ir::f16::f16_to_f32(raw as u16).is_nan(),
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

#[test]
fn nbody_kernel_matches_the_interpreter() {
    let m = nbody::nbody_module();
    let kid = m.func_by_name("nbody_step").unwrap();
    let n = 64usize;
    let pos: Vec<[f32; 3]> = (0..n)
        .map(|i| [(i as f32).sin(), (i as f32 * 0.7).cos(), i as f32 * 0.1])
        .collect();
    let vel: Vec<[f32; 3]> = (0..n).map(|i| [0.1, -0.2, i as f32 * 0.01]).collect();
    let mass: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 0.25).collect();
    let bytes =
        |v: &[[f32; 3]]| -> Vec<u8> { v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect() };
    let mut ib: Vec<Vec<u8>> = vec![
        bytes(&pos),
        bytes(&vel),
        mass.iter().flat_map(|x| x.to_le_bytes()).collect(),
        vec![0u8; n * 12],
        vec![0u8; n * 12],
    ];
    let mut jb = ib.clone();
    let scalars: Vec<Vec<u8>> = vec![
        (n as i32).to_le_bytes().to_vec(),
        0.01f32.to_le_bytes().to_vec(),
        0.7f32.to_le_bytes().to_vec(),
        0.05f32.to_le_bytes().to_vec(),
    ];
    let elem = [12u32, 12, 4, 12, 12];
    {
        let mut args: Vec<ArgValue> = ib
            .iter_mut()
            .zip(elem)
            .map(|(b, e)| ArgValue::Array {
                data: b.as_mut_slice(),
                shape: [n as i32, 1, 1, 1],
                strides: [e as i64, 0, 0, 0],
            })
            .collect();
        args.extend(scalars.iter().map(|s| ArgValue::Value(s.clone())));
        run_kernel(&m, kid, &[n as i32], &mut args, &InterpOptions::default()).expect("interp");
    }
    let art = compile_checked(&m);
    let mut args: Vec<Arg> = jb
        .iter_mut()
        .zip(elem)
        .map(|(b, e)| Arg::Array(desc_bytes(b, e)))
        .collect();
    args.extend(scalars.iter().map(|s| Arg::Bytes(s.clone())));
    let block = pack(&m, "nbody_step", [n as i32, 1, 1, 1], &args);
    // SAFETY: block matches the kernel; the buffers outlive the call.
    unsafe { (art.kernel("nbody_step").unwrap().entry)(block.ptr(), 0, n as i64) };
    assert_eq!(jb, ib);
}
