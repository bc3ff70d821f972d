//! SoA layout end to end: arrays in either layout, the descriptor an SoA
//! kernel parameter receives, the launch checks, on every device present.

use weft::ir::types::ArrayType;
use weft::ir::{
    BinaryOp, ElemType, FuncBuilder, FuncKind, Function, MemAccess, Module as IrModule, Param,
    Scalar, SoaParam, Type,
};
use weft::{Arg, Array, ArrayLayout, Device, Dtype, Error, LaunchError, Module};

fn arr(elem: ElemType, ndim: u8) -> Type {
    Type::Array(ArrayType { elem, ndim })
}

const VEC3: ElemType = ElemType::Vec(3, Scalar::F32);

/// What the `soa` pass makes of
/// `step(x: array(vec3), v: array(vec3), dt: f32)` with `x` SoA:
/// `x: array(f32, 2)` (axis 1 the plane), `v` AoS; each thread does
/// `x[i] += v[i] * dt`, slot by slot.
fn step_module() -> IrModule {
    let params = vec![
        Param {
            name: "x".into(),
            ty: arr(ElemType::Scalar(Scalar::F32), 2),
        },
        Param {
            name: "v".into(),
            ty: arr(VEC3, 1),
        },
        Param {
            name: "dt".into(),
            ty: Type::F32,
        },
    ];
    let mut m = IrModule::new();
    let mut f = Function::new("step", FuncKind::Kernel, params, vec![]);
    let structs = m.structs.clone();
    {
        let mut b = FuncBuilder::new(&mut f, &structs);
        let p = b.func.param_values().to_vec();
        let i = b.thread_id();
        for j in 0..3 {
            let plane = b.iconst(Scalar::I32, j as i64);
            let xs = MemAccess {
                array: p[0],
                indices: vec![i, plane],
                path: vec![],
            };
            let x = b.load(xs.clone());
            let v = b.load(MemAccess {
                array: p[1],
                indices: vec![i],
                path: vec![j],
            });
            let dv = b.binary(BinaryOp::Mul, v, p[2]);
            let r = b.binary(BinaryOp::Add, x, dv);
            b.store(xs, r);
        }
        b.return_(vec![]);
    }
    f.soa_params.push(SoaParam {
        param: 0,
        elem: VEC3,
        ndim: 1,
    });
    m.funcs.push(f);
    weft::ir::verify::verify_module(&m).expect("hand-made IR verifies");
    m
}

/// The devices of this machine: cpu, interp, llvm-cpu, and vulkan / cuda
/// where they open.
fn devices() -> Vec<Device> {
    let mut out = vec![Device::cpu(), Device::interp(), Device::llvm_cpu()];
    out.extend(Device::vulkan().ok());
    out.extend(Device::cuda(0).ok());
    out
}

fn vec3s(n: usize, f: impl Fn(usize) -> [f32; 3]) -> Vec<[f32; 3]> {
    (0..n).map(f).collect()
}

#[test]
fn soa_param_gets_the_plane_descriptor() -> Result<(), Error> {
    let module = Module::from_ir(step_module());
    let n = 1000;
    let x0 = vec3s(n, |i| [i as f32, -(i as f32), 0.5]);
    let v = vec3s(n, |i| [1.0, 2.0, i as f32]);
    let want = vec3s(n, |i| {
        [
            x0[i][0] + v[i][0] * 0.5,
            x0[i][1] + v[i][1] * 0.5,
            x0[i][2] + v[i][2] * 0.5,
        ]
    });
    for dev in devices() {
        let k = dev.load(&module, "step")?;
        let sig = k.signature();
        assert_eq!(sig.params[0].ty, arr(VEC3, 1), "the user's type");
        assert_eq!(sig.param_layout(0), ArrayLayout::Soa);
        assert_eq!(sig.param_layout(1), ArrayLayout::Aos);
        let x = Array::from_slice(&x0, &[n])?.to_layout(ArrayLayout::Soa)?;
        let va = Array::from_slice(&v, &[n])?;
        dev.launch(&k, &[n], &[Arg::array(&x), Arg::array(&va), Arg::f32(0.5)])?;
        assert_eq!(x.layout(), ArrayLayout::Soa);
        assert_eq!(x.to_vec::<[f32; 3]>()?, want, "{}", dev.name());
    }
    Ok(())
}

#[test]
fn layout_mismatch_is_a_typed_error_naming_the_parameter() -> Result<(), Error> {
    let module = Module::from_ir(step_module());
    let n = 8;
    let aos = Array::zeros(Dtype::new(VEC3), &[n])?;
    let soa = Array::zeros_with_layout(Dtype::new(VEC3), &[n], ArrayLayout::Soa)?;
    for dev in devices() {
        let k = dev.load(&module, "step")?;
        // AoS array to the SoA parameter `x`.
        let e = dev
            .launch(
                &k,
                &[n],
                &[Arg::array(&aos), Arg::array(&aos), Arg::f32(1.0)],
            )
            .unwrap_err();
        let Error::Launch(e) = e else {
            panic!("not a launch error: {e}")
        };
        assert!(
            matches!(&e, LaunchError::ArgLayout { param, kernel: ArrayLayout::Soa, array: ArrayLayout::Aos } if param == "x"),
            "{e}"
        );
        let msg = e.to_string();
        assert!(msg.contains("to_layout(ArrayLayout::Soa)"), "{msg}");
        // SoA array to the AoS parameter `v`.
        let e = dev
            .launch(
                &k,
                &[n],
                &[Arg::array(&soa), Arg::array(&soa), Arg::f32(1.0)],
            )
            .unwrap_err();
        let Error::Launch(e) = e else {
            panic!("not a launch error: {e}")
        };
        assert_eq!(e.param(), Some("v"));
        assert!(e.to_string().contains("--layout soa"), "{e}");
        // Type and rank are checked on the user's type, as for AoS.
        let wrong = Array::zeros_with_layout(
            Dtype::new(ElemType::Vec(2, Scalar::F32)),
            &[n],
            ArrayLayout::Soa,
        )?;
        let e = dev
            .launch(
                &k,
                &[n],
                &[Arg::array(&wrong), Arg::array(&aos), Arg::f32(1.0)],
            )
            .unwrap_err();
        assert!(e.to_string().contains("array1<vec3<f32>>"), "{e}");
        let two = Array::zeros_with_layout(Dtype::new(VEC3), &[2, 4], ArrayLayout::Soa)?;
        let e = dev
            .launch(
                &k,
                &[n],
                &[Arg::array(&two), Arg::array(&aos), Arg::f32(1.0)],
            )
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::Launch(LaunchError::ArgNdim {
                    expected: 1,
                    got: 2,
                    ..
                })
            ),
            "{e}"
        );
    }
    Ok(())
}

#[test]
fn length_rules_are_on_the_user_axes() -> Result<(), Error> {
    let module = Module::from_ir(step_module());
    let dev = Device::cpu();
    let k = dev.load(&module, "step")?;
    assert!(k
        .signature()
        .length_rules
        .iter()
        .all(|r| r.param != 0 || r.axis == 0));
    let short = Array::zeros_with_layout(Dtype::new(VEC3), &[4], ArrayLayout::Soa)?;
    let v = Array::zeros(Dtype::new(VEC3), &[8])?;
    let e = dev
        .launch(
            &k,
            &[8],
            &[Arg::array(&short), Arg::array(&v), Arg::f32(1.0)],
        )
        .unwrap_err();
    assert!(
        matches!(&e, Error::Launch(LaunchError::ArrayTooShort { param, axis: 0, len: 4, required: 8 }) if param == "x"),
        "{e}"
    );
    Ok(())
}
