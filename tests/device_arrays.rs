//! Device arrays ([`weft::DeviceArray`], [`Device::launch_async`]) on every
//! device of this build that opens here: uploaded once, launched many
//! times, read back, compared with the CPU device running the same launches
//! on host arrays; SoA arrays; argument checks identical to host launches
//! (naming the parameter); an array of another device refused;
//! bounds-checked mode; copies in and out.
//!
//! A device that does not open here (no Vulkan device, no GPU, a build
//! without its feature) prints `SKIP` with the reason.

mod common;

use weft::{
    Arg, Array, ArrayError, ArrayLayout, CompileOptions, Compiler, Device, DeviceArg, Error,
    LaunchError, LayoutOptions, RuntimeError,
};

/// The devices under test: every device of the registry that opens.
fn devices() -> Vec<Device> {
    common::devices(&weft::device_names())
}

const SRC: &str = r#"
import warp as wp

@wp.kernel
def accumulate(x: wp.array(dtype=float), acc: wp.array(dtype=float), w: float):
    i = wp.tid()
    acc[i] = acc[i] * 0.5 + x[i] * w

@wp.kernel
def count(c: wp.array(dtype=int)):
    wp.atomic_add(c, 0, 1)

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]

@wp.kernel
def shift_left(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i + 1]

@wp.kernel
def grid(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i * 1000 + j
"#;

fn module(checked: bool) -> weft::Module {
    Compiler::with_options(CompileOptions {
        checked,
        ..CompileOptions::default()
    })
    .compile("res.py", SRC)
    .expect("compiles")
}

fn ramp(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 977) as f32 * 0.25 - 60.0).collect()
}

#[test]
fn uploaded_once_launched_many_times_matches_the_cpu() -> Result<(), Error> {
    for dev in devices() {
        uploaded_once_launched_many_times_matches_the_cpu_on(&dev)
            .inspect_err(|_| println!("on {}", dev.name()))?;
    }
    Ok(())
}

fn uploaded_once_launched_many_times_matches_the_cpu_on(dev: &Device) -> Result<(), Error> {
    let m = module(false);
    let cpu = Device::cpu();
    // 70 000 threads: more than one dispatch's worth of workgroups is not
    // needed here, but more than one workgroup is.
    let n = 70_000;
    let launches = 12;
    let x0 = Array::from_slice(&ramp(n), &[n])?;
    let acc0 = Array::from_slice(&vec![1.0f32; n], &[n])?;

    let (x, acc) = (dev.upload(&x0)?, dev.upload(&acc0)?);
    let k = dev.load(&m, "accumulate")?;
    for l in 0..launches {
        let w = 0.5 + l as f32;
        dev.launch_async(
            &k,
            &[n],
            &[
                DeviceArg::array(&x),
                DeviceArg::array(&acc),
                DeviceArg::of(w),
            ],
        )?;
    }
    let got: Vec<f32> = acc.to_host()?.to_vec()?;

    let kc = cpu.load(&m, "accumulate")?;
    let want = acc0.clone();
    for l in 0..launches {
        let w = 0.5 + l as f32;
        cpu.launch(
            &kc,
            &[n],
            &[Arg::array(&x0), Arg::array(&want), Arg::f32(w)],
        )?;
    }
    let want: Vec<f32> = want.to_vec()?;
    assert_eq!(got.len(), n);
    for i in 0..n {
        assert_eq!(got[i].to_bits(), want[i].to_bits(), "acc[{i}]");
    }
    // The input stayed as uploaded, and the host arrays were not touched.
    assert_eq!(x.to_host()?.to_vec::<f32>()?, ramp(n));
    assert_eq!(acc0.to_vec::<f32>()?, vec![1.0f32; n]);

    // Atomics accumulate across launches in the resident buffer.
    let c = dev.zeros(
        weft::Dtype::new(weft::ir::ElemType::Scalar(weft::ir::Scalar::I32)),
        &[1],
    )?;
    let kcount = dev.load(&m, "count")?;
    for _ in 0..5 {
        dev.launch_async(&kcount, &[1000], &[DeviceArg::array(&c)])?;
    }
    assert_eq!(c.to_host()?.to_vec::<i32>()?, vec![5000]);
    Ok(())
}

#[test]
fn copies_in_and_out() -> Result<(), Error> {
    for dev in devices() {
        copies_in_and_out_on(&dev).inspect_err(|_| println!("on {}", dev.name()))?;
    }
    Ok(())
}

fn copies_in_and_out_on(dev: &Device) -> Result<(), Error> {
    let m = module(false);
    let k = dev.load(&m, "saxpy")?;
    let n = 1000;
    let host_x = Array::from_slice(&ramp(n), &[n])?;
    let mut x = dev.zeros(host_x.dtype().clone(), &[n])?;
    assert_eq!((x.shape(), x.len(), x.ndim()), (&[n][..], n, 1));
    assert_eq!(x.layout(), ArrayLayout::Aos);
    assert_eq!(x.strides(), host_x.strides());
    assert!(x.device() == dev.runtime());
    assert_eq!(x.to_host()?.to_vec::<f32>()?, vec![0.0; n]);
    x.copy_from_host(&host_x)?;
    let y = dev.upload(&Array::from_slice(&vec![1.0f32; n], &[n])?)?;
    dev.launch_async(
        &k,
        &[n],
        &[
            DeviceArg::array(&x),
            DeviceArg::array(&y),
            DeviceArg::of(2.0f32),
        ],
    )?;
    // Launches may return before the kernel has finished (`cuda`).
    dev.synchronize()?;
    let mut out = Array::zeros(host_x.dtype().clone(), &[n])?;
    y.copy_to_host(&mut out)?;
    let want: Vec<f32> = ramp(n).iter().map(|v| 2.0 * v + 1.0).collect();
    assert_eq!(out.to_vec::<f32>()?, want);

    // The same array for both parameters is one buffer: y = 2x + x (the
    // interpreter refuses aliased arrays, naming both parameters).
    let aliased = dev.launch_async(
        &k,
        &[n],
        &[
            DeviceArg::array(&x),
            DeviceArg::array(&x),
            DeviceArg::of(2.0f32),
        ],
    );
    let want: Vec<f32> = ramp(n).iter().map(|v| 2.0 * v + v).collect();
    if dev.name() == "interp" {
        let e = aliased.unwrap_err();
        assert!(
            matches!(&e, Error::Launch(LaunchError::Aliased { param, other, .. }) if param == "y" && other == "x"),
            "{e}"
        );
        x.copy_from_host(&Array::from_slice(&want, &[n])?)?;
    } else {
        aliased?;
    }
    assert_eq!(x.to_host()?.to_vec::<f32>()?, want);

    // A host-array launch of the same kernel in between changes nothing
    // on the device.
    let hy = Array::from_slice(&vec![0.0f32; n], &[n])?;
    dev.launch(
        &k,
        &[n],
        &[Arg::array(&host_x), Arg::array(&hy), Arg::f32(1.0)],
    )?;
    assert_eq!(hy.to_vec::<f32>()?, ramp(n));
    assert_eq!(x.to_host()?.to_vec::<f32>()?, want);

    // A launch of zero threads does nothing.
    dev.launch_async(
        &k,
        &[0],
        &[
            DeviceArg::array(&x),
            DeviceArg::array(&y),
            DeviceArg::of(2.0f32),
        ],
    )?;
    assert_eq!(x.to_host()?.to_vec::<f32>()?, want);

    // Copies between arrays of another shape, type or layout are refused.
    let short = Array::zeros(host_x.dtype().clone(), &[n - 1])?;
    let e = x.copy_from_host(&short).unwrap_err();
    assert!(
        matches!(e, RuntimeError::Array(ArrayError::Mismatch { .. })),
        "{e}"
    );
    let mut ints = Array::from_slice(&vec![0i32; n], &[n])?;
    assert!(y.copy_to_host(&mut ints).is_err());

    // A 2-d array: shape and strides reach the kernel.
    let g = dev.zeros(ints.dtype().clone(), &[7, 9])?;
    let kg = dev.load(&m, "grid")?;
    dev.launch_async(&kg, &[7, 9], &[DeviceArg::array(&g)])?;
    let got = g.to_host()?.to_vec::<i32>()?;
    let want: Vec<i32> = (0..7)
        .flat_map(|i| (0..9).map(move |j| i * 1000 + j))
        .collect();
    assert_eq!(got, want);
    Ok(())
}

fn particle_data(n: usize) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let f = |i: usize, k: usize| ((i * 7 + k * 13) % 100) as f32 * 1e-2;
    (
        (0..n).map(|i| [f(i, 0), f(i, 1) - 0.3, f(i, 2)]).collect(),
        (0..n)
            .map(|i| [f(i, 3) - 0.5, f(i, 4) - 0.5, f(i, 5)])
            .collect(),
    )
}

#[test]
fn soa_resident_arrays_match_the_cpu() -> Result<(), Error> {
    for dev in devices() {
        soa_resident_arrays_match_the_cpu_on(&dev)
            .inspect_err(|_| println!("on {}", dev.name()))?;
    }
    Ok(())
}

fn soa_resident_arrays_match_the_cpu_on(dev: &Device) -> Result<(), Error> {
    let soa = Compiler::with_options(CompileOptions {
        layout: LayoutOptions {
            default: ArrayLayout::Soa,
            params: Vec::new(),
        },
        ..CompileOptions::default()
    })
    .compile("p.py", common::PARTICLES)?;
    // 5000 vec3s: planes of 20 000 bytes, skewed apart (see the runtime's
    // array docs), so the plane stride is not the plane size.
    let n = 5000;
    let (p, v) = particle_data(n);
    let x0 = Array::from_slice(&p, &[n])?.to_layout(ArrayLayout::Soa)?;
    let v0 = Array::from_slice(&v, &[n])?.to_layout(ArrayLayout::Soa)?;
    assert!(x0.soa_planes().is_some_and(|(k, s)| k == 3 && s > 20_000));

    let k = dev.load(&soa, "particles")?;
    let (x, vel) = (dev.upload(&x0)?, dev.upload(&v0)?);
    assert_eq!(x.layout(), ArrayLayout::Soa);
    let steps = 6;
    for _ in 0..steps {
        dev.launch_async(
            &k,
            &[n],
            &[
                DeviceArg::array(&x),
                DeviceArg::array(&vel),
                DeviceArg::of(9.81f32),
                DeviceArg::of(0.05f32),
            ],
        )?;
    }
    let cpu = Device::cpu();
    let kc = cpu.load(&soa, "particles")?;
    let (wx, wv) = (x0.clone(), v0.clone());
    for _ in 0..steps {
        cpu.launch(
            &kc,
            &[n],
            &[
                Arg::array(&wx),
                Arg::array(&wv),
                Arg::f32(9.81),
                Arg::f32(0.05),
            ],
        )?;
    }
    let gx = x.to_host()?;
    assert_eq!(gx.layout(), ArrayLayout::Soa);
    assert_eq!(gx.to_vec::<[f32; 3]>()?, wx.to_vec::<[f32; 3]>()?);
    assert_eq!(
        vel.to_host()?.to_vec::<[f32; 3]>()?,
        wv.to_vec::<[f32; 3]>()?
    );
    // Something moved.
    assert_ne!(gx.to_vec::<[f32; 3]>()?, p);

    // An AoS device array for an SoA parameter is refused, naming it.
    let aos = dev.upload(&Array::from_slice(&p, &[n])?)?;
    let e = dev
        .launch_async(
            &k,
            &[n],
            &[
                DeviceArg::array(&x),
                DeviceArg::array(&aos),
                DeviceArg::of(9.81f32),
                DeviceArg::of(0.05f32),
            ],
        )
        .unwrap_err();
    assert!(
        matches!(&e, Error::Launch(LaunchError::ArgLayout { param, kernel: ArrayLayout::Soa, array: ArrayLayout::Aos }) if param == "v"),
        "{e}"
    );
    Ok(())
}

/// The message of a failed launch.
fn message(r: Result<(), Error>) -> String {
    r.expect_err("the launch must be refused").to_string()
}

#[test]
fn argument_errors_are_the_host_launches() -> Result<(), Error> {
    for dev in devices() {
        argument_errors_are_the_host_launches_on(&dev)
            .inspect_err(|_| println!("on {}", dev.name()))?;
    }
    Ok(())
}

fn argument_errors_are_the_host_launches_on(dev: &Device) -> Result<(), Error> {
    let m = module(false);
    let k = dev.load(&m, "saxpy")?;
    let cpu = Device::cpu();
    let kc = cpu.load(&m, "saxpy")?;
    let n = 64;
    let f = Array::from_slice(&vec![1.0f32; n], &[n])?;
    let i = Array::from_slice(&vec![1i32; n], &[n])?;
    let short = Array::from_slice(&vec![1.0f32; n / 2], &[n / 2])?;
    let two_d = Array::from_slice(&vec![1.0f32; n], &[8, 8])?;
    let (df, di, dshort, d2) = (
        dev.upload(&f)?,
        dev.upload(&i)?,
        dev.upload(&short)?,
        dev.upload(&two_d)?,
    );
    let cases: Vec<(&str, Vec<Arg>, Vec<DeviceArg>)> = vec![
        (
            "y",
            vec![Arg::array(&f), Arg::array(&i), Arg::f32(1.0)],
            vec![
                DeviceArg::array(&df),
                DeviceArg::array(&di),
                DeviceArg::of(1.0f32),
            ],
        ),
        (
            "y",
            vec![Arg::array(&f), Arg::array(&short), Arg::f32(1.0)],
            vec![
                DeviceArg::array(&df),
                DeviceArg::array(&dshort),
                DeviceArg::of(1.0f32),
            ],
        ),
        (
            "x",
            vec![Arg::array(&two_d), Arg::array(&f), Arg::f32(1.0)],
            vec![
                DeviceArg::array(&d2),
                DeviceArg::array(&df),
                DeviceArg::of(1.0f32),
            ],
        ),
        (
            "a",
            vec![Arg::array(&f), Arg::array(&f), Arg::array(&f)],
            vec![
                DeviceArg::array(&df),
                DeviceArg::array(&df),
                DeviceArg::array(&df),
            ],
        ),
        (
            "x",
            vec![Arg::f32(1.0), Arg::array(&f), Arg::f32(1.0)],
            vec![
                DeviceArg::of(1.0f32),
                DeviceArg::array(&df),
                DeviceArg::of(1.0f32),
            ],
        ),
        (
            "a",
            vec![Arg::array(&f), Arg::array(&f), Arg::i32(1)],
            vec![
                DeviceArg::array(&df),
                DeviceArg::array(&df),
                DeviceArg::of(1i32),
            ],
        ),
        (
            "a",
            vec![Arg::array(&f), Arg::array(&f)],
            vec![DeviceArg::array(&df), DeviceArg::array(&df)],
        ),
    ];
    for (param, host, resident) in cases {
        let want = message(cpu.launch(&kc, &[n], &host));
        let e = dev.launch_async(&k, &[n], &resident).unwrap_err();
        let got = e.to_string();
        assert_eq!(got, want, "parameter `{param}`");
        match e {
            Error::Launch(l) => assert_eq!(l.param(), Some(param), "{got}"),
            e => panic!("not a launch error: {e}"),
        }
    }
    // Too many arguments, and a launch dim of 5 axes.
    let extra = vec![
        DeviceArg::array(&df),
        DeviceArg::array(&df),
        DeviceArg::of(1.0f32),
        DeviceArg::of(1.0f32),
    ];
    let host_extra = vec![Arg::array(&f), Arg::array(&f), Arg::f32(1.0), Arg::f32(1.0)];
    assert_eq!(
        message(dev.launch_async(&k, &[n], &extra)),
        message(cpu.launch(&kc, &[n], &host_extra))
    );
    let ok = [
        DeviceArg::array(&df),
        DeviceArg::array(&df),
        DeviceArg::of(1.0f32),
    ];
    assert!(matches!(
        dev.launch_async(&k, &[1, 1, 1, 1, 1], &ok),
        Err(Error::Launch(LaunchError::DimRank(5)))
    ));
    // A kernel of another device, either way round.
    let other = if dev.name() == "cpu" {
        Device::interp()
    } else {
        cpu.clone()
    };
    let ko = other.load(&m, "saxpy")?;
    let e = dev.launch_async(&ko, &[n], &ok).unwrap_err();
    assert!(
        matches!(e, Error::Launch(LaunchError::WrongDevice { .. })),
        "{e}"
    );
    let e = other.launch_async(&k, &[n], &ok).unwrap_err();
    assert!(
        matches!(e, Error::Launch(LaunchError::WrongDevice { .. })),
        "{e}"
    );
    // Nothing ran: the device arrays are unchanged.
    assert_eq!(df.to_host()?.to_vec::<f32>()?, vec![1.0; n]);
    Ok(())
}

#[test]
fn a_device_array_of_another_device_is_refused() -> Result<(), Error> {
    for dev in devices() {
        a_device_array_of_another_device_is_refused_on(&dev)?;
    }
    Ok(())
}

fn a_device_array_of_another_device_is_refused_on(dev: &Device) -> Result<(), Error> {
    let other = match dev.name() {
        "interp" => Device::cpu(),
        _ => Device::interp(),
    };
    let m = module(false);
    let k = dev.load(&m, "saxpy")?;
    let n = 16;
    let a = other.upload(&Array::from_slice(&vec![1.0f32; n], &[n])?)?;
    let b = dev.upload(&Array::from_slice(&vec![1.0f32; n], &[n])?)?;
    let e = dev
        .launch_async(
            &k,
            &[n],
            &[
                DeviceArg::array(&b),
                DeviceArg::array(&a),
                DeviceArg::of(1.0f32),
            ],
        )
        .unwrap_err();
    let want = format!(
        "argument `y`: expected an array on the `{}` device, got an array on the `{}` device",
        dev.name(),
        other.name()
    );
    assert_eq!(e.to_string(), want);
    Ok(())
}

#[test]
fn checked_mode_reports_traps_with_resident_arrays() -> Result<(), Error> {
    for dev in devices() {
        checked_mode_reports_traps_with_resident_arrays_on(&dev)
            .inspect_err(|_| println!("on {}", dev.name()))?;
    }
    Ok(())
}

fn checked_mode_reports_traps_with_resident_arrays_on(dev: &Device) -> Result<(), Error> {
    let m = module(true);
    let n = 1024;
    let x0 = Array::from_slice(&ramp(n), &[n])?;
    let y0 = Array::zeros(x0.dtype().clone(), &[n])?;
    let (x, y) = (dev.upload(&x0)?, dev.upload(&y0)?);
    let k = dev.load(&m, "shift_left")?;
    let e = dev
        .launch_async(&k, &[n], &[DeviceArg::array(&x), DeviceArg::array(&y)])
        .unwrap_err();
    // The CPU's report, with the device's name.
    let cpu = Device::cpu();
    let kc = cpu.load(&m, "shift_left")?;
    let want = message(cpu.launch(&kc, &[n], &[Arg::array(&x0), Arg::array(&y0)]));
    assert!(
        matches!(
            &e,
            Error::Launch(LaunchError::Trap {
                index: 1024,
                size: 1024,
                ..
            })
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        want.replace("`cpu` device", &format!("`{}` device", dev.name()))
    );
    // The other threads ran: y[i] = x[i + 1] below the last.
    let got = y.to_host()?.to_vec::<f32>()?;
    let r = ramp(n);
    assert_eq!(&got[..n - 1], &r[1..]);
    // The next launch gets a fresh record.
    dev.launch_async(&k, &[n - 1], &[DeviceArg::array(&x), DeviceArg::array(&y)])?;
    Ok(())
}
