//! Errors of the backend: what HLSL cannot express is `Unsupported` with
//! the source location; bad requests are typed errors, never panics.

use weft_backend_hlsl::{compile_kernel, Error, Options, Shader};
use weft_ir::text::parse_module;
use weft_ir::{Module, SourcePos};

/// [`compile_kernel`] of a verified module.
fn emit_hlsl(m: &Module, kernel: &str, opts: &Options) -> Result<Shader, Error> {
    let info = weft_ir::verify::verify_module(m).expect("IR verifies");
    compile_kernel(m, &info, kernel, opts)
}

fn emit(ir: &str, kernel: &str) -> Result<String, Error> {
    let m = parse_module(ir).expect("IR parses");
    emit_hlsl(&m, kernel, &Options::default()).map(|a| a.source)
}

fn unsupported_at(r: Result<String, Error>, line: u32) -> String {
    match r {
        Err(Error::Unsupported { what, pos }) => {
            let want = SourcePos {
                file: "k.py".into(),
                line,
                col: 5,
            };
            assert_eq!(pos, want);
            what
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn float64_transcendentals_are_unsupported() {
    let ir = "file 0 \"k.py\"\n\nkernel @k(v0: array1<f64>) {\n  v1: i32 = thread_id @0:2:5\n  v2: f64 = load v0[v1] @0:3:5\n  v3: f64 = sin v2 @0:4:5\n  store v0[v1], v3 @0:5:5\n  return\n}\n";
    let what = unsupported_at(emit(ir, "k"), 4);
    assert!(what.contains("sin on float64"), "{what}");
}

#[test]
fn bad_requests_are_typed_errors() {
    let ir = "kernel @k(v0: array1<f32>) {\n  return\n}\n";
    assert_eq!(emit(ir, "nope"), Err(Error::NoKernel("nope".into())));
    let m = parse_module(ir).unwrap();
    let opts = Options {
        group_size: 0,
        ..Options::default()
    };
    assert!(matches!(emit_hlsl(&m, "k", &opts), Err(Error::Option(_))));
    let call = "func @f(v0: i32) -> i32 {\n  return v0\n}\n\nkernel @k(v0: array1<i32>) {\n  v1: i32 = thread_id\n  v2: i32 = call @f(v1)\n  store v0[v1], v2\n  return\n}\n";
    let e = emit(call, "k").unwrap_err();
    assert!(matches!(e, Error::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("every call inlined"), "{e}");
    assert!(matches!(emit(call, "f"), Err(Error::NoKernel(_))));
}

#[test]
fn layout_and_entry_are_reported() {
    let ir = "kernel @k(v0 \"a\": array2<u8>, v1 \"s\": vec3<f32>, v2 \"b\": array1<f64>) {\n  v3: i32 = thread_id\n  return\n}\n";
    let m = parse_module(ir).unwrap();
    let a = emit_hlsl(&m, "k", &Options::default()).unwrap();
    assert_eq!(a.entry, "main");
    assert_eq!(a.group_size, 64);
    let regs: Vec<_> = a
        .bindings
        .arrays
        .iter()
        .map(|b| (b.param.as_str(), b.register, b.binding, b.param_index))
        .collect();
    assert_eq!(regs, [("a", 0, 1, 0), ("b", 1, 2, 2)]);
    let offs: Vec<_> = a
        .bindings
        .cbuffer
        .fields
        .iter()
        .map(|f| (f.path.clone(), f.offset))
        .collect();
    assert_eq!(offs, [(vec![0], 96), (vec![1], 100), (vec![2], 104)]);
    assert_eq!(a.bindings.total_cbuffer_size, 112);
    assert!(a.source.contains("[numthreads(64, 1, 1)]"));
    assert!(a.source.contains("RWByteAddressBuffer a : register(u0);"));
    assert!(a.source.contains("RWByteAddressBuffer b : register(u1);"));
}

/// An array chosen by control flow has no HLSL equivalent (buffers are
/// not values); an array merely carried through a loop or an `if` is fine.
#[test]
fn arrays_chosen_by_control_flow_are_unsupported() {
    let chosen = "file 0 \"k.py\"\n\nkernel @k(v0 \"x\": array1<f32>, v1 \"y\": array1<f32>, v2 \"c\": bool) {\n  v3: i32 = thread_id @0:2:5\n  v4 \"a\": array1<f32> = if v2 @0:3:5 {\n    yield v1 @0:4:5\n  } else {\n    yield v0 @0:6:5\n  }\n  v5: f32 = const 1.0\n  store v4[v3], v5 @0:7:5\n  return\n}\n";
    let what = match emit(chosen, "k") {
        Err(Error::Unsupported { what, pos }) => {
            assert!(matches!(pos.line, 4 | 6), "{pos:?}");
            what
        }
        other => panic!("expected Unsupported, got {other:?}"),
    };
    assert!(what.contains("array variable (`a`)"), "{what}");
    // The same `if` yielding one array on both sides.
    let same = chosen.replace("yield v1", "yield v0");
    let src = emit(&same, "k").expect("one array through an if");
    assert!(src.contains("x.Store("), "{src}");
    // Carried through a loop (as the frontend does for `a[i] = x` in a
    // loop body) and out of it.
    let carried = "file 0 \"k.py\"\n\nkernel @k(v0 \"x\": array1<f32>, v1 \"m\": i32) {\n  v2: i32 = thread_id @0:2:5\n  v3: i32 = const 0\n  v4: i32 = const 1\n  v5: f32 = const 2.0\n  v6: array1<f32> = loop (v7: i32 = v3, v8: array1<f32> = v0) @0:3:5 {\n    v9: bool = lt v7, v1\n    if v9 {\n      yield\n    } else {\n      break v8\n    }\n    store v8[v2], v5 @0:4:5\n    v10: i32 = add v7, v4\n    continue v10, v8\n  }\n  store v6[v2], v5 @0:5:5\n  return\n}\n";
    let src = emit(carried, "k").expect("an array carried through a loop");
    assert_eq!(src.matches("x.Store(").count(), 2, "{src}");
}
