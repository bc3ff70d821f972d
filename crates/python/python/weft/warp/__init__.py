"""Warp's host API on Weft: ``import weft.warp as wp``.

Kernels, funcs and structs are written as for NVIDIA Warp; their source
is compiled by Weft (see ``docs/python.md`` for what is supported)."""

import math as _math
import sys as _sys

from . import types
from . import _src  # noqa: F401 (what Warp's tests touch of warp._src)
from .types import *  # noqa: F401,F403
from .types import (  # noqa: F401
    dtype_from_numpy,
    dtype_to_numpy,
    vector,
    matrix,
    quaternion,
    transformation,
    float16,
    float32,
    float64,
    bfloat16,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
    bool,
    half,
    float,
    double,
)
from .array import (  # noqa: F401
    array,
    array1d,
    array2d,
    array3d,
    array4d,
    zeros,
    zeros_like,
    ones,
    ones_like,
    full,
    full_like,
    empty,
    empty_like,
    clone,
    copy,
    from_numpy,
)
from .host import (  # noqa: F401
    matrix_from_cols,
    matrix_from_rows,
    transform_set_rotation,
    transform_set_translation,
)
from .context import (  # noqa: F401
    config,
    DeterministicMode,
    Device,
    Function,
    Kernel,
    ScopedDevice,
    Tape,
    constant,
    func,
    get_cuda_device_count,
    get_cuda_devices,
    get_device,
    get_devices,
    get_module_options,
    get_preferred_device,
    init,
    is_cpu_available,
    is_cuda_available,
    is_device_available,
    kernel,
    Launch,
    launch,
    overload,
    get_module,
    set_device,
    set_module_options,
    struct,
    synchronize,
    synchronize_device,
)

from .. import CompileError as WarpCodegenError  # noqa: E402

# Weft reports every compile error as one type (its message says which).
WarpCodegenValueError = WarpCodegenTypeError = WarpCodegenAttributeError = WarpCodegenKeyError = WarpCodegenError
WarpCodegenIndexError = WarpCodegenNameError = WarpCodegenError

LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERROR = 10, 20, 30, 40

__version__ = "1.19.0"
_weft_compat = True

pi = 3.14159265358979323846
e = 2.71828182845904523536
tau = 2.0 * pi
inf = _math.inf
nan = _math.nan
PI, E, TAU = pi, e, tau


def static(x):
    """``wp.static(expr)``: evaluated by the compiler from the source."""
    return x


def _this_module():
    return _sys.modules[__name__]

# Warp's builtins at Python scope (`wp.sin(0.5)`, `wp.normalize(v)`): one
# mechanism over the builtin table, weft/warp/_pyscope.py.
from . import _pyscope as _pyscope  # noqa: E402

_pyscope.define(globals())
