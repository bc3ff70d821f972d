//! Snapshot tests of the emitted PTX (sm_80, default options) for a few
//! conformance kernels.
//!
//! The input of each snapshot is the kernel's IR, stored next to it
//! (`tests/snapshots/<case>.ir`, IR text as the frontend and the default
//! pipeline produced it), so the PTX snapshot changes only when this
//! backend (or LLVM) does, not with every frontend or pass change.
//! `WEFT_BLESS=1 cargo test -p weft-backend-ptx --test snapshots` regenerates
//! both files from the conformance corpus.

mod common;

use common::emit_ptx;
use std::path::PathBuf;
use weft_backend_ptx::Options;

fn check(case: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let ir_path = dir.join(format!("{case}.ir"));
    let ptx_path = dir.join(format!("{case}.ptx"));
    let bless = std::env::var_os("WEFT_BLESS").is_some_and(|v| v == "1");
    if bless {
        let Some(corpus) = common::conformance_dir() else {
            panic!("WEFT_BLESS=1 needs the conformance corpus (WEFT_CONFORMANCE_DIR)");
        };
        let src =
            std::fs::read_to_string(corpus.join("cases").join(case).join("kernel.py")).unwrap();
        // A relative file name keeps `.file` independent of the corpus path.
        let m = common::compile_source(&format!("{case}/kernel.py"), &src);
        std::fs::write(&ir_path, weft_ir::text::print_module(&m)).unwrap();
    }
    let ir = std::fs::read_to_string(&ir_path).unwrap_or_else(|_| {
        panic!(
            "{} is missing: run with WEFT_BLESS=1 to create it",
            ir_path.display()
        )
    });
    let m = weft_ir::text::parse_module(&ir)
        .unwrap_or_else(|e| panic!("{}: {e:?} (rerun with WEFT_BLESS=1)", ir_path.display()));
    let ptx = emit_ptx(&m, &Options::default()).unwrap().ptx;
    if bless {
        std::fs::write(&ptx_path, &ptx).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&ptx_path).unwrap_or_else(|_| {
        panic!(
            "{} is missing: run with WEFT_BLESS=1 to create it",
            ptx_path.display()
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
            ptx_path.display(),
            line + 1,
            want.lines().nth(line),
            ptx.lines().nth(line)
        );
    }
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
