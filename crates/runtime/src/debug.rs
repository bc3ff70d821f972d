//! Launching a kernel in the CPU backend's debug build while recording one
//! thread's statement hooks (the debugger's data source; see
//! [`weft_abi::debug`] and `docs/debugging.md`).
//!
//! The launch runs on the calling OS thread, threads in index order, so the
//! threads before the recorded one have run to completion when it starts and
//! the ones after it run when it has finished.

use crate::array::Arg;
use crate::error::{LaunchError, RuntimeError};
use crate::hal::args::{check_args, check_dim, pack_views, ArgView};
use crate::sig::KernelSig;
use std::sync::Arc;
use weft_abi::debug::{record_thread, DebugEvent};
use weft_abi::trap::{clear_trap, take_trap};
use weft_ir::Module;

/// Compiles `module` with [`weft_backend_cpu::Options::debug`], launches
/// kernel `kernel` over `dim` with `args` and returns the hooks of thread
/// `tid` (a linear thread index), in order. A bounds-checked-mode failure is
/// returned as [`LaunchError::Trap`] after the launch.
pub fn record_launch(
    module: &Module,
    kernel: &str,
    dim: &[usize],
    args: &[Arg<'_>],
    tid: usize,
) -> Result<Vec<DebugEvent>, RuntimeError> {
    let info = weft_ir::verify::verify_module(module)?;
    let Some(kinfo) = info.kernel(kernel) else {
        return Err(RuntimeError::NoKernel {
            name: kernel.to_string(),
            available: module
                .kernels()
                .map(|(_, f)| f.name.clone())
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let opts = weft_backend_cpu::Options {
        debug: true,
        opt_level: weft_ir::OptLevel::O0,
        ..Default::default()
    };
    let art = weft_backend_cpu::compile(module, &info, &opts)
        .map_err(|e| RuntimeError::backend("cpu", e.is_unsupported(), e))?;
    let Some(k) = art.kernel(kernel) else {
        return Err(RuntimeError::NoKernel {
            name: kernel.to_string(),
            available: String::new(),
        });
    };
    let sig = KernelSig::new(kinfo.clone(), Arc::new(module.structs.clone()));
    let (dims, total) = check_dim(dim)?;
    let padded = dims.map(|d| d as usize);
    check_args(&sig, args, &padded)?;
    let views: Vec<ArgView<'_>> = args.iter().map(ArgView::of).collect();
    let block = pack_views(&sig, &dims, &views);
    let ptr = block.as_ptr().cast::<u8>();
    clear_trap();
    let ((), events) = record_thread(tid as i64, || {
        // SAFETY: the kernel was compiled for this signature; the block was
        // packed and checked against it, and the arrays it points to are
        // borrowed for the whole call.
        unsafe { (k.entry)(ptr, 0, total as i64) }
    });
    if let Some(t) = take_trap() {
        return Err(LaunchError::from_trap(kernel, "cpu", &module.files, &t).into());
    }
    drop(art);
    Ok(events)
}
