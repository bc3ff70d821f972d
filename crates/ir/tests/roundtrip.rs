//! Round-trip tests of the IR text form: print → parse → print is identical,
//! and parsed modules verify.
//!
//! To add a case: either append IR text to `TEXT_CASES` (it must be in
//! canonical printed form: it is parsed, verified and printed back, and the
//! output must equal the input), or write a function that builds a
//! [`Module`] and call [`assert_roundtrip`] on it.

use weft_ir::text::{check_roundtrip, parse_module, print_module};
use weft_ir::types::{ArrayType, ElemType, Field, StructDef};
use weft_ir::verify::verify_module;
use weft_ir::*;

/// Prints `m`, parses the text, prints again, and checks the texts are
/// identical and that the parsed module verifies if `m` does. Returns the
/// text.
pub fn assert_roundtrip(m: &Module) -> String {
    let text = check_roundtrip(m).unwrap_or_else(|e| panic!("{e}\nin:\n{}", print_module(m)));
    let parsed = parse_module(&text).expect("parses");
    if let Err(e) = verify_module(m) {
        panic!("the original module does not verify: {e}\n{text}");
    }
    if let Err(e) = verify_module(&parsed) {
        panic!("the parsed module does not verify: {e}\n{text}");
    }
    text
}

fn mem(array: Value, indices: Vec<Value>, path: Vec<u32>) -> MemAccess {
    MemAccess {
        array,
        indices,
        path,
    }
}

fn arr(elem: ElemType, ndim: u8) -> Type {
    Type::Array(ArrayType { elem, ndim })
}

/// A module that uses every `Type`, every `InstKind` and every operator.
fn everything() -> Module {
    let mut m = Module::new();
    let f0 = m.file_index("kernel.py");
    let f1 = m.file_index("dir/prelude \"q\".py");
    let particle = m.structs.push(StructDef {
        name: "Particle".into(),
        fields: vec![
            Field {
                name: "pos".into(),
                ty: Type::Vec(3, Scalar::F32),
            },
            Field {
                name: "mass".into(),
                ty: Type::F32,
            },
        ],
    });
    let weird = m.structs.push(StructDef {
        name: "Weird name".into(),
        fields: vec![
            Field {
                name: "a".into(),
                ty: Type::Scalar(Scalar::I8),
            },
            Field {
                name: "inner".into(),
                ty: Type::Struct(particle),
            },
            Field {
                name: "m".into(),
                ty: Type::Mat(2, 3, Scalar::F64),
            },
            Field {
                name: "q".into(),
                ty: Type::Quat(Scalar::F16),
            },
            Field {
                name: "the t".into(),
                ty: Type::Transform(Scalar::F32),
            },
            Field {
                name: "u".into(),
                ty: Type::Scalar(Scalar::U64),
            },
            Field {
                name: "b".into(),
                ty: Type::BOOL,
            },
        ],
    });
    m.structs.push(StructDef {
        name: "Empty".into(),
        fields: vec![],
    });

    // func @dot(a, b) -> f32
    let v3 = Type::Vec(3, Scalar::F32);
    let mut dot = Function::new(
        "dot",
        FuncKind::Func,
        vec![
            Param {
                name: "a".into(),
                ty: v3,
            },
            Param {
                name: "b".into(),
                ty: v3,
            },
        ],
        vec![Type::F32],
    );
    dot.loc = Loc::new(f1, 1, 1);
    {
        let mut b = FuncBuilder::new(&mut dot, &m.structs);
        let (a, bb) = (b.func.param_values()[0], b.func.param_values()[1]);
        b.set_loc(Loc::new(f1, 2, 5));
        let ax = b.extract(a, vec![0]);
        let bx = b.extract(bb, vec![0]);
        let ay = b.extract(a, vec![1]);
        let by = b.extract(bb, vec![1]);
        let az = b.extract(a, vec![2]);
        let bz = b.extract(bb, vec![2]);
        let xx = b.binary(BinaryOp::Mul, ax, bx);
        let s = b.fma(ay, by, xx);
        let s = b.fma(az, bz, s);
        b.name_value(s, "s");
        b.set_loc(Loc::NONE);
        b.return_(vec![s]);
    }
    let dot_id = m.funcs.push(dot);

    // func @"pair.i32"(x) -> (i32, f64), with a param whose value name differs
    let mut pair = Function::new(
        "pair.i32",
        FuncKind::Func,
        vec![Param {
            name: "x".into(),
            ty: Type::I32,
        }],
        vec![Type::I32, Type::F64],
    );
    {
        let p = pair.param_values()[0];
        pair.value_names[p] = "x_renamed".into();
        let mut b = FuncBuilder::new(&mut pair, &m.structs);
        let d = b.cast(p, Scalar::F64);
        b.return_(vec![p, d]);
    }
    let pair_id = m.funcs.push(pair);

    // func @scalars: one param of every scalar type, every constant kind.
    let params: Vec<Param> = Scalar::ALL
        .iter()
        .map(|&s| Param {
            name: format!("p_{s}"),
            ty: Type::Scalar(s),
        })
        .collect();
    let mut scalars = Function::new("scalars", FuncKind::Func, params, vec![]);
    {
        let mut b = FuncBuilder::new(&mut scalars, &m.structs);
        b.set_loc(Loc::new(f0, 100, 1));
        b.bconst(true);
        b.bconst(false);
        for s in [Scalar::I8, Scalar::I16, Scalar::I32, Scalar::I64] {
            b.iconst(s, -1);
            b.iconst(s, i64::MIN);
            b.iconst(s, i64::MAX);
        }
        for s in [Scalar::U8, Scalar::U16, Scalar::U32, Scalar::U64] {
            b.iconst(s, 0);
            b.iconst(s, -1); // wraps to the maximum
        }
        for s in [Scalar::F16, Scalar::F32, Scalar::F64] {
            for v in [
                0.0,
                -0.0,
                0.1,
                1.0 / 3.0,
                1e-30,
                6.5e4,
                -1e300,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::MIN_POSITIVE,
                5e-324,
            ] {
                b.fconst(s, v);
            }
            b.konst(Const::float(s, f64::NAN));
        }
        // A NaN with a payload, stored exactly.
        b.konst(Const {
            ty: Scalar::F64,
            bits: 0x7ff4_0000_0000_0001,
        });
        b.return_(vec![]);
    }
    m.funcs.push(scalars);

    // kernel @k: arrays of every element kind and dimensionality, every
    // instruction.
    let params = vec![
        Param {
            name: "xs".into(),
            ty: arr(ElemType::Scalar(Scalar::F32), 1),
        },
        Param {
            name: "ps".into(),
            ty: arr(ElemType::Struct(particle), 2),
        },
        Param {
            name: "ms".into(),
            ty: arr(ElemType::Mat(3, 3, Scalar::F32), 3),
        },
        Param {
            name: "qs".into(),
            ty: arr(ElemType::Quat(Scalar::F32), 4),
        },
        Param {
            name: "ts".into(),
            ty: arr(ElemType::Transform(Scalar::F64), 1),
        },
        Param {
            name: "vs".into(),
            ty: arr(ElemType::Vec(2, Scalar::I32), 1),
        },
        Param {
            name: "ws".into(),
            ty: arr(ElemType::Struct(weird), 1),
        },
        Param {
            name: "counts".into(),
            ty: arr(ElemType::Scalar(Scalar::I32), 1),
        },
        Param {
            name: "n".into(),
            ty: Type::I32,
        },
        Param {
            name: "w".into(),
            ty: Type::Struct(weird),
        },
    ];
    let mut k = Function::new("k", FuncKind::Kernel, params, vec![]);
    k.loc = Loc::new(f0, 10, 1);
    {
        let mut b = FuncBuilder::new(&mut k, &m.structs);
        let pv = b.func.param_values().to_vec();
        let (xs, ps, ms, qs, ts, vs, ws, counts, n, w) = (
            pv[0], pv[1], pv[2], pv[3], pv[4], pv[5], pv[6], pv[7], pv[8], pv[9],
        );
        b.set_loc(Loc::new(f0, 11, 5));
        let tid = b.thread_id();
        b.name_value(tid, "tid");
        for axis in 0..4 {
            b.launch_dim(axis);
        }
        let len = b.array_shape(ps, 1);
        let zero = b.iconst(Scalar::I32, 0);
        let one = b.iconst(Scalar::I32, 1);
        let x = b.load(mem(xs, vec![tid], vec![]));
        b.name_value(x, "x\twith \"escapes\"\n");
        // Unary ops.
        for op in [
            UnaryOp::Neg,
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
            UnaryOp::IsNan,
            UnaryOp::IsInf,
            UnaryOp::IsFinite,
        ] {
            b.unary(op, x);
        }
        b.unary(UnaryOp::Not, n);
        b.unary(UnaryOp::Popcount, n);
        // Binary ops.
        for op in [
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::Div,
            BinaryOp::Rem,
            BinaryOp::Min,
            BinaryOp::Max,
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
        ] {
            b.binary(op, tid, n);
        }
        for op in [BinaryOp::Pow, BinaryOp::Atan2, BinaryOp::Copysign] {
            b.binary(op, x, x);
        }
        let xd = b.cast(x, Scalar::F64);
        let bits = b.bitcast(x, Scalar::U32);
        let _ = (xd, bits);
        let lt = b.binary(BinaryOp::Lt, tid, n);
        let sel = b.select(lt, x, x);
        // Aggregates.
        let vec = b.make(Type::Vec(3, Scalar::F32), vec![x, sel, x]);
        let row = b.make(Type::Vec(3, Scalar::F32), vec![x, x, x]);
        let mat = b.make(Type::Mat(3, 3, Scalar::F32), vec![row, row, row]);
        let q = b.make(Type::Quat(Scalar::F32), vec![x, x, x, x]);
        let el = b.extract(mat, vec![1, 2]);
        let mat2 = b.insert(mat, vec![0, 1], el);
        let part = b.make(Type::Struct(particle), vec![vec, x]);
        let mass = b.extract(w, vec![1, 1]);
        let w2 = b.insert(w, vec![1, 0, 2], mass);
        let _ = w2;
        let dotv = b.call(dot_id, vec![vec, row], &[Type::F32]);
        let dotv = b.func.insts[dotv].results[0];
        b.call(pair_id, vec![tid], &[Type::I32, Type::F64]);
        // Memory.
        b.store(mem(xs, vec![tid], vec![]), dotv);
        b.store(mem(ps, vec![tid, zero], vec![]), part);
        let pm = b.load(mem(ps, vec![tid, one], vec![1]));
        b.store(mem(ps, vec![tid, one], vec![0, 2]), pm);
        b.store(mem(ms, vec![tid, zero, one], vec![]), mat2);
        b.store(mem(qs, vec![tid, zero, one, zero], vec![]), q);
        let t = b.load(mem(ts, vec![tid], vec![]));
        b.store(mem(ts, vec![one], vec![]), t);
        let vv = b.load(mem(vs, vec![tid], vec![]));
        let wv = b.load(mem(ws, vec![tid], vec![5]));
        let _ = wv;
        for op in [
            AtomicOp::Add,
            AtomicOp::Sub,
            AtomicOp::Min,
            AtomicOp::Max,
            AtomicOp::And,
            AtomicOp::Or,
            AtomicOp::Xor,
            AtomicOp::Exchange,
        ] {
            b.atomic(op, mem(counts, vec![tid], vec![]), one);
        }
        b.atomic(AtomicOp::Add, mem(vs, vec![zero], vec![]), vv);
        b.atomic(AtomicOp::Max, mem(ps, vec![zero, zero], vec![0]), vec);
        b.print("tid=%d x=%f \"quoted\" 100%%\n\t\u{1}", vec![tid, x]);
        b.print("", vec![]);
        // if with results, nested in a loop with params, break and continue.
        b.set_loc(Loc::new(f0, 20, 9));
        let fzero = b.fconst(Scalar::F32, 0.0);
        let (_lp, body, lps) = b.loop_(vec![zero, fzero], &[Type::F32]);
        b.switch_to(body);
        let (i, acc) = (lps[0], lps[1]);
        b.name_value(i, "i");
        b.name_value(acc, "acc");
        let done = b.binary(BinaryOp::Ge, i, n);
        let (_if0, then0, else0) = b.if_(done, &[]);
        b.switch_to(then0);
        b.break_(vec![acc]);
        b.switch_to(else0);
        b.yield_(vec![]);
        b.switch_to(body);
        let odd = b.binary(BinaryOp::And, i, one);
        let is_odd = b.binary(BinaryOp::Ne, odd, zero);
        let (if1, then1, else1) = b.if_(is_odd, &[Type::F32, Type::I32]);
        b.set_loc(Loc::NONE);
        b.switch_to(then1);
        let a1 = b.binary(BinaryOp::Add, acc, x);
        b.yield_(vec![a1, one]);
        b.switch_to(else1);
        let stop = b.binary(BinaryOp::Eq, i, len);
        let (_if2, then2, else2) = b.if_(stop, &[]);
        b.switch_to(then2);
        b.return_(vec![]);
        b.switch_to(else2);
        b.yield_(vec![]);
        b.switch_to(else1);
        b.continue_(vec![one, acc]);
        b.switch_to(body);
        let r = b.func.insts[if1].results.to_vec();
        let i2 = b.binary(BinaryOp::Add, i, r[1]);
        b.continue_(vec![i2, r[0]]);
        b.switch_to(b.func.body);
        let (_l2, body2, _) = b.loop_(vec![], &[]);
        b.switch_to(body2);
        b.break_(vec![]);
        b.switch_to(b.func.body);
        b.return_(vec![]);
    }
    m.funcs.push(k);
    m
}

#[test]
fn everything_roundtrips() {
    let m = everything();
    let text = assert_roundtrip(&m);
    if std::env::var_os("WEFT_SHOW_IR").is_some() {
        println!("{text}");
    }
    // Spot checks of the syntax (documented in docs/ir.md).
    for needle in [
        "file 1 \"dir/prelude \\\"q\\\".py\"\n",
        "struct %\"Weird name\" { a: i8, inner: %Particle, m: mat2x3<f64>, q: quat<f16>, \"the t\": transform<f32>, u: u64, b: bool }",
        "struct %Empty {}",
        "func @\"pair.i32\"(v0 \"x_renamed\" as \"x\": i32) -> (i32, f64) {",
        "kernel @k(v0 \"xs\": array1<f32>, v1 \"ps\": array2<%Particle>,",
        "v10 \"tid\": i32 = thread_id @0:11:5",
        "= const -1 @0:100:1",
        ": f64 = const 0x7ff4000000000001",
        "= const inf",
        "= const -0.0",
        "store v1[v10, v17].0.2, v",
        "= atomic exchange v7[v10], v",
        "print \"tid=%d x=%f \\\"quoted\\\" 100%%\\n\\t\\u{1}\", v10, v",
        "= loop (v",
        "\"acc\": f32 = v",
        "} else {",
        "continue v",
        "loop {",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}

#[test]
fn constants_are_exact() {
    let m = everything();
    let parsed = parse_module(&print_module(&m)).unwrap();
    let consts = |m: &Module| -> Vec<Const> {
        let f = &m.funcs[m.func_by_name("scalars").unwrap()];
        f.regions[f.body]
            .insts
            .iter()
            .filter_map(|&i| match f.insts[i].kind {
                InstKind::Const(c) => Some(c),
                _ => None,
            })
            .collect()
    };
    let (a, b) = (consts(&m), consts(&parsed));
    assert!(a.len() > 40);
    assert_eq!(a, b);
}

#[test]
fn renumbering_is_canonical() {
    // The same function built with a different arena order prints the same.
    let build = |junk_first: bool| {
        let mut m = Module::new();
        let mut f = Function::new(
            "f",
            FuncKind::Func,
            vec![Param {
                name: "a".into(),
                ty: Type::I32,
            }],
            vec![Type::I32],
        );
        let mut b = FuncBuilder::new(&mut f, &m.structs);
        if junk_first {
            // An instruction created but never placed: dead arena entries.
            b.func
                .create_inst(InstKind::ThreadId, &[Type::I32], Loc::NONE);
        }
        let a = b.func.param_values()[0];
        let s = b.binary(BinaryOp::Add, a, a);
        b.return_(vec![s]);
        m.funcs.push(f);
        print_module(&m)
    };
    assert_eq!(build(false), build(true));
    assert_eq!(
        build(true),
        "func @f(v0 \"a\": i32) -> i32 {\n  v1: i32 = add v0, v0\n  return v1\n}\n"
    );
}

/// Hand-written IR in canonical form.
const TEXT_CASES: &[&str] = &[
    "",
    "file 0 \"a.py\"\n",
    "struct %S { x: f32 }\n",
    // Forward references to structs and functions.
    "file 0 \"a.py\"

struct %A { b: %B }
struct %B { x: vec2<f16> }

kernel @main(v0 \"out\": array1<%A>) @0:1:1 {
  v1: i32 = thread_id
  v2: %B = call @helper(v1)
  store v0[v1].0, v2
  return
}

func @helper(v0: i32) -> %B {
  v1: f16 = cast v0
  v2: vec2<f16> = make v1, v1
  v3: %B = make v2
  return v3
}
",
    // Explicit op types when they differ from the result type: the verifier
    // rejects this, but the text still carries it.
    "func @odd() {
  v0: f32 = const<f64> 1.5
  v1: i32 = cast<u8> v0
  v2: vec2<f32> = make<vec3<f32>> v0, v0
  v3: i32, v4: i32 = thread_id
  return
}
",
    "func @nested(v0 \"n\": i32) -> i32 {
  v1: i32 = const 0
  v2 \"r\": i32 = loop (v3 \"i\": i32 = v1) {
    v4: bool = lt v3, v0
    v5: i32 = if v4 @0:3:4 {
      v6: i32 = loop {
        break v3
      }
      yield v6
    } else {
      break v3
    }
    continue v5
  }
  return v2
}
",
    // The example of docs/ir.md.
    r#"file 0 "nbody.py"

struct %Body { pos: vec3<f32>, mass: f32 }

func @sq(v0 "x": f32) -> f32 @0:3:1 {
  v1: f32 = mul v0, v0 @0:4:12
  return v1 @0:4:5
}

kernel @step(v0 "bodies": array1<%Body>, v1 "n": i32) @0:7:1 {
  v2 "i": i32 = thread_id @0:8:9
  v3: vec3<f32> = load v0[v2].0 @0:9:11
  v4: i32 = const 0
  v5: f32 = const 0.0
  v6 "e": f32 = loop (v7 "j": i32 = v4, v8 "acc": f32 = v5) @0:10:5 {
    v9: bool = ge v7, v1
    if v9 {
      break v8
    } else {
      yield
    }
    v10: f32 = load v0[v7].1
    v11: f32 = call @sq(v10)
    v12: f32 = add v8, v11
    v13: i32 = const 1
    v14: i32 = add v7, v13
    continue v14, v12
  }
  print "e=%f\n", v6
  return
}
"#,
];

#[test]
fn text_cases_roundtrip() {
    for (i, text) in TEXT_CASES.iter().enumerate() {
        let m = parse_module(text).unwrap_or_else(|e| panic!("case {i}: {e}"));
        assert_eq!(&print_module(&m), text, "case {i}");
    }
}

#[test]
fn text_cases_verify_where_valid() {
    // Cases 4 (`@odd`) is deliberately ill-typed; the others verify (case 5
    // names a file index but has no files: it is checked separately).
    for (i, text) in TEXT_CASES.iter().enumerate() {
        let m = parse_module(text).unwrap();
        let r = verify_module(&m);
        match i {
            4 => assert!(r.is_err(), "case {i} should not verify"),
            5 => assert_eq!(r.unwrap_err().rule, weft_ir::verify::Rule::LocFile),
            _ => assert!(r.is_ok(), "case {i}: {:?}", r.err()),
        }
    }
}

#[test]
fn parser_accepts_arbitrary_value_names_and_comments() {
    let text = "; a comment\nfunc @f(v7: i32) -> i32 { ; trailing\n  v100: i32 = add v7, v7\n  return v100\n}\n";
    let m = parse_module(text).unwrap();
    verify_module(&m).unwrap();
    assert_eq!(
        print_module(&m),
        "func @f(v0: i32) -> i32 {\n  v1: i32 = add v0, v0\n  return v1\n}\n"
    );
}

#[test]
fn mutated_text_never_panics() {
    // Deletes, duplicates or replaces single characters all over a printed
    // module: the parser must return an error or a module, and whatever it
    // returns must print and verify without panicking. A module that parses
    // must also round-trip.
    let text = print_module(&everything());
    let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let replacements = [
        "", "}", "{", "v9999", "\"", ",", "0x", "@", "-", "(", "%Nope", "9",
    ];
    let mut parsed = 0;
    for (k, &i) in bounds.iter().enumerate().step_by(4) {
        let end = bounds.get(k + 1).copied().unwrap_or(text.len());
        let rep = replacements[k % replacements.len()];
        let mutated = format!("{}{}{}", &text[..i], rep, &text[end..]);
        if let Ok(m) = parse_module(&mutated) {
            parsed += 1;
            let printed = print_module(&m);
            let _ = verify_module(&m);
            let again = parse_module(&printed).expect("printed text parses");
            assert_eq!(print_module(&again), printed);
        }
    }
    // Some mutations are harmless (inside strings, names, numbers).
    assert!(parsed > 0);
}

#[test]
fn check_roundtrip_reports_the_first_difference() {
    // An `if` whose two regions are one region (invalid IR) cannot be
    // written down: the second occurrence prints as a comment.
    let mut m = Module::new();
    let mut f = Function::new(
        "f",
        FuncKind::Func,
        vec![Param {
            name: "c".into(),
            ty: Type::BOOL,
        }],
        vec![],
    );
    let mut b = FuncBuilder::new(&mut f, &m.structs);
    let c = b.func.param_values()[0];
    let r = b.func.new_region();
    b.ins(
        InstKind::If {
            cond: c,
            then_region: r,
            else_region: r,
        },
        &[],
    );
    b.return_(vec![]);
    b.switch_to(r);
    b.yield_(vec![]);
    m.funcs.push(f);
    assert!(verify_module(&m).is_err());
    match check_roundtrip(&m) {
        Err(weft_ir::text::RoundTripError::Differs {
            line,
            first,
            second,
        }) => {
            assert_eq!(line, 5);
            assert!(first.contains("printed twice"), "{first}");
            assert_eq!(second, "  }");
        }
        other => panic!("expected a difference, got {other:?}"),
    }
}
