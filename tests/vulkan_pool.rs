//! Kernels that bind more storage buffers than the Vulkan device allows
//! (lavapipe: `maxPerStageDescriptorStorageBuffers` = 32) run with their
//! arrays in one pooled buffer (`BindingLayout::pooled`), checked bit for
//! bit against the `cpu` device: a generated kernel of 40 array parameters
//! (32-bit and 64-bit atomics, the lock table, an array passed twice) with
//! host arrays and with device arrays, and the adjoint of a kernel of 20
//! arrays through the `Tape` (42 buffers with the adjoints). Without a
//! Vulkan device the runs are skipped (`SKIP:` says so).

mod common;

use weft::{Arg, Array, Compiler, Device, DeviceArg, Module, Tape};

/// Array parameters of the wide kernel.
const ARRAYS: usize = 40;
/// Threads (and elements per array).
const N: usize = 37;

/// `wide(a0, …, a39, hist, dsum)`: every thread updates one element of
/// each `a<k>` from its neighbour array, adds to a float32 histogram
/// (32-bit atomics) and to a float64 sum (the lock table).
fn wide_source() -> String {
    let params: Vec<String> = (0..ARRAYS)
        .map(|k| format!("a{k}: wp.array(dtype=float)"))
        .collect();
    let mut body = String::new();
    for k in 0..ARRAYS {
        let next = (k + 1) % ARRAYS;
        body += &format!(
            "    a{k}[i] = a{k}[i] * {}.0 + a{next}[i] + float(n - i)\n",
            k % 5 + 1
        );
    }
    format!(
        "import warp as wp\n\n@wp.kernel\ndef wide({}, hist: wp.array(dtype=float), dsum: wp.array(dtype=wp.float64), n: int):\n    i = wp.tid()\n{body}    wp.atomic_add(hist, i % 4, a0[i])\n    wp.atomic_add(dsum, 0, wp.float64(a{}[i]))\n",
        params.join(", "),
        ARRAYS - 1
    )
}

fn inputs() -> Vec<Array> {
    let mut v: Vec<Array> = (0..ARRAYS)
        .map(|k| {
            let x: Vec<f32> = (0..N)
                .map(|i| ((i * 7 + k * 3) % 11) as f32 * 0.25 - 1.0)
                .collect();
            Array::from_slice(&x, &[N]).unwrap()
        })
        .collect();
    v.push(Array::from_slice(&[0.5f32; 4], &[4]).unwrap());
    v.push(Array::from_slice(&[0.0f64], &[1]).unwrap());
    v
}

/// The arrays' contents after one host launch of `wide` on `dev`; with
/// `alias`, `a1` is passed for `a3` too.
fn run_wide(dev: &Device, m: &Module, alias: bool) -> Vec<Vec<u8>> {
    let k = dev.load(m, "wide").unwrap();
    let arrays = inputs();
    let mut args: Vec<Arg> = arrays.iter().map(Arg::array).collect();
    if alias {
        args[3] = Arg::array(&arrays[1]);
    }
    args.push(Arg::i32(N as i32));
    dev.launch(&k, &[N], &args).unwrap();
    arrays.iter().map(Array::to_bytes).collect()
}

fn wide_module() -> Module {
    Compiler::new().compile("wide.py", &wide_source()).unwrap()
}

#[test]
fn forty_arrays_are_pooled_on_vulkan() {
    let m = wide_module();
    let art = m.hlsl("wide", &Default::default()).unwrap();
    assert!(!art.bindings.pooled, "no limit by default");
    let limited = weft_backend_hlsl::Options {
        max_storage_buffers: 32,
        ..Default::default()
    };
    let art = m.hlsl("wide", &limited).unwrap();
    assert!(art.bindings.pooled, "42 arrays and a lock table past 32");
    assert_eq!(art.bindings.storage_bindings().count(), 2);
    let Some(vk) = common::vulkan() else {
        return;
    };
    let cpu = Device::cpu();
    for alias in [false, true] {
        let want = run_wide(&cpu, &m, alias);
        let got = run_wide(&vk, &m, alias);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "array {k} differs (alias: {alias})");
        }
    }
}

#[test]
fn forty_device_arrays_are_pooled_on_vulkan() {
    let m = wide_module();
    let Some(vk) = common::vulkan() else {
        return;
    };
    let want = run_wide(&Device::cpu(), &m, true);
    let k = vk.load(&m, "wide").unwrap();
    let hosts = inputs();
    let dev: Vec<_> = hosts.iter().map(|a| vk.upload(a).unwrap()).collect();
    let mut args: Vec<DeviceArg> = dev.iter().map(DeviceArg::array).collect();
    args[3] = DeviceArg::array(&dev[1]);
    args.push(DeviceArg::of(N as i32));
    vk.launch_async(&k, &[N], &args).unwrap();
    vk.synchronize().unwrap();
    for (i, (d, mut h)) in dev.iter().zip(inputs()).enumerate() {
        d.copy_to_host(&mut h).unwrap();
        assert_eq!(h.to_bytes(), want[i], "device array {i} differs");
    }
}

/// Inputs of the adjoint case.
const INPUTS: usize = 20;

fn grad_source() -> String {
    let params: Vec<String> = (0..INPUTS)
        .map(|k| format!("x{k}: wp.array(dtype=float)"))
        .collect();
    let sum: Vec<String> = (0..INPUTS)
        .map(|k| format!("x{k}[i] * x{k}[i] * {}.0", k + 1))
        .collect();
    format!(
        "import warp as wp\n\n@wp.kernel\ndef many({}, y: wp.array(dtype=float)):\n    i = wp.tid()\n    y[i] = {}\n",
        params.join(", "),
        sum.join(" + ")
    )
}

/// The gradients of every input after a backward pass on `dev`.
fn grads(dev: &Device, m: &Module) -> Vec<Vec<f32>> {
    let xs: Vec<Array> = (0..INPUTS)
        .map(|k| {
            let v: Vec<f32> = (0..N).map(|i| (i as f32 - k as f32) * 0.125).collect();
            Array::from_slice(&v, &[N]).unwrap().requires_grad()
        })
        .collect();
    let y = Array::from_slice(&[0.0f32; N], &[N])
        .unwrap()
        .requires_grad();
    let mut args: Vec<Arg> = xs.iter().map(Arg::array).collect();
    args.push(Arg::array(&y));
    let mut tape = Tape::new();
    tape.launch(dev, m, "many", &[N], &args).unwrap();
    let seed = Array::from_slice(&[1.0f32; N], &[N]).unwrap();
    tape.backward_with(&[(&y, &seed)]).unwrap();
    xs.iter()
        .map(|x| x.grad().unwrap().to_vec::<f32>().unwrap())
        .collect()
}

#[test]
fn adjoint_of_twenty_arrays_is_pooled_on_vulkan() {
    let m = Compiler::new().compile("many.py", &grad_source()).unwrap();
    let Some(vk) = common::vulkan() else {
        return;
    };
    let want = grads(&Device::cpu(), &m);
    let got = grads(&vk, &m);
    assert_eq!(got, want);
    // d y / d x_k = 2 (k + 1) x_k
    assert_eq!(want[3][9], 2.0 * 4.0 * (9.0 - 3.0) * 0.125);
}
