"""``warp._src.build``: Warp's native build driver (NVRTC, Clang). Weft
compiles kernels with its own compiler: nothing is built here."""

from ... import warp  # noqa: F401 (Warp's module reaches the runtime as build.warp)
from .._unsupported import NotSupportedError

_REASON = "Weft compiles kernels with its own compiler, not with NVRTC or Clang"


def build_cuda(*args, **kwargs):
    raise NotSupportedError("warp._src.build.build_cuda", _REASON)


def build_cpu(*args, **kwargs):
    raise NotSupportedError("warp._src.build.build_cpu", _REASON)
