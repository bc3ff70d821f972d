//! # weft — Warp kernels compiled to native code
//!
//! Weft compiles kernels written in NVIDIA Warp's Python kernel language
//! (`@wp.kernel`, `@wp.func`, `@wp.struct`, `wp.tid()`, `wp.vec3`, ...) and
//! runs them. This crate is the public API: a [`Compiler`] turns source into
//! a [`Module`]; a [`Device`] loads a [`Kernel`] from it (compiling for that
//! device once per module) and launches it over [`Array`]s and values.
//!
//! ```
//! use weft::{Arg, Array, Compiler, Device};
//!
//! let source = r#"
//! import warp as wp
//!
//! @wp.kernel
//! def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
//!     i = wp.tid()
//!     y[i] = a * x[i] + y[i]
//! "#;
//! let module = Compiler::new().compile("saxpy.py", source)?;
//! assert_eq!(module.kernel_names(), vec!["saxpy".to_string()]);
//!
//! let cpu = Device::cpu();
//! let kernel = cpu.load(&module, "saxpy")?;
//! let n = 1000;
//! let x = Array::from_slice(&(0..n).map(|i| i as f32).collect::<Vec<_>>(), &[n])?;
//! let y = Array::from_slice(&vec![1.0f32; n], &[n])?;
//! cpu.launch(&kernel, &[n], &[Arg::array(&x), Arg::array(&y), Arg::f32(2.0)])?;
//!
//! let y = y.to_vec::<f32>()?;
//! assert_eq!(y[10], 21.0);
//!
//! // Arguments are checked against the kernel's signature before it runs.
//! let err = cpu.launch(&kernel, &[n], &[Arg::array(&x)]).unwrap_err();
//! assert!(err.to_string().contains("`y`"));
//! # Ok::<(), weft::Error>(())
//! ```
//!
//! # Devices
//!
//! [`Device::open`] takes a name of the registry ([`devices`]): `cpu`
//! (Cranelift JIT, launches spread over all cores; also [`Device::cpu`]),
//! `interp` (the reference interpreter, single-threaded: the oracle the
//! other devices are tested against; also [`Device::interp`]), and, in a
//! build with their cargo features, `llvm-cpu` (the LLVM backend's host
//! JIT, launched like `cpu`; feature `llvm`), `cuda` / `cuda:N` (PTX on an
//! NVIDIA GPU; feature `llvm`) and `vulkan` (the HLSL backend's shaders on
//! a Vulkan device; feature `vulkan`, on by default). Every device takes
//! host [`Array`]s ([`Device::launch`]: copied to the device and back where
//! it has its own memory) and its own [`DeviceArray`]s
//! ([`Device::launch_async`]: they stay in device memory between
//! launches). A device this build does not have is an error that names the
//! feature to enable.
//!
//! # Cargo features
//!
//! * `vulkan` (default): the `vulkan` device (`ash`; the loader is opened
//!   at run time, so the build needs nothing but Rust).
//! * `llvm`: the LLVM backend (links LLVM 19): `llvm-cpu`, `cuda`,
//!   [`Module::ptx`] and [`Module::llvm_ir`].
//!
//! The default build needs only Rust and a C toolchain.

mod build_info;
pub mod debug;
mod pipeline;
mod tape;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use weft_cache::{Cache, CacheKey};

pub use build_info::{build_info, BuildInfo};
pub use pipeline::{Diagnostics, PassError};
pub use tape::Tape;
pub use weft_backend_hlsl::{Options as HlslOptions, Shader as HlslShader};
/// The LLVM backend's own crate (feature `llvm`), for the tools and tests
/// that drive it below the facade (its host JIT's text, `ptxas`).
#[cfg(feature = "llvm")]
pub use weft_backend_llvm as backend_llvm;
#[cfg(feature = "llvm")]
pub use weft_backend_llvm::{Artifact as PtxArtifact, Kernel as PtxKernel, Options as PtxOptions};
pub use weft_ir as ir;
pub use weft_passes::adjoint::AdjointError;
pub use weft_passes::{LayoutOptions, OptLevel};
/// A type's name in messages (`vec3<f32>`, a struct's name, ...).
pub use weft_runtime::dtype::type_name;
pub use weft_runtime::{
    device_names, devices, Arg, Array, ArrayError, ArrayLayout, ArrayMeta, BackendError,
    CacheLocation, CodeTier, DeviceArg, DeviceArray, DeviceDesc, DeviceEntry, DeviceOptions, Dtype,
    Element, Kernel, KernelSig, LaunchError, RuntimeError, ScalarElem, Value,
};

/// The on-disk compile cache under [`Compiler::with_cache`] and the
/// devices: its directory, entries and keys (`weft cache`), and the
/// backend artifacts it holds.
pub mod cache {
    pub use weft_cache::{decode_entry, Cache, CacheError, CacheKey, KindInfo, Lookup};
    /// PTX through the cache (feature `llvm`).
    #[cfg(feature = "llvm")]
    pub use weft_runtime::cached::ptx;
    /// SPIR-V through the cache.
    pub use weft_runtime::cached::spirv;
}

/// The external tools the backends call, as found on this machine
/// (`glslangValidator`, CUDA's libdevice and `ptxas`).
pub mod tools {
    pub use weft_backend_hlsl::find_glslang;
    #[cfg(feature = "llvm")]
    pub use weft_backend_llvm::{find_libdevice, find_ptxas, ptxas_info};
}

/// Any error of the Weft API.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The source does not compile (diagnostics with source spans).
    #[error("{0}")]
    Frontend(Diagnostics),
    /// The optimisation pipeline failed.
    #[error(transparent)]
    Pass(#[from] PassError),
    /// A backend failed outside a device (e.g. emitting CLIF text).
    #[error("{0}")]
    Backend(BackendError),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error(transparent)]
    Array(#[from] ArrayError),
    /// The backward (adjoint) kernels cannot be made.
    #[error(transparent)]
    Adjoint(#[from] AdjointError),
    /// A gradient that cannot be used as asked (a seed of the wrong shape,
    /// an array without a gradient, a loss that is not one value).
    #[error("{0}")]
    Gradient(String),
    /// Something this build of Weft does not have (its cargo feature is
    /// off).
    #[error("{what} needs the `{feature}` feature, which this build of Weft does not have (e.g. `cargo build --features {feature}`)")]
    NotCompiled { what: String, feature: &'static str },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Whether a device's backend cannot express the kernel (a typed
    /// `Unsupported`, never a different result): it does not run there.
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Error::Runtime(r) if r.is_unsupported())
    }
    /// The error as text; frontend diagnostics are rendered rustc-style
    /// (with ANSI colors if `color`).
    pub fn render(&self, color: bool) -> String {
        match self {
            Error::Frontend(d) => d.render(color),
            e => format!("error: {e}"),
        }
    }
    /// An I/O error about `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Options of a [`Compiler`].
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// Run the optimising pipeline (inlining and the passes after it);
    /// default true. Off keeps calls, e.g. to step into funcs.
    pub opt: bool,
    /// Write the IR after each pass to numbered files in this directory.
    pub dump_dir: Option<PathBuf>,
    /// Bounds-checked mode: every array index and integer divisor is tested
    /// before use; a failure stops that thread and the launch returns
    /// [`LaunchError::Trap`] (kernel, file:line, index, axis, size). Default
    /// off; off, the generated code is unchanged. Supported on every device
    /// (see `docs/debugging.md`).
    pub checked: bool,
    /// The pass pipeline's level (default [`OptLevel::O2`]; `O0` runs no
    /// pass, for the debugger).
    pub opt_level: OptLevel,
    /// Fast math (default off): float arithmetic of every kernel carries
    /// the `contract` and `afn` flags (`weft_passes::fastmath`), which every
    /// backend but the interpreter may use (FMA contraction, approximate
    /// functions). Off, results are the interpreter's, bit for bit.
    pub fast_math: bool,
    /// Deterministic launches for every kernel (default off; a file's
    /// `wp.set_module_options({"deterministic": ...})` turns it on for its
    /// own kernels): on the host devices a kernel's results then do not
    /// depend on the number of threads or their schedule, float atomics
    /// included (`docs/runtime.md`, "Deterministic launches"); the GPU
    /// devices refuse a kernel whose float atomics it would change, with
    /// a typed `Unsupported`.
    pub deterministic: bool,
    /// Kernels made fast even when `fast_math` is off (per-kernel fast
    /// math); default none.
    pub fast_math_kernels: Vec<String>,
    /// Memory layout of kernel array parameters (default: every array AoS,
    /// Warp's layout). An array parameter made SoA by it (or by a
    /// `# weft: layout=soa` hint on the parameter) takes an [`Array`] in
    /// [`ArrayLayout::Soa`] at launch ([`Array::to_layout`]); see
    /// `docs/runtime.md`.
    pub layout: LayoutOptions,
    /// The backward module differentiates dynamic loops exactly, keeping
    /// at most this many states per loop and thread (beyond Warp, whose
    /// rule is exact only for accumulations; `docs/autodiff.md`). Default
    /// `None`: Warp's rule. No effect on the forward module.
    pub exact_loops: Option<u32>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            opt: true,
            dump_dir: None,
            checked: false,
            opt_level: OptLevel::O2,
            fast_math: false,
            deterministic: false,
            fast_math_kernels: Vec::new(),
            layout: LayoutOptions::default(),
            exact_loops: None,
        }
    }
}

/// Compiles kernel source to a [`Module`].
#[derive(Clone, Debug, Default)]
pub struct Compiler {
    options: CompileOptions,
    /// The on-disk cache of optimized IR, if any ([`Compiler::with_cache`]).
    cache: Option<Cache>,
}

impl Compiler {
    pub fn new() -> Compiler {
        Compiler::default()
    }
    pub fn with_options(options: CompileOptions) -> Compiler {
        Compiler {
            options,
            cache: None,
        }
    }
    /// Keeps the optimized IR of each compiled source in the compile cache
    /// at `location` (an entry of kind `ir`, keyed by file name, source,
    /// options, Weft version and build): a later compile of the same
    /// source, in any process, parses and verifies that IR instead of
    /// running the frontend and the passes. An entry that fails to parse or
    /// verify is rebuilt. Not used while `dump_dir` is set (the passes must
    /// run to dump); a cache that cannot be opened is not used.
    pub fn with_cache(mut self, location: CacheLocation) -> Compiler {
        self.cache = location.open();
        self
    }
    /// [`Compiler::with_cache`] with the default cache.
    pub fn with_default_cache(self) -> Compiler {
        self.with_cache(CacheLocation::Default)
    }
    /// The directory of the compile cache in use, if any.
    pub fn cache_dir(&self) -> Option<&Path> {
        self.cache.as_ref().map(Cache::dir)
    }
    pub fn options(&self) -> &CompileOptions {
        &self.options
    }
    /// The pass pipeline these options run, one step a line (what `weft
    /// build --print-pipeline` prints); `(no passes)` when empty.
    pub fn describe_pipeline(&self) -> String {
        pipeline::describe_pipeline(&self.options)
    }
    /// Source → IR (frontend) → pass pipeline. `file_name` is used in
    /// diagnostics and source locations.
    pub fn compile(&self, file_name: &str, source: &str) -> Result<Module, Error> {
        self.compile_cached(file_name, source).map(|(m, _)| m)
    }
    /// [`Compiler::compile`], also saying whether the IR came from the
    /// disk cache.
    pub fn compile_cached(&self, file_name: &str, source: &str) -> Result<(Module, bool), Error> {
        let cache = self
            .cache
            .as_ref()
            .filter(|_| self.options.dump_dir.is_none());
        let key = cache.map(|_| self.ir_cache_key(file_name, source));
        let origin = Some(Arc::new(Origin {
            compiler: Compiler::with_options(self.options.clone()),
            file_name: file_name.to_string(),
            source: source.to_string(),
        }));
        if let (Some(c), Some(k)) = (cache, &key) {
            if let Some(m) = c.get(k).and_then(|b| parse_cached_ir(&b)) {
                return Ok((Module::from_ir(m).with_origin(origin), true));
            }
        }
        let mut m = self.compile_raw(file_name, source)?;
        pipeline::passes(&mut m, &self.options)?;
        if self.options.checked {
            pipeline::bounds_check(&mut m)?;
        }
        if let (Some(c), Some(k)) = (cache, &key) {
            // Return the module exactly as a later hit will read it back
            // (value numbering included), so every artifact made from it
            // (HLSL text, and the SPIR-V keyed by that text) is the same
            // whether the IR was built or read; IR that does not read back
            // is not stored.
            let text = pipeline::print_ir(&m);
            if let Some(back) = parse_cached_ir(text.as_bytes()) {
                // A failed store only costs time later.
                let _ = c.put(k, text.as_bytes());
                m = back;
            }
        }
        Ok((Module::from_ir(m).with_origin(origin), false))
    }
    /// The backward module of `source`: for each kernel that allows it
    /// (Warp's `enable_backward`), a kernel of the same name computing its
    /// adjoint (`weft_passes::adjoint`; `docs/autodiff.md`), through the
    /// same pass pipeline as the forward module.
    pub fn compile_backward(&self, file_name: &str, source: &str) -> Result<Module, Error> {
        let raw = pipeline::frontend_for_backward(file_name, source)?;
        self.backward_of(&raw)
    }
    fn adjoint_options(&self) -> weft_passes::adjoint::AdjointOptions {
        weft_passes::adjoint::AdjointOptions {
            exact_loops: self.options.exact_loops,
            ..Default::default()
        }
    }
    /// The backward module of `source` before the pass pipeline.
    pub fn compile_backward_raw(&self, file_name: &str, source: &str) -> Result<ir::Module, Error> {
        let raw = pipeline::frontend_for_backward(file_name, source)?;
        Ok(weft_passes::adjoint::adjoint_module(
            &raw,
            &self.adjoint_options(),
        )?)
    }
    /// [`Compiler::compile_backward`] of IR as the frontend made it.
    fn backward_of(&self, raw: &ir::Module) -> Result<Module, Error> {
        let mut m = weft_passes::adjoint::adjoint_module(raw, &self.adjoint_options())?;
        pipeline::passes(&mut m, &self.options)?;
        if self.options.checked {
            pipeline::bounds_check(&mut m)?;
        }
        Ok(Module::from_ir(m))
    }
    /// The cache key (hex) of `source`'s optimized IR under these options.
    pub fn ir_key(&self, file_name: &str, source: &str) -> String {
        self.ir_cache_key(file_name, source).hex()
    }
    fn ir_cache_key(&self, file_name: &str, source: &str) -> CacheKey {
        let o = &self.options;
        let mut opts = if o.checked {
            format!("opt={} checked", o.opt)
        } else {
            format!("opt={}", o.opt)
        };
        // Default options keep the keys they had before these options.
        if o.opt_level != OptLevel::O2 {
            opts.push_str(&format!(" {}", o.opt_level.name()));
        }
        if o.fast_math {
            opts.push_str(" fast-math");
        }
        if !o.fast_math_kernels.is_empty() {
            opts.push_str(&format!(" fast-math={}", o.fast_math_kernels.join(",")));
        }
        if o.deterministic {
            opts.push_str(" deterministic");
        }
        if o.layout.default != ArrayLayout::Aos {
            opts.push_str(" layout=soa");
        }
        for (k, p, l) in &o.layout.params {
            let l = if *l == ArrayLayout::Soa { "soa" } else { "aos" };
            opts.push_str(&format!(" layout:{k}.{p}={l}"));
        }
        CacheKey::of_kind(
            "ir",
            &[file_name.as_bytes(), source.as_bytes(), opts.as_bytes()],
        )
    }
    /// The frontend's IR, before any pass.
    pub fn compile_raw(&self, file_name: &str, source: &str) -> Result<ir::Module, Error> {
        pipeline::frontend(file_name, source)
    }
    /// Reads and compiles a file.
    pub fn compile_file(&self, path: impl AsRef<std::path::Path>) -> Result<Module, Error> {
        let path = path.as_ref();
        let source = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        self.compile(&path.display().to_string(), &source)
    }
}

/// Parses and verifies cached IR text; `None` if it is not UTF-8, does not
/// parse or does not verify.
fn parse_cached_ir(bytes: &[u8]) -> Option<ir::Module> {
    let text = std::str::from_utf8(bytes).ok()?;
    let m = ir::text::parse_module(text).ok()?;
    ir::verify::verify_module(&m).ok()?;
    Some(m)
}

/// A compiled module: its IR, and its per-device compiled programs (made on
/// first use by [`Device::load`]).
pub struct Module {
    ir: Arc<ir::Module>,
    /// Compiled programs, by the device they were compiled for.
    programs: Mutex<Vec<(weft_runtime::Device, Arc<weft_runtime::Program>)>>,
    /// Where the module came from, to make its backward module from.
    origin: Option<Arc<Origin>>,
    /// The backward module, made on first use ([`Module::backward`]).
    backward: Mutex<Option<Arc<Module>>>,
}

/// The source and options a [`Module`] was compiled from.
struct Origin {
    compiler: Compiler,
    file_name: String,
    source: String,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("kernels", &self.kernel_names())
            .finish()
    }
}

impl Module {
    /// Wraps IR made elsewhere (it should be verified and pipeline-processed).
    pub fn from_ir(m: ir::Module) -> Module {
        Module {
            ir: Arc::new(m),
            programs: Mutex::new(Vec::new()),
            origin: None,
            backward: Mutex::new(None),
        }
    }
    fn with_origin(mut self, origin: Option<Arc<Origin>>) -> Module {
        self.origin = origin;
        self
    }
    /// The backward module: for each kernel that allows it, a kernel of the
    /// same name computing its adjoint ([`Compiler::compile_backward`]),
    /// made on first use from the source this module was compiled from
    /// (or, for [`Module::from_ir`], from its IR). The forward module's
    /// compile pays nothing for it.
    pub fn backward(&self) -> Result<Arc<Module>, Error> {
        let mut slot = self.backward.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(b) = slot.as_ref() {
            return Ok(b.clone());
        }
        let b = Arc::new(match &self.origin {
            Some(o) => o.compiler.compile_backward(&o.file_name, &o.source)?,
            None => Compiler::new().backward_of(&self.ir)?,
        });
        *slot = Some(b.clone());
        Ok(b)
    }
    pub fn ir(&self) -> &ir::Module {
        &self.ir
    }
    /// The IR, shared (a debugger's worker thread holds it).
    pub(crate) fn ir_shared(&self) -> Arc<ir::Module> {
        self.ir.clone()
    }
    /// The same module computing in float64 where it computes in float32
    /// (`weft_passes::promote`), for gradient checks; `None` when it
    /// reinterprets float32 bits. Its struct fields are promoted too.
    pub fn to_f64(&self) -> Option<Module> {
        weft_passes::promote::to_f64(&self.ir).map(Module::from_ir)
    }
    /// The IR in its text form.
    pub fn ir_text(&self) -> String {
        pipeline::print_ir(&self.ir)
    }
    /// The kernels' names, in definition order.
    pub fn kernel_names(&self) -> Vec<String> {
        self.ir.kernels().map(|(_, f)| f.name.clone()).collect()
    }
    /// The Cranelift IR the CPU backend generates for this module.
    pub fn clif_text(&self) -> Result<String, Error> {
        pipeline::emit_clif(&self.ir)
    }
    /// The HLSL compute shader of kernel `kernel` (DirectX 12; the `vulkan`
    /// device compiles it to SPIR-V). What HLSL cannot express exactly is
    /// an error that [`Error::is_unsupported`] recognizes.
    pub fn hlsl(&self, kernel: &str, options: &HlslOptions) -> Result<HlslShader, Error> {
        let info = pipeline::verify(&self.ir)?;
        weft_backend_hlsl::compile_kernel(&self.ir, &info, kernel, options)
            .map_err(|e| Error::Runtime(RuntimeError::backend("hlsl", e.is_unsupported(), e)))
    }
    /// PTX for NVIDIA GPUs (through the default compile cache), with the
    /// options' architecture (`sm_70` … `sm_90`).
    #[cfg(feature = "llvm")]
    pub fn ptx(&self, options: &PtxOptions) -> Result<PtxArtifact, Error> {
        let info = pipeline::verify(&self.ir)?;
        let cache = CacheLocation::Default.open();
        weft_runtime::cached::ptx(cache.as_ref(), &self.ir, &info, options)
            .map(|(a, _)| a)
            .map_err(|e| Error::Backend(Box::new(e)))
    }
    /// The LLVM IR of the LLVM backend, optimized: for NVPTX with
    /// `Some(options)`, else for the host as the `llvm-cpu` device compiles
    /// it by default (the vector tier on unless `WEFT_VECTOR=0`).
    #[cfg(feature = "llvm")]
    pub fn llvm_ir(&self, nvptx: Option<&PtxOptions>) -> Result<String, Error> {
        match nvptx {
            Some(o) => {
                let info = pipeline::verify(&self.ir)?;
                weft_backend_llvm::emit_llvm(&self.ir, &info, o)
                    .map_err(|e| Error::Backend(Box::new(e)))
            }
            None => self.host_llvm_ir(&weft_runtime::DeviceOptions::default()),
        }
    }
    /// The host target's LLVM IR as `llvm-cpu` opened with `opts` makes it
    /// (its vector tier and inline math as `opts` say).
    #[cfg(feature = "llvm")]
    pub fn host_llvm_ir(&self, opts: &weft_runtime::DeviceOptions) -> Result<String, Error> {
        let info = pipeline::verify(&self.ir)?;
        let host = weft_runtime::policy::llvm_options(opts);
        weft_backend_llvm::host::emit_text(&self.ir, &info, &host)
            .map_err(|e| Error::Backend(Box::new(e)))
    }
    /// The program for `device`, compiled on first use.
    fn program(&self, device: &weft_runtime::Device) -> Result<Arc<weft_runtime::Program>, Error> {
        let mut progs = self.programs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, p)) = progs.iter().find(|(d, _)| d == device) {
            return Ok(p.clone());
        }
        let p = Arc::new(device.compile(self.ir.clone())?);
        progs.push((device.clone(), p.clone()));
        Ok(p)
    }
}

/// A device kernels run on: a device of the registry ([`devices`]),
/// opened. See the crate docs, "Devices".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    inner: weft_runtime::Device,
}

impl Device {
    /// The host CPU: Cranelift JIT, launches split over all cores.
    pub fn cpu() -> Device {
        Device {
            inner: weft_runtime::Device::cpu(),
        }
    }
    /// The reference interpreter (single-threaded, the oracle).
    pub fn interp() -> Device {
        Device {
            inner: weft_runtime::Device::interp(),
        }
    }
    /// The device `name` (`cpu`, `interp`, `llvm-cpu`, `cuda`, `cuda:1`,
    /// `vulkan`), opened with default options. An unknown name, a device
    /// this build does not have (the error names the cargo feature that
    /// enables it), or one that cannot be opened here ("no CUDA driver
    /// found", no Vulkan device) is an error.
    pub fn open(name: &str) -> Result<Device, Error> {
        Device::open_with(name, &DeviceOptions::default())
    }
    /// [`Device::open`] with `options`: the backend's opt level, gdb debug
    /// info (`cpu`), the Vulkan group size, the compile cache.
    pub fn open_with(name: &str, options: &DeviceOptions) -> Result<Device, Error> {
        Ok(Device {
            inner: weft_runtime::Device::open_with(name, options)?,
        })
    }
    /// The registry name.
    pub fn name(&self) -> &'static str {
        self.inner.name()
    }
    /// What the device is (its hardware, its code target).
    pub fn describe(&self) -> DeviceDesc {
        self.inner.describe()
    }
    /// The runtime's device (for the runtime's own API).
    pub fn runtime(&self) -> &weft_runtime::Device {
        &self.inner
    }
    /// Kernel `name` of `module`, compiled for this device (the module's
    /// code for a device is compiled once and shared by its kernels).
    pub fn load(&self, module: &Module, name: &str) -> Result<Kernel, Error> {
        Ok(module.program(&self.inner)?.kernel(name)?)
    }
    /// The adjoint kernel of kernel `name` of `module` ([`Module::backward`]),
    /// compiled for this device. It takes the kernel's arguments, then one
    /// adjoint per parameter, then an `i32` retain flag per array parameter
    /// (see `docs/autodiff.md`); [`Device::launch_adjoint`] builds them.
    pub fn load_adjoint(&self, module: &Module, name: &str) -> Result<Kernel, Error> {
        if let Some((_, f)) = module.ir.kernels().find(|(_, f)| f.name == name) {
            if !f.backward {
                return Err(AdjointError::NoBackward(name.to_string()).into());
            }
        }
        let backward = module.backward()?;
        self.load(&backward, name)
    }
    /// Runs the adjoint of a launch of `kernel` with `args` (the forward
    /// kernel's arguments): arrays with a gradient ([`Array::requires_grad`])
    /// accumulate into it, the others get none; by-value arguments' adjoints
    /// start at zero and are dropped. `adjoint` is [`Device::load_adjoint`]'s
    /// kernel.
    pub fn launch_adjoint(
        &self,
        adjoint: &Kernel,
        dim: &[usize],
        args: &[Arg<'_>],
    ) -> Result<(), Error> {
        tape::launch_adjoint(self, adjoint, dim, args)
    }
    /// Runs `kernel` over `dim` (1–4 axes) with host arrays and values in
    /// parameter order; returns when it has finished. Arguments are checked
    /// first (see [`weft_runtime`]'s launch checks).
    pub fn launch(&self, kernel: &Kernel, dim: &[usize], args: &[Arg<'_>]) -> Result<(), Error> {
        Ok(self.inner.launch(kernel, dim, args)?)
    }
    /// Launches `kernel` with this device's arrays ([`DeviceArray`]) and
    /// values, checked as [`Device::launch`] checks host arguments. It may
    /// return before the kernel has finished (`cuda` queues it;
    /// [`Device::synchronize`] waits); checked code waits.
    pub fn launch_async(
        &self,
        kernel: &Kernel,
        dim: &[usize],
        args: &[DeviceArg<'_>],
    ) -> Result<(), Error> {
        Ok(self.inner.launch_async(kernel, dim, args)?)
    }
    /// Waits for all work queued on the device.
    pub fn synchronize(&self) -> Result<(), Error> {
        Ok(self.inner.synchronize()?)
    }
    /// A zero-filled array in the device's memory.
    pub fn zeros(&self, dtype: Dtype, shape: &[usize]) -> Result<DeviceArray, Error> {
        Ok(self.inner.zeros(dtype, shape)?)
    }
    /// [`Device::zeros`] in `layout`.
    pub fn zeros_with_layout(
        &self,
        dtype: Dtype,
        shape: &[usize],
        layout: ArrayLayout,
    ) -> Result<DeviceArray, Error> {
        Ok(self.inner.zeros_with_layout(dtype, shape, layout)?)
    }
    /// A copy of a host array in the device's memory.
    pub fn upload(&self, a: &Array) -> Result<DeviceArray, Error> {
        Ok(self.inner.upload(a)?)
    }
}
