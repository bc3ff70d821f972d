//! Fast-math flags: text round trip, parse errors and the verifier rule.

use weft_ir::text::{check_roundtrip, parse_module, print_module};
use weft_ir::verify::{verify_module, Rule};
use weft_ir::{FuncBuilder, FuncKind, Function, MathFlags, Module, Param, Scalar, Type, UnaryOp};

const SRC: &str = "kernel @k(v0: array1<f32>) {
  v1: i32 = thread_id
  v2: f32 = load v0[v1]
  v3: f32 = mul v2, v2 fast(contract,afn)
  v4: f32 = add v3, v2 fast(contract,afn,nnan,ninf)
  v5: f32 = fma v4, v2, v3 fast(ninf)
  store v0[v1], v5
  return
}
";

#[test]
fn flags_round_trip_and_verify() {
    let m = parse_module(SRC).unwrap();
    verify_module(&m).unwrap();
    assert_eq!(print_module(&m), SRC);
    check_roundtrip(&m).unwrap();
    let f = &m.funcs.values().next().unwrap();
    let flags: Vec<MathFlags> = f.insts.values().map(|d| d.flags).collect();
    assert!(flags.contains(&(MathFlags::CONTRACT | MathFlags::APPROX_FUNC)));
    assert!(flags.contains(&MathFlags::ALL));
    assert!(flags.contains(&MathFlags::NO_INFS));
}

#[test]
fn flag_order_is_canonical() {
    let m = parse_module(&SRC.replace("fast(contract,afn)", "fast(afn, contract)")).unwrap();
    assert_eq!(print_module(&m), SRC);
}

#[test]
fn unknown_flag_is_a_parse_error() {
    let e = parse_module(&SRC.replace("fast(ninf)", "fast(fastest)")).unwrap_err();
    assert!(e.to_string().contains("fast-math flag"), "{e}");
}

#[test]
fn flags_only_on_float_arithmetic() {
    let bad = "kernel @k(v0: array1<i32>) {
  v1: i32 = thread_id
  v2: i32 = add v1, v1 fast(contract)
  store v0[v1], v2
  return
}
";
    let m = parse_module(bad).unwrap();
    assert_eq!(verify_module(&m).unwrap_err().rule, Rule::MathFlags);
}

#[test]
fn builder_flags_only_float_ops() {
    let mut m = Module::new();
    let structs = m.structs.clone();
    let mut f = Function::new(
        "k",
        FuncKind::Kernel,
        vec![Param {
            name: "x".into(),
            ty: Type::Scalar(Scalar::F32),
        }],
        vec![],
    );
    let x = f.param_values()[0];
    let mut b = FuncBuilder::new(&mut f, &structs);
    b.set_math_flags(MathFlags::APPROX_FUNC);
    let s = b.unary(UnaryOp::Sin, x);
    let i = b.iconst(Scalar::I32, 3);
    b.ins(weft_ir::InstKind::Return(vec![]), &[]);
    let _ = i;
    let sin_inst = match f.values[s].def {
        weft_ir::ValueDef::Result(inst, _) => inst,
        _ => unreachable!(),
    };
    assert_eq!(f.insts[sin_inst].flags, MathFlags::APPROX_FUNC);
    assert!(f.insts.values().filter(|d| d.flags.is_empty()).count() == 2);
    m.funcs.push(f);
    verify_module(&m).unwrap();
}
