"""Warp builtins callable from Python (a ``wp.func`` run on the host, as
Warp runs user functions called from Python): math of numbers and Warp
scalars, ``dot``, ``length``, ``matrix_from_cols``/``_rows``,
``quat_identity``, ``quat_rpy``, ``transform_identity``,
``transform_set_translation``/``_rotation``. A
number or Warp scalar argument gives a Python float (as Warp's)."""

from __future__ import annotations

import math

from . import types as _t


def _unary(name, f):
    def builtin(x):
        if isinstance(x, _t._Scalar):
            return float(f(x.value))
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return float(f(x))
        tn = x.__class__.__name__ if not isinstance(x, _t._Composite) else _t.type_repr(type(x))
        raise RuntimeError(f"Couldn't find a function '{name}' compatible with the arguments '{tn}'")

    builtin.__name__ = builtin.__qualname__ = name
    builtin.__doc__ = f"``wp.{name}`` of a number on the host."
    return builtin


sin, cos, tan = _unary("sin", math.sin), _unary("cos", math.cos), _unary("tan", math.tan)
asin, acos, atan = _unary("asin", math.asin), _unary("acos", math.acos), _unary("atan", math.atan)
sqrt, exp, log = _unary("sqrt", math.sqrt), _unary("exp", math.exp), _unary("log", math.log)
floor, ceil = _unary("floor", math.floor), _unary("ceil", math.ceil)


def quat_identity(dtype=_t.float32):
    """The identity quaternion ``(0, 0, 0, 1)`` of ``dtype``."""
    return _t.quaternion(dtype)(0.0, 0.0, 0.0, 1.0)


def quat_rpy(roll, pitch, yaw):
    """The quaternion of roll, pitch and yaw angles (Warp's ``quat_rpy``:
    ``quat.h``), of the angles' Warp scalar type (``float32`` for Python
    numbers)."""
    st = type(roll) if isinstance(roll, _t._Scalar) else _t.float32
    r, p, y = (float(a.value if isinstance(a, _t._Scalar) else a) for a in (roll, pitch, yaw))
    cy, sy = math.cos(y * 0.5), math.sin(y * 0.5)
    cr, sr = math.cos(r * 0.5), math.sin(r * 0.5)
    cp, sp = math.cos(p * 0.5), math.sin(p * 0.5)
    w = cy * cr * cp + sy * sr * sp
    x = cy * sr * cp - sy * cr * sp
    yy = cy * cr * sp + sy * sr * cp
    z = sy * cr * cp - cy * sr * sp
    return _t.quaternion(st)(x, yy, z, w)


def transform_identity(dtype=_t.float32):
    """The identity transform (``p = 0``, ``q = (0, 0, 0, 1)``) of ``dtype``."""
    return _t.transformation(dtype)()


def transform_set_translation(t, p):
    """Sets the translation of transform ``t`` in place (Warp's mutating builtin)."""
    t.p = p


def transform_set_rotation(t, q):
    """Sets the rotation of transform ``t`` in place (Warp's mutating builtin)."""
    t.q = q


def dot(a, b):
    """The dot product of two vectors (a Python float, as Warp's)."""
    if not (isinstance(a, _t._Composite) and isinstance(b, _t._Composite)) or len(a._data) != len(b._data):
        raise RuntimeError(f"Couldn't find a function 'dot' compatible with the arguments '{type(a).__name__}, {type(b).__name__}'")
    return float(sum(x * y for x, y in zip(a._data, b._data)))


def length(a):
    """The Euclidean length of a vector (a Python float)."""
    return math.sqrt(dot(a, a))


def _matrix_from(vecs, cols):
    if not vecs or not all(isinstance(v, _t._Composite) and len(v._shape_) == 1 for v in vecs):
        raise RuntimeError("matrix_from_cols/matrix_from_rows take vectors of one length")
    n = vecs[0]._length_
    st = vecs[0]._wp_scalar_type_
    shape = (n, len(vecs)) if cols else (len(vecs), n)
    m = _t.matrix(shape, st)
    rows = [[v._data[i] for v in vecs] for i in range(n)] if cols else [list(v._data) for v in vecs]
    return m(rows)


def matrix_from_cols(*cols):
    """The matrix whose columns are the vectors ``cols``."""
    return _matrix_from(cols, True)


def matrix_from_rows(*rows):
    """The matrix whose rows are the vectors ``rows``."""
    return _matrix_from(rows, False)
