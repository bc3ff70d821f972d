//! Deterministic launches (issue 15, item 3; `docs/runtime.md`,
//! "Deterministic launches"): a kernel compiled deterministic gives the
//! same bits whatever the number of pool threads, float atomics included,
//! on every host device; the GPU devices refuse it with a typed
//! `Unsupported` naming the atomic's line.

use weft::ir::{ElemType, Scalar};
use weft::{Arg, Array, CompileOptions, Compiler, Device, Dtype, Error, RuntimeError};

const SRC: &str = r#"
import warp as wp

@wp.kernel
def total(x: wp.array(dtype=float), t: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(t, 0, x[i])

@wp.kernel
def histogram(x: wp.array(dtype=float), bins: wp.array(dtype=int), h: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float)):
    i = wp.tid()
    b = bins[i]
    wp.atomic_add(h, b, x[i])
    wp.atomic_sub(h, (b + 3) % 7, x[i] * 0.5)
    wp.atomic_min(lo, b, x[i])
    wp.atomic_max(hi, b, x[i])

@wp.kernel
def scatter(x: wp.array(dtype=float), bins: wp.array(dtype=int), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.atomic_add(v, bins[i], wp.vec3(x[i], -x[i] * 3.0, 1.0))

@wp.kernel
def slots(x: wp.array(dtype=float), count: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.atomic_add(count, 0, 1)
    out[s] = x[i] + float(i)

@wp.kernel
def in_place(x: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(x, i % 5, x[(i * 7) % 1000] * 0.25)
"#;

/// Values whose float sum depends on the order (magnitudes from 1e-4 to
/// 1e4, both signs).
fn inputs(n: usize) -> Vec<f32> {
    let mut s = 0x2545_f491_u32;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let m = (s >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
            m * 10f32.powi((s % 9) as i32 - 4)
        })
        .collect()
}

fn bins(n: usize) -> Vec<i32> {
    (0..n).map(|i| ((i * 2_654_435_761) % 7) as i32).collect()
}

fn module(deterministic: bool) -> weft::Module {
    Compiler::with_options(CompileOptions {
        deterministic,
        ..CompileOptions::default()
    })
    .compile("det.py", SRC)
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The arrays each kernel leaves, launched over `n` threads on `dev`.
fn run(dev: &Device, m: &weft::Module, kernel: &str, n: usize) -> Vec<Vec<u32>> {
    let xs = inputs(n);
    let x = Array::from_slice(&xs, &[n]).unwrap();
    let b = Array::from_slice(&bins(n), &[n]).unwrap();
    let k = dev.load(m, kernel).unwrap_or_else(|e| panic!("{e}"));
    let bits = |a: &Array| -> Vec<u32> {
        a.to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect()
    };
    match kernel {
        "total" => {
            let t = Array::from_slice(&[1.5f32], &[1]).unwrap();
            dev.launch(&k, &[n], &[Arg::array(&x), Arg::array(&t)])
                .unwrap();
            vec![bits(&t)]
        }
        "histogram" => {
            let h = Array::from_slice(&[0f32; 7], &[7]).unwrap();
            let lo = Array::from_slice(&[f32::INFINITY; 7], &[7]).unwrap();
            let hi = Array::from_slice(&[-0.0f32; 7], &[7]).unwrap();
            dev.launch(
                &k,
                &[n],
                &[
                    Arg::array(&x),
                    Arg::array(&b),
                    Arg::array(&h),
                    Arg::array(&lo),
                    Arg::array(&hi),
                ],
            )
            .unwrap();
            vec![bits(&h), bits(&lo), bits(&hi)]
        }
        "scatter" => {
            let v = Array::zeros(Dtype::new(ElemType::Vec(3, Scalar::F32)), &[7]).unwrap();
            dev.launch(&k, &[n], &[Arg::array(&x), Arg::array(&b), Arg::array(&v)])
                .unwrap();
            let words = v.to_bytes();
            vec![words
                .chunks(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect()]
        }
        "slots" => {
            let c = Array::from_slice(&[0i32], &[1]).unwrap();
            let out = Array::from_slice(&vec![0f32; n], &[n]).unwrap();
            dev.launch(
                &k,
                &[n],
                &[Arg::array(&x), Arg::array(&c), Arg::array(&out)],
            )
            .unwrap();
            vec![bits(&out)]
        }
        "in_place" => {
            dev.launch(&k, &[n], &[Arg::array(&x)]).unwrap();
            vec![bits(&x)]
        }
        _ => unreachable!(),
    }
}

/// `f` inside a rayon pool of `threads` threads (launches split over it).
fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// `run` inside a pool of `threads` threads.
fn run_on(threads: usize, dev: &Device, m: &weft::Module, kernel: &str, n: usize) -> Vec<Vec<u32>> {
    in_pool(threads, || run(dev, m, kernel, n))
}

/// The host devices of this build.
fn host_devices() -> Vec<Device> {
    let mut v = vec![Device::cpu()];
    match Device::open("llvm-cpu") {
        Ok(d) => v.push(d),
        Err(e) => weft_testkit::skip(format!("llvm-cpu: {e}")),
    }
    v
}

const KERNELS: [&str; 5] = ["total", "histogram", "scatter", "slots", "in_place"];

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let m = module(true);
    // Sizes around the chunk size (16384), and one of many chunks.
    for n in [1000, 16_384, 16_385, 100_003] {
        for dev in host_devices() {
            for kernel in KERNELS {
                let one = run_on(1, &dev, &m, kernel, n);
                for threads in [2, 3, 4] {
                    assert_eq!(
                        run_on(threads, &dev, &m, kernel, n),
                        one,
                        "{kernel} n={n} on {} with {threads} threads",
                        dev.name()
                    );
                }
                // And from run to run.
                assert_eq!(run_on(4, &dev, &m, kernel, n), one, "{kernel} rerun");
            }
        }
    }
}

#[test]
fn deterministic_results_are_the_sums() {
    // Against f64 sums: the chunked order is one of the valid orders.
    let n = 100_003;
    let m = module(true);
    let xs = inputs(n);
    let b = bins(n);
    let mut h = [0f64; 7];
    for i in 0..n {
        h[b[i] as usize] += xs[i] as f64;
        h[(b[i] as usize + 3) % 7] -= (xs[i] * 0.5) as f64;
    }
    for dev in host_devices() {
        // Within float32 rounding of the sum of magnitudes.
        let tol = 1e-6 * xs.iter().map(|&v| v.abs() as f64).sum::<f64>();
        let t = f32::from_bits(run_on(2, &dev, &m, "total", n)[0][0]);
        let want = 1.5 + xs.iter().map(|&v| v as f64).sum::<f64>();
        assert!((t as f64 - want).abs() < tol, "total {t} vs {want}");
        let got = run_on(2, &dev, &m, "histogram", n);
        for k in 0..7 {
            let g = f32::from_bits(got[0][k]) as f64;
            assert!((g - h[k]).abs() < tol, "bin {k}: {g} vs {}", h[k]);
            let lo = (0..n)
                .filter(|&i| b[i] as usize == k)
                .map(|i| xs[i])
                .fold(f32::INFINITY, f32::min);
            let hi = (0..n)
                .filter(|&i| b[i] as usize == k)
                .map(|i| xs[i])
                .fold(-0.0f32, f32::max);
            assert_eq!(f32::from_bits(got[1][k]), lo, "min of bin {k}");
            assert_eq!(f32::from_bits(got[2][k]), hi, "max of bin {k}");
        }
    }
}

#[test]
fn an_atomic_whose_old_value_is_used_runs_the_threads_in_order() {
    // `slots` hands out slots with a counter: in order, slot i is thread i.
    let n = 50_000;
    let m = module(true);
    let xs = inputs(n);
    let want: Vec<u32> = (0..n).map(|i| (xs[i] + i as f32).to_bits()).collect();
    for dev in host_devices() {
        for threads in [1, 2, 4] {
            assert_eq!(
                run_on(threads, &dev, &m, "slots", n)[0],
                want,
                "{}",
                dev.name()
            );
        }
    }
    // As the interpreter does (one thread, in order).
    assert_eq!(run(&Device::interp(), &m, "slots", n)[0], want);
}

#[test]
fn the_gpu_devices_refuse_deterministic_float_atomics() {
    let Ok(dev) = Device::open("vulkan") else {
        weft_testkit::skip("vulkan: no device");
        return;
    };
    let err = match dev.load(&module(true), "histogram") {
        Err(e) => e,
        Ok(_) => panic!("loaded"),
    };
    let Error::Runtime(RuntimeError::Unsupported { message, .. }) = &err else {
        panic!("{err:?}");
    };
    assert!(message.contains("det.py:13:5"), "{message}");
    assert!(message.contains("deterministic"), "{message}");
    // Without the option the same module runs there.
    let m = module(false);
    let got = run(&dev, &m, "total", 1000);
    assert_eq!(got.len(), 1);
}

const GATHER: &str = r#"
import warp as wp

@wp.kernel
def energy(x: wp.array(dtype=float), idx: wp.array(dtype=int), e: wp.array(dtype=float)):
    i = wp.tid()
    v = x[idx[i]]
    wp.atomic_add(e, 0, v * v * 0.5 + wp.sin(v))
"#;

#[test]
fn gradients_do_not_depend_on_the_thread_count() {
    // The backward kernel scatters into x's gradient with float atomics
    // (many threads read one x): the adjoints accumulate deterministically.
    let m = Compiler::with_options(CompileOptions {
        deterministic: true,
        ..CompileOptions::default()
    })
    .compile("gather.py", GATHER)
    .unwrap();
    let n = 60_000;
    let xs = inputs(512);
    let idx: Vec<i32> = bins(n)
        .iter()
        .zip(0..)
        .map(|(b, i)| (b * 73 + i * 31) % 512)
        .collect();
    let grads = |threads: usize| -> Vec<u32> {
        in_pool(threads, || {
            let cpu = Device::cpu();
            let x = Array::from_slice(&xs, &[512]).unwrap().requires_grad();
            let ix = Array::from_slice(&idx, &[n]).unwrap();
            let e = Array::from_slice(&[0f32], &[1]).unwrap().requires_grad();
            let mut tape = weft::Tape::new();
            tape.launch(
                &cpu,
                &m,
                "energy",
                &[n],
                &[Arg::array(&x), Arg::array(&ix), Arg::array(&e)],
            )
            .unwrap();
            tape.backward_from(&e).unwrap();
            let g = x.grad().unwrap().to_vec::<f32>().unwrap();
            g.iter()
                .map(|v| v.to_bits())
                .chain(e.to_vec::<f32>().unwrap().iter().map(|v| v.to_bits()))
                .collect()
        })
    };
    let one = grads(1);
    assert!(one.iter().any(|&b| b != 0));
    for threads in [2, 3, 4] {
        assert_eq!(grads(threads), one, "{threads} threads");
    }
}

#[test]
fn soa_arrays_accumulate_deterministically() {
    // The `vec3` scatter with its array in SoA planes: the copies cover the
    // planes.
    let m = Compiler::with_options(CompileOptions {
        deterministic: true,
        layout: weft::LayoutOptions {
            default: weft::ArrayLayout::Soa,
            params: Vec::new(),
        },
        ..CompileOptions::default()
    })
    .compile("det.py", SRC)
    .unwrap();
    let n = 70_000;
    let once = |threads: usize| -> Vec<u8> {
        in_pool(threads, || {
            let xs = Array::from_slice(&inputs(n), &[n]).unwrap();
            let b = Array::from_slice(&bins(n), &[n]).unwrap();
            let cpu = Device::cpu();
            let k = cpu.load(&m, "scatter").unwrap();
            let v = Array::zeros(Dtype::new(ElemType::Vec(3, Scalar::F32)), &[7])
                .unwrap()
                .to_layout(weft::ArrayLayout::Soa)
                .unwrap();
            cpu.launch(&k, &[n], &[Arg::array(&xs), Arg::array(&b), Arg::array(&v)])
                .unwrap();
            v.to_layout(weft::ArrayLayout::Aos).unwrap().to_bytes()
        })
    };
    let one = once(1);
    assert!(one.iter().any(|&b| b != 0));
    for threads in [2, 3] {
        assert_eq!(once(threads), one, "{threads} threads");
    }
    // The same sums as the AoS layout's chunks give.
    let aos = run_on(2, &Device::cpu(), &module(true), "scatter", n)[0].clone();
    let soa: Vec<u32> = one
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    assert_eq!(soa, aos);
}

/// Integer atomics (old value unused) commute only into an array that
/// nothing else reads and that one kind of atomic updates: `seen` reads
/// the counter it bumps, `bump_then_cap` mixes `add` and `max`; both depend
/// on the order threads run in. `counts` (`add` and `sub` into a histogram
/// no one reads) does not.
const COUNTS: &str = r#"
import warp as wp

@wp.kernel
def seen(count: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(count, 0, 1)
    out[i] = count[0]

@wp.kernel
def bump_then_cap(count: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(count, 0, 1)
    wp.atomic_max(count, 0, 10)

@wp.kernel
def counts(bins: wp.array(dtype=int), h: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(h, bins[i], 1)
    wp.atomic_sub(h, (bins[i] + 1) % 7, 2)
"#;

/// The int arrays `kernel` of `COUNTS` leaves over `n` threads on `dev`.
fn run_counts(
    dev: &Device,
    m: &weft::Module,
    kernel: &str,
    n: usize,
) -> Result<Vec<Vec<i32>>, Error> {
    let k = dev.load(m, kernel)?;
    let ints = |a: &Array| a.to_vec::<i32>().unwrap();
    Ok(match kernel {
        "seen" => {
            let c = Array::from_slice(&[0i32], &[1]).unwrap();
            let out = Array::from_slice(&vec![0i32; n], &[n]).unwrap();
            dev.launch(&k, &[n], &[Arg::array(&c), Arg::array(&out)])?;
            vec![ints(&c), ints(&out)]
        }
        "bump_then_cap" => {
            let c = Array::from_slice(&[0i32], &[1]).unwrap();
            dev.launch(&k, &[n], &[Arg::array(&c)])?;
            vec![ints(&c)]
        }
        "counts" => {
            let b = Array::from_slice(&bins(n), &[n]).unwrap();
            let h = Array::from_slice(&[0i32; 7], &[7]).unwrap();
            dev.launch(&k, &[n], &[Arg::array(&b), Arg::array(&h)])?;
            vec![ints(&h)]
        }
        _ => unreachable!(),
    })
}

#[test]
fn integer_atomics_into_an_array_also_used_run_the_threads_in_order() {
    let n = 40_000;
    let m = Compiler::with_options(CompileOptions {
        deterministic: true,
        ..CompileOptions::default()
    })
    .compile("counts.py", COUNTS)
    .unwrap_or_else(|e| panic!("{e}"));
    // In thread order: thread i sees i + 1; the cap applies after the
    // first increment only (10, then 11, 12, ...).
    let seen: Vec<i32> = (1..=n as i32).collect();
    let capped = n as i32 + 9;
    let mut devices = host_devices();
    devices.push(Device::interp());
    for dev in &devices {
        for threads in [1, 2, 4] {
            let got = in_pool(threads, || run_counts(dev, &m, "seen", n)).unwrap();
            assert_eq!(got[0], [n as i32], "{}", dev.name());
            assert!(
                got[1] == seen,
                "{} with {threads} threads: not in thread order",
                dev.name()
            );
            let got = in_pool(threads, || run_counts(dev, &m, "bump_then_cap", n)).unwrap();
            assert_eq!(got[0], [capped], "{} with {threads} threads", dev.name());
        }
    }
    let want = run_counts(&Device::cpu(), &m, "counts", n).unwrap();
    let Ok(vk) = Device::open("vulkan") else {
        weft_testkit::skip("vulkan: no device");
        return;
    };
    // Vulkan has no ordered launches: it refuses the two kernels, naming
    // the atomic, and runs the histogram (its atomics commute) as cpu does.
    for (kernel, at) in [
        ("seen", "counts.py:7:5"),
        ("bump_then_cap", "counts.py:13:5"),
    ] {
        let err = run_counts(&vk, &m, kernel, n).expect_err(kernel);
        let Error::Runtime(RuntimeError::Unsupported { message, .. }) = &err else {
            panic!("{kernel}: {err:?}");
        };
        assert!(message.contains(at), "{kernel}: {message}");
        assert!(message.contains("integer atomic"), "{kernel}: {message}");
    }
    assert_eq!(run_counts(&vk, &m, "counts", n).unwrap(), want);
}
