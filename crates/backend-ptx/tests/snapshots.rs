//! Snapshot tests of the emitted PTX (sm_80, default options) for a few
//! conformance kernels. `WEFT_BLESS=1 cargo test -p weft-backend-ptx --test
//! snapshots` rewrites `tests/snapshots/*.ptx`.

mod common;

use std::path::PathBuf;
use weft_backend_ptx::{emit_ptx, PtxOptions};

fn check(case: &str) {
    let Some(dir) = common::conformance_dir() else {
        println!("SKIP: conformance corpus not found (set WEFT_CONFORMANCE_DIR)");
        return;
    };
    let src = std::fs::read_to_string(dir.join("cases").join(case).join("kernel.py")).unwrap();
    // A relative file name keeps the `.file` directive independent of where
    // the corpus lives.
    let m = common::compile_source(&format!("{case}/kernel.py"), &src);
    let ptx = normalize(&emit_ptx(&m, &PtxOptions::default()).unwrap().ptx);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{case}.ptx"));
    if std::env::var_os("WEFT_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &ptx).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "{} is missing: run with WEFT_BLESS=1 to create it",
            path.display()
        )
    });
    if want != ptx {
        let line = want
            .lines()
            .zip(ptx.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(ptx.lines().count()));
        panic!(
            "PTX of {case} differs from {} at line {}:\n  snapshot: {:?}\n  now:      {:?}\nrerun with WEFT_BLESS=1 to accept the new output",
            path.display(),
            line + 1,
            want.lines().nth(line),
            ptx.lines().nth(line)
        );
    }
}

/// Line directives into other files than the kernel's (the prelude, file
/// 2+) lose their line and column, so editing the prelude does not churn
/// every snapshot.
fn normalize(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.lines() {
        let mut parts = line.split_whitespace();
        if parts.next() == Some(".loc") && parts.next().is_some_and(|f| f != "1") {
            out.push_str("\t.loc\t<other file>");
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[test]
fn seed_double_kernel() {
    check("seed_double_kernel");
}

#[test]
fn seed_nbody_step() {
    check("seed_nbody_step");
}

#[test]
fn atomic_histogram_int() {
    check("atomic_histogram_int");
}

#[test]
fn struct_array_rw() {
    check("struct_array_rw");
}

#[test]
fn dims_stencil_3d() {
    check("dims_stencil_3d");
}
