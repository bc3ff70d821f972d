//! Devices, compiled programs, kernels and the launch path.
//!
//! A [`Device`] compiles an IR module into a [`Program`] (the CPU JIT's
//! machine code, or for the interpreter the IR itself), from which
//! [`Kernel`]s are taken by name. [`Device::launch`] checks every argument
//! against the kernel's [`KernelSig`] before anything runs, packs the
//! argument block of [`weft_ir::layout`] and runs the kernel: on the CPU, the
//! thread range `0..product(dim)` is cut into contiguous chunks run in
//! parallel by `rayon`; the interpreter runs all threads in order.

use crate::array::{Arg, Array, Value};
use crate::backend::{self, ArgValue, CpuProgram, KernelEntry};
use crate::cuda::{CudaArray, CudaDevice, CudaKernel, CudaProgram};
use crate::dtype::{type_name, Dtype};
use crate::error::{LaunchError, RuntimeError};
use crate::llvm_cpu::LlvmCpuProgram;
use crate::sig::KernelSig;
use crate::vulkan::{VulkanArray, VulkanDevice, VulkanKernel, VulkanProgram};
use rayon::prelude::*;
use std::sync::Arc;
use weft_backend_cpu::trap::{clear_trap, take_trap, TrapRecord};
use weft_ir::layout::{ARRAY_DESC_SHAPE, ARRAY_DESC_STRIDES};
use weft_ir::types::MAX_DIMS;
use weft_ir::{ArrayLayout, FuncId, FuncKind, Module, StructTable, Type};

/// The kinds of device.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    /// Cranelift JIT, all cores.
    Cpu,
    /// The reference interpreter, one thread.
    Interp,
    /// LLVM's host JIT (the PTX backend's lowering), all cores.
    LlvmCpu,
    /// An NVIDIA GPU through the CUDA driver API (PTX from LLVM NVPTX).
    Cuda,
    /// A Vulkan device running the HLSL backend's shaders (SPIR-V by glslang).
    Vulkan,
}

impl DeviceKind {
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Interp => "interp",
            DeviceKind::LlvmCpu => "llvm-cpu",
            DeviceKind::Cuda => "cuda",
            DeviceKind::Vulkan => "vulkan",
        }
    }
    /// Parses a device name (`cpu`, `interp`, `llvm-cpu`, `cuda`, ...).
    pub fn from_name(s: &str) -> Option<DeviceKind> {
        match s {
            "cpu" => Some(DeviceKind::Cpu),
            "interp" => Some(DeviceKind::Interp),
            "llvm-cpu" => Some(DeviceKind::LlvmCpu),
            "cuda" => Some(DeviceKind::Cuda),
            "vulkan" => Some(DeviceKind::Vulkan),
            _ => None,
        }
    }
}

/// A device kernels are compiled for and launched on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    kind: DeviceKind,
    /// The opened GPU of a `cuda` device (`None` if it could not be opened:
    /// compiling for it then reports why).
    cuda: Option<Arc<CudaDevice>>,
    /// The opened device of a `vulkan` device (`None` if it could not be
    /// opened: compiling for it then reports why).
    vulkan: Option<Arc<VulkanDevice>>,
}

/// A module compiled for one device.
pub struct Program {
    kind: DeviceKind,
    module: Arc<Module>,
    structs: Arc<StructTable>,
    cpu: Option<Arc<CpuProgram>>,
    llvm: Option<Arc<LlvmCpuProgram>>,
    cuda: Option<Arc<CudaProgram>>,
    vulkan: Option<Arc<VulkanProgram>>,
}

#[derive(Clone)]
enum Exec {
    Cpu {
        entry: KernelEntry,
        /// Keeps the machine code alive.
        _program: Arc<CpuProgram>,
    },
    Interp {
        module: Arc<Module>,
        func: FuncId,
    },
    LlvmCpu {
        entry: KernelEntry,
        /// Keeps the machine code alive.
        _program: Arc<LlvmCpuProgram>,
    },
    Cuda(CudaKernel),
    Vulkan(VulkanKernel),
}

/// A kernel ready to launch on the device that loaded it.
#[derive(Clone)]
pub struct Kernel {
    sig: Arc<KernelSig>,
    device: DeviceKind,
    exec: Exec,
    /// The module's source file names (for bounds-checked mode's reports).
    files: Arc<[String]>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.sig.name)
            .field("device", &self.device)
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
    pub fn device(&self) -> DeviceKind {
        self.device
    }
    /// The error of a failed bounds-checked-mode check at `loc`.
    pub(crate) fn trap_error(
        &self,
        device: &'static str,
        kind: weft_ir::TrapKind,
        loc: weft_ir::Loc,
        index: i64,
        size: i64,
    ) -> LaunchError {
        LaunchError::Trap {
            kernel: self.sig.name.clone(),
            device,
            file: self
                .files
                .get(loc.file as usize)
                .cloned()
                .unwrap_or_else(|| "<unknown>".to_string()),
            line: loc.line,
            col: loc.col,
            kind,
            index,
            size,
        }
    }
    /// The GPU code of a kernel loaded for `cuda`.
    pub(crate) fn cuda_exec(&self) -> Option<&CudaKernel> {
        match &self.exec {
            Exec::Cuda(k) => Some(k),
            _ => None,
        }
    }
}

impl Program {
    pub fn device(&self) -> DeviceKind {
        self.kind
    }
    pub fn module(&self) -> &Arc<Module> {
        &self.module
    }
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Result<Kernel, RuntimeError> {
        let func = self
            .module
            .kernels()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
            .ok_or_else(|| self.no_kernel(name))?;
        let sig = Arc::new(KernelSig::from_module(
            &self.module,
            func,
            self.structs.clone(),
        ));
        let exec = if let Some(p) = &self.cpu {
            Exec::Cpu {
                entry: p.entry(name).ok_or_else(|| self.no_kernel(name))?,
                _program: p.clone(),
            }
        } else if let Some(p) = &self.llvm {
            Exec::LlvmCpu {
                entry: p.entry(name).ok_or_else(|| self.no_kernel(name))?,
                _program: p.clone(),
            }
        } else if let Some(p) = &self.cuda {
            Exec::Cuda(p.kernel(name).ok_or_else(|| self.no_kernel(name))?)
        } else if let Some(p) = &self.vulkan {
            Exec::Vulkan(p.kernel(name).map_err(|e| RuntimeError::Compile {
                device: "vulkan",
                source: Box::new(e),
            })?)
        } else {
            Exec::Interp {
                module: self.module.clone(),
                func,
            }
        };
        Ok(Kernel {
            sig,
            device: self.kind,
            exec,
            files: self.module.files.clone().into(),
        })
    }
    fn no_kernel(&self, name: &str) -> RuntimeError {
        let names: Vec<_> = self
            .module
            .kernels()
            .map(|(_, f)| f.name.as_str())
            .collect();
        RuntimeError::NoKernel {
            name: name.to_string(),
            available: if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            },
        }
    }
}

impl Device {
    /// The CPU JIT device.
    pub fn cpu() -> Device {
        Device::new(DeviceKind::Cpu)
    }
    /// The reference interpreter as a device.
    pub fn interp() -> Device {
        Device::new(DeviceKind::Interp)
    }
    /// LLVM's host JIT as a device.
    pub fn llvm_cpu() -> Device {
        Device::new(DeviceKind::LlvmCpu)
    }
    /// CUDA GPU `ordinal`; an error (never a panic) when there is no CUDA
    /// driver or no such GPU.
    pub fn cuda(ordinal: usize) -> Result<Device, RuntimeError> {
        Ok(Device {
            kind: DeviceKind::Cuda,
            cuda: Some(CudaDevice::open(ordinal)?),
            vulkan: None,
        })
    }
    /// The Vulkan device (the process-wide one of
    /// [`VulkanDevice::shared`]); an error (never a panic) when there is no
    /// Vulkan loader or no usable device.
    pub fn vulkan() -> Result<Device, RuntimeError> {
        Ok(Device {
            kind: DeviceKind::Vulkan,
            cuda: None,
            vulkan: Some(VulkanDevice::shared().map_err(vulkan_err)?),
        })
    }
    /// The opened device of a `vulkan` device.
    pub fn vulkan_device(&self) -> Option<&Arc<VulkanDevice>> {
        self.vulkan.as_ref()
    }
    /// A device of `kind`; for `cuda`, GPU 0 (if it cannot be opened,
    /// [`Device::compile`] reports why; [`Device::cuda`] reports it here).
    pub fn new(kind: DeviceKind) -> Device {
        let cuda = match kind {
            DeviceKind::Cuda => CudaDevice::open(0).ok(),
            _ => None,
        };
        let vulkan = match kind {
            DeviceKind::Vulkan => VulkanDevice::shared().ok(),
            _ => None,
        };
        Device { kind, cuda, vulkan }
    }
    /// The GPU of a `cuda` device: device arrays, streams, events.
    pub fn cuda_device(&self) -> Option<&Arc<CudaDevice>> {
        self.cuda.as_ref()
    }
    pub fn kind(&self) -> DeviceKind {
        self.kind
    }
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// Compiles a (verified, pipeline-processed) module for this device.
    pub fn compile(&self, module: Arc<Module>) -> Result<Program, RuntimeError> {
        let compile_err = |source| RuntimeError::Compile {
            device: self.name(),
            source,
        };
        let (mut cpu, mut llvm, mut cuda, mut vulkan) = (None, None, None, None);
        match self.kind {
            DeviceKind::Cpu => {
                cpu = Some(Arc::new(
                    backend::cpu_compile(&module).map_err(compile_err)?,
                ))
            }
            DeviceKind::LlvmCpu => {
                llvm = Some(Arc::new(
                    crate::llvm_cpu::compile(&module).map_err(compile_err)?,
                ))
            }
            DeviceKind::Cuda => {
                let dev = match &self.cuda {
                    Some(d) => d.clone(),
                    None => CudaDevice::open(0)?,
                };
                cuda = Some(Arc::new(
                    crate::cuda::compile(&dev, &module).map_err(compile_err)?,
                ))
            }
            DeviceKind::Vulkan => {
                let dev = match &self.vulkan {
                    Some(d) => d.clone(),
                    None => VulkanDevice::shared().map_err(vulkan_err)?,
                };
                vulkan = Some(Arc::new(VulkanProgram::new(dev, module.clone())))
            }
            DeviceKind::Interp => {}
        }
        Ok(Program {
            kind: self.kind,
            structs: Arc::new(module.structs.clone()),
            module,
            cpu,
            llvm,
            cuda,
            vulkan,
        })
    }

    /// Launches `kernel` over `dim` (1–4 axes) with `args` in parameter
    /// order, and waits for it to finish.
    pub fn launch(
        &self,
        kernel: &Kernel,
        dim: &[usize],
        args: &[Arg<'_>],
    ) -> Result<(), LaunchError> {
        if kernel.device != self.kind {
            return Err(LaunchError::WrongDevice {
                kernel: kernel.sig.name.clone(),
                loaded: kernel.device.name(),
                device: self.name(),
            });
        }
        let (dims, total) = check_dim(dim)?;
        let padded = dims.map(|d| d as usize);
        check_args(&kernel.sig, args, &padded)?;
        if total == 0 {
            return Ok(());
        }
        match &kernel.exec {
            Exec::Cpu { entry, .. } | Exec::LlvmCpu { entry, .. } => {
                match run_cpu(*entry, &pack_args(&kernel.sig, &dims, args), total) {
                    None => Ok(()),
                    Some(t) => Err(kernel.trap_error(self.name(), t.kind, t.loc, t.index, t.size)),
                }
            }
            Exec::Cuda(k) => match k.launch_host_args(&kernel.sig, &dims, total, args)? {
                None => Ok(()),
                Some(t) => Err(kernel.trap_error(self.name(), t.kind, t.loc, t.index, t.size)),
            },
            Exec::Vulkan(k) => match k.launch(&kernel.sig, &dims, total, args)? {
                None => Ok(()),
                Some(t) => Err(kernel.trap_error(self.name(), t.kind, t.loc, t.index, t.size)),
            },
            Exec::Interp { module, func } => run_interp(kernel, module, *func, dim, args),
        }
    }
}

/// One argument of [`Device::launch_async`]: a device-resident array (of
/// the device that launches) or a value. [`crate::CudaArg`] is this type.
#[derive(Clone, Debug)]
pub enum DeviceArg<'a> {
    /// An array on a `cuda` device.
    Cuda(&'a CudaArray),
    /// An array on a `vulkan` device.
    Vulkan(&'a VulkanArray),
    Value(Value),
}

impl<'a> DeviceArg<'a> {
    /// A device array of either kind: `DeviceArg::array(&cuda_array)`,
    /// `DeviceArg::array(&vulkan_array)`.
    pub fn array(a: impl Into<DeviceArg<'a>>) -> DeviceArg<'a> {
        a.into()
    }
    /// Any [`crate::Element`] by value.
    pub fn of<T: crate::Element>(v: T) -> DeviceArg<'a> {
        DeviceArg::Value(Value::new(v))
    }
    /// The kind of device the array lives on (`None` for a value).
    fn device(&self) -> Option<DeviceKind> {
        match self {
            DeviceArg::Cuda(_) => Some(DeviceKind::Cuda),
            DeviceArg::Vulkan(_) => Some(DeviceKind::Vulkan),
            DeviceArg::Value(_) => None,
        }
    }
    fn view(&self) -> ArgView<'_> {
        match self {
            DeviceArg::Cuda(a) => crate::cuda::device_view(a),
            DeviceArg::Vulkan(a) => a.view(),
            DeviceArg::Value(v) => ArgView::Value(v),
        }
    }
}

impl<'a> From<&'a CudaArray> for DeviceArg<'a> {
    fn from(a: &'a CudaArray) -> Self {
        DeviceArg::Cuda(a)
    }
}

impl<'a> From<&'a VulkanArray> for DeviceArg<'a> {
    fn from(a: &'a VulkanArray) -> Self {
        DeviceArg::Vulkan(a)
    }
}

impl From<Value> for DeviceArg<'_> {
    fn from(v: Value) -> Self {
        DeviceArg::Value(v)
    }
}

/// The views of device arguments for a launch over `dims` on a `device`
/// device, checked exactly as [`check_args`] checks host arguments; then an
/// array of another kind of device is a [`LaunchError::ArgKind`] naming the
/// parameter.
pub(crate) fn device_views<'a>(
    sig: &KernelSig,
    args: &'a [DeviceArg<'_>],
    dims: &[i32; 4],
    device: DeviceKind,
) -> Result<Vec<ArgView<'a>>, LaunchError> {
    let views: Vec<_> = args.iter().map(DeviceArg::view).collect();
    check_views(sig, &views, &dims.map(|d| d as usize))?;
    for (a, p) in args.iter().zip(&sig.params) {
        match a.device() {
            Some(kind) if kind != device => {
                return Err(LaunchError::ArgKind {
                    param: p.name.clone(),
                    expected: format!("an array on the `{}` device", device.name()),
                    got: format!("an array on the `{}` device", kind.name()),
                })
            }
            _ => {}
        }
    }
    Ok(views)
}

impl Device {
    /// Launches `kernel` over `dim` with device-resident arrays and values
    /// ([`DeviceArg`]), checked exactly as [`Device::launch`] checks host
    /// arguments (the same errors, naming the parameter).
    ///
    /// * `cuda`: queued on the device's stream, returns without waiting
    ///   (see [`CudaDevice::synchronize`]), except for code compiled with
    ///   checks, which waits and returns the first failure as
    ///   [`LaunchError::Trap`].
    /// * `vulkan`: submitted and waited for (one submission per launch), so
    ///   the arrays can be read back at once; a checked kernel's failure is
    ///   a [`LaunchError::Trap`] as with host arrays.
    pub fn launch_async(
        &self,
        kernel: &Kernel,
        dim: &[usize],
        args: &[DeviceArg<'_>],
    ) -> Result<(), LaunchError> {
        let Exec::Vulkan(k) = &kernel.exec else {
            return self.launch_cuda_async(kernel, dim, args);
        };
        if self.kind != DeviceKind::Vulkan {
            return Err(LaunchError::WrongDevice {
                kernel: kernel.sig.name.clone(),
                loaded: kernel.device.name(),
                device: self.name(),
            });
        }
        let (dims, total) = check_dim(dim)?;
        let views = device_views(&kernel.sig, args, &dims, DeviceKind::Vulkan)?;
        if total == 0 {
            return Ok(());
        }
        match k.launch_resident(&kernel.sig, &dims, &views, total, args)? {
            None => Ok(()),
            Some(t) => Err(kernel.trap_error(self.name(), t.kind, t.loc, t.index, t.size)),
        }
    }
}

/// Launch dims padded with 1s, and the thread count.
pub(crate) fn check_dim(dim: &[usize]) -> Result<([i32; 4], usize), LaunchError> {
    if dim.is_empty() || dim.len() > MAX_DIMS {
        return Err(LaunchError::DimRank(dim.len()));
    }
    let total = dim
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&t| t <= i32::MAX as usize && dim.iter().all(|&d| d <= i32::MAX as usize))
        .ok_or_else(|| LaunchError::DimTooLarge { dim: dim.to_vec() })?;
    let mut dims = [1i32; 4];
    for (k, &d) in dim.iter().enumerate() {
        dims[k] = d as i32;
    }
    Ok((dims, total))
}

/// A launch argument as checking and packing see it: an array's type,
/// shape, byte strides and data address (host or device), or a value.
#[derive(Copy, Clone, Debug)]
pub(crate) enum ArgView<'a> {
    Array {
        dtype: &'a Dtype,
        shape: &'a [usize],
        strides: &'a [i64],
        data: u64,
        /// An SoA array's plane count and plane stride in bytes (the
        /// descriptor's extra last axis); `None` for AoS.
        planes: Option<(usize, i64)>,
    },
    Value(&'a Value),
}

impl<'a> ArgView<'a> {
    pub(crate) fn of(a: &'a Arg<'_>) -> ArgView<'a> {
        match a {
            Arg::Array(arr) => arr.meta().view(arr.data_ptr() as usize as u64),
            Arg::Value(v) => ArgView::Value(v),
        }
    }
}

impl ArgView<'_> {
    /// An array's number of axes (0 for a value).
    fn ndim(&self) -> usize {
        match self {
            ArgView::Array { shape, .. } => shape.len(),
            ArgView::Value(_) => 0,
        }
    }
}

fn describe_arg(a: &ArgView<'_>) -> String {
    match a {
        ArgView::Array {
            dtype,
            shape,
            planes,
            ..
        } => format!(
            "array{}<{}>{}",
            shape.len(),
            dtype,
            if planes.is_some() { " (SoA)" } else { "" }
        ),
        ArgView::Value(v) => format!("a value of type {}", v.dtype()),
    }
}

/// Checks `args` against the signature for a launch over `dims` (padded
/// with 1s); see the crate docs for the rules.
pub fn check_args(sig: &KernelSig, args: &[Arg<'_>], dims: &[usize; 4]) -> Result<(), LaunchError> {
    let views: Vec<_> = args.iter().map(ArgView::of).collect();
    check_views(sig, &views, dims)
}

/// [`check_args`] on argument views (host or device arrays alike).
pub(crate) fn check_views(
    sig: &KernelSig,
    args: &[ArgView<'_>],
    dims: &[usize; 4],
) -> Result<(), LaunchError> {
    let threads: usize = dims.iter().product();
    if args.len() > sig.params.len() {
        return Err(LaunchError::ExtraArgs {
            kernel: sig.name.clone(),
            last_param: sig
                .params
                .last()
                .map_or("(none)".into(), |p| p.name.clone()),
            expected: sig.params.len(),
            got: args.len(),
        });
    }
    for (i, p) in sig.params.iter().enumerate() {
        let Some(a) = args.get(i) else {
            return Err(LaunchError::MissingArg {
                kernel: sig.name.clone(),
                param: p.name.clone(),
                expected: sig.params.len(),
                got: args.len(),
            });
        };
        let expected = || type_name(p.ty, &sig.structs);
        let (want, got) = match (p.ty, a) {
            (Type::Array(at), ArgView::Array { dtype, shape, .. }) => {
                let want = Dtype::with_structs(at.elem, sig.structs.clone());
                if want.same_as(dtype) && shape.len() != at.ndim as usize {
                    return Err(LaunchError::ArgNdim {
                        param: p.name.clone(),
                        expected: at.ndim as usize,
                        got: shape.len(),
                        got_type: describe_arg(a),
                    });
                }
                if let ArgView::Array { planes, .. } = a {
                    let kernel = sig.param_layout(i);
                    let array = if planes.is_some() {
                        ArrayLayout::Soa
                    } else {
                        ArrayLayout::Aos
                    };
                    if want.same_as(dtype) && kernel != array {
                        return Err(LaunchError::ArgLayout {
                            param: p.name.clone(),
                            kernel,
                            array,
                        });
                    }
                }
                (want, *dtype)
            }
            (Type::Array(_), ArgView::Value(_)) => {
                return Err(LaunchError::ArgKind {
                    param: p.name.clone(),
                    expected: format!("an array {}", expected()),
                    got: describe_arg(a),
                })
            }
            (ty, ArgView::Array { .. }) => {
                return Err(LaunchError::ArgKind {
                    param: p.name.clone(),
                    expected: format!("a value of type {}", type_name(ty, &sig.structs)),
                    got: describe_arg(a),
                })
            }
            (ty, ArgView::Value(v)) => {
                let elem = ty
                    .as_elem()
                    .unwrap_or(weft_ir::ElemType::Scalar(weft_ir::Scalar::Bool));
                (Dtype::with_structs(elem, sig.structs.clone()), v.dtype())
            }
        };
        if !want.same_as(got) {
            if want.same_name_other_layout(got) {
                return Err(LaunchError::StructLayout {
                    param: p.name.clone(),
                    name: want.to_string(),
                    detail: format!(
                        "kernel: {}, argument: {}",
                        struct_fields(&want),
                        struct_fields(got)
                    ),
                });
            }
            let got = match a {
                ArgView::Array { shape, .. } => format!("array{}<{}>", shape.len(), got),
                ArgView::Value(_) => got.to_string(),
            };
            return Err(LaunchError::ArgType {
                param: p.name.clone(),
                expected: expected(),
                got,
            });
        }
    }
    for rule in &sig.length_rules {
        if let Some(ArgView::Array { shape, .. }) = args.get(rule.param) {
            let len = shape.get(rule.axis as usize).copied().unwrap_or(1);
            let required = rule.range.size(dims);
            if threads > 0 && len < required {
                return Err(LaunchError::ArrayTooShort {
                    param: sig.params[rule.param].name.clone(),
                    axis: rule.axis as usize,
                    len,
                    required,
                });
            }
        }
    }
    Ok(())
}

fn struct_fields(d: &Dtype) -> String {
    match d.ty() {
        Type::Struct(id) => match d.structs().get(id) {
            Some(def) => {
                let fs: Vec<_> = def
                    .fields
                    .iter()
                    .map(|f| format!("{}: {}", f.name, type_name(f.ty, d.structs())))
                    .collect();
                format!("{{{}}}", fs.join(", "))
            }
            None => d.to_string(),
        },
        _ => d.to_string(),
    }
}

/// A 16-byte aligned argument block.
#[derive(Copy, Clone, Default)]
#[repr(C, align(16))]
pub(crate) struct Block([u8; 16]);

/// Packs the argument block: launch bounds, then each parameter at its
/// offset (arrays as `ArrayDesc`).
fn pack_args(sig: &KernelSig, dims: &[i32; 4], args: &[Arg<'_>]) -> Vec<Block> {
    let views: Vec<_> = args.iter().map(ArgView::of).collect();
    pack_views(sig, dims, &views)
}

/// [`pack_args`] on argument views: an array's `ArrayDesc.data` is the
/// view's address (a device pointer for a device array).
pub(crate) fn pack_views(sig: &KernelSig, dims: &[i32; 4], args: &[ArgView<'_>]) -> Vec<Block> {
    let bytes = pack_bytes(sig, dims, args);
    let mut block = vec![Block::default(); bytes.len().div_ceil(16)];
    for (dst, src) in block.iter_mut().zip(bytes.chunks(16)) {
        dst.0[..src.len()].copy_from_slice(src);
    }
    block
}

/// [`pack_views`] as plain bytes (`sig.layout.size` of them).
pub(crate) fn pack_bytes(sig: &KernelSig, dims: &[i32; 4], args: &[ArgView<'_>]) -> Vec<u8> {
    let mut bytes = vec![0u8; sig.layout.size as usize];
    for (k, d) in dims.iter().enumerate() {
        bytes[k * 4..k * 4 + 4].copy_from_slice(&d.to_le_bytes());
    }
    for (a, &off) in args.iter().zip(&sig.layout.offsets) {
        let off = off as usize;
        match a {
            ArgView::Array {
                shape,
                strides,
                data,
                planes,
                ..
            } => {
                let (mut shape, mut strides) = abi_shape_of(shape, strides);
                if let Some((k, stride)) = *planes {
                    // The plane axis after the user's (at most 3, checked
                    // when the array was made SoA).
                    let axis = a.ndim().min(3);
                    shape[axis] = k as i32;
                    strides[axis] = stride;
                }
                bytes[off..off + 8].copy_from_slice(&data.to_le_bytes());
                for k in 0..4 {
                    let s = off + ARRAY_DESC_SHAPE as usize + 4 * k;
                    bytes[s..s + 4].copy_from_slice(&shape[k].to_le_bytes());
                    let s = off + ARRAY_DESC_STRIDES as usize + 8 * k;
                    bytes[s..s + 8].copy_from_slice(&strides[k].to_le_bytes());
                }
            }
            ArgView::Value(v) => bytes[off..off + v.bytes().len()].copy_from_slice(v.bytes()),
        }
    }
    bytes
}

fn vulkan_err(e: crate::vulkan::VulkanError) -> RuntimeError {
    RuntimeError::Device {
        device: "vulkan",
        source: Box::new(e),
    }
}

/// The descriptor's shape and strides as the ABI has them (an SoA array's
/// plane axis included): unused axes shape 1, stride 0.
fn abi_shape(arr: &Array) -> ([i32; 4], [i64; 4]) {
    let (shape, strides) = arr.desc_shape_strides();
    abi_shape_of(&shape, &strides)
}

fn abi_shape_of(shape_in: &[usize], strides_in: &[i64]) -> ([i32; 4], [i64; 4]) {
    let mut shape = [1i32; 4];
    let mut strides = [0i64; 4];
    for (k, (&n, &s)) in shape_in.iter().zip(strides_in).enumerate() {
        shape[k] = n as i32;
        strides[k] = s;
    }
    (shape, strides)
}

/// The argument block's address, shared by the chunks of one launch.
#[derive(Copy, Clone)]
struct BlockPtr(*const u8);
// SAFETY: the block is only read by the kernel, and it outlives the launch
// (`run_cpu` waits for every chunk before returning).
unsafe impl Send for BlockPtr {}
// SAFETY: as above: shared read-only use.
unsafe impl Sync for BlockPtr {}

/// Runs the launch's thread range in chunks over the rayon pool; returns
/// the first bounds-checked-mode failure any chunk recorded (see
/// `weft_backend_cpu::trap`: each chunk's OS thread clears its slot before
/// the call and takes it right after).
fn run_cpu(entry: KernelEntry, block: &[Block], total: usize) -> Option<TrapRecord> {
    let ptr = BlockPtr(block.as_ptr().cast::<u8>());
    let chunks = (rayon::current_num_threads() * 4).min(total).max(1);
    let per = total.div_ceil(chunks);
    let run = move |start: usize, end: usize| {
        let p = ptr;
        clear_trap();
        // SAFETY: `entry` is a kernel compiled for this signature; the block
        // was packed and checked against that signature, and the arrays it
        // points to are borrowed for the whole launch. Chunks cover disjoint
        // thread ranges; races between threads are the kernel's own
        // semantics (atomics are atomic).
        unsafe { entry(p.0, start as i64, end as i64) };
        take_trap()
    };
    if chunks == 1 {
        run(0, total)
    } else {
        // The failure of the lowest thread range wins, so the report does
        // not depend on scheduling.
        (0..chunks)
            .into_par_iter()
            .map(|c| {
                let start = c * per;
                let end = (start + per).min(total);
                if start < end {
                    run(start, end)
                } else {
                    None
                }
            })
            .reduce(|| None, |a, b| a.or(b))
    }
}

fn run_interp(
    kernel: &Kernel,
    module: &Module,
    func: FuncId,
    dim: &[usize],
    args: &[Arg<'_>],
) -> Result<(), LaunchError> {
    let sig = &kernel.sig;
    let mut iargs = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        match a {
            Arg::Array(arr) => {
                if let Some(j) = args[..i]
                    .iter()
                    .position(|b| matches!(b, Arg::Array(o) if std::ptr::eq(*o, *arr)))
                {
                    return Err(LaunchError::Aliased {
                        param: sig.params[i].name.clone(),
                        other: sig.params[j].name.clone(),
                        device: "interp",
                    });
                }
                let (shape, strides) = abi_shape(arr);
                // SAFETY: `Array` is not `Sync` and this launch is the only
                // user of its storage until it returns; the array appears in
                // no other argument (checked above), so this is the only
                // mutable view of it.
                let data =
                    unsafe { std::slice::from_raw_parts_mut(arr.data_ptr(), arr.byte_len()) };
                iargs.push(ArgValue::Array {
                    data,
                    shape,
                    strides,
                });
            }
            Arg::Value(v) => iargs.push(ArgValue::Value(v.bytes().to_vec())),
        }
    }
    let dim: Vec<i32> = dim.iter().map(|&d| d as i32).collect();
    debug_assert_eq!(module.funcs[func].kind, FuncKind::Kernel);
    backend::interp_run(module, func, &dim, &mut iargs).map_err(|source| {
        // The interpreter checks every index (always) and the bounds-checked
        // mode's division tests: both are reported as `Trap`.
        use weft_ir::interp::InterpError;
        match source.downcast_ref::<InterpError>() {
            Some(InterpError::OutOfBounds {
                loc,
                axis,
                index,
                shape,
                ..
            }) => kernel.trap_error(
                "interp",
                weft_ir::TrapKind::OutOfBounds { axis: *axis as u8 },
                *loc,
                *index,
                *shape as i64,
            ),
            Some(InterpError::DivByZero { loc, .. }) => {
                kernel.trap_error("interp", weft_ir::TrapKind::DivByZero, *loc, 0, 0)
            }
            _ => LaunchError::Exec {
                kernel: sig.name.clone(),
                device: "interp",
                source,
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_ir::types::ArrayType;
    use weft_ir::{ElemType, Param, Scalar, SoaParam};

    /// `k(p: array2<vec3>)` with `p` lowered to SoA: `array3<f32>`.
    fn soa_sig() -> KernelSig {
        let structs = Arc::new(StructTable::new());
        let lowered = Type::Array(ArrayType {
            elem: ElemType::Scalar(Scalar::F32),
            ndim: 3,
        });
        KernelSig {
            name: "k".into(),
            layout: weft_ir::layout::arg_layout(&[lowered], &structs),
            params: vec![Param {
                name: "p".into(),
                ty: Type::Array(ArrayType {
                    elem: ElemType::Vec(3, Scalar::F32),
                    ndim: 2,
                }),
            }],
            structs,
            length_rules: vec![],
            soa_params: vec![SoaParam {
                param: 0,
                elem: ElemType::Vec(3, Scalar::F32),
                ndim: 2,
            }],
        }
    }

    #[test]
    fn an_soa_array_packs_its_plane_axis() {
        let sig = soa_sig();
        let d = Dtype::new(ElemType::Vec(3, Scalar::F32));
        let a = Array::zeros_with_layout(d.clone(), &[4, 5], ArrayLayout::Soa).unwrap();
        let args = [Arg::array(&a)];
        check_args(&sig, &args, &[20, 1, 1, 1]).unwrap();
        let views: Vec<_> = args.iter().map(ArgView::of).collect();
        let bytes = pack_bytes(&sig, &[20, 1, 1, 1], &views);
        let off = sig.layout.offsets[0] as usize;
        let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let i64_at = |o: usize| i64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
        let shape: Vec<_> = (0..4).map(|k| i32_at(off + 8 + 4 * k)).collect();
        let strides: Vec<_> = (0..4).map(|k| i64_at(off + 24 + 8 * k)).collect();
        // 20 scalars per plane (80 bytes, under the skew threshold).
        assert_eq!(shape, [4, 5, 3, 1]);
        assert_eq!(strides, [20, 4, 80, 0]);
        assert_eq!(abi_shape(&a), ([4, 5, 3, 1], [20, 4, 80, 0]));
        // The AoS array is refused, naming the parameter.
        let aos = Array::zeros(d, &[4, 5]).unwrap();
        let e = check_args(&sig, &[Arg::array(&aos)], &[20, 1, 1, 1]).unwrap_err();
        assert_eq!(e.param(), Some("p"));
        assert!(matches!(e, LaunchError::ArgLayout { .. }), "{e}");
    }
}
