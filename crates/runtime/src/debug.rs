//! Launching a kernel in the CPU backend's debug build while recording one
//! thread's statement hooks (the debugger's data source; see
//! [`weft_abi::debug`] and `docs/debugging.md`).
//!
//! The launch runs on the calling OS thread, threads in index order, so the
//! threads before the recorded one have run to completion when it starts and
//! the ones after it run when it has finished. [`trace_launch`] runs the
//! same launch on the interpreter, recording the same thread's statement
//! trace: the debugger's oracle.

use crate::array::Arg;
use crate::error::{LaunchError, RuntimeError};
use crate::hal::args::{check_args, check_dim, pack_views, ArgView};
use crate::sig::KernelSig;
use std::sync::Arc;
use weft_abi::debug::{record_thread, DebugEvent};
use weft_abi::trap::{clear_trap, take_trap};
use weft_ir::interp::{trace_thread, ArgValue, InterpOptions, TraceEvent};
use weft_ir::{KernelInfo, Module};

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
    let (info, kinfo) = kernel_info(module, kernel)?;
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
    let sig = KernelSig::new(kinfo, Arc::new(module.structs.clone()));
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

fn kernel_info(
    module: &Module,
    kernel: &str,
) -> Result<(weft_ir::ModuleInfo, KernelInfo), RuntimeError> {
    let info = weft_ir::verify::verify_module(module)?;
    let Some(kinfo) = info.kernel(kernel).cloned() else {
        return Err(RuntimeError::NoKernel {
            name: kernel.to_string(),
            available: module
                .kernels()
                .map(|(_, f)| f.name.clone())
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    Ok((info, kinfo))
}

/// Runs kernel `kernel` of `module` over `dim` with `args` on the
/// interpreter, threads `0..=tid`, and returns the statement trace of
/// thread `tid` (a linear thread index; [`weft_ir::interp::trace_thread`]).
/// The interpreter's errors are returned as the interp device's.
pub fn trace_launch(
    module: &Module,
    kernel: &str,
    dim: &[usize],
    args: &[Arg<'_>],
    tid: usize,
) -> Result<Vec<TraceEvent>, RuntimeError> {
    let (_, kinfo) = kernel_info(module, kernel)?;
    let func = kinfo.func;
    let sig = KernelSig::new(kinfo, Arc::new(module.structs.clone()));
    let (dims, _) = check_dim(dim)?;
    let padded = dims.map(|d| d as usize);
    check_args(&sig, args, &padded)?;
    let mut iargs = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        match (a, ArgView::of(a)) {
            (Arg::Array(arr), view) => {
                if args[..i].iter().any(|b| {
                    matches!(b, Arg::Array(o) if o.data_ptr() == arr.data_ptr() && arr.byte_len() > 0)
                }) {
                    return Err(LaunchError::Aliased {
                        param: sig.params[i].name.clone(),
                        other: String::new(),
                        device: "interp",
                    }
                    .into());
                }
                let (shape, strides) = view.abi_shape();
                // SAFETY: the array's `byte_len` bytes at `data_ptr`, lent
                // to this call; no other argument has the same storage
                // (checked above), so this is the only mutable view of it.
                let data =
                    unsafe { std::slice::from_raw_parts_mut(arr.data_ptr(), arr.byte_len()) };
                iargs.push(ArgValue::Array {
                    data,
                    shape,
                    strides,
                });
            }
            (_, ArgView::Value(v)) => iargs.push(ArgValue::Value(v.bytes().to_vec())),
            (_, ArgView::Array { .. }) => {}
        }
    }
    let dims: Vec<i32> = dim.iter().map(|&d| d as i32).collect();
    trace_thread(
        module,
        func,
        &dims,
        &mut iargs,
        &InterpOptions::default(),
        tid as i32,
    )
    .map_err(|e| {
        LaunchError::Exec {
            kernel: kernel.to_string(),
            device: "interp",
            source: Box::new(e),
        }
        .into()
    })
}
