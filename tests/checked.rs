//! Bounds-checked mode (`CompileOptions::checked`, `weft run --checked`):
//! out-of-bounds indices and integer division by zero stop the thread
//! before memory is touched and the launch returns `LaunchError::Trap`.
//!
//! Every case runs on cpu, llvm-cpu and interp, on `vulkan` where a Vulkan
//! device and glslang are present (lavapipe here), and on `cuda` where a
//! GPU is; a missing device prints `SKIP` with the reason.

mod common;

use std::path::Path;
use std::process::Command;
use weft::ir::TrapKind;
use weft::{Arg, Array, CompileOptions, Compiler, Device, Error, LaunchError};

/// The devices checked mode runs on here: every device of the registry
/// that opens (a missing one prints `SKIP`). Each failure below is a single
/// thread's, or several with the same message, so a GPU's report is
/// deterministic too.
fn devices() -> Vec<Device> {
    common::devices(&weft::device_names())
}

fn checked() -> Compiler {
    Compiler::with_options(CompileOptions {
        checked: true,
        ..CompileOptions::default()
    })
}

const SOURCE: &str = r#"import warp as wp


@wp.kernel
def shift_left(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i + 1]


@wp.kernel
def shift_right(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i + 1] = x[i]


@wp.kernel
def back(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i - 17]


@wp.kernel
def ratio(a: wp.array(dtype=int), b: wp.array(dtype=int), y: wp.array(dtype=int)):
    i = wp.tid()
    y[i] = a[i] / b[i]


@wp.kernel
def grid(m: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    y[i, j] = m[i, j + 1]


@wp.kernel
def row_shift(y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    y[i, j + 1] = float(i * 10 + j)


@wp.kernel
def cas_right(y: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_cas(y, i + 1, 0, i + 1)
"#;

/// Unpacks a launch error into (kind, file, line, index, size).
fn trap_of(e: Error) -> (TrapKind, String, u32, i64, i64) {
    match e {
        Error::Launch(LaunchError::Trap {
            kind,
            file,
            line,
            index,
            size,
            ..
        })
        | Error::Runtime(weft::RuntimeError::Launch(LaunchError::Trap {
            kind,
            file,
            line,
            index,
            size,
            ..
        })) => (kind, file, line, index, size),
        other => panic!("expected a bounds-checked trap, got {other}"),
    }
}

fn floats(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32).collect()
}

#[test]
fn read_past_the_end_is_reported_and_the_rest_runs() {
    let m = checked().compile("shift.py", SOURCE).expect("compiles");
    let n = 1024;
    for d in devices() {
        let dev = d.name();
        let k = d.load(&m, "shift_left").expect("loads");
        let x = Array::from_slice(&floats(n), &[n]).unwrap();
        let y = Array::from_slice(&vec![-1.0f32; n], &[n]).unwrap();
        let err = d
            .launch(&k, &[n], &[Arg::array(&x), Arg::array(&y)])
            .expect_err("thread n-1 reads x[n]");
        let msg = err.to_string();
        assert!(
            msg.contains("shift.py:7:")
                && msg.contains("index 1024 out of bounds for axis 0 of size 1024"),
            "{dev}: {msg}"
        );
        assert_eq!(
            trap_of(err),
            (
                TrapKind::OutOfBounds { axis: 0 },
                "shift.py".into(),
                7,
                1024,
                1024
            )
        );
        let y = y.to_vec::<f32>().unwrap();
        if dev != "interp" {
            // Only the faulting thread stopped (the interpreter stops the
            // whole launch at the first error, after threads 0..n-1 ran).
            assert_eq!(&y[..n - 1], &floats(n)[1..], "{dev}");
        }
        assert_eq!(y[n - 1], -1.0, "{dev}: the faulting thread stored nothing");
        // The failure is per launch: the next launch of the same kernel runs.
        let y = Array::from_slice(&vec![-1.0f32; n - 1], &[n - 1]).unwrap();
        d.launch(&k, &[n - 1], &[Arg::array(&x), Arg::array(&y)])
            .unwrap_or_else(|e| panic!("{dev}: in-bounds launch after a trap: {e}"));
        assert_eq!(y.to_vec::<f32>().unwrap(), floats(n)[1..].to_vec(), "{dev}");
    }
}

/// `y[i, j + 1]` with `j + 1 == 4` on a 3×4 array: unchecked, that address
/// is `y[i + 1, 0]` (in the same buffer, so a device that only guards the
/// buffer's end would write it) or, for the last row, the 4 bytes after the
/// array. Checked, every axis is tested on its own: column 0 — the guard
/// values after each row — keeps its -1, and every in-bounds store is done.
/// (On Vulkan arrays are copied into storage buffers and back, so bytes past
/// the array's end are not visible to the host; the rows' neighbours are
/// the strongest observable check, and they are the same on every device.)
#[test]
fn row_overrun_leaves_the_next_row_alone() {
    let m = checked().compile("shift.py", SOURCE).unwrap();
    for d in devices() {
        let dev = d.name();
        let k = d.load(&m, "row_shift").unwrap();
        let y = Array::from_slice(&[-1.0f32; 12], &[3, 4]).unwrap();
        let err = d.launch(&k, &[3, 4], &[Arg::array(&y)]).unwrap_err();
        let (kind, _, line, index, size) = trap_of(err);
        assert_eq!(
            (kind, line, index, size),
            (TrapKind::OutOfBounds { axis: 1 }, 37, 4, 4),
            "{dev}"
        );
        let y = y.to_vec::<f32>().unwrap();
        for i in 0..3 {
            assert_eq!(y[i * 4], -1.0, "{dev}: row {i}'s guard column was written");
            if dev != "interp" {
                for j in 0..3 {
                    assert_eq!(
                        y[i * 4 + j + 1],
                        (i * 10 + j) as f32,
                        "{dev}: y[{i}, {}]",
                        j + 1
                    );
                }
            }
        }
    }
}

#[test]
fn write_past_the_end_touches_nothing() {
    let m = checked().compile("shift.py", SOURCE).expect("compiles");
    let n = 64;
    for d in devices() {
        let dev = d.name();
        let k = d.load(&m, "shift_right").unwrap();
        let x = Array::from_slice(&floats(n), &[n]).unwrap();
        let y = Array::from_slice(&vec![-1.0f32; n], &[n]).unwrap();
        let err = d
            .launch(&k, &[n], &[Arg::array(&x), Arg::array(&y)])
            .unwrap_err();
        assert_eq!(
            trap_of(err),
            (
                TrapKind::OutOfBounds { axis: 0 },
                "shift.py".into(),
                13,
                64,
                64
            ),
            "{dev}"
        );
        let y = y.to_vec::<f32>().unwrap();
        assert_eq!(y[0], -1.0, "{dev}");
        assert_eq!(&y[1..], &floats(n)[..n - 1], "{dev}");
    }
}

/// An `atomic_cas` past the end is checked like any access: the thread
/// stops before it swaps; the others swap their slots.
#[test]
fn atomic_cas_past_the_end_touches_nothing() {
    let m = checked().compile("shift.py", SOURCE).expect("compiles");
    let n = 64;
    for d in devices() {
        let dev = d.name();
        let k = d.load(&m, "cas_right").unwrap();
        let y = Array::from_slice(&vec![0i32; n], &[n]).unwrap();
        let err = d.launch(&k, &[n], &[Arg::array(&y)]).unwrap_err();
        assert_eq!(
            trap_of(err),
            (
                TrapKind::OutOfBounds { axis: 0 },
                "shift.py".into(),
                43,
                64,
                64
            ),
            "{dev}"
        );
        let want: Vec<i32> = (0..n as i32).collect();
        assert_eq!(y.to_vec::<i32>().unwrap(), want, "{dev}");
    }
}

/// `x[i - 17]` with 16 elements: Warp wraps an index in `-16..0` (Python's
/// rule), so only thread 0's `-17` is out of bounds; the bounds check tests
/// the wrapped index and reports `-1` (docs: `builtins/arrays.rs`).
#[test]
fn negative_index_is_reported() {
    let m = checked().compile("shift.py", SOURCE).unwrap();
    let n = 16;
    for d in devices() {
        let dev = d.name();
        let k = d.load(&m, "back").unwrap();
        let x = Array::from_slice(&floats(n), &[n]).unwrap();
        let y = Array::from_slice(&vec![-1.0f32; n], &[n]).unwrap();
        let err = d
            .launch(&k, &[n], &[Arg::array(&x), Arg::array(&y)])
            .unwrap_err();
        assert_eq!(
            trap_of(err),
            (
                TrapKind::OutOfBounds { axis: 0 },
                "shift.py".into(),
                19,
                -1,
                16
            ),
            "{dev}"
        );
        assert_eq!(y.to_vec::<f32>().unwrap()[0], -1.0, "{dev}");
    }
}

#[test]
fn integer_division_by_zero_is_reported() {
    let m = checked().compile("shift.py", SOURCE).unwrap();
    let n = 8;
    for d in devices() {
        let dev = d.name();
        let k = d.load(&m, "ratio").unwrap();
        let a = Array::from_slice(&[10i32; 8], &[n]).unwrap();
        let b = Array::from_slice(&[1i32, 2, 3, 4, 5, 0, 7, 8], &[n]).unwrap();
        let y = Array::from_slice(&[-1i32; 8], &[n]).unwrap();
        let err = d
            .launch(&k, &[n], &[Arg::array(&a), Arg::array(&b), Arg::array(&y)])
            .unwrap_err();
        assert!(
            err.to_string().contains("integer division by zero"),
            "{err}"
        );
        let (kind, file, line, _, _) = trap_of(err);
        assert_eq!(
            (kind, file.as_str(), line),
            (TrapKind::DivByZero, "shift.py", 25)
        );
        assert_eq!(y.to_vec::<i32>().unwrap()[5], -1, "{dev}");
    }
}

#[test]
fn second_axis_is_named() {
    let m = checked().compile("shift.py", SOURCE).unwrap();
    for d in devices() {
        let dev = d.name();
        let k = d.load(&m, "grid").unwrap();
        let g = Array::from_slice(&[0.0f32; 12], &[3, 4]).unwrap();
        let y = Array::from_slice(&[0.0f32; 12], &[3, 4]).unwrap();
        let err = d
            .launch(&k, &[3, 4], &[Arg::array(&g), Arg::array(&y)])
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("index 4 out of bounds for axis 1 of size 4"),
            "{dev}: {err}"
        );
    }
}

#[test]
fn off_by_default_and_in_bounds_launches_pass() {
    let plain = Compiler::new().compile("shift.py", SOURCE).unwrap();
    assert!(
        !plain.ir_text().contains("trap"),
        "no test without --checked"
    );
    let checked_ir = checked().compile("shift.py", SOURCE).unwrap().ir_text();
    assert!(checked_ir.contains("trap oob 0") && checked_ir.contains("trap divzero"));
    // An in-bounds launch of checked code runs normally.
    let m = checked().compile("shift.py", SOURCE).unwrap();
    for d in devices() {
        let dev = d.name();
        let k = d.load(&m, "shift_left").unwrap();
        let x = Array::from_slice(&floats(9), &[9]).unwrap();
        let y = Array::from_slice(&[0.0f32; 8], &[8]).unwrap();
        d.launch(&k, &[8], &[Arg::array(&x), Arg::array(&y)])
            .expect("in bounds");
        assert_eq!(y.to_vec::<f32>().unwrap(), floats(9)[1..].to_vec(), "{dev}");
    }
}

#[test]
fn cli_run_checked_reports_and_fails() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/checked/oob_read");
    let out = std::env::temp_dir().join(format!("weft-checked-{}", std::process::id()));
    for dev in devices() {
        let r = Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["run", "--checked", "--backend", dev.name(), "--out"])
            .arg(&out)
            .arg(&case)
            .output()
            .expect("runs weft");
        let stderr = String::from_utf8_lossy(&r.stderr);
        let dev = dev.name();
        assert!(!r.status.success(), "{dev}: exits non-zero");
        assert!(
            stderr.contains("kernel.py:7:12: kernel `shift_left`: index 1024 out of bounds for axis 0 of size 1024"),
            "{dev}: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
