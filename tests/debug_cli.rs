//! `weft debug CASE --script FILE`: the transcript of a scripted session on
//! the seed's N-body case is a snapshot (`tests/debug/*.txt`;
//! `WEFT_BLESS=1` rewrites it).

use std::path::Path;
use std::process::Command;

#[test]
fn scripted_nbody_session_matches_the_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::var("WEFT_CONFORMANCE_DIR")
        .unwrap_or_else(|_| "../shared/conformance".to_string());
    let case = root.join(dir).join("cases/seed_nbody_step");
    if !case.join("case.json").is_file() {
        println!("SKIP: {} not found", case.display());
        return;
    }
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
    if std::env::var_os("WEFT_BLESS").is_some() {
        std::fs::write(&snap, &got).expect("writes the snapshot");
        return;
    }
    let want = std::fs::read_to_string(&snap).expect("snapshot (WEFT_BLESS=1 to create)");
    assert_eq!(got, want, "transcript differs from {}", snap.display());
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
