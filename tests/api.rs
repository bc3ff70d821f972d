//! The public API end to end: compile, load on both devices, launch, read.

use weft::{Arg, Array, CompileOptions, Compiler, Device, Error};

const SAXPY: &str = r#"
import warp as wp

@wp.func
def axpy(a: float, x: float, y: float):
    return a * x + y

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = axpy(a, x[i], y[i])

@wp.kernel
def fill(v: wp.array(dtype=wp.vec3), s: float):
    i = wp.tid()
    v[i] = wp.vec3(s, float(i), s * float(i))
"#;

fn saxpy_on(dev: &Device, opt: bool) -> Vec<f32> {
    let c = Compiler::with_options(CompileOptions {
        opt,
        dump_dir: None,
        checked: false,
        ..CompileOptions::default()
    });
    let m = c.compile("saxpy.py", SAXPY).expect("compiles");
    assert_eq!(
        m.kernel_names(),
        vec!["saxpy".to_string(), "fill".to_string()]
    );
    let k = dev.load(&m, "saxpy").expect("loads");
    assert_eq!(k.name(), "saxpy");
    let n = 4099;
    let xs: Vec<f32> = (0..n).map(|i| (i as f32) * 0.25 - 100.0).collect();
    let x = Array::from_slice(&xs, &[n]).unwrap();
    let y = Array::from_slice(&vec![1.5f32; n], &[n]).unwrap();
    dev.launch(&k, &[n], &[Arg::array(&x), Arg::array(&y), Arg::f32(3.0)])
        .unwrap();
    // Launching twice reuses the loaded kernel and the cached program.
    let k2 = dev.load(&m, "saxpy").unwrap();
    dev.launch(&k2, &[n], &[Arg::array(&x), Arg::array(&y), Arg::f32(-3.0)])
        .unwrap();
    let got = y.to_vec::<f32>().unwrap();
    for (i, (&g, &xi)) in got.iter().zip(&xs).enumerate() {
        let want = -3.0f32 * xi + (3.0f32 * xi + 1.5);
        assert!(
            (g - want).abs() <= 1e-4 * want.abs().max(1.0),
            "y[{i}] = {g}, want {want}"
        );
    }
    got
}

#[test]
fn saxpy_agrees_on_cpu_and_interp() {
    let cpu = saxpy_on(&Device::cpu(), true);
    let interp = saxpy_on(&Device::interp(), true);
    assert_eq!(cpu, interp);
}

#[test]
fn unoptimised_modules_run_too() {
    assert_eq!(
        saxpy_on(&Device::cpu(), false),
        saxpy_on(&Device::interp(), false)
    );
}

#[test]
fn vector_arrays_round_trip() {
    let m = Compiler::new().compile("saxpy.py", SAXPY).unwrap();
    for dev in [Device::cpu(), Device::interp()] {
        let k = dev.load(&m, "fill").unwrap();
        let v = Array::from_slice(&[[0.0f32; 3]; 5], &[5]).unwrap();
        dev.launch(&k, &[5], &[Arg::array(&v), Arg::f32(2.0)])
            .unwrap();
        let got = v.to_vec::<[f32; 3]>().unwrap();
        assert_eq!(got[4], [2.0, 4.0, 8.0]);
        assert_eq!(v.to_scalars::<f32>().unwrap().len(), 15);
    }
}

#[test]
fn errors_are_typed_and_rendered() {
    let bad = "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float)):\n    x[0] = undefined_name\n";
    let e = Compiler::new().compile("bad.py", bad).unwrap_err();
    assert!(matches!(e, Error::Frontend(_)), "{e:?}");
    let text = e.render(false);
    assert!(
        text.contains("bad.py") && text.contains("undefined_name"),
        "{text}"
    );
    let m = Compiler::new().compile("saxpy.py", SAXPY).unwrap();
    let e = Device::cpu().load(&m, "nope").unwrap_err();
    assert!(e.to_string().contains("saxpy"), "{e}");
    let e = Device::open("gpu").unwrap_err();
    assert!(
        e.to_string().contains("unknown device `gpu`") && e.to_string().contains("cpu, "),
        "{e}"
    );
    assert_eq!(Device::open("interp").unwrap(), Device::interp());
    assert_eq!(Device::open("cpu").unwrap(), Device::cpu());
    // A device this build lacks says which feature enables it.
    if !cfg!(feature = "llvm") {
        let e = Device::open("llvm-cpu").unwrap_err();
        assert!(e.to_string().contains("cargo feature `llvm`"), "{e}");
    }
}

#[test]
fn kernels_are_shared_across_threads() {
    let m = std::sync::Arc::new(Compiler::new().compile("saxpy.py", SAXPY).unwrap());
    let dev = Device::cpu();
    let k = dev.load(&m, "saxpy").unwrap();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (dev, k) = (&dev, &k);
            s.spawn(move || {
                let x = Array::from_slice(&vec![t as f32; 5000], &[5000]).unwrap();
                let y = Array::from_slice(&vec![1.0f32; 5000], &[5000]).unwrap();
                dev.launch(k, &[5000], &[Arg::array(&x), Arg::array(&y), Arg::f32(2.0)])
                    .unwrap();
                assert!(y
                    .to_vec::<f32>()
                    .unwrap()
                    .iter()
                    .all(|&v| v == 2.0 * t as f32 + 1.0));
            });
        }
    });
    // Loading from several threads at once compiles the module once.
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| Device::interp().load(&m, "fill").unwrap());
        }
    });
}
