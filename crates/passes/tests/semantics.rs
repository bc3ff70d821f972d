//! Differential tests: the reference interpreter must compute the same
//! results before and after the passes.

use weft_ir::interp::{run_kernel, ArgValue, InterpOptions};
use weft_ir::{
    BinaryOp, Const, FuncBuilder, FuncId, FuncKind, Module, Scalar, Type, UnaryOp, Value,
};
use weft_passes::{run_pipeline, PipelineOptions, VerifyMode};

mod common;
use common::*;

/// A kernel argument for [`run`].
enum Arg {
    /// A 1-D array of bytes with the given element size.
    Array(Vec<u8>, usize),
    I32(i32),
}

fn i32s(v: &[i32]) -> Arg {
    Arg::Array(v.iter().flat_map(|x| x.to_le_bytes()).collect(), 4)
}

fn to_i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs kernel `name` over `n` threads; returns the final array contents.
fn run(m: &Module, name: &str, n: i32, args: &[Arg]) -> Vec<Vec<u8>> {
    let k = m.func_by_name(name).expect("kernel exists");
    let mut bufs: Vec<Vec<u8>> = args
        .iter()
        .map(|a| match a {
            Arg::Array(b, _) => b.clone(),
            Arg::I32(_) => Vec::new(),
        })
        .collect();
    {
        let mut iargs: Vec<ArgValue> = bufs
            .iter_mut()
            .zip(args)
            .map(|(buf, a)| match a {
                Arg::Array(_, elem) => ArgValue::Array {
                    shape: [(buf.len() / elem) as i32, 1, 1, 1],
                    strides: [*elem as i64, 0, 0, 0],
                    data: buf.as_mut_slice(),
                },
                Arg::I32(v) => ArgValue::Value(v.to_le_bytes().to_vec()),
            })
            .collect();
        run_kernel(m, k, &[n], &mut iargs, &InterpOptions::default()).expect("kernel runs");
    }
    bufs
}

/// Runs before and after the default pipeline; asserts equal results and
/// returns them.
fn same_before_after(m: Module, name: &str, n: i32, args: &[Arg]) -> Vec<Vec<u8>> {
    optimized_same(m, name, n, args).0
}

/// [`same_before_after`], also returning the optimized module.
fn optimized_same(m: Module, name: &str, n: i32, args: &[Arg]) -> (Vec<Vec<u8>>, Module) {
    optimized_same_with(m, name, n, args, &[])
}

/// [`optimized_same`] with opt-in passes ([`PipelineOptions::enable`]).
fn optimized_same_with(
    m: Module,
    name: &str,
    n: i32,
    args: &[Arg],
    enable: &[&str],
) -> (Vec<Vec<u8>>, Module) {
    let before = run(&m, name, n, args);
    let mut opt = m.clone();
    run_pipeline(
        &mut opt,
        &PipelineOptions {
            verify: VerifyMode::Always,
            enable: enable.iter().map(|s| s.to_string()).collect(),
            ..PipelineOptions::default()
        },
    )
    .expect("pipeline runs");
    assert!(
        opt.funcs.iter().all(|(_, f)| f.kind == FuncKind::Kernel),
        "all funcs inlined and removed"
    );
    let after = run(&opt, name, n, args);
    assert_eq!(
        before,
        after,
        "results differ after the pipeline:\n{}",
        weft_ir::text::print_module(&opt)
    );
    (after, opt)
}

#[test]
fn early_return_in_loop_runs_the_same() {
    let mut m = Module::new();
    let find = add_find(&mut m);
    add_func(
        &mut m,
        "k",
        FuncKind::Kernel,
        vec![
            param("a", arr(I32)),
            param("keys", arr(I32)),
            param("out", arr(I32)),
            param("n", Type::I32),
        ],
        vec![],
        |b, ps| {
            let tid = b.thread_id();
            let key = b.load(at(ps[1], tid));
            let c = b.call(find, vec![ps[0], ps[3], key], &[Type::I32]);
            let r = b.func.insts[c].results[0];
            b.store(at(ps[2], tid), r);
            b.return_(vec![]);
        },
    );
    let a = [5, 3, 9, 3, 7];
    let keys = [3, 7, 5, 42, 9, 0];
    let out = same_before_after(
        m,
        "k",
        keys.len() as i32,
        &[
            i32s(&a),
            i32s(&keys),
            i32s(&[0; 6]),
            Arg::I32(a.len() as i32),
        ],
    );
    assert_eq!(to_i32s(&out[2]), vec![1, 4, 0, -1, 2, -1]);
}

/// `func pair(a, n, t) -> (i32, i32)`: the first `(i, j)` with
/// `a[i] + a[j] == t`, else `(-1, -1)` — a return two loops deep, and a
/// loop-carried sum around it that the result also depends on.
fn add_pair(m: &mut Module) -> FuncId {
    add_func(
        m,
        "pair",
        FuncKind::Func,
        vec![
            param("a", arr(I32)),
            param("n", Type::I32),
            param("t", Type::I32),
        ],
        vec![Type::I32, Type::I32],
        |b, ps| {
            let (a, n, t) = (ps[0], ps[1], ps[2]);
            let zero = b.iconst(I32, 0);
            let one = b.iconst(I32, 1);
            // outer: loop (i = 0, tries = 0) -> tries
            let (outer, obody, ops) = b.loop_(vec![zero, zero], &[Type::I32]);
            b.switch_to(obody);
            let (i, tries) = (ops[0], ops[1]);
            let lt = b.binary(BinaryOp::Lt, i, n);
            let (_, th, el) = b.if_(lt, &[]);
            b.switch_to(th);
            b.yield_(vec![]);
            b.switch_to(el);
            b.break_(vec![tries]);
            b.switch_to(obody);
            // inner: loop (j = 0, tries) -> tries
            let (inner, ibody, ips) = b.loop_(vec![zero, tries], &[Type::I32]);
            b.switch_to(ibody);
            let (j, tr) = (ips[0], ips[1]);
            let lt = b.binary(BinaryOp::Lt, j, n);
            let (_, th, el) = b.if_(lt, &[]);
            b.switch_to(th);
            b.yield_(vec![]);
            b.switch_to(el);
            b.break_(vec![tr]);
            b.switch_to(ibody);
            let x = b.load(at(a, i));
            let y = b.load(at(a, j));
            let s = b.binary(BinaryOp::Add, x, y);
            let eq = b.binary(BinaryOp::Eq, s, t);
            let (_, th, el) = b.if_(eq, &[]);
            b.switch_to(th);
            let ri = b.binary(BinaryOp::Add, i, tr);
            let ri = b.binary(BinaryOp::Sub, ri, tr);
            b.return_(vec![ri, j]);
            b.switch_to(el);
            b.yield_(vec![]);
            b.switch_to(ibody);
            let j1 = b.binary(BinaryOp::Add, j, one);
            let tr1 = b.binary(BinaryOp::Add, tr, one);
            b.continue_(vec![j1, tr1]);
            b.switch_to(obody);
            let tries2 = b.func.insts[inner].results[0];
            let i1 = b.binary(BinaryOp::Add, i, one);
            b.continue_(vec![i1, tries2]);
            b.switch_to(b.func.body);
            let total = b.func.insts[outer].results[0];
            let neg = b.unary(UnaryOp::Neg, total);
            b.return_(vec![neg, neg]);
        },
    )
}

#[test]
fn return_two_loops_deep_runs_the_same() {
    let mut m = Module::new();
    let pair = add_pair(&mut m);
    add_func(
        &mut m,
        "k",
        FuncKind::Kernel,
        vec![
            param("a", arr(I32)),
            param("ts", arr(I32)),
            param("out", arr(I32)),
            param("n", Type::I32),
        ],
        vec![],
        |b, ps| {
            let tid = b.thread_id();
            let t = b.load(at(ps[1], tid));
            let c = b.call(pair, vec![ps[0], ps[3], t], &[Type::I32, Type::I32]);
            let (ri, rj) = (b.func.insts[c].results[0], b.func.insts[c].results[1]);
            let two = b.iconst(I32, 2);
            let i2 = b.binary(BinaryOp::Mul, tid, two);
            b.store(at(ps[2], i2), ri);
            let one = b.iconst(I32, 1);
            let i3 = b.binary(BinaryOp::Add, i2, one);
            b.store(at(ps[2], i3), rj);
            b.return_(vec![]);
        },
    );
    let a = [1, 4, 6, 10];
    let ts = [5, 20, 12, 100];
    let out = same_before_after(
        m,
        "k",
        ts.len() as i32,
        &[i32s(&a), i32s(&ts), i32s(&[0; 8]), Arg::I32(a.len() as i32)],
    );
    // 5 = 1 + 4 at (0, 1); 20 = 10 + 10 at (3, 3); 12 = 6 + 6 at (2, 2);
    // 100: not found, -(4 * 4) tries.
    assert_eq!(to_i32s(&out[2]), vec![0, 1, 3, 3, 2, 2, -16, -16]);
}

/// Emits `loop (i = 0..n)` whose body is built by `body(b, i)` (which
/// must leave the builder in an open region); returns the loop.
fn counted_loop(
    b: &mut FuncBuilder,
    n: Value,
    body: impl FnOnce(&mut FuncBuilder, Value),
) -> weft_ir::Inst {
    let outer = b.region();
    let zero = b.iconst(I32, 0);
    let (lp, lbody, ps) = b.loop_(vec![zero], &[]);
    b.switch_to(lbody);
    let i = ps[0];
    let lt = b.binary(BinaryOp::Lt, i, n);
    let (_, t, e) = b.if_(lt, &[]);
    b.switch_to(e);
    b.break_(vec![]);
    b.switch_to(t);
    b.yield_(vec![]);
    b.switch_to(lbody);
    body(b, i);
    let one = b.iconst(I32, 1);
    let i1 = b.binary(BinaryOp::Add, i, one);
    b.continue_(vec![i1]);
    b.switch_to(outer);
    lp
}

/// A return inside an `if` inside a loop inside an `if` inside a loop:
/// `f(a, n)` = `100 * i + j` for the first `i` with `a[i] > 0` and some
/// `j < i` with `a[j] == a[i]`, else -1.
#[test]
fn return_in_loop_in_if_in_loop_runs_the_same() {
    let mut m = Module::new();
    let f = add_func(
        &mut m,
        "f",
        FuncKind::Func,
        vec![param("a", arr(I32)), param("n", Type::I32)],
        vec![Type::I32],
        |b, ps| {
            let (a, n) = (ps[0], ps[1]);
            counted_loop(b, n, |b, i| {
                let ai = b.load(at(a, i));
                let zero = b.iconst(I32, 0);
                let pos = b.binary(BinaryOp::Gt, ai, zero);
                let here = b.region();
                let (_, t, e) = b.if_(pos, &[]);
                b.switch_to(e);
                b.yield_(vec![]);
                b.switch_to(t);
                counted_loop(b, i, |b, j| {
                    let aj = b.load(at(a, j));
                    let eq = b.binary(BinaryOp::Eq, aj, ai);
                    let inner = b.region();
                    let (_, t2, e2) = b.if_(eq, &[]);
                    b.switch_to(t2);
                    let h = b.iconst(I32, 100);
                    let r = b.binary(BinaryOp::Mul, i, h);
                    let r = b.binary(BinaryOp::Add, r, j);
                    b.return_(vec![r]);
                    b.switch_to(e2);
                    b.yield_(vec![]);
                    b.switch_to(inner);
                });
                b.yield_(vec![]);
                b.switch_to(here);
            });
            let m1 = b.iconst(I32, -1);
            b.return_(vec![m1]);
        },
    );
    add_func(
        &mut m,
        "k",
        FuncKind::Kernel,
        vec![
            param("a", arr(I32)),
            param("out", arr(I32)),
            param("ns", arr(I32)),
        ],
        vec![],
        |b, ps| {
            let tid = b.thread_id();
            let n = b.load(at(ps[2], tid));
            let c = b.call(f, vec![ps[0], n], &[Type::I32]);
            let r = b.func.insts[c].results[0];
            b.store(at(ps[1], tid), r);
            b.return_(vec![]);
        },
    );
    let a = [3, -1, 5, -1, 3, 5, 7];
    let ns = [0, 3, 4, 5, 6, 7];
    let out = same_before_after(
        m,
        "k",
        ns.len() as i32,
        &[i32s(&a), i32s(&[0; 6]), i32s(&ns)],
    );
    // -1 (< 0 is not > 0) is skipped; a[4] = 3 = a[0]; a[5] = 5 = a[2].
    assert_eq!(to_i32s(&out[1]), vec![-1, -1, -1, 400, 400, 400]);
}

/// Builds `k_<T>` (results of type `ty`) and `k_bool` (comparisons and
/// predicates): one `out[k] = op(consts)` per case; runs both unfolded and
/// folded, asserting equal bytes. Returns the number of instructions left
/// that are neither constants nor stores.
fn folding_matches(ty: Scalar, binops: &[BinaryOp], unops: &[UnaryOp], vals: &[Const]) -> usize {
    let mut m = Module::new();
    let mut n_out = 0;
    let is_bool_op =
        |op: UnaryOp| matches!(op, UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite);
    for out_ty in [ty, Scalar::Bool] {
        let name = format!("k_{}", out_ty.name());
        let mut k = 0;
        add_func(
            &mut m,
            &name,
            FuncKind::Kernel,
            vec![param("out", arr(out_ty))],
            vec![],
            |b, ps| {
                let mut store = |b: &mut FuncBuilder, r: Value| {
                    let idx = b.iconst(I32, k);
                    b.store(at(ps[0], idx), r);
                    k += 1;
                };
                for &op in binops {
                    let rt = if op.is_comparison() { Scalar::Bool } else { ty };
                    if rt != out_ty {
                        continue;
                    }
                    for &x in vals {
                        for &y in vals {
                            let cx = b.konst(x);
                            let cy = b.konst(y);
                            let r = b.binary(op, cx, cy);
                            store(b, r);
                        }
                    }
                }
                for &op in unops {
                    let rt = if is_bool_op(op) { Scalar::Bool } else { ty };
                    if rt != out_ty {
                        continue;
                    }
                    for &x in vals {
                        let cx = b.konst(x);
                        let r = b.unary(op, cx);
                        store(b, r);
                    }
                }
                if out_ty == ty {
                    for to in [
                        Scalar::I32,
                        Scalar::U8,
                        Scalar::F32,
                        Scalar::F16,
                        Scalar::F64,
                        Scalar::I64,
                    ] {
                        for &x in vals {
                            let cx = b.konst(x);
                            let c = b.cast(cx, to);
                            let back = b.cast(c, ty);
                            store(b, back);
                        }
                    }
                    if ty.is_float() {
                        for &x in vals {
                            let cx = b.konst(x);
                            let r = b.fma(cx, cx, cx);
                            store(b, r);
                        }
                    }
                }
                b.return_(vec![]);
            },
        );
        n_out = n_out.max(k);
    }
    let size = ty.size() as usize;
    let k_ty = format!("k_{}", ty.name());
    let (out, opt) = optimized_same(
        m.clone(),
        &k_ty,
        1,
        &[Arg::Array(vec![0; n_out as usize * size], size)],
    );
    assert!(out[0].iter().any(|&b| b != 0));
    let (_, opt_bool) = optimized_same(m, "k_bool", 1, &[Arg::Array(vec![0; n_out as usize], 1)]);
    [opt, opt_bool]
        .iter()
        .map(|o| {
            weft_ir::text::print_module(o)
                .lines()
                .filter(|l| l.contains(" = ") && !l.contains(" = const "))
                .count()
        })
        .sum()
}

/// Folding computes what the interpreter computes, for integers: every case
/// folds.
#[test]
fn integer_folding_matches_the_interpreter() {
    use BinaryOp::*;
    let ops = [
        Add, Sub, Mul, Div, Rem, Min, Max, And, Or, Xor, Shl, Shr, Eq, Ne, Lt, Le, Gt, Ge,
    ];
    let unops = [UnaryOp::Neg, UnaryOp::Not, UnaryOp::Abs, UnaryOp::Popcount];
    let vals: [i64; 9] = [0, 1, -1, 7, -7, 2, 33, i64::MIN, i64::MAX];
    for ty in [
        Scalar::I32,
        Scalar::U8,
        Scalar::I64,
        Scalar::U32,
        Scalar::I16,
    ] {
        let consts: Vec<Const> = vals.iter().map(|&v| Const::int(ty, v)).collect();
        let left = folding_matches(ty, &ops, &unops, &consts);
        assert_eq!(left, 0, "{ty}: not everything folded");
    }
}

/// The same for floats, transcendental functions included (they are
/// evaluated by the interpreter's code); only NaN-producing cases stay.
#[test]
fn float_folding_matches_the_interpreter() {
    use BinaryOp::*;
    let ops = [
        Add, Sub, Mul, Div, Rem, Min, Max, Pow, Atan2, Copysign, Eq, Ne, Lt, Le, Gt, Ge,
    ];
    use UnaryOp as U;
    let unops = [
        U::Neg,
        U::Abs,
        U::Sqrt,
        U::Cbrt,
        U::Floor,
        U::Ceil,
        U::Trunc,
        U::Round,
        U::Rint,
        U::Sin,
        U::Cos,
        U::Tan,
        U::Asin,
        U::Acos,
        U::Atan,
        U::Sinh,
        U::Cosh,
        U::Tanh,
        U::Exp,
        U::Exp2,
        U::Log,
        U::Log2,
        U::Log10,
        U::Erf,
        U::Erfc,
        U::Erfinv,
        U::IsNan,
        U::IsInf,
        U::IsFinite,
    ];
    let vals = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        0.1,
        2.5,
        1e30,
        -7.0,
        f64::INFINITY,
        0.75,
    ];
    for ty in [Scalar::F32, Scalar::F64, Scalar::F16] {
        let consts: Vec<Const> = vals.iter().map(|&v| Const::float(ty, v)).collect();
        let left = folding_matches(ty, &ops, &unops, &consts);
        // NaN results (0/0, inf-inf, sqrt(-1), ...) are left to run time.
        assert!(left < 200, "{ty}: {left} cases not folded");
    }
}

/// `strength-reduce`: `rem a, c` next to `div a, c` (constant non-zero
/// `c`) becomes `a - (a / c) * c`, and gives the same numbers on the
/// corner cases of wrapping division (`MIN / -1`, negative dividends).
#[test]
fn strength_reduced_remainders_run_the_same() {
    let mut m = Module::new();
    add_func(
        &mut m,
        "k",
        FuncKind::Kernel,
        vec![param("x", arr(I32)), param("out", arr(I32))],
        vec![],
        |b, ps| {
            let tid = b.thread_id();
            let a = b.load(at(ps[0], tid));
            let mut acc = b.iconst(I32, 0);
            for c in [-1, 1, 3, -7, i32::MIN as i64] {
                let c = b.iconst(I32, c);
                let r = b.binary(BinaryOp::Rem, a, c);
                let q = b.binary(BinaryOp::Div, a, c);
                let k = b.iconst(I32, 31);
                let qk = b.binary(BinaryOp::Mul, q, k);
                let s = b.binary(BinaryOp::Add, r, qk);
                acc = b.binary(BinaryOp::Xor, acc, s);
            }
            b.store(at(ps[1], tid), acc);
            b.return_(vec![]);
        },
    );
    let xs = [i32::MIN, i32::MAX, -7, 7, 0, -1, 1, 22, -22, i32::MIN + 1];
    let args = [i32s(&xs), i32s(&[0; 10])];
    let (_, opt) = optimized_same_with(m, "k", xs.len() as i32, &args, &["strength-reduce"]);
    let k = &opt.funcs[opt.func_by_name("k").expect("kernel")];
    let rems = weft_passes::walk::all_insts(k)
        .into_iter()
        .filter(|&i| {
            matches!(
                k.insts[i].kind,
                weft_ir::InstKind::Binary(BinaryOp::Rem, ..)
            )
        })
        .count();
    assert_eq!(rems, 0, "every remainder rewritten");
}

/// `unroll`: loops whose trip count becomes constant after inlining (a
/// func's counted loop, an up-counting and a down-counting one with step
/// -2, one nested in a loop that is not unrolled) compute the same after
/// unrolling, and are gone.
#[test]
fn unrolled_loops_run_the_same() {
    let m = weft_ir::text::parse_module(
        "func @sum(v0 \"a\": array1<i32>, v1 \"k\": i32, v2 \"base\": i32) -> i32 {
           v3: i32 = const 0
           v4: i32 = const 1
           v5: i32 = loop (v6 \"i\": i32 = v3, v7 \"s\": i32 = v3) {
             v8: bool = lt v6, v1
             v9: i32 = add v6, v4
             if v8 {
               yield
             } else {
               break v7
             }
             v10: i32 = add v2, v6
             v11: i32 = load v0[v10]
             v12: i32 = mul v7, v1
             v13: i32 = add v12, v11
             continue v9, v13
           }
           return v5
         }
         kernel @k(v0 \"a\": array1<i32>, v1 \"out\": array1<i32>, v2 \"n\": i32) {
           v3: i32 = thread_id
           v4: i32 = const 4
           v5: i32 = const 0
           v6: i32 = call @sum(v0, v4, v5)
           v7: i32 = const 7
           v8: i32 = const -2
           v9: i32 = loop (v10 \"i\": i32 = v7, v11 \"s\": i32 = v3) {
             v12: bool = gt v10, v5
             if v12 {
               yield
             } else {
               break v11
             }
             v13: i32 = load v0[v10]
             v14: i32 = xor v11, v13
             v15: i32 = add v10, v8
             continue v15, v14
           }
           v16: i32 = const 1
           v17: i32 = loop (v18 \"j\": i32 = v5, v19 \"t\": i32 = v5) {
             v20: bool = lt v18, v2
             if v20 {
               yield
             } else {
               break v19
             }
             v21: i32 = const 3
             v22: i32 = call @sum(v0, v21, v18)
             v23: i32 = add v19, v22
             v24: i32 = add v18, v16
             continue v24, v23
           }
           v25: i32 = add v6, v9
           v26: i32 = add v25, v17
           store v1[v3], v26
           return
         }",
    )
    .expect("parses");
    let a: Vec<i32> = (0..16).map(|i| i * 7 - 20).collect();
    let args = [i32s(&a), i32s(&[0; 8]), Arg::I32(5)];
    let (out, opt) = optimized_same_with(m, "k", 8, &args, &["unroll"]);
    assert_ne!(to_i32s(&out[1]), vec![0; 8]);
    let k = &opt.funcs[opt.func_by_name("k").expect("kernel")];
    let loops = weft_passes::walk::all_insts(k)
        .into_iter()
        .filter(|&i| matches!(k.insts[i].kind, weft_ir::InstKind::Loop { .. }))
        .count();
    assert_eq!(loops, 1, "only the loop over `n` is left");
}
