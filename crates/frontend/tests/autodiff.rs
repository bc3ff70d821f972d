//! What the frontend records for the adjoint pass: custom gradients and
//! replays, `wp.adjoint[x]`, `enable_backward`, and Warp's in-place
//! component writes.

use weft_ir::{InstKind, Module};

fn backward(src: &str) -> Module {
    weft_frontend::compile_for_backward("k.py", src)
        .unwrap_or_else(|d| panic!("{}", d.render(false)))
}

fn error(src: &str) -> String {
    match weft_frontend::compile_for_backward("k.py", src) {
        Ok(_) => panic!("compiles:\n{src}"),
        Err(d) => d.render(false),
    }
}

const CUSTOM: &str = r#"
import warp as wp

@wp.func
def f(x: float, y: float):
    return x * y

@wp.func_grad(f)
def adj_f(x: float, y: float, adj_ret: float):
    wp.adjoint[x] += y * adj_ret
    if x > 0.0:
        wp.adjoint[y] += 2.0 * adj_ret

@wp.func_replay(f)
def replay_f(x: float, y: float):
    return x * y + 1.0

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = f(a[i], 3.0)
"#;

#[test]
fn custom_gradients_are_recorded_on_the_func() {
    let m = backward(CUSTOM);
    weft_ir::verify::verify_module(&m).expect("verifies");
    let f = m.funcs.values().find(|f| f.name == "f").expect("f");
    let g = &m.funcs[f.custom_adjoint.expect("custom adjoint")];
    assert_eq!(g.name, "adj_f");
    assert_eq!(g.params.len(), 3);
    assert_eq!(g.returns.len(), 2, "one adjoint per parameter of f");
    let r = &m.funcs[f.custom_replay.expect("custom replay")];
    assert_eq!(r.name, "replay_f");
    // A forward compile leaves them out.
    let fwd = weft_frontend::compile("k.py", CUSTOM).unwrap();
    assert!(fwd
        .funcs
        .values()
        .all(|f| f.custom_adjoint.is_none() && f.name != "adj_f"));
    // The text form round-trips the attributes.
    let text = weft_ir::text::check_roundtrip(&m).expect("round-trips");
    assert!(text.contains("adjoint(@adj_f) replay(@replay_f)"), "{text}");
}

#[test]
fn custom_gradient_mistakes_are_diagnosed() {
    let e = error(&CUSTOM.replace("wp.adjoint[y] += 2.0", "wp.adjoint[z] += 2.0"));
    assert!(
        e.contains("`z` is not a parameter of the differentiated func"),
        "{e}"
    );
    let e = error(&CUSTOM.replace(
        "def adj_f(x: float, y: float, adj_ret: float)",
        "def adj_f(x: float, adj_ret: float)",
    ));
    assert!(e.contains("do not match `f`"), "{e}");
    let e = error(&CUSTOM.replace("@wp.func_grad(f)", "@wp.func_grad(g)"));
    assert!(
        e.contains("`g` is not a `@wp.func` defined before it"),
        "{e}"
    );
    let e = error(&CUSTOM.replace("    return x * y\n", "    return x * y\n\n@wp.kernel\ndef other(b: wp.array(dtype=float)):\n    b[0] = wp.adjoint[b]\n"));
    assert!(e.contains("outside a custom gradient"), "{e}");
    let arrays = r#"
import warp as wp

@wp.func
def h(a: wp.array(dtype=float), x: float):
    return a[0] * x

@wp.func_grad(h)
def adj_h(a: wp.array(dtype=float), x: float, adj_ret: float):
    wp.adjoint[x] += adj_ret

@wp.kernel
def k(a: wp.array(dtype=float)):
    a[1] = h(a, 2.0)
"#;
    assert!(error(arrays).contains("which takes arrays, is not supported"));
    let ret = CUSTOM.replace("wp.adjoint[x] += y * adj_ret", "return y");
    assert!(error(&ret).contains("a custom gradient returns no value"));
}

#[test]
fn enable_backward_marks_kernels() {
    let src = r#"
import warp as wp

wp.set_module_options({"enable_backward": False})

@wp.kernel
def off(a: wp.array(dtype=float)):
    a[0] = 1.0

@wp.kernel(enable_backward=True)
def on(a: wp.array(dtype=float)):
    a[0] = 2.0
"#;
    let m = backward(src);
    let flag = |n: &str| m.funcs.values().find(|f| f.name == n).unwrap().backward;
    assert!(!flag("off"));
    assert!(flag("on"));
    let text = weft_ir::text::print_module(&m);
    assert!(text.contains("no_backward"), "{text}");
    let bad = src.replace("enable_backward=True", "enable_backward=3");
    assert!(error(&bad).contains("`enable_backward` must be `True` or `False`"));
}

#[test]
fn component_writes_are_marked_in_place_as_warp_lowers_them() {
    let src = r#"
import warp as wp

@wp.kernel
def k(a: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22)):
    v = a[0]
    v[1] = 2.0
    v.x = 3.0
    v[2] += 1.0
    v.y += 1.0
    v[0] *= 2.0
    a[1] = v
    w = m[0]
    w[0, 1] = 5.0
    m[1] = w
"#;
    let m = backward(src);
    let k = m.kernels().next().unwrap().1;
    let marks: Vec<bool> = k
        .insts
        .values()
        .filter(|d| matches!(d.kind, InstKind::Insert(..)))
        .map(|d| d.inplace)
        .collect();
    // v[1] = , v.x = : in place; v[2] += : exact; v.y += , v[0] *= : in
    // place; w[0, 1] = : in place.
    assert_eq!(
        marks,
        vec![true, true, false, true, true, true],
        "{marks:?}"
    );
}

const GRAD: &str = r#"
import warp as wp

@wp.func
def f(x: float, y: float):
    return x * y

@wp.func
def h(a: wp.array(dtype=float), x: float):
    return a[0] * x

@wp.func
def nothing(x: float):
    print(x)

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    dx, dy = wp.grad(f)(a[i], 2.0)
    a[i] = dx + dy
"#;

#[test]
fn grad_calls_become_gradient_funcs() {
    let m = weft_frontend::compile("k.py", GRAD).unwrap_or_else(|d| panic!("{}", d.render(false)));
    let (_, g) = m
        .funcs
        .iter()
        .find(|(_, f)| f.grad_of.is_some())
        .expect("a gradient func");
    let of = &m.funcs[g.grad_of.unwrap()];
    assert_eq!(of.name, "f");
    assert_eq!(g.returns.len(), 2, "one adjoint per param of f");
    assert!(g.name.starts_with("__weft_grad_f"), "{}", g.name);
}

#[test]
fn grad_call_mistakes_are_diagnosed() {
    let call = "    dx, dy = wp.grad(f)(a[i], 2.0)\n    a[i] = dx + dy\n";
    let with = |line: &str| GRAD.replace(call, line);
    let cases = [
        (
            "    a[i] = wp.grad(wp.sin)(a[i])\n",
            "wrap the builtin in a `@wp.func`",
        ),
        (
            "    a[i] = wp.grad(sin)(a[i])\n",
            "wrap the builtin in a `@wp.func`",
        ),
        (
            "    a[i] = wp.grad(g)(a[i])\n",
            "`wp.grad` of `g`, which is not a `@wp.func`",
        ),
        ("    a[i] = wp.grad(h)(a, 1.0)[1]\n", "which takes an array"),
        (
            "    a[i] = wp.grad(nothing)(a[i])\n",
            "which returns nothing",
        ),
        (
            "    a[i] = wp.grad(f, f)(a[i], 1.0)\n",
            "`wp.grad` of something that is not a func",
        ),
    ];
    for (line, want) in cases {
        let e = match weft_frontend::compile("k.py", &with(line)) {
            Ok(_) => panic!("compiles: {line}"),
            Err(d) => d.render(false),
        };
        assert!(e.contains(want), "{line}: {e}");
        assert!(e.contains("k.py:"), "points into the source: {e}");
    }
}
