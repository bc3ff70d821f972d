//! # weft-runtime — devices, arrays and kernel launch
//!
//! The runtime sees compiled artifacts and kernel signatures, never source:
//!
//! * [`Dtype`]: an element/value type (an IR [`weft_ir::ElemType`] plus the
//!   struct table it refers to; structs compare by name and definition);
//! * [`Array`]: typed, shaped (1–4 axes), strided, 16-byte aligned storage
//!   in the C layout of [`weft_ir::layout`]; [`Value`]: a by-value argument;
//! * [`Device`]: `cpu` (Cranelift JIT, launches split over all cores with
//!   rayon), `llvm-cpu` (LLVM's host JIT, launched exactly like `cpu`),
//!   `interp` (the reference interpreter, the oracle) or `cuda` (PTX on an
//!   NVIDIA GPU, see [`cuda`]) or `vulkan` (the HLSL backend's shaders on a
//!   Vulkan device, see [`vulkan`]); all go through one launch path;
//! * [`Cache`]: the on-disk compile cache (PTX, SPIR-V, IR), see [`cache`];
//! * [`Program`] (a module compiled for a device) and [`Kernel`].
//!
//! # Launch checks
//!
//! [`Device::launch`] checks, before anything runs, and reports the first
//! failure as a [`LaunchError`] naming the parameter:
//!
//! 1. the launch dim has 1–4 axes whose product fits an `i32`;
//! 2. no more arguments than parameters, and none missing;
//! 3. array parameters get arrays and value parameters get values;
//! 4. element/value types are equal (a struct: same name and fields,
//!    recursively — a same-named struct with another definition is a
//!    [`LaunchError::StructLayout`]); then the array's dimensionality;
//! 5. the array-length rule of [`sig`]: an array axis that every thread
//!    indexes with its (linear or per-axis) thread id must be long enough
//!    for every thread of the launch;
//! 6. on `interp`, no array may be passed for two parameters;
//! 7. an array's layout ([`ArrayLayout`]) is the one the kernel takes that
//!    parameter in ([`KernelSig::param_layout`]): AoS unless the `soa` pass
//!    laid it out structure of arrays. An array in the other layout is a
//!    [`LaunchError::ArgLayout`] (never converted silently; convert with
//!    [`Array::to_layout`]). See [`mod@array`] for the SoA storage and
//!    [`sig`] for the kernel side.

pub mod array;
mod backend;
pub mod cache;
pub mod cuda;
pub mod debug;
pub mod device;
pub mod dtype;
pub mod error;
mod llvm_cpu;
pub mod sig;
pub mod vulkan;

pub use array::{Arg, Array, ArrayError, ArrayMeta, Value};
pub use cache::{Cache, CacheError, CacheKey, KindInfo};
pub use cuda::{CudaArg, CudaArray, CudaDevice, CudaError, CudaEvent};
pub use device::{check_args, Device, DeviceArg, DeviceKind, Kernel, Program};
pub use dtype::{Dtype, Element, ScalarElem};
pub use error::{BackendError, LaunchError, RuntimeError};
pub use sig::{IndexRange, KernelSig, LengthRule};
pub use vulkan::{VulkanArray, VulkanDevice, VulkanError};
pub use weft_ir::ArrayLayout;
