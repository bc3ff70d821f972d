//! Concurrent launches and failed launches (issue 16, item 4):
//!
//! * several host threads launching on one device at once (`cpu`,
//!   `interp`, `vulkan` when there is one), each with its own arrays and
//!   inputs: every result is exact;
//! * threads on several devices at once, sharing one module;
//! * a launch that fails halfway (a bounds-checked out-of-range index in
//!   some threads) or is refused (a bad argument) leaves its arrays and the
//!   device usable: the next launch with the same arrays is right.
//!
//! The cache under concurrent processes is `tests/cache_stress.rs`.

use weft::{Arg, Array, CompileOptions, Compiler, Device, DeviceArg, Error, LaunchError};

const SRC: &str = r#"
import warp as wp

@wp.kernel
def mix(x: wp.array(dtype=int), y: wp.array(dtype=int), a: int):
    i = wp.tid()
    v = x[i]
    for k in range(i % 5):
        v = v * 3 + a
    y[i] = v ^ i

@wp.kernel
def gather(x: wp.array(dtype=int), idx: wp.array(dtype=int), y: wp.array(dtype=int)):
    i = wp.tid()
    y[i] = x[idx[i]] + 1
"#;

/// What `mix` computes (wrapping `int32` arithmetic).
fn mix_ref(x: &[i32], a: i32) -> Vec<i32> {
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let mut v = v;
            for _ in 0..i % 5 {
                v = v.wrapping_mul(3).wrapping_add(a);
            }
            v ^ i as i32
        })
        .collect()
}

/// The devices here: `cpu`, `interp`, and `vulkan` when it opens.
fn devices() -> Vec<Device> {
    let mut v = vec![Device::cpu(), Device::interp()];
    match Device::open("vulkan") {
        Ok(d) => v.push(d),
        Err(e) => weft_testkit::skip(format!("vulkan: {e}")),
    }
    v
}

/// `rounds` launches of `mix` on `dev` from this thread, inputs from
/// `seed`, each checked.
fn launches(dev: &Device, m: &weft::Module, seed: i32, rounds: usize) {
    let k = dev.load(m, "mix").unwrap();
    for r in 0..rounds {
        let n = 64 + (seed as usize * 7 + r * 13) % 300;
        let a = seed * 1000 + r as i32;
        let xs: Vec<i32> = (0..n as i32).map(|i| i * seed - r as i32).collect();
        let x = Array::from_slice(&xs, &[n]).unwrap();
        let y = Array::from_slice(&vec![0i32; n], &[n]).unwrap();
        dev.launch(&k, &[n], &[Arg::array(&x), Arg::array(&y), Arg::i32(a)])
            .unwrap();
        assert_eq!(
            y.to_vec::<i32>().unwrap(),
            mix_ref(&xs, a),
            "{} thread {seed} round {r}",
            dev.name()
        );
    }
}

#[test]
fn threads_launch_on_one_device_at_once() {
    let m = Compiler::new().compile("mix.py", SRC).unwrap();
    for dev in devices() {
        std::thread::scope(|s| {
            for t in 0..6 {
                let (dev, m) = (&dev, &m);
                s.spawn(move || launches(dev, m, t + 1, 20));
            }
        });
    }
}

#[test]
fn threads_launch_on_several_devices_at_once() {
    let m = Compiler::new().compile("mix.py", SRC).unwrap();
    let devs = devices();
    std::thread::scope(|s| {
        for (j, dev) in devs.iter().enumerate() {
            for t in 0..3 {
                let m = &m;
                s.spawn(move || launches(dev, m, (j * 3 + t) as i32 + 1, 15));
            }
        }
    });
    // Device arrays of different devices, used from threads at once.
    std::thread::scope(|s| {
        for dev in &devs {
            let m = &m;
            s.spawn(move || {
                let k = dev.load(m, "mix").unwrap();
                let xs: Vec<i32> = (0..200).collect();
                let x = dev
                    .upload(&Array::from_slice(&xs, &[200]).unwrap())
                    .unwrap();
                let y = dev
                    .zeros(weft::Dtype::scalar(weft::ir::Scalar::I32), &[200])
                    .unwrap();
                for a in 0..10 {
                    let args = [
                        DeviceArg::array(&x),
                        DeviceArg::array(&y),
                        DeviceArg::Value(weft::Value::new(a)),
                    ];
                    dev.launch_async(&k, &[200], &args).unwrap();
                    dev.synchronize().unwrap();
                    let got = y.to_host().unwrap().to_vec::<i32>().unwrap();
                    assert_eq!(got, mix_ref(&xs, a), "{}", dev.name());
                }
            });
        }
    });
}

#[test]
fn a_launch_failing_halfway_leaves_arrays_and_device_usable() {
    let checked = Compiler::with_options(CompileOptions {
        checked: true,
        ..Default::default()
    });
    let m = checked.compile("gather.py", SRC).unwrap();
    let n = 256;
    let xs: Vec<i32> = (0..n as i32).map(|i| i * 10).collect();
    for dev in devices() {
        let k = dev.load(&m, "gather").unwrap();
        let x = Array::from_slice(&xs, &[n]).unwrap();
        // Threads 100.. index past the end: they stop at the check, the
        // others run.
        let bad: Vec<i32> = (0..n as i32)
            .map(|i| if i >= 100 { i + 1000 } else { n as i32 - 1 - i })
            .collect();
        let idx = Array::from_slice(&bad, &[n]).unwrap();
        let y = Array::from_slice(&vec![-1i32; n], &[n]).unwrap();
        let err = dev
            .launch(
                &k,
                &[n],
                &[Arg::array(&x), Arg::array(&idx), Arg::array(&y)],
            )
            .unwrap_err();
        assert!(
            matches!(err, Error::Launch(LaunchError::Trap { .. })),
            "{}: {err}",
            dev.name()
        );
        let got = y.to_vec::<i32>().unwrap();
        for i in 0..100 {
            assert_eq!(got[i], xs[n - 1 - i] + 1, "{} y[{i}]", dev.name());
        }
        assert_eq!(x.to_vec::<i32>().unwrap(), xs, "{}: x changed", dev.name());
        // A refused launch (a float array for an int parameter) runs nothing.
        let f = Array::from_slice(&vec![0f32; n], &[n]).unwrap();
        let err = dev
            .launch(&k, &[n], &[Arg::array(&x), Arg::array(&f), Arg::array(&y)])
            .unwrap_err();
        assert!(err.to_string().contains("`idx`"), "{}: {err}", dev.name());
        assert_eq!(y.to_vec::<i32>().unwrap(), got, "{}", dev.name());
        // The same arrays and device, a good launch.
        let good: Vec<i32> = (0..n as i32).map(|i| (i * 7) % n as i32).collect();
        let idx = Array::from_slice(&good, &[n]).unwrap();
        dev.launch(
            &k,
            &[n],
            &[Arg::array(&x), Arg::array(&idx), Arg::array(&y)],
        )
        .unwrap();
        let want: Vec<i32> = good.iter().map(|&j| xs[j as usize] + 1).collect();
        assert_eq!(y.to_vec::<i32>().unwrap(), want, "{}", dev.name());
        // And its device arrays after a failed launch.
        let dx = dev.upload(&x).unwrap();
        let didx = dev.upload(&Array::from_slice(&bad, &[n]).unwrap()).unwrap();
        let dy = dev.upload(&y).unwrap();
        let args = [
            DeviceArg::array(&dx),
            DeviceArg::array(&didx),
            DeviceArg::array(&dy),
        ];
        assert!(dev.launch_async(&k, &[n], &args).is_err(), "{}", dev.name());
        let didx = dev.upload(&idx).unwrap();
        let args = [
            DeviceArg::array(&dx),
            DeviceArg::array(&didx),
            DeviceArg::array(&dy),
        ];
        dev.launch_async(&k, &[n], &args).unwrap();
        dev.synchronize().unwrap();
        assert_eq!(
            dy.to_host().unwrap().to_vec::<i32>().unwrap(),
            want,
            "{}",
            dev.name()
        );
    }
}
