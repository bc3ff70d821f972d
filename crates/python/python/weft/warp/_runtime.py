"""Warp's device, memory and module queries on Weft (``wp.is_mempool_supported``,
``wp.set_peer_access_enabled``, ``wp.load_module``, ...), with Warp's
answers and errors for what Weft's devices have: no memory pools, no peer
access, no CUDA toolkit, no graph capture."""

from __future__ import annotations

import enum
import sys
import types as _pytypes

from .. import _native
from . import context as _ctx
from ._unsupported import NotSupportedError
from .array import array as _array

DeviceLike = _ctx.Device | str | None


class MemoryKind(enum.IntEnum):
    """``wp.MemoryKind``: the kinds of memory an allocation can be."""

    UNKNOWN = 0
    HOST = 1
    PINNED = 2
    CUDA_DEVICE = 3
    CUDA_MEMPOOL = 4
    CUDA_MANAGED = 5


class CaptureMode(enum.IntEnum):
    """``wp.CaptureMode``: CUDA graph capture modes (graph capture itself
    is not implemented in Weft)."""

    GLOBAL = 0
    THREAD_LOCAL = 1
    RELAXED = 2


class WarpDeterminismError(RuntimeError):
    """Raised when the requested determinism cannot be provided."""


# ----------------------------------------------------------- memory pools


def is_mempool_supported(device: DeviceLike) -> bool:
    """Whether ``device`` has a memory-pool allocator (no Weft device has)."""
    return _ctx.get_device(device).is_mempool_supported


def is_mempool_enabled(device: DeviceLike) -> bool:
    return _ctx.get_device(device).is_mempool_enabled


def set_mempool_enabled(device: DeviceLike, enable: bool) -> None:
    """Enabling fails as in Warp: ``ValueError`` on a CPU device,
    ``RuntimeError`` on a CUDA device without memory pools (all of Weft's);
    disabling is a no-op."""
    device = _ctx.get_device(device)
    if not enable:
        return
    if not device.is_cuda:
        raise ValueError("Memory pools are only supported on CUDA devices")
    raise RuntimeError(f"Device {device} does not support memory pools")


def _mempool_device(device):
    device = _ctx.get_device(device)
    if not device.is_cuda:
        raise ValueError("Memory pools are only supported on CUDA devices")
    raise RuntimeError(f"Device {device} does not support memory pools")


def set_mempool_release_threshold(device: DeviceLike, threshold) -> None:
    _mempool_device(device)


def get_mempool_release_threshold(device: DeviceLike = None) -> int:
    _mempool_device(device)


def get_mempool_used_mem_current(device: DeviceLike = None) -> int:
    _mempool_device(device)


def get_mempool_used_mem_high(device: DeviceLike = None) -> int:
    _mempool_device(device)


# ------------------------------------------------------------ peer access


def is_peer_access_supported(target_device: DeviceLike, peer_device: DeviceLike) -> bool:
    """Whether ``peer_device`` can access ``target_device``'s memory
    directly: never between Weft's devices (only between CUDA devices in
    Warp, and Weft does not enable it)."""
    _ctx.get_device(target_device), _ctx.get_device(peer_device)
    return False


def is_peer_access_enabled(target_device: DeviceLike, peer_device: DeviceLike) -> bool:
    t, p = _ctx.get_device(target_device), _ctx.get_device(peer_device)
    # a device always reaches its own memory (Warp: same CUDA context)
    return t.is_cuda and p.is_cuda and t == p


def set_peer_access_enabled(target_device: DeviceLike, peer_device: DeviceLike, enable: bool) -> None:
    t, p = _ctx.get_device(target_device), _ctx.get_device(peer_device)
    if not enable:
        return
    if not t.is_cuda or not p.is_cuda:
        raise ValueError("Peer access is only supported between CUDA devices")
    if t == p:
        return
    raise RuntimeError(f"Device {p} cannot access device {t}")


def is_mempool_access_supported(target_device: DeviceLike, peer_device: DeviceLike) -> bool:
    t = _ctx.get_device(target_device)
    return t.is_mempool_supported and is_peer_access_supported(t, peer_device)


def is_mempool_access_enabled(target_device: DeviceLike, peer_device: DeviceLike) -> bool:
    _ctx.get_device(target_device), _ctx.get_device(peer_device)
    return False


def set_mempool_access_enabled(target_device: DeviceLike, peer_device: DeviceLike, enable: bool) -> None:
    t, p = _ctx.get_device(target_device), _ctx.get_device(peer_device)
    if not enable:
        return
    if not t.is_cuda or not p.is_cuda:
        raise ValueError("Memory pool access is only supported between CUDA devices")
    raise RuntimeError(f"Device {t} does not support memory pools")


def can_access(device: DeviceLike, resource) -> bool:
    """Whether a kernel on ``device`` can use array ``resource`` (one on
    the same device: Weft has no pinned memory or peer access)."""
    device = _ctx.get_device(device)
    if not isinstance(resource, _array) or getattr(resource, "device", None) is None:
        raise TypeError("wp.can_access: parameter 'resource' must be a concrete wp.array")
    return resource.device == device


# ------------------------------------------------------------------- CUDA


def get_cuda_device(ordinal: int | None = None) -> _ctx.Device:
    """The CUDA device ``cuda:ordinal`` (default: the current device when
    it is a CUDA device, else ``cuda:0``)."""
    if ordinal is None:
        d = _ctx.get_device()
        return d if d.is_cuda else _ctx.get_device("cuda:0")
    return _ctx.get_device(f"cuda:{int(ordinal)}")


def get_cuda_toolkit_version():
    """None: Weft compiles for CUDA with its own compiler (LLVM's NVPTX
    back end), without a CUDA toolkit."""
    return None


def get_cuda_driver_version():
    """None where no CUDA device opens (Warp's answer without a driver)."""
    if not _ctx.is_cuda_available():
        return None
    raise NotSupportedError("wp.get_cuda_driver_version", "Weft does not query the CUDA driver's version")


def get_cuda_supported_archs() -> list:
    """The compute capabilities Weft compiles for: those of the CUDA
    devices that open (none without CUDA)."""
    return sorted({d.arch for d in _ctx.get_cuda_devices()})


def is_conditional_graph_supported() -> bool:
    """False: Weft has no graph capture."""
    return False


def is_cubql_available() -> bool:
    """False: Weft does not use cuBQL."""
    return False


def cuda_profiler_start(device: DeviceLike = None):
    """A no-op on a CPU device (as Warp); Weft does not drive CUDA's
    profiler API on a CUDA device."""
    if _ctx.get_device(device).is_cuda:
        raise NotSupportedError("wp.cuda_profiler_start", "Weft does not drive the CUDA profiler API")


def cuda_profiler_stop(device: DeviceLike = None):
    if _ctx.get_device(device).is_cuda:
        raise NotSupportedError("wp.cuda_profiler_stop", "Weft does not drive the CUDA profiler API")


# ---------------------------------------------------------------- modules


def _module_name(module, stack_level=2):
    if module is None:
        return sys._getframe(stack_level).f_globals.get("__name__", "__main__")
    if isinstance(module, _ctx.Module):
        return module.name
    if isinstance(module, _pytypes.ModuleType):
        return module.__name__
    if isinstance(module, str):
        return module
    raise TypeError(f"parameter 'module' must be a module, got {type(module).__name__}")


def _devices(device):
    if device is None:
        return _ctx.get_devices()
    if isinstance(device, list):
        return [_ctx.get_device(d) for d in device]
    return [_ctx.get_device(device)]


def load_module(module=None, device=None, recursive=False, block_dim=None, max_workers=None):
    """Compiles and loads now the kernels of ``module`` (a Python module,
    its name or a ``wp.Module``; default: the caller's), with its
    submodules' when ``recursive``, on ``device`` (default: every device;
    a list is several)."""
    name = _module_name(module)
    mods = [module] if isinstance(module, _ctx.Module) or name in _ctx._warp_modules else []
    if recursive:
        mods += [_ctx.Module(n) for n in sorted(_ctx._warp_modules) if n.startswith(name + ".")]
    if not mods:
        raise RuntimeError(
            f"Module '{name}' does not contain any Warp kernels, functions, or structs (wp.load_module: parameter 'module')"
        )
    mods = [m if isinstance(m, _ctx.Module) else _ctx.Module(name) for m in mods]
    for d in _devices(device):
        for m in mods:
            m.load(d)


def force_load(device=None, modules=None, block_dim=None, max_workers=None):
    """Compiles and loads the kernels of ``modules`` (default: all) on
    ``device`` (default: every device)."""
    if modules is None:
        modules = [_ctx.Module(n) for n in list(_ctx._kernels_by_module)]
    for d in _devices(device):
        for m in modules:
            m.load(d)


def clear_kernel_cache() -> None:
    """Forgets the compiled modules of this process (they are compiled
    again on next use); Weft's disk cache keeps its own entries, keyed by
    the module text and compiler version."""
    _ctx._forget_compiled()


def clear_lto_cache() -> None:
    """A no-op: Weft has no link-time-optimization cache."""


def print_diagnostics() -> None:
    """Prints Weft's build and devices (Warp prints its build and CUDA
    information)."""
    info = _native.build_info()
    lines = [
        f"Weft {info['version']} (Warp {_ctx.config.version} API)",
        f"  features: {', '.join(info['features']) or 'none'}",
        f"  devices: {', '.join(info['devices'])}",
    ]
    for d in _ctx.get_devices():
        lines.append(f"  {d.alias}: {d._native.describe()}")
    print("\n".join(lines))
