"""``warp._src.context``: the module registry Warp's tests clear."""

user_modules = {}

import functools
import inspect
import sys

from ..context import Function, Launch  # noqa: F401
from .._unsupported import BUILD, NotSupportedError


def _get_caller_module_name(stack_level=1):
    """The name of the module of the code ``stack_level`` frames above this
    function: the frame's ``__name__`` (what ``f.__module__`` of the
    functions defined there is, ``__main__`` under ``runpy`` too), else its
    ``__spec__``'s name, else the module ``inspect`` finds, else the loaded
    module of the frame's file."""
    frame = sys._getframe(stack_level)
    g = frame.f_globals
    name = g.get("__name__")
    if name:
        return name
    spec = g.get("__spec__")
    if spec is not None and getattr(spec, "name", None):
        return spec.name
    m = inspect.getmodule(frame)
    if m is not None:
        return m.__name__
    filename = frame.f_code.co_filename
    for mname, mod in list(sys.modules.items()):
        if getattr(mod, "__file__", None) == filename:
            return mname
    raise RuntimeError(
        f"Could not determine the calling module (frame of {filename!r}): pass the module to the function explicitly"
    )


def add_builtin(key, *args, **kwargs):
    """Warp's registration of a builtin: Weft's builtins come from its
    compiler's table."""
    raise NotSupportedError("warp._src.context.add_builtin", BUILD)


@functools.lru_cache(maxsize=None)
def get_builtin_call_desc(*args, **kwargs):
    """Warp's lookup of a builtin's exported native symbol: Weft runs
    builtins at Python scope through its own compiler (``_pyscope``)."""
    raise NotSupportedError(
        "warp._src.context.get_builtin_call_desc",
        "Weft's builtins at Python scope are compiled from its own builtin table, not exported native symbols",
    )


_NO_CPP = "Weft generates no C++/CUDA module source to build or hash: its own compiler lowers kernels"


class ModuleBuilder:
    """Warp's C++/CUDA source generator of a module: none in Weft."""

    def __init__(self, *args, **kwargs):
        raise NotSupportedError("warp._src.context.ModuleBuilder", _NO_CPP)


class ModuleHasher:
    """Warp's hash of a module's generated source: none in Weft."""

    def __init__(self, *args, **kwargs):
        raise NotSupportedError("warp._src.context.ModuleHasher", _NO_CPP)
