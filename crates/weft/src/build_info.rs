//! What this build of Weft has: [`build_info`].

use crate::CodeTier;

/// The version, cargo features, devices and CPU tiers of this build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildInfo {
    /// The `weft` crate's version.
    pub version: &'static str,
    /// The cargo features compiled in, of `llvm` and `vulkan`.
    pub features: Vec<&'static str>,
    /// The devices compiled in, by registry name ([`crate::devices`]).
    pub devices: Vec<&'static str>,
    /// The code `cpu` can run: Cranelift's, and with the `llvm` feature
    /// the vector tier at this host's width, which hot modules move to
    /// (`docs/vector.md`).
    pub cpu_tiers: Vec<CodeTier>,
}

/// What this build has (see [`BuildInfo`]).
pub fn build_info() -> BuildInfo {
    let mut features = Vec::new();
    if cfg!(feature = "llvm") {
        features.push("llvm");
    }
    if cfg!(feature = "vulkan") {
        features.push("vulkan");
    }
    #[allow(unused_mut)]
    let mut cpu_tiers = vec![CodeTier::Cranelift];
    #[cfg(feature = "llvm")]
    cpu_tiers.push(CodeTier::Llvm {
        lanes: weft_backend_llvm::host::native_width(),
    });
    BuildInfo {
        version: env!("CARGO_PKG_VERSION"),
        features,
        devices: crate::devices()
            .iter()
            .filter(|d| d.compiled_in())
            .map(|d| d.name)
            .collect(),
        cpu_tiers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_what_the_build_has() {
        let b = build_info();
        assert!(b.devices.contains(&"cpu") && b.devices.contains(&"interp"));
        assert_eq!(b.devices.contains(&"cuda"), cfg!(feature = "llvm"));
        assert_eq!(b.features.contains(&"llvm"), cfg!(feature = "llvm"));
        assert_eq!(b.cpu_tiers[0], CodeTier::Cranelift);
        let vector = b.cpu_tiers.get(1);
        assert_eq!(vector.is_some(), cfg!(feature = "llvm"), "{vector:?}");
        if let Some(t) = vector {
            assert!(matches!(t, CodeTier::Llvm { lanes: 4 | 8 | 16 }), "{t:?}");
        }
    }
}
