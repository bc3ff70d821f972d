//! Parser errors: position (line:col) and message. Type errors are not the
//! parser's business: such text parses and the verifier rejects it.

use weft_ir::text::parse_module;
use weft_ir::verify::{verify_module, Rule};

/// Asserts that `text` fails to parse at `line:col` with a message
/// containing `needle`.
fn assert_error(text: &str, line: u32, col: u32, needle: &str) {
    let e = parse_module(text).expect_err("expected a parse error");
    assert_eq!((e.line, e.col), (line, col), "{e}");
    assert!(e.message.contains(needle), "{e} (wanted {needle:?})");
    assert!(e.to_string().starts_with(&format!("{line}:{col}: ")));
}

#[test]
fn bad_character() {
    assert_error(
        "func @f() {\n  return $\n}\n",
        2,
        10,
        "unexpected character `$`",
    );
}

#[test]
fn unknown_value() {
    assert_error(
        "func @f() -> i32 {\n  v0: i32 = const 1\n  return v9\n}\n",
        3,
        10,
        "unknown value v9",
    );
}

#[test]
fn value_defined_twice() {
    assert_error(
        "func @f() {\n  v0: i32 = const 1\n  v0: i32 = const 2\n  return\n}\n",
        3,
        3,
        "defined twice",
    );
}

#[test]
fn unknown_instruction() {
    assert_error(
        "func @f() {\n  frobnicate\n}\n",
        2,
        3,
        "unknown instruction `frobnicate`",
    );
}

#[test]
fn unknown_type_struct_and_function() {
    assert_error(
        "func @f(v0: vec3<i33>) {\n  return\n}\n",
        1,
        18,
        "expected a scalar type",
    );
    assert_error(
        "func @f(v0: tensor) {\n  return\n}\n",
        1,
        13,
        "unknown type `tensor`",
    );
    assert_error(
        "func @f(v0: %Nope) {\n  return\n}\n",
        1,
        13,
        "unknown struct %Nope",
    );
    assert_error(
        "func @f() {\n  call @g()\n  return\n}\n",
        2,
        8,
        "unknown function @g",
    );
}

#[test]
fn missing_tokens() {
    assert_error("func @f( {\n}\n", 1, 10, "expected a parameter value");
    assert_error("func @f() {\n  v0: i32 = const 1\n", 3, 1, "expected `}`");
    assert_error("func @f() {\n  v0 i32 = const 1\n}\n", 2, 6, "expected `:`");
    assert_error(
        "kernel f() {}\n",
        1,
        8,
        "expected a function name `@name`, found `f`",
    );
    assert_error("kernel @ f() {}\n", 1, 8, "expected a name after `@`");
    assert_error(
        "wat\n",
        1,
        1,
        "expected `file`, `struct`, `kernel` or `func`",
    );
}

#[test]
fn bad_literals() {
    assert_error(
        "func @f() {\n  v0: i8 = const 300\n}\n",
        2,
        18,
        "out of range",
    );
    assert_error(
        "func @f() {\n  v0: i32 = const 1.5\n}\n",
        2,
        19,
        "not an integer",
    );
    assert_error(
        "func @f() {\n  v0: bool = const 1\n}\n",
        2,
        20,
        "`true` or `false`",
    );
    assert_error(
        "func @f() {\n  print \"a\\q\"\n}\n",
        2,
        11,
        "unknown escape",
    );
    assert_error(
        "func @f() {\n  print \"abc\n}\n",
        2,
        9,
        "unterminated string",
    );
    assert_error("func @f() {\n  return @1:2\n}\n", 2, 10, "bad location");
}

#[test]
fn structure_errors() {
    assert_error("file 1 \"a.py\"\n", 1, 6, "out of order");
    assert_error(
        "struct %S {}\nstruct %S {}\n",
        2,
        8,
        "struct %S is defined twice",
    );
    assert_error(
        "func @f() {\n  return\n}\nfunc @f() {\n  return\n}\n",
        4,
        6,
        "function @f is defined twice",
    );
    assert_error(
        "func @f() {\n  v0, v1 = thread_id\n}\n",
        2,
        5,
        "expected `:`",
    );
    assert_error(
        "func @f() {\n  v0: f32 = make v1\n  return\n}\n",
        2,
        18,
        "unknown value v1",
    );
}

#[test]
fn type_errors_parse_and_fail_verification() {
    let m = parse_module(
        "func @f(v0: i32, v1: f32) -> i32 {\n  v2: i32 = add v0, v1\n  return v2\n}\n",
    )
    .expect("type errors are not syntax errors");
    let e = verify_module(&m).unwrap_err();
    assert_eq!(e.rule, Rule::OperandTypes);
    assert_eq!(e.inst.as_deref(), Some("v2: i32 = add v0, v1"));
}

/// `depth` nested `if`s in a func.
fn nested_ifs(depth: usize) -> String {
    let mut t = String::from("func @f(v0: bool) {\n");
    for _ in 0..depth {
        t.push_str("if v0 {\n");
    }
    for _ in 0..depth {
        t.push_str("yield\n} else {\nyield\n}\n");
    }
    t.push_str("return\n}\n");
    t
}

#[test]
fn nesting_is_bounded() {
    let max = weft_ir::text::MAX_DEPTH;
    // The body counts as one level.
    let m = parse_module(&nested_ifs(max - 1)).expect("deep nesting within the limit parses");
    verify_module(&m).unwrap();
    assert_eq!(
        parse_module(&weft_ir::text::print_module(&m)).map(|m2| weft_ir::text::print_module(&m2)),
        Ok(weft_ir::text::print_module(&m))
    );
    let e = parse_module(&nested_ifs(max + 10)).unwrap_err();
    assert!(e.message.contains("nested more than"), "{e}");
}
