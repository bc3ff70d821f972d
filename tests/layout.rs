//! SoA layout end to end: arrays in either layout, the descriptor an SoA
//! kernel parameter receives, the launch checks, on every device present.

mod common;

use weft::ir::types::ArrayType;
use weft::ir::{
    BinaryOp, ElemType, FuncBuilder, FuncKind, Function, MemAccess, Module as IrModule, Param,
    Scalar, SoaParam, Type,
};
use weft::{
    Arg, Array, ArrayLayout, CompileOptions, Compiler, Device, Dtype, Error, LaunchError,
    LayoutOptions, Module,
};
use weft_conform::{self as conform, Case};

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

/// The devices of this machine: every device of the registry that opens.
fn devices() -> Vec<Device> {
    common::devices(&weft::device_names())
}

fn vec3s(n: usize, f: impl Fn(usize) -> [f32; 3]) -> Vec<[f32; 3]> {
    (0..n).map(f).collect()
}

#[test]
fn soa_param_gets_the_plane_descriptor() -> Result<(), Error> {
    let module = Module::from_ir(step_module());
    // Planes of 12 000 bytes: skewed (see `weft_runtime::array`).
    let n = 3000;
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

fn compiler(default: ArrayLayout) -> Compiler {
    Compiler::with_options(CompileOptions {
        layout: LayoutOptions {
            default,
            params: Vec::new(),
        },
        ..CompileOptions::default()
    })
}

/// Positions and velocities.
type Particles = (Vec<[f32; 3]>, Vec<[f32; 3]>);

fn particle_data(n: usize) -> Particles {
    let f = |i: usize, k: usize| ((i * 7 + k * 13) % 100) as f32 * 1e-2;
    (
        vec3s(n, |i| [f(i, 0), f(i, 1) - 0.3, f(i, 2)]),
        vec3s(n, |i| [f(i, 3) - 0.5, f(i, 4) - 0.5, f(i, 5)]),
    )
}

/// Runs `particles` once over `n` particles, each array in the layout the
/// kernel takes it in; returns (x, v) as AoS data.
fn run_particles(dev: &Device, module: &Module, n: usize) -> Result<Particles, Error> {
    let k = dev.load(module, "particles")?;
    let (x0, v0) = particle_data(n);
    let sig = k.signature();
    let x = Array::from_slice(&x0, &[n])?.to_layout(sig.param_layout(0))?;
    let v = Array::from_slice(&v0, &[n])?.to_layout(sig.param_layout(1))?;
    let args = [
        Arg::array(&x),
        Arg::array(&v),
        Arg::f32(9.81),
        Arg::f32(0.01),
    ];
    dev.launch(&k, &[n], &args)?;
    Ok((x.to_vec()?, v.to_vec()?))
}

#[test]
fn source_hint_and_options_choose_the_layout() -> Result<(), Error> {
    let n = 5000;
    let aos = compiler(ArrayLayout::Aos).compile("p.py", common::PARTICLES_SOA_HINT)?;
    let all_soa = compiler(ArrayLayout::Soa).compile("p.py", common::PARTICLES_SOA_HINT)?;
    let forced_aos = Compiler::with_options(CompileOptions {
        layout: LayoutOptions {
            default: ArrayLayout::Aos,
            params: vec![("particles".into(), "x".into(), ArrayLayout::Aos)],
        },
        ..CompileOptions::default()
    })
    .compile("p.py", common::PARTICLES_SOA_HINT)?;
    for dev in devices() {
        let layouts = |m: &Module| -> Result<Vec<ArrayLayout>, Error> {
            let k = dev.load(m, "particles")?;
            Ok((0..2).map(|i| k.signature().param_layout(i)).collect())
        };
        // The hint makes `x` SoA; `--layout soa` both; a per-parameter
        // option overrides the hint.
        assert_eq!(layouts(&aos)?, [ArrayLayout::Soa, ArrayLayout::Aos]);
        assert_eq!(layouts(&all_soa)?, [ArrayLayout::Soa, ArrayLayout::Soa]);
        assert_eq!(layouts(&forced_aos)?, [ArrayLayout::Aos, ArrayLayout::Aos]);
        // The same numbers in every layout (no fast math: bit for bit).
        let want = run_particles(&dev, &forced_aos, n)?;
        assert_eq!(run_particles(&dev, &aos, n)?, want, "{}", dev.name());
        assert_eq!(run_particles(&dev, &all_soa, n)?, want, "{}", dev.name());
    }
    Ok(())
}

#[test]
fn the_layout_is_part_of_the_ir_cache_key() -> Result<(), Error> {
    let dir = std::env::temp_dir().join(format!("weft-layout-cache-{}", std::process::id()));
    let cache = weft::CacheLocation::Dir(dir.clone());
    let aos = compiler(ArrayLayout::Aos).with_cache(cache.clone());
    let soa = compiler(ArrayLayout::Soa).with_cache(cache.clone());
    assert_ne!(
        aos.ir_key("p.py", common::PARTICLES_SOA_HINT),
        soa.ir_key("p.py", common::PARTICLES_SOA_HINT)
    );
    let (_, hit) = soa.compile_cached("p.py", common::PARTICLES_SOA_HINT)?;
    assert!(!hit);
    // A hit reads the SoA parameters back from the IR text.
    let (m, hit) = soa.compile_cached("p.py", common::PARTICLES_SOA_HINT)?;
    assert!(hit);
    let f = m.ir().kernels().next().expect("a kernel").1;
    assert_eq!(f.soa_params.len(), 2);
    let (m, hit) = aos.compile_cached("p.py", common::PARTICLES_SOA_HINT)?;
    assert!(!hit);
    assert_eq!(
        m.ir()
            .kernels()
            .next()
            .expect("a kernel")
            .1
            .soa_params
            .len(),
        1
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Cases whose arrays cover the SoA forms: vec3 1-D/2-D/3-D, atomics on
/// SoA components, matrices, quaternions, transforms, structs (nested),
/// float64, a multi-launch simulation step.
const SOA_CASES: &[&str] = &[
    "atomic_vec3_scatter",
    "dims_array2d_int_and_vec",
    "dims_array3d_vec3",
    "mat_products",
    "quat_algebra",
    "transform_compose_inverse",
    "struct_array_rw",
    "struct_nested_mat",
    "vec_float64",
    "real_particle_ground_collision",
];

/// `weft conform --layout soa` on a representative subset, on every device
/// present (the whole corpus runs through the CLI in scripts/test.sh on
/// interp, cpu and llvm-cpu).
#[test]
fn conformance_subset_in_soa_on_every_device() -> Result<(), weft_cli::Error> {
    let Some(dir) = common::corpus() else {
        return Ok(());
    };
    let soa = compiler(ArrayLayout::Soa);
    let mut failures = Vec::new();
    for dev in devices() {
        for name in SOA_CASES {
            let path = dir.join("cases").join(name);
            let case = Case::load(&path)?;
            let module = soa.compile_file(path.join("kernel.py"))?;
            // Not vacuous: some kernel of the case takes an SoA array.
            assert!(
                module.ir().kernels().any(|(_, f)| !f.soa_params.is_empty()),
                "{name}: no SoA parameter"
            );
            let run = conform::run_case(&case, &dev, &soa)?;
            let ms = conform::check_case(&case, &run)?;
            if !ms.is_empty() {
                failures.push(format!("{} {name}: {}", dev.name(), ms[0]));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

#[test]
fn cli_takes_the_layout() {
    let Some(dir) = common::corpus() else {
        return;
    };
    let weft = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(args)
            .output()
            .expect("weft runs");
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    };
    let case = dir.join("cases/dims_array3d_vec3");
    let case = case.to_str().unwrap();
    let kernel = format!("{case}/kernel.py");
    let (ok, ir) = weft(&["build", &kernel, "--layout", "soa"]);
    assert!(ok && ir.contains("soa(vec3<f32>, 3)"), "{ir}");
    let (ok, ir) = weft(&["build", &kernel, "--layout", "aos"]);
    assert!(ok && !ir.contains("soa("), "{ir}");
    let out = std::env::temp_dir().join(format!("weft-layout-run-{}", std::process::id()));
    let (ok, text) = weft(&[
        "run",
        case,
        "--layout",
        "soa",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok && text.contains("matches expected"), "{text}");
    // The npy written from the SoA run is the AoS data Warp wrote.
    let got = std::fs::read(out.join("grad.npy")).unwrap();
    let want = std::fs::read(dir.join("cases/dims_array3d_vec3/expected_grad.npy")).unwrap();
    let (g, w) = (
        conform::npy::Npy::parse(&got).unwrap(),
        conform::npy::Npy::parse(&want).unwrap(),
    );
    assert_eq!((g.shape, g.data.len()), (w.shape, w.data.len()));
    let _ = std::fs::remove_dir_all(&out);
    let (ok, text) = weft(&["conform", case, "--layout", "soa"]);
    assert!(ok && text.contains("1 passed, 0 failed"), "{text}");
    let (ok, text) = weft(&["compare", case, "--layout", "soa", "--backend", "cpu"]);
    assert!(ok, "{text}");
    let (ok, text) = weft(&["conform", case, "--layout", "columns"]);
    assert!(!ok && text.contains("columns"), "{text}");
}
