//! `weft debug CASE --script FILE`: the transcript of a scripted session on
//! the seed's N-body case is a snapshot (`tests/debug/*.txt`;
//! `WEFT_BLESS=1` rewrites it).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The seed's N-body case (its folder), or `None` after a counted `SKIP`
/// (a failure with `WEFT_REQUIRE_CORPUS=1`).
fn nbody_case() -> Option<PathBuf> {
    let case = weft_testkit::corpus::case("seed_nbody_step")?;
    assert!(
        case.join("case.json").is_file(),
        "{} has no case.json",
        case.display()
    );
    Some(case)
}

#[test]
fn scripted_nbody_session_matches_the_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(case) = nbody_case() else { return };
    let script = root.join("tests/debug/nbody.script");
    let r = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["debug", "--tid", "3,5", "--script"])
        .arg(&script)
        .arg(&case)
        .output()
        .expect("runs weft");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let got = String::from_utf8(r.stdout).expect("utf-8");
    let snap = root.join("tests/debug/nbody.txt");
    if let Err(e) = weft_testkit::snapshot::check(&snap, &got) {
        panic!("the transcript: {e}");
    }
}

/// gdb's commands (`tests/debug/commands.script`): breakpoints with
/// conditions, `tbreak`, `delete`, `info breakpoints`, `bt`, `print` of
/// expressions over locals and array elements, `watch` of a component.
#[test]
fn gdb_commands_match_the_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(case) = nbody_case() else { return };
    let r = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["debug", "--tid", "3", "--script"])
        .arg(root.join("tests/debug/commands.script"))
        .arg(&case)
        .output()
        .expect("runs weft");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let got = String::from_utf8(r.stdout).expect("utf-8");
    // What the snapshot pins, checked here too: the temporary breakpoint's
    // condition, the array element equal to the kernel's own `d`.
    assert!(got.contains("(weft) print j\nj = 5\n"), "{got}");
    assert!(got.contains("pos[j] - p = vec3<f32>(0.79551244, -0.09096402, 0.38767934)"));
    assert!(got.contains("d = vec3<f32>(0.79551244, -0.09096402, 0.38767934)"));
    let snap = root.join("tests/debug/commands.txt");
    if let Err(e) = weft_testkit::snapshot::check(&snap, &got) {
        panic!("the transcript: {e}");
    }
}

/// `weft debug --layout soa`: the kernel's vec3 arrays are SoA (planes),
/// and the same script prints the same transcript as in AoS, value for
/// value (the debugger compiles at O0: `p = pos[i]`, a `make` of three
/// plane loads, keeps its name).
#[test]
fn scripted_nbody_session_is_the_same_in_soa() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(case) = nbody_case() else { return };
    // The session's module really has SoA arrays.
    let src = std::fs::read_to_string(case.join("kernel.py")).expect("reads kernel.py");
    let m = weft::debug::Debugger::compile_with_layout("kernel.py", &src, weft::ArrayLayout::Soa)
        .expect("compiles");
    let ir = m.ir();
    let k = ir.func_by_name("nbody_step").expect("the kernel");
    assert!(!ir.funcs[k].soa_params.is_empty(), "no SoA param");
    let script = root.join("tests/debug/nbody.script");
    let session = |layout: &str| {
        let r = Command::new(env!("CARGO_BIN_EXE_weft"))
            .args(["debug", "--tid", "3,5", "--layout", layout, "--script"])
            .arg(&script)
            .arg(&case)
            .output()
            .expect("runs weft");
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        String::from_utf8(r.stdout).expect("utf-8")
    };
    let (aos, soa) = (session("aos"), session("soa"));
    assert_eq!(aos, soa);
    assert!(aos.contains("p = vec3"), "a transcript with values:\n{aos}");
}

#[test]
fn debug_rejects_other_backends() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let r = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["debug", "--backend", "vulkan"])
        .arg(root.join("tests/checked/oob_read"))
        .output()
        .expect("runs weft");
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("cpu"));
}
