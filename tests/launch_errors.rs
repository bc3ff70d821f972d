//! Launches with bad arguments are refused with an error naming the
//! parameter, before the kernel runs.

use weft::{Arg, Array, Compiler, Device, Error, LaunchError};

const SRC: &str = r#"
import warp as wp

@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i]

@wp.kernel
def copy2d(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    b[i, j] = a[i, j]

@wp.kernel
def guarded(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if i >= b.shape[0] or j >= b.shape[1]:
        return
    b[i, j] = a[i, j]

@wp.kernel
def grid(g: wp.array2d(dtype=wp.vec3), n: int):
    i, j = wp.tid()
    if i < n:
        g[i, j] = wp.vec3(1.0, 2.0, 3.0)
"#;

fn launch_err(dev: &Device, kernel: &str, dim: &[usize], args: &[Arg]) -> LaunchError {
    let m = Compiler::new().compile("k.py", SRC).expect("compiles");
    let k = dev.load(&m, kernel).expect("loads");
    match dev.launch(&k, dim, args) {
        Err(Error::Launch(e)) => e,
        other => panic!("expected a launch error, got {other:?}"),
    }
}

fn each_device(f: impl Fn(&Device)) {
    for d in [Device::cpu(), Device::interp()] {
        f(&d);
    }
}

#[test]
fn wrong_dtype() {
    each_device(|d| {
        let x = Array::from_slice(&[1.0f64; 4], &[4]).unwrap();
        let y = Array::from_slice(&[0.0f32; 4], &[4]).unwrap();
        let e = launch_err(
            d,
            "scale",
            &[4],
            &[Arg::array(&x), Arg::array(&y), Arg::f32(2.0)],
        );
        assert_eq!(e.param(), Some("x"));
        assert!(
            e.to_string().contains("array1<f32>") && e.to_string().contains("array1<f64>"),
            "{e}"
        );
        // Nothing ran: y is untouched.
        assert_eq!(y.to_vec::<f32>().unwrap(), vec![0.0; 4]);
    });
}

#[test]
fn wrong_ndim() {
    each_device(|d| {
        let g = Array::from_slice(&[[0.0f32; 3]; 4], &[4]).unwrap();
        let e = launch_err(d, "grid", &[2, 2], &[Arg::array(&g), Arg::i32(2)]);
        assert!(
            matches!(
                e,
                LaunchError::ArgNdim {
                    expected: 2,
                    got: 1,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(e.param(), Some("g"));
    });
}

#[test]
fn missing_and_extra_arguments() {
    each_device(|d| {
        let x = Array::from_slice(&[1.0f32; 4], &[4]).unwrap();
        let y = Array::from_slice(&[0.0f32; 4], &[4]).unwrap();
        let e = launch_err(d, "scale", &[4], &[Arg::array(&x), Arg::array(&y)]);
        assert_eq!(e.param(), Some("a"));
        assert!(e.to_string().contains("`a`"), "{e}");
        let e = launch_err(
            d,
            "scale",
            &[4],
            &[Arg::array(&x), Arg::array(&y), Arg::f32(1.0), Arg::f32(1.0)],
        );
        assert!(
            matches!(
                e,
                LaunchError::ExtraArgs {
                    expected: 3,
                    got: 4,
                    ..
                }
            ),
            "{e}"
        );
    });
}

#[test]
fn wrong_scalar_type_and_kind() {
    each_device(|d| {
        let x = Array::from_slice(&[1.0f32; 4], &[4]).unwrap();
        let y = Array::from_slice(&[0.0f32; 4], &[4]).unwrap();
        let e = launch_err(
            d,
            "scale",
            &[4],
            &[Arg::array(&x), Arg::array(&y), Arg::i32(2)],
        );
        assert!(
            matches!(&e, LaunchError::ArgType { param, expected, got }
            if param == "a" && expected == "f32" && got == "i32"),
            "{e}"
        );
        let e = launch_err(
            d,
            "scale",
            &[4],
            &[Arg::array(&x), Arg::array(&y), Arg::array(&x)],
        );
        assert!(matches!(e, LaunchError::ArgKind { .. }), "{e}");
        assert_eq!(e.param(), Some("a"));
        let e = launch_err(d, "grid", &[2, 2], &[Arg::f32(1.0), Arg::i32(2)]);
        assert_eq!(e.param(), Some("g"));
    });
}

#[test]
fn too_short_array() {
    each_device(|d| {
        let x = Array::from_slice(&[1.0f32; 8], &[8]).unwrap();
        let y = Array::from_slice(&[0.0f32; 5], &[5]).unwrap();
        let e = launch_err(
            d,
            "scale",
            &[8],
            &[Arg::array(&x), Arg::array(&y), Arg::f32(2.0)],
        );
        assert!(
            matches!(
                e,
                LaunchError::ArrayTooShort {
                    len: 5,
                    required: 8,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(e.param(), Some("y"));
    });
}

#[test]
fn bad_launch_dims() {
    each_device(|d| {
        let x = Array::from_slice(&[1.0f32; 8], &[8]).unwrap();
        let args = [Arg::array(&x), Arg::array(&x), Arg::f32(2.0)];
        assert!(matches!(
            launch_err(d, "scale", &[], &args),
            LaunchError::DimRank(0)
        ));
        assert!(matches!(
            launch_err(d, "scale", &[1, 1, 1, 1, 1], &args),
            LaunchError::DimRank(5)
        ));
        assert!(matches!(
            launch_err(d, "scale", &[1 << 20, 1 << 20], &args),
            LaunchError::DimTooLarge { .. }
        ));
    });
}

#[test]
fn too_short_axis_of_a_2d_launch() {
    each_device(|d| {
        let a = Array::from_slice(&[1.0f32; 20], &[4, 5]).unwrap();
        let narrow = Array::from_slice(&[0.0f32; 16], &[4, 4]).unwrap();
        let e = launch_err(d, "copy2d", &[4, 5], &[Arg::array(&a), Arg::array(&narrow)]);
        assert!(
            matches!(
                e,
                LaunchError::ArrayTooShort {
                    axis: 1,
                    len: 4,
                    required: 5,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(e.param(), Some("b"));
        let short = Array::from_slice(&[0.0f32; 15], &[3, 5]).unwrap();
        let e = launch_err(d, "copy2d", &[4, 5], &[Arg::array(&a), Arg::array(&short)]);
        assert!(
            matches!(
                e,
                LaunchError::ArrayTooShort {
                    axis: 0,
                    len: 3,
                    required: 4,
                    ..
                }
            ),
            "{e}"
        );
        // A guarded kernel may be launched over a larger grid than the array.
        let m = Compiler::new().compile("k.py", SRC).unwrap();
        let k = d.load(&m, "guarded").unwrap();
        d.launch(&k, &[4, 5], &[Arg::array(&a), Arg::array(&short)])
            .unwrap();
        assert_eq!(short.to_vec::<f32>().unwrap(), vec![1.0; 15]);
    });
}

const STRUCTS: &str = r#"
import warp as wp

@wp.struct
class P:
    x: float
    n: int

@wp.kernel
def bump(ps: wp.array(dtype=P), p: P):
    i = wp.tid()
    q = ps[i]
    q.x = q.x + p.x
    q.n = q.n + p.n
    ps[i] = q
"#;

fn struct_dtype(x: weft::ir::Scalar) -> weft::Dtype {
    use weft::ir::{Field, StructDef, StructTable, Type};
    let mut st = StructTable::new();
    st.push(StructDef {
        name: "P".into(),
        fields: vec![
            Field {
                name: "x".into(),
                ty: Type::Scalar(x),
            },
            Field {
                name: "n".into(),
                ty: Type::I32,
            },
        ],
    });
    weft::Dtype::struct_named("P", std::sync::Arc::new(st)).unwrap()
}

#[test]
fn structs_are_checked_by_definition() {
    use weft::ir::Scalar;
    use weft::Value;
    let m = Compiler::new().compile("s.py", STRUCTS).unwrap();
    let mut elem = Vec::new();
    elem.extend_from_slice(&1.5f32.to_le_bytes());
    elem.extend_from_slice(&7i32.to_le_bytes());
    let val = |d: weft::Dtype, b: Vec<u8>| Value::from_bytes(d, b).unwrap();
    each_device(|d| {
        let k = d.load(&m, "bump").unwrap();
        // The same definition made elsewhere is the same type.
        let ps = Array::from_bytes(struct_dtype(Scalar::F32), &elem.repeat(3), &[3]).unwrap();
        let p = val(struct_dtype(Scalar::F32), elem.clone());
        d.launch(&k, &[3], &[Arg::array(&ps), Arg::value(p.clone())])
            .unwrap();
        let out = ps.to_bytes();
        assert_eq!(&out[8..12], &3.0f32.to_le_bytes());
        assert_eq!(&out[12..16], &14i32.to_le_bytes());
        // A `P` with another layout is refused, for arrays and values.
        let mut wide = 1.5f64.to_le_bytes().to_vec();
        wide.extend_from_slice(&[0; 8]);
        let other = Array::from_bytes(struct_dtype(Scalar::F64), &wide, &[1]).unwrap();
        let e = match d.launch(&k, &[1], &[Arg::array(&other), Arg::value(p.clone())]) {
            Err(Error::Launch(e)) => e,
            r => panic!("expected a launch error, got {r:?}"),
        };
        assert!(matches!(e, LaunchError::StructLayout { .. }), "{e}");
        assert_eq!(e.param(), Some("ps"));
        let e = match d.launch(
            &k,
            &[1],
            &[
                Arg::array(&ps),
                Arg::value(val(struct_dtype(Scalar::F64), wide.clone())),
            ],
        ) {
            Err(Error::Launch(e)) => e,
            r => panic!("expected a launch error, got {r:?}"),
        };
        assert_eq!(e.param(), Some("p"));
    });
}

#[test]
fn aliasing_is_refused_only_by_the_interpreter() {
    let m = Compiler::new().compile("k.py", SRC).unwrap();
    let x = Array::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let cpu = Device::cpu();
    let k = cpu.load(&m, "scale").unwrap();
    cpu.launch(&k, &[2], &[Arg::array(&x), Arg::array(&x), Arg::f32(3.0)])
        .unwrap();
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![3.0, 6.0]);
    let e = launch_err(
        &Device::interp(),
        "scale",
        &[2],
        &[Arg::array(&x), Arg::array(&x), Arg::f32(3.0)],
    );
    assert!(matches!(e, LaunchError::Aliased { .. }), "{e}");
    assert_eq!(e.param(), Some("y"));
}
