//! The `interp` device: the reference interpreter of `weft-ir`, the oracle
//! every other device is tested against. Single-threaded, threads in
//! index order; arrays in host memory. It checks every index, so an
//! out-of-range access is reported as a trap on every build, and an array
//! may not be passed for two parameters (its slices must not alias).

use crate::array::Arg;
use crate::error::{LaunchError, RuntimeError};
use crate::hal::args::ArgView;
use crate::hal::host::{host_buffers, HostBuffer};
use crate::hal::{BufArg, CodeTier, DeviceApi, DeviceDesc, DeviceOptions, DynDevice, Launch, OpenFn};
use std::sync::Arc;
use std::time::{Duration, Instant};
use weft_abi::trap::TrapRecord;
use weft_ir::interp::{run_kernel, ArgValue, InterpError, InterpOptions};
use weft_ir::{FuncId, KernelInfo, Module, ModuleInfo, TrapKind};

pub(super) const OPEN: Option<OpenFn> = Some(open);

fn open(_ordinal: usize, opts: &DeviceOptions) -> Result<Arc<dyn DynDevice>, RuntimeError> {
    Ok(Arc::new(Interp(opts.timeout)))
}

/// The device with default options; opening it cannot fail.
pub(super) fn device() -> Arc<dyn DynDevice> {
    Arc::new(Interp(None))
}

/// The interpreter, with the wall-clock limit of its launches.
struct Interp(Option<Duration>);

/// A kernel of a module, run by the interpreter.
struct InterpKernel {
    module: Arc<Module>,
    func: FuncId,
}

impl DeviceApi for Interp {
    type Program = Arc<Module>;
    type Kernel = InterpKernel;
    host_buffers!();

    const NAME: &'static str = "interp";

    fn describe(&self) -> DeviceDesc {
        DeviceDesc {
            name: Self::NAME,
            description: "the reference interpreter (one thread)".into(),
            target: None,
            host_memory: true,
        }
    }

    fn compile(&self, module: &Arc<Module>, _info: &ModuleInfo) -> Result<Arc<Module>, RuntimeError> {
        Ok(module.clone())
    }

    fn load(
        &self,
        program: &Arc<Arc<Module>>,
        kernel: &KernelInfo,
    ) -> Result<InterpKernel, RuntimeError> {
        Ok(InterpKernel {
            module: (**program).clone(),
            func: kernel.func,
        })
    }

    fn tier(&self, _k: &InterpKernel) -> CodeTier {
        CodeTier::Interpreter
    }

    fn launch(
        &self,
        k: &InterpKernel,
        launch: &Launch<'_>,
        args: &[Arg<'_>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        let storage: Vec<Option<(*mut u8, usize)>> = args
            .iter()
            .map(|a| match a {
                Arg::Array(arr) => Some((arr.data_ptr(), arr.byte_len())),
                Arg::Value(_) => None,
            })
            .collect();
        run(k, launch, &storage, self.0)
    }

    fn launch_async(
        &self,
        k: &InterpKernel,
        launch: &Launch<'_>,
        args: &[BufArg<'_, HostBuffer>],
    ) -> Result<Option<TrapRecord>, LaunchError> {
        let storage: Vec<Option<(*mut u8, usize)>> = args
            .iter()
            .map(|a| match a {
                BufArg::Array(b) => Some((b.ptr(), b.len())),
                BufArg::Value(_) => None,
            })
            .collect();
        run(k, launch, &storage, self.0)
    }
}

/// Runs the kernel with each array argument's storage (address, bytes);
/// the interpreter's index and division errors become trap records.
fn run(
    k: &InterpKernel,
    launch: &Launch<'_>,
    storage: &[Option<(*mut u8, usize)>],
    timeout: Option<Duration>,
) -> Result<Option<TrapRecord>, LaunchError> {
    let sig = launch.sig;
    let mut iargs = Vec::with_capacity(launch.views.len());
    for (i, view) in launch.views.iter().enumerate() {
        match (view, storage.get(i).copied().flatten()) {
            (ArgView::Array { .. }, Some((ptr, len))) => {
                // Empty arrays share no bytes, wherever they point.
                if let Some(j) = storage[..i]
                    .iter()
                    .position(|s| len > 0 && s.is_some_and(|(p, l)| p == ptr && l > 0))
                {
                    return Err(LaunchError::Aliased {
                        param: sig.params[i].name.clone(),
                        other: sig.params[j].name.clone(),
                        device: Interp::NAME,
                    });
                }
                let (shape, strides) = view.abi_shape();
                // SAFETY: the storage is a host array's or a host buffer's,
                // `len` bytes at `ptr`, lent to this launch until it
                // returns (neither is `Sync`); no other argument has the
                // same storage (checked above), so this is the only mutable
                // view of it.
                let data = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
                iargs.push(ArgValue::Array {
                    data,
                    shape,
                    strides,
                });
            }
            (ArgView::Value(v), _) => iargs.push(ArgValue::Value(v.bytes().to_vec())),
            (ArgView::Array { .. }, None) => {
                return Err(LaunchError::Exec {
                    kernel: sig.name.clone(),
                    device: Interp::NAME,
                    source: format!("argument `{}` has no storage", sig.params[i].name).into(),
                })
            }
        }
    }
    let opts = InterpOptions {
        print: true,
        deadline: timeout.map(|t| Instant::now() + t),
    };
    match run_kernel(&k.module, k.func, &launch.dims, &mut iargs, &opts) {
        Ok(()) => Ok(None),
        // The interpreter checks every index (always) and the
        // bounds-checked mode's division tests: both are traps.
        Err(InterpError::OutOfBounds {
            loc,
            axis,
            index,
            shape,
            ..
        }) => Ok(Some(TrapRecord {
            kind: TrapKind::OutOfBounds { axis: axis as u8 },
            loc,
            index,
            size: shape as i64,
            thread: None,
        })),
        Err(InterpError::DivByZero { loc, .. }) => Ok(Some(TrapRecord {
            kind: TrapKind::DivByZero,
            loc,
            index: 0,
            size: 0,
            thread: None,
        })),
        Err(InterpError::Timeout { .. }) => Err(LaunchError::Timeout {
            kernel: sig.name.clone(),
            device: Interp::NAME,
            limit: timeout.unwrap_or_default(),
        }),
        Err(e) => Err(LaunchError::Exec {
            kernel: sig.name.clone(),
            device: Interp::NAME,
            source: Box::new(e),
        }),
    }
}
