"""Snapshot of Warp's builtin registry, with one probe kernel per overload.

Run with the venv's Warp (1.19):

    ~/.cache/weft/warp-venv/bin/python conformance/gen/warp_registry.py            # writes conformance/registry.json
    ~/.cache/weft/warp-venv/bin/python conformance/gen/warp_registry.py --verify   # also type-checks every probe with Warp's codegen

For every builtin of `warp._src.context.builtin_functions` (tiles and the
geometry types -- Mesh, BVH, HashGrid, Volume, Texture, MarchingCubes --
are listed as out of scope) the snapshot lists every overload Warp
registers (its generic ones and the concrete expansions Warp makes for
them), each with a *probe*: a small Warp module whose kernel `probe` calls
that overload once (generic types instantiated with float32, int32, length
3, 3x3) and stores what it returns, so that no compiler can drop the call.
Builtins that are language constructs (`extract` is `v[i]`, `array_store` is
`a[i] = x`, `iter_next` is a `for` loop, ...) are probed through the
construct. `weft builtins` compiles every probe on every backend and writes
docs/builtins.md; CI checks that file against this snapshot.

`--verify` runs Warp's own code generation (type inference, no C++ build)
on every probe, so that each probe is Warp code Warp accepts.
"""

from __future__ import annotations

import argparse
import json
import sys
import typing
from pathlib import Path

import warp as wp
from warp._src import context
from warp._src import types as wt

OUT_OF_SCOPE_GROUPS = {"Tile Primitives", "Geometry", "Volumes", "Textures"}
OUT_OF_SCOPE_PREFIXES = ("tile", "mesh_", "bvh_", "hash_grid_", "volume_", "texture_", "marching")

# Builtins that are language constructs: how the probe spells them.
CONSTRUCTS = {
    "extract": "v[i]",
    "index": "v[i]",
    "indexref": "v[i] (a reference)",
    "address": "a[i] (read)",
    "load": "a[i] (read)",
    "array_store": "a[i] = x",
    "store": "a[i] = x",
    "view": "a[i] of a 2-D array (a view)",
    "assign_copy": "v[i] = x",
    "assign_inplace": "v[i] = x",
    "add_inplace": "v[i] += x",
    "sub_inplace": "v[i] -= x",
    "bit_and_inplace": "v[i] &= x",
    "bit_or_inplace": "v[i] |= x",
    "bit_xor_inplace": "v[i] ^= x",
    "transform_add_inplace": "t.p += x",
    "transform_sub_inplace": "t.p -= x",
    "transform_set_translation_copy": "t.p = x",
    "transform_set_rotation_copy": "t.q = x",
    "copy": "y = x",
    "tuple": "(a, b)",
    "slice": "a[i:j]",
    "range": "for i in range(...)",
    "reversed": "for i in reversed(range(...))",
    "iter_next": "for i in range(...)",
    "len": "len(x)",
    "static": "wp.static(expr)",
    "tid": "wp.tid()",
    "print": "print(x)",
    "pos": "+x",
    "neg": "-x",
    "add": "a + b",
    "sub": "a - b",
    "mul": "a * b",
    "div": "a / b",
    "floordiv": "a // b",
    "mod": "a % b",
    "bit_and": "a & b",
    "bit_or": "a | b",
    "bit_xor": "a ^ b",
    "lshift": "a << b",
    "rshift": "a >> b",
    "invert": "~a",
    "unot": "not a",
}

OPERATOR_SPELLING = {
    "pos": "+{0}",
    "neg": "-{0}",
    "add": "{0} + {1}",
    "sub": "{0} - {1}",
    "mul": "{0} * {1}",
    "div": "{0} / {1}",
    "floordiv": "{0} // {1}",
    "mod": "{0} % {1}",
    "bit_and": "{0} & {1}",
    "bit_or": "{0} | {1}",
    "bit_xor": "{0} ^ {1}",
    "lshift": "{0} << {1}",
    "rshift": "{0} >> {1}",
    "invert": "~{0}",
    "unot": "not {0}",
}

SCALARS = {t.__name__: t for t in wt.scalar_types + (wt.bool,)}


class Skip(Exception):
    """An overload that cannot be called from a kernel (e.g. tile arguments)."""


# ---------------------------------------------------------------------------
# Types: instantiation of generic ones, spelling in source and in docs.


def is_typevar(t) -> bool:
    return isinstance(t, typing.TypeVar)


def inst_scalar(t):
    if t is wt.Float or t is wt.Scalar or t is float:
        return wt.float32
    if t is wt.Int or t is int:
        return wt.int32
    if t is bool or t is wt.bool:
        return wt.bool
    if t is Any_:
        return wt.float32
    return t


Any_ = typing.Any


def instantiate(t):
    """A concrete Warp type for (possibly generic) annotation `t`."""
    if t is Any_ or is_typevar(t) or t in (float, int, bool):
        return inst_scalar(t)
    if wt.is_array(t):
        if not isinstance(t, wt.array) and type(t).__name__ not in ("array",):
            # indexedarray, fabricarray, ...: Weft has plain arrays only.
            if "indexed" in type(t).__name__ or "fabric" in type(t).__name__ or "fixed" in type(t).__name__:
                raise Skip(f"{type(t).__name__} argument")
        dt = t.dtype
        dt = wt.float32 if dt is Any_ else instantiate(dt)
        nd = t.ndim if isinstance(t.ndim, int) else 1
        return wp.array(dtype=dt, ndim=nd)
    if wt.is_tile(t):
        raise Skip("tile argument")
    if hasattr(t, "_wp_scalar_type_"):
        s = instantiate(t._wp_scalar_type_)
        if wt.type_is_transformation(t):
            return wt.transformation(dtype=s)
        if wt.type_is_quaternion(t):
            return wt.quaternion(dtype=s)
        if wt.type_is_vector(t):
            n = t._shape_[0]
            return wt.vector(length=3 if n in (0, Any_) else n, dtype=s)
        if wt.type_is_matrix(t):
            r, c = t._shape_
            r = 3 if r in (0, Any_) else r
            c = 3 if c in (0, Any_) else c
            return wt.matrix(shape=(r, c), dtype=s)
    return t


def scalar_src(s) -> str:
    return f"wp.{s.__name__}"


def type_src(t, aliases: dict) -> str:
    """Source spelling of concrete type `t` (module-level aliases for long names)."""
    if t in SCALARS.values():
        return scalar_src(t)
    if wt.is_array(t):
        return f"wp.array(dtype={type_src(t.dtype, aliases)}, ndim={t.ndim})"
    short = wt.type_repr(t)
    if getattr(wp, short, None) is not None and wt.types_equal(getattr(wp, short), t):
        return f"wp.{short}"
    s = t._wp_scalar_type_
    if wt.type_is_transformation(t):
        expr = f"wp.types.transformation(dtype={scalar_src(s)})"
    elif wt.type_is_quaternion(t):
        expr = f"wp.types.quaternion(dtype={scalar_src(s)})"
    elif wt.type_is_vector(t):
        expr = f"wp.types.vector(length={t._shape_[0]}, dtype={scalar_src(s)})"
    elif wt.type_is_matrix(t):
        expr = f"wp.types.matrix(shape=({t._shape_[0]}, {t._shape_[1]}), dtype={scalar_src(s)})"
    else:
        raise Skip(f"type {wt.type_repr(t)}")
    name = aliases.setdefault(expr, f"T{len(aliases)}")
    return name


def doc_type(t) -> str:
    r = wt.type_repr(t)
    return (
        r.replace("warp._src.types.", "")
        .replace("builtins.", "")
        .replace("length=0", "length=Any")
        .replace("shape=(0, 0)", "shape=(Any, Any)")
    )


def signature(name: str, o) -> str:
    ps = []
    for k, t in o.input_types.items():
        d = o.defaults.get(k, inspect_empty) if o.defaults else inspect_empty
        s = f"{k}: {doc_type(t)}"
        if d is not inspect_empty:
            s += f" = {d!r}"
        ps.append(s)
    return f"{name}({', '.join(ps)})"


inspect_empty = object()


# ---------------------------------------------------------------------------
# Probes.


class Probe:
    def __init__(self):
        self.aliases: dict[str, str] = {}
        self.params: list[str] = []
        self.body: list[str] = []
        self.nout = 0

    def param(self, t) -> str:
        n = f"a{len(self.params)}"
        self.params.append(f"{n}: {type_src(t, self.aliases)}")
        return n

    def out(self, t, value: str):
        """`out_k[0] = value` for a result of type `t` (tuples element by element)."""
        if t is None:
            return
        t = wt.strip_reference(t)
        if isinstance(t, tuple):
            names = [f"r{k}" for k in range(len(t))]
            self.body.append(f"{', '.join(names)} = {value}")
            for n, tt in zip(names, t):
                self.out(tt, n)
            return
        if wt.is_tuple(t) or typing.get_origin(t) is tuple:
            ts = t.types if wt.is_tuple(t) else typing.get_args(t)
            names = [f"r{k}" for k in range(len(ts))]
            self.body.append(f"{', '.join(names)} = {value}")
            for n, tt in zip(names, ts):
                self.out(tt, n)
            return
        if wt.is_array(t):
            # A view: store its first element.
            self.out(t.dtype, f"({value})[0]")
            return
        if t in (int,):
            t = wt.int32
        if t in (float,):
            t = wt.float32
        if t is bool:
            t = wt.bool
        n = f"out{self.nout}"
        self.nout += 1
        self.params.append(f"{n}: wp.array(dtype={type_src(t, self.aliases)})")
        self.body.append(f"{n}[0] = {value}")

    def source(self) -> str:
        lines = ["import warp as wp", ""]
        for expr, n in sorted(self.aliases.items(), key=lambda kv: int(kv[1][1:])):
            lines.append(f"{n} = {expr}")
        if self.aliases:
            lines.append("")
        lines += ["", "@wp.kernel", f"def probe({', '.join(self.params)}):"]
        lines += [f"    {b}" for b in (self.body or ["pass"])]
        return "\n".join(lines) + "\n"


def return_type(o, arg_types: dict, arg_values: dict):
    return o.value_func(arg_types, arg_values)


def default_probe(name: str, o, p: Probe, call_name: str | None = None):
    """`out[0] = wp.name(a0, a1, ...)` with every argument a kernel parameter."""
    args = []
    arg_types = {}
    arg_values = {}
    for k, t in o.input_types.items():
        if k.startswith("*"):
            raise Skip("variadic")
        if o.defaults and k in o.defaults and o.defaults[k] is None:
            continue
        if k == "dtype":
            c = instantiate(t)
            args.append(f"dtype={type_src(c, p.aliases)}")
            arg_types[k] = c
            arg_values[k] = c
            continue
        c = instantiate(t)
        arg_types[k] = c
        arg_values[k] = None
        args.append(p.param(c))
    # Generic `Any` value arguments follow the array's dtype or the first value's type.
    r = return_type(o, arg_types, arg_values)
    call = f"wp.{call_name or name}({', '.join(args)})"
    if name in OPERATOR_SPELLING:
        call = OPERATOR_SPELLING[name].format(*args)
    if r is None:
        p.body.append(call)
    else:
        p.out(r, call)


def fixup_any(o) -> dict:
    """input types with `Any` value arguments made consistent with the others."""
    its = dict(o.input_types)
    arr = next((t for t in its.values() if wt.is_array(t)), None)
    first = None
    for k, t in its.items():
        if k in ("arr", "cond", "dtype") or wt.is_array(t):
            continue
        if t is not Any_:
            first = first or t
    for k, t in its.items():
        if t is Any_ and k not in ("dtype",):
            if arr is not None and arr.dtype is not Any_:
                its[k] = arr.dtype
            elif arr is not None:
                its[k] = wt.float32
            elif first is not None:
                its[k] = first
    return its


class View:
    """An overload with some input types replaced."""

    def __init__(self, o, input_types):
        self.o = o
        self.input_types = input_types
        self.defaults = o.defaults
        self.value_func = o.value_func


def probe_for(name: str, o) -> Probe:
    p = Probe()
    its = fixup_any(o)
    ov = View(o, its)
    ts = {k: instantiate(t) for k, t in its.items() if not k.startswith("*") and k != "dtype"}
    a = lambda k: p.param(ts[k])  # noqa: E731
    if name == "tid":
        n = len(o.input_types) or {"builtin_tid1d": 1, "builtin_tid2d": 2, "builtin_tid3d": 3, "builtin_tid4d": 4}.get(o.native_func, 1)
        idx = ", ".join(f"i{k}" for k in range(n))
        p.body.append(f"{idx} = wp.tid()")
        for k in range(n):
            p.out(wt.int32, f"i{k}")
        return p
    if name in ("print",):
        p.body.append(f"print({p.param(wt.float32)})")
        return p
    if name == "printf":
        p.body.append(f'wp.printf("%f\\n", {p.param(wt.float32)})')
        return p
    if name == "breakpoint":
        p.body.append("wp.breakpoint()")
        return p
    if name == "block_dim":
        p.out(wt.int32, "wp.block_dim()")
        return p
    if name == "static":
        p.out(wt.float32, "wp.static(1.0 + 2.0)")
        return p
    if name in ("range", "iter_next", "reversed"):
        nargs = len(o.input_types)
        if name == "iter_next":
            if "range" not in o.input_types:
                raise Skip("geometry query iterator (out of scope)")
            nargs = 1
        args = [p.param(wt.int32) for _ in range(max(1, nargs if name == "range" else 1))]
        rng = f"range({', '.join(args)})"
        if name == "reversed":
            rng = f"reversed({rng})"
        p.body += ["s = int(0)", f"for i in {rng}:", "    s = s * 3 + i"]
        p.out(wt.int32, "s")
        return p
    if name == "len":
        t = ts.get("a")
        if t is None or (not wt.is_array(t) and not hasattr(t, "_wp_scalar_type_")):
            raise Skip("len of a tuple or tile")
        p.out(wt.int32, f"len({p.param(t)})")
        return p
    if name == "select":
        raise Skip("removed in Warp 1.19 (Warp raises: use wp.where)")
    if name == "extract" and "s" in its:
        arr = wp.array(dtype=wt.float32, ndim=2)
        p.out(wt.int32, f"{p.param(arr)}.shape[1]")
        return p
    if name == "extract" and "a" in its and its["a"] is tuple:
        x = p.param(wt.float32)
        y = p.param(wt.int32)
        p.body.append(f"t = ({x}, {y})")
        p.out(wt.int32, "t[1]")
        return p
    if name == "extract":
        for k in its:
            if k != "a":
                ts[k] = wt.int32
    if name in ("extract", "index", "indexref"):
        t = ts["a"]
        idx = [k for k in its if k != "a"]
        v = p.param(t)
        ii = [p.param(ts[k]) for k in idx]
        if any(not wt.types_equal(ts[k], wt.int32) and ts[k] not in SCALARS.values() for k in idx):
            raise Skip("non-integer index")
        r = return_type(ov, {"a": t, **{k: ts[k] for k in idx}}, {})
        p.out(r, f"{v}[{', '.join(ii)}]")
        return p
    if name in ("address", "load", "view"):
        arr = ts.get("arr")
        ks = [k for k in its if k not in ("arr", "address") and not (o.defaults and o.defaults.get(k, 0) is None)]
        if name == "load":
            arr = wp.array(dtype=wt.float32)
            ks = ["i"]
            ts["i"] = wt.int32
        if name == "view":
            arr = wp.array(dtype=wt.float32, ndim=2)
            v = p.param(arr)
            i = p.param(wt.int32)
            j = p.param(wt.int32)
            p.body.append(f"row = {v}[{i}]")
            p.out(wt.float32, f"row[{j}]")
            return p
        v = p.param(arr)
        ii = [p.param(ts[k]) for k in ks]
        p.out(arr.dtype, f"{v}[{', '.join(ii)}]")
        return p
    if name in ("array_store", "store"):
        arr = ts.get("arr", wp.array(dtype=wt.float32))
        ks = [k for k in its if k in ("i", "j", "k", "l")] or ["i"]
        v = p.param(arr)
        ii = [p.param(ts.get(k, wt.int32)) for k in ks]
        if len(ii) != arr.ndim:
            arr2 = wp.array(dtype=arr.dtype, ndim=len(ii))
            p.params[0] = f"a0: {type_src(arr2, p.aliases)}"
        x = p.param(arr.dtype)
        p.body.append(f"{v}[{', '.join(ii)}] = {x}")
        return p
    if name in ("assign_copy", "assign_inplace", "add_inplace", "sub_inplace", "bit_and_inplace", "bit_or_inplace", "bit_xor_inplace"):
        t = ts["a"]
        idx = [k for k in its if k not in ("a", "value")]
        if wt.is_tile(t):
            raise Skip("tile")
        op = {"assign_copy": "=", "assign_inplace": "=", "add_inplace": "+=", "sub_inplace": "-=",
              "bit_and_inplace": "&=", "bit_or_inplace": "|=", "bit_xor_inplace": "^="}[name]
        if op in ("&=", "|=", "^="):
            # Warp's C++ has no `&` on floats: its build fails for them.
            t = instantiate_int(its["a"])
        v = p.param(t)
        ii = [p.param(wt.int32) for _ in idx]
        comp = wt.vector(length=t._shape_[1], dtype=t._wp_scalar_type_) if (wt.type_is_matrix(t) and len(ii) == 1) else t._wp_scalar_type_
        x = p.param(comp)
        p.body += ["w = " + v, f"w[{', '.join(ii)}] {op} {x}"]
        p.out(t, "w")
        return p
    if name in ("transform_add_inplace", "transform_sub_inplace", "transform_set_translation_copy", "transform_set_rotation_copy"):
        t = wt.transformation(dtype=wt.float32)
        v = p.param(t)
        if name.endswith("rotation_copy"):
            x = p.param(wt.quaternion(dtype=wt.float32))
            stmt = f"w.q = {x}"
        else:
            x = p.param(wt.vector(length=3, dtype=wt.float32))
            op = {"transform_add_inplace": "+=", "transform_sub_inplace": "-="}.get(name, "=")
            stmt = f"w.p {op} {x}"
        p.body += [f"w = {v}", stmt]
        p.out(t, "w")
        return p
    if name == "copy":
        v = p.param(wt.vector(length=3, dtype=wt.float32))
        p.body += [f"w = {v}", "w[0] = 1.0"]
        p.out(wt.vector(length=3, dtype=wt.float32), "w")
        return p
    if name == "tuple":
        x = p.param(wt.float32)
        y = p.param(wt.int32)
        p.body.append(f"t = ({x}, {y})")
        p.out(wt.float32, "t[0]")
        p.out(wt.int32, "t[1]")
        return p
    if name == "slice":
        arr = wp.array(dtype=wt.float32)
        v = p.param(arr)
        i = p.param(wt.int32)
        j = p.param(wt.int32)
        p.body.append(f"s = {v}[{i}:{j}]")
        p.out(wt.float32, "s[0]")
        return p
    if name == "zeros":
        if "shape" in o.input_types and wt.is_tuple(o.input_types["shape"]) or typing.get_origin(o.input_types["shape"]) is tuple:
            p.body += ["z = wp.zeros(shape=(2, 3), dtype=wp.float32)", "z[1, 2] = 1.0"]
            p.out(wt.float32, "z[1, 2] + z[0, 0]")
        else:
            p.body += ["z = wp.zeros(shape=4, dtype=wp.float32)", "z[1] = 1.0"]
            p.out(wt.float32, "z[1] + z[0]")
        return p
    if name == "array":
        raise Skip("wp.array(ptr=...) from a raw pointer")
    if name == "cast":
        x = p.param(wt.int32)
        p.out(wt.float32, f"wp.cast({x}, wp.float32)")
        return p
    if name == "identity":
        p.out(wt.matrix(shape=(3, 3), dtype=wt.float32), "wp.identity(n=3, dtype=wp.float32)")
        return p
    if name == "vector":
        x = p.param(wt.float32)
        p.out(wt.vector(length=3, dtype=wt.float32), f"wp.vector({x}, {x}, {x})")
        p.out(wt.vector(length=5, dtype=wt.float64), f"wp.vector(length=5, dtype=wp.float64)")
        return p
    if name == "matrix":
        if "pos" in o.input_types:
            a0 = p.param(wt.vector(length=3, dtype=wt.float32))
            a1 = p.param(wt.quaternion(dtype=wt.float32))
            a2 = p.param(wt.vector(length=3, dtype=wt.float32))
            p.out(wt.matrix(shape=(4, 4), dtype=wt.float32), f"wp.matrix(pos={a0}, rot={a1}, scale={a2}, dtype=wp.float32)")
        else:
            x = p.param(wt.float32)
            p.out(wt.matrix(shape=(2, 3), dtype=wt.float32), f"wp.matrix({x}, {x}, {x}, {x}, {x}, {x}, shape=(2, 3))")
        return p
    if name in ("quaternion", "transformation", "spatial_vector"):
        its2 = {k: t for k, t in its.items() if k != "dtype"}
        if any(k.startswith("*") for k in its2):
            x = p.param(wt.float32)
            p.out(wt.transformation(dtype=wt.float32), f"wp.types.transformation({', '.join([x] * 7)}, dtype=wp.float32)")
            return p
        args = [p.param(instantiate(t)) for k, t in its2.items() if not (o.defaults and o.defaults.get(k, 0) is None and k == "q")]
        f = {"quaternion": "wp.types.quaternion", "transformation": "wp.types.transformation", "spatial_vector": "wp.spatial_vector"}[name]
        rt = {"quaternion": wt.quaternion(dtype=wt.float32), "transformation": wt.transformation(dtype=wt.float32),
              "spatial_vector": wt.vector(length=6, dtype=wt.float32)}[name]
        p.out(rt, f"{f}({', '.join(args + ['dtype=wp.float32'])})")
        return p
    if name in ("matrix_from_cols", "matrix_from_rows"):
        v = p.param(wt.vector(length=3, dtype=wt.float32))
        w = p.param(wt.vector(length=3, dtype=wt.float32))
        p.out(wt.matrix(shape=(3, 2), dtype=wt.float32) if name == "matrix_from_cols" else wt.matrix(shape=(2, 3), dtype=wt.float32),
              f"wp.{name}({v}, {w})")
        return p
    if name in SCALARS or name in ("int", "float", "bool"):
        # Conversions: wp.float16(x) etc.
        (k, t), = its.items()
        x = p.param(instantiate(t))
        target = {"int": wt.int32, "float": wt.float32, "bool": wt.bool}.get(name) or SCALARS[name]
        p.out(target, f"wp.{name}({x})" if name not in ("int", "float", "bool") else f"{name}({x})")
        return p
    if name == "expect_near" and "tolerance" in its:
        pass
    if name in ("atomic_and", "atomic_or", "atomic_xor"):
        its = {k: (instantiate_int(t) if (wt.is_array(t) or k == "value") else t) for k, t in its.items()}
        if "value" in its and wt.is_array(its["arr"]):
            its["value"] = its["arr"].dtype
        ov = View(o, its)
    if name.startswith("atomic_"):
        nidx = sum(1 for k in its if k in ("i", "j", "k", "l"))
        its = dict(its)
        a = its["arr"]
        its["arr"] = wp.array(dtype=a.dtype, ndim=nidx)
        ov = View(o, its)
    if name in ("dense_gemm_batched", "dense_chol_batched", "dense_solve_batched"):
        # Registered (hidden) but with no native implementation: Warp's own
        # C++ build fails with "no member named 'dense_gemm_batched'".
        raise Skip("registered without an implementation in Warp 1.19 (its C++ build fails)")
    if name == "lower_bound":
        # The array holds values of the searched type.
        its = dict(its)
        its["arr"] = wp.array(dtype=instantiate(its["value"]), ndim=1)
        ov = View(o, its)
    default_probe(name, ov, p)
    return p


def instantiate_int(t):
    if wt.is_array(t):
        dt = t.dtype
        if dt is Any_ or dt is wt.Scalar or is_typevar(dt) or dt in (wt.float32,):
            dt = wt.int32
        return wp.array(dtype=dt, ndim=t.ndim if isinstance(t.ndim, int) else 1)
    if hasattr(t, "_wp_scalar_type_") and (is_typevar(t._wp_scalar_type_) or t._wp_scalar_type_ in (wt.Scalar,)):
        if wt.type_is_vector(t):
            return wt.vector(length=3 if t._shape_[0] in (0, Any_) else t._shape_[0], dtype=wt.int32)
        if wt.type_is_matrix(t):
            return wt.matrix(shape=(3, 3), dtype=wt.int32)
    if t is Any_ or is_typevar(t):
        return wt.int32
    return instantiate(t)


def python_func_overloads(f):
    """A builtin written in Python (`warp/_src/math.py`): its one signature."""
    return [f]


class PyFuncView:
    def __init__(self, f):
        self.input_types = dict(f.input_types)
        self.defaults = dict(f.defaults or {})
        self.value_func = None
        self.generic = any(t is Any_ for t in self.input_types.values())
        self.hidden = False
        self.native_func = f.native_func
        self.f = f


def py_probe(name: str, f) -> Probe:
    """Probes of the builtins Warp writes in Python (norm_l1, quat_from_euler, ...)."""
    p = Probe()
    v3 = wt.vector(length=3, dtype=wt.float32)
    q = wt.quaternion(dtype=wt.float32)
    tf = wt.transformation(dtype=wt.float32)
    sv = wt.vector(length=6, dtype=wt.float32)
    m44 = wt.matrix(shape=(4, 4), dtype=wt.float32)
    m33 = wt.matrix(shape=(3, 3), dtype=wt.float32)
    table = {
        "norm_l1": ([v3], wt.float32),
        "norm_l2": ([v3], wt.float32),
        "norm_huber": ([v3, wt.float32], wt.float32),
        "norm_pseudo_huber": ([v3, wt.float32], wt.float32),
        "smooth_normalize": ([v3, wt.float32], v3),
        "velocity_at_point": ([sv, v3], v3),
        "quat_twist": ([v3, q], q),
        "quat_twist_angle": ([v3, q], wt.float32),
        "quat_twist_angle_signed": ([v3, q], wt.float32),
        "quat_to_rpy": ([q], v3),
        "quat_to_euler": ([q, wt.int32, wt.int32, wt.int32], v3),
        "quat_from_euler": ([v3, wt.int32, wt.int32, wt.int32], q),
        "transform_twist": ([tf, sv], sv),
        "transform_wrench": ([tf, sv], sv),
        "transform_from_matrix": ([m44], tf),
        "transform_to_matrix": ([tf], m44),
        "transform_compose": ([v3, q, v3], m44),
        "transform_decompose": ([m44], (v3, q, v3)),
    }
    if name not in table:
        raise Skip("unknown Python builtin")
    args, r = table[name]
    names = [p.param(t) for t in args]
    call = f"wp.{name}({', '.join(names)})"
    if isinstance(r, tuple):
        outs = [f"r{k}" for k in range(len(r))]
        p.body.append(f"{', '.join(outs)} = {call}")
        for n, t in zip(outs, r):
            p.out(t, n)
    else:
        p.out(r, call)
    _ = m33
    return p


def py_signature(name: str, f) -> str:
    try:
        import inspect

        fn = getattr(wp, name)
        sig = inspect.signature(fn.func if hasattr(fn, "func") and fn.func else fn)
        return f"{name}{sig}".replace("warp._src.types.", "").replace("warp._src.", "")
    except Exception:  # noqa: BLE001
        return f"{name}(...)"


def out_of_scope(name: str, f) -> bool:
    return f.group in OUT_OF_SCOPE_GROUPS or name.startswith(OUT_OF_SCOPE_PREFIXES)


def build() -> dict:
    bf = context.builtin_functions
    entries = []
    excluded = []
    for name in sorted(bf):
        f = bf[name]
        if out_of_scope(name, f):
            excluded.append({"name": name, "group": f.group})
            continue
        ovs = getattr(f, "overloads", None)
        # `export`: Warp lets Python call it (`wp.sin(0.5)` outside kernels).
        e = {"name": name, "group": f.group, "construct": CONSTRUCTS.get(name),
             "export": bool(getattr(f, "export", False)), "overloads": []}
        if not ovs:
            # Written in Python by Warp (warp/_src/math.py).
            e["python"] = True
            o = {"sig": py_signature(name, f), "generic": True}
            try:
                o["probe"] = py_probe(name, f).source()
            except Skip as s:
                o["skip"] = str(s)
            e["overloads"].append(o)
            entries.append(e)
            continue
        for ov in ovs:
            o = {"sig": signature(name, ov), "generic": bool(ov.generic)}
            try:
                o["probe"] = probe_for(name, ov).source()
            except Skip as s:
                o["skip"] = str(s)
            except Exception as ex:  # noqa: BLE001
                o["skip"] = f"no probe: {type(ex).__name__}: {ex}"
            e["overloads"].append(o)
        entries.append(e)
    return {
        "format_version": 1,
        "warp_version": wp.config.version,
        "note": "generated by conformance/gen/warp_registry.py from warp._src.context.builtin_functions",
        "builtins": entries,
        "out_of_scope": excluded,
    }


def verify(reg: dict) -> int:
    """Type-checks every probe with Warp's codegen; returns the number of failures."""
    import importlib.util
    import tempfile

    bad = 0
    tmp = Path(tempfile.mkdtemp(prefix="weft_probes_"))
    for e in reg["builtins"]:
        for k, o in enumerate(e["overloads"]):
            if "probe" not in o:
                continue
            path = tmp / f"p_{e['name']}_{k}.py"
            path.write_text(o["probe"])
            try:
                spec = importlib.util.spec_from_file_location(path.stem, path)
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)
                m = mod.probe.module
                builder = context.ModuleBuilder(m, m.options, target="cpu")
                builder.codegen("cpu")
            except Exception as ex:  # noqa: BLE001
                bad += 1
                o["skip"] = f"Warp rejects the probe: {type(ex).__name__}: {str(ex).splitlines()[0] if str(ex) else ''}"
                del o["probe"]
                print(f"probe rejected: {o['sig']}: {o['skip']}", file=sys.stderr)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "registry.json"))
    ap.add_argument("--verify", action="store_true")
    args = ap.parse_args()
    wp.config.quiet = True
    wp.init()
    reg = build()
    if args.verify:
        n = verify(reg)
        print(f"{n} probe(s) rejected by Warp", file=sys.stderr)
    Path(args.out).write_text(json.dumps(reg, indent=1, sort_keys=False) + "\n")
    nb = len(reg["builtins"])
    no = sum(len(e["overloads"]) for e in reg["builtins"])
    ns = sum(1 for e in reg["builtins"] for o in e["overloads"] if "probe" not in o)
    print(f"{nb} builtins, {no} overloads ({ns} without a probe), {len(reg['out_of_scope'])} out of scope -> {args.out}")


if __name__ == "__main__":
    main()
