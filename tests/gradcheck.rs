//! `weft gradcheck`: adjoint gradients against central finite differences,
//! and the exact dynamic-loop mode (`CompileOptions::exact_loops`, beyond
//! Warp), which turns Warp's loop rule into the derivative.

use std::path::{Path, PathBuf};
use weft::{CompileOptions, Compiler, Device};
use weft_conform::gradcheck::{gradcheck, Options, Report};
use weft_conform::{self as conform, Case};

fn own_case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("conformance/grad/cases")
        .join(name)
}

fn check(case: &Case, compiler: &Compiler) -> Report {
    gradcheck(case, &Device::cpu(), compiler, &Options::default()).expect("gradcheck runs")
}

fn exact(k: u32) -> Compiler {
    Compiler::with_options(CompileOptions {
        exact_loops: Some(k),
        ..Default::default()
    })
}

/// Every case of our gradient corpus agrees with finite differences on
/// each array whose gradient is a derivative.
#[test]
fn gradients_match_finite_differences() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/grad");
    let compiler = Compiler::new();
    let mut compared = 0;
    for path in conform::find_cases(&dir).expect("cases") {
        let case = Case::load(&path).expect("case loads");
        let r = check(&case, &compiler);
        assert!(r.passed(), "{}: {:?}", r.case, r.rows);
        compared += r.rows.iter().filter(|r| r.passed.is_some()).count();
    }
    assert!(compared >= 10, "only {compared} arrays compared");
}

/// Warp's rule for dynamic loops (each iteration's adjoint at the loop's
/// final state) is not the derivative of these loops; the exact mode is,
/// with any number of kept states (1: everything recomputed from the
/// start; 4; more than the trip count).
#[test]
fn exact_loops_give_the_derivative_where_warps_rule_does_not() {
    for name in [
        "loop_dynamic_product_rule",
        "loop_while_shift_rule",
        "loop_break_continue",
        "loop_nested_dynamic",
    ] {
        let case = Case::load(&own_case(name)).expect("case loads");
        let warp = conform::run_case(&case, &Device::cpu(), &Compiler::new()).expect("runs");
        for k in [1, 4, 64] {
            let r = check(&case, &exact(k));
            let x = r.rows.iter().find(|r| r.array == "x").expect("row x");
            assert_eq!(x.passed, Some(true), "{name}, {k} kept states: {x:?}");
            let run = conform::run_case(&case, &Device::cpu(), &exact(k)).expect("runs");
            let (a, b) = (warp.grad("x").unwrap(), run.grad("x").unwrap());
            assert_ne!(
                a.to_vec::<f32>().unwrap(),
                b.to_vec::<f32>().unwrap(),
                "{name}: Warp's rule and the exact mode agree, so the case tests nothing"
            );
        }
    }
}

/// The exact mode rejects what it cannot differentiate with a typed error
/// naming the construct and its line.
#[test]
fn exact_loops_reject_a_return_inside_a_loop() {
    let src = "import warp as wp\n\n@wp.func\ndef f(x: float) -> float:\n    s = float(0.0)\n    while s < x:\n        s += 1.0\n        if s > 10.0:\n            return s\n    return s\n\n@wp.kernel\ndef k(a: wp.array(dtype=float), b: wp.array(dtype=float)):\n    i = wp.tid()\n    b[i] = f(a[i])\n";
    let Err(e) = exact(4).compile_backward("k.py", src) else {
        panic!("a return in a dynamic loop is accepted");
    };
    let msg = e.to_string();
    assert!(
        msg.contains("k.py:6:5") && msg.contains("`return`"),
        "{msg}"
    );
    assert!(matches!(e, weft::Error::Adjoint(_)), "{msg}");
}
