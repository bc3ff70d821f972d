"""``warp._src.build``: Warp's native build driver (NVRTC, Clang). Weft
compiles kernels with its own compiler: nothing is built here. What it
keeps is the kernel cache's place: ``init_kernel_cache`` chooses the
directory (a versioned one under the path given, ``$WARP_CACHE_PATH`` or
Weft's default) and points Weft's on-disk cache there
(``$WEFT_CACHE_DIR``)."""

import os
import sys

from .._unsupported import NotSupportedError

_REASON = "Weft compiles kernels with its own compiler, not with NVRTC or Clang"

# The directory the last init_kernel_cache resolved (so that it is not
# versioned again when passed back).
_resolved_kernel_cache_dir = None


def __getattr__(name):
    if name == "warp":  # Warp's module reaches the runtime as build.warp
        return sys.modules[__name__.split("._src")[0]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _default_base():
    base = os.environ.get("WEFT_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    if base:
        return base if os.environ.get("WEFT_CACHE_DIR") else os.path.join(base, "weft")
    return os.path.join(os.path.expanduser("~"), ".cache", "weft")


def init_kernel_cache(path=None):
    """Chooses the kernel cache directory: ``path``, else
    ``$WARP_CACHE_PATH``, else the default, with the Warp version appended
    (not again to a directory this function resolved before). Creates it,
    sets ``wp.config.kernel_cache_dir`` and makes Weft's cache use it."""
    global _resolved_kernel_cache_dir
    from ..context import config

    base = path if path is not None else os.environ.get("WARP_CACHE_PATH") or _default_base()
    base = os.path.realpath(os.path.expanduser(os.fspath(base)))
    if _resolved_kernel_cache_dir is not None and base == _resolved_kernel_cache_dir:
        resolved = base
    else:
        resolved = os.path.join(base, config.version)
    os.makedirs(resolved, exist_ok=True)
    config.kernel_cache_dir = resolved
    _resolved_kernel_cache_dir = resolved
    os.environ["WEFT_CACHE_DIR"] = resolved
    return resolved


def build_cuda(*args, **kwargs):
    raise NotSupportedError("warp._src.build.build_cuda", _REASON)


def build_cpu(*args, **kwargs):
    raise NotSupportedError("warp._src.build.build_cpu", _REASON)
