//! Snapshot tests of the emitted PTX (sm_80, default options) for a few
//! conformance kernels.
//!
//! The input of each snapshot is the kernel's IR, stored next to it
//! (`tests/snapshots/<case>.ir`, IR text as the frontend and the default
//! pipeline produced it), so the PTX snapshot changes only when this
//! backend (or LLVM) does, not with every frontend or pass change.
//! `WEFT_BLESS=1 cargo test -p weft-backend-llvm --test snapshots` regenerates
//! both files from the conformance corpus.

mod common;

use common::emit_ptx;
use std::path::PathBuf;
use weft_backend_llvm::Options;

fn check(case: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let ir_path = dir.join(format!("{case}.ir"));
    let ptx_path = dir.join(format!("{case}.ptx"));
    if weft_testkit::bless() {
        let Some(case_dir) = weft_testkit::corpus::case(case) else {
            panic!("WEFT_BLESS=1 needs the conformance corpus (WEFT_CONFORMANCE_DIR)");
        };
        let src = std::fs::read_to_string(case_dir.join("kernel.py")).unwrap();
        // A relative file name keeps `.file` independent of the corpus path.
        let m = common::compile_source(&format!("{case}/kernel.py"), &src);
        weft_testkit::snapshot::check(&ir_path, &weft_ir::text::print_module(&m))
            .unwrap_or_else(|e| panic!("{e}"));
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
    if let Err(e) = weft_testkit::snapshot::check(&ptx_path, &ptx) {
        panic!("PTX of {case}: {e}");
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
