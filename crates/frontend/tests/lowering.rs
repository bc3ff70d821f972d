//! Lowering behaviour, checked by running the IR on the reference
//! interpreter and by inspecting its structure.

use weft_ir::interp::{run_kernel, ArgValue, InterpOptions};
use weft_ir::{FuncKind, InstKind, Module};

/// A kernel argument for [`run`]: a 1-D array of 4-byte scalars (f32 or
/// i32 bits; `width` scalars per element) or a by-value scalar.
enum Arg {
    F32(Vec<f32>, usize),
    I32(Vec<i32>),
    Int(i32),
}

fn compile(src: &str) -> Module {
    let m = match weft_frontend::compile("test.py", src) {
        Ok(m) => m,
        Err(d) => panic!("compile failed:\n{}", d.render(false)),
    };
    if let Err(e) = weft_ir::verify::verify_module(&m) {
        panic!("verifier: {e}\n{}", weft_ir::text::print_module(&m));
    }
    m
}

fn run(src: &str, kernel: &str, dim: &[i32], args: &mut [Arg]) -> Module {
    let m = compile(src);
    let k = m.func_by_name(kernel).expect("kernel exists");
    let mut bufs: Vec<Vec<u8>> = args
        .iter()
        .map(|a| match a {
            Arg::F32(v, _) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Arg::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Arg::Int(x) => x.to_le_bytes().to_vec(),
        })
        .collect();
    {
        let mut avs: Vec<ArgValue> = args
            .iter()
            .zip(bufs.iter_mut())
            .map(|(a, buf)| match a {
                Arg::Int(_) => ArgValue::Value(buf.clone()),
                Arg::F32(v, w) => ArgValue::Array {
                    shape: [(v.len() / w) as i32, 1, 1, 1],
                    strides: [4 * *w as i64, 0, 0, 0],
                    data: buf.as_mut_slice(),
                },
                Arg::I32(v) => ArgValue::Array {
                    shape: [v.len() as i32, 1, 1, 1],
                    strides: [4, 0, 0, 0],
                    data: buf.as_mut_slice(),
                },
            })
            .collect();
        run_kernel(&m, k, dim, &mut avs, &InterpOptions::default()).expect("kernel runs");
    }
    for (a, buf) in args.iter_mut().zip(bufs) {
        match a {
            Arg::F32(v, _) => {
                *v = buf
                    .chunks(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            }
            Arg::I32(v) => {
                *v = buf
                    .chunks(4)
                    .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            }
            Arg::Int(_) => {}
        }
    }
    m
}

fn ints(a: &Arg) -> &[i32] {
    match a {
        Arg::I32(v) => v,
        _ => panic!("not an int array"),
    }
}

fn floats(a: &Arg) -> &[f32] {
    match a {
        Arg::F32(v, _) => v,
        _ => panic!("not a float array"),
    }
}

fn count_insts(m: &Module, name: &str, pred: impl Fn(&InstKind) -> bool) -> usize {
    let f = &m.funcs[m.func_by_name(name).expect("func exists")];
    f.insts.values().filter(|i| pred(&i.kind)).count()
}

#[test]
fn tid_decomposes_row_major() {
    let src = "import warp as wp\n\n@wp.kernel\ndef k(out: wp.array(dtype=int)):\n    i, j, k = wp.tid()\n    out[(i * 3 + j) * 2 + k] = i * 100 + j * 10 + k\n";
    let mut args = [Arg::I32(vec![-1; 24])];
    run(src, "k", &[4, 3, 2], &mut args);
    let expect: Vec<i32> = (0..4)
        .flat_map(|i| (0..3).flat_map(move |j| (0..2).map(move |k| i * 100 + j * 10 + k)))
        .collect();
    assert_eq!(ints(&args[0]), expect.as_slice());
}

#[test]
fn loops_carry_variables_and_break_continue() {
    let src = r#"import warp as wp

@wp.kernel
def k(n: int, out: wp.array(dtype=int)):
    i = wp.tid()
    s = int(0)
    for j in range(n):
        if j == 3:
            continue
        if j > i + 4:
            break
        s = s + j
    t = int(0)
    for j in range(10, 0, -3):
        t = t * 10 + j
    step = i + 1
    u = int(0)
    for j in range(0, 12, step):
        u = u + 1
    w = int(1)
    while w < 100:
        w = w * (i + 2)
    out[i * 4 + 0] = s
    out[i * 4 + 1] = t
    out[i * 4 + 2] = u
    out[i * 4 + 3] = w
"#;
    let mut args = [Arg::Int(20), Arg::I32(vec![0; 12])];
    let m = run(src, "k", &[3], &mut args);
    let out = ints(&args[1]);
    for i in 0..3 {
        let s: i32 = (0..20)
            .take_while(|&j| j <= i + 4)
            .filter(|&j| j != 3)
            .sum();
        let u = (0..12).step_by((i + 1) as usize).count() as i32;
        let mut w = 1;
        while w < 100 {
            w *= i + 2;
        }
        let o = &out[(i * 4) as usize..(i * 4 + 4) as usize];
        assert_eq!(o, &[s, 10741, u, w], "thread {i}");
    }
    // Runtime bounds make real loops; `range(10, 0, -3)` is unrolled.
    assert_eq!(
        count_insts(&m, "k", |k| matches!(k, InstKind::Loop { .. })),
        3
    );
}

#[test]
fn constant_ranges_are_unrolled() {
    let src = r#"import warp as wp

N = wp.constant(3)
BIG = wp.constant(40)

@wp.kernel
def k(out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    v = wp.vec3(0.0)
    for c in range(N):
        v[c] = float(c * 10 + i)
    s = float(0.0)
    for c in range(BIG):
        s = s + 1.0
    v[0] = v[0] + s
    out[i] = v
"#;
    let mut args = [Arg::F32(vec![0.0; 6], 3)];
    let m = run(src, "k", &[2], &mut args);
    assert_eq!(floats(&args[0]), &[40.0, 10.0, 20.0, 41.0, 11.0, 21.0]);
    // Only the 40-trip loop remains a loop.
    assert_eq!(
        count_insts(&m, "k", |k| matches!(k, InstKind::Loop { .. })),
        1
    );
}

#[test]
fn branches_ternary_and_short_circuit() {
    let src = r#"import warp as wp

@wp.kernel
def k(a: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    n = a.shape[0]
    x = int(0)
    if i < n and a[i] > 5:
        x = 1
    elif i >= n or a[i] < 0:
        x = 2
    else:
        x = 3
    y = 7 if x == 1 else -7
    out[i] = x * 100 + y
"#;
    let mut args = [Arg::I32(vec![10, -3, 2]), Arg::I32(vec![0; 5])];
    run(src, "k", &[5], &mut args);
    // Threads 3 and 4 read past `a` only without short-circuiting.
    assert_eq!(ints(&args[1]), &[107, 193, 293, 193, 193]);
}

#[test]
fn funcs_overloads_defaults_tuples_and_early_returns() {
    let src = r#"import warp as wp

@wp.func
def f(x: float, s: float = 2.0, o: float = -1.0):
    return x * s + o

@wp.func
def g(x: int):
    if x < 0:
        return -1, x
    return 1, x * 2

@wp.func
def g(x: float) -> float:
    return x + 0.5

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    a, b = g(i - 1)
    out[i * 4 + 0] = f(float(i))
    out[i * 4 + 1] = f(float(i), o=10.0)
    out[i * 4 + 2] = float(a * 100 + b)
    out[i * 4 + 3] = g(float(i))
"#;
    let mut args = [Arg::F32(vec![0.0; 8], 1)];
    let m = run(src, "k", &[2], &mut args);
    assert_eq!(
        floats(&args[0]),
        &[-1.0, 10.0, -101.0, 0.5, 1.0, 12.0, 100.0, 1.5]
    );
    assert!(m.func_by_name("g__i32").is_some() && m.func_by_name("g__f32").is_some());
    let g = &m.funcs[m.func_by_name("g__i32").expect("g")];
    assert_eq!(g.returns.len(), 2);
    assert_eq!(g.kind, FuncKind::Func);
}

#[test]
fn structs_and_component_stores() {
    let src = r#"import warp as wp

@wp.struct
class Inner:
    v: wp.vec3
    w: float

@wp.struct
class Outer:
    a: Inner
    n: int

@wp.kernel
def k(items: wp.array(dtype=Outer), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    s = Outer()
    s.a.v = wp.vec3(1.0, 2.0, 3.0)
    s.a.v[1] = float(i)
    s.n = i + 5
    t = Inner(w=4.0)
    items[i] = s
    items[i].a.w = t.w
    items[i].a.v[2] += 10.0
    out[i] = s.a.v
    out[i][0] = float(s.n)
"#;
    // Outer = {Inner{vec3, f32}, i32}: 5 words per element.
    let mut args = [Arg::F32(vec![0.0; 10], 5), Arg::F32(vec![0.0; 6], 3)];
    let m = run(src, "k", &[2], &mut args);
    let items = floats(&args[0]);
    assert_eq!(&items[0..4], &[1.0, 0.0, 13.0, 4.0]);
    assert_eq!(items[4].to_bits(), 5);
    assert_eq!(&items[5..9], &[1.0, 1.0, 13.0, 4.0]);
    assert_eq!(floats(&args[1]), &[5.0, 0.0, 3.0, 6.0, 1.0, 3.0]);
    // Field stores into array elements use constant paths.
    let paths = count_insts(
        &m,
        "k",
        |k| matches!(k, InstKind::Store(a, _) | InstKind::Atomic(_, a, _) if !a.path.is_empty()),
    );
    assert_eq!(paths, 3);
}

#[test]
fn array_augassign_is_atomic() {
    let src = "import warp as wp\n\n@wp.kernel\ndef k(acc: wp.array(dtype=int), x: wp.array(dtype=int)):\n    i = wp.tid()\n    acc[0] += x[i]\n    acc[1] -= 1\n    acc[2] *= 2\n";
    let mut args = [Arg::I32(vec![0, 0, 1]), Arg::I32((1..=8).collect())];
    let m = run(src, "k", &[8], &mut args);
    assert_eq!(ints(&args[0]), &[36, -8, 256]);
    assert_eq!(
        count_insts(&m, "k", |k| matches!(k, InstKind::Atomic(..))),
        2
    );
}

#[test]
fn names_locations_and_files() {
    let src = "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n    i = wp.tid()\n    t = x[i] * 2.0\n    y[i] = t\n";
    let m = compile(src);
    assert_eq!(m.files[0], "test.py");
    let f = &m.funcs[m.func_by_name("k").expect("k")];
    assert_eq!(f.kind, FuncKind::Kernel);
    assert_eq!(f.params[0].name, "x");
    assert!(f.returns.is_empty());
    let names: Vec<&str> = f.values.keys().filter_map(|v| f.value_name(v)).collect();
    for n in ["x", "y", "i", "t"] {
        assert!(names.contains(&n), "value named {n}");
    }
    // Every instruction has a location; the store is on line 7.
    assert!(f.insts.values().all(|i| i.loc.line > 0));
    let store = f
        .insts
        .values()
        .find(|i| matches!(i.kind, InstKind::Store(..)))
        .expect("a store");
    assert_eq!((store.loc.line, store.loc.col), (7, 5));
}

#[test]
fn only_called_prelude_funcs_are_lowered() {
    let src = "import warp as wp\n\n@wp.kernel\ndef k(v: wp.array(dtype=wp.vec3), o: wp.array(dtype=float)):\n    i = wp.tid()\n    o[i] = wp.length(v[i])\n";
    let m = compile(src);
    assert!(m.funcs.len() < 6, "{} funcs lowered", m.funcs.len());
    let mut args = [Arg::F32(vec![3.0, 4.0, 0.0], 3), Arg::F32(vec![0.0], 1)];
    run(src, "k", &[1], &mut args);
    assert_eq!(floats(&args[1]), &[5.0]);
}

#[test]
fn errors_are_collected_per_kernel() {
    let src = "import warp as wp\n\n@wp.kernel\ndef a(x: wp.array(dtype=float)):\n    x[0] = nope\n\n@wp.kernel\ndef b(x: wp.array(dtype=float)):\n    x[0] = also_nope\n";
    let d = weft_frontend::compile("t.py", src).expect_err("must fail");
    assert_eq!(d.items.len(), 2);
    let text = d.to_string();
    assert!(text.contains("unknown name `nope`") && text.contains("unknown name `also_nope`"));
    assert!(text.contains("--> t.py:5:12"), "{text}");
}

#[test]
fn control_flow_in_funcs() {
    let src = r#"import warp as wp

@wp.func
def first_multiple(n: int, d: int) -> int:
    j = int(1)
    while True:
        if j > 50:
            return -1
        if (j * n) % d == 0:
            break
        j += 1
    return j

@wp.func
def classify(n: int):
    if n < 3:
        kind = 0
        extra = n
    elif n < 6:
        kind = 1
        extra = n * 2
    else:
        return 9, -n
    return kind, extra

@wp.func
def nested(n: int) -> int:
    total = int(0)
    for a in range(n):
        for b in range(n):
            if b > a:
                break
            if (a + b) % 3 == 0:
                continue
            total += a * b
        if total > 40:
            return total
    for c in range(4):
        if c == n:
            return total + 1000
    return total

@wp.kernel
def k(out: wp.array(dtype=int)):
    i = wp.tid()
    kind, extra = classify(i)
    out[i * 4 + 0] = first_multiple(i + 1, 12)
    out[i * 4 + 1] = kind
    out[i * 4 + 2] = extra
    out[i * 4 + 3] = nested(i)
"#;
    fn first_multiple(n: i32, d: i32) -> i32 {
        let mut j = 1;
        loop {
            if j > 50 {
                return -1;
            }
            if (j * n) % d == 0 {
                return j;
            }
            j += 1;
        }
    }
    fn classify(n: i32) -> (i32, i32) {
        if n < 3 {
            (0, n)
        } else if n < 6 {
            (1, n * 2)
        } else {
            (9, -n)
        }
    }
    fn nested(n: i32) -> i32 {
        let mut total = 0;
        for a in 0..n {
            for b in 0..n {
                if b > a {
                    break;
                }
                if (a + b) % 3 == 0 {
                    continue;
                }
                total += a * b;
            }
            if total > 40 {
                return total;
            }
        }
        for c in 0..4 {
            if c == n {
                return total + 1000;
            }
        }
        total
    }
    let n = 10;
    let mut args = [Arg::I32(vec![0; 4 * n])];
    run(src, "k", &[n as i32], &mut args);
    let out = ints(&args[0]);
    for i in 0..n as i32 {
        let (kind, extra) = classify(i);
        let expect = [first_multiple(i + 1, 12), kind, extra, nested(i)];
        assert_eq!(
            &out[(i * 4) as usize..(i * 4 + 4) as usize],
            &expect,
            "thread {i}"
        );
    }
}

#[test]
fn two_d_arrays_and_views() {
    let src = r#"import warp as wp

@wp.kernel
def k(a: wp.array2d(dtype=int), out: wp.array(dtype=int)):
    i, j = wp.tid()
    a[i][j] = i * 10 + j
    a[i, j] += 1
    out[i * a.shape[1] + j] = a[i][j] + a.shape[0] * 1000
"#;
    let m = compile(src);
    let k = m.func_by_name("k").expect("k");
    let mut a = vec![0u8; 6 * 4];
    let mut out = vec![0u8; 6 * 4];
    let mut args = [
        ArgValue::Array {
            data: &mut a,
            shape: [2, 3, 1, 1],
            strides: [12, 4, 0, 0],
        },
        ArgValue::Array {
            data: &mut out,
            shape: [6, 1, 1, 1],
            strides: [4, 0, 0, 0],
        },
    ];
    run_kernel(&m, k, &[2, 3], &mut args, &InterpOptions::default()).expect("runs");
    let out: Vec<i32> = out
        .chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(out, vec![2001, 2002, 2003, 2011, 2012, 2013]);
}

#[test]
fn tid_with_fewer_targets_than_launch_dims() {
    // As Warp: the first k indices of the launch; missing axes read 0.
    let src = "import warp as wp\n\n@wp.kernel\ndef k(out: wp.array(dtype=int)):\n    i, j = wp.tid()\n    out[i * 10 + j] += 1\n";
    let mut args = [Arg::I32(vec![0; 40])];
    run(src, "k", &[2, 3, 4], &mut args);
    let out = ints(&args[0]);
    for (x, &n) in out.iter().enumerate() {
        let expect = if x % 10 < 3 && x / 10 < 2 { 4 } else { 0 };
        assert_eq!(n, expect, "index {x}");
    }
    let src = "import warp as wp\n\n@wp.kernel\ndef k(out: wp.array(dtype=int)):\n    i = wp.tid()\n    out[i] += 1\n";
    let mut args = [Arg::I32(vec![0; 3])];
    run(src, "k", &[2, 3], &mut args);
    assert_eq!(ints(&args[0]), &[3, 3, 0]);
    let src = "import warp as wp\n\n@wp.kernel\ndef k(out: wp.array(dtype=int)):\n    i, j, l = wp.tid()\n    out[i * 100 + j * 10 + l] += 1\n";
    let mut args = [Arg::I32(vec![0; 200])];
    run(src, "k", &[2, 3], &mut args);
    let hits: Vec<usize> = (0..200).filter(|&x| ints(&args[0])[x] == 1).collect();
    assert_eq!(hits, vec![0, 10, 20, 100, 110, 120]);
}

#[test]
fn annotation_spellings() {
    let src = r#"import warp as warp_alias
import numpy as np

C = warp_alias.constant(warp_alias.vec2i(4, 7))
S = warp_alias.constant(float(np.sqrt(4.0)))

@warp_alias.struct
class P:
    q: warp_alias.quatd
    m: warp_alias.mat22h

@warp_alias.kernel
def k(a: warp_alias.array(dtype=float, ndim=2), b: warp_alias.array2d(dtype=warp_alias.vec3),
      c: warp_alias.array3d[float], d: warp_alias.array4d(dtype=warp_alias.uint8), e: warp_alias.array(dtype=P),
      f: warp_alias.float64, g: int, h: bool, t: warp_alias.transformd, v: warp_alias.vec3ui):
    i = warp_alias.tid()
"#;
    let m = compile(src);
    let f = &m.funcs[m.func_by_name("k").expect("k")];
    let shown: Vec<String> = f
        .params
        .iter()
        .map(|p| weft_ir::DisplayType(p.ty, &m.structs).to_string())
        .collect();
    assert_eq!(
        shown,
        [
            "array2<f32>",
            "array2<vec3<f32>>",
            "array3<f32>",
            "array4<u8>",
            "array1<%P>",
            "f64",
            "i32",
            "bool",
            "transform<f64>",
            "vec3<u32>"
        ]
    );
    let p = &m.structs[m.structs.keys().next().expect("struct P")];
    let fields: Vec<String> = p
        .fields
        .iter()
        .map(|f| weft_ir::DisplayType(f.ty, &m.structs).to_string())
        .collect();
    assert_eq!(fields, ["quat<f64>", "mat2x2<f16>"]);
}

#[test]
fn numpy_math_and_bare_builtin_names() {
    // Warp resolves `np.sqrt`, `math.sqrt` and bare `sqrt` in kernels to its
    // builtins; `np.pi` is a constant.
    let src = r#"import warp as wp
import numpy as np
import math

class HostSide:
    pass

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = np.sqrt(out[i]) + math.sqrt(out[i]) + sqrt(4.0) + min(1.0, float(np.pi))
"#;
    let mut args = [Arg::F32(vec![9.0, 16.0], 1)];
    run(src, "k", &[2], &mut args);
    assert_eq!(floats(&args[0]), &[9.0, 11.0]);
}

#[test]
fn generic_funcs_and_host_code() {
    // `Any` parameters instantiate per argument types; host code around the
    // kernels (imports, allocations, launches, main guard) is not compiled.
    let src = r#"import warp as wp
import numpy as np
from typing import Any

wp.init()
n = 4
data = wp.array(np.arange(n), dtype=float)

@wp.struct
class Cfg:
    gain: float = 3.0
    bias: int

@wp.func
def twice(x: Any):
    return x + x

@wp.func
def twice(x: int):
    return x * 20

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    c = Cfg()
    v = twice(wp.vec2(float(i), 1.0))
    out[i] = twice(float(i)) + v[1] + float(twice(i)) + c.gain

if __name__ == "__main__":
    wp.launch(k, dim=n, inputs=[data])
"#;
    let mut args = [Arg::F32(vec![0.0; 3], 1)];
    let m = run(src, "k", &[3], &mut args);
    // 2i + 2 + 20i + 0 (struct defaults are not used in kernels, as in Warp)
    assert_eq!(floats(&args[0]), &[2.0, 24.0, 46.0]);
    for name in ["twice__f32", "twice__vec2f32", "twice__i32"] {
        assert!(m.func_by_name(name).is_some(), "{name}");
    }
}

#[test]
fn wp_static_is_evaluated_at_compile_time() {
    let src = r#"import warp as wp

N = 3

@wp.kernel
def k(out: wp.array(dtype=int)):
    i = wp.tid()
    s = int(0)
    for j in range(wp.static(N * 2)):
        s += j
    out[i] = s + wp.static(N + 1)
"#;
    let mut args = [Arg::I32(vec![0; 2])];
    let m = run(src, "k", &[2], &mut args);
    assert_eq!(ints(&args[0]), &[19, 19]);
    assert_eq!(
        count_insts(&m, "k", |k| matches!(k, InstKind::Loop { .. })),
        0
    );
}

#[test]
fn int32_min_literal() {
    let src = "import warp as wp\n\n@wp.kernel\ndef k(out: wp.array(dtype=int)):\n    out[0] = -2147483648\n    out[1] = -(5)\n";
    let mut args = [Arg::I32(vec![0; 2])];
    run(src, "k", &[1], &mut args);
    assert_eq!(ints(&args[0]), &[i32::MIN, -5]);
}

#[test]
fn redefinitions_replace_earlier_definitions() {
    let src = r#"import warp as wp

@wp.func
def f(x: int):
    return x + 1

@wp.func
def f(x: int):
    return x + 2

@wp.kernel
def k(out: wp.array(dtype=int)):
    out[0] = 1

@wp.kernel
def k(out: wp.array(dtype=int)):
    out[0] = f(40)
"#;
    let mut args = [Arg::I32(vec![0])];
    let m = run(src, "k", &[1], &mut args);
    assert_eq!(ints(&args[0]), &[42]);
    assert_eq!(m.kernels().count(), 1);
}

#[test]
fn loop_variable_keeps_its_last_value() {
    let src = r#"import warp as wp

@wp.kernel
def k(a: wp.array(dtype=int), n: int):
    i = wp.tid()
    for j in range(n):
        if j * j >= i:
            break
    for q in range(n):
        pass
    a[i] = j * 100 + q
"#;
    let mut args = [Arg::I32(vec![0; 4]), Arg::Int(3)];
    run(src, "k", &[4], &mut args);
    // First j with j*j >= i, else the last one (2); q ends at 2.
    assert_eq!(ints(&args[0]), &[2, 102, 202, 202]);
}

#[test]
fn array_views() {
    let src = r#"import warp as wp

@wp.kernel
def k(a: wp.array2d(dtype=float)):
    i = wp.tid()
    row = a[i]
    row[1] = row[0] + 5.0
    row[2] += 1.0
"#;
    let m = compile(src);
    let k = m.func_by_name("k").expect("k");
    let mut data: Vec<u8> = [1.0f32; 6].iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut args = [ArgValue::Array {
        data: &mut data,
        shape: [2, 3, 1, 1],
        strides: [12, 4, 0, 0],
    }];
    run_kernel(&m, k, &[2], &mut args, &InterpOptions::default()).expect("runs");
    let out: Vec<f32> = data
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(out, vec![1.0, 6.0, 2.0, 1.0, 6.0, 2.0]);
}

#[test]
fn tuple_variables() {
    let src = r#"import warp as wp

@wp.func
def two(a: float):
    return a, a * 2.0

@wp.kernel
def k(out: wp.array(dtype=float), n: int):
    i = wp.tid()
    t = two(float(i))
    if i > 0:
        t = two(float(i) + 10.0)
    for j in range(n):
        t = two(t[1])
    x, y = t
    out[i] = x + y + t[1]
"#;
    let mut args = [Arg::F32(vec![0.0; 2], 1), Arg::Int(2)];
    run(src, "k", &[2], &mut args);
    // i=0: (0,0) -> (0,0) -> (0,0); i=1: (11,22) -> (22,44) -> (44,88)
    assert_eq!(floats(&args[0]), &[0.0, 44.0 + 88.0 + 88.0]);
}

#[test]
fn generic_array_params() {
    let src = r#"import warp as wp
from typing import Any

@wp.func
def first(a: wp.array(dtype=Any)):
    return a[0]

@wp.func
def corner(a: wp.array2d(dtype=Any)):
    return a[0, 0]

@wp.kernel
def k(f: wp.array(dtype=float), n: wp.array(dtype=int), out: wp.array(dtype=float)):
    out[0] = first(f) + float(first(n))
"#;
    let mut args = [
        Arg::F32(vec![1.5, 0.0], 1),
        Arg::I32(vec![2, 0]),
        Arg::F32(vec![0.0], 1),
    ];
    let m = run(src, "k", &[1], &mut args);
    assert_eq!(floats(&args[2]), &[3.5]);
    assert!(m.func_by_name("first__arr1_f32").is_some());
    assert!(m.func_by_name("first__arr1_i32").is_some());
    // An array of the wrong dimensionality does not fit.
    let bad = src.replace("first(f) + float(first(n))", "corner(f)");
    let d = weft_frontend::compile("t.py", &bad).expect_err("2-D parameter");
    assert!(
        d.to_string()
            .contains("cannot be array(dtype=float32, ndim=1)"),
        "{d}"
    );
}

#[test]
fn type_aliases() {
    let src = r#"import warp as wp

vec5 = wp.types.vector(length=5, dtype=float)
mat23 = wp.types.matrix(shape=(2, 3), dtype=wp.float64)
Real = wp.float64

@wp.kernel
def k(v: wp.array(dtype=vec5), m: wp.array(dtype=mat23), r: Real, out: wp.array(dtype=Real)):
    i = wp.tid()
    out[i] = r + Real(2.0)
"#;
    let m = compile(src);
    let f = &m.funcs[m.func_by_name("k").expect("k")];
    let shown: Vec<String> = f
        .params
        .iter()
        .map(|p| weft_ir::DisplayType(p.ty, &m.structs).to_string())
        .collect();
    assert_eq!(
        shown,
        [
            "array1<vec5<f32>>",
            "array1<mat2x3<f64>>",
            "f64",
            "array1<f64>"
        ]
    );
}

#[test]
fn warp_named_constants() {
    // Every constant of `warp/_src/constants.py`, in both spellings (found
    // by `weft fuzz-diff`: `wp.nan` was rejected).
    let src = r#"import warp as wp

@wp.kernel
def k(out: wp.array(dtype=float)):
    out[0] = wp.E + wp.e + wp.LOG2E + wp.log2e + wp.LOG10E + wp.log10e
    out[1] = wp.LN2 + wp.ln2 + wp.LN10 + wp.ln10 + wp.PHI + wp.phi
    out[2] = wp.PI + wp.pi + wp.HALF_PI + wp.half_pi + wp.TAU + wp.tau
    out[3] = wp.where(wp.isnan(wp.nan) and wp.isnan(wp.NAN), 1.0, 0.0)
    out[4] = -wp.inf
    out[5] = wp.INF
"#;
    let mut args = [Arg::F32(vec![0.0; 6], 1)];
    run(src, "k", &[1], &mut args);
    let got = floats(&args[0]);
    use std::f32::consts as c;
    let close = |a: f32, b: f32| (a - b).abs() < 1e-5;
    assert!(close(got[0], 2.0 * (c::E + c::LOG2_E + c::LOG10_E)));
    assert!((got[1] - 2.0 * (c::LN_2 + c::LN_10 + 1.618_034)).abs() < 1e-5);
    assert!(
        (got[2]
            - 2.0 * (std::f32::consts::PI + std::f32::consts::FRAC_PI_2 + std::f32::consts::TAU))
            .abs()
            < 1e-5
    );
    assert_eq!(&got[3..], &[1.0, f32::NEG_INFINITY, f32::INFINITY]);
}
