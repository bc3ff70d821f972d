//! Malformed IR never makes the backend panic: thousands of randomly
//! mutated modules either compile or return an error, with Cranelift's
//! verifier on and off.

mod common;

use weft_backend_cpu::{compile, OptLevel, Options};
use weft_ir::{Const, InstKind, Module, Scalar, Value};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One random mutation of the first function of `m`.
fn mutate(m: &mut Module, rng: &mut Rng) {
    let fid = m.funcs.keys().next().expect("a function");
    let f = &mut m.funcs[fid];
    let ninst = f.insts.len();
    let nval = f.values.len();
    let inst = weft_ir::Inst::from_u32(rng.below(ninst) as u32);
    match rng.below(6) {
        // retype a value (param, loop param or result) to anything
        5 => {
            use weft_ir::{ArrayType, ElemType, Type};
            let tys = [
                Type::I32,
                Type::F32,
                Type::BOOL,
                Type::Scalar(Scalar::F16),
                Type::Vec(3, Scalar::F32),
                Type::Mat(2, 2, Scalar::F64),
                Type::Array(ArrayType {
                    elem: ElemType::Scalar(Scalar::F32),
                    ndim: 1,
                }),
                Type::Array(ArrayType {
                    elem: ElemType::Vec(3, Scalar::F32),
                    ndim: rng.below(5) as u8,
                }),
            ];
            let v = Value::from_u32(rng.below(nval) as u32);
            let t = tys[rng.below(tys.len())];
            f.values[v].ty = t;
            if let Some(k) = f.regions[f.body].params.iter().position(|&p| p == v) {
                f.params[k].ty = t;
            }
        }
        // replace an operand by another value (any type, any scope)
        0 => {
            let args = f.insts[inst].kind.args();
            if !args.is_empty() {
                let target = args[rng.below(args.len())];
                let repl = Value::from_u32(rng.below(nval) as u32);
                f.insts[inst]
                    .kind
                    .map_args(|v| if v == target { repl } else { v });
            }
        }
        // drop an instruction from its region
        1 => {
            for r in f.regions.values_mut() {
                if let Some(p) = r.insts.iter().position(|&i| i == inst) {
                    r.insts.remove(p);
                    break;
                }
            }
        }
        // swap two instructions of a region
        2 => {
            let regions: Vec<_> = f.regions.keys().collect();
            let r = regions[rng.below(regions.len())];
            let n = f.regions[r].insts.len();
            if n > 1 {
                let (a, b) = (rng.below(n), rng.below(n));
                f.regions[r].insts.swap(a, b);
            }
        }
        // retype a constant (its result keeps the old type)
        3 => {
            if let InstKind::Const(c) = &mut f.insts[inst].kind {
                let s = Scalar::ALL[rng.below(Scalar::ALL.len())];
                *c = Const::from_i128(s, 1);
            }
        }
        // change a path or an axis
        _ => match &mut f.insts[inst].kind {
            InstKind::Extract(_, p) | InstKind::Insert(_, p, _) => p.push(rng.below(20) as u32),
            InstKind::Load(a) | InstKind::Store(a, _) | InstKind::Atomic(_, a, _) => {
                if rng.below(2) == 0 {
                    a.path.push(rng.below(5) as u32)
                } else {
                    a.indices.pop();
                }
            }
            InstKind::LaunchDim(a) | InstKind::ArrayShape(_, a) => *a = rng.below(9) as u8,
            _ => {}
        },
    }
}

#[test]
fn mutated_modules_never_panic() {
    let base = [common::nbody::nbody_module(), robust_base()];
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    let mut errors = 0;
    for round in 0..1500 {
        let mut m = base[round % base.len()].clone();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut m, &mut rng);
        }
        for verify in [true, false] {
            let opts = Options {
                opt_level: if round % 3 == 0 {
                    OptLevel::O0
                } else {
                    OptLevel::O2
                },
                verify,
                debug: round % 5 == 0,
                debug_info: round % 7 == 0,
                single_pass_regalloc_above: if round % 2 == 0 { 0 } else { usize::MAX },
                cancel_checks: round % 4 == 1,
            };
            let r = std::panic::catch_unwind(|| {
                compile(&m, &weft_ir::ModuleInfo::of(&m), &opts).map(|_| ())
            });
            match r {
                Ok(Ok(())) => {}
                Ok(Err(_)) => errors += 1,
                Err(_) => panic!("compile panicked on mutation round {round} (verify={verify})"),
            }
        }
    }
    assert!(
        errors > 100,
        "mutations should mostly be rejected, got {errors} errors"
    );
}

/// A kernel with a loop, an if with results, a call, atomics and a struct.
fn robust_base() -> Module {
    use weft_ir::ir::{AtomicOp, BinaryOp, MemAccess};
    use weft_ir::{ElemType, Type};
    let v3 = Type::Vec(3, Scalar::F32);
    common::kernel_module(
        &[
            ("a", common::arr(ElemType::Vec(3, Scalar::F32), 1)),
            ("c", common::arr1(Scalar::I32)),
            ("n", Type::I32),
        ],
        |b, p| {
            let i = b.thread_id();
            let at = |x| MemAccess {
                array: x,
                indices: vec![i],
                path: vec![],
            };
            let v = b.load(at(p[0]));
            let z = b.iconst(Scalar::I32, 0);
            let (lp, body, ps) = b.loop_(vec![z, v], &[v3]);
            b.switch_to(body);
            let c = b.binary(BinaryOp::Lt, ps[0], p[2]);
            let (iff, t, e) = b.if_(c, &[Type::I32]);
            b.switch_to(t);
            let one = b.iconst(Scalar::I32, 1);
            let j = b.binary(BinaryOp::Add, ps[0], one);
            b.yield_(vec![j]);
            b.switch_to(e);
            b.break_(vec![ps[1]]);
            b.switch_to(body);
            let j = b.func.results(iff)[0];
            let x = b.extract(ps[1], vec![0]);
            let h = b.fconst(Scalar::F32, 0.5);
            let x = b.binary(BinaryOp::Mul, x, h);
            let nv = b.insert(ps[1], vec![0], x);
            b.continue_(vec![j, nv]);
            b.switch_to(b.func.body);
            let r = b.func.results(lp)[0];
            b.store(at(p[0]), r);
            b.atomic(AtomicOp::Add, at(p[1]), i);
            b.return_(vec![]);
        },
    )
}
