"""Warp's builtins called from Python (``wp.sin(0.5)``, ``wp.normalize(v)``,
``wp.quat_rotate(q, v)``, ``wp.randf(state)``), outside kernels.

One mechanism serves every builtin Warp lets Python call (``export`` in
its registry, or written in Python by Warp; ``_builtins.json``, generated from ``conformance/registry.json``
by ``scripts/python-builtins.py``): a call becomes a one-thread kernel that
calls the builtin with the arguments as parameters and stores what it
returns, compiled by Weft (so the result is what the builtin gives inside
a kernel: the compiler's own table and code, not a copy) and run on the
``cpu`` device. Each builtin and argument types is compiled once per
process (and kept in the disk cache); later calls are a launch.

Argument types: Warp values (``wp.float16(1)``, ``wp.vec3(...)``, NumPy
scalars) keep theirs; a Python ``bool``, ``int`` or ``float`` takes the
type the builtin's overloads have at that position (``int32``/``float32``
where there is a choice: Warp's literal types).
"""

import builtins as _b
import ctypes
import json as _json
import os as _os

import numpy as _np

from . import types as _t

_HERE = _os.path.dirname(_os.path.abspath(__file__))

# Builtins that take arrays or act on memory, threads or the kernel's
# control flow: meaningless on Python values.
_NOT_VALUES = {
    "address", "array_store", "atomic_add", "atomic_and", "atomic_cas", "atomic_exch", "atomic_max",
    "atomic_min", "atomic_or", "atomic_sub", "atomic_xor", "block_dim", "index", "indexref", "load",
    "lower_bound", "store", "view", "static", "printf", "dense_chol", "dense_chol_batched", "dense_gemm",
    "dense_gemm_batched", "dense_solve", "dense_solve_batched", "dense_subs",
}

_INT_ORDER = ("int32", "uint32", "int64", "uint64", "int16", "uint16", "int8", "uint8")
_FLOAT_ORDER = ("float32", "float64", "float16")

# Builtins of Warp's registry that Weft's compiler knows as the operators
# they are (Warp defines them so): spelled as those operators in the code
# made here and by `wp.map`.
_OPERATORS = {
    "pos": "(+{0})",
    "invert": "(~{0})",
    "bit_and": "({0} & {1})",
    "bit_or": "({0} | {1})",
    "bit_xor": "({0} ^ {1})",
    "lshift": "({0} << {1})",
    "rshift": "({0} >> {1})",
}


def call_text(name, args):
    """Source text calling builtin ``name`` with ``args`` (source texts)."""
    op = _OPERATORS.get(name)
    if op is not None and op.count("{") == len(args) and not any("=" in a for a in args):
        return op.format(*args)
    return f"wp.{name}({', '.join(args)})"


_table = None
_compiled = {}
_by_py_types = {}


def table():
    """Builtin name -> ``{"group", "overloads": [[[param, type, has_default], ...], ...]}``."""
    global _table
    if _table is None:
        with open(_os.path.join(_HERE, "_builtins.json")) as f:
            _table = _json.load(f)["builtins"]
    return _table


def names():
    """The builtins callable from Python through this module."""
    return [n for n in table() if n not in _NOT_VALUES]


def _no_overload(name, types):
    """Warp's error for arguments (of ``types``) that no overload of
    ``name`` takes."""
    names_ = ", ".join(_t.type_repr(t) if issubclass(t, (_t._Scalar, _t._Composite)) else t.__name__ for t in types)
    return RuntimeError(f"Couldn't find a function '{name}' compatible with the arguments '{names_}'")


class _Caller:
    """What ``_convert`` needs to name the call in its errors."""

    def __init__(self, name):
        self.key = f"wp.{name}"


def _param_types(name, pos, kw):
    """For each overload whose parameters can take ``pos`` positional and the
    ``kw`` keyword arguments: its parameters' type names, by position and by
    name."""
    out = []
    for ov in table()[name]["overloads"]:
        names_ = [p[0] for p in ov]
        if len(pos) > len(ov) or any(k not in names_[len(pos):] for k in kw):
            continue
        given = set(names_[: len(pos)]) | set(kw)
        if any(not d and n not in given for n, _, d in ov):
            continue
        out.append({n: t for n, t, _ in ov})
    return out


def _pick(cands, order, fallback):
    for t in order:
        if t in cands:
            return t
    return fallback


# The registry's names of Python's own types in signatures.
_PY_NAMES = {"int": "int32", "float": "float32", "bool": "bool"}


def _type_of(a, cands):
    """The Warp type of argument ``a`` (None when it has none); ``cands``:
    the type names its position has in the matching overloads."""
    cands = {_PY_NAMES.get(c, c) for c in cands}
    if isinstance(a, _b.bool):
        return _t.bool
    if isinstance(a, _b.int):
        if any(c in _INT_ORDER for c in cands):
            return getattr(_t, _pick(cands, _INT_ORDER, "int32"))
        return getattr(_t, _pick(cands, _FLOAT_ORDER, "float32")) if cands else _t.int32
    if isinstance(a, _b.float):
        return getattr(_t, _pick(cands, _FLOAT_ORDER, "float32"))
    if isinstance(a, _np.generic):
        return _t.dtype_from_numpy(type(a))
    if isinstance(a, (_t._Scalar, _t._Composite)):
        return type(a)
    return None


def call(name, args, kwargs):
    """``wp.name(*args, **kwargs)`` at Python scope."""
    # Resolved once per builtin and Python argument types.
    key = (name, tuple(map(type, args)), tuple((k, v if isinstance(v, type) else type(v)) for k, v in kwargs.items()))
    run = _by_py_types.get(key)
    if run is None:
        run = _by_py_types[key] = _resolve(name, args, kwargs)
    if kwargs:
        return run(list(args) + [v for v in kwargs.values() if not isinstance(v, type)])
    return run(args)


def _resolve(name, args, kwargs):
    """The compiled call of ``name`` for arguments of these types."""
    from .codegen import _type_expr

    ovs = _param_types(name, args, kwargs)
    type_kw = {k: v for k, v in kwargs.items() if isinstance(v, type)}
    value_kw = {k: v for k, v in kwargs.items() if not isinstance(v, type)}
    tys = []
    for i, a in enumerate(args):
        cands = {o[list(o)[i]] for o in ovs if i < len(o)}
        tys.append(_type_of(a, cands))
    for k, a in value_kw.items():
        cands = {o[k] for o in ovs if k in o}
        tys.append(_type_of(a, cands))
    if not ovs or None in tys:
        raise _no_overload(name, [type(a) for a in list(args) + list(value_kw.values())])
    key = (name, tuple(tys), tuple(value_kw), tuple((k, _type_expr(v)) for k, v in type_kw.items()))
    run = _compiled.get(key)
    if run is None:
        try:
            run = _compiled[key] = _build(name, tys, list(value_kw), type_kw)
        except _NoOverload:
            # Named by the arguments' own types (`int`, not the int32 it
            # would have been), as Warp names them.
            raise _no_overload(name, [type(a) for a in list(args) + list(value_kw.values())]) from None
    return run


class _NoOverload(Exception):
    pass


def _build(name, tys, kw_names, type_kw):
    from .. import _native
    from .codegen import _type_expr
    from .context import _convert, _param_kinds, get_device

    where = f"wp.{name}"
    exprs = []
    for t in tys:
        e = _type_expr(t)
        if e is None:
            raise _NoOverload
        exprs.append(e)
    n_pos = len(tys) - len(kw_names)
    params = ", ".join(f"a{i}: {e}" for i, e in enumerate(exprs))
    call_args = [f"a{i}" for i in range(n_pos)]
    call_args += [f"{k}=a{n_pos + j}" for j, k in enumerate(kw_names)]
    for k, v in type_kw.items():
        e = _type_expr(v)
        if e is None:
            raise TypeError(f"{where}: argument '{k}' is not a Warp type")
        call_args.append(f"{k}={e}")
    text = call_text(name, call_args)
    names_ = ", ".join(f"a{i}" for i in range(len(tys)))
    head = f"import warp as wp\n\n\n@wp.func\ndef value({params}):\n    return {text}\n\n\n"
    try:
        probe = _native.compile(
            f"<{where}>", head + f"@wp.kernel\ndef k({params}):\n    r = value({names_})\n", opt=False
        )
        rets = probe.func_returns("value")
    except _native.CompileError:
        # A builtin with no result (`wp.expect_eq`) is called as a statement.
        head = f"import warp as wp\n\n\n@wp.func\ndef value({params}):\n    {text}\n\n\n"
        try:
            _native.compile(f"<{where}>", head + f"@wp.kernel\ndef k({params}):\n    value({names_})\n", opt=False)
        except _native.CompileError:
            raise _NoOverload from None
        rets = []
    outs = []
    for i, r in enumerate(rets):
        t = _t.type_from_native(r)
        e = _type_expr(t) if t is not None else None
        if e is None:
            raise TypeError(f"{where}: returns a {r}, which Python-scope calls do not support")
        outs.append((r, t, e))
    out_params = "".join(f", out{i}: wp.array(dtype={e})" for i, (_, _, e) in enumerate(outs))
    sep = ", " if params else ""
    if not outs:
        body = f"    value({names_})\n"
    elif len(outs) == 1:
        body = f"    out0[0] = value({names_})\n"
    else:
        rs = ", ".join(f"r{i}" for i in range(len(outs)))
        body = f"    {rs} = value({names_})\n" + "".join(f"    out{i}[0] = r{i}\n" for i in range(len(outs)))
    src = head + f"@wp.kernel\ndef k({params}{sep}{out_params.lstrip(', ')}):\n{body}"
    module = _native.compile(f"<{where}>", src)
    device = get_device("cpu")
    kernel = device._native.load(module, "k")
    kinds = _param_kinds(kernel)[: len(tys)]
    caller = _Caller(name)

    readers = [_reader(t) for _, t, _ in outs]

    def run(values):
        bufs = [_native.Array.zeros(r, [1]) for r, _, _ in outs]
        conv = _convert(caller, device, kinds, values)
        device._native.launch(kernel, [1], conv + bufs)
        res = [read(b.ptr()) for read, b in zip(readers, bufs)]
        return None if not res else res[0] if len(res) == 1 else tuple(res)

    return run


_CT = {
    "f": {2: None, 4: ctypes.c_float, 8: ctypes.c_double},
    "i": {1: ctypes.c_int8, 2: ctypes.c_int16, 4: ctypes.c_int32, 8: ctypes.c_int64},
    "u": {1: ctypes.c_uint8, 2: ctypes.c_uint16, 4: ctypes.c_uint32, 8: ctypes.c_uint64},
    "b": {1: ctypes.c_bool},
}


def _reader(t):
    """A function reading a value of Warp type ``t`` at an address, as Warp
    returns it: float32, int32 and bool results are Python numbers, other
    scalar types their Warp scalar, composites an instance of ``t``."""
    st = _t.scalar_type(t)
    npt = _np.dtype(st._np)
    n = int(_np.prod(_t.dtype_shape(t))) if _t.dtype_shape(t) else 0
    ct = _CT.get(npt.kind, {}).get(npt.itemsize)
    if ct is None:  # half precision: through NumPy
        def read(ptr):
            raw = (ctypes.c_uint16 * max(n, 1)).from_address(ptr)
            vals = _np.frombuffer(bytes(raw), dtype=npt).tolist()
            return (vals[0] if t in (_t.float32, _t.int32, _t.bool) else t(vals[0])) if not n else t(*vals)
        return read
    if n:
        arr = ct * n
        return lambda ptr: t(*arr.from_address(ptr))
    if t in (_t.float32, _t.int32, _t.bool):
        return lambda ptr: ct.from_address(ptr).value
    return lambda ptr: t(ct.from_address(ptr).value)


def define(namespace):
    """Adds every Python-callable builtin that ``namespace`` lacks."""
    for n in names():
        if n in namespace:
            continue

        def f(*args, _name=n, **kwargs):
            return call(_name, args, kwargs)

        f.__name__ = f.__qualname__ = n
        f.__doc__ = f"Warp's builtin ``{n}`` called from Python (``weft.warp._pyscope``)."
        namespace[n] = f
