//! The device registry: every device Weft knows, one line each, and its
//! module (one file or folder here, implementing [`crate::hal::DeviceApi`]).
//!
//! A device behind a cargo feature is still listed when the feature is
//! off, so that asking for it says which feature enables it. The table
//! ([`DEVICES`]) is the one list of device names: the CLI's `--backend`
//! values, `weft compare`, `weft bench` and the error for an unknown name
//! all read it.

use crate::hal::{DeviceOptions, DynDevice, OpenFn};
use std::sync::Arc;

/// One device of the registry.
#[derive(Debug)]
pub struct DeviceEntry {
    /// Its name (`--backend NAME`, `Device::open("NAME")`; a device with
    /// several units takes `NAME:N`).
    pub name: &'static str,
    /// What it is, in a few words.
    pub about: &'static str,
    /// The cargo feature that compiles it in (`None`: always there).
    pub feature: Option<&'static str>,
    /// Opens it; `None` when its feature is off.
    pub(crate) open: Option<OpenFn>,
}

impl DeviceEntry {
    /// Whether this build has the device.
    pub fn compiled_in(&self) -> bool {
        self.open.is_some()
    }
}

/// Declares the device modules and the table: `module: "name", "about"`,
/// then `, feature "f"` for a device behind a cargo feature. A feature-gated
/// module exists only with its feature; without it a stub says so.
macro_rules! registry {
    ($($module:ident: $name:literal, $about:literal $(, feature $feature:literal)?;)*) => {
        $(
            $(#[cfg(feature = $feature)])?
            mod $module;
            $(
                #[cfg(not(feature = $feature))]
                mod $module {
                    pub(super) const OPEN: Option<crate::hal::OpenFn> = None;
                }
            )?
        )*

        /// Every device, compiled in or not, in the order tools list them.
        pub static DEVICES: &[DeviceEntry] = &[
            $(DeviceEntry {
                name: $name,
                about: $about,
                feature: registry!(@feature $($feature)?),
                open: $module::OPEN,
            },)*
        ];
    };
    (@feature $feature:literal) => { Some($feature) };
    (@feature) => { None };
}

registry! {
    interp: "interp", "the reference interpreter (one thread, every index checked)";
    cpu: "cpu", "Cranelift JIT on all cores";
    llvm_cpu: "llvm-cpu", "LLVM's host JIT on all cores", feature "llvm";
    cuda: "cuda", "NVIDIA GPUs through the CUDA driver (PTX from LLVM)", feature "llvm";
    vulkan: "vulkan", "HLSL compute shaders on a Vulkan device (SPIR-V by glslang)", feature "vulkan";
}

/// The `cpu` device with `opts`, which opens without fail.
pub(crate) fn cpu(opts: &DeviceOptions) -> Arc<dyn DynDevice> {
    cpu::device(opts)
}

/// The `interp` device, which opens without fail.
pub(crate) fn interp() -> Arc<dyn DynDevice> {
    interp::device()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_features_match_the_build() {
        for (i, d) in DEVICES.iter().enumerate() {
            assert!(
                DEVICES[i + 1..].iter().all(|e| e.name != d.name),
                "{}",
                d.name
            );
        }
        let by = |n: &str| DEVICES.iter().find(|d| d.name == n).unwrap();
        assert!(by("cpu").compiled_in() && by("interp").compiled_in());
        assert_eq!(by("llvm-cpu").compiled_in(), cfg!(feature = "llvm"));
        assert_eq!(by("cuda").compiled_in(), cfg!(feature = "llvm"));
        assert_eq!(by("vulkan").compiled_in(), cfg!(feature = "vulkan"));
        assert_eq!(by("vulkan").feature, Some("vulkan"));
    }
}
