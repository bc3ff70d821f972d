//! # weft-runtime — devices, arrays and kernel launch
//!
//! The runtime sees verified modules and the verifier's
//! [`weft_ir::ModuleInfo`], never source:
//!
//! * [`Dtype`]: an element/value type (an IR [`weft_ir::ElemType`] plus the
//!   struct table it refers to; structs compare by name and definition);
//! * [`Array`]: typed, shaped (1–4 axes), strided, 16-byte aligned host
//!   storage in the C layout of [`weft_ir::layout`]; [`Value`]: a by-value
//!   argument; [`DeviceArray`]: the same in a device's memory;
//! * [`Device`]: one of the registry's devices ([`devices()`]): `cpu`
//!   (Cranelift JIT, launches split over all cores), `interp` (the
//!   reference interpreter, the oracle), `llvm-cpu` (LLVM's host JIT) and
//!   `cuda` (PTX on an NVIDIA GPU) with the `llvm` feature, `vulkan` (the
//!   HLSL backend's shaders) with the `vulkan` feature (on by default). All
//!   implement one interface ([`hal::DeviceApi`]) and go through one launch
//!   path;
//! * [`Program`] (a module compiled for a device) and [`Kernel`].
//!
//! # Structure
//!
//! ```text
//! device.rs      the dispatcher: Device, Program, Kernel, DeviceArray, launch
//!   └ devices/   the registry (one line per device) and one module per device
//!       └ hal/   the device trait; args (views, checks, packing); host (host devices' shared code)
//! cached.rs      device code (PTX, SPIR-V) through the compile cache
//! ```
//!
//! No device module imports another or the dispatcher; adding a device is
//! one module under `devices/` and one line in its registry.
//!
//! # Launch checks
//!
//! [`Device::launch`] and [`Device::launch_async`] check, before anything
//! runs, and report the first failure as a [`LaunchError`] naming the
//! parameter:
//!
//! 1. the launch dim has 1–4 axes whose product fits an `i32`;
//! 2. no more arguments than parameters, and none missing;
//! 3. array parameters get arrays and value parameters get values;
//! 4. element/value types are equal (a struct: same name and fields,
//!    recursively — a same-named struct with another definition is a
//!    [`LaunchError::StructLayout`]); then the array's dimensionality;
//! 5. the array-length rule of [`weft_ir::info`]: an array axis that every
//!    thread indexes with its (linear or per-axis) thread id must be long
//!    enough for every thread of the launch;
//! 6. on `interp`, no array may be passed for two parameters;
//! 7. an array's layout ([`ArrayLayout`]) is the one the kernel takes that
//!    parameter in ([`weft_ir::KernelInfo::param_layout`]): AoS unless the
//!    `soa` pass laid it out structure of arrays. An array in the other
//!    layout is a [`LaunchError::ArgLayout`] (never converted silently;
//!    convert with [`Array::to_layout`]). See [`mod@array`] for the SoA
//!    storage;
//! 8. with [`Device::launch_async`], every array belongs to the launching
//!    device.

pub mod array;
pub mod cached;
pub mod debug;
mod device;
mod devices;
pub mod dtype;
pub mod error;
pub mod hal;
pub mod hostmem;
pub mod policy;
pub mod sig;

pub use array::{Arg, Array, ArrayError, ArrayMeta, Value};
pub use device::{device_names, devices, Device, DeviceArg, DeviceArray, Kernel, Program};
pub use devices::DeviceEntry;
pub use dtype::{Dtype, Element, ScalarElem};
pub use error::{BackendError, LaunchError, RuntimeError};
pub use hal::args::check_args;
pub use hal::{CacheLocation, CodeTier, DeviceDesc, DeviceOptions};
pub use sig::{IndexRange, KernelSig, LengthRule};
pub use weft_abi::trap::TrapRecord;
pub use weft_ir::ArrayLayout;
