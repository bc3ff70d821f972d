"""``wp.map``: a function mapped over the elements of arrays, as Warp's.

The function (a ``@wp.func``, a builtin such as ``wp.add``, a lambda or a
plain Python function written in the kernel language) becomes one kernel
made for the argument types: its source is written here, given a file name
of its own in ``linecache`` (so that ``codegen`` reads it as it reads any
function), and compiled by Weft. A probe compile first tells what the
function returns (its outputs' types). The arrays broadcast as NumPy's do.
Kernels are kept in ``warp.utils.map_cache`` by function, argument types
and broadcast pattern.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import itertools
import linecache
import textwrap

from . import types as _t

_counter = itertools.count()


def _wp():
    import sys

    return sys.modules[__name__.rsplit(".", 1)[0]]


def _array_cls():
    import sys

    return sys.modules[__name__.rsplit(".", 1)[0] + ".array"].array


def _arg_type(v):
    """The Warp type of a non-array argument of ``wp.map``."""
    from .structs import _StructInstance

    if isinstance(v, builtins.bool):
        return _t.bool
    if isinstance(v, builtins.int):
        return _t.int32
    if isinstance(v, builtins.float):
        return _t.float32
    if isinstance(v, (_t._Scalar, _t._Composite)):
        return type(v)
    if isinstance(v, _StructInstance):
        return type(v)
    try:
        import numpy as np

        if isinstance(v, np.generic):
            return _t.dtype_from_numpy(type(v))
    except TypeError:
        pass
    raise TypeError(f"wp.map: an argument of type {type(v).__name__} is neither a Warp array nor a Warp value")


def _type_name(t):
    return getattr(t, "__name__", str(t))


def _broadcast(shapes):
    """NumPy's broadcast of ``shapes``; Warp's error naming the two that
    do not fit."""
    out = shapes[0]
    for s in shapes[1:]:
        n = max(len(out), len(s))
        a = (1,) * (n - len(out)) + tuple(out)
        b = (1,) * (n - len(s)) + tuple(s)
        r = []
        for x, y in zip(a, b):
            if x != y and x != 1 and y != 1:
                raise ValueError(f"Shapes {tuple(out)} and {tuple(s)} are not broadcastable")
            r.append(max(x, y))
        out = tuple(r)
    return out


def _register_source(text, what):
    """A file name for generated source ``text`` (in ``linecache``)."""
    name = f"<wp.map {what} {next(_counter)}>"
    lines = text.splitlines(keepends=True)
    linecache.cache[name] = (len(text), None, lines, name)
    return name


def _define(text, what, namespace):
    """The function defined by source ``text`` in ``namespace``."""
    file = _register_source(text, what)
    code = compile(text, file, "exec")
    before = set(namespace)
    exec(code, namespace)  # noqa: S102 (source written here)
    new = [k for k in namespace if k not in before]
    return namespace[new[-1]]


_FILE_TREES = {}


def _lambda_source(fn):
    """(parameter names, body source text) of lambda ``fn``, from its file."""
    code = fn.__code__
    file = code.co_filename
    lines = linecache.getlines(file, fn.__globals__)
    if not lines:
        raise TypeError(f"wp.map: cannot read the source of {fn.__qualname__}")
    text = "".join(lines)
    tree = _FILE_TREES.get(file)
    if tree is None or tree[0] != text:
        tree = _FILE_TREES[file] = (text, ast.parse(text))
    found = []
    for node in ast.walk(tree[1]):
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
            found.append(node)
    if len(found) > 1:
        # Several lambdas start on that line: the one compiling to this code.
        same = [
            n
            for n in found
            if [a.arg for a in n.args.args] == list(code.co_varnames[: code.co_argcount])
            and _code_of(ast.get_source_segment(text, n)) == code.co_code
        ]
        found = same or found[:1]
    if not found:
        raise TypeError(f"wp.map: cannot find the source of {fn.__qualname__}")
    node = found[0]
    return [a.arg for a in node.args.args], ast.get_source_segment(text, node.body)


def _code_of(segment):
    try:
        c = compile(f"({segment})", "<lambda>", "eval")
    except SyntaxError:
        return None
    for k in c.co_consts:
        if inspect.iscode(k):
            return k.co_code
    return None


def _key_name(fn):
    """Warp's name of a function in its messages
    (``test__locals__int_function``)."""
    q = getattr(fn, "__qualname__", getattr(fn, "__name__", "function"))
    return q.replace(".<locals>.", "__locals__").replace(".", "__")


def _closure_key(fn):
    """What a lambda's or function's meaning depends on besides its source:
    the values of its free names."""
    code = fn.__code__
    out = []
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            v = cell.cell_contents
        except ValueError:
            v = None
        out.append((name, v if isinstance(v, (builtins.int, builtins.float, builtins.bool, str)) else id(v)))
    for name in code.co_names:
        v = fn.__globals__.get(name)
        out.append((name, v if isinstance(v, (builtins.int, builtins.float, builtins.bool, str)) else id(v)))
    return tuple(out)


def _callee(func):
    """How the generated code calls ``func``: ``(kind, key, name, info)``."""
    from ._pyscope import names as _builtin_names
    from .context import Function

    wp = _wp()
    if isinstance(func, Function):
        return "func", ("func", id(func)), _key_name(func.func), func
    name = getattr(func, "__name__", None)
    if name and (getattr(wp, name, None) is func) and (name in _builtin_names() or getattr(func, "_weft_name", None)):
        return "builtin", ("builtin", name), name, name
    if inspect.isfunction(func):
        if func.__name__ == "<lambda>":
            params, body = _lambda_source(func)
            return "lambda", ("lambda", tuple(params), body, _closure_key(func)), "lambda", (params, body)
        return "pyfunc", ("pyfunc", id(func.__code__), _closure_key(func)), _key_name(func), func
    raise TypeError(f"wp.map: parameter 'func' must be a Warp function, a builtin or a Python function, got {type(func).__name__}")


def _n_params(kind, func, info):
    if kind == "func":
        return len(inspect.signature(func.func).parameters)
    if kind == "lambda":
        return len(info[0])
    if kind == "pyfunc":
        return len(inspect.signature(func).parameters)
    return None


def _scope_of(fn):
    scope = dict(fn.__globals__)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            scope[name] = cell.cell_contents
        except ValueError:
            pass
    return scope


def _tname(prefix, i, t):
    """The name generated code gives type ``t``: a struct keeps its own
    (Weft's struct types are known by name), others ``_wpmap_T<i>``."""
    if getattr(t, "_weft_struct", False):
        return t.__name__
    return f"_wpmap_{prefix}{i}"


def _value_func(kind, func, info, types):
    """A ``@wp.func`` ``_wpmap_value(a0, ...)`` returning what ``func``
    returns for arguments of ``types``."""
    wp = _wp()
    # Unique names: `wp.func` makes overloads of same-named functions.
    uid = next(_counter)
    ns = {"wp": wp, "__name__": __name__}
    params = []
    for i, t in enumerate(types):
        ns[_tname("T", i, t)] = t
        params.append(f"a{i}: {_tname('T', i, t)}")
    args = [f"a{i}" for i in range(len(types))]
    if kind == "builtin":
        from ._pyscope import call_text

        call = call_text(info, args)
    elif kind == "func":
        ns["_wpmap_fn"] = func
        call = f"_wpmap_fn({', '.join(args)})"
    else:
        if kind == "lambda":
            names, body = info
            scope = _scope_of(func)
            ann = ", ".join(f"{n}: {_tname('T', i, types[i])}" for i, n in enumerate(names))
            src = f"def _wpmap_lambda{uid}({ann}):\n    return (\n{textwrap.indent(body, '        ')}\n    )\n"
        else:
            scope = _scope_of(func)
            src = textwrap.dedent(inspect.getsource(func))
            src = _strip_decorators(src)
        lns = {**scope, **{_tname("T", i, t): t for i, t in enumerate(types)}, "wp": scope.get("wp", wp)}
        user = _define(src, "function", lns)
        ns["_wpmap_fn"] = wp.func(user)
        call = f"_wpmap_fn({', '.join(args)})"
    src = f"def _wpmap_value{uid}({', '.join(params)}):\n    return {call}\n"
    return wp.func(_define(src, "value", ns)), ns


def _strip_decorators(src):
    tree = ast.parse(src)
    node = tree.body[0]
    if getattr(node, "decorator_list", None):
        lines = src.splitlines(keepends=True)
        return "".join(lines[node.lineno - 1 :])
    return src


def _returns(value_fn, ns, types):
    """The types ``value_fn`` returns (compiled once as a probe), or raises
    ``TypeError`` when it does not compile for ``types``."""
    from .. import _native
    from .context import Kernel

    params = ", ".join(f"a{i}: {_tname('T', i, t)}" for i, t in enumerate(types))
    src = f"def _wpmap_probe({params}):\n    r = _wpmap_value({', '.join(f'a{i}' for i in range(len(types)))})\n"
    pns = dict(ns)
    pns["_wpmap_value"] = value_fn
    probe = Kernel(_define(src, "probe", pns))
    text, file = probe.source
    module = _native.compile(file, text, opt=False)
    return module.func_returns("_wpmap_value"), ns


def _returns_nothing(kind, func, info, types):
    """Whether ``func`` compiles for ``types`` as a call whose value is not
    used (then it returns nothing)."""
    from .. import _native
    from .context import Kernel

    if kind not in ("func", "pyfunc"):
        return False
    wp = _wp()
    ns = {"wp": wp, "__name__": __name__, "_wpmap_fn": func if kind == "func" else wp.func(func)}
    ns.update({_tname("T", i, t): t for i, t in enumerate(types)})
    params = ", ".join(f"a{i}: {_tname('T', i, t)}" for i, t in enumerate(types))
    src = f"def _wpmap_void{next(_counter)}({params}):\n    _wpmap_fn({', '.join(f'a{i}' for i in range(len(types)))})\n"
    try:
        text, file = Kernel(_define(src, "probe", ns)).source
        _native.compile(file, text, opt=False)
    except Exception:  # noqa: BLE001 (it does not compile either way)
        return False
    return True


def _type_of_native(nd, candidates):
    t = _t.type_from_native(nd)
    if t is not None:
        return t
    for c in candidates:
        if getattr(c, "_weft_struct", False) and _t.native_dtype(c) == nd:
            return c
    return None


def _struct_candidates(kind, func, types):
    out = [t for t in types if getattr(t, "_weft_struct", False)]
    fns = []
    if kind == "func":
        fns = [ov.func for ov in func.overloads()]
    elif kind in ("lambda", "pyfunc"):
        fns = [func]
    seen = set()
    while fns:
        f = fns.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        for v in _scope_of(f).values():
            if getattr(v, "_weft_struct", False):
                out.append(v)
            elif hasattr(v, "overloads") and hasattr(v, "func"):
                try:
                    fns.extend(ov.func for ov in v.overloads())
                except Exception:  # noqa: BLE001 (only a search for struct types)
                    pass
    return out


def _index_text(ndim, out_ndim, shape, out_shape):
    """The index of an input array of ``shape`` at output thread
    ``i0..iN`` (broadcast: size-1 dimensions read element 0)."""
    off = out_ndim - ndim
    idx = []
    for d in range(ndim):
        od = off + d
        idx.append("0" if shape[d] == 1 and out_shape[od] != 1 else f"i{od}")
    return ", ".join(idx)


def map(func, *inputs, out=None, return_kernel=False, block_dim=None, device=None):  # noqa: A001 (Warp's name)
    """``wp.map(func, *inputs, out=None, return_kernel=False)``: ``func``
    applied to the elements of the arrays among ``inputs`` (broadcast
    together; other inputs are values passed to every call). Returns the
    output array (a list of them when ``func`` returns several), the
    arrays of ``out`` when given, or with ``return_kernel`` the kernel
    (its parameters: the inputs, then the outputs)."""
    from .utils import map_cache

    wp = _wp()
    array = _array_cls()
    from .array import _FamilyAnnotation, _UnsupportedArrayFamily

    for a in inputs:
        if isinstance(a, (_UnsupportedArrayFamily, _FamilyAnnotation)):
            from ._unsupported import NotSupportedError

            raise NotSupportedError(type(a)._weft_name, type(a)._weft_reason)
    arrays = [a for a in inputs if isinstance(a, array)]
    if not arrays:
        raise ValueError("map requires at least one warp.array input")
    kind, key, name, info = _callee(func)
    n = _n_params(kind, func, info)
    if n is not None and n != len(inputs):
        raise TypeError(
            f"Number of input arguments ({len(inputs)}) does not match expected number of function arguments ({n})"
        )
    out_shape = _broadcast([a.shape for a in arrays])
    types = [a.dtype if isinstance(a, array) else _arg_type(a) for a in inputs]
    pattern = tuple(
        (a.ndim, tuple(s == 1 and o != 1 for s, o in zip(a.shape, out_shape[len(out_shape) - a.ndim :])))
        if isinstance(a, array)
        else None
        for a in inputs
    )
    cache_key = (key, tuple(types), pattern, len(out_shape))
    got = map_cache.get(cache_key)
    if got is None:
        value_fn, ns = _value_func(kind, func, info, types)
        try:
            rets, ns = _returns(value_fn, ns, types)
        except Exception as e:  # a compile error: the function does not take these types
            from .. import _native

            if not isinstance(e, (_native.CompileError, RuntimeError)):
                raise
            if _returns_nothing(kind, func, info, types):
                raise TypeError("The provided function must return a value") from None
            raise TypeError(
                f"Function {name} does not support the provided argument types {', '.join(_type_name(t) for t in types)}"
            ) from None
        if not rets:
            raise TypeError("The provided function must return a value")
        cands = _struct_candidates(kind, func, types)
        rtypes = []
        for r in rets:
            t = _type_of_native(r, cands)
            if t is None:
                raise TypeError(f"wp.map: the function returns a {r}, which Weft cannot store in an array")
            rtypes.append(t)
        kernel = _map_kernel(value_fn, ns, inputs, types, rtypes, out_shape)
        got = map_cache[cache_key] = (kernel, rtypes)
    kernel, rtypes = got
    if return_kernel:
        return kernel
    outs = _outputs(out, rtypes, out_shape, arrays, wp)
    dev = device if device is not None else arrays[0].device
    wp.launch(kernel, dim=out_shape, inputs=list(inputs), outputs=outs, device=dev)
    if out is not None:
        return out
    return outs[0] if len(outs) == 1 else outs


def _map_kernel(value_fn, ns, inputs, types, rtypes, out_shape):
    from .context import Kernel

    array = _array_cls()
    kns = dict(ns)
    kns["_wpmap_value"] = value_fn
    params, args = [], []
    nd = len(out_shape)
    for i, (a, t) in enumerate(zip(inputs, types)):
        if isinstance(a, array):
            params.append(f"a{i}: wp.array(dtype={_tname('T', i, t)}, ndim={a.ndim})")
            args.append(f"a{i}[{_index_text(a.ndim, nd, a.shape, out_shape)}]")
        else:
            params.append(f"a{i}: {_tname('T', i, t)}")
            args.append(f"a{i}")
    for j, r in enumerate(rtypes):
        kns[_tname("R", j, r)] = r
        params.append(f"out{j}: wp.array(dtype={_tname('R', j, r)}, ndim={nd})")
    tid = ", ".join(f"i{d}" for d in range(nd))
    idx = ", ".join(f"i{d}" for d in range(nd))
    body = f"    {tid}{',' if nd == 1 else ''} = wp.tid()\n" if nd > 1 else "    i0 = wp.tid()\n"
    call = f"_wpmap_value({', '.join(args)})"
    if len(rtypes) == 1:
        body += f"    out0[{idx}] = {call}\n"
    else:
        rs = ", ".join(f"r{j}" for j in range(len(rtypes)))
        body += f"    {rs} = {call}\n" + "".join(f"    out{j}[{idx}] = r{j}\n" for j in range(len(rtypes)))
    src = f"def _wpmap_kernel({', '.join(params)}):\n{body}"
    fn = _define(src, "kernel", kns)
    return Kernel(fn, key=f"map_{getattr(value_fn, 'key', 'kernel')}")


def _outputs(out, rtypes, shape, arrays, wp):
    """The output arrays: ``out`` checked against what the function returns,
    or new ones (with gradients when an input has them)."""
    array = _array_cls()
    dtypes = ", ".join(_type_name(t) for t in rtypes)
    if out is None:
        rg = any(a.requires_grad for a in arrays)
        dev = arrays[0].device
        return [wp.empty(shape, dtype=t, device=dev, requires_grad=rg) for t in rtypes]
    if isinstance(out, array):
        if len(rtypes) != 1:
            raise TypeError(
                f"Invalid output provided, expected {len(rtypes)} Warp arrays with shape {shape} and dtypes ({dtypes})"
            )
        _check_out(out, rtypes[0], shape, "")
        return [out]
    outs = list(out)
    if len(outs) != len(rtypes):
        raise TypeError(
            f"Number of provided output arrays ({len(outs)}) does not match expected number of function outputs ({len(rtypes)})"
        )
    for j, (o, t) in enumerate(zip(outs, rtypes)):
        if not isinstance(o, array):
            raise TypeError(f"Output {j} must be a Warp array, got {type(o).__name__}")
        _check_out(o, t, shape, f" {j}")
    return outs


def _check_out(o, t, shape, which):
    if tuple(o.shape) != tuple(shape):
        raise TypeError(f"Output array{which} shape {tuple(o.shape)} does not match expected shape {tuple(shape)}")
    if not _t.types_equal(o.dtype, t):
        raise TypeError(f"Output array{which} dtype {_type_name(o.dtype)} does not match expected dtype {_type_name(t)}")
