"""Devices, kernels, funcs, structs and launches (Warp's ``wp.*`` runtime
API over the native core)."""

from __future__ import annotations

import builtins
import enum

import hashlib
import os
import re
import sys
import threading
import typing as _typing
import weakref
import warnings as _warnings

import numpy as _np

from .. import _native
from . import types as _t
from .array import array, _FamilyAnnotation, _UnsupportedArrayFamily
from .structs import _broadcast_scalar, _StructInstance, _warp_modules, struct  # noqa: F401
from .tape import Tape, _Tape_current  # noqa: F401

# ---------------------------------------------------------------- config


class DeterministicMode(enum.IntEnum):
    """``wp.DeterministicMode``: ``NOT_GUARANTEED`` (the default), or
    ``RUN_TO_RUN`` / ``GPU_TO_GPU``, which both ask Weft for deterministic
    launches (results independent of the thread count and schedule, float
    atomics included; see docs/runtime.md)."""

    NOT_GUARANTEED = 0
    RUN_TO_RUN = 1
    GPU_TO_GPU = 2


class LaunchArrayAccessMode(enum.IntEnum):
    """``wp.config.LaunchArrayAccessMode``: how launches check the arrays
    they are passed (Weft checks each launch's arguments in every mode)."""

    RELAXED = 0
    CHECKED = 1
    STRICT = 2


class _Config:
    """``wp.config``: Warp 1.19's settings, with its defaults. Those Weft
    acts on: ``mode`` ("release", or "debug": bounds-checked code),
    ``cache_kernels`` (Weft's disk cache), ``deterministic`` (a
    ``DeterministicMode``), ``log_level`` (``wp.ScopedTimer``'s and the
    logger's threshold). The others are accepted and kept, with no effect
    on Weft's compiler (``verify_fp``, ``max_unroll``, the CUDA and C++
    build settings, ...); ``verbose`` and ``quiet`` are Weft's own."""

    DeterministicMode = DeterministicMode
    LaunchArrayAccessMode = LaunchArrayAccessMode

    def __init__(self):
        self.version = "1.19.0"
        self.mode = "release"
        self.deterministic = DeterministicMode.NOT_GUARANTEED
        self.deterministic_debug = False
        self.deterministic_max_records = 0
        self.verbose = False
        self.verbose_warnings = False
        self.quiet = True
        self.cache_kernels = True
        self.kernel_cache_dir = None
        self.verify_fp = False
        self.verify_cuda = False
        self.verify_autograd_array_access = False
        self.print_launches = False
        self.enable_backward = True
        self.max_unroll = 16
        self.lineinfo = False
        self.line_directives = True
        self.optimization_level = None
        self.log_level = 20  # LOG_INFO
        self.enable_cpu_blocks = False
        self.launch_array_access_mode = LaunchArrayAccessMode.RELAXED
        self.compile_time_trace = False
        self.cpu_compiler_flags = None
        self.cuda_arch_suffix = None
        self.cuda_output = None
        self.ptx_target_arch = None
        self.llvm_cuda = False
        self.default_grid_stride = True
        self.enable_graph_capture_module_load_by_default = True
        self.enable_mathdx_fft = self.enable_mathdx_gemm = self.enable_mathdx_solver = True
        self.enable_mempools_at_init = True
        self.enable_tiles_in_stack_memory = True
        self.enable_vector_component_overwrites = False
        self.legacy_cpu_linker = False
        self.legacy_scalar_return_types = False
        self.load_module_max_workers = 0
        self.track_memory = False
        self.use_precompiled_headers = True

    def __setattr__(self, name, value):
        global _epoch
        object.__setattr__(self, name, value)
        _epoch += 1


# Bumped by every change of the options kernels compile with, so that a
# launch checks one integer instead of the options.
_epoch = 0
config = _Config()
# `deterministic`: None follows `wp.config.deterministic`.
# Each Python module's options (Warp's are per module: `set_module_options`
# in a module changes its kernels only), made from `wp.config` when first
# asked for. `mode` and `deterministic` None follow `wp.config`.
_module_options_by_name = {}


def _default_module_options():
    return {
        "max_unroll": config.max_unroll,
        "enable_backward": config.enable_backward,
        "enable_mathdx_gemm": None,
        "enable_mathdx_solver": None,
        "enable_mathdx_fft": None,
        "fast_math": False,
        "fuse_fp": True,
        "lineinfo": config.lineinfo,
        "cuda_output": None,
        "mode": None,
        "optimization_level": config.optimization_level,
        "cpu_compiler_flags": config.cpu_compiler_flags,
        "block_dim": 256,
        "compile_time_trace": False,
        "strip_hash": False,
        "extra_build_options": None,
        "deterministic": None,
        "deterministic_max_records": 0,
        "default_grid_stride": None,
    }


def _check_module_options(options, where):
    """Warp's checks of module options: known names, and a
    ``deterministic_max_records`` that is a non-negative int."""
    known = _default_module_options()
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(
            f"{where}: unknown module_options: {', '.join(repr(k) for k in unknown)}. "
            f"Valid options are: {', '.join(repr(k) for k in sorted(known))}."
        )
    if "deterministic_max_records" in options:
        v = options["deterministic_max_records"]
        if isinstance(v, builtins.bool) or not isinstance(v, (builtins.int, _np.integer)):
            raise TypeError(f"{where}: module option 'deterministic_max_records' must be an int, got {type(v).__name__}")
        if v < 0:
            raise ValueError(f"{where}: module option 'deterministic_max_records' must be non-negative, got {v}")


def _options_of(name):
    """The options of the Python module ``name`` (one dict per module)."""
    o = _module_options_by_name.get(name)
    if o is None:
        o = _module_options_by_name[name] = _default_module_options()
    return o


def _module_name(module, stack_level):
    """The module name ``module`` means (None: the caller's, ``stack_level``
    frames above the public function)."""
    import types as _pytypes

    from ._src.context import _get_caller_module_name

    if module is None:
        return _get_caller_module_name(stack_level + 2)
    if isinstance(module, str):
        return module
    if isinstance(module, _pytypes.ModuleType):
        return module.__name__
    if isinstance(module, Module):
        return module.name
    raise TypeError(f"parameter 'module' must be a module, a module name or a wp.Module, got {type(module).__name__}")


def set_module_options(options, module=None):
    """Sets options of ``module`` (default: the calling module): its
    kernels compile with them."""
    global _epoch
    if not isinstance(options, dict):
        raise TypeError(f"set_module_options: parameter 'options' must be a dict, got {type(options).__name__}")
    _options_of(_module_name(module, 1)).update(options)
    _epoch += 1


def get_module_options(module=None):
    """The options of ``module`` (default: the calling module)."""
    return _options_of(_module_name(module, 1))


# --------------------------------------------------------------- devices

_ALIASES = {"cuda": "cuda:0"}


class Device:
    """A Weft device under Warp's names (``cpu``, ``cuda:0``) or Weft's
    (``interp``, ``llvm-cpu``, ``vulkan``)."""

    def __init__(self, alias):
        self.alias = alias
        self._native = _native.Device(alias)
        self.ordinal = int(alias.split(":")[1]) if alias.startswith("cuda:") else -1
        self.name = alias

    is_cpu = property(lambda self: self.alias in ("cpu", "interp", "llvm-cpu"))
    is_cuda = property(lambda self: self.alias.startswith("cuda"))
    is_uva = property(lambda self: False)
    is_mempool_supported = property(lambda self: False)
    is_mempool_enabled = property(lambda self: False)
    is_capturing = property(lambda self: False)

    @property
    def arch(self):
        """The GPU's compute capability as Warp gives it (90 for sm_90); 0
        on the host devices."""
        m = re.search(r'target: Some\("sm_(\d+)"\)', self._native.describe()) if self.is_cuda else None
        return int(m.group(1)) if m else 0

    def __str__(self):
        return self.alias

    def __repr__(self):
        return f'"{self.alias}"'

    def __eq__(self, other):
        if isinstance(other, str):
            other = _ALIASES.get(other, other)
            return self.alias == other
        return isinstance(other, Device) and other.alias == self.alias

    def __hash__(self):
        return hash(self.alias)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _find_libdevice():
    """Points ``WEFT_LIBDEVICE`` at NVIDIA's ``libdevice.10.bc`` in an
    installed ``nvidia-cuda-nvcc`` wheel of this Python, when the variable
    is unset (the native library also looks in ``$CUDA_HOME`` and
    ``/usr/local/cuda``): kernels with math need it on ``cuda``."""
    if os.environ.get("WEFT_LIBDEVICE"):
        return
    for base in sys.path:
        for sub in ("nvidia/cuda_nvcc", "nvidia/cu13", "nvidia/cu12"):
            p = os.path.join(base, sub, "nvvm", "libdevice", "libdevice.10.bc")
            if os.path.isfile(p):
                os.environ["WEFT_LIBDEVICE"] = p
                return


_devices = {}
_lock = threading.Lock()
_state = threading.local()
_default_alias = "cpu"
_default_device = None


def _open(alias):
    alias = _ALIASES.get(alias, alias)
    d = _devices.get(alias)
    if d is None:
        with _lock:
            d = _devices.get(alias)
            if d is None:
                if alias.split(":")[0] == "cuda":
                    if "cuda" not in _native.device_names():
                        raise RuntimeError(_no_cuda_message(alias))
                    _find_libdevice()
                try:
                    d = Device(alias)
                except _native.WeftError as e:
                    raise RuntimeError(f"Invalid device identifier: {alias}: {e}") from None
                _devices[alias] = d
    return d


def get_device(ident=None):
    """The device ``ident`` names (None: the current default)."""
    if isinstance(ident, Device):
        return ident
    if ident is None:
        stack = getattr(_state, "stack", None)
        if stack:
            return stack[-1]
        return _default_device or _open(_default_alias)
    if not isinstance(ident, str):
        raise TypeError(f"parameter 'device' must be a device or a string, got {type(ident).__name__}")
    return _open(ident)


def set_device(ident):
    global _default_alias, _default_device
    _default_device = get_device(ident)
    _default_alias = _default_device.alias


def get_preferred_device():
    """``cuda:0`` where it opens, else ``cpu`` (as Warp)."""
    return get_device("cuda:0") if is_cuda_available() else get_device("cpu")


def _no_cuda_message(alias):
    info = _native.build_info()
    return (
        f"Invalid device identifier: {alias}: this build of weft {info['version']} "
        f"(features: {', '.join(info['features']) or 'none'}; devices: {', '.join(info['devices'])}) "
        "has no `cuda` device: it needs the cargo feature `llvm`. Install the self-contained wheel "
        "(scripts/wheel.sh), or build the package where LLVM 19 is installed (`pip install ./crates/python` "
        "turns the feature on when it finds LLVM; docs/python.md, \"Builds\")"
    )


_cuda_count = None


def get_cuda_device_count():
    """The CUDA devices that open (0 in a build without ``llvm`` or
    without a driver)."""
    global _cuda_count
    if _cuda_count is None:
        n = 0
        if "cuda" in _native.device_names():
            while True:
                try:
                    _open(f"cuda:{n}")
                except RuntimeError:
                    break
                n += 1
        _cuda_count = n
    return _cuda_count


def get_cuda_devices():
    return [get_device(f"cuda:{i}") for i in range(get_cuda_device_count())]


def get_devices():
    return [get_device("cpu")] + get_cuda_devices()


def is_cuda_available():
    return get_cuda_device_count() > 0


def is_cpu_available():
    return True


def is_device_available(device):
    try:
        get_device(device)
        return True
    except RuntimeError:
        return False


class ScopedDevice:
    def __init__(self, device):
        self.device = get_device(device) if device is not None else None

    def __enter__(self):
        if self.device is not None:
            stack = getattr(_state, "stack", None)
            if stack is None:
                stack = _state.stack = []
            stack.append(self.device)
        return self.device

    def __exit__(self, *a):
        if self.device is not None:
            _state.stack.pop()
        return False


def init():
    """Nothing to initialize (devices open on first use)."""


def synchronize():
    for d in list(_devices.values()):
        d._native.synchronize()


def synchronize_device(device=None):
    get_device(device)._native.synchronize()


# ----------------------------------------------------------- funcs/kernels


class Function:
    """A ``@wp.func`` (its overloads share the name within a module)."""

    def __init__(self, func):
        from .codegen import remember_source

        self.func = func
        remember_source(func)
        self.key = func.__name__
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self._overloads = [self]
        # `@wp.func_grad(self)` / `@wp.func_replay(self)` definitions: ("grad" | "replay", function)
        self._custom = []

    def overloads(self):
        return self._overloads

    def __call__(self, *args, **kwargs):
        """Called from Python, a user function runs as the Python function
        it is (as in Warp); of several overloads, the first whose annotated
        parameter types the arguments match. The ``wp.*`` builtins its body
        calls must exist on the host (few do in Weft yet)."""
        import inspect

        # Each overload's parameter types are checked, also for a single
        # one, as Warp does (a Python float is a float32, an int an int32).
        for f in self._overloads:
            try:
                bound = inspect.signature(f.func).bind(*args, **kwargs)
            except TypeError:
                continue
            anns = _param_annotations(f.func)
            if all(_matches(anns.get(n), v) for n, v in bound.arguments.items()):
                return f.func(*args, **kwargs)
        raise RuntimeError(f"Error calling function '{self.key}', no overload found for arguments {args}")


_funcs_by_name = {}


# The decorator's two forms, for static type checkers (Warp declares them too).
@_typing.overload
def func(f: "_typing.Callable[..., _typing.Any]") -> "Function": ...


@_typing.overload
def func(*, name: "str | None" = None, **kwargs: _typing.Any) -> "_typing.Callable[[_typing.Callable[..., _typing.Any]], Function]": ...


def func(f=None, *, name=None, **kwargs):
    def wrap(f):
        _warp_modules.add(f.__module__)
        key = (f.__module__, f.__qualname__)
        prev = _funcs_by_name.get(key)
        fn = Function(f)
        if prev is not None and not _same_params(prev.func, f):
            prev._overloads.append(fn)
            return prev
        _funcs_by_name[key] = fn
        return fn

    return wrap(f) if f is not None else wrap


def _custom_def(kind, forward):
    def wrap(fn):
        if not isinstance(forward, Function):
            raise TypeError(f"wp.func_{kind}: parameter 'forward_fn' must be a @wp.func, got {type(forward).__name__}")
        if not callable(fn):
            raise TypeError(f"wp.func_{kind}({forward.key}): the decorated object must be a function")
        forward._custom.append((kind, fn))
        return fn

    return wrap


def func_grad(forward_fn):
    """``@wp.func_grad(f)``: the decorated function is the adjoint of func
    ``f`` (its parameters: ``f``'s, then the adjoints of its results;
    ``wp.adjoint[x]`` accumulates into parameter ``x``'s adjoint). Weft's
    compiler matches it to ``f``'s overload and checks the signature when a
    kernel using ``f`` is compiled."""
    return _custom_def("grad", forward_fn)


def func_replay(forward_fn):
    """``@wp.func_replay(f)``: what the backward pass runs in place of
    func ``f`` when it replays the forward computation."""
    return _custom_def("replay", forward_fn)


class NativeFunction:
    """A ``@wp.func_native`` function: a C++/CUDA snippet as a func body.
    Weft compiles kernels itself and has no C++ to put a snippet in:
    defining one works (modules declaring them import), calling it from
    Python or compiling a kernel that calls it raises
    ``NotSupportedError``."""

    _REASON = "native (C++/CUDA) snippets do not exist in Weft: its kernels are compiled by its own compiler"

    def __init__(self, func, snippet, adj_snippet=None, replay_snippet=None):
        self.func = func
        self.key = getattr(func, "__name__", "native")
        self.__name__ = self.key
        self.native_snippet = snippet
        self.adj_native_snippet = adj_snippet
        self.replay_snippet = replay_snippet

    def _unsupported(self):
        from ._unsupported import NotSupportedError

        return NotSupportedError(f"wp.func_native ({self.key})", self._REASON)

    def __call__(self, *args, **kwargs):
        raise self._unsupported()


def func_native(snippet, adj_snippet=None, replay_snippet=None):
    """``@wp.func_native(snippet)``: see ``NativeFunction``."""
    if not isinstance(snippet, str):
        raise TypeError(f"wp.func_native: parameter 'snippet' must be a str, got {type(snippet).__name__}")
    return lambda f: NativeFunction(f, snippet, adj_snippet, replay_snippet)


def _same_params(a, b):
    import inspect

    return [p.annotation for p in inspect.signature(a).parameters.values()] == [
        p.annotation for p in inspect.signature(b).parameters.values()
    ]


_module_cache = {}


class Module:
    """``wp.Module``: the kernels of one Python module (``name``, its
    ``__name__``), or one kernel's own (``kernel.module``). Weft compiles a
    kernel on its first launch, or when its module is loaded
    (``load``, ``wp.load_module``, ``wp.force_load``)."""

    def __init__(self, name, kernel=None):
        self.name = name
        self._kernel = kernel

    @property
    def options(self):
        """The module's options (``wp.set_module_options``)."""
        return _options_of(self.name)

    @property
    def kernels(self):
        if self._kernel is not None:
            return [self._kernel]
        return list(_kernels_by_module.get(self.name, ()))

    def load(self, device=None, block_dim=None):
        """Compiles and loads the module's kernels (not the generic ones,
        which are instantiated per argument types) on ``device``."""
        device = get_device(device)
        for k in self.kernels:
            if not k.is_generic:
                k._load(device)
        return True

    def __repr__(self):
        return f"Module({self.name!r})"


_KernelModule = Module
# Python module name -> its kernels (weakly: a kernel made in a function goes with it).
_kernels_by_module = {}


def _forget_compiled():
    """Drops the compiled modules of this process (``wp.clear_kernel_cache``)."""
    global _epoch
    _module_cache.clear()
    for ks in list(_kernels_by_module.values()):
        for k in list(ks):
            for inst in [k, *k._instances.values()]:
                inst._module, inst._loaded = None, {}
    _epoch += 1


def get_module(name=None):
    """The ``wp.Module`` of the Python module ``name`` (default: the
    caller's)."""
    if name is None:
        name = sys._getframe(1).f_globals.get("__name__", "__main__")
    if not isinstance(name, str):
        raise TypeError(f"get_module: parameter 'name' must be a module name, got {type(name).__name__}")
    return Module(name)


class Kernel:
    """A ``@wp.kernel``: its module text is made (``codegen``) and
    compiled on first launch, then loaded once per device."""

    def __init__(self, func, key=None, module=None, options=None, enable_backward=None, _arg_types=None):
        from .codegen import remember_source

        self.func = func
        if _arg_types is None:
            remember_source(func)
        # An instance of a generic kernel: concrete types of its `Any` parameters.
        self._arg_types = _arg_types
        self._instances = {}
        self.key = key or func.__name__
        self.key_name = func.__name__
        self.__name__ = func.__name__
        self.options = dict(options or {})
        # None: the module's option decides, at compile time (`_backward`).
        self._enable_backward = enable_backward
        if module is None:
            module = getattr(func, "__module__", None) or "__main__"
        elif isinstance(module, Module):
            module = module.name
        self.module = Module(module, self)
        self._source = None
        self._module = None
        self._loaded = {}
        self._opts = None
        self._epoch = -1

    @property
    def is_generic(self):
        """Whether a parameter's annotation is (or holds) ``typing.Any``;
        such a kernel is instantiated per argument types at launch (or
        with ``wp.overload``), as in Warp."""
        if self._arg_types is not None:
            return False
        g = self.__dict__.get("_generic")
        if g is None:
            # Once per kernel: `inspect.signature` costs ~5 µs, most of a
            # launch from Python.
            g = self._generic = any(_t_is_generic(a) for a in _param_annotations(self.func).values())
        return g

    def _instance(self, arg_types):
        """The instance for ``arg_types`` (a parameter name → type dict for
        the generic parameters)."""
        key = tuple(sorted((n, _type_key(t)) for n, t in arg_types.items()))
        k = self._instances.get(key)
        if k is None:
            k = Kernel(
                self.func,
                key=self.key,
                module=self.module.name,
                options=self.options,
                enable_backward=self._enable_backward,
                _arg_types=dict(arg_types),
            )
            self._instances[key] = k
        return k

    def _instance_for_args(self, args):
        """The instance for the launch arguments ``args``."""
        anns = _param_annotations(self.func)
        names = list(anns)
        if len(args) != len(names):
            raise RuntimeError(f"Error launching kernel '{self.key}': it takes {len(names)} arguments, {len(args)} were passed")
        types = {}
        for name, a in zip(names, args):
            ann = anns[name]
            if not _t_is_generic(ann):
                continue
            types[name] = _arg_type(self.key, name, ann, a)
        return self._instance(types)

    @property
    def source(self):
        if self._source is None:
            from . import codegen, _this_module

            self._source = codegen.kernel_module(self, _this_module())
        return self._source

    def _native_module(self):
        # Warp's precedence: the kernel's own module options (`@wp.kernel(module="unique",
        # module_options=...)`), then the module's, then `wp.config`.
        det = config.deterministic
        module_options = _options_of(self.module.name)
        for o in (module_options, self.options):
            if o.get("deterministic") is not None:
                det = o["deterministic"]
        det = bool(int(det or 0))
        fast_math = self.options.get("fast_math", module_options.get("fast_math"))
        opts = (config.mode == "debug", bool(fast_math), bool(config.cache_kernels), det, self._backward())
        if self._module is None or self._opts != opts:
            if self._opts is not None and self._opts[4] != opts[4]:
                self._source = None  # the text says whether it has a backward
            text, file = self.source
            key = (hashlib.sha256(text.encode()).hexdigest(), file, opts)
            m = _module_cache.get(key)
            if m is None:
                m = _native.compile(file, text, checked=opts[0], fast_math=opts[1], cache=opts[2], deterministic=opts[3])
                _module_cache[key] = m
            self._module, self._opts, self._loaded = m, opts, {}
        return self._module

    def _backward(self):
        """Whether the kernel has an adjoint: its own ``enable_backward``
        when given, else its module's option."""
        if self._enable_backward is not None:
            return bool(self._enable_backward)
        own = self.options.get("enable_backward")
        if own is not None:
            return bool(own)
        return bool(_options_of(self.module.name).get("enable_backward", True))

    @property
    def enable_backward(self):
        return self._backward()

    @enable_backward.setter
    def enable_backward(self, value):
        self._enable_backward = value

    def _load(self, device):
        if self.options.get("entry_point_abi") == "external_constant_params":
            from ._unsupported import NotSupportedError

            raise NotSupportedError(
                "wp.kernel(entry_point_abi='external_constant_params')",
                "an external CUDA entry point bound to constant memory; Weft launches kernels with wp.launch only",
            )
        if self._epoch == _epoch:
            k = self._loaded.get(device.alias)
            if k is not None:
                return k
        m = self._native_module()
        self._epoch = _epoch
        k = self._loaded.get(device.alias)
        if k is None:
            k = device._native.load(m, self.key_name)
            k = (k, _param_kinds(k))
            self._loaded[device.alias] = k
        return k

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"kernel `{self.key}` must be launched with wp.launch()")

    def tier(self, device=None):
        """Weft's extension: the code this kernel runs now on ``device``
        (``"Cranelift (scalar)"``, ``"LLVM vector tier (16 lanes)"``,
        ``"PTX"``, ...; ``cpu`` moves a module to its vector tier once it
        has run about 20 ms). ``None`` before its first load there."""
        device = get_device(device)
        k = self._loaded.get(device.alias) if self._module is not None else None
        return k[0].tier() if k is not None else None


def _param_kinds(k):
    """``(name, Dtype, ndim, kind)`` per parameter of native kernel ``k``:
    kind 0 an array, 1 a value, 2 a struct (``_convert``'s)."""
    kinds = []
    for name, nd, ndim in k.params():
        if ndim is not None:
            kinds.append((name, nd, ndim, 0))
        elif nd.fields() or not nd.leaves():  # a struct (maybe empty)
            kinds.append((name, nd, None, 2))
        else:
            kinds.append((name, nd, None, 1))
    return kinds


def _param_annotations(fn):
    """Parameter name → evaluated annotation, in parameter order."""
    import inspect

    ann = getattr(fn, "__annotations__", {})
    out = {p: ann.get(p) for p in inspect.signature(fn).parameters}
    if any(isinstance(a, str) for a in out.values()):
        # `from __future__ import annotations`: evaluated where the function
        # was defined (its globals, then its closure), as Warp does.
        scope = dict(getattr(fn, "__globals__", {}))
        code, cells = getattr(fn, "__code__", None), getattr(fn, "__closure__", None) or ()
        if code is not None:
            for name, cell in zip(code.co_freevars, cells):
                try:
                    scope[name] = cell.cell_contents
                except ValueError:  # an unbound cell
                    pass
        for p, a in out.items():
            if isinstance(a, str):
                try:
                    out[p] = eval(a, scope)  # noqa: S307 (the user's own annotation text)
                except Exception:  # noqa: BLE001 (left as written; the compiler reports it)
                    pass
    return out


def _t_is_generic(a):
    import typing

    if _t._is_any(a) or isinstance(a, _t._GenericType):
        return True
    if isinstance(a, (_UnsupportedArrayFamily, _FamilyAnnotation)):
        return _t._is_any(getattr(a, "dtype", None))
    return isinstance(a, array) and a._native is None and _t._is_any(getattr(a, "dtype", None))


def _matches(ann, v):
    """Whether Python value ``v`` fits parameter annotation ``ann`` (for
    choosing a user function's overload from Python)."""
    import typing

    if ann is None or _t._is_any(ann) or isinstance(ann, _t._GenericType):
        return True
    if isinstance(ann, array):
        return isinstance(v, array) and v.ndim == ann.ndim and (_t._is_any(ann.dtype) or v.dtype is ann.dtype)
    t = _t._PY.get(ann, ann)
    if isinstance(v, _t._Scalar) or isinstance(v, (_t._Composite, _StructInstance)):
        return type(v) is t
    if isinstance(t, type) and issubclass(t, _t._Scalar):
        # Python's numbers are Warp's literal types: float32, int32, bool.
        if isinstance(v, builtins.bool):
            return t is _t.bool
        if isinstance(v, builtins.float):
            return t is _t.float32
        if isinstance(v, builtins.int):
            return t is _t.int32
        return False
    return False


def _type_key(t):
    return ("array", _type_key(t.dtype), t.ndim) if isinstance(t, array) else t


def _arg_type(kernel_key, name, ann, a):
    """The concrete type argument ``a`` gives generic parameter ``name``."""
    import typing

    if isinstance(ann, _t._GenericType):  # vector(Any, float), ...
        if not isinstance(a, _t._Composite):
            raise RuntimeError(
                f"Error launching kernel '{kernel_key}', argument '{name}' expects a {ann.kind}, but passed value has type {type(a).__name__}."
            )
        return type(a)
    if not _t._is_any(ann):  # wp.array(dtype=Any)
        if not isinstance(a, array):
            raise RuntimeError(
                f"Error launching kernel '{kernel_key}', argument '{name}' expects an array, but passed value has type {type(a).__name__}."
            )
        return array(dtype=a.dtype, ndim=ann.ndim)
    if isinstance(a, array):
        return array(dtype=a.dtype, ndim=a.ndim)
    if isinstance(a, (_StructInstance, _t._Composite, _t._Scalar)):
        return type(a)
    if isinstance(a, builtins.bool):
        return _t.bool
    if isinstance(a, builtins.int):
        return _t.int32
    if isinstance(a, builtins.float):
        return _t.float32
    raise RuntimeError(
        f"Error launching kernel '{kernel_key}', argument '{name}': cannot infer a type for the generic parameter from a {type(a).__name__}"
    )


def _unique_module_name(f, key, module_options=None):
    """A module of its own for a ``module="unique"`` kernel: named after
    its key and a hash of its code, closure and options, so that two such
    kernels differ and a redefinition of the same one is the same."""
    code = getattr(f, "__code__", None)
    h = hashlib.sha256(f"{f.__module__}.{f.__qualname__}.{key}".encode())
    if code is not None:
        h.update(code.co_code)
        h.update(repr(code.co_consts).encode())
        for cell in getattr(f, "__closure__", None) or ():
            try:
                v = cell.cell_contents
            except ValueError:
                v = None
            simple = isinstance(v, (builtins.int, builtins.float, builtins.bool, str, type(None)))
            h.update((repr(v) if simple else f"id:{id(v)}").encode())
        # The globals it names (a constant changed between two definitions
        # makes another kernel).
        for name in code.co_names:
            if name in f.__globals__:
                v = f.__globals__[name]
                simple = isinstance(v, (builtins.int, builtins.float, builtins.bool, str, type(None)))
                h.update(f"{name}={repr(v) if simple else id(v)}".encode())
        annotations = getattr(f, "__annotations__", {})
        h.update(repr(sorted((k, repr(v)) for k, v in annotations.items())).encode())
    if module_options:
        h.update(repr(sorted((k, repr(v)) for k, v in module_options.items())).encode())
    return f"{key}_{h.hexdigest()[:7]}"


# Kernels of module="unique" by their module's name: defining the same one
# again gives the same Kernel (as Warp's).
_unique_kernels = {}


def kernel(
    f=None,
    *,
    name=None,
    enable_backward=None,
    launch_bounds=None,
    cuda_max_registers=None,
    enable_cuda_smem_spilling=None,
    cluster_dim=None,
    module=None,
    module_options=None,
    entry_point_abi=None,
    grid_stride=None,
):
    """``@wp.kernel``. ``name``: the kernel's key (a C++ identifier, as
    Warp requires). ``module``: its module (a name, a ``wp.Module``, or
    ``"unique"``: a module of its own, whose options ``module_options``
    sets). The CUDA launch attributes (``launch_bounds``,
    ``cuda_max_registers``, ``enable_cuda_smem_spilling``,
    ``cluster_dim``) and ``grid_stride`` do not change what a kernel
    computes and are kept as options only."""
    if name is not None:
        if not isinstance(name, str):
            raise TypeError(f"@wp.kernel: parameter 'name' must be a str, got {type(name).__name__}")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(
                "@wp.kernel: parameter 'name' must be a non-empty valid C++ identifier matching [A-Za-z_][A-Za-z0-9_]*"
            )
    if entry_point_abi not in (None, "warp", "external_constant_params"):
        raise ValueError(f"entry_point_abi must be 'warp' or 'external_constant_params', got {entry_point_abi!r}")
    if entry_point_abi == "external_constant_params" and enable_backward is not False:
        raise ValueError("entry_point_abi='external_constant_params' requires enable_backward=False")
    if cuda_max_registers is not None and launch_bounds is not None:
        raise ValueError("cuda_max_registers and launch_bounds cannot be specified together")
    kernel_options = {
        k: v
        for k, v in (
            ("launch_bounds", launch_bounds),
            ("cuda_max_registers", cuda_max_registers),
            ("enable_cuda_smem_spilling", enable_cuda_smem_spilling),
            ("cluster_dim", cluster_dim),
            ("grid_stride", grid_stride),
        )
        if v is not None
    }
    if entry_point_abi not in (None, "warp"):
        kernel_options["entry_point_abi"] = entry_point_abi

    def wrap(f):
        if module_options is not None:
            if not isinstance(module_options, dict):
                raise TypeError(
                    f"@wp.kernel for '{f.__name__}': module_options must be a dict, got {type(module_options).__name__}."
                )
            if module != "unique":
                raise ValueError(
                    f"@wp.kernel for '{f.__name__}': module_options requires module=\"unique\". "
                    "Use wp.set_module_options() to set module-level options for a shared module."
                )
            _check_module_options(module_options, f"@wp.kernel for '{f.__name__}'")
        if module == "unique":
            m = _unique_module_name(f, name or f.__name__, {**(module_options or {}), "_kernel": kernel_options, "_eb": enable_backward})
            known = _unique_kernels.get(m)
            if known is not None:
                return known
        else:
            m = module
        k = Kernel(f, key=name, module=m, enable_backward=enable_backward, options={**kernel_options, **(module_options or {})})
        if module == "unique":
            _unique_kernels[m] = k
        if module_options:
            _options_of(k.module.name).update(module_options)
        _kernels_by_module.setdefault(k.module.name, weakref.WeakSet()).add(k)
        _warp_modules.add(k.module.name)
        return k

    return wrap(f) if f is not None else wrap


def constant(x):
    """A compile-time constant (its value, as in Warp): a number, a Warp
    scalar, vector, matrix, quaternion or transform."""
    if not _t.is_value(x):
        raise TypeError(f"Invalid constant type: {type(x)}")
    return x


# ------------------------------------------------------------------ structs

# ------------------------------------------------------------------ launch


def _dims(dim):
    if isinstance(dim, int):
        return [dim]
    try:
        dims = [int(d) for d in dim] if not isinstance(dim, str) else None
        if dims is None or not 1 <= len(dims) <= 4:
            raise TypeError
        return dims
    except (TypeError, ValueError):
        raise TypeError(f"parameter 'dim' must be an int or a tuple of ints, got {type(dim).__name__}") from None


def _convert(kernel, device, kinds, args):
    out = []
    for (name, nd, ndim, kind), a in zip(kinds, args):
        if kind == 0:
            if a is None:  # Warp's NULL array: Weft passes an empty one (shape 0 on each axis)
                out.append(_native.Array.zeros(nd, [0] * ndim))
                continue
            if not isinstance(a, array):
                raise RuntimeError(
                    f"Error launching kernel '{kernel.key}', argument '{name}' expects an array, but passed value has type {type(a).__name__}."
                )
            if a._freed:
                raise RuntimeError(f"Error launching kernel '{kernel.key}', argument '{name}': the array has been freed")
            if a.device is not device and a.device != device:
                raise RuntimeError(
                    f"Error launching kernel '{kernel.key}', argument '{name}': the array is on device {a.device}, the launch on {device}"
                )
            na = a._native
            if a._npv is not None:
                raise RuntimeError(
                    f"Error launching kernel '{kernel.key}', argument '{name}': the array is a view of another array "
                    f"({'non-' if not a.is_contiguous else ''}contiguous, strides {a.strides}); Weft passes only whole arrays "
                    f"to kernels, pass a copy (`.contiguous()`, `wp.clone`)"
                )
            if na is None:
                raise RuntimeError(f"Error launching kernel '{kernel.key}', argument '{name}': the array has no storage")
            if a.ndim != ndim:
                raise RuntimeError(
                    f"Error launching kernel '{kernel.key}', argument '{name}' expects an array with {ndim} dimension(s) but the passed array has {a.ndim} dimension(s)."
                )
            out.append(na)
        elif kind == 1:
            if isinstance(a, _t._Composite):  # first: the common case, no type lookups
                out.append(a._data)
                continue
            n = len(nd.leaves())
            v = None
            if n > 1:
                tn = _t.type_from_native(nd)
                tname = tn.__name__ if tn is not None else str(nd)
                v = _broadcast_scalar(a, tname, f"kernel parameter '{name}'")
            if v is not None:
                out.append([v] * n)
            elif n > 1 and a is None:
                tn = _t.type_from_native(nd)
                raise ValueError(
                    f"Failed to convert argument for param {name} to {tn.__name__ if tn is not None else nd}"
                )
            elif n > 1 and not hasattr(a, "__len__"):
                tn = _t.type_from_native(nd)
                tname = tn.__name__ if tn is not None else str(nd)
                raise RuntimeError(
                    f"Error launching kernel '{kernel.key}', argument '{name}' expects "
                    f"{tname} but got a single value of type {type(a).__name__}. "
                    f"Construct the value explicitly, e.g.: {tname}(...)."
                )
            elif isinstance(a, _t._Composite):
                out.append(a._data)
            elif isinstance(a, _t._Scalar):
                out.append(a.value)
            elif isinstance(a, array):
                raise RuntimeError(
                    f"Error launching kernel '{kernel.key}', argument '{name}' expects a value of type {nd}, but passed value is an array."
                )
            elif isinstance(a, _np.ndarray):
                if a.size != n:
                    tn = _t.type_from_native(nd)
                    raise ValueError(
                        f"Error launching kernel '{kernel.key}', argument '{name}' expects {tn.__name__ if tn is not None else nd} "
                        f"of {n} components, but passed a NumPy array of shape {a.shape}"
                    )
                out.append(a.reshape(-1).tolist())
            elif isinstance(a, (list, tuple)) and a and hasattr(a[0], "__len__"):
                out.append(_t._flatten(a))
            else:
                out.append(a)
        else:
            if not isinstance(a, _StructInstance):
                raise RuntimeError(
                    f"Error launching kernel '{kernel.key}', argument '{name}' expects a struct {nd}, but passed value has type {type(a).__name__}."
                )
            out.append(a._pack(nd))
    return out


def launch(
    kernel,
    dim,
    inputs=(),
    outputs=(),
    adj_inputs=None,
    adj_outputs=None,
    device=None,
    stream=None,
    adjoint=False,
    record_tape=True,
    record_cmd=False,
    max_blocks=0,
    block_dim=256,
):
    """Runs ``kernel`` over ``dim`` threads (an int or 1-4 ints); with
    ``record_cmd=True`` returns the launch as a ``wp.Launch`` instead."""
    device = get_device(device)
    args = list(inputs) + list(outputs) if outputs else list(inputs)
    if isinstance(kernel, Kernel) and kernel.is_generic:
        kernel = kernel._instance_for_args(args)
    k, kinds = kernel._load(device) if isinstance(kernel, Kernel) else _not_kernel(kernel)
    dims = [dim] if type(dim) is int else _dims(dim)
    if len(args) != len(kinds):
        raise RuntimeError(
            f"Error launching kernel '{kernel.key}': it takes {len(kinds)} arguments, {len(args)} were passed"
        )
    if record_cmd:
        cmd = Launch(kernel, device, params=args, adjoint=adjoint)
        cmd.dims = dims
        return cmd
    if 0 in dims:
        return
    _run(kernel, device, k, dims, _convert(kernel, device, kinds, args), adjoint)
    tape = _Tape_current()
    if tape is not None and record_tape and not adjoint:
        tape._record(kernel, device, dims, args, len(inputs))


def _run(kernel, device, k, dims, conv, adjoint):
    """Runs the loaded kernel ``k`` with converted arguments ``conv``."""
    try:
        if adjoint:
            device._native.launch_adjoint(k, dims, conv)
        else:
            device._native.launch(k, dims, conv)
    except _native.LaunchError as e:
        raise RuntimeError(f"Error launching kernel '{kernel.key}': {e}") from None


class _ZeroStruct:
    """The zero value of a struct parameter a ``wp.Launch`` leaves unset."""

    def _pack(self, nd):
        return bytes(nd.size)


class Launch:
    """A recorded launch (``wp.launch(..., record_cmd=True)`` or
    ``wp.Launch(kernel, device)``): its parameters and dimensions can be
    changed and it runs with ``launch()``. Parameters are converted when
    it runs, so a struct changed after being set is seen (as in Warp).
    Unset parameters are zero (arrays: None, Warp's null array).
    An adjoint launch uses each array's own ``.grad``; separate adjoint
    arrays (``adjoint=True`` setters) are not supported by Weft yet."""

    def __init__(self, kernel, device=None, hooks=None, params=None, params_addr=None, bounds=None,
                 max_blocks=0, block_dim=None, adjoint=False, fwd_args=None, adj_args=None):
        if not isinstance(kernel, Kernel):
            _not_kernel(kernel)
        if kernel.is_generic:
            if params is None:
                raise RuntimeError(f"wp.Launch: kernel '{kernel.key}' is generic; pass 'params' to choose its instance")
            kernel = kernel._instance_for_args(list(params))
        self.kernel, self.device, self.adjoint = kernel, get_device(device), builtins.bool(adjoint)
        _, self._kinds = kernel._load(self.device)
        self._names = [kind[0] for kind in self._kinds]
        if params is not None:
            if len(params) != len(self._kinds):
                raise RuntimeError(f"wp.Launch: parameter 'params' has {len(params)} values, kernel '{kernel.key}' takes {len(self._kinds)}")
            self.params = list(params)
        else:
            self.params = [self._zero(kind) for kind in self._kinds]
        self.dims = [0] if bounds is None else ([bounds] if type(bounds) is int else _dims(bounds))

    @staticmethod
    def _zero(kind):
        _, nd, _, k = kind
        if k == 0:
            return None
        if k == 2:
            return _ZeroStruct()
        n = len(nd.leaves())
        return [0] * n if n > 1 else 0

    def set_dim(self, dim):
        self.dims = [dim] if type(dim) is int else _dims(dim)

    def _index(self, name):
        try:
            return self._names.index(name)
        except ValueError:
            raise RuntimeError(f"wp.Launch: kernel '{self.kernel.key}' has no parameter '{name}'") from None

    def set_param_at_index(self, index, value, adjoint=False):
        if adjoint:
            raise NotImplementedError("wp.Launch: separate adjoint arrays are not supported by Weft yet")
        if not 0 <= index < len(self._kinds):
            raise RuntimeError(f"wp.Launch: parameter index {index} is out of range for kernel '{self.kernel.key}'")
        if value is not None or self._kinds[index][3] != 0:
            _convert(self.kernel, self.device, [self._kinds[index]], [value])  # checks, naming the parameter
        self.params[index] = value

    def set_param_by_name(self, name, value, adjoint=False):
        self.set_param_at_index(self._index(name), value, adjoint)

    def set_param_at_index_from_ctype(self, index, value, adjoint=False):
        self.set_param_at_index(index, value, adjoint)

    def set_param_by_name_from_ctype(self, name, value):
        self.set_param_by_name(name, value)

    def set_params(self, values):
        for i, v in enumerate(values):
            self.set_param_at_index(i, v)

    set_params_from_ctypes = set_params

    def launch(self, stream=None):
        # What `wp.launch` does once its kernel, device and argument count
        # are known (they were at construction): convert (and so check)
        # the parameters as they are now, and run.
        if 0 in self.dims:
            return
        k, kinds = self.kernel._load(self.device)
        conv = _convert(self.kernel, self.device, kinds, self.params)
        _run(self.kernel, self.device, k, self.dims, conv, self.adjoint)


def _not_kernel(k):
    raise TypeError(f"parameter 'kernel' must be a wp.kernel, got {type(k).__name__}")


def overload(fn, arg_types=None):
    """``wp.overload``: concrete signatures of generic funcs and kernels.
    Weft instantiates generic funcs per call from the source, so a func
    overload stub is dropped. A generic kernel's overload (``arg_types`` a
    list or a name → type dict, or a decorated stub with concrete
    annotations naming the kernel) makes that instance now; launches
    instantiate per argument types anyway."""
    import inspect

    if isinstance(fn, Kernel):
        if not fn.is_generic:
            raise RuntimeError(f"wp.overload: kernel '{fn.key}' is not generic")
        names = list(_param_annotations(fn.func))
        if isinstance(arg_types, dict):
            types = dict(arg_types)
        elif isinstance(arg_types, (list, tuple)):
            if len(arg_types) != len(names):
                raise TypeError(f"wp.overload: parameter 'arg_types' has {len(arg_types)} types, kernel '{fn.key}' takes {len(names)}")
            types = dict(zip(names, arg_types))
        else:
            raise TypeError("wp.overload: parameter 'arg_types' must be a list or dict of types")
        anns = _param_annotations(fn.func)
        return fn._instance({n: t for n, t in types.items() if _t_is_generic(anns.get(n))})
    if inspect.isfunction(fn):
        generic = fn.__globals__.get(fn.__name__)
        if isinstance(generic, Kernel) and generic.is_generic:
            overload(generic, {n: a for n, a in _param_annotations(fn).items()})
            return generic
    return fn


def static(x):
    return x
