//! Runs the whole conformance corpus, and Weft's own cases (`conformance/`
//! in the repository, made by `conformance/gen/make_cases.py` with real
//! Warp), on the CPU devices and expects no failure.
//!
//! The corpus is at `$WEFT_CONFORMANCE_DIR`, default `shared/conformance`
//! beside an ancestor of the workspace (`weft_testkit::corpus`); when it is
//! missing the test prints a counted `SKIP` and returns (it fails with
//! `WEFT_REQUIRE_CORPUS=1`).

mod common;

use weft::{Compiler, Device};
use weft_conform as conform;

/// Weft's own cases, beside the workspace root.
fn own_cases() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

fn run_on(device: Device) {
    let Some(dir) = common::corpus() else { return };
    run_dir(device, &dir);
}

fn run_dir(device: Device, dir: &std::path::Path) {
    let mut failures = Vec::new();
    let summary = conform::run_dir(dir, &device, &Compiler::new(), |r| {
        if let Some(line) = r.line() {
            failures.push(line);
        }
    })
    .expect("conformance run");
    for f in &failures {
        println!("{f}");
    }
    println!("{}: {summary}", device.name());
    assert!(summary.passed > 0, "no case ran");
    assert_eq!(
        summary.failed,
        0,
        "{} case(s) failed on {}:\n{}",
        summary.failed,
        device.name(),
        failures.join("\n")
    );
}

#[test]
fn conformance_cpu() {
    run_on(Device::cpu());
}

#[test]
fn conformance_interp() {
    run_on(Device::interp());
}

#[test]
fn own_cases_cpu() {
    run_dir(Device::cpu(), &own_cases());
}

#[test]
fn own_cases_interp() {
    run_dir(Device::interp(), &own_cases());
}
