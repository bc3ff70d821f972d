//! Runtime errors.

use crate::array::ArrayError;

/// A backend's own error, kept as the source of a runtime error.
pub type BackendError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a launch was refused or failed. Argument errors name the parameter
/// and are found before anything runs.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("launch dim must have 1 to 4 axes, got {0}")]
    DimRank(usize),
    #[error("launch dim {dim:?}: each axis must be at most 2^31-1 and the product fit in an i32")]
    DimTooLarge { dim: Vec<usize> },
    #[error("kernel `{kernel}`: missing argument for parameter `{param}` (expects {expected} arguments, got {got})")]
    MissingArg {
        kernel: String,
        param: String,
        expected: usize,
        got: usize,
    },
    #[error("kernel `{kernel}`: {got} arguments given, it takes {expected} (the last parameter is `{last_param}`)")]
    ExtraArgs {
        kernel: String,
        last_param: String,
        expected: usize,
        got: usize,
    },
    #[error("argument `{param}`: expected {expected}, got {got}")]
    ArgKind {
        param: String,
        expected: String,
        got: String,
    },
    #[error("argument `{param}`: expected {expected}, got {got}")]
    ArgType {
        param: String,
        expected: String,
        got: String,
    },
    #[error(
        "argument `{param}`: expected an array of {expected} dimension(s), got {got} ({got_type})"
    )]
    ArgNdim {
        param: String,
        expected: usize,
        got: usize,
        got_type: String,
    },
    /// The array's layout is not the one the kernel was compiled for (no
    /// launch converts an array silently).
    #[error("argument `{param}`: {}", layout_message(*.kernel, *.array))]
    ArgLayout {
        param: String,
        /// The layout the kernel takes the parameter in.
        kernel: weft_ir::ArrayLayout,
        /// The layout of the array passed.
        array: weft_ir::ArrayLayout,
    },
    #[error("argument `{param}`: struct `{name}` has a different definition than the kernel's ({detail})")]
    StructLayout {
        param: String,
        name: String,
        detail: String,
    },
    /// The kernel indexes the array's `axis` with every value of
    /// `0..required` (from `wp.tid()`), but it is only `len` long.
    #[error("argument `{param}`: array axis {axis} has length {len}, but the launch indexes it with thread ids up to {required}")]
    ArrayTooShort {
        param: String,
        axis: usize,
        len: usize,
        required: usize,
    },
    #[error("arguments `{param}` and `{other}` are the same array, which the `{device}` device cannot alias")]
    Aliased {
        param: String,
        other: String,
        device: &'static str,
    },
    #[error("kernel `{kernel}` was loaded for the {loaded} device, not {device}")]
    WrongDevice {
        kernel: String,
        /// The devices, as [`crate::Device::label`] shows them.
        loaded: String,
        device: String,
    },
    /// A check of the bounds-checked mode failed (an out-of-bounds index or
    /// an integer division by zero): that thread stopped before the access,
    /// the others ran to completion. The first failure of the launch.
    #[error("{file}:{line}:{col}: kernel `{kernel}`: {} (`{device}` device, bounds-checked mode)", trap_message(*.kind, *.index, *.size))]
    Trap {
        kernel: String,
        device: &'static str,
        file: String,
        line: u32,
        col: u32,
        kind: weft_ir::TrapKind,
        /// Out-of-bounds: the index and the size of the axis (else 0).
        index: i64,
        size: i64,
    },
    /// The launch ran past the wall-clock limit of
    /// [`crate::DeviceOptions::timeout`] and was stopped: the threads that
    /// had started ran to their end or to a cancel check, the others did
    /// not run. The arrays hold what the threads that ran wrote; the
    /// device stays usable.
    #[error("kernel `{kernel}` on the `{device}` device ran past its time limit of {limit:?} and was stopped")]
    Timeout {
        kernel: String,
        device: &'static str,
        limit: std::time::Duration,
    },
    #[error("kernel `{kernel}` failed on the `{device}` device: {source}")]
    Exec {
        kernel: String,
        device: &'static str,
        #[source]
        source: BackendError,
    },
}

/// `index 1024 out of bounds for axis 0 of size 1024`, or
/// `integer division by zero`.
pub fn trap_message(kind: weft_ir::TrapKind, index: i64, size: i64) -> String {
    match kind {
        weft_ir::TrapKind::OutOfBounds { axis } => {
            format!("index {index} out of bounds for axis {axis} of size {size}")
        }
        weft_ir::TrapKind::DivByZero => "integer division by zero".to_string(),
    }
}

/// `SoA` or `AoS`.
pub fn layout_name(l: weft_ir::ArrayLayout) -> &'static str {
    match l {
        weft_ir::ArrayLayout::Aos => "AoS",
        weft_ir::ArrayLayout::Soa => "SoA",
    }
}

/// The message of [`LaunchError::ArgLayout`], with the two ways out.
pub fn layout_message(kernel: weft_ir::ArrayLayout, array: weft_ir::ArrayLayout) -> String {
    let how = match kernel {
        weft_ir::ArrayLayout::Soa => "or compile the kernel with this parameter AoS (the default layout)",
        weft_ir::ArrayLayout::Aos => "or compile the kernel with this parameter SoA (`--layout soa`, `CompileOptions::layout`, or a `# weft: layout=soa` hint)",
    };
    format!(
        "the kernel takes this array in {} layout, but the array is {}; convert it with `Array::to_layout(ArrayLayout::{:?})`, {how}",
        layout_name(kernel),
        layout_name(array),
        kernel
    )
}

impl LaunchError {
    /// The error of a bounds-checked-mode failure `t` of `kernel` on
    /// `device`, its location resolved in the module's `files`.
    pub fn from_trap(
        kernel: &str,
        device: &'static str,
        files: &[String],
        t: &weft_abi::trap::TrapRecord,
    ) -> LaunchError {
        LaunchError::Trap {
            kernel: kernel.to_string(),
            device,
            file: files
                .get(t.loc.file as usize)
                .cloned()
                .unwrap_or_else(|| "<unknown>".to_string()),
            line: t.loc.line,
            col: t.loc.col,
            kind: t.kind,
            index: t.index,
            size: t.size,
        }
    }

    /// The parameter the error is about, if it is about one.
    pub fn param(&self) -> Option<&str> {
        match self {
            LaunchError::MissingArg { param, .. }
            | LaunchError::ArgKind { param, .. }
            | LaunchError::ArgType { param, .. }
            | LaunchError::ArgNdim { param, .. }
            | LaunchError::ArgLayout { param, .. }
            | LaunchError::StructLayout { param, .. }
            | LaunchError::ArrayTooShort { param, .. }
            | LaunchError::Aliased { param, .. } => Some(param),
            _ => None,
        }
    }
}

/// Any runtime error.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("compiling for the `{device}` device failed: {source}")]
    Compile {
        device: &'static str,
        #[source]
        source: BackendError,
    },
    /// The device's backend cannot express the kernel exactly (a typed
    /// `Unsupported` of the backend, or a feature the device lacks): the
    /// kernel does not run there, and no other result is produced.
    #[error("{message}")]
    Unsupported {
        device: &'static str,
        /// The backend's message, with the source position.
        message: String,
        #[source]
        source: BackendError,
    },
    /// The module does not verify: no backend sees it.
    #[error("invalid module: {0}")]
    Invalid(#[from] weft_ir::verify::VerifyError),
    /// The module still holds a placeholder that the pass pipeline fills
    /// in (a `wp.grad` func, [`weft_ir::Function::grad_of`]): no backend
    /// sees it.
    #[error("function `{func}` is a `wp.grad` placeholder: run the pass pipeline (`weft_passes::run_pipeline`) before compiling for a device")]
    Unlowered { func: String },
    /// No device has this name.
    #[error("unknown device `{name}` (devices: {known})")]
    UnknownDevice { name: String, known: String },
    /// The device exists but this build of Weft does not have it.
    #[error("the `{name}` device is not compiled into this build: rebuild with the cargo feature `{feature}` (e.g. `cargo build --features {feature}`)")]
    NotCompiled { name: String, feature: &'static str },
    /// A program, kernel or array of one device was given to another.
    #[error("{what} of another device was given to the `{device}` device")]
    Foreign { device: &'static str, what: String },
    #[error("no kernel named `{name}` in the module (kernels: {available})")]
    NoKernel { name: String, available: String },
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error(transparent)]
    Array(#[from] ArrayError),
    /// The device could not allocate an array's memory.
    #[error("{device} device: out of memory allocating {bytes} bytes")]
    OutOfMemory { device: &'static str, bytes: usize },
    /// A device could not be opened or used (e.g. no CUDA driver).
    #[error("{device} device: {source}")]
    Device {
        device: &'static str,
        #[source]
        source: BackendError,
    },
}

impl RuntimeError {
    /// A backend's compile error on `device`: [`RuntimeError::Unsupported`]
    /// if the backend says it cannot express the module, else
    /// [`RuntimeError::Compile`].
    pub fn backend(
        device: &'static str,
        unsupported: bool,
        e: impl std::error::Error + Send + Sync + 'static,
    ) -> RuntimeError {
        if unsupported {
            RuntimeError::Unsupported {
                device,
                message: e.to_string(),
                source: Box::new(e),
            }
        } else {
            RuntimeError::Compile {
                device,
                source: Box::new(e),
            }
        }
    }

    /// Whether the error says that a device's backend cannot express a
    /// kernel ([`RuntimeError::Unsupported`]).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, RuntimeError::Unsupported { .. })
    }
}
