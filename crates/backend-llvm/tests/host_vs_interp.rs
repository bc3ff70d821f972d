//! llvm-cpu against the reference interpreter: every unary and binary
//! operation and every cast, per scalar type, on random and special inputs,
//! compared bit for bit (NaNs compare as NaN).

mod common;

use common::compile_host;
use common::*;
use weft_ir::interp::{eval_binary, eval_cast, eval_unary};
use weft_ir::ir::{BinaryOp, MemAccess, UnaryOp};
use weft_ir::{Const, ElemType, Scalar, Type, Value};

const N: usize = 64;

fn arr1(s: Scalar) -> Type {
    Type::Array(weft_ir::ArrayType {
        elem: ElemType::Scalar(s),
        ndim: 1,
    })
}

fn at(array: Value, i: Value) -> MemAccess {
    MemAccess {
        array,
        indices: vec![i],
        path: vec![],
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `N` element values of type `s` as bytes: special values first, then
/// random ones (floats: a mix of small magnitudes and raw bit patterns).
fn inputs(s: Scalar, rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    let specials: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        2.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e30,
        -7.25,
        65504.0,
        3.0,
    ];
    for i in 0..N {
        let r = rng.next();
        let c = if s.is_float() {
            let v = if i < specials.len() {
                specials[i]
            } else if i % 3 == 0 {
                match s {
                    Scalar::F16 => weft_ir::f16::f16_to_f64(r as u16),
                    Scalar::BF16 => weft_ir::f16::bf16_to_f32(r as u16) as f64,
                    Scalar::F32 => f32::from_bits(r as u32) as f64,
                    _ => f64::from_bits(r),
                }
            } else {
                ((r % 20000) as f64 - 10000.0) / 997.0
            };
            Const::float(s, v)
        } else if s == Scalar::Bool {
            Const::bool(r & 1 == 1)
        } else if i < 8 {
            Const::int(s, [0, 1, -1, 2, -2, 7, i64::MIN, i64::MAX][i])
        } else if i % 2 == 0 {
            Const::int(s, (r % 37) as i64 - 18)
        } else {
            Const::from_i128(s, r as i64 as i128)
        };
        out.extend(to_bytes(c));
    }
    out
}

fn to_bytes(c: Const) -> Vec<u8> {
    let n = c.ty.size() as usize;
    let bits = match c.ty {
        Scalar::F16 => weft_ir::f16::f64_to_f16(f64::from_bits(c.bits)) as u64,
        Scalar::BF16 => weft_ir::f16::f64_to_bf16(f64::from_bits(c.bits)) as u64,
        Scalar::F32 => (f64::from_bits(c.bits) as f32).to_bits() as u64,
        _ => c.bits,
    };
    bits.to_le_bytes()[..n].to_vec()
}

fn from_bytes(s: Scalar, b: &[u8]) -> Const {
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    let raw = u64::from_le_bytes(w);
    match s {
        Scalar::F16 => Const::float(s, weft_ir::f16::f16_to_f64(raw as u16)),
        Scalar::BF16 => Const::float(s, weft_ir::f16::bf16_to_f32(raw as u16) as f64),
        Scalar::F32 => Const::float(s, f32::from_bits(raw as u32) as f64),
        Scalar::F64 => Const { ty: s, bits: raw },
        Scalar::Bool => Const::bool(raw & 1 == 1),
        _ if s.is_signed_int() => Const::from_i128(
            s,
            match s.size() {
                1 => raw as i8 as i128,
                2 => raw as i16 as i128,
                4 => raw as i32 as i128,
                _ => raw as i64 as i128,
            },
        ),
        _ => Const::from_i128(s, raw as i128),
    }
}

fn same(a: Const, b: Const) -> bool {
    if a.ty.is_float() && f64::from_bits(a.bits).is_nan() {
        return f64::from_bits(b.bits).is_nan();
    }
    a == b
}

/// Runs kernel `k` (params: input arrays then the output array) over `N`.
fn run(m: &weft_ir::Module, ins: &mut [Vec<u8>], ins_s: &[Scalar], out_s: Scalar) -> Vec<u8> {
    let art = compile_host(m, &weft_backend_llvm::host::Options::default()).expect("compile");
    let k = art.kernel("k").expect("kernel");
    let mut out = vec![0u8; N * out_s.size() as usize];
    let mut descs: Vec<_> = ins
        .iter_mut()
        .zip(ins_s)
        .map(|(b, s)| raw_desc(b, s.size()))
        .collect();
    descs.push(raw_desc(&mut out, out_s.size()));
    let blk = pack_arrays(m, "k", [N as i32, 1, 1, 1], &descs);
    // SAFETY: the block matches the kernel's params; the buffers outlive the call.
    unsafe { (k.entry)(blk.as_ptr() as *const u8, 0, N as i64) };
    out
}

const UNARY: [UnaryOp; 31] = {
    use UnaryOp::*;
    [
        Neg, Not, Abs, Sqrt, Cbrt, Floor, Ceil, Trunc, Round, Rint, Sin, Cos, Tan, Asin, Acos,
        Atan, Sinh, Cosh, Tanh, Exp, Exp2, Log, Log2, Log10, Erf, Erfc, Erfinv, Popcount, IsNan,
        IsInf, IsFinite,
    ]
};

const BINARY: [BinaryOp; 21] = {
    use BinaryOp::*;
    [
        Add, Sub, Mul, Div, Rem, Min, Max, Pow, Atan2, Copysign, And, Or, Xor, Shl, Shr, Eq, Ne,
        Lt, Le, Gt, Ge,
    ]
};

#[test]
fn every_unary_op_matches_the_interpreter() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let mut checked = 0;
    for s in Scalar::ALL {
        for op in UNARY {
            let probe = Const::int(s, 1);
            let Some(r) = eval_unary(
                op,
                if s.is_float() {
                    Const::float(s, 1.0)
                } else {
                    probe
                },
            ) else {
                continue;
            };
            let out_s = r.ty;
            let m = kernel_module(&[("a", arr1(s)), ("o", arr1(out_s))], |b, p| {
                let i = b.thread_id();
                let x = b.load(at(p[0], i));
                let y = b.unary(op, x);
                b.store(at(p[1], i), y);
                b.return_(vec![]);
            });
            let mut ins = vec![inputs(s, &mut rng)];
            let out = run(&m, &mut ins, &[s], out_s);
            for j in 0..N {
                let x = from_bytes(s, &ins[0][j * s.size() as usize..][..s.size() as usize]);
                let want = eval_unary(op, x).expect("supported");
                let got = from_bytes(
                    out_s,
                    &out[j * out_s.size() as usize..][..out_s.size() as usize],
                );
                assert!(
                    same(want, got),
                    "{op:?} {s} x={x:?}: llvm-cpu {got:?}, interpreter {want:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn every_binary_op_matches_the_interpreter() {
    let mut rng = Rng(0x2545f4914f6cdd1d);
    for s in Scalar::ALL {
        for op in BINARY {
            let one = if s.is_float() {
                Const::float(s, 1.0)
            } else {
                Const::int(s, 1)
            };
            let Some(r) = eval_binary(op, one, one) else {
                continue;
            };
            let out_s = r.ty;
            let m = kernel_module(
                &[("a", arr1(s)), ("b", arr1(s)), ("o", arr1(out_s))],
                |b, p| {
                    let i = b.thread_id();
                    let x = b.load(at(p[0], i));
                    let y = b.load(at(p[1], i));
                    let z = b.binary(op, x, y);
                    b.store(at(p[2], i), z);
                    b.return_(vec![]);
                },
            );
            let a = inputs(s, &mut rng);
            // b: the same values in another order, so equal pairs occur too.
            let sz = s.size() as usize;
            let mut bb = inputs(s, &mut rng);
            for j in (0..N).step_by(5) {
                let k = (j * 7) % N;
                bb[j * sz..][..sz].copy_from_slice(&a[k * sz..][..sz]);
            }
            let mut ins = vec![a, bb];
            let out = run(&m, &mut ins, &[s, s], out_s);
            for j in 0..N {
                let x = from_bytes(s, &ins[0][j * sz..][..sz]);
                let y = from_bytes(s, &ins[1][j * sz..][..sz]);
                let want = eval_binary(op, x, y).expect("supported");
                let got = from_bytes(
                    out_s,
                    &out[j * out_s.size() as usize..][..out_s.size() as usize],
                );
                assert!(
                    same(want, got),
                    "{op:?} {s} {x:?} {y:?}: llvm-cpu {got:?}, interpreter {want:?}"
                );
            }
        }
    }
}

#[test]
fn every_cast_matches_the_interpreter() {
    let mut rng = Rng(0xdeadbeefcafef00d);
    for from in Scalar::ALL {
        for to in Scalar::ALL {
            let m = kernel_module(&[("a", arr1(from)), ("o", arr1(to))], |b, p| {
                let i = b.thread_id();
                let x = b.load(at(p[0], i));
                let y = b.cast(x, to);
                b.store(at(p[1], i), y);
                b.return_(vec![]);
            });
            let mut ins = vec![inputs(from, &mut rng)];
            let out = run(&m, &mut ins, &[from], to);
            let fs = from.size() as usize;
            for j in 0..N {
                let x = from_bytes(from, &ins[0][j * fs..][..fs]);
                let want = eval_cast(x, to);
                let got = from_bytes(to, &out[j * to.size() as usize..][..to.size() as usize]);
                assert!(
                    same(want, got),
                    "cast {from}->{to} {x:?}: llvm-cpu {got:?}, interpreter {want:?}"
                );
            }
        }
    }
}
