//! `weft bench --pin`: the global rayon pool with each of its threads
//! pinned to one CPU, to measure pinning against the runtime's default
//! (unpinned workers; `docs/runtime.md`, "Thread ranges").

use std::io;

/// Builds the global pool (before anything else uses it) with thread `i`
/// pinned to the `i`-th CPU this process may run on.
#[cfg(target_os = "linux")]
pub fn pin_pool_threads() -> io::Result<()> {
    let cpus = allowed_cpus()?;
    if cpus.is_empty() {
        return Err(io::Error::other("no CPU in the process's affinity mask"));
    }
    rayon::ThreadPoolBuilder::new()
        .start_handler(move |i| {
            // A thread that cannot be pinned runs unpinned.
            let _ = pin_current_thread(cpus[i % cpus.len()]);
        })
        .build_global()
        .map_err(io::Error::other)
}

#[cfg(not(target_os = "linux"))]
pub fn pin_pool_threads() -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "pinning is implemented on Linux only",
    ))
}

/// The CPUs of the process's affinity mask, in order.
#[cfg(target_os = "linux")]
fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: FFI; `set` is a plain C struct that `sched_getaffinity`
    // fills, of the size passed.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(io::Error::last_os_error());
        }
        set
    };
    Ok((0..libc::CPU_SETSIZE as usize)
        // SAFETY: FFI helper reading bit `c` < CPU_SETSIZE of `set`.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// Pins the calling thread to CPU `cpu`.
#[cfg(target_os = "linux")]
fn pin_current_thread(cpu: usize) -> io::Result<()> {
    // SAFETY: FFI; `set` is a zeroed C struct with bit `cpu` (<
    // CPU_SETSIZE, from `allowed_cpus`) set, of the size passed; pid 0 is
    // the calling thread.
    let r = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}
