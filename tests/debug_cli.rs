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

/// The transcript of `weft debug --tid TIDS --script tests/debug/SCRIPT CASE`.
fn run_script(case: &Path, tids: &str, script: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let r = Command::new(env!("CARGO_BIN_EXE_weft"))
        .args(["debug", "--tid", tids, "--script"])
        .arg(root.join("tests/debug").join(script))
        .arg(case)
        .output()
        .expect("runs weft");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    String::from_utf8(r.stdout).expect("utf-8")
}

/// gdb's commands (`tests/debug/commands.script`): breakpoints with
/// conditions, `tbreak`, `delete`, `info breakpoints`, `bt`, `print` of
/// expressions over locals and array elements, `watch` of a component.
#[test]
fn gdb_commands_match_the_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(case) = nbody_case() else { return };
    let got = run_script(&case, "3", "commands.script");
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

/// `frame N`, `up` and `down` select a frame of the stack for `locals` and
/// `print` (`tests/debug/frames.script` on the `func_basic` case); moving
/// the thread selects the innermost frame again.
#[test]
fn frame_selection_matches_the_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(case) = weft_testkit::corpus::case("func_basic") else {
        return;
    };
    let got = run_script(&case, "2", "frames.script");
    // The caller's frame has the kernel's `v`, the callee's its `x`.
    let after = |cmd: &str| {
        got.split(&format!("(weft) {cmd}\n"))
            .nth(1)
            .and_then(|t| t.lines().next())
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        after("up").starts_with("#1 func_basic at kernel.py:18"),
        "{got}"
    );
    assert!(after("print v").starts_with("v = "), "{got}");
    assert!(after("frame 5").starts_with("error: no frame 5"), "{got}");
    let snap = root.join("tests/debug/frames.txt");
    if let Err(e) = weft_testkit::snapshot::check(&snap, &got) {
        panic!("the transcript: {e}");
    }
}

/// `weft debug --layout soa`: the kernel's vec3 arrays are SoA (planes),
/// and the same script prints the same transcript as in AoS, value for
/// value, array elements read from the live launch too (the debugger compiles at O0: `p = pos[i]`, a `make` of three
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
    // `commands.script` prints elements of SoA arrays from the live launch.
    for (script, tids) in [("nbody.script", "3,5"), ("commands.script", "3")] {
        let script = root.join("tests/debug").join(script);
        let session = |layout: &str| {
            let r = Command::new(env!("CARGO_BIN_EXE_weft"))
                .args(["debug", "--tid", tids, "--layout", layout, "--script"])
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

/// On a terminal (a pseudo-terminal made by util-linux's `script`), the
/// interactive loop edits lines and keeps a history: the up arrow recalls
/// the last command, and the history file holds the session's commands.
/// Each command is typed only after the prompt for it appeared, as a user
/// types; the prompt is the editor's and the session does not echo it.
#[test]
fn interactive_session_has_line_editing_and_history() {
    use std::io::{Read, Write};
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let Some(case) = nbody_case() else { return };
    if Command::new("script").arg("--version").output().is_err() {
        weft_testkit::skip("util-linux `script` not found (needed for a pseudo-terminal)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("weft-history-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let history = dir.join("history");
    let cmd = format!(
        "{} debug --tid 3 {}",
        env!("CARGO_BIN_EXE_weft"),
        case.display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .env("WEFT_HISTORY", &history)
        .env("TERM", "xterm")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs script");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = String::new();
    // Waits until the output holds `n` prompts, then types `keys`.
    let mut prompts = 0;
    let mut type_after_prompt = |keys: &[u8], seen: &mut String| {
        prompts += 1;
        let deadline = Instant::now() + Duration::from_secs(60);
        while seen.matches("(weft) ").count() < prompts {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(b) => seen.push_str(&String::from_utf8_lossy(&b)),
                Err(_) => panic!("no prompt {prompts} within 60 s; output so far:\n{seen}"),
            }
        }
        stdin.write_all(keys).unwrap();
        stdin.flush().unwrap();
    };
    for keys in [
        &b"break kernel.py:22\r"[..],
        b"c\r",
        b"p r2\r",
        b"\x1b[A\r", // the up arrow: `p r2` again
        b"quit\r",
    ] {
        type_after_prompt(keys, &mut seen);
    }
    let status = child.wait().expect("weft ends");
    while let Ok(b) = rx.recv_timeout(Duration::from_secs(5)) {
        seen.push_str(&String::from_utf8_lossy(&b));
    }
    assert!(status.success(), "{seen}");
    assert_eq!(seen.matches("r2 = 0.8014097").count(), 2, "{seen}");
    let h = std::fs::read_to_string(&history).expect("the history was saved");
    for c in ["break kernel.py:22", "p r2", "quit"] {
        assert!(h.lines().any(|l| l == c), "{c} not in the history:\n{h}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
