//! The dispatcher: [`Device`], [`Program`], [`Kernel`], [`DeviceArray`]
//! and the launch path, the same for every device of the registry
//! ([`crate::devices`]).
//!
//! [`Device::compile`] verifies the module (no backend sees a module the
//! verifier rejects) and hands the device the verifier's
//! [`ModuleInfo`]; [`Program::kernel`] loads a kernel. [`Device::launch`]
//! (host arrays, waits) and [`Device::launch_async`] (device arrays, may
//! return before the kernel has finished) check the launch dim and every
//! argument against the kernel's signature *before* anything runs
//! ([`crate::hal::args`]), so every device refuses a bad launch with the
//! same error naming the parameter; a device's trap record becomes
//! [`LaunchError::Trap`].
//!
//! Opened devices are shared: opening the same name, unit and options
//! twice gives the same device, so arrays and kernels of one can be used
//! with the other.

use crate::array::{meta_accessors, storage_of, Arg, Array, ArrayError, ArrayMeta, Value};
use crate::devices::{self, DeviceEntry, DEVICES};
use crate::dtype::Dtype;
use crate::error::{LaunchError, RuntimeError};
use crate::hal::args::{check_dim, check_views, ArgView};
use crate::hal::{
    CodeTier, DeviceDesc, DeviceOptions, DynBufArg, DynDevice, Erased, ErasedBuffer, Launch,
};
use crate::sig::KernelSig;
use std::sync::{Arc, Mutex};
use weft_abi::trap::TrapRecord;
use weft_ir::{ArrayLayout, Module, ModuleInfo, StructTable};

/// Every device Weft knows, compiled into this build or not (the
/// registry's table).
pub fn devices() -> &'static [DeviceEntry] {
    DEVICES
}

/// The names of the devices compiled into this build, in registry order.
pub fn device_names() -> Vec<&'static str> {
    DEVICES
        .iter()
        .filter(|d| d.compiled_in())
        .map(|d| d.name)
        .collect()
}

/// A device kernels are compiled for and launched on.
#[derive(Clone)]
pub struct Device {
    entry: &'static DeviceEntry,
    ordinal: usize,
    options: Arc<DeviceOptions>,
    inner: Arc<dyn DynDevice>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("name", &self.entry.name)
            .field("ordinal", &self.ordinal)
            .finish()
    }
}

/// Two handles are equal when they are the same opened device.
impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
impl Eq for Device {}

/// The devices opened so far, by name, unit and options.
type Opened = Vec<(&'static str, usize, DeviceOptions, Arc<dyn DynDevice>)>;
static OPENED: Mutex<Opened> = Mutex::new(Vec::new());

impl Device {
    /// The device `name` (`cpu`, `cuda`, `cuda:1`, ...; see [`devices`])
    /// with default options. An unknown name, a device this build does not
    /// have (saying which feature enables it), or one that cannot be opened
    /// here (no driver, no GPU) is an error, never a panic.
    pub fn open(name: &str) -> Result<Device, RuntimeError> {
        Device::open_with(name, &DeviceOptions::default())
    }

    /// [`Device::open`] with `options` (the backend's opt level, debug
    /// info, Vulkan group size, compile cache).
    pub fn open_with(name: &str, options: &DeviceOptions) -> Result<Device, RuntimeError> {
        let (base, ordinal) = match name.split_once(':') {
            Some((b, n)) => match n.parse::<usize>() {
                Ok(k) => (b, k),
                Err(_) => return Err(unknown(name)),
            },
            None => (name, 0),
        };
        let entry = DEVICES
            .iter()
            .find(|d| d.name == base)
            .ok_or_else(|| unknown(name))?;
        let Some(open) = entry.open else {
            return Err(RuntimeError::NotCompiled {
                name: entry.name.to_string(),
                feature: entry.feature.unwrap_or("?"),
            });
        };
        Device::shared(entry, ordinal, options, || open(ordinal, options))
    }

    /// The host CPU (Cranelift JIT, all cores), default options.
    pub fn cpu() -> Device {
        Device::cpu_with(&DeviceOptions::default())
    }

    /// The host CPU with `options`.
    pub fn cpu_with(options: &DeviceOptions) -> Device {
        let entry = entry("cpu");
        let make = || Ok(devices::cpu(options));
        Device::shared(entry, 0, options, make).unwrap_or_else(|_| Device {
            entry,
            ordinal: 0,
            options: Arc::new(options.clone()),
            inner: devices::cpu(options),
        })
    }

    /// The reference interpreter.
    pub fn interp() -> Device {
        let entry = entry("interp");
        let options = DeviceOptions::default();
        let make = || Ok(devices::interp());
        Device::shared(entry, 0, &options, make).unwrap_or_else(|_| Device {
            entry,
            ordinal: 0,
            options: Arc::new(options.clone()),
            inner: devices::interp(),
        })
    }

    /// The opened device of `entry`, unit `ordinal`, with `options`:
    /// opened by `make` unless it already is.
    fn shared(
        entry: &'static DeviceEntry,
        ordinal: usize,
        options: &DeviceOptions,
        make: impl FnOnce() -> Result<Arc<dyn DynDevice>, RuntimeError>,
    ) -> Result<Device, RuntimeError> {
        let mut opened = OPENED.lock().unwrap_or_else(|p| p.into_inner());
        let found = opened
            .iter()
            .find(|(n, k, o, _)| *n == entry.name && *k == ordinal && o == options)
            .map(|(.., d)| d.clone());
        let inner = match found {
            Some(d) => d,
            None => {
                let d = make()?;
                opened.push((entry.name, ordinal, options.clone(), d.clone()));
                d
            }
        };
        Ok(Device {
            entry,
            ordinal,
            options: Arc::new(options.clone()),
            inner,
        })
    }

    /// The registry name (`cpu`, `cuda`, ...).
    pub fn name(&self) -> &'static str {
        self.entry.name
    }
    /// The unit (`cuda:1` → 1; 0 for single devices).
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }
    /// The options the device was opened with.
    pub fn options(&self) -> &DeviceOptions {
        &self.options
    }
    /// What the device is (its hardware, its code target).
    pub fn describe(&self) -> DeviceDesc {
        self.inner.describe()
    }

    /// Compiles a module for this device: verifies it (a module the
    /// verifier rejects is [`RuntimeError::Invalid`]; one with a `wp.grad`
    /// placeholder [`RuntimeError::Unlowered`]), then hands it to the
    /// device's backend with the verifier's [`ModuleInfo`].
    pub fn compile(&self, module: Arc<Module>) -> Result<Program, RuntimeError> {
        let info = Arc::new(weft_ir::verify::verify_module(&module)?);
        if let Some((_, f)) = module.funcs.iter().find(|(_, f)| f.grad_of.is_some()) {
            return Err(RuntimeError::Unlowered {
                func: f.name.clone(),
            });
        }
        let inner = self.inner.compile(&module, &info)?;
        Ok(Program {
            device: self.clone(),
            structs: Arc::new(module.structs.clone()),
            module,
            info,
            inner,
        })
    }

    /// How errors name the device: `` `cuda:1` `` (the unit when not 0).
    pub fn label(&self) -> String {
        match self.ordinal {
            0 => format!("`{}`", self.name()),
            k => format!("`{}:{k}`", self.name()),
        }
    }

    /// How errors name `other` beside `self`: its label, saying that it is
    /// another opened device when the labels are the same (other options).
    fn label_beside(&self, other: &Device) -> String {
        let l = other.label();
        if l == self.label() && other != self {
            format!("{l} (another opening, with other options)")
        } else {
            l
        }
    }

    /// The error of a kernel loaded for another device.
    fn check_own(&self, kernel: &Kernel) -> Result<(), LaunchError> {
        if kernel.device != *self {
            return Err(LaunchError::WrongDevice {
                kernel: kernel.sig.name.clone(),
                loaded: self.label_beside(&kernel.device),
                device: self.label(),
            });
        }
        Ok(())
    }

    /// Launches `kernel` over `dim` (1–4 axes) with host arrays and values
    /// in parameter order, and waits for it to finish.
    pub fn launch(
        &self,
        kernel: &Kernel,
        dim: &[usize],
        args: &[Arg<'_>],
    ) -> Result<(), LaunchError> {
        self.check_own(kernel)?;
        let (dims, total) = check_dim(dim)?;
        let views: Vec<_> = args.iter().map(ArgView::of).collect();
        check_views(&kernel.sig, &views, &dims.map(|d| d as usize))?;
        if total == 0 {
            return Ok(());
        }
        let launch = Launch {
            sig: &kernel.sig,
            dims,
            total,
            views: &views,
        };
        let trap = self.inner.launch(&kernel.inner, &launch, args)?;
        kernel.result(self.name(), trap)
    }

    /// Launches `kernel` over `dim` with this device's arrays
    /// ([`DeviceArray`]) and values, checked exactly as [`Device::launch`]
    /// checks host arguments (the same errors, naming the parameter; an
    /// array of another device is refused). It may return before the
    /// kernel has finished ([`Device::synchronize`] waits; `cuda` queues
    /// it, the host devices and `vulkan` run it to completion), except for
    /// code compiled with checks, which waits and returns the first failure
    /// as [`LaunchError::Trap`].
    pub fn launch_async(
        &self,
        kernel: &Kernel,
        dim: &[usize],
        args: &[DeviceArg<'_>],
    ) -> Result<(), LaunchError> {
        self.check_own(kernel)?;
        let (dims, total) = check_dim(dim)?;
        let views: Vec<_> = args
            .iter()
            .map(|a| match a {
                DeviceArg::Array(arr) => arr.meta.view(self.inner.address(arr.buf.as_ref())),
                DeviceArg::Value(v) => ArgView::Value(v),
            })
            .collect();
        check_views(&kernel.sig, &views, &dims.map(|d| d as usize))?;
        for (a, p) in args.iter().zip(&kernel.sig.params) {
            if let DeviceArg::Array(arr) = a {
                if arr.device != *self {
                    return Err(LaunchError::ArgKind {
                        param: p.name.clone(),
                        expected: format!("an array on the {} device", self.label()),
                        got: format!("an array on the {} device", self.label_beside(&arr.device)),
                    });
                }
            }
        }
        if total == 0 {
            return Ok(());
        }
        let dyn_args: Vec<DynBufArg<'_>> = args
            .iter()
            .map(|a| match a {
                DeviceArg::Array(arr) => DynBufArg::Array(arr.buf.as_ref()),
                DeviceArg::Value(v) => DynBufArg::Value(v),
            })
            .collect();
        let launch = Launch {
            sig: &kernel.sig,
            dims,
            total,
            views: &views,
        };
        let trap = self.inner.launch_async(&kernel.inner, &launch, &dyn_args)?;
        kernel.result(self.name(), trap)
    }

    /// Waits for all work queued on the device.
    pub fn synchronize(&self) -> Result<(), RuntimeError> {
        self.inner.synchronize()
    }

    /// A zero-filled device array (contiguous, C order).
    pub fn zeros(&self, dtype: Dtype, shape: &[usize]) -> Result<DeviceArray, RuntimeError> {
        self.zeros_with_layout(dtype, shape, ArrayLayout::Aos)
    }

    /// A zero-filled device array in `layout` (SoA: planes, as
    /// [`Array::zeros_with_layout`]).
    pub fn zeros_with_layout(
        &self,
        dtype: Dtype,
        shape: &[usize],
        layout: ArrayLayout,
    ) -> Result<DeviceArray, RuntimeError> {
        let (strides, bytes) = storage_of(&dtype, shape, layout)?;
        Ok(DeviceArray {
            buf: self.inner.alloc(bytes)?,
            meta: ArrayMeta {
                dtype,
                layout,
                shape: shape.to_vec(),
                strides,
            },
            device: self.clone(),
        })
    }

    /// A device copy of a host array (same type, shape, layout and
    /// strides).
    pub fn upload(&self, a: &Array) -> Result<DeviceArray, RuntimeError> {
        let mut buf = self.inner.alloc(a.raw().len())?;
        self.inner.write(buf.as_mut(), a.raw())?;
        Ok(DeviceArray {
            meta: a.meta().clone(),
            buf,
            device: self.clone(),
        })
    }
}

/// The registry entry `name` (one of the devices every build has).
fn entry(name: &str) -> &'static DeviceEntry {
    DEVICES
        .iter()
        .find(|d| d.name == name)
        .unwrap_or(&DEVICES[0])
}

fn unknown(name: &str) -> RuntimeError {
    RuntimeError::UnknownDevice {
        name: name.to_string(),
        known: DEVICES
            .iter()
            .map(|d| d.name)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// A module compiled for one device.
pub struct Program {
    device: Device,
    module: Arc<Module>,
    info: Arc<ModuleInfo>,
    structs: Arc<StructTable>,
    inner: Erased,
}

impl Program {
    pub fn device(&self) -> &Device {
        &self.device
    }
    pub fn module(&self) -> &Arc<Module> {
        &self.module
    }
    /// What the verifier said of the module.
    pub fn info(&self) -> &ModuleInfo {
        &self.info
    }
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Result<Kernel, RuntimeError> {
        let info = self.info.kernel(name).ok_or_else(|| {
            let names: Vec<_> = self.info.kernels.iter().map(|k| k.name.as_str()).collect();
            RuntimeError::NoKernel {
                name: name.to_string(),
                available: if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                },
            }
        })?;
        if !self.device.describe().host_memory {
            crate::hal::deterministic::refuse(self.device.name(), &self.module, info)?;
        }
        let inner = self.device.inner.load(&self.inner, info)?;
        Ok(Kernel {
            sig: Arc::new(KernelSig::new(info.clone(), self.structs.clone())),
            device: self.device.clone(),
            inner,
            files: self.module.files.clone().into(),
        })
    }
}

/// A kernel ready to launch on the device that loaded it.
#[derive(Clone)]
pub struct Kernel {
    sig: Arc<KernelSig>,
    device: Device,
    inner: Erased,
    /// The module's source file names (for bounds-checked mode's reports).
    files: Arc<[String]>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.sig.name)
            .field("device", &self.device.name())
            .finish()
    }
}

impl Kernel {
    pub fn name(&self) -> &str {
        &self.sig.name
    }
    pub fn signature(&self) -> &KernelSig {
        &self.sig
    }
    /// The device that loaded it.
    pub fn device(&self) -> &Device {
        &self.device
    }
    /// The code it runs now: on `cpu` with the `llvm` feature, Cranelift's
    /// until its module has run long enough to move to the vector tier
    /// (`docs/vector.md`), LLVM's after.
    /// `None` only if the kernel's code is not its device's, which
    /// [`Device::load`] never gives.
    pub fn tier(&self) -> Option<CodeTier> {
        self.device.inner.tier(&self.inner)
    }
    /// A launch's outcome: its first bounds-checked-mode failure, if any,
    /// as [`LaunchError::Trap`] with the source position.
    fn result(&self, device: &'static str, trap: Option<TrapRecord>) -> Result<(), LaunchError> {
        match trap {
            None => Ok(()),
            Some(t) => Err(LaunchError::from_trap(
                &self.sig.name,
                device,
                &self.files,
                &t,
            )),
        }
    }
}

/// An array in a device's memory ([`Device::zeros`], [`Device::upload`]),
/// with the type, shape, layout and byte strides of the host [`Array`] it
/// mirrors (an SoA array's storage holds the same planar bytes). Launched
/// with [`Device::launch_async`]; read back with [`DeviceArray::to_host`].
/// On the host devices its storage is host memory. `Send`, not `Sync`: a
/// launch writes it through a shared borrow.
pub struct DeviceArray {
    meta: ArrayMeta,
    buf: ErasedBuffer,
    device: Device,
}

impl std::fmt::Debug for DeviceArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceArray")
            .field("dtype", &self.meta.dtype().to_string())
            .field("shape", &self.meta.shape())
            .field("layout", &self.meta.layout())
            .field("device", &self.device.name())
            .finish()
    }
}

impl DeviceArray {
    meta_accessors!();

    /// The device that holds it.
    pub fn device(&self) -> &Device {
        &self.device
    }

    fn check_like(&self, a: &Array) -> Result<(), RuntimeError> {
        self.meta
            .check_like(a.meta())
            .map_err(|(dst, src)| ArrayError::Mismatch { dst, src }.into())
    }

    /// Copies a host array of the same type, shape and layout in (after
    /// the work queued so far).
    pub fn copy_from_host(&mut self, a: &Array) -> Result<(), RuntimeError> {
        self.check_like(a)?;
        self.device.inner.write(self.buf.as_mut(), a.raw())
    }

    /// Copies into a host array of the same type, shape and layout (waits
    /// for the work queued so far).
    pub fn copy_to_host(&self, a: &mut Array) -> Result<(), RuntimeError> {
        self.check_like(a)?;
        // SAFETY: `&mut Array`: nothing else uses its storage.
        self.device
            .inner
            .read(self.buf.as_ref(), unsafe { a.raw_mut() })
    }

    /// A host copy, in the array's layout (waits for the work queued so
    /// far).
    pub fn to_host(&self) -> Result<Array, RuntimeError> {
        let mut a = self.meta.host_zeros()?;
        self.copy_to_host(&mut a)?;
        Ok(a)
    }
}

/// One argument of [`Device::launch_async`]: an array of the launching
/// device, or a value.
#[derive(Clone, Debug)]
pub enum DeviceArg<'a> {
    Array(&'a DeviceArray),
    Value(Value),
}

impl<'a> DeviceArg<'a> {
    pub fn array(a: &'a DeviceArray) -> DeviceArg<'a> {
        DeviceArg::Array(a)
    }
    /// Any [`crate::Element`] by value.
    pub fn of<T: crate::Element>(v: T) -> DeviceArg<'a> {
        DeviceArg::Value(Value::new(v))
    }
}

impl<'a> From<&'a DeviceArray> for DeviceArg<'a> {
    fn from(a: &'a DeviceArray) -> Self {
        DeviceArg::Array(a)
    }
}

impl From<Value> for DeviceArg<'_> {
    fn from(v: Value) -> Self {
        DeviceArg::Value(v)
    }
}
