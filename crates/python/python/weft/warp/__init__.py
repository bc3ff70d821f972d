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
    ref,
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
    from_dlpack,
    to_dlpack,
    indexedarray,
    indexedarray1d,
    indexedarray2d,
    indexedarray3d,
    indexedarray4d,
    fabricarray,
    fabricarrayarray,
    fixedarray,
    indexedfabricarray,
    indexedfabricarrayarray,
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
    func_grad,
    func_native,
    func_replay,
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

from ._src.codegen import (  # noqa: E402,F401
    WarpCodegenError,
    WarpCodegenValueError,
    WarpCodegenTypeError,
    WarpCodegenAttributeError,
    WarpCodegenKeyError,
    WarpCodegenIndexError,
    WarpCodegenNameError,
)

from ._src.logger import LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERROR, Logger, get_logger, set_logger  # noqa: E402,F401
from ._unsupported import NotSupportedError  # noqa: E402,F401
from ._runtime import (  # noqa: E402,F401
    CaptureMode,
    DeviceLike,
    MemoryKind,
    WarpDeterminismError,
    can_access,
    clear_kernel_cache,
    clear_lto_cache,
    cuda_profiler_start,
    cuda_profiler_stop,
    force_load,
    get_cuda_device,
    get_cuda_driver_version,
    get_cuda_supported_archs,
    get_cuda_toolkit_version,
    get_mempool_release_threshold,
    get_mempool_used_mem_current,
    get_mempool_used_mem_high,
    is_conditional_graph_supported,
    is_cubql_available,
    is_mempool_access_enabled,
    is_mempool_access_supported,
    is_mempool_enabled,
    is_mempool_supported,
    is_peer_access_enabled,
    is_peer_access_supported,
    load_module,
    print_diagnostics,
    set_mempool_access_enabled,
    set_mempool_enabled,
    set_mempool_release_threshold,
    set_peer_access_enabled,
)
from ._scoped import (  # noqa: E402,F401
    TIMING_ALL,
    TIMING_GRAPH,
    TIMING_KERNEL,
    TIMING_KERNEL_BUILTIN,
    TIMING_MEMCPY,
    TIMING_MEMSET,
    ScopedCudaProfiler,
    ScopedLogger,
    ScopedLogLevel,
    ScopedMempool,
    ScopedMempoolAccess,
    ScopedPeerAccess,
    ScopedStream,
    ScopedTimer,
    TimingResult,
    timing_begin,
    timing_end,
    timing_print,
    transform_expand,
)
from .context import Module  # noqa: E402,F401
from ._map import map  # noqa: E402,F401,A004 (Warp's name)
from . import utils, build_experimental  # noqa: E402,F401

__version__ = "1.19.0"
_weft_compat = True

pi = 3.14159265358979323846
e = 2.71828182845904523536
tau = 2.0 * pi
half_pi = 0.5 * pi
phi = (1.0 + _math.sqrt(5.0)) / 2.0
ln2, ln10 = _math.log(2.0), _math.log(10.0)
log2e, log10e = _math.log2(_math.e), _math.log10(_math.e)
inf = _math.inf
nan = _math.nan
PI, E, TAU, HALF_PI, PHI, LN2, LN10, LOG2E, LOG10E, INF, NAN = pi, e, tau, half_pi, phi, ln2, ln10, log2e, log10e, inf, nan


def static(x):
    """``wp.static(expr)``: evaluated by the compiler from the source."""
    return x


def _this_module():
    return _sys.modules[__name__]


from ._enums import (  # noqa: E402,F401
    JaxCallableGraphMode,
    JaxModulePreloadMode,
    TextureAddressMode,
    TextureFilterMode,
    TextureResourceFlags,
)


def address_of(expr):
    """``wp.address_of(x)``: the address of ``x`` inside a kernel or func;
    from Python it always raises (as in Warp)."""
    raise RuntimeError("wp.address_of() can only be used inside @wp.kernel and @wp.func bodies")


# Warp's builtins at Python scope (`wp.sin(0.5)`, `wp.normalize(v)`): one
# mechanism over the builtin table, weft/warp/_pyscope.py.
from . import _pyscope as _pyscope  # noqa: E402

_pyscope.define(globals())

# Every other public name of Warp 1.19: a placeholder raising
# NotSupportedError when used (_unsupported.TABLE; builtins of the kernel
# language that do not run at Python scope yet).
from . import _unsupported  # noqa: E402

_unsupported.install(globals(), "warp")
_unsupported.install_builtins(globals())
