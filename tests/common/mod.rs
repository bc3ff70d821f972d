//! Helpers shared by the root integration tests (`mod common;` in each).
//! Not every test uses every item.
#![allow(dead_code)]

use std::path::PathBuf;

/// Where the conformance corpus should be ([`weft_testkit::corpus::dir`]):
/// `$WEFT_CONFORMANCE_DIR`, else `shared/conformance` beside an ancestor of
/// the workspace.
pub fn corpus_dir() -> PathBuf {
    weft_testkit::corpus::dir()
}

/// The conformance corpus, or `None` after a counted `SKIP` when it has no
/// `cases/` (a failure with `WEFT_REQUIRE_CORPUS=1`;
/// [`weft_testkit::corpus::find`]).
pub fn corpus() -> Option<PathBuf> {
    weft_testkit::corpus::find()
}

/// Conformance case `name` (its folder), with [`corpus`]'s rules for a
/// missing corpus; a corpus without that case is a failure
/// ([`weft_testkit::corpus::case`]).
pub fn corpus_case(name: &str) -> Option<PathBuf> {
    weft_testkit::corpus::case(name)
}

/// The particle update of `weft bench`.
pub const PARTICLES: &str = weft_devtools::bench::PARTICLES_SOURCE;

/// The particle update of `weft bench`, `x` hinted SoA in the source.
pub const PARTICLES_SOA_HINT: &str = weft_devtools::bench::PARTICLES_SOA_HINT;

/// The device `name`, or `None` after a counted `SKIP` that says why (a
/// build without its feature, no driver, no device, no glslang).
pub fn device(name: &str) -> Option<weft::Device> {
    match weft::Device::open(name) {
        Ok(d) => Some(d),
        Err(e) => {
            weft_testkit::skip(format!("{name}: {e}"));
            None
        }
    }
}

/// The devices of `names` that open here (the others print a counted
/// `SKIP`).
pub fn devices(names: &[&str]) -> Vec<weft::Device> {
    names.iter().filter_map(|n| device(n)).collect()
}

/// The Vulkan device, or `None` after a counted `SKIP` that says why.
pub fn vulkan() -> Option<weft::Device> {
    device("vulkan")
}

/// How one conformance case ended on a device.
pub enum Outcome {
    Passed,
    /// A typed `Unsupported` of the device's backend (the message).
    Unsupported(String),
    /// Wrong values or another error (the message).
    Failed(String),
}

/// Runs conformance case `case` on `device` and checks it.
pub fn run_checked(
    case: &weft_conform::Case,
    device: &weft::Device,
    compiler: &weft::Compiler,
) -> Outcome {
    use weft_conform as conform;
    match conform::run_case(case, device, compiler) {
        Ok(run) => match conform::check_case(case, &run) {
            Ok(ms) if ms.is_empty() => Outcome::Passed,
            Ok(ms) => Outcome::Failed(
                ms.iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
            Err(e) => Outcome::Failed(e.to_string()),
        },
        Err(e) if e.is_unsupported() => Outcome::Unsupported(e.to_string()),
        Err(e) => Outcome::Failed(conform::one_line(&e)),
    }
}
