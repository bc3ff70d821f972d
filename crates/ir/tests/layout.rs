//! Array layout attributes: text round trip of `hint(..)` / `soa(..)`,
//! parse errors, and the verifier's layout rules.

use weft_ir::text::{check_roundtrip, parse_module, print_module};
use weft_ir::verify::{verify_module, Rule};
use weft_ir::{ArrayLayout, ElemType, Scalar, SoaParam};

const SRC: &str = "struct %Body { pos: vec3<f32>, mass: f32 }

kernel @k(v0 \"pos\": array2<f32> soa(vec3<f32>, 1), v1 \"b\": array1<%Body> hint(soa), v2 \"m\": array3<f32> soa(%Body, 2), v3 \"q\": array1<quat<f32>> hint(aos), v4: i32) {
  v5: i32 = thread_id
  v6: i32 = const 2
  v7: f32 = load v0[v5, v6]
  store v0[v5, v6], v7
  return
}
";

#[test]
fn layout_attributes_round_trip_and_verify() {
    let m = parse_module(SRC).unwrap();
    verify_module(&m).unwrap();
    assert_eq!(print_module(&m), SRC);
    check_roundtrip(&m).unwrap();
    let f = m.funcs.values().next().unwrap();
    assert_eq!(
        f.layout_hints,
        vec![(1, ArrayLayout::Soa), (3, ArrayLayout::Aos)]
    );
    let body = m.structs.keys().next().unwrap();
    assert_eq!(
        f.soa_params,
        vec![
            SoaParam {
                param: 0,
                elem: ElemType::Vec(3, Scalar::F32),
                ndim: 1
            },
            SoaParam {
                param: 2,
                elem: ElemType::Struct(body),
                ndim: 2
            },
        ]
    );
}

#[test]
fn bad_attributes_are_parse_errors() {
    let e = parse_module(&SRC.replace("hint(soa)", "hint(columns)")).unwrap_err();
    assert!(e.to_string().contains("a layout"), "{e}");
    let e = parse_module(&SRC.replace("soa(vec3<f32>, 1)", "soa(array1<f32>, 1)")).unwrap_err();
    assert!(e.to_string().contains("cannot be an array"), "{e}");
    let e = parse_module(&SRC.replace("soa(vec3<f32>, 1)", "soa(vec3<f32>)")).unwrap_err();
    assert!(e.to_string().contains("`,`"), "{e}");
}

fn rule_of(text: &str) -> Rule {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    verify_module(&m).unwrap_err().rule
}

#[test]
fn verifier_layout_rules() {
    // A hint on a non-array param.
    assert_eq!(
        rule_of(&SRC.replace("v4: i32)", "v4: i32 hint(soa))")),
        Rule::LayoutHint
    );
    // Two hints on one param.
    assert_eq!(
        rule_of(&SRC.replace("hint(aos)", "hint(aos) hint(soa)")),
        Rule::LayoutHint
    );
    // Wrong param type: the plane axis is missing.
    assert_eq!(
        rule_of(
            &SRC.replace(
                "array2<f32> soa(vec3<f32>, 1)",
                "array1<f32> soa(vec3<f32>, 1)"
            )
            .replace("v0[v5, v6]", "v0[v5]")
        ),
        Rule::SoaParam
    );
    // Wrong scalar.
    assert_eq!(
        rule_of(&SRC.replace("soa(vec3<f32>, 1)", "soa(vec3<f64>, 1)")),
        Rule::SoaParam
    );
    // A scalar element is not SoA.
    assert_eq!(
        rule_of(&SRC.replace("soa(vec3<f32>, 1)", "soa(f32, 1)")),
        Rule::SoaParam
    );
    // A struct mixing scalars.
    assert_eq!(
        rule_of(
            &SRC.replace("mass: f32 }", "mass: i32 }")
                .replace("v2 \"m\": array3<f32>", "v2 \"m\": array3<i32>")
        ),
        Rule::SoaParam
    );
    // ndim out of range.
    assert_eq!(
        rule_of(&SRC.replace("array3<f32> soa(%Body, 2)", "array1<f32> soa(%Body, 0)")),
        Rule::SoaParam
    );
    // Twice on one param.
    assert_eq!(
        rule_of(&SRC.replace("soa(vec3<f32>, 1)", "soa(vec3<f32>, 1) soa(vec3<f32>, 1)")),
        Rule::SoaParam
    );
    // On a func.
    let func = "func @f(v0: array2<f32> soa(vec3<f32>, 1)) {\n  return\n}\n";
    assert_eq!(rule_of(func), Rule::SoaParam);
}
