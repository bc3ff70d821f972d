//! Pass tests on modules built with `FuncBuilder`.

use weft_ir::{BinaryOp, FuncBuilder, FuncId, FuncKind, Function, InstKind, Module, Type};
use weft_passes::{
    dce::Dce, inline::Inline, run_pipeline, simplify::Simplify, walk, OptLevel, Pass, PassError,
    PassManager, PipelineOptions, VerifyMode,
};

mod common;
use common::*;

/// `kernel k(a, out, n, key)`: `out[tid] = callee(a, n, key)`.
fn add_caller_kernel(m: &mut Module, callee: FuncId) -> FuncId {
    add_func(
        m,
        "k",
        FuncKind::Kernel,
        vec![
            param("a", arr_i32()),
            param("out", arr_i32()),
            param("n", Type::I32),
            param("key", Type::I32),
        ],
        vec![],
        |b, ps| {
            let tid = b.thread_id();
            let call = b.call(callee, vec![ps[0], ps[2], ps[3]], &[Type::I32]);
            let r = b.func.insts[call].results[0];
            b.store(at(ps[1], tid), r);
            b.return_(vec![]);
        },
    )
}

fn count(f: &Function, pred: impl Fn(&InstKind) -> bool) -> usize {
    walk::all_insts(f)
        .into_iter()
        .filter(|&i| pred(&f.insts[i].kind))
        .count()
}

fn kernel(m: &Module) -> &Function {
    m.kernels().next().expect("a kernel").1
}

fn opts() -> PipelineOptions {
    PipelineOptions {
        verify: VerifyMode::Always,
        ..PipelineOptions::default()
    }
}

#[test]
fn inline_early_return_in_if_in_loop() {
    let mut m = Module::new();
    let find = add_find(&mut m);
    add_caller_kernel(&mut m, find);
    let changed = Inline::default().run(&mut m).unwrap();
    assert!(changed);
    println!("{}", weft_ir::text::print_module(&m));
    // The func is gone, the kernel has no call left.
    assert_eq!(m.funcs.len(), 1);
    let k = kernel(&m);
    assert_eq!(count(k, |k| matches!(k, InstKind::Call(..))), 0);
    assert_eq!(count(k, |k| matches!(k, InstKind::Return(_))), 1);
    // Wrapper loop + the callee's loop, which now also yields the returned
    // flag and value.
    let loops: Vec<_> = walk::all_insts(k)
        .into_iter()
        .filter(|&i| matches!(k.insts[i].kind, InstKind::Loop { .. }))
        .collect();
    assert_eq!(loops.len(), 2);
    let inner = loops[1];
    let tys: Vec<Type> = k.insts[inner]
        .results
        .iter()
        .map(|&v| k.value_type(v))
        .collect();
    assert_eq!(tys, vec![Type::BOOL, Type::I32]);
}

#[test]
fn inline_nested_calls() {
    let mut m = Module::new();
    // twice(x) = x + x; quad(x) = twice(twice(x))
    let twice = add_func(
        &mut m,
        "twice",
        FuncKind::Func,
        vec![param("x", Type::I32)],
        vec![Type::I32],
        |b, ps| {
            let y = b.binary(BinaryOp::Add, ps[0], ps[0]);
            b.return_(vec![y]);
        },
    );
    let quad = add_func(
        &mut m,
        "quad",
        FuncKind::Func,
        vec![param("x", Type::I32)],
        vec![Type::I32],
        |b, ps| {
            let c = b.call(twice, vec![ps[0]], &[Type::I32]);
            let y = b.func.insts[c].results[0];
            let c = b.call(twice, vec![y], &[Type::I32]);
            let z = b.func.insts[c].results[0];
            b.return_(vec![z]);
        },
    );
    add_func(
        &mut m,
        "k",
        FuncKind::Kernel,
        vec![param("out", arr_i32())],
        vec![],
        |b, ps| {
            let tid = b.thread_id();
            let c = b.call(quad, vec![tid], &[Type::I32]);
            let r = b.func.insts[c].results[0];
            b.store(at(ps[0], tid), r);
            b.return_(vec![]);
        },
    );
    run_pipeline(&mut m, &opts()).unwrap();
    println!("{}", weft_ir::text::print_module(&m));
    assert_eq!(m.funcs.len(), 1);
    let k = kernel(&m);
    // Spliced: no loop, no call; three adds (tid+tid, then twice more... two
    // adds: y = tid + tid; z = y + y) and the store.
    assert_eq!(
        count(k, |k| matches!(
            k,
            InstKind::Call(..) | InstKind::Loop { .. }
        )),
        0
    );
    assert_eq!(
        count(k, |k| matches!(k, InstKind::Binary(BinaryOp::Add, ..))),
        2
    );
}

#[test]
fn recursion_is_detected() {
    let mut m = Module::new();
    // even -> odd -> even
    let even = add_func(
        &mut m,
        "even",
        FuncKind::Func,
        vec![param("x", Type::I32)],
        vec![Type::I32],
        |b, ps| {
            b.return_(vec![ps[0]]);
        },
    );
    let odd = add_func(
        &mut m,
        "odd",
        FuncKind::Func,
        vec![param("x", Type::I32)],
        vec![Type::I32],
        |b, ps| {
            let c = b.call(even, vec![ps[0]], &[Type::I32]);
            let r = b.func.insts[c].results[0];
            b.return_(vec![r]);
        },
    );
    // Make `even` call `odd`.
    {
        let f = &mut m.funcs[even];
        let structs = weft_ir::StructTable::new();
        let body = f.body;
        let ret = f.regions[body].insts.pop().unwrap();
        let x = f.param_values()[0];
        let mut b = FuncBuilder::new(f, &structs);
        let c = b.call(odd, vec![x], &[Type::I32]);
        let r = b.func.insts[c].results[0];
        b.func.insts[ret].kind = InstKind::Return(vec![r]);
        b.func.regions[body].insts.push(ret);
    }
    add_func(
        &mut m,
        "k",
        FuncKind::Kernel,
        vec![param("out", arr_i32())],
        vec![],
        |b, ps| {
            let tid = b.thread_id();
            let c = b.call(even, vec![tid], &[Type::I32]);
            let r = b.func.insts[c].results[0];
            b.store(at(ps[0], tid), r);
            b.return_(vec![]);
        },
    );
    let err = run_pipeline(&mut m, &opts()).unwrap_err();
    match &err {
        PassError::Recursion { cycle } => assert_eq!(cycle, &["even", "odd"]),
        e => panic!("expected recursion, got {e}"),
    }
    assert_eq!(
        err.to_string(),
        "recursion is not supported: even -> odd -> even"
    );
}

#[test]
fn self_recursion_is_detected() {
    let mut m = Module::new();
    let f = add_func(&mut m, "f", FuncKind::Func, vec![], vec![], |b, _| {
        b.return_(vec![])
    });
    {
        let func = &mut m.funcs[f];
        let body = func.body;
        let c = func.create_inst(InstKind::Call(f, vec![]), &[], weft_ir::Loc::NONE);
        func.regions[body].insts.insert(0, c);
    }
    let err = weft_passes::bottom_up_order(&m).unwrap_err();
    assert!(
        matches!(&err, PassError::Recursion { cycle } if cycle == &["f"]),
        "{err}"
    );
}

/// Builds `kernel k(out): out[0] = a OP b` with constant operands.
fn binop_kernel(op: BinaryOp, a: i64, b: i64) -> Module {
    let mut m = Module::new();
    add_func(
        &mut m,
        "k",
        FuncKind::Kernel,
        vec![param("out", arr_i32())],
        vec![],
        |bl, ps| {
            let x = bl.iconst(I32, a);
            let y = bl.iconst(I32, b);
            let r = bl.binary(op, x, y);
            let z = bl.iconst(I32, 0);
            bl.store(at(ps[0], z), r);
            bl.return_(vec![]);
        },
    );
    m
}

/// The constant stored by a folded `binop_kernel`.
fn stored_const(m: &Module) -> i64 {
    let k = kernel(m);
    let store = walk::all_insts(k)
        .into_iter()
        .find(|&i| matches!(k.insts[i].kind, InstKind::Store(..)))
        .unwrap();
    let InstKind::Store(_, v) = &k.insts[store].kind else {
        unreachable!()
    };
    let c = weft_passes::simplify::const_of(k, *v).expect("folded to a constant");
    c.as_i128() as i64
}

#[test]
fn fold_int_division_by_zero_like_the_interpreter() {
    // Integer division and remainder by zero are 0 (IR semantics).
    for (op, a, b, want) in [
        (BinaryOp::Div, 7, 0, 0),
        (BinaryOp::Rem, 7, 0, 0),
        (BinaryOp::Div, -7, 2, -3),
        (BinaryOp::Rem, -7, 2, -1),
        (BinaryOp::Div, i32::MIN as i64, -1, i32::MIN as i64),
        (BinaryOp::Rem, i32::MIN as i64, -1, 0),
        (BinaryOp::Add, i32::MAX as i64, 1, i32::MIN as i64),
        (BinaryOp::Shl, 1, 33, 2),
        (BinaryOp::Shr, -8, 1, -4),
    ] {
        let mut m = binop_kernel(op, a, b);
        // At O1: O2's `cse` would merge a folded 0 with the index 0.
        let o1 = PipelineOptions {
            opt_level: OptLevel::O1,
            ..opts()
        };
        run_pipeline(&mut m, &o1).unwrap();
        assert_eq!(stored_const(&m), want, "{op:?} {a} {b}");
        // The operation and its operands are gone.
        assert_eq!(count(kernel(&m), |k| matches!(k, InstKind::Binary(..))), 0);
        assert_eq!(count(kernel(&m), |k| matches!(k, InstKind::Const(..))), 2);
    }
}

#[test]
fn dce_keeps_stores_atomics_prints() {
    let mut m = Module::new();
    add_func(
        &mut m,
        "k",
        FuncKind::Kernel,
        vec![param("out", arr_i32())],
        vec![],
        |b, ps| {
            let tid = b.thread_id();
            let one = b.iconst(I32, 1);
            let dead = b.binary(BinaryOp::Mul, tid, tid);
            let _ = dead;
            let _unused_load = b.load(at(ps[0], tid));
            b.atomic(weft_ir::AtomicOp::Add, at(ps[0], tid), one);
            b.print("%d\n", vec![tid]);
            b.store(at(ps[0], tid), one);
            // An if with an effect-free body and no results: removed.
            let c = b.binary(BinaryOp::Lt, tid, one);
            let (_, t, e) = b.if_(c, &[]);
            b.switch_to(t);
            let _x = b.binary(BinaryOp::Add, tid, one);
            b.yield_(vec![]);
            b.switch_to(e);
            b.yield_(vec![]);
            b.switch_to(b.func.body);
            b.return_(vec![]);
        },
    );
    let changed = Dce.run(&mut m).unwrap();
    assert!(changed);
    let k = kernel(&m);
    let kinds: Vec<&InstKind> = k.regions[k.body]
        .insts
        .iter()
        .map(|&i| &k.insts[i].kind)
        .collect();
    assert!(
        matches!(
            kinds.as_slice(),
            [
                InstKind::ThreadId,
                InstKind::Const(_),
                InstKind::Atomic(..),
                InstKind::Print(..),
                InstKind::Store(..),
                InstKind::Return(_)
            ]
        ),
        "{}",
        weft_ir::text::print_module(&m)
    );
    // A second run finds nothing.
    assert!(!Dce.run(&mut m).unwrap());
}

#[test]
fn dce_removes_self_feeding_loop_values() {
    // loop(i = 0, s = 0): if i < 10 { continue(i + 1, s + i) } else { break }
    // `s` is carried but never read after the loop: it goes, `i` stays.
    let mut m = Module::new();
    add_func(
        &mut m,
        "k",
        FuncKind::Kernel,
        vec![param("out", arr_i32())],
        vec![],
        |b, _| {
            let z = b.iconst(I32, 0);
            let ten = b.iconst(I32, 10);
            let one = b.iconst(I32, 1);
            let (_, body, ps) = b.loop_(vec![z, z], &[Type::I32]);
            b.switch_to(body);
            let (i, s) = (ps[0], ps[1]);
            let lt = b.binary(BinaryOp::Lt, i, ten);
            let (_, t, e) = b.if_(lt, &[]);
            b.switch_to(e);
            b.break_(vec![s]);
            b.switch_to(t);
            b.yield_(vec![]);
            b.switch_to(body);
            let i1 = b.binary(BinaryOp::Add, i, one);
            let s1 = b.binary(BinaryOp::Add, s, i);
            b.continue_(vec![i1, s1]);
            b.switch_to(b.func.body);
            b.return_(vec![]);
        },
    );
    assert!(Dce.run(&mut m).unwrap());
    let k = kernel(&m);
    let lp = walk::all_insts(k)
        .into_iter()
        .find(|&i| matches!(k.insts[i].kind, InstKind::Loop { .. }))
        .unwrap();
    let InstKind::Loop { init, body } = &k.insts[lp].kind else {
        unreachable!()
    };
    assert_eq!(init.len(), 1);
    assert_eq!(k.regions[*body].params.len(), 1);
    assert!(k.insts[lp].results.is_empty());
    assert_eq!(
        count(k, |k| matches!(k, InstKind::Binary(BinaryOp::Add, ..))),
        1
    );
}

#[test]
fn simplify_constant_if_takes_its_region() {
    let mut m = Module::new();
    add_func(
        &mut m,
        "k",
        FuncKind::Kernel,
        vec![param("out", arr_i32())],
        vec![],
        |b, ps| {
            let c = b.bconst(false);
            let (i, t, e) = b.if_(c, &[Type::I32]);
            b.switch_to(t);
            let one = b.iconst(I32, 1);
            b.yield_(vec![one]);
            b.switch_to(e);
            let two = b.iconst(I32, 2);
            b.yield_(vec![two]);
            b.switch_to(b.func.body);
            let r = b.func.insts[i].results[0];
            let z = b.iconst(I32, 0);
            b.store(at(ps[0], z), r);
            b.return_(vec![]);
        },
    );
    run_pipeline(&mut m, &opts()).unwrap();
    assert_eq!(stored_const(&m), 2);
    assert_eq!(count(kernel(&m), |k| matches!(k, InstKind::If { .. })), 0);
}

#[test]
fn pass_manager_reports_and_dumps() {
    let dir = std::env::temp_dir().join(format!("weft-passes-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut m = binop_kernel(BinaryOp::Mul, 6, 7);
    let mut pm = PassManager::new()
        .with_verify(VerifyMode::Always)
        .with_dump_dir(Some(dir.clone()));
    pm.add(Box::new(Simplify)).add(Box::new(Dce));
    let report = pm.run(&mut m).unwrap();
    let names: Vec<(&str, bool)> = report.passes.iter().map(|p| (p.0.as_str(), p.1)).collect();
    assert_eq!(names, vec![("simplify", true), ("dce", true)]);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(files, vec!["00-input.ir", "01-simplify.ir", "02-dce.ir"]);
    let last = std::fs::read_to_string(dir.join("02-dce.ir")).unwrap();
    assert!(last.contains("42"), "{last}");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(stored_const(&m), 42);
}

#[test]
fn levels_parse_and_describe_their_pipelines() {
    for (text, level) in [
        ("0", OptLevel::O0),
        ("O1", OptLevel::O1),
        ("-O2", OptLevel::O2),
    ] {
        assert_eq!(text.parse::<OptLevel>(), Ok(level));
    }
    assert!("3".parse::<OptLevel>().is_err());
    assert!("fast".parse::<OptLevel>().is_err());
    assert_eq!(OptLevel::default(), OptLevel::O2);
    assert_eq!(
        weft_passes::describe_pipeline(OptLevel::O0),
        "(no passes)\n"
    );
    assert_eq!(
        weft_passes::describe_pipeline(OptLevel::O1),
        "inline\nfixpoint(max 8 rounds): simplify, dce\n"
    );
    assert_eq!(
        weft_passes::describe_pipeline(OptLevel::O2),
        "inline\nfixpoint(max 8 rounds): simplify, dce\n\
         fixpoint(max 8 rounds): simplify, cse, licm, dce\n"
    );
    // Options: no inlining, a disabled pass, forced inlining at O0.
    let o = PipelineOptions {
        inline: false,
        disable: vec!["cse".into()],
        enable: vec!["strength-reduce".into(), "unroll".into()],
        ..PipelineOptions::default()
    };
    assert_eq!(
        weft_passes::pipeline(OptLevel::O2, &o).describe(),
        "fixpoint(max 8 rounds): simplify, dce\n\
         fixpoint(max 8 rounds): unroll, simplify, strength-reduce, licm, dce\n"
    );
    let o = PipelineOptions {
        force_inline: true,
        ..PipelineOptions::default()
    };
    assert_eq!(
        weft_passes::pipeline(OptLevel::O0, &o).describe(),
        "inline\n"
    );
}

#[test]
fn report_counts_instructions_after_each_pass() {
    let mut m = weft_ir::text::parse_module(
        "kernel @k(v0: array1<i32>) {
           v1: i32 = thread_id
           v2: i32 = thread_id
           v3: i32 = add v1, v2
           store v0[v1], v3
           return
         }",
    )
    .unwrap();
    assert_eq!(weft_passes::inst_count(&m), 5);
    let r = run_pipeline(&mut m, &opts()).unwrap();
    assert_eq!(r.input_insts, 5);
    assert_eq!(r.inst_counts.len(), r.passes.len());
    assert_eq!(r.inst_counts.last(), Some(&4));
    let cse = r.passes.iter().position(|p| p.0 == "cse").unwrap();
    assert_eq!(r.inst_counts[cse], 4, "cse merged the thread ids");
}
