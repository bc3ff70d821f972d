//! Every operation, cast and atomic the IR has, per scalar type, through the
//! NVPTX path: LLVM must select it (no fatal "cannot select"), and `ptxas`
//! (when found) must assemble it for sm_70 and sm_90.

mod common;

use common::emit_ptx;
use common::kernel_module;
use weft_backend_llvm::{find_libdevice, find_ptxas, ptxas_info, Options};
use weft_ir::interp::{eval_binary, eval_unary};
use weft_ir::ir::{AtomicOp, BinaryOp, MemAccess, UnaryOp};
use weft_ir::{Const, ElemType, Scalar, Type, Value};

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

const ATOMIC: [AtomicOp; 8] = [
    AtomicOp::Add,
    AtomicOp::Sub,
    AtomicOp::Min,
    AtomicOp::Max,
    AtomicOp::And,
    AtomicOp::Or,
    AtomicOp::Xor,
    AtomicOp::Exchange,
];

fn one(s: Scalar) -> Const {
    if s.is_float() {
        Const::float(s, 1.0)
    } else {
        Const::int(s, 1)
    }
}

/// One kernel per scalar type holding every op defined on it; the results
/// are stored to an output array of each result type.
fn module_for(s: Scalar) -> weft_ir::Module {
    let mut params: Vec<(&str, Type)> = vec![("a", arr1(s)), ("b", arr1(s)), ("o", arr1(s))];
    params.push(("flags", arr1(Scalar::Bool)));
    let names: Vec<String> = Scalar::ALL.iter().map(|t| format!("c_{t}")).collect();
    for (k, t) in Scalar::ALL.iter().enumerate() {
        params.push((names[k].as_str(), arr1(*t)));
    }
    kernel_module(&params, |b, p| {
        let i = b.thread_id();
        let x = b.load(at(p[0], i));
        let y = b.load(at(p[1], i));
        for op in UNARY {
            if let Some(r) = eval_unary(op, one(s)) {
                let v = b.unary(op, x);
                let dst = if r.ty == Scalar::Bool { p[3] } else { p[2] };
                b.store(at(dst, i), v);
            }
        }
        for op in BINARY {
            if let Some(r) = eval_binary(op, one(s), one(s)) {
                let v = b.binary(op, x, y);
                let dst = if r.ty == Scalar::Bool { p[3] } else { p[2] };
                b.store(at(dst, i), v);
            }
        }
        if s.is_float() {
            let v = b.fma(x, y, x);
            b.store(at(p[2], i), v);
        }
        for (k, t) in Scalar::ALL.iter().enumerate() {
            let v = b.cast(x, *t);
            b.store(at(p[4 + k], i), v);
            if t.size() == s.size() && *t != Scalar::Bool && s != Scalar::Bool {
                let bc = b.bitcast(x, *t);
                b.store(at(p[4 + k], i), bc);
            }
        }
        let zero = b.konst(Const::int(Scalar::I32, 0));
        for op in ATOMIC {
            let ok = match op {
                AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => !s.is_float(),
                AtomicOp::Add | AtomicOp::Sub => s != Scalar::Bool,
                _ => true,
            };
            if ok {
                let old = b.atomic(op, at(p[2], zero), x);
                b.store(at(p[2], i), old);
            }
        }
        b.return_(vec![]);
    })
}

#[test]
fn every_op_cast_and_atomic_compiles_to_ptx() {
    if find_libdevice(None).is_none() {
        weft_testkit::skip("transcendentals: libdevice.10.bc not found");
    }
    let ptxas = find_ptxas();
    if ptxas.is_none() {
        weft_testkit::skip("ptxas part: ptxas not found");
    }
    let mut failures = Vec::new();
    for s in Scalar::ALL {
        let m = module_for(s);
        for (arch, fast) in [("sm_70", false), ("sm_90", false), ("sm_80", true)] {
            let opts = Options {
                arch: arch.into(),
                ..Options::default()
            };
            let m = if fast { common::fast(&m) } else { m.clone() };
            match emit_ptx(&m, &opts) {
                Ok(a) => {
                    if ptxas.is_some() {
                        if let Err(e) = ptxas_info(&a.ptx, arch) {
                            failures.push(format!("{s} {arch} fast={fast}: {e}"));
                        }
                    }
                }
                Err(weft_backend_llvm::Error::NoLibdevice { .. })
                    if find_libdevice(None).is_none() => {}
                Err(e) => failures.push(format!("{s} {arch} fast={fast}: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
