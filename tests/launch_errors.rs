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
