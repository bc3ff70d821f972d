//! Launch path tests on hand-built IR: argument checks and real runs.

use std::sync::Arc;
use weft_ir::types::ArrayType;
use weft_ir::*;
use weft_runtime::*;

fn arr1(s: Scalar) -> Type {
    Type::Array(ArrayType {
        elem: ElemType::Scalar(s),
        ndim: 1,
    })
}

/// `saxpy(x: array1<f32>, y: array1<f32>, a: f32)`: `y[i] = a * x[i] + y[i]`.
fn saxpy_module() -> Module {
    let mut m = Module::new();
    let params = vec![
        Param {
            name: "x".into(),
            ty: arr1(Scalar::F32),
        },
        Param {
            name: "y".into(),
            ty: arr1(Scalar::F32),
        },
        Param {
            name: "a".into(),
            ty: Type::F32,
        },
    ];
    let mut f = Function::new("saxpy", FuncKind::Kernel, params, vec![]);
    let structs = m.structs.clone();
    {
        let mut b = FuncBuilder::new(&mut f, &structs);
        let p = b.func.param_values().to_vec();
        let i = b.thread_id();
        let at = |arr| MemAccess {
            array: arr,
            indices: vec![i],
            path: vec![],
        };
        let xi = b.load(at(p[0]));
        let yi = b.load(at(p[1]));
        let ax = b.binary(BinaryOp::Mul, p[2], xi);
        let r = b.binary(BinaryOp::Add, ax, yi);
        b.store(at(p[1]), r);
        b.return_(vec![]);
    }
    m.funcs.push(f);
    m
}

fn err_param(e: LaunchError) -> String {
    e.param().unwrap_or("<none>").to_string()
}

#[test]
fn launch_checks_name_the_parameter() {
    let dev = Device::cpu();
    let prog = dev.compile(Arc::new(saxpy_module())).expect("compile");
    let k = prog.kernel("saxpy").unwrap();
    let rule = |param| LengthRule {
        param,
        axis: 0,
        range: IndexRange::Linear(0b1111),
    };
    assert_eq!(k.signature().length_rules, vec![rule(0), rule(1)]);
    let x = Array::from_slice(&[1.0f32; 8], &[8]).unwrap();
    let y = Array::from_slice(&[2.0f32; 8], &[8]).unwrap();
    let xd = Array::from_slice(&[1.0f64; 8], &[8]).unwrap();
    let x2 = Array::from_slice(&[1.0f32; 8], &[2, 4]).unwrap();
    let short = Array::from_slice(&[1.0f32; 4], &[4]).unwrap();

    let e = dev
        .launch(&k, &[8], &[Arg::array(&xd), Arg::array(&y), Arg::f32(1.0)])
        .unwrap_err();
    assert!(
        matches!(&e, LaunchError::ArgType { param, expected, got }
        if param == "x" && expected == "array1<f32>" && got == "array1<f64>"),
        "{e}"
    );
    let e = dev
        .launch(&k, &[8], &[Arg::array(&x2), Arg::array(&y), Arg::f32(1.0)])
        .unwrap_err();
    assert!(matches!(
        e,
        LaunchError::ArgNdim {
            expected: 1,
            got: 2,
            ..
        }
    ));
    assert_eq!(err_param(e), "x");
    let e = dev
        .launch(&k, &[8], &[Arg::array(&x), Arg::array(&y)])
        .unwrap_err();
    assert!(matches!(e, LaunchError::MissingArg { .. }));
    assert_eq!(err_param(e), "a");
    let e = dev
        .launch(
            &k,
            &[8],
            &[Arg::array(&x), Arg::array(&y), Arg::f32(1.0), Arg::i32(3)],
        )
        .unwrap_err();
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
    let e = dev
        .launch(&k, &[8], &[Arg::array(&x), Arg::array(&y), Arg::f64(1.0)])
        .unwrap_err();
    assert_eq!(err_param(e), "a");
    let e = dev
        .launch(&k, &[8], &[Arg::array(&x), Arg::f32(0.0), Arg::f32(1.0)])
        .unwrap_err();
    assert!(matches!(e, LaunchError::ArgKind { .. }));
    let e = dev
        .launch(
            &k,
            &[8],
            &[Arg::array(&x), Arg::array(&short), Arg::f32(1.0)],
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            LaunchError::ArrayTooShort {
                len: 4,
                required: 8,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(err_param(e), "y");
    assert!(matches!(
        dev.launch(&k, &[], &[]).unwrap_err(),
        LaunchError::DimRank(0)
    ));
    assert!(matches!(
        dev.launch(&k, &[1 << 16, 1 << 16], &[]).unwrap_err(),
        LaunchError::DimTooLarge { .. }
    ));
    // The rule only binds the thread count: a shorter launch is fine.
    dev.launch(
        &k,
        &[4],
        &[Arg::array(&x), Arg::array(&short), Arg::f32(1.0)],
    )
    .unwrap();
    assert_eq!(short.to_vec::<f32>().unwrap(), vec![2.0; 4]);
    // A kernel loaded for one device cannot be launched on another.
    assert!(matches!(
        Device::interp().launch(&k, &[8], &[]).unwrap_err(),
        LaunchError::WrongDevice { .. }
    ));
}

#[test]
fn cpu_saxpy_runs_on_all_cores() {
    let dev = Device::cpu();
    let prog = dev.compile(Arc::new(saxpy_module())).expect("compile");
    let k = prog.kernel("saxpy").unwrap();
    assert!(matches!(
        prog.kernel("nope"),
        Err(RuntimeError::NoKernel { .. })
    ));
    let n = 100_003;
    let xs: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let x = Array::from_slice(&xs, &[n]).unwrap();
    let y = Array::from_slice(&vec![1.0f32; n], &[n]).unwrap();
    dev.launch(&k, &[n], &[Arg::array(&x), Arg::array(&y), Arg::f32(2.0)])
        .unwrap();
    let got = y.to_vec::<f32>().unwrap();
    assert!(got
        .iter()
        .enumerate()
        .all(|(i, &v)| v == 2.0 * i as f32 + 1.0));
    // Zero threads: nothing runs, nothing fails.
    dev.launch(&k, &[0], &[Arg::array(&x), Arg::array(&y), Arg::f32(2.0)])
        .unwrap();
}

#[test]
fn interp_and_cpu_agree_through_one_launch_path() {
    let module = Arc::new(saxpy_module());
    let n = 1000;
    let xs: Vec<f32> = (0..n).map(|i| (i as f32).sin()).collect();
    let mut outs = Vec::new();
    for dev in [Device::cpu(), Device::interp()] {
        let k = dev
            .compile(module.clone())
            .unwrap()
            .kernel("saxpy")
            .unwrap();
        assert_eq!(k.device(), &dev);
        let x = Array::from_slice(&xs, &[n]).unwrap();
        let y = Array::from_slice(&vec![0.5f32; n], &[n]).unwrap();
        dev.launch(&k, &[n], &[Arg::array(&x), Arg::array(&y), Arg::f32(-1.25)])
            .unwrap();
        outs.push(y.to_vec::<f32>().unwrap());
    }
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0][3], -1.25 * xs[3] + 0.5);
}

#[test]
fn devices_opened_alike_are_shared_and_others_are_named_apart() {
    // The same name and options: the same device.
    assert_eq!(Device::open("cpu").unwrap(), Device::cpu());
    let o0 = DeviceOptions {
        opt_level: OptLevel::O0,
        ..DeviceOptions::default()
    };
    let slow = Device::open_with("cpu", &o0).unwrap();
    assert_ne!(slow, Device::cpu());
    assert_eq!(slow.options().opt_level, OptLevel::O0);
    // Another opening's kernel and array are refused, and the message says
    // which is which.
    let k = slow
        .compile(Arc::new(saxpy_module()))
        .unwrap()
        .kernel("saxpy")
        .unwrap();
    let e = Device::cpu().launch(&k, &[1], &[]).unwrap_err().to_string();
    assert_eq!(
        e,
        "kernel `saxpy` was loaded for the `cpu` (another opening, with other options) device, not `cpu`"
    );
    let f = Dtype::scalar(Scalar::F32);
    let a = slow.zeros(f.clone(), &[4]).unwrap();
    let b = Device::cpu().zeros(f, &[4]).unwrap();
    let kc = Device::cpu()
        .compile(Arc::new(saxpy_module()))
        .unwrap()
        .kernel("saxpy")
        .unwrap();
    let args = [
        DeviceArg::array(&a),
        DeviceArg::array(&b),
        DeviceArg::of(1.0f32),
    ];
    let e = Device::cpu().launch_async(&kc, &[4], &args).unwrap_err();
    assert_eq!(e.param(), Some("x"));
    assert!(
        e.to_string()
            .contains("another opening, with other options"),
        "{e}"
    );
    // Unknown names and units are errors, never panics.
    assert!(matches!(
        Device::open("cpu:x"),
        Err(RuntimeError::UnknownDevice { .. })
    ));
}
