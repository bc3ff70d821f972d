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

/// The particle update of `weft bench` (`src/cli/bench.rs`, which the
/// tests cannot reach: it is part of the binary), with `$x_comment` after
/// the annotation of `x` (e.g. a layout hint).
macro_rules! particles_source {
    ($x_comment:literal) => {
        concat!(
            r#"
import warp as wp

@wp.kernel
def particles(
    x: wp.array(dtype=wp.vec3),"#,
            $x_comment,
            r#"
    v: wp.array(dtype=wp.vec3),
    gravity: float,
    dt: float,
):
    i = wp.tid()
    vi = v[i] + wp.vec3(0.0, -gravity, 0.0) * dt
    xi = x[i] + vi * dt
    if xi[1] < 0.0:
        xi = wp.vec3(xi[0], -xi[1], xi[2])
        vi = wp.vec3(vi[0], -0.5 * vi[1], vi[2])
    v[i] = vi
    x[i] = xi
"#
        )
    };
}

/// The particle update of `weft bench`.
pub const PARTICLES: &str = particles_source!("");

/// The particle update of `weft bench`, `x` hinted SoA in the source.
pub const PARTICLES_SOA_HINT: &str = particles_source!("  # weft: layout=soa");

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
