//! Helpers shared by the root integration tests (`mod common;` in each).
//! Not every test uses every item.
#![allow(dead_code)]

use std::path::PathBuf;

/// Where the conformance corpus is: `$WEFT_CONFORMANCE_DIR`, default
/// `<workspace>/../shared/conformance`.
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("WEFT_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance"))
}

/// The conformance corpus ([`corpus_dir`]), or `None` after printing
/// `SKIP` when it has no `cases/`.
pub fn corpus() -> Option<PathBuf> {
    let dir = corpus_dir();
    if dir.join("cases").is_dir() {
        Some(dir)
    } else {
        println!(
            "SKIP: conformance corpus not found at {} (set WEFT_CONFORMANCE_DIR)",
            dir.display()
        );
        None
    }
}

/// Conformance case `name` (its folder), if the corpus has it.
pub fn corpus_case(name: &str) -> Option<PathBuf> {
    let case = corpus_dir().join("cases").join(name);
    case.is_dir().then_some(case)
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

/// The device `name`, or `None` after printing why it is skipped (a build
/// without its feature, no driver, no device, no glslang).
pub fn device(name: &str) -> Option<weft::Device> {
    match weft::Device::open(name) {
        Ok(d) => Some(d),
        Err(e) => {
            println!("SKIP ({name}): {e}");
            None
        }
    }
}

/// The devices of `names` that open here (the others print `SKIP`).
pub fn devices(names: &[&str]) -> Vec<weft::Device> {
    names.iter().filter_map(|n| device(n)).collect()
}

/// The Vulkan device, or `None` after printing why it is skipped.
pub fn vulkan() -> Option<weft::Device> {
    device("vulkan")
}
