"""Weft: NVIDIA Warp's kernel language compiled by a Rust compiler.

``import weft.warp as wp`` gives Warp's host API; this module gives Weft's
own: ``compile`` (a module source to IR/CLIF/HLSL text), ``Device``,
``device_names``. See ``docs/python.md``."""

from . import _native
from ._native import (  # noqa: F401
    CompileError,
    DeviceError,
    LaunchError,
    WeftError,
    Device,
    build_info,
    device_names,
)

__version__ = _native.__version__


def compile(source, file_name="<string>", *, checked=False, fast_math=False, opt=True, cache=False, deterministic=False):
    """Compiles a module of Warp's kernel language; the result has
    ``kernel_names()``, ``ir()``, ``clif()`` and ``hlsl(kernel)``.
    ``deterministic``: deterministic launches for every kernel
    (docs/runtime.md)."""
    return _native.compile(
        file_name, source, checked=checked, fast_math=fast_math, opt=opt, cache=cache, deterministic=deterministic
    )
