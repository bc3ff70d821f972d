//! Reverse-mode autodiff end to end: the gradient corpora on every device,
//! and the `Tape` API (several kernels and launches, seeds, a loss,
//! `zero`, `reset`, `retain_grad`, `enable_backward=False`).
//!
//! The shared corpus's `grad/` (53 cases) and this repository's
//! `conformance/grad` (cases of our own, expected gradients from real Warp
//! 1.19; `conformance/gen/grad_cases.py`) must pass on `interp` and `cpu`;
//! on `vulkan` every case passes or is a typed `Unsupported` (float64
//! transcendentals and atomics, which HLSL lacks: docs/hlsl.md).

mod common;

use std::path::{Path, PathBuf};
use weft::{Arg, Array, Compiler, Device, Tape};
use weft_conform::{self as conform, Case};

/// This repository's own gradient cases.
fn own_cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/grad")
}

/// Runs every case under `dir` on `device`; returns (passed, unsupported,
/// failures).
fn run_cases(dir: &Path, device: &Device) -> (usize, Vec<String>, Vec<String>) {
    let compiler = Compiler::new();
    let (mut passed, mut unsupported, mut failures) = (0, Vec::new(), Vec::new());
    for path in conform::find_cases(dir).expect("cases") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let case = Case::load(&path).expect("case loads");
        assert!(case.adjoint.is_some(), "{name} is not a gradient case");
        match common::run_checked(&case, device, &compiler) {
            common::Outcome::Passed => passed += 1,
            common::Outcome::Unsupported(e) => unsupported.push(format!("{name}: {e}")),
            common::Outcome::Failed(e) => failures.push(format!("{name}: {e}")),
        }
    }
    (passed, unsupported, failures)
}

fn corpora() -> Vec<PathBuf> {
    let mut dirs = vec![own_cases()];
    if let Some(d) = common::corpus() {
        assert!(
            !weft_testkit::corpus::grad_cases().is_empty(),
            "the corpus has no gradient cases"
        );
        dirs.push(d.join("grad"));
    }
    dirs
}

fn all_pass(device: Device) {
    for dir in corpora() {
        let (passed, unsupported, failures) = run_cases(&dir, &device);
        println!(
            "{} on {}: {passed} passed, {} failed",
            dir.display(),
            device.name(),
            failures.len()
        );
        assert!(passed > 0, "no case ran in {}", dir.display());
        assert!(unsupported.is_empty(), "{}", unsupported.join("\n"));
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

#[test]
fn gradient_cases_on_interp() {
    all_pass(Device::interp());
}

#[test]
fn gradient_cases_on_cpu() {
    all_pass(Device::cpu());
}

#[test]
fn gradient_cases_on_llvm_cpu() {
    if let Some(d) = common::device("llvm-cpu") {
        all_pass(d);
    }
}

#[test]
fn gradient_cases_on_vulkan() {
    let Some(dev) = common::vulkan() else { return };
    for dir in corpora() {
        let (passed, unsupported, failures) = run_cases(&dir, &dev);
        for u in &unsupported {
            println!("unsupported: {u}");
            assert!(
                u.contains("float64"),
                "only float64 is unsupported on HLSL: {u}"
            );
        }
        println!(
            "{} on vulkan: {passed} passed, {} unsupported",
            dir.display(),
            unsupported.len()
        );
        assert!(passed > 0, "no case ran");
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

const TWO_KERNELS: &str = r#"
import warp as wp

@wp.kernel
def scale(x: wp.array(dtype=float), a: float, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] * x[i]

@wp.kernel
def total(y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, y[i])

@wp.kernel(enable_backward=False)
def frozen(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0
"#;

fn arr(v: &[f32]) -> Array {
    Array::from_slice(v, &[v.len()]).unwrap()
}

#[test]
fn tape_runs_several_kernels_backwards_from_a_loss() {
    let m = Compiler::new().compile("k.py", TWO_KERNELS).unwrap();
    let cpu = Device::cpu();
    let x = arr(&[1.0, 2.0, 3.0]).requires_grad();
    let y = arr(&[0.0; 3]).requires_grad();
    let loss = arr(&[0.0]).requires_grad();
    let mut tape = Tape::new();
    for _ in 0..2 {
        // Two launches of one kernel overwrite y; the second's store
        // receives the loss's adjoint (and consumes it).
        let args = [Arg::array(&x), Arg::f32(2.0), Arg::array(&y)];
        tape.launch(&cpu, &m, "scale", &[3], &args).unwrap();
    }
    tape.launch(
        &cpu,
        &m,
        "total",
        &[3],
        &[Arg::array(&y), Arg::array(&loss)],
    )
    .unwrap();
    assert_eq!(tape.len(), 3);
    assert_eq!(loss.to_vec::<f32>().unwrap(), vec![28.0]);
    tape.backward_from(&loss).unwrap();
    // d(sum 2 x^2)/dx = 4x; y's gradient was consumed by its last store.
    assert_eq!(
        x.grad().unwrap().to_vec::<f32>().unwrap(),
        vec![4.0, 8.0, 12.0]
    );
    assert_eq!(y.grad().unwrap().to_vec::<f32>().unwrap(), vec![0.0; 3]);
    // The loss keeps its seed (atomics do not consume).
    assert_eq!(loss.grad().unwrap().to_vec::<f32>().unwrap(), vec![1.0]);
    // Backward leaves the arrays' contents as they were.
    assert_eq!(y.to_vec::<f32>().unwrap(), vec![2.0, 8.0, 18.0]);

    // Gradients accumulate across backward calls: from zero, two more
    // give twice 4x (the loss's seed flows into y again each time).
    tape.zero();
    for a in [&x, &y, &loss] {
        assert!(a
            .grad()
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .all(|&g| g == 0.0));
    }
    tape.backward_from(&loss).unwrap();
    tape.backward_from(&loss).unwrap();
    assert_eq!(
        x.grad().unwrap().to_vec::<f32>().unwrap(),
        vec![8.0, 16.0, 24.0]
    );
    tape.reset();
    assert!(tape.is_empty());
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), vec![0.0; 3]);
}

#[test]
fn retain_grad_keeps_the_output_gradient() {
    let m = Compiler::new().compile("k.py", TWO_KERNELS).unwrap();
    let cpu = Device::cpu();
    let x = arr(&[1.0, -1.0]).requires_grad();
    let y = arr(&[0.0; 2]).requires_grad().with_retain_grad(true);
    let mut tape = Tape::new();
    let args = [Arg::array(&x), Arg::f32(3.0), Arg::array(&y)];
    tape.launch(&cpu, &m, "scale", &[2], &args).unwrap();
    tape.backward_with(&[(&y, &arr(&[1.0, 0.5]))]).unwrap();
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), vec![6.0, -3.0]);
    assert_eq!(y.grad().unwrap().to_vec::<f32>().unwrap(), vec![1.0, 0.5]);
}

#[test]
fn gradient_errors_name_the_problem() {
    let m = Compiler::new().compile("k.py", TWO_KERNELS).unwrap();
    let cpu = Device::cpu();
    let x = arr(&[1.0, 2.0]);
    let mut tape = Tape::new();
    tape.launch(&cpu, &m, "frozen", &[2], &[Arg::array(&x)])
        .unwrap();
    let e = tape.backward().unwrap_err().to_string();
    assert!(e.contains("frozen") && e.contains("enable_backward"), "{e}");

    let y = arr(&[0.0; 2]).requires_grad();
    let e = Tape::new()
        .backward_with(&[(&y, &arr(&[1.0; 3]))])
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not match"), "{e}");
    let e = Tape::new()
        .backward_with(&[(&x, &arr(&[1.0; 2]))])
        .unwrap_err()
        .to_string();
    assert!(e.contains("no gradient"), "{e}");
    let e = Tape::new().backward_from(&y).unwrap_err().to_string();
    assert!(e.contains("one float element"), "{e}");
}

#[test]
fn a_gradient_array_of_another_shape_is_never_written() {
    // Called by hand with a gradient array shorter than its primal, the
    // adjoint treats it as absent instead of writing out of bounds.
    let m = Compiler::new().compile("k.py", TWO_KERNELS).unwrap();
    let cpu = Device::cpu();
    let adj = cpu.load_adjoint(&m, "scale").unwrap();
    let x = arr(&[1.0, 2.0, 3.0, 4.0]);
    let y = arr(&[0.0; 4]);
    let gx = arr(&[0.0; 2]);
    let gy = arr(&[1.0; 4]);
    let args = [
        Arg::array(&x),
        Arg::f32(1.0),
        Arg::array(&y),
        Arg::array(&gx),
        Arg::f32(0.0),
        Arg::array(&gy),
        Arg::i32(0),
        Arg::i32(0),
    ];
    cpu.launch(&adj, &[4], &args).unwrap();
    assert_eq!(gx.to_vec::<f32>().unwrap(), vec![0.0, 0.0]);
    // y's gradient has the right shape: its store consumed it.
    assert_eq!(gy.to_vec::<f32>().unwrap(), vec![0.0; 4]);
}

/// A `wp.grad` func is a placeholder until the pass pipeline gives it its
/// body: a device refuses a module that still has one, and the pipeline
/// (through the compiler) computes the gradient.
#[test]
fn a_grad_placeholder_never_reaches_a_device() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests/verify/grad_of.ir"),
    )
    .unwrap();
    let ir = weft::ir::text::parse_module(&text).expect("parses");
    let raw = weft::Module::from_ir(ir.clone());
    let Err(e) = Device::cpu().load(&raw, "k") else {
        panic!("a module with a wp.grad placeholder was loaded");
    };
    assert!(e.to_string().contains("`wp.grad` placeholder"), "{e}");
    let mut m = ir;
    weft_passes::run_pipeline(&mut m, &Default::default()).expect("pipeline");
    let k = Device::cpu()
        .load(&weft::Module::from_ir(m), "k")
        .expect("loads");
    // f(x, v) = x * v.x with v = (x, x, x): df/dx = v.x = x.
    let a = arr(&[1.0, -2.0, 0.5]);
    Device::cpu().launch(&k, &[3], &[Arg::Array(&a)]).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), vec![1.0, -2.0, 0.5]);
}
