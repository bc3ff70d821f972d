//! Limits that fail cleanly (issue 16, item 5; docs/reliability.md,
//! "Limits"): each either works or is a clear error, never an abort or a
//! stack overflow.
//!
//! * an array too large for memory: `ArrayError::OutOfMemory` from the
//!   library (host arrays, the devices' arrays), an error from the CLI;
//! * a launch past its wall-clock limit (`DeviceOptions::timeout`,
//!   `--timeout`) on the CPU devices: `LaunchError::Timeout`, and the
//!   device and arrays stay usable; without a limit the generated code has
//!   no cancel check;
//! * a module of many kernels and a kernel of many lines compile and run
//!   like the interpreter. CI runs 2 000 kernels and 10 000 lines;
//!   `WEFT_LIMITS_FULL=1` (`scripts/limits.sh`) the issue's 10 000 kernels
//!   and 100 000 lines.

use std::time::{Duration, Instant};
use weft::ir::Scalar;
use weft::{Arg, Array, ArrayError, Compiler, Device, DeviceOptions, Dtype, Error, LaunchError};
use weft_devtools::bench::scaling::kernels;

fn full() -> bool {
    std::env::var_os("WEFT_LIMITS_FULL").is_some_and(|v| v == "1")
}

/// 4 Ti elements of `float32`: 16 TiB, more than this machine (or any
/// the tests run on) can give one allocation.
const HUGE: [usize; 2] = [1 << 30, 1 << 12];

#[test]
fn a_huge_array_is_an_out_of_memory_error() {
    let f32 = || Dtype::scalar(Scalar::F32);
    let err = Array::zeros(f32(), &HUGE).unwrap_err();
    assert!(matches!(err, ArrayError::OutOfMemory { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("out of memory") && msg.contains("17592186044416 bytes"),
        "{msg}"
    );
    // Beyond what sizes can express: a size error, not an allocation.
    let err = Array::zeros(f32(), &[1 << 30, 1 << 30, 1 << 30]).unwrap_err();
    assert!(matches!(err, ArrayError::TooLarge { .. }), "{err}");
    let mut devs = vec![Device::cpu(), Device::interp()];
    if let Ok(v) = Device::open("vulkan") {
        devs.push(v);
    }
    for dev in devs {
        let err = dev.zeros(f32(), &HUGE).unwrap_err();
        // Vulkan: above the device's allocation limit.
        let msg = err.to_string();
        assert!(
            msg.contains("out of memory") || msg.contains("exceeds the device limit"),
            "{}: {msg}",
            dev.name()
        );
        // The device still allocates and runs.
        let a = dev.zeros(f32(), &[16]).unwrap();
        assert_eq!(a.to_host().unwrap().to_vec::<f32>().unwrap(), vec![0.0; 16]);
    }
}

/// An npy file (version 1.0) of `descr` and `shape` (a Python tuple)
/// whose data is `data` zero bytes, whatever the shape says.
fn npy(descr: &str, shape: &str, data: usize) -> Vec<u8> {
    let mut header =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}").into_bytes();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(b' ');
    }
    header.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header);
    out.extend(vec![0u8; data]);
    out
}

#[test]
fn the_cli_reports_a_huge_array() {
    // An npy file whose header claims 16 TiB: an error naming the file.
    let d = std::env::temp_dir().join(format!("weft-limits-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("kernel.py"),
        "import warp as wp\n\n@wp.kernel\ndef k(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = 1.0\n",
    )
    .unwrap();
    std::fs::write(
        d.join("case.json"),
        r#"{"name": "huge", "kernel": "k", "dim": [4],
            "args": [{"name": "x", "kind": "array", "dtype": "float32", "ndim": 2,
                      "shape": [1073741824, 4096], "file": "x.npy"}],
            "check": ["x"], "rtol": 0.0, "atol": 0.0}"#,
    )
    .unwrap();
    std::fs::write(d.join("x.npy"), npy("<f4", "(1073741824, 4096)", 64)).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["run", d.to_str().unwrap(), "--out"])
        .arg(d.join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "not a clean error: {err}");
    assert!(err.contains("x.npy"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

const SPIN: &str = r#"
import warp as wp

@wp.kernel
def spin(x: wp.array(dtype=int), n: int):
    i = wp.tid()
    v = x[i]
    k = int(0)
    while k < n:
        v = v * 1664525 + 1013904223
        k = k + 1
    x[i] = v
"#;

/// Threads that do not loop, each with work no compiler folds away (a
/// loop-free chain of transcendentals whose result is used), so that 2^31
/// of them take far longer than the limit on any machine; c[0] counts the
/// threads that ran.
const COUNT: &str = r#"
import warp as wp

@wp.kernel
def count(c: wp.array(dtype=int)):
    x = float(wp.tid())
    x = wp.sin(x) + wp.cos(x * 1.5)
    x = wp.sin(x * 2.5) + wp.cos(x * 3.5)
    x = wp.sin(x * 4.5) + wp.cos(x * 5.5)
    if x > 100.0:
        c[1] = 1
    wp.atomic_add(c, 0, 1)
"#;

fn spin_ref(x: i32, n: i32) -> i32 {
    (0..n).fold(x, |v, _| v.wrapping_mul(1664525).wrapping_add(1013904223))
}

/// The CPU devices of this build with a wall-clock limit.
fn limited(limit: Duration) -> Vec<Device> {
    let opts = DeviceOptions {
        timeout: Some(limit),
        ..Default::default()
    };
    let mut names = vec!["cpu", "interp"];
    if cfg!(feature = "llvm") {
        names.push("llvm-cpu");
    }
    names
        .into_iter()
        .map(|n| Device::open_with(n, &opts).unwrap())
        .collect()
}

#[test]
fn a_launch_past_its_time_limit_is_stopped() {
    let m = Compiler::new().compile("spin.py", SPIN).unwrap();
    let counting = Compiler::new().compile("count.py", COUNT).unwrap();
    let limit = Duration::from_millis(200);
    for dev in limited(limit) {
        let spin = dev.load(&m, "spin").unwrap();
        // Threads that would loop for minutes: the loops' cancel checks
        // stop them.
        let (n, iters) = (8, i32::MAX);
        let x = Array::from_slice(&vec![1i32; n], &[n]).unwrap();
        let t0 = Instant::now();
        let err = dev
            .launch(&spin, &[n], &[Arg::array(&x), Arg::i32(iters)])
            .unwrap_err();
        let took = t0.elapsed();
        assert!(
            matches!(&err, Error::Launch(LaunchError::Timeout { kernel, .. }) if kernel == "spin"),
            "{}: {err}",
            dev.name()
        );
        assert!(err.to_string().contains("time limit"), "{err}");
        // It stopped (not a speed assertion: unstopped, this takes minutes).
        assert!(took < Duration::from_secs(60), "{}: {took:?}", dev.name());
        // Threads that do not loop, too many to finish in the limit.
        let count = dev.load(&counting, "count").unwrap();
        let c = Array::from_slice(&[0i32, 0], &[2]).unwrap();
        let total = i32::MAX as usize;
        let err = dev.launch(&count, &[total], &[Arg::array(&c)]).unwrap_err();
        assert!(
            matches!(err, Error::Launch(LaunchError::Timeout { .. })),
            "{}: {err}",
            dev.name()
        );
        let done = c.to_vec::<i32>().unwrap()[0];
        assert!(
            done >= 0 && (done as usize) < total,
            "{}: {done}",
            dev.name()
        );
        // The device and the arrays are usable: a launch within the limit.
        let xs: Vec<i32> = (0..64).collect();
        let x = Array::from_slice(&xs, &[64]).unwrap();
        dev.launch(&spin, &[64], &[Arg::array(&x), Arg::i32(1000)])
            .unwrap();
        let want: Vec<i32> = xs.iter().map(|&v| spin_ref(v, 1000)).collect();
        assert_eq!(x.to_vec::<i32>().unwrap(), want, "{}", dev.name());
    }
}

#[test]
fn without_a_limit_the_generated_code_has_no_cancel_check() {
    let m = Compiler::new().compile("spin.py", SPIN).unwrap();
    let info = weft::ir::verify::verify_module(m.ir()).unwrap();
    let text = |cancel_checks| {
        let o = weft_backend_cpu::Options {
            cancel_checks,
            ..Default::default()
        };
        weft_backend_cpu::emit_text(m.ir(), &info, &o).unwrap()
    };
    // The kernels call no shim but the cancel check.
    let plain = text(false);
    assert_eq!(plain, m.clif_text().unwrap());
    assert!(!plain.contains(" call "), "{plain}");
    let checked = text(true);
    assert!(checked.contains(" call "), "{checked}");
    // The same on llvm-cpu: only with cancel checks does its code call
    // the poll.
    #[cfg(feature = "llvm")]
    {
        let ir = |cancel_checks| {
            let o = weft::backend_llvm::host::Options {
                cancel_checks,
                ..Default::default()
            };
            weft::backend_llvm::host::emit_text(m.ir(), &info, &o).unwrap()
        };
        assert!(!ir(false).contains("weft_cancel_poll"));
        assert!(ir(true).contains("weft_cancel_poll"));
    }
}

#[test]
fn the_cli_stops_a_kernel_at_its_timeout() {
    let d = std::env::temp_dir().join(format!("weft-timeout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("kernel.py"), SPIN).unwrap();
    std::fs::write(
        d.join("case.json"),
        r#"{"name": "spin", "kernel": "spin", "dim": [4],
            "args": [{"name": "x", "kind": "array", "dtype": "int32", "ndim": 1, "shape": [4], "file": "x.npy"},
                     {"name": "n", "kind": "scalar", "dtype": "int32", "value": 2147483647}],
            "check": ["x"], "rtol": 0.0, "atol": 0.0}"#,
    )
    .unwrap();
    std::fs::write(d.join("x.npy"), npy("<i4", "(4,)", 16)).unwrap();
    for backend in ["cpu", "interp"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft"))
            .args([
                "run",
                d.to_str().unwrap(),
                "--timeout",
                "0.2",
                "--backend",
                backend,
                "--out",
            ])
            .arg(d.join("out"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{backend}: {err}");
        assert!(err.contains("time limit"), "{backend}: {err}");
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["run", d.to_str().unwrap(), "--timeout", "-1"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a bad --timeout is a usage error"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// `y` after `kernel` of `m` on `dev` over 97 elements.
fn run(dev: &Device, m: &weft::Module, kernel: &str, chain: bool) -> Vec<f32> {
    let n = 97;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.02 - 1.0).collect();
    let x = Array::from_slice(&xs, &[n]).unwrap();
    let y = Array::from_slice(&vec![0.5f32; n], &[n]).unwrap();
    let k = dev.load(m, kernel).unwrap();
    let mut args = vec![Arg::array(&x), Arg::array(&y)];
    if chain {
        args.push(Arg::f32(0.001));
    }
    dev.launch(&k, &[n], &args).unwrap();
    y.to_vec::<f32>().unwrap()
}

#[test]
fn a_module_of_many_kernels_works() {
    let k = if full() { 10_000 } else { 2_000 };
    let m = Compiler::new()
        .compile("many.py", &kernels::many_kernels(k))
        .unwrap();
    assert_eq!(m.kernel_names().len(), k);
    let (cpu, interp) = (Device::cpu(), Device::interp());
    for name in [0, k / 2, k - 1].map(|j| format!("kernel_{j}")) {
        assert_eq!(
            run(&cpu, &m, &name, false),
            run(&interp, &m, &name, false),
            "{name}"
        );
    }
}

#[test]
fn a_kernel_of_many_lines_works() {
    let n = if full() { 100_000 } else { 10_000 };
    let src = kernels::chain(n);
    assert!(src.lines().count() > n);
    let m = Compiler::new().compile("chain.py", &src).unwrap();
    let want = run(&Device::interp(), &m, "chain", true);
    assert_eq!(run(&Device::cpu(), &m, "chain", true), want);
}
