//! The `weft` binary: check, build, run and conform, with exit codes.
//! Cases are made here (kernel, case.json, npy files), so the test needs
//! no corpus.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use weft::Array;
use weft_conform::{data, npy::Npy};

const KERNEL: &str = r#"import warp as wp

@wp.kernel
def affine(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float, b: float):
    i = wp.tid()
    y[i] = a * x[i] + b
"#;

fn weft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(args)
        .output()
        .expect("runs weft")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write_npy(path: &Path, a: &Array) {
    std::fs::write(path, data::array_to_npy(a).to_bytes()).unwrap();
}

/// A case computing `y = 2x + 1`; `wrong` makes one expected value wrong.
fn make_case(dir: &Path, wrong: bool) {
    std::fs::write(dir.join("kernel.py"), KERNEL).unwrap();
    let n = 16;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut y: Vec<f32> = x.iter().map(|v| 2.0 * v + 1.0).collect();
    if wrong {
        y[5] = 100.0;
    }
    write_npy(&dir.join("x.npy"), &Array::from_slice(&x, &[n]).unwrap());
    write_npy(
        &dir.join("y.npy"),
        &Array::from_slice(&vec![-9.0f32; n], &[n]).unwrap(),
    );
    write_npy(
        &dir.join("expected_y.npy"),
        &Array::from_slice(&y, &[n]).unwrap(),
    );
    let case = format!(
        r#"{{"name": "{}", "kernel": "affine", "dim": [{n}],
  "args": [
    {{"name": "x", "kind": "array", "dtype": "float32", "ndim": 1, "shape": [{n}], "file": "x.npy"}},
    {{"name": "y", "kind": "array", "dtype": "float32", "ndim": 1, "shape": [{n}], "file": "y.npy"}},
    {{"name": "a", "kind": "scalar", "dtype": "float32", "value": 2.0}},
    {{"name": "b", "kind": "scalar", "dtype": "float32", "value": 1.0}}],
  "check": ["y"], "rtol": 0.0, "atol": 0.0}}"#,
        dir.file_name().unwrap().to_string_lossy()
    );
    std::fs::write(dir.join("case.json"), case).unwrap();
}

#[test]
fn check_reports_ok_and_errors() {
    let d = scratch("check");
    let good = d.join("good.py");
    std::fs::write(&good, KERNEL).unwrap();
    let o = weft(&["check", good.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.starts_with("ok") && out.contains("affine"), "{out}");

    let bad = d.join("bad.py");
    std::fs::write(
        &bad,
        KERNEL.replace("a * x[i]", "a * x[i] * undefined_thing"),
    )
    .unwrap();
    let o = weft(&["check", bad.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        err.contains("undefined_thing") && err.contains("bad.py"),
        "{err}"
    );
    assert!(
        !err.contains("\x1b["),
        "no color when not on a terminal: {err}"
    );

    let o = weft(&["check", d.join("missing.py").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let o = weft(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn build_emits_ir_and_clif() {
    let d = scratch("build");
    let src = d.join("k.py");
    std::fs::write(&src, KERNEL).unwrap();
    let s = src.to_str().unwrap();
    let o = weft(&["build", s, "--emit", "ir"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("affine"), "{out}");
    let ir_file = d.join("k.ir");
    let o = weft(&[
        "build",
        s,
        "--emit",
        "ir",
        "--kernel",
        "affine",
        "-o",
        ir_file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o).1);
    assert!(std::fs::read_to_string(&ir_file)
        .unwrap()
        .contains("affine"));
    let o = weft(&["build", s, "--emit", "clif"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("function"), "{out}");
    let dump = d.join("passes");
    let o = weft(&["build", s, "--dump-passes", dump.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o).1);
    assert!(std::fs::read_dir(&dump).unwrap().count() > 0);
    let o = weft(&["build", s, "--kernel", "nope"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("nope"));
}

#[test]
fn run_writes_npy_outputs() {
    let d = scratch("run");
    let case = d.join("affine_case");
    std::fs::create_dir_all(&case).unwrap();
    make_case(&case, false);
    for backend in ["cpu", "interp"] {
        let out = d.join(format!("out-{backend}"));
        let o = weft(&[
            "run",
            case.join("case.json").to_str().unwrap(),
            "--backend",
            backend,
            "--out",
            out.to_str().unwrap(),
        ]);
        let (stdout, err) = text(&o);
        assert!(o.status.success(), "{stdout}{err}");
        let y = Npy::parse(&std::fs::read(out.join("y.npy")).unwrap()).unwrap();
        assert_eq!(y.shape, vec![16]);
        assert_eq!(&y.data[20..24], &11.0f32.to_le_bytes());
        assert!(out.join("x.npy").is_file());
    }
}

#[test]
fn conform_counts_and_reports_failures() {
    let d = scratch("conform");
    let cases = d.join("cases");
    for (name, wrong) in [("a_good", false), ("b_wrong", true)] {
        let c = cases.join(name);
        std::fs::create_dir_all(&c).unwrap();
        make_case(&c, wrong);
    }
    let o = weft(&["conform", d.to_str().unwrap(), "--backend", "interp"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.last(), Some(&"1 passed, 1 failed"), "{out}");
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].contains("b_wrong") && lines[0].contains("y[5]"),
        "{out}"
    );
    assert!(
        lines[0].contains("100.0") && lines[0].contains("11.0"),
        "{out}"
    );

    let o = weft(&["conform", cases.join("a_good").to_str().unwrap()]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert_eq!(out.trim_end(), "1 passed, 0 failed");

    let o = weft(&["conform", d.join("nothing").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
}

/// `wp.expect_eq`/`expect_neq`/`expect_near` print Warp's message with the
/// values, after the file and line, and the kernel goes on (our case
/// `conformance/cases/expect_checks`).
#[test]
fn expect_checks_print_and_continue() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/cases/expect_checks");
    let out = scratch("expect_checks");
    for backend in ["interp", "cpu"] {
        let o = weft(&[
            "run",
            case.to_str().unwrap(),
            "--backend",
            backend,
            "--out",
            out.to_str().unwrap(),
        ]);
        let (stdout, stderr) = text(&o);
        assert!(o.status.success(), "{backend}: {stdout}{stderr}");
        // Thread 0 fails expect_eq(i, 1) and both expect_near; thread 1
        // fails expect_neq (x[1] = 3) and both expect_near.
        for want in [
            "kernel.py:7: Error, expect_eq() failed:\n\t Expected: 1\n\t Actual: 0\n",
            "kernel.py:8: Error, expect_neq() failed:\n\t Expected: 1 2 3 \n\t Actual: 1 2 3 \n",
            "kernel.py:9: Error, expect_near() failed with tolerance 0.5\n    Expected: 2\n    Actual: 3\n    Absolute difference: 1\n",
            "kernel.py:10: Error, expect_near() failed with tolerance 1e-06\n    Expected: 2 1 \n    Actual: 1 1 \n    Max absolute difference: 1\n",
        ] {
            assert!(stdout.contains(want), "{backend}: missing {want:?} in\n{stdout}");
        }
        assert_eq!(
            stdout.matches("Error, expect_").count(),
            6,
            "{backend}:\n{stdout}"
        );
        assert!(
            stdout.contains("matches expected (o)"),
            "{backend}: {stdout}"
        );
    }
}
