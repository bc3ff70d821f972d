"""Warp's value types for Weft: scalars, vectors, matrices, quaternions,
transforms, and the array annotation types (``warp.types`` of Warp 1.19).

Each type knows its IR element description (``_wd``: what the native core's
``Dtype.of`` takes) and its NumPy scalar type; values are plain Python
objects holding their components in memory order.
"""

from __future__ import annotations

import builtins
import ctypes
import math
import typing

import numpy as np

from .. import _native

# ---------------------------------------------------------------- scalars


class _Scalar:
    """A Warp scalar type; instances hold one number in ``value``."""

    _ir = "f32"
    _np = np.float32
    _is_float = True
    _length_ = 1
    _shape_ = ()

    def __init__(self, x=0):
        if isinstance(x, _Scalar):
            x = x.value
        if self._ir == "bf16":
            # NumPy has no bfloat16: the value is kept as a float (as Warp
            # keeps it) and rounded where it is stored.
            self.value = builtins.float(x)
            return
        if isinstance(x, (builtins.int, np.integer)) and not isinstance(x, (builtins.bool, np.bool_)) and not self._is_float and self._ir != "bool":
            # Out of range: wrapped to the type's width (two's complement),
            # as the value a kernel sees (Warp's C types wrap it so).
            info = np.iinfo(self._np)
            x = (builtins.int(x) - info.min) % (1 << info.bits) + info.min
        self.value = self._np(x).item() if not isinstance(x, str) else self._np(builtins.float(x)).item()

    def __float__(self):
        return builtins.float(self.value)

    def __int__(self):
        return builtins.int(self.value)

    def __index__(self):
        return builtins.int(self.value)

    def __bool__(self):
        return builtins.bool(self.value)

    def __eq__(self, o):
        return self.value == (o.value if isinstance(o, _Scalar) else o)

    def __hash__(self):
        return hash(self.value)

    def __str__(self):
        return str(self.value)

    def __repr__(self):
        return f"{type(self).__name__}({self.value})"

    # Arithmetic at Python scope: Warp's builtins (`wp.add`, ...), with
    # their overload rules (float32 + float32 is a float; float32 + int
    # has no overload, as in Warp).
    def _op(self, name, *args):
        import sys

        return getattr(sys.modules[__name__.rsplit(".", 1)[0]], name)(*args)

    def __add__(self, y):
        return NotImplemented if _is_array_like(y) else self._op("add", self, y)

    def __radd__(self, y):
        return self._op("add", y, self)

    def __sub__(self, y):
        return NotImplemented if _is_array_like(y) else self._op("sub", self, y)

    def __rsub__(self, y):
        return self._op("sub", y, self)

    def __mul__(self, y):
        return NotImplemented if _is_array_like(y) else self._op("mul", self, y)

    def __rmul__(self, y):
        return self._op("mul", y, self)

    def __truediv__(self, y):
        return NotImplemented if _is_array_like(y) else self._op("div", self, y)

    def __rtruediv__(self, y):
        return self._op("div", y, self)

    def __mod__(self, y):
        return NotImplemented if _is_array_like(y) else self._op("mod", self, y)

    def __rmod__(self, y):
        return self._op("mod", y, self)

    def __neg__(self):
        return self._op("neg", self)

    def __pos__(self):
        return self.value

    def __abs__(self):
        return type(self)(abs(self.value))


def _is_array_like(x):
    return is_array(x)


_CTYPES = {
    np.float16: ctypes.c_uint16,  # the bits, as Warp's
    np.float32: ctypes.c_float,
    np.float64: ctypes.c_double,
    np.uint16: ctypes.c_uint16,
    np.int8: ctypes.c_int8,
    np.int16: ctypes.c_int16,
    np.int32: ctypes.c_int32,
    np.int64: ctypes.c_int64,
    np.uint8: ctypes.c_uint8,
    np.uint32: ctypes.c_uint32,
    np.uint64: ctypes.c_uint64,
    np.bool_: ctypes.c_bool,
}


class scalar_base(_Scalar):
    """Warp's base of its scalar types (``warp._src.types.scalar_base``)."""


class float_base(scalar_base):
    """Warp's base of its float types: compared as Python floats (a number
    too large for a float raises ``OverflowError``)."""

    def __eq__(self, x):
        try:
            return builtins.float(self) == builtins.float(x)
        except (TypeError, ValueError):
            return NotImplemented

    def __ne__(self, x):
        r = self.__eq__(x)
        return r if r is NotImplemented else not r

    def __lt__(self, x):
        try:
            return builtins.float(self) < builtins.float(x)
        except (TypeError, ValueError):
            return NotImplemented

    def __le__(self, x):
        try:
            return builtins.float(self) <= builtins.float(x)
        except (TypeError, ValueError):
            return NotImplemented

    def __gt__(self, x):
        try:
            return builtins.float(self) > builtins.float(x)
        except (TypeError, ValueError):
            return NotImplemented

    def __ge__(self, x):
        try:
            return builtins.float(self) >= builtins.float(x)
        except (TypeError, ValueError):
            return NotImplemented

    def __round__(self, ndigits=None):
        return type(self)(round(builtins.float(self), ndigits))

    # Floats only: Warp has no integer pow (int ** int raises TypeError).
    def __pow__(self, y):
        return NotImplemented if _is_array_like(y) else self._op("pow", self, y)

    def __rpow__(self, y):
        return self._op("pow", y, self)

    def __hash__(self):
        return hash(builtins.float(self))


def _int_key(a, x):
    """``a`` (an int scalar) and ``x`` as a comparable pair: floats (Warp's,
    NumPy's, Python's) compare as floats, so int8(1) < 1.5; the rest as
    ints."""
    if isinstance(x, (builtins.float, float_base, np.floating)):
        return builtins.float(a), builtins.float(x)
    return builtins.int(a), builtins.int(x)


def _int_cmp(op):
    def cmp(self, x):
        try:
            a, b = _int_key(self, x)
        except (TypeError, ValueError):
            return NotImplemented
        return op(a, b)

    return cmp


class int_base(scalar_base):
    """Warp's base of its integer types."""

    import operator as _operator

    __eq__ = _int_cmp(_operator.eq)
    __ne__ = _int_cmp(_operator.ne)
    __lt__ = _int_cmp(_operator.lt)
    __le__ = _int_cmp(_operator.le)
    __gt__ = _int_cmp(_operator.gt)
    __ge__ = _int_cmp(_operator.ge)
    del _operator

    def __hash__(self):
        return hash(builtins.int(self))


def _scalar(name, ir, npt, is_float):
    # `_type_`: the ctypes type of the value (Warp's; its tests wrap numbers with it)
    attrs = {"_ir": ir, "_np": npt, "_is_float": is_float, "_wp_name": name, "_type_": _CTYPES[npt]}
    if ir != "bf16":
        # NumPy's dtype protocol (NumPy 2.4): np.dtype(wp.float32) is float32.
        attrs["__numpy_dtype__"] = np.dtype(npt)
    base = float_base if is_float else int_base if name != "bool" else scalar_base
    return type(name, (base,), attrs)


float16 = _scalar("float16", "f16", np.float16, True)
float32 = _scalar("float32", "f32", np.float32, True)
float64 = _scalar("float64", "f64", np.float64, True)
# NumPy has no bfloat16: its arrays show the raw 16 bits as uint16.
bfloat16 = _scalar("bfloat16", "bf16", np.uint16, True)
int8 = _scalar("int8", "i8", np.int8, False)
int16 = _scalar("int16", "i16", np.int16, False)
int32 = _scalar("int32", "i32", np.int32, False)
int64 = _scalar("int64", "i64", np.int64, False)
uint8 = _scalar("uint8", "u8", np.uint8, False)
uint16 = _scalar("uint16", "u16", np.uint16, False)
uint32 = _scalar("uint32", "u32", np.uint32, False)
uint64 = _scalar("uint64", "u64", np.uint64, False)
bool = _scalar("bool", "bool", np.bool_, False)  # noqa: A001 (Warp's name)
half, float, double = float16, float32, float64  # noqa: A001

scalar_types = (int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, float32, float64, bfloat16)
float_types = (float16, float32, float64, bfloat16)
int_types = (int8, uint8, int16, uint16, int32, uint32, int64, uint64)
non_atomic_types = (int8, uint8, int16, uint16, int64)

_BY_IR = {t._ir: t for t in (*scalar_types, bool)}


class handle(uint64):
    """``wp.handle``: a ``uint64`` that holds an object's id (Warp's type of
    mesh, volume and BVH ids in kernel parameters and arrays)."""

    _wp_name = "uint64"


# Generic annotations of Warp's (``typing.TypeVar``s, as in Warp): the
# integer, floating-point and all scalar types.
Int = typing.TypeVar("Int", builtins.int, int8, uint8, int16, uint16, int32, uint32, int64, uint64)
Float = typing.TypeVar("Float", builtins.float, float16, bfloat16, float32, float64)
Scalar = typing.TypeVar(
    "Scalar", builtins.int, builtins.float, int8, uint8, int16, uint16, int32, uint32, int64, uint64,
    float16, bfloat16, float32, float64,
)
_PY = {builtins.float: float32, builtins.int: int32, builtins.bool: bool}


def scalar_type(t):
    """The Warp scalar type of ``t`` (a scalar type, a Python type, a
    composite type), or None."""
    t = _PY.get(t, t)
    if isinstance(t, type) and issubclass(t, _Scalar):
        return t
    if isinstance(t, type) and issubclass(t, _Composite):
        return t._wp_scalar_type_
    return None


# ---------------------------------------------------------- composites


class _Composite:
    """A vector, matrix, quaternion or transform value: ``_data`` holds
    its components in memory order (row-major for matrices)."""

    _wp_scalar_type_ = float32
    _shape_ = (3,)
    _length_ = 3
    _kind = "vec"

    def __init__(self, *args, **kwargs):
        n = self._length_
        st = self._wp_scalar_type_
        conv = builtins.float if st._is_float else builtins.int
        if self._kind == "transform":
            args = _transform_args(args, kwargs)
        elif kwargs:
            raise TypeError(f"{type(self).__name__}() takes no keyword arguments {sorted(kwargs)}")
        if len(args) == 0:
            data = [conv(0)] * n
        elif len(args) == 1 and not hasattr(args[0], "__len__"):
            data = [conv(args[0])] * n
        else:
            kind = "matrix" if len(self._shape_) == 2 else "vector"
            if kind == "matrix" and len(args) > 1 and all(hasattr(a, "__len__") for a in args):
                # Rows: each of the matrix's row length (Warp's message names the bad one).
                cols = self._shape_[1]
                for a in args:
                    if len(a) != cols:
                        raise TypeError(
                            f"Invalid argument in matrix constructor, expected row of length {cols}, got {tuple(a)!r}"
                        )
            flat = []
            for a in args:
                if isinstance(a, np.ndarray):
                    flat.extend(a.reshape(-1).tolist())
                elif hasattr(a, "__len__"):
                    for x in a:
                        if hasattr(x, "__len__"):
                            flat.extend(x)
                        else:
                            flat.append(x)
                else:
                    flat.append(a)
            if len(flat) != n:
                raise ValueError(
                    f"Invalid number of arguments in {kind} constructor, expected {n} elements, got {len(flat)}"
                )
            data = [conv(x) for x in flat]
        if not st._is_float and st is not bool:  # integers wrap, as Warp's (ctypes) storage
            data = [st._type_(x).value for x in data]
        if st._np is np.float32:
            data = [builtins.float(np.float32(x)) for x in data]
        object.__setattr__(self, "_data", data)

    def _flat(self):
        return self._data

    # the components of a transform
    def _set_part(self, lo, hi, value):
        if self._kind != "transform":
            raise AttributeError("only a transform has 'p' and 'q'")
        part = type(self)._part(hi - lo)(value)._data
        self._data[lo:hi] = part

    @classmethod
    def _part(cls, n):
        return vector(3, cls._wp_scalar_type_) if n == 3 else quaternion(cls._wp_scalar_type_)

    p = property(
        lambda self: vector(3, self._wp_scalar_type_)(self._data[:3]) if self._kind == "transform" else None,
        lambda self, v: self._set_part(0, 3, v),
    )
    q = property(
        lambda self: quaternion(self._wp_scalar_type_)(self._data[3:]) if self._kind == "transform" else None,
        lambda self, v: self._set_part(3, 7, v),
    )

    def __len__(self):
        return self._shape_[0]

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    def _check_key(self, i):
        """Warp's key errors: an int or slice (vectors), one or two of them
        (matrices)."""
        index_types = (builtins.int, np.integer, slice)
        if len(self._shape_) == 2:
            if isinstance(i, tuple):
                if len(i) != 2:
                    raise KeyError(f"Invalid key, expected one or two indices, got {len(i)}")
                if not all(isinstance(k, index_types) for k in i):
                    raise KeyError(f"Invalid key {i}, expected int or pair of ints")
            elif not isinstance(i, index_types):
                raise KeyError(f"Invalid key {i}, expected int or pair of ints")
        elif not isinstance(i, index_types):
            raise KeyError(f"Invalid key {i}, expected int or slice")

    def _component(self, v):
        """``v`` as a component value: a number (Warp's or NumPy's), wrapped
        or rounded as the scalar type stores it."""
        st = self._wp_scalar_type_
        if isinstance(v, _Scalar):
            v = v.value
        if not isinstance(v, (builtins.int, builtins.float, builtins.bool, np.number, np.bool_)):
            raise TypeError(f"Expected to assign a `{st.__name__}` value but got `{type(v).__name__}` instead")
        if st._is_float:
            x = builtins.float(v)
            return builtins.float(np.float32(x)) if st._np is np.float32 else x
        if st is bool:
            return builtins.bool(v)
        return st._type_(builtins.int(v)).value

    def _components(self, seq):
        st = self._wp_scalar_type_
        out = []
        for x in seq:
            if isinstance(x, (_Composite, str)) or hasattr(x, "__len__"):
                raise TypeError(
                    f"Expected to assign a slice from a sequence of `{st.__name__}` values but got `{type(x).__name__}` instead"
                )
            out.append(self._component(x))
        return out

    def __getitem__(self, i):
        self._check_key(i)
        if len(self._shape_) == 2:
            if isinstance(i, tuple):
                r, c = i
                if isinstance(r, slice) or isinstance(c, slice):
                    return np.array(self._data).reshape(self._shape_)[r, c].tolist()
                return self._data[self._flat_index(r, c)]
            cols = self._shape_[1]
            row = vector(cols, self._wp_scalar_type_)
            if isinstance(i, slice):
                return [row(self._data[k * cols : (k + 1) * cols]) for k in range(self._shape_[0])[i]]
            if not -self._shape_[0] <= i < self._shape_[0]:
                raise IndexError(f"row index {i} out of range for {type(self).__name__}")
            i = i % self._shape_[0]
            return row(self._data[i * cols : (i + 1) * cols])
        return self._data[i]

    def __setitem__(self, i, v):
        self._check_key(i)
        if len(self._shape_) == 2:
            cols = self._shape_[1]
            if isinstance(i, tuple):
                self._data[self._flat_index(*i)] = self._component(v)
            elif isinstance(i, slice):
                rows = range(self._shape_[0])[i]
                vals = list(v)
                if len(vals) != len(rows):
                    raise ValueError("Can only assign sequence of same size")
                for r, row in zip(rows, vals):
                    self.set_row(r, row)
            else:
                self.set_row(i, v)
        elif isinstance(i, slice):
            vals = self._components(v)
            if len(vals) != len(range(len(self._data))[i]):
                raise ValueError("Can only assign sequence of same size")
            self._data[i] = vals
        else:
            self._data[i] = self._component(v)

    def _flat_index(self, r, c):
        """Component (r, c) of a matrix in ``_data`` (negative indices count
        from the end, as Python's)."""
        rows, cols = self._shape_
        if not (-rows <= r < rows and -cols <= c < cols):
            raise IndexError(f"index ({r}, {c}) out of range for {type(self).__name__}")
        return (r % rows) * cols + (c % cols)

    def get_row(self, r):
        if len(self._shape_) != 2:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'get_row'")
        if not -self._shape_[0] <= r < self._shape_[0]:
            raise IndexError("Invalid row index")
        return self[r]

    def get_col(self, c):
        """Column ``c`` of a matrix, as a vector."""
        if len(self._shape_) != 2:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'get_col'")
        rows, cols = self._shape_
        if not -cols <= c < cols:
            raise IndexError("Invalid column index")
        c %= cols
        return vector(rows, self._wp_scalar_type_)([self._data[r * cols + c] for r in range(rows)])

    def set_col(self, c, v):
        """Sets column ``c`` of a matrix to the values of ``v``."""
        if len(self._shape_) != 2:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'set_col'")
        rows, cols = self._shape_
        if not -cols <= c < cols:
            raise IndexError("Invalid column index")
        c %= cols
        vals = self._components(v)
        if len(vals) != rows:
            raise ValueError(f"Invalid column length, expected {rows} values, got {len(vals)}")
        for r in range(rows):
            self._data[r * cols + c] = vals[r]

    def set_row(self, r, v):
        """Sets row ``r`` (a matrix's) to the values of ``v``."""
        if len(self._shape_) != 2:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'set_row'")
        rows, cols = self._shape_
        if not -rows <= r < rows:
            raise IndexError("Invalid row index")
        r %= rows
        vals = self._components(v)
        if len(vals) != cols:
            raise ValueError(f"Invalid row length, expected {cols} values, got {len(vals)}")
        self._data[r * cols : (r + 1) * cols] = vals

    def __eq__(self, o):
        try:
            return list(self._data) == [x for x in _flatten(o)]
        except TypeError:
            return NotImplemented

    __hash__ = None

    def __repr__(self):
        if len(self._shape_) == 2:
            r, c = self._shape_
            rows = ", ".join("[" + ", ".join(repr(self._data[i * c + j]) for j in range(c)) + "]" for i in range(r))
            return f"[{rows}]"
        return "[" + ", ".join(repr(x) for x in self._data) + "]"

    def __str__(self):
        if len(self._shape_) == 2:  # Warp's: one row a line
            r, c = self._shape_
            return "[" + ",\n ".join("[" + ", ".join(str(self._data[i * c + j]) for j in range(c)) + "]" for i in range(r)) + "]"
        return self.__repr__()

    def _binop(self, o, f):
        if isinstance(o, _Scalar):
            o = o.value
        od = _flatten(o) if hasattr(o, "__len__") else [o] * len(self._data)
        return type(self)([f(a, b) for a, b in zip(self._data, od)])

    def __add__(self, o):
        return self._binop(o, lambda a, b: a + b)

    def __sub__(self, o):
        return self._binop(o, lambda a, b: a - b)

    def _builtin(self, name, *args):
        import sys

        return getattr(sys.modules[__name__.rsplit(".", 1)[0]], name)(*args)

    def __mul__(self, o):
        if isinstance(o, _Composite):
            # Matrix-vector and matrix products, quaternion and transform
            # composition: Warp's `wp.mul` of the two.
            return self._builtin("mul", self, o)
        if hasattr(o, "__len__"):
            return NotImplemented
        return self._binop(o, lambda a, b: a * b)

    def __rmul__(self, o):
        if hasattr(o, "__len__"):
            return NotImplemented
        return self._binop(o, lambda a, b: b * a)

    def __matmul__(self, o):
        if not isinstance(o, _Composite):
            return NotImplemented
        return self._builtin("mul", self, o)

    def __truediv__(self, o):
        return self._binop(o, lambda a, b: a / b)

    def __rtruediv__(self, o):
        return self._binop(o, lambda a, b: b / a)

    def __mod__(self, o):
        return self._binop(o, _c_mod)

    def __rmod__(self, o):
        return self._binop(o, lambda a, b: _c_mod(b, a))

    def __neg__(self):
        return type(self)([-a for a in self._data])

    def __pos__(self):
        return type(self)(list(self._data))

    def __array__(self, dtype=None, copy=None):
        return np.array(self._data, dtype=dtype or self._wp_scalar_type_._np).reshape(self._shape_)

    def __getattr__(self, name):
        idx = "xyzw".find(name)
        if len(name) == 1 and idx >= 0 and len(self._shape_) == 1 and idx < self._length_:
            return self._data[idx]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, v):
        """``v.x = ...`` sets a component; swizzles (``v.xy``) and components
        past the length raise, as in Warp; other names are plain attributes."""
        idx = "xyzw".find(name)
        if len(name) == 1 and idx >= 0 and len(self._shape_) == 1 and idx < self._length_:
            self._data[idx] = v
        elif name and all(c in "xyzw" for c in name) and len(self._shape_) == 1:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        else:
            object.__setattr__(self, name, v)


def _flatten(o):
    if isinstance(o, _Composite):
        return o._data
    out = []
    for x in o:
        if isinstance(x, _Composite):
            out.extend(x._data)
            continue
        if hasattr(x, "__len__"):
            out.extend(_flatten(x))
        else:
            out.append(x)
    return out


def _literal_int(x, what):
    """``Literal[N]`` or ``N`` as a positive int (``what`` names it)."""
    if typing.get_origin(x) is typing.Literal:
        args = typing.get_args(x)
        if len(args) != 1:
            raise TypeError(f"Expected a single Literal value for {what}, got Literal{list(args)}")
        x = args[0]
    if _is_any(x):
        return x
    if isinstance(x, builtins.bool) or not isinstance(x, (builtins.int, np.integer)) or x <= 0:
        raise TypeError(f"{what} must be a positive integer, got {x!r}")
    return builtins.int(x)


class _SubscriptMeta(type):
    def __getitem__(cls, params):
        return cls._subscript(params if isinstance(params, tuple) else (params,))


class Vector(metaclass=_SubscriptMeta):
    """``Vector[dtype, N]``: the vector type ``vector(N, dtype)``."""

    @staticmethod
    def _subscript(p):
        if len(p) != 2:
            raise TypeError(f"Vector[...] requires 2 parameters (dtype, length), got {len(p)}")
        return vector(_literal_int(p[1], "Vector length"), _PY.get(p[0], p[0]))


class Matrix(metaclass=_SubscriptMeta):
    """``Matrix[dtype, R, C]``: the matrix type ``matrix((R, C), dtype)``."""

    @staticmethod
    def _subscript(p):
        if len(p) != 3:
            raise TypeError(f"Matrix[...] requires 3 parameters (dtype, rows, cols), got {len(p)}")
        shape = (_literal_int(p[1], "Matrix rows"), _literal_int(p[2], "Matrix cols"))
        return matrix(shape, _PY.get(p[0], p[0]))


class Quaternion(metaclass=_SubscriptMeta):
    """``Quaternion[dtype]``: the quaternion type ``quaternion(dtype)``."""

    @staticmethod
    def _subscript(p):
        if len(p) != 1:
            raise TypeError(f"Quaternion[...] requires 1 parameter (dtype), got {len(p)}")
        return quaternion(_PY.get(p[0], p[0]))


class Transformation(metaclass=_SubscriptMeta):
    """``Transformation[dtype]``: the transform type ``transformation(dtype)``."""

    @staticmethod
    def _subscript(p):
        if len(p) != 1:
            raise TypeError(f"Transformation[...] requires 1 parameter (dtype), got {len(p)}")
        return transformation(_PY.get(p[0], p[0]))


_GENERIC_HINTS = {"vec": Vector, "mat": Matrix, "quat": Quaternion, "transform": Transformation}

_CACHE = {}


def _make(kind, shape, dtype, name=None):
    st = scalar_type(dtype)
    if st is None:
        raise TypeError(f"invalid scalar type {dtype!r} for a {kind}")
    key = (kind, shape, st)
    t = _CACHE.get(key)
    if t is None:
        n = math.prod(shape)
        if name is None:
            suffix = {float32: "f", float64: "d", float16: "h", int32: "i"}.get(st, st.__name__)
            dims = "" if kind in ("quat", "transform") else "".join(map(str, shape))
            name = f"{kind}{dims}{suffix}"
        wd = (kind, st._ir, shape[0] if kind in ("vec", "mat") else 0, shape[1] if kind == "mat" else 0)
        attrs = {"_wp_scalar_type_": st, "_shape_": shape, "_length_": n, "_kind": kind, "_wd": wd}
        # Warp's descriptive attributes: the generic this type instantiates.
        attrs["_wp_generic_type_str_"] = {"vec": "vec_t", "mat": "mat_t", "quat": "quat_t", "transform": "transform_t"}[kind]
        attrs["_wp_type_params_"] = [n if kind == "vec" else shape[0], st] if kind == "vec" else (
            [shape[0], shape[1], st] if kind == "mat" else [st]
        )
        t = type(name, (_Composite,), attrs)
        t._wp_generic_type_hint_ = _GENERIC_HINTS[kind]
        _CACHE[key] = t
    return t


class _GenericType:
    """A type with a generic part (``vector(Any, float)``): usable in the
    annotations of funcs, which the compiler instantiates."""

    def __init__(self, kind, args):
        self.kind, self.args = kind, args

    def __repr__(self):
        return f"{self.kind}{self.args}"


def _generic(*xs):
    import typing

    return any(_is_any(x) or isinstance(x, _GenericType) for x in xs)


def _is_any(x):
    """``typing.Any``, or a ``TypeVar`` (``wp.Int``, ``wp.Float``,
    ``wp.Scalar``): a generic part, which Weft instantiates as ``Any`` (the
    TypeVar's constraints are not checked)."""
    return x is typing.Any or isinstance(x, typing.TypeVar)


def vector(length, dtype=float32):
    """The vector type of ``length`` components of ``dtype``."""
    if _generic(length, dtype):
        return _GenericType("vector", (length, dtype))
    return _make("vec", (int(length),), dtype)


def matrix(shape, dtype=float32):
    """The matrix type of ``shape`` (rows, columns) of ``dtype``."""
    shape = tuple(shape)
    if len(shape) != 2:
        raise ValueError(
            f"Matrix shape must have exactly two dimensions, got {len(shape)} dimension"
            f"{'' if len(shape) == 1 else 's'} in shape {shape}"
        )
    if _generic(dtype, *shape):
        return _GenericType("matrix", (shape, dtype))
    r, c = shape
    return _make("mat", (int(r), int(c)), dtype)


def quaternion(dtype=float32):
    if _generic(dtype):
        return _GenericType("quaternion", (dtype,))
    return _make("quat", (4,), dtype)


def _c_mod(a, b):
    """``wp.mod``: C's remainder (the sign of ``a``), of floats or integers."""
    if isinstance(a, builtins.float) or isinstance(b, builtins.float):
        return math.fmod(a, b)
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _is_scalar_value(x):
    return isinstance(x, (builtins.int, builtins.float, builtins.bool, np.number, np.bool_, _Scalar))


def _transform_args(args, kwargs):
    """The positional components of a transform built from Warp's
    Python-scope forms: ``()`` (the identity), a scalar (filled), 7
    components, a transform (copied), ``(p)``, ``(p, q)``, ``p=``/``q=``,
    with Warp's errors."""
    for k in kwargs:
        if k not in ("p", "q"):
            raise TypeError(f"got an unexpected keyword argument '{k}'")
    if len(args) == 7:
        for k in ("p", "q"):
            if k in kwargs:
                raise TypeError(f"multiple values for argument '{k}'")
        return args
    if len(args) == 1 and not kwargs:
        a = args[0]
        if isinstance(a, _Composite) and a._kind == "transform":
            return tuple(a._data)
        if _is_scalar_value(a):
            return args
        if not hasattr(a, "__len__"):
            raise TypeError(f"Invalid argument in transformation constructor: expected a scalar value, got {type(a).__name__}")
        if len(a) == 7:
            return tuple(a)
    if len(args) > 2:
        raise TypeError(
            f"incompatible number of values given ({len(args)}) when constructing a transform; expected 0, 1, or 7"
        )
    named = dict(zip(("p", "q"), args))
    for k, v in kwargs.items():
        if k in named:
            raise TypeError(f"multiple values for argument '{k}'")
        named[k] = v
    for k, v in named.items():
        if not hasattr(v, "__len__"):
            raise TypeError(f"Invalid argument '{k}' in transformation constructor: expected a sequence, got {type(v).__name__}")
    p = named.get("p", (0.0, 0.0, 0.0))
    q = named.get("q", (0.0, 0.0, 0.0, 1.0))
    return (*_flatten([p]), *_flatten([q]))


def transformation(dtype=float32):
    if _generic(dtype):
        return _GenericType("transformation", (dtype,))
    return _make("transform", (7,), dtype)


def dtype_from_numpy(npt):
    """The Warp scalar type of a NumPy dtype."""
    from .array import _NP_TO_WP

    t = _NP_TO_WP.get(np.dtype(npt))
    if t is None:
        raise TypeError(f"unsupported NumPy dtype {npt}")
    return t


def dtype_to_numpy(t):
    """The NumPy scalar type of Warp scalar type ``t`` (``np.float32``;
    bfloat16's is ``np.uint16``, its bits)."""
    st = _PY.get(t, t)
    if not (isinstance(st, type) and issubclass(st, _Scalar)):
        raise TypeError(f"Cannot convert {t} to a NumPy type")
    return st._np


vec2, vec3, vec4 = (vector(n, float32) for n in (2, 3, 4))
vec2f, vec3f, vec4f = vec2, vec3, vec4
vec2d, vec3d, vec4d = (vector(n, float64) for n in (2, 3, 4))
vec2h, vec3h, vec4h = (vector(n, float16) for n in (2, 3, 4))
vec2i, vec3i, vec4i = (vector(n, int32) for n in (2, 3, 4))
vec2ui, vec3ui, vec4ui = (vector(n, uint32) for n in (2, 3, 4))
for _sfx, _st in (("b", int8), ("ub", uint8), ("s", int16), ("us", uint16), ("l", int64), ("ul", uint64)):
    for _n in (2, 3, 4):
        globals()[f"vec{_n}{_sfx}"] = vector(_n, _st)
np_dtype_to_warp_type = {np.dtype(t._np): t for t in (*scalar_types, bool) if t is not bfloat16}
warp_type_to_np_dtype = {t: np.dtype(t._np) for t in (*scalar_types, bool)}
mat22, mat33, mat44 = (matrix((n, n), float32) for n in (2, 3, 4))
mat22f, mat33f, mat44f = mat22, mat33, mat44
# Spatial (6-D) vectors and 6x6 matrices of rigid-body dynamics: Warp's
# vector(6)/matrix((6, 6)) of a float type, under their own names.
spatial_vectorh, spatial_vectorf, spatial_vectord = (
    _make("vec", (6,), t, f"spatial_vector{s}") for s, t in (("h", float16), ("f", float32), ("d", float64))
)
spatial_matrixh, spatial_matrixf, spatial_matrixd = (
    _make("mat", (6, 6), t, f"spatial_matrix{s}") for s, t in (("h", float16), ("f", float32), ("d", float64))
)
spatial_vector, spatial_matrix = spatial_vectorf, spatial_matrixf
mat22d, mat33d, mat44d = (matrix((n, n), float64) for n in (2, 3, 4))
mat22h, mat33h, mat44h = (matrix((n, n), float16) for n in (2, 3, 4))
quat, quatf, quatd, quath = quaternion(float32), quaternion(float32), quaternion(float64), quaternion(float16)
transform, transformf, transformd, transformh = (
    transformation(float32),
    transformation(float32),
    transformation(float64),
    transformation(float16),
)


def type_is_vector(t):
    return isinstance(t, type) and issubclass(t, _Composite) and t._kind == "vec"


def type_is_matrix(t):
    return isinstance(t, type) and issubclass(t, _Composite) and t._kind == "mat"


def type_is_quaternion(t):
    return isinstance(t, type) and issubclass(t, _Composite) and t._kind == "quat"


def type_is_transformation(t):
    return isinstance(t, type) and issubclass(t, _Composite) and t._kind == "transform"


def type_scalar_type(t):
    return scalar_type(t)


def type_length(t):
    return getattr(t, "_length_", 1)


def type_size_in_bytes(t):
    return native_dtype(t).size


def types_equal(a, b, match_generic=False):
    try:
        return native_dtype(a) == native_dtype(b)
    except TypeError:
        return a is b


def dtype_shape(t):
    """The trailing NumPy shape of one element of ``t``."""
    t = _PY.get(t, t)
    if isinstance(t, type) and issubclass(t, _Composite):
        return t._shape_
    return ()


def native_dtype(t):
    """The native core's ``Dtype`` of type ``t``."""
    t = _PY.get(t, t)
    nd = getattr(t, "_native_dtype", None)
    if nd is not None:
        return nd
    if isinstance(t, type) and issubclass(t, _Scalar):
        d = _native.Dtype.of("scalar", t._ir)
    elif isinstance(t, type) and issubclass(t, _Composite):
        d = _native.Dtype.of(*t._wd)
    elif hasattr(t, "_weft_struct_dtype"):
        return t._weft_struct_dtype()
    else:
        raise TypeError(f"{t!r} is not a Warp data type")
    try:
        t._native_dtype = d
    except (AttributeError, TypeError):
        pass
    return d


# Warp's one- or two-letter scalar suffixes of composite type names.
_SHORT = {"float16": "h", "bfloat16": "bf", "float32": "f", "float64": "d", "int8": "b", "int16": "s",
          "int32": "i", "int64": "l", "uint8": "ub", "uint16": "us", "uint32": "ui", "uint64": "ul"}


def type_repr(t):
    """A type as Warp's messages write it: ``vec3s``, ``mat22f``, ``quatd``,
    ``transformh``; longer composites as ``vector(length=5, dtype=int16)``."""
    t = _PY.get(t, t)
    if isinstance(t, type) and issubclass(t, _Composite):
        st = t._wp_scalar_type_
        sn = _SHORT.get(getattr(st, "__name__", ""))
        kind, shape = t._kind, t._shape_
        if kind in ("quat", "transform"):
            return f"{kind}{sn}" if sn else f"{kind}(dtype={type_repr(st)})"
        if kind == "vec":
            if sn and shape[0] <= 4:
                return f"vec{shape[0]}{sn}"
            return f"vector(length={shape[0]}, dtype={type_repr(st)})"
        if kind == "mat":
            if sn and shape[0] <= 4 and shape[1] <= 4:
                return f"mat{shape[0]}{shape[1]}{sn}"
            return f"matrix(shape=({shape[0]}, {shape[1]}), dtype={type_repr(st)})"
    return getattr(t, "__name__", repr(t))


def type_from_native(d):
    """The Python type of a native ``Dtype`` (not for structs)."""
    leaves = d.leaves()
    s = str(d)
    if len(leaves) == 1 and "vec" not in s:
        return _BY_IR[leaves[0][1]]
    st = _BY_IR[leaves[0][1]]
    for t in list(_CACHE.values()):
        if t._wp_scalar_type_ is st and native_dtype(t) == d:
            return t
    return None


class Any:
    """``typing.Any`` stand-in (generic kernels are not supported yet)."""


# array annotations live in the array module; re-exported here as Warp does
from .array import array, array1d, array2d, array3d, array4d  # noqa: E402,F401

Array = array


# ------------------------------------------------------- type predicates
# Warp's: type_is_* take a type, is_* a value.


def type_is_int(t):
    return _PY.get(t, t) in int_types if t is not builtins.bool else False


def type_is_float(t):
    return _PY.get(t, t) in float_types


def type_is_scalar(t):
    return type_is_int(t) or type_is_float(t)


def type_is_composite(t):
    return isinstance(t, type) and issubclass(t, _Composite)


def type_is_value(t):
    """A scalar, bool or composite type (or Python's int, float, bool)."""
    return t in (builtins.int, builtins.float, builtins.bool, bool) or type_is_scalar(t) or type_is_composite(t)


def type_is_struct(t):
    return builtins.bool(getattr(t, "_weft_struct", False))


def type_is_array(t):
    """Whether ``t`` is an array class of any family."""
    _a = _array_module()
    return isinstance(t, type) and issubclass(t, (_a.array, _a._UnsupportedArrayFamily))


def type_is_tile(t):
    """Whether ``t`` is Warp's tile type (``wp.tile``; Weft has no tile
    values, only the annotations)."""
    return isinstance(t, type) and issubclass(t, tile)


def type_size(t):
    """The number of scalar components of type ``t`` (1 for scalars and
    structs)."""
    t = _PY.get(t, t)
    if type_is_struct(t):
        return 1
    return getattr(t, "_length_", 1)


def type_ctype(t):
    """The ctypes type of ``t``'s values (composites: an array of their
    scalar's)."""
    if t is builtins.float:
        return ctypes.c_float
    if t is builtins.int:
        return ctypes.c_int32
    if t is builtins.bool:
        return ctypes.c_bool
    if type_is_composite(t):
        return t._wp_scalar_type_._type_ * t._length_
    return t._type_


def is_int(x):
    return type_is_int(type(x))


def is_float(x):
    return type_is_float(type(x))


def is_scalar(x):
    return type_is_scalar(type(x))


def is_composite(x):
    return isinstance(x, _Composite)


def is_vector(x):
    return isinstance(x, _Composite) and x._kind == "vec"


def is_matrix(x):
    return isinstance(x, _Composite) and x._kind == "mat"


def is_quaternion(x):
    return isinstance(x, _Composite) and x._kind == "quat"


def is_transformation(x):
    return isinstance(x, _Composite) and x._kind == "transform"


def is_value(x):
    """A number, bool, Warp scalar or composite value."""
    return isinstance(x, (builtins.int, builtins.float, builtins.bool, _Scalar, _Composite))


def is_struct(x):
    from .structs import _StructInstance

    return isinstance(x, _StructInstance)


def is_array(x):
    """An array or array annotation of any family (regular, indexed,
    fabric)."""
    _a = _array_module()

    return isinstance(x, (_a.array, _a._UnsupportedArrayFamily, _a._FamilyAnnotation))


def is_tile(x):
    """Whether ``x`` is a tile annotation (``wp.tile[float, 8, 4]``):
    Weft has no tile values."""
    return isinstance(x, tile)


# ------------------------------------------------------ array annotations


class _AnnotationMeta(type):
    def __instancecheck__(cls, x):
        return cls._is(x)


class _ArrayAnnotationBase(metaclass=_AnnotationMeta):
    """What an array annotation of any family is (``wp.array[float]``,
    ``wp.indexedarray[float]``): ``isinstance`` checks only."""

    @staticmethod
    def _is(x):
        _a = _array_module()

        return isinstance(x, _a._FamilyAnnotation) or _ArrayAnnotation._is(x)


class _ArrayAnnotation(_ArrayAnnotationBase):
    """A regular array's annotation: an array with no storage
    (``_ArrayAnnotation(dtype=T, ndim=N)`` makes one)."""

    def __new__(cls, dtype=typing.Any, ndim=1):
        return _array_module().array(dtype=dtype, ndim=ndim)

    @staticmethod
    def _is(x):
        _a = _array_module()

        return isinstance(x, _a.array) and x._native is None and x.device is None


class _IndexedArrayAnnotation(_ArrayAnnotationBase):
    """An indexed array's annotation (``wp.indexedarray[T]``)."""

    @staticmethod
    def _is(x):
        _a = _array_module()

        return isinstance(x, _a._FamilyAnnotation) and issubclass(x._concrete_cls, _a.indexedarray)


def concrete_array_type(t):
    """The array family of array or annotation ``t`` (``wp.array``,
    ``wp.indexedarray``, ``wp.fabricarray``, ``wp.indexedfabricarray``);
    ``type(t)`` for anything else."""
    _a = _array_module()

    if isinstance(t, _a._FamilyAnnotation):
        return t._concrete_cls
    for fam in (_a.indexedfabricarray, _a.fabricarray, _a.indexedarray, _a.fixedarray, _a.array):
        if isinstance(t, fam):
            return fam
    return type(t)


def matches_array_class(t, cls):
    """Whether ``t`` is an array of family ``cls`` or an annotation of it."""
    _a = _array_module()

    if isinstance(t, _a._FamilyAnnotation):
        return t._concrete_cls is cls
    return isinstance(t, cls)


_SIMPLE_TYPE_CODES = None


def _simple_type_codes():
    global _SIMPLE_TYPE_CODES
    if _SIMPLE_TYPE_CODES is None:
        _SIMPLE_TYPE_CODES = {
            builtins.int: "i4", builtins.float: "f4", builtins.bool: "b", bool: "b", str: "str",
            int8: "i1", int16: "i2", int32: "i4", int64: "i8", uint8: "u1", uint16: "u2", uint32: "u4",
            uint64: "u8", handle: "u8", float16: "f2", bfloat16: "bf2", float32: "f4", float64: "f8",
            **{cls: f"lb{n}" for n, cls in _launch_bounds_classes.items()},
        }
    return _SIMPLE_TYPE_CODES


def get_type_code(arg_type):
    """Warp's short code of a type (``f4``, ``v3f4``, ``a2f4``, ...), the
    part of a signature that names one argument's type."""
    _a = _array_module()

    if arg_type is typing.Any:
        return "?"
    if typing.get_origin(arg_type) is typing.Union:
        raise TypeError(
            "Union type annotations are only supported at Python scope and are invalid in Warp kernels/functions"
        )
    if isinstance(arg_type, type):
        if type_is_composite(arg_type):
            dt = get_type_code(arg_type._wp_scalar_type_)
            if arg_type._kind == "quat":
                return f"q{dt}"
            if arg_type._kind == "transform":
                return f"t{dt}"
            shape = arg_type._shape_
            return ("v" if len(shape) == 1 else "m") + "".join(str(d) for d in shape) + dt
        if type_is_struct(arg_type):
            return getattr(arg_type, "native_name", arg_type.__name__)
        code = _simple_type_codes().get(arg_type)
        if code is None:
            raise TypeError(f"Unrecognized type '{arg_type}'")
        return code
    if is_array(arg_type):
        nd = "?" if _is_any(arg_type.ndim) else str(arg_type.ndim)
        dt = "?" if _is_any(arg_type.dtype) else get_type_code(arg_type.dtype)
        prefix = {
            _a.array: "a",
            _a.fixedarray: "a",
            _a.indexedarray: "ia",
            _a.fabricarray: "fa",
            _a.indexedfabricarray: "ifa",
        }[concrete_array_type(arg_type)]
        return f"{prefix}{nd}{dt}"
    if typing.get_origin(arg_type) is tuple:
        args = typing.get_args(arg_type)
        return f"tpl{len(args)}{''.join(get_type_code(x) for x in args)}"
    if isinstance(arg_type, tile):
        shape = "?" if _is_any(arg_type.shape) else "".join(str(n) for n in arg_type.shape)
        dt = "?" if _is_any(arg_type.dtype) else get_type_code(arg_type.dtype)
        return f"t{'s' if arg_type.storage == 'shared' else 'r'}{shape}{dt}"
    if arg_type is Scalar:
        return "s?"
    if arg_type is Float:
        return "f?"
    if arg_type is Int:
        return "i?"
    if arg_type is Ellipsis:
        return "?"
    if isinstance(arg_type, Reference):
        return f"ref{get_type_code(arg_type.dtype)}"
    raise TypeError(f"Unrecognized type '{arg_type}'")


# ------------------------------------------------------------------- tiles


class _TileMeta(type):
    def __getitem__(cls, params):
        return cls._subscript(params if isinstance(params, tuple) else (params,))


class tile(metaclass=_TileMeta):
    """A tile annotation, ``wp.tile[dtype, M, N]`` (shape optional:
    ``wp.tile[dtype]``, ``wp.tile[dtype, (M, N)]``). Weft has no tiles:
    the annotation exists, a kernel using tiles does not compile, and
    ``wp.tile(x)`` (a kernel builtin) raises ``NotSupportedError``."""

    def __init__(self, *args, **kwargs):
        if not kwargs.pop("_weft_annotation", False):
            from ._unsupported import TILES, NotSupportedError

            raise NotSupportedError("wp.tile", TILES)
        self.dtype = kwargs["dtype"]
        self.shape = kwargs["shape"]
        self.storage = kwargs.get("storage", "register")

    @classmethod
    def _subscript(cls, p):
        if len(p) == 0:
            raise TypeError("wp.tile[...] requires at least a dtype")
        dtype = _PY.get(p[0], p[0])
        dims = p[1:]
        if len(dims) == 1 and isinstance(dims[0], tuple):
            dims = dims[0]
        shape = tuple(_literal_int(d, "tile dimension") for d in dims) if dims else typing.Any
        return cls(_weft_annotation=True, dtype=dtype, shape=shape)

    def __repr__(self):
        return f"wp.tile[{getattr(self.dtype, '__name__', self.dtype)}, {self.shape}]"


def _array_module():
    """``weft.warp.array`` the module (the package's ``array`` attribute is
    the class)."""
    import sys

    return sys.modules[__name__.rsplit(".", 1)[0] + ".array"]


# ------------------------------------------------------ array kinds, bounds
# Warp's array kind codes (what ``array_type_id`` returns).
ARRAY_TYPE_REGULAR = 0
ARRAY_TYPE_INDEXED = 1
ARRAY_TYPE_FABRIC = 2
ARRAY_TYPE_FABRIC_INDEXED = 3

LAUNCH_MAX_DIMS = 4


def array_type_id(a):
    """The kind code of array (or array annotation) ``a``: one of the
    ``ARRAY_TYPE_*`` constants."""
    _a = _array_module()

    codes = {
        _a.indexedfabricarray: ARRAY_TYPE_FABRIC_INDEXED,
        _a.fabricarray: ARRAY_TYPE_FABRIC,
        _a.indexedarray: ARRAY_TYPE_INDEXED,
        _a.fixedarray: ARRAY_TYPE_REGULAR,
        _a.array: ARRAY_TYPE_REGULAR,
    }
    code = codes.get(concrete_array_type(a))
    if code is None:
        raise ValueError(f"parameter 'a': expected a Warp array, got {type(a).__name__}")
    return code


def _launch_bounds_class(ndim):
    def __init__(self, shape):
        if isinstance(shape, builtins.int):
            shape = (shape,)
        size = 1
        for i, extent in enumerate(shape):
            self.shape[i] = extent
            size *= extent
        self.size = size
        self.coord_mult = 1

    fields = (("shape", ctypes.c_uint32 * ndim), ("size", ctypes.c_size_t), ("coord_mult", ctypes.c_size_t))
    return type(f"launch_bounds_{ndim}d_t", (ctypes.Structure,), {"_fields_": fields, "__init__": __init__})


# A kernel launch's bounds as the kernel ABI lays them out, one ctypes
# structure per dimensionality (as Warp's).
_launch_bounds_classes = {n: _launch_bounds_class(n) for n in range(1, LAUNCH_MAX_DIMS + 1)}


def launch_bounds_t(dim):
    """The launch bounds structure of a launch over ``dim`` (an int or a
    sequence of 1-4 extents)."""
    if isinstance(dim, builtins.int):
        dim = (dim,)
    dim = tuple(dim)
    cls = _launch_bounds_classes.get(len(dim))
    if cls is None:
        raise ValueError(f"parameter 'dim': launches have 1 to {LAUNCH_MAX_DIMS} dimensions, got {len(dim)}")
    return cls(dim)


# ---------------------------------------------------------------- bfloat16
# bfloat16 values as the top 16 bits of a float32 (round to nearest even).


def _np_float32_to_bfloat16_bits(arr_f32):
    """float32 values (any array-like) as bfloat16 bit patterns (uint16),
    rounded to nearest even; NaNs stay NaNs."""
    f = np.asarray(arr_f32, dtype=np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    nan = np.isnan(f)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    quiet = ((bits | 0x00400000) >> 16)
    return np.where(nan, quiet, rounded).astype(np.uint16)


def _np_bfloat16_bits_to_float32(arr_u16):
    """bfloat16 bit patterns (uint16) as float32 values (exact)."""
    u = np.asarray(arr_u16, dtype=np.uint16)
    return (u.astype(np.uint32) << 16).view(np.float32)


# -------------------------------------------------------------- references


class Reference:
    """A pass-by-reference parameter type, ``wp.ref[T]`` (``value_type``
    is ``T``). Weft's compiler does not take reference parameters yet: a
    func declaring one fails to compile."""

    def __init__(self, dtype):
        self.value_type = dtype

    @property
    def dtype(self):
        return self.value_type

    def __repr__(self):
        return f"wp.ref[{getattr(self.value_type, '__name__', repr(self.value_type))}]"

    def __eq__(self, other):
        return isinstance(other, Reference) and self.value_type is other.value_type

    def __hash__(self):
        return hash((Reference, self.value_type))


class ref:
    """``wp.ref[T]``: the annotation of a func parameter passed by reference."""

    def __class_getitem__(cls, dtype):
        return Reference(dtype)


def is_reference(t):
    return isinstance(t, Reference)


def strides_from_shape(shape, dtype):
    """The byte strides of a C-contiguous array of ``shape`` and ``dtype``."""
    size = type_size_in_bytes(dtype)
    strides = []
    for d in reversed(tuple(shape)):
        strides.append(size)
        size *= d
    return tuple(reversed(strides))


def check_array_shape(shape):
    """Warp's limits of an array shape: each extent non-negative and below
    2**31 (Weft's arrays index with 32-bit extents too)."""
    for i, d in enumerate(shape):
        if d < 0:
            raise ValueError(f"Array shapes must be non-negative, got {d} in dimension {i}")
        if d >= 2**31:
            raise ValueError(
                "Array shapes must not exceed the maximum representable value of a signed 32-bit integer, "
                f"got {d} in dimension {i}."
            )
