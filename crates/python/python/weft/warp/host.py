"""Warp builtins callable from Python (a ``wp.func`` run on the host, as
Warp runs user functions called from Python): elementwise math of
numbers, Warp scalars and vectors, and ``quat_identity``. A Warp scalar
argument gives a result of its type; a Python number, a Python float."""

from __future__ import annotations

import math

from . import types as _t


def _unary(name, f):
    def builtin(x):
        if isinstance(x, _t._Scalar):
            return type(x)(f(x.value))
        if isinstance(x, _t._Composite):
            return type(x)([f(v) for v in x._data])
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return float(f(x))
        raise TypeError(f"wp.{name}: parameter 'x' must be a number, a Warp scalar or a vector, got {type(x).__name__}")

    builtin.__name__ = builtin.__qualname__ = name
    builtin.__doc__ = f"``wp.{name}`` on the host (elementwise)."
    return builtin


sin, cos, tan = _unary("sin", math.sin), _unary("cos", math.cos), _unary("tan", math.tan)
asin, acos, atan = _unary("asin", math.asin), _unary("acos", math.acos), _unary("atan", math.atan)
sqrt, exp, log = _unary("sqrt", math.sqrt), _unary("exp", math.exp), _unary("log", math.log)
floor, ceil = _unary("floor", math.floor), _unary("ceil", math.ceil)


def quat_identity(dtype=_t.float32):
    """The identity quaternion ``(0, 0, 0, 1)`` of ``dtype``."""
    return _t.quaternion(dtype)(0.0, 0.0, 0.0, 1.0)
