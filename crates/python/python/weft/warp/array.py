"""``wp.array``: host arrays over the native core, shared with NumPy.

Every array's elements live in a native ``weft._native.Array`` (host
memory, 16-byte aligned, C-contiguous). On the ``cpu`` device (and every
device of this version: see ``docs/python.md``) ``.numpy()``,
``__array_interface__``, the buffer protocol (``memoryview(a)``, through
the native base class ``weft._native.BufferExporter``) and DLPack
(``__dlpack__``) are views of that memory, no copy: communication
libraries (mpi4py) take arrays as they are (``docs/distributed.md``).
"""

from __future__ import annotations

import builtins
import math
import typing

import numpy as np

from .. import _native
from . import types as _t
from ._unsupported import NotSupportedError


class _View:
    """Exposes native storage to NumPy; keeps the storage alive."""

    __slots__ = ("__array_interface__", "_owner")

    def __init__(self, owner, iface):
        self._owner = owner
        self.__array_interface__ = iface


def _np_scalar(dtype):
    st = _t.scalar_type(dtype)
    return st._np if st is not None else None


def _struct_np_dtype(nd):
    names, formats, offsets = [], [], []
    leaves = nd.leaves()
    k = 0
    for name, fd in nd.fields():
        n = len(fd.leaves())
        off = leaves[k][0] if n else 0
        k += n
        sub = fd.fields()
        if sub:
            fmt = _struct_np_dtype(fd)
        else:
            st = _t._BY_IR[fd.leaves()[0][1]]
            fl = fd.leaves()
            fmt = np.dtype(st._np) if len(fl) == 1 and "vec" not in str(fd) else np.dtype((st._np, (len(fl),)))
        names.append(name)
        formats.append(fmt)
        offsets.append(off)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": nd.size})


def _resolve_dtype(dtype):
    if dtype is builtins.float:
        return _t.float32
    if dtype is builtins.int:
        return _t.int32
    if dtype is builtins.bool:
        return _t.bool
    return dtype


_NP_TO_WP = {
    np.dtype(np.float32): _t.float32,
    np.dtype(np.float64): _t.float64,
    np.dtype(np.float16): _t.float16,
    np.dtype(np.int8): _t.int8,
    np.dtype(np.int16): _t.int16,
    np.dtype(np.int32): _t.int32,
    np.dtype(np.int64): _t.int64,
    np.dtype(np.uint8): _t.uint8,
    np.dtype(np.uint16): _t.uint16,
    np.dtype(np.uint32): _t.uint32,
    np.dtype(np.uint64): _t.uint64,
    np.dtype(np.bool_): _t.bool,
}


def _flatten_scalars(data):
    """``data`` with Warp scalars and composites as plain numbers (for
    NumPy)."""
    if isinstance(data, _t._Scalar):
        return data.value
    if isinstance(data, _t._Composite):
        return list(data._data)
    if isinstance(data, (list, tuple)):
        return [_flatten_scalars(x) for x in data]
    return data


def _composite_outer_shape(shape, inner, dtype):
    """The array shape data of NumPy shape ``shape`` makes for elements of
    composite ``dtype`` (of shape ``inner``), as Warp reads it: trailing
    dimensions of length 1 dropped; a matrix's own (R, C) last; else the
    last dimension a multiple of the element's length (split into
    elements)."""
    shape = tuple(shape)
    while len(shape) > 1 and shape[-1] == 1:
        shape = shape[:-1]
    n = math.prod(inner)
    if len(inner) == 2 and shape[-2:] == inner:
        return shape[:-2] or (1,)
    if shape and shape[-1] == 0:  # no data: no elements
        return shape
    if shape and shape[-1] % n == 0:
        k = shape[-1] // n
        return (shape[:-1] + ((k,) if k != 1 else ())) or (1,)
    kind = "vector" if len(inner) == 1 else "matrix"
    expected = f"an inner dimension that is a multiple of {n}" if len(inner) == 1 else f"inner dimensions {inner} or a multiple of {n}"
    raise ValueError(
        f"wp.array: parameter 'data' (shape {shape}): its inner dimensions are not compatible with the requested "
        f"{kind} type {_t.type_repr(dtype)}: expected {expected}"
    )


def _shape_tuple(shape):
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


# Buffer-protocol formats (PEP 3118, native byte order) of the scalar types.
_BUFFER_FORMAT = {
    np.dtype(np.float16): "e",
    np.dtype(np.float32): "f",
    np.dtype(np.float64): "d",
    np.dtype(np.int8): "b",
    np.dtype(np.uint8): "B",
    np.dtype(np.int16): "h",
    np.dtype(np.uint16): "H",
    np.dtype(np.int32): "i",
    np.dtype(np.uint32): "I",
    np.dtype(np.int64): "q",
    np.dtype(np.uint64): "Q",
    np.dtype(np.bool_): "?",
}


class HostMemoryError(NotSupportedError, AttributeError):
    """An export that needs device memory, asked of an array that lives in
    host memory (every array of this Weft version): ``__cuda_array_interface__``
    of an array on ``cuda``. An ``AttributeError`` too, so ``hasattr(a,
    "__cuda_array_interface__")`` is false and libraries (CuPy, Numba,
    mpi4py) take the buffer protocol or DLPack instead."""


class array(_native.BufferExporter):
    """A typed array of 1-4 dimensions (Warp's ``wp.array``).

    ``wp.array(dtype=T, ndim=N)`` with no data and no shape is the
    annotation type of kernel parameters, as in Warp.

    The native base class exports the buffer protocol (``memoryview(a)``,
    ``MPI.Comm.Send(a)``): zero copy, writable, the format of the scalar
    type (vector and matrix types as trailing dimensions, structs as a
    ``T{...}`` struct format)."""

    def __init__(
        self,
        data=None,
        dtype=None,
        shape=None,
        strides=None,
        ptr=None,
        capacity=None,
        device=None,
        pinned=False,
        copy=True,
        owner=False,
        deleter=None,
        ndim=None,
        grad=None,
        requires_grad=False,
    ):
        from . import context

        self._native = None
        self._freed = False
        self._grad = None
        self._npv = None  # a view's NumPy view of its base's memory
        self._parent = self._key = None  # a view's parent array and index
        dtype = _resolve_dtype(dtype)
        if ptr is not None:
            raise NotImplementedError("wp.array(ptr=...) (external memory) is not supported by Weft yet")
        if data is None and shape is None:
            # An annotation type: array(dtype=T, ndim=N).
            # No dtype: a generic annotation (`Any`), as in Warp.
            self.dtype = dtype if dtype is not None else typing.Any
            self.ndim = ndim or getattr(type(self), "_ndim", 1)
            self.shape = (0,) * self.ndim if isinstance(self.ndim, int) else ()
            self._vars = None
            self.device = None
            self.requires_grad = False
            return
        self.device = context.get_device(device)
        if data is not None:
            arr = self._from_data(data, dtype, shape, builtins.bool(requires_grad))
        else:
            if dtype is None:
                dtype = _t.float32
            shp = _shape_tuple(shape)
            _t.check_array_shape(shp)
            nd = _t.native_dtype(dtype)
            arr = _native.Array.zeros(nd, list(shp), requires_grad)
            self.dtype = dtype
        self._native = arr
        self.shape = tuple(arr.shape())
        self.ndim = len(self.shape)
        self.requires_grad = bool(requires_grad)
        if grad is not None:
            raise NotImplementedError("wp.array(grad=...) is not supported by Weft yet; use requires_grad=True")

    def _from_data(self, data, dtype, shape, rg):
        if isinstance(data, array):
            data = data.numpy()
        if isinstance(data, np.ndarray):
            _t.check_array_shape(data.shape)  # before any copy (a broadcast view may be huge)
        if dtype is None:
            src = np.asarray(data)
            dtype = _NP_TO_WP.get(src.dtype)
            if dtype is None:
                if src.dtype.kind == "f":
                    dtype = _t.float32
                elif src.dtype.kind in "iu":
                    dtype = _t.int32
                else:
                    raise TypeError(f"wp.array: parameter 'data' has unsupported NumPy dtype {src.dtype}")
            if src.dtype == np.float64 and not isinstance(data, np.ndarray):
                dtype = _t.float32  # Python floats are float32 in Warp
        self.dtype = dtype
        nd = _t.native_dtype(dtype)
        if hasattr(dtype, "_weft_struct_dtype"):
            if not (isinstance(data, (list, tuple)) and all(isinstance(x, dtype) for x in data)):
                raise TypeError(f"wp.array: parameter 'data' must be a list of {dtype.__name__} instances")
            buf = b"".join(x._pack(nd) for x in data)
            src = np.frombuffer(buf, dtype=np.uint8)
            shp = (len(data),)
            return _native.Array.from_numpy(nd, src, list(shp), rg)
        npt = _np_scalar(dtype)
        if isinstance(data, np.ndarray) and data.dtype != npt and data.dtype.kind not in "fiub":
            raise TypeError(f"wp.array: parameter 'data' has unsupported NumPy dtype {data.dtype}")
        if _t.scalar_type(dtype) is _t.bfloat16 and not (isinstance(data, np.ndarray) and data.dtype == np.uint16):
            # Values (floats, ints, bfloat16 scalars) become bfloat16 bits,
            # rounded to nearest even; a uint16 NumPy array is taken as the
            # bits themselves (as Warp does).
            src = _t._np_float32_to_bfloat16_bits(np.asarray(_flatten_scalars(data), dtype=np.float32))
        else:
            src = np.asarray(data, dtype=npt)
        inner = _t.dtype_shape(dtype)
        if shape is not None:
            shp = _shape_tuple(shape)
            if math.prod(shp) * math.prod(inner) != src.size:
                raise ValueError(
                    f"wp.array: parameter 'shape' {shp} does not match the {src.size} values of 'data'"
                )
        elif inner:
            shp = _composite_outer_shape(src.shape, tuple(inner), dtype)
        else:
            shp = tuple(src.shape) or (1,)
        if not 1 <= len(shp) <= 4:
            raise ValueError(f"wp.array: parameter 'data' has {len(shp)} dimensions; arrays have 1 to 4")
        src = np.ascontiguousarray(src)
        return _native.Array.from_numpy(nd, src, list(shp), rg)

    def __class_getitem__(cls, params):
        """``wp.array[T]``, ``wp.array[T, N]`` (``N`` or ``Literal[N]``):
        an annotation type; ``wp.array2d[T]`` takes the type only."""
        sized = getattr(cls, "_ndim", None)
        if sized is not None and isinstance(params, tuple):
            raise TypeError(f"{cls.__name__}[...] takes a single type parameter (the dtype), got {len(params)}")
        dtype, ndim = (params if isinstance(params, tuple) else (params, None))
        return cls(dtype=dtype, ndim=_annotation_ndim(ndim, sized or 1))

    # ----------------------------------------------------------- properties

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def strides(self):
        if self._npv is not None:
            self._live()
            return tuple(self._npv.strides[: self.ndim])
        return tuple(self._live().strides())

    @property
    def capacity(self):
        """The bytes of memory the array's elements span (Warp's)."""
        if self._native is None:
            return 0
        if self._npv is not None:
            return int(self._npv.nbytes)
        return self.size * _t.type_size_in_bytes(self.dtype)

    @property
    def ptr(self):
        if self._native is not None and self.size == 0:
            return None  # no memory, as Warp's empty arrays
        if self._npv is not None:
            self._live()
            return self._npv.__array_interface__["data"][0]
        return self._live().ptr()

    @property
    def is_contiguous(self):
        if self._npv is not None:
            return builtins.bool(self._npv.flags.c_contiguous)
        return True

    @property
    def is_view(self):
        """Weft: whether the array is a view of another one (``a[1:3]``)."""
        return self._npv is not None

    @property
    def vars(self):
        v = self.__dict__.get("_vars")
        if v is None:
            v = self._vars = {}
        return v

    def _live(self):
        if self._freed:
            raise RuntimeError("the array has been freed")
        if self._native is None:
            raise RuntimeError("the array has no storage (an annotation type)")
        return self._native

    @property
    def grad(self):
        if self._npv is not None:
            if self._grad is None:
                pg = self._parent.grad
                self._grad = pg[self._key] if pg is not None else None
            return self._grad
        if self._grad is None and self._native is not None and self._native.has_grad():
            g = array.__new__(array)
            g._native = self._native.grad()
            g._freed = False
            g._grad = g._npv = g._parent = g._key = None
            g.dtype, g.shape, g.ndim, g.device = self.dtype, self.shape, self.ndim, self.device
            g.requires_grad = False
            self._grad = g
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is None:
            return
        self.grad.assign(value)

    def free(self):
        """Weft: drops this array's storage (NumPy views made before keep
        theirs alive); using the array afterwards raises."""
        self._freed = True
        self._native = None
        self._grad = None
        self._npv = None

    # ---------------------------------------------------------------- numpy

    @property
    def __array_interface__(self):
        a = self._live()
        if self._npv is not None:
            return self._npv.__array_interface__
        if a.is_struct():
            npd = _struct_np_dtype(a.dtype())
            return {"data": (a.ptr(), False), "shape": self.shape, "descr": npd.descr, "typestr": npd.str, "version": 3}
        npt = np.dtype(_np_scalar(self.dtype))
        shape = self.shape + tuple(_t.dtype_shape(self.dtype))
        return {"data": (a.ptr(), False), "shape": shape, "typestr": npt.str, "version": 3}

    # ------------------------------------------- communication libraries

    def _buffer_name(self):
        """How export errors name the array."""
        if self._native is None and not self._freed:
            return f"wp.array(dtype={_t.type_repr(self.dtype)}, ndim={self.ndim}) (an annotation type)"
        view = ", a view" if self._npv is not None else ""
        return f"wp.array(dtype={_t.type_repr(self.dtype)}, shape={self.shape}, device={self.device}{view})"

    def _exportable(self, what):
        """The NumPy view of the array's memory, or a ``BufferError``
        naming the array and saying why it has none."""
        if self._freed:
            raise BufferError(f"{what} of {self._buffer_name()}: the array has been freed")
        if self._native is None:
            raise BufferError(f"{what} of {self._buffer_name()}: an annotation type has no memory")
        return self.numpy()

    def _buffer_spec(self):
        """What ``weft._native.BufferExporter.__getbuffer__`` exports:
        ``(address, itemsize, format, shape, byte strides, owner)``; the
        owner (the NumPy view, holding the native array) keeps the memory
        alive until the export is released, also across ``free()``."""
        v = self._exportable("the buffer protocol")
        # bfloat16 (viewed by NumPy as uint16): its 16-bit patterns, format
        # "H" (PEP 3118 has no bfloat16; MPI moves the bits as they are).
        fmt = _BUFFER_FORMAT.get(v.dtype)
        if fmt is None:
            if v.dtype.names is None:
                raise BufferError(f"the buffer protocol of {self._buffer_name()}: no buffer format for {v.dtype}")
            # A struct: NumPy's PEP 3118 format of the same record layout
            # (field names, offsets as pad bytes, sub-arrays for vectors).
            fmt = memoryview(np.empty(0, dtype=v.dtype)).format
        return (v.__array_interface__["data"][0], v.dtype.itemsize, fmt, v.shape, v.strides, v)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of the array's memory (host memory: ``kDLCPU``),
        zero copy unless ``copy=True``; vector and matrix types as trailing
        dimensions. Struct arrays have no DLPack type and raise
        ``BufferError``."""
        v = self._exportable("__dlpack__")
        if v.dtype.names is not None:
            raise BufferError(
                f"__dlpack__ of {self._buffer_name()}: DLPack has no struct types; "
                "use the buffer protocol (memoryview) or export the fields' arrays"
            )
        if _t.scalar_type(self.dtype) is _t.bfloat16:
            raise BufferError(
                f"__dlpack__ of {self._buffer_name()}: bfloat16 (kDLBfloat) is not exported yet: the capsule is "
                "NumPy's, which has no bfloat16 (it would say uint16); the buffer protocol gives the 16-bit patterns"
            )
        if stream is not None:
            raise BufferError(
                f"__dlpack__ of {self._buffer_name()}: parameter 'stream' must be None for host memory (kDLCPU), got {stream!r}"
            )
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(
                f"__dlpack__ of {self._buffer_name()}: parameter 'dl_device' {tuple(dl_device)} is not the array's "
                f"{self.__dlpack_device__()} (kDLCPU: arrays are host memory in this version)"
            )
        kwargs = {k: x for k, x in (("max_version", max_version), ("copy", copy)) if x is not None}
        # NumPy's exporter fills the DLManagedTensor for the zero-copy view
        # `v` (which holds the native array, keeping the memory alive for
        # the capsule's lifetime).
        return v.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        """``(kDLCPU, 0)``: arrays are host memory on every device in this
        version (a launch on ``vulkan``/``cuda`` copies them there and back)."""
        return (1, 0)

    @property
    def __cuda_array_interface__(self):
        """Raises: no array of this version has device memory. On ``cuda``
        a ``HostMemoryError`` saying why, elsewhere an ``AttributeError``
        (as Warp's CPU arrays); both make ``hasattr`` false."""
        dev = self.device
        if dev is not None and getattr(dev, "is_cuda", False):
            raise HostMemoryError(
                "wp.array.__cuda_array_interface__",
                f"{self._buffer_name()} lives in host memory (every Weft array does in this version; a launch "
                "copies it to the GPU and back), so there is no device pointer to give; device-resident arrays "
                "are issue 26 item 3. Use the buffer protocol, __array_interface__ or DLPack (kDLCPU), or "
                "CUDA-aware code on a copy",
            )
        raise AttributeError(
            f"__cuda_array_interface__: {self._buffer_name()} is not on a CUDA device (host memory: "
            "use the buffer protocol, __array_interface__ or DLPack)"
        )

    def numpy(self):
        """A NumPy view of the array's memory (no copy)."""
        if self._npv is not None:
            self._live()
            return self._npv
        iface = self.__array_interface__
        if iface["typestr"].startswith("|V"):
            view = np.asarray(_View(self._native, {**iface, "typestr": f"|V{self._native.dtype().size}", "descr": [("", f"|V{self._native.dtype().size}")]}))
            return view.view(_struct_np_dtype(self._native.dtype()))
        return np.asarray(_View(self._native, iface))

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def list(self):
        a = self.numpy()
        if hasattr(self.dtype, "_weft_struct_dtype"):
            return [self.dtype._from_record(r) for r in a.reshape(-1)]
        if issubclass_safe(self.dtype, _t._Composite):
            inner = len(_t.dtype_shape(self.dtype))
            flat = a.reshape((-1,) + a.shape[a.ndim - inner :])
            return [self.dtype(x) for x in flat]
        if self.dtype is _t.bfloat16:
            # The values of the stored bits, as bfloat16 scalars (Warp's).
            return [_t.bfloat16(x) for x in _t._np_bfloat16_bits_to_float32(a.reshape(-1)).tolist()]
        return a.reshape(-1).tolist()

    def fill_(self, value):
        a = self.numpy()
        if isinstance(value, _t._Composite):
            value = np.asarray(value._data).reshape(value._shape_)
        elif hasattr(value, "_pack"):
            raise NotImplementedError("fill_ with a struct value is not supported by Weft yet")
        elif isinstance(value, (list, tuple, np.ndarray)) and _t.dtype_shape(self.dtype):
            # A sequence of an element's components (a matrix's flat or by rows).
            inner = tuple(_t.dtype_shape(self.dtype))
            v = np.asarray(_flatten_scalars(value))
            if v.size != math.prod(inner):
                raise ValueError(
                    f"fill_: parameter 'value' has {v.size} components, an element of {_t.type_repr(self.dtype)} has {math.prod(inner)}"
                )
            value = v.reshape(inner)
        if _t.scalar_type(self.dtype) is _t.bfloat16:
            value = _t._np_float32_to_bfloat16_bits(np.asarray(_flatten_scalars(value), dtype=np.float32))
        a[...] = value
        return self

    def zero_(self):
        self.numpy()[...] = 0
        return self

    def assign(self, src):
        """Copies ``src`` (an array, NumPy array or list of the same shape)."""
        if isinstance(src, array):
            src = src.numpy()
        dst = self.numpy()
        srcn = np.asarray(src, dtype=dst.dtype)
        if srcn.size != dst.size:
            raise ValueError(f"assign: parameter 'src' has {srcn.size} values, the array holds {dst.size}")
        dst[...] = srcn.reshape(dst.shape)
        return self

    def __ctype__(self):
        """Weft: the array itself, what a launch takes (Warp's ctypes
        descriptor, for ``wp.Launch.set_param_*_from_ctype``)."""
        return self

    def zero_grad(self):
        if self._native is not None:
            self._native.zero_grad()

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        if self._native is None:
            return _annotation_repr("array", self.dtype, self.ndim, sized=True)
        return repr(self.numpy())

    # An annotation (no storage) compares and hashes by its type; an array
    # with storage by identity.
    def __eq__(self, other):
        if self.__dict__.get("_native") is None and not self.__dict__.get("_freed") and isinstance(other, array):
            return other._native is None and not other._freed and _t.types_equal(self.dtype, other.dtype) and self.ndim == other.ndim
        return self is other

    def __hash__(self):
        if self.__dict__.get("_native") is None and not self.__dict__.get("_freed"):
            return hash((array, self.dtype, self.ndim))
        return id(self)

    def __or__(self, other):  # `wp.array[float] | None`: a Union, at Python scope
        return typing.Union[self, other]

    # Elementwise arithmetic, as Warp's: `wp.map` of the builtin (a new
    # array; the in-place forms write this one).
    def _map(self, name, *args, out=None):
        import sys

        wp = sys.modules[__name__.rsplit(".", 1)[0]]
        return wp.map(getattr(wp, name), *args, out=out)

    def __add__(self, other):
        return self._map("add", self, other)

    def __radd__(self, other):
        return self._map("add", other, self)

    def __sub__(self, other):
        return self._map("sub", self, other)

    def __rsub__(self, other):
        return self._map("sub", other, self)

    def __mul__(self, other):
        return self._map("mul", self, other)

    def __rmul__(self, other):
        return self._map("mul", other, self)

    def __truediv__(self, other):
        return self._map("div", self, other)

    def __rtruediv__(self, other):
        return self._map("div", other, self)

    def __floordiv__(self, other):
        return self._map("floordiv", self, other)

    def __rfloordiv__(self, other):
        return self._map("floordiv", other, self)

    def __mod__(self, other):
        return self._map("mod", self, other)

    def __rmod__(self, other):
        return self._map("mod", other, self)

    def __pow__(self, other):
        return self._map("pow", self, other)

    def __rpow__(self, other):
        return self._map("pow", other, self)

    def __neg__(self):
        return self._map("neg", self)

    def __pos__(self):
        return self._map("pos", self)

    def __iadd__(self, other):
        self._map("add", self, other, out=self)
        return self

    def __isub__(self, other):
        self._map("sub", self, other, out=self)
        return self

    def __imul__(self, other):
        self._map("mul", self, other, out=self)
        return self

    def __itruediv__(self, other):
        self._map("div", self, other, out=self)
        return self

    def __ifloordiv__(self, other):
        self._map("floordiv", self, other, out=self)
        return self

    def __imod__(self, other):
        self._map("mod", self, other, out=self)
        return self

    def __ipow__(self, other):
        self._map("pow", self, other, out=self)
        return self

    def __ror__(self, other):
        return typing.Union[other, self]

    def __str__(self):
        return str(self.numpy()) if self._native is not None else self.__repr__()

    def __getitem__(self, key):
        """A view sharing this array's memory, as Warp's: ``a[i]`` (of an
        array of 2+ dimensions), ``a[i:j]``, ``a[::2]``, ``a[:, k]``. Full
        item indexing (``a[i]`` of a 1-d array) raises, as in Warp."""
        self._live()
        keys = key if isinstance(key, tuple) else (key,)
        if len(keys) > self.ndim:
            raise RuntimeError(f"Invalid index: {key} has {len(keys)} indices, the array {self.ndim} dimension(s)")
        norm = []
        for axis, k in enumerate(keys):
            n = self.shape[axis]
            if isinstance(k, slice):
                start = 0 if k.start is None else int(k.start)
                stop = n if k.stop is None else int(k.stop)
                step = 1 if k.step is None else int(k.step)
                if step == 0:
                    raise ValueError("slice step cannot be zero")
                start += n if start < 0 else 0
                stop += n if stop < 0 else 0
                if step < 0 or not (0 <= start < n or (start == n == stop)) or not 0 <= stop <= n or stop < start:
                    raise RuntimeError(f"Invalid indexing in slice: {start}:{stop}:{step}")
                norm.append(slice(start, stop, step))
            elif isinstance(k, (builtins.int, np.integer)) and not isinstance(k, builtins.bool):
                i = int(k) + (n if k < 0 else 0)
                if not 0 <= i < n:
                    raise RuntimeError(f"Invalid indexing: index {k} is out of bounds for axis {axis} of size {n}")
                norm.append(i)
            elif isinstance(k, array):
                raise NotImplementedError("indexing a wp.array with an index array (indexedarray) is not supported by Weft yet")
            else:
                raise RuntimeError(f"Invalid index: {key}")
        if all(not isinstance(k, slice) for k in norm) and len(norm) == self.ndim:
            raise RuntimeError("Item indexing is not supported on wp.array objects")
        v = array.__new__(type(self))
        v._native, v._freed, v._grad = self._native, False, None
        v._npv = self.numpy()[tuple(norm)]
        v._parent, v._key = self, tuple(norm)
        v.dtype, v.device, v.requires_grad = self.dtype, self.device, self.requires_grad
        v.ndim = self.ndim - sum(1 for k in norm if not isinstance(k, slice))
        v.shape = tuple(v._npv.shape[: v.ndim])
        return v

    def to(self, device):
        return clone(self, device=device)

    def contiguous(self):
        """The array itself if it is not a view, else a contiguous copy."""
        return self if self._npv is None else clone(self)

    def flatten(self):
        if not self.is_contiguous:
            raise RuntimeError("Flattening non-contiguous arrays is unsupported.")
        return array(self.numpy().reshape(-1, *_t.dtype_shape(self.dtype)), dtype=self.dtype, device=self.device)

    def reshape(self, shape):
        if not self.is_contiguous:
            raise RuntimeError("Reshaping non-contiguous arrays is unsupported.")
        return array(
            self.numpy().reshape(*_shape_tuple(shape), *_t.dtype_shape(self.dtype)), dtype=self.dtype, device=self.device
        )


def issubclass_safe(a, b):
    return isinstance(a, type) and issubclass(a, b)


def _sized(cls_ndim):
    class sized(array):
        _ndim = cls_ndim

        def __init__(self, *args, **kwargs):
            kwargs.setdefault("ndim", cls_ndim)
            super().__init__(*args, **kwargs)

    sized.__name__ = sized.__qualname__ = f"array{cls_ndim}d"
    return sized


array1d, array2d, array3d, array4d = (_sized(n) for n in (1, 2, 3, 4))



def _new(shape, dtype, device, requires_grad):
    return array(shape=shape, dtype=dtype, device=device, requires_grad=requires_grad)


def zeros(shape=None, dtype=float, device=None, requires_grad=False, pinned=False, **kwargs):
    return _new(shape if shape is not None else 0, dtype, device, requires_grad)


def empty(shape=None, dtype=float, device=None, requires_grad=False, pinned=False, **kwargs):
    return zeros(shape, dtype, device, requires_grad)


def full(shape=None, value=0, dtype=None, device=None, requires_grad=False, pinned=False, **kwargs):
    if dtype is None:
        if isinstance(value, _t._Composite):
            dtype = type(value)
        elif isinstance(value, (_t._Scalar,)):
            dtype = type(value)
        elif isinstance(value, builtins.bool):
            dtype = _t.bool
        elif isinstance(value, builtins.int):
            dtype = _t.int32
        elif isinstance(value, (list, tuple, np.ndarray)):
            # A vector (1-d) or matrix (2-d) of the values' NumPy type, as Warp infers it.
            v = np.asarray(value)
            st = _NP_TO_WP.get(v.dtype)
            if st is None or v.ndim not in (1, 2):
                raise TypeError(f"full: cannot infer a Warp dtype from parameter 'value' ({v.dtype}, {v.ndim} dimensions)")
            dtype = _t.vector(v.shape[0], st) if v.ndim == 1 else _t.matrix(v.shape, st)
        else:
            dtype = _t.float32
    a = zeros(shape, dtype, device, requires_grad)
    return a.fill_(value)


def ones(shape=None, dtype=float, device=None, requires_grad=False, pinned=False, **kwargs):
    return full(shape, 1, dtype, device, requires_grad)


def _like(src, device, requires_grad, dtype=None):
    return (
        src.shape,
        dtype if dtype is not None else src.dtype,
        device if device is not None else src.device,
        src.requires_grad if requires_grad is None else requires_grad,
    )


def zeros_like(src, device=None, requires_grad=None, pinned=None):
    return zeros(*_like(src, device, requires_grad))


def empty_like(src, device=None, requires_grad=None, pinned=None):
    return zeros(*_like(src, device, requires_grad))


def ones_like(src, device=None, requires_grad=None, pinned=None):
    return ones(*_like(src, device, requires_grad))


def full_like(src, value, device=None, requires_grad=None, pinned=None):
    shape, dtype, device, rg = _like(src, device, requires_grad)
    return full(shape, value, dtype, device, rg)


def clone(src, device=None, requires_grad=None, pinned=None):
    shape, dtype, device, rg = _like(src, device, requires_grad)
    a = zeros(shape, dtype, device, rg)
    a.numpy()[...] = src.numpy()
    return a


def from_numpy(arr, dtype=None, shape=None, device=None, requires_grad=False):
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"from_numpy: parameter 'arr' must be a NumPy array, got {type(arr).__name__}")
    if dtype is None:
        dtype = _NP_TO_WP.get(arr.dtype)
        if dtype is None:
            raise TypeError(f"from_numpy: parameter 'arr' has unsupported dtype {arr.dtype}")
    return array(data=arr, dtype=dtype, shape=shape, device=device, requires_grad=requires_grad)


def to_dlpack(wp_array):
    """A DLPack capsule of ``wp_array``'s memory (zero copy, ``kDLCPU``):
    ``wp_array.__dlpack__()``."""
    if not isinstance(wp_array, array):
        raise TypeError(f"to_dlpack: parameter 'wp_array' must be a wp.array, got {type(wp_array).__name__}")
    return wp_array.__dlpack__()


class _CapsuleSource:
    """A DLPack producer around a bare capsule, for NumPy's
    ``from_dlpack`` (which takes producers, not capsules)."""

    def __init__(self, capsule, device):
        self._capsule, self._device = capsule, device

    def __dlpack_device__(self):
        return self._device

    def __dlpack__(self, **kwargs):
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise BufferError("the DLPack capsule has been consumed already")
        return capsule


def _dlpack_type_name(npdtype):
    """DLPack's name of a NumPy dtype (``float32``, ``bool8``)."""
    kind = {"b": "bool", "f": "float", "i": "int", "u": "uint", "c": "complex"}.get(npdtype.kind)
    return f"{kind}{npdtype.itemsize * 8}" if kind else str(npdtype)


def from_dlpack(source, dtype=None):
    """A ``wp.array`` from DLPack: a capsule (``wp.to_dlpack(a)``,
    ``torch.utils.dlpack.to_dlpack(t)``) or an object with ``__dlpack__``
    (a CPU torch tensor, a NumPy array), in host memory (``kDLCPU``).
    Unlike Warp's, it COPIES: Weft arrays own their memory
    (``wp.array(ptr=...)`` is not supported), so writes to the result do
    not reach ``source``. ``dtype``: the source's scalar type (``bool`` may
    be read as ``int8``/``uint8``); a vector/matrix type of it takes the
    trailing dimensions. Checks as Warp's: a device other than the host is
    a ``TypeError`` before ``__dlpack__`` is called, a scalar type other
    than the source's a ``RuntimeError``."""
    if isinstance(source, array):
        source = source.__dlpack__()
    if hasattr(source, "__dlpack__"):
        if not hasattr(source, "__dlpack_device__"):
            raise TypeError(f"from_dlpack: parameter 'source' ({type(source).__name__}) has __dlpack__ but no __dlpack_device__")
        device_type, device_id = (int(x) for x in source.__dlpack_device__())
        if device_type != 1:
            raise TypeError(
                f"Unsupported source device for DLPack: device_type={device_type}, device_id={device_id} "
                "(Weft takes host memory, kDLCPU: its arrays are host memory on every device in this version)"
            )
        capsule = source.__dlpack__()
    else:
        capsule = source
    # A TypeError ("Expected a valid DLPack capsule, got ...") for anything
    # that is not an unconsumed DLPack capsule.
    device_type, device_id = _native.dlpack_capsule_device(capsule)
    if device_type != 1:
        raise TypeError(
            f"Unsupported source device for DLPack: device_type={device_type}, device_id={device_id} "
            "(Weft takes host memory, kDLCPU: its arrays are host memory on every device in this version)"
        )
    try:
        host = np.from_dlpack(_CapsuleSource(capsule, (device_type, device_id)))
    except (BufferError, RuntimeError, TypeError, ValueError) as e:
        raise BufferError(f"from_dlpack: parameter 'source' is not readable through DLPack here: {e}") from e
    if dtype is None:
        dtype = _NP_TO_WP.get(host.dtype)
        if dtype is None:
            raise RuntimeError(f"from_dlpack: DLPack type {_dlpack_type_name(host.dtype)} has no Warp type")
    else:
        dtype = _resolve_dtype(dtype)
        want = np.dtype(_np_scalar(dtype)) if _np_scalar(dtype) is not None else None
        if want is not None and host.dtype.kind == "b" and want in (np.dtype(np.int8), np.dtype(np.uint8)):
            host = host.view(want)
        elif want is None or host.dtype != want:
            raise RuntimeError(
                f"Incompatible data types: DLPack {_dlpack_type_name(host.dtype)} and Warp {_t.type_repr(dtype)}"
            )
    return array(np.ascontiguousarray(host), dtype=dtype)


def _flat1(a):
    """A 1-d view of the outer axes of a contiguous array's NumPy view
    (trailing vector/matrix axes kept)."""
    n = a.numpy()
    inner = len(_t.dtype_shape(a.dtype))
    return n.reshape((-1,) + n.shape[n.ndim - inner :])


def copy(dest, src, dest_offset=0, src_offset=0, count=0, stream=None):
    """Copies ``count`` elements (all of ``src`` if 0) between arrays, with
    Warp's checks; views may be non-contiguous (offsets and counts then
    need 1-d arrays). On a tape, the gradients are copied too and the
    adjoint (Warp's ``adj_copy``) is recorded."""
    import operator

    for name, a in (("dest", dest), ("src", src)):
        if not isinstance(a, array):
            raise RuntimeError(f"Copy source and destination must be arrays (parameter '{name}' is {type(a).__name__})")
    try:
        src_offset, dest_offset, count = (operator.index(x) for x in (src_offset, dest_offset, count))
    except TypeError as e:
        raise RuntimeError("Copy src_offset, dest_offset, and count must be integers") from e
    if src_offset < 0:
        raise RuntimeError(f"Source offset must be non-negative, got {src_offset}")
    if dest_offset < 0:
        raise RuntimeError(f"Destination offset must be non-negative, got {dest_offset}")
    if count < 0:
        raise RuntimeError(f"Copy count must be non-negative, got {count}")
    if count == 0:
        count = src.size
    if count == 0:
        return
    d, s = dest.numpy(), src.numpy()
    if d.dtype.itemsize * math.prod(_t.dtype_shape(dest.dtype)) != s.dtype.itemsize * math.prod(_t.dtype_shape(src.dtype)):
        raise RuntimeError(
            f"Incompatible array data types: destination dtype={_t.type_repr(dest.dtype)}, source dtype={_t.type_repr(src.dtype)}"
        )
    if src.is_contiguous and dest.is_contiguous:
        esize = d.dtype.itemsize * math.prod(_t.dtype_shape(dest.dtype))
        nbytes, soff, doff = count * esize, src_offset * esize, dest_offset * esize
        if soff + nbytes > src.size * esize:
            raise RuntimeError(
                f"Trying to copy source buffer with size ({nbytes}) from offset ({soff}) is larger than source size ({src.size * esize})"
            )
        if doff + nbytes > dest.size * esize:
            raise RuntimeError(
                f"Trying to copy source buffer with size ({nbytes}) to offset ({doff}) is larger than destination size ({dest.size * esize})"
            )
        db = d.reshape(-1).view(np.uint8)
        db[doff : doff + nbytes] = s.reshape(-1).view(np.uint8)[soff : soff + nbytes]
    else:
        sv, dv = s, d
        if src_offset or dest_offset or count != src.size or count != dest.size:
            if src.ndim != 1 or dest.ndim != 1:
                raise RuntimeError(
                    "Copy offsets and count are only supported for 1-D arrays when either array is non-contiguous"
                )
            if src_offset + count > src.size:
                raise RuntimeError(
                    f"Trying to copy a range of {count} element(s) from source offset ({src_offset}) exceeds the source size ({src.size})"
                )
            if dest_offset + count > dest.size:
                raise RuntimeError(
                    f"Trying to copy a range of {count} element(s) to destination offset ({dest_offset}) exceeds the destination size ({dest.size})"
                )
            sv, dv = s[src_offset : src_offset + count], d[dest_offset : dest_offset + count]
        if sv.shape[: src.ndim if sv is s else 1] != dv.shape[: dest.ndim if dv is d else 1]:
            raise RuntimeError(f"Incompatible array shapes: destination shape={dest.shape}, source shape={src.shape}")
        dv[...] = sv.view(dv.dtype).reshape(dv.shape) if sv.dtype != dv.dtype else sv
    if src.grad is not None and dest.grad is not None and src._native is not None:
        from .tape import _Tape_current

        copy(dest.grad, src.grad, dest_offset=dest_offset, src_offset=src_offset, count=count)
        tape = _Tape_current()
        if tape is not None:
            contiguous = src.is_contiguous and dest.is_contiguous and d.dtype == s.dtype and d.dtype.kind == "f"
            tape.record_func(lambda: _adj_copy(dest, src, dest_offset, src_offset, count, contiguous), [dest, src])


def _adj_copy(dest, src, dest_offset, src_offset, count, accumulate):
    """The adjoint of ``copy``: accumulates the destination region's
    gradient into the source region's and zeroes it (Warp's ``adj_copy``;
    non-contiguous copies overwrite instead)."""
    if accumulate:
        dg, sg = _flat1(dest.grad), _flat1(src.grad)
        sg[src_offset : src_offset + count] += dg[dest_offset : dest_offset + count]
        dg[dest_offset : dest_offset + count] = 0
    else:
        copy(src.grad, dest.grad, dest_offset=src_offset, src_offset=dest_offset, count=count)


# --------------------------------------------------- unsupported families
# Warp's other array families. Weft's compiler has no indexed or fabric
# arrays: the classes exist (annotations such as ``wp.indexedarray[float]``,
# ``isinstance`` checks, subclasses) and making an array of them raises
# ``NotSupportedError``.


class _UnsupportedArrayFamily:
    _weft_name = "wp.?"
    _weft_reason = ""
    _ndim = 1

    def __init__(self, *args, dtype=None, ndim=None, **kwargs):
        from ._unsupported import NotSupportedError

        if any(a is not None for a in args) or any(v is not None for v in kwargs.values()):
            raise NotSupportedError(self._weft_name, self._weft_reason)
        # No data: an annotation type, `wp.fabricarray(dtype=T, ndim=N)`.
        self._annotation(dtype, ndim)

    def _annotation(self, dtype, ndim):
        if ndim is not None and not isinstance(ndim, int):
            ndim = getattr(ndim, "__args__", (None,))[0]  # Literal[N]
        self.dtype = _resolve_dtype(dtype)
        self.ndim = ndim if ndim is not None else self._ndim
        self.shape = (0,) * self.ndim
        self.device = None
        self.requires_grad = False

    def __class_getitem__(cls, params):
        """``wp.indexedarray[T]``, ``[T, N]``: an annotation (a light
        ``_FamilyAnnotation``, not an array of the family)."""
        dtype, ndim = params if isinstance(params, tuple) else (params, None)
        return _FamilyAnnotation(cls, dtype, _annotation_ndim(ndim, cls._ndim))

    def __repr__(self):
        return f"{type(self).__name__}(dtype={getattr(self, 'dtype', None)!r}, ndim={getattr(self, 'ndim', None)})"


def _family(name, reason, ndim=1, base=_UnsupportedArrayFamily):
    return type(name, (base,), {"_weft_name": f"wp.{name}", "_weft_reason": reason, "_ndim": ndim})


_INDEXED = "indexed arrays are not implemented in Weft yet"
_FABRIC = "Weft has no fabric arrays (Omniverse Fabric)"
indexedarray = _family("indexedarray", _INDEXED)
indexedarray1d, indexedarray2d, indexedarray3d, indexedarray4d = (
    _family(f"indexedarray{n}d", _INDEXED, n, indexedarray) for n in (1, 2, 3, 4)
)
fabricarray = _family("fabricarray", _FABRIC)
# Warp's fixed-size arrays (declared in kernels and funcs): not in Weft's
# compiler yet.
fixedarray = _family("fixedarray", "fixed-size arrays (wp.fixedarray) are not implemented in Weft's compiler yet")
indexedfabricarray = _family("indexedfabricarray", _FABRIC)
fabricarrayarray = _family("fabricarrayarray", _FABRIC, 1, fabricarray)
indexedfabricarrayarray = _family("indexedfabricarrayarray", _FABRIC, 1, indexedfabricarray)


class _FamilyAnnotation:
    """``wp.indexedarray[T, N]`` and the like: the annotation of a
    parameter of one of the families above (``_concrete_cls``)."""

    __slots__ = ("_concrete_cls", "dtype", "ndim", "_vars")

    def __init__(self, cls, dtype, ndim):
        self._concrete_cls = cls
        self.dtype = _resolve_dtype(dtype)
        self.ndim = ndim
        self._vars = None

    @property
    def shape(self):
        return (0,) * self.ndim

    @property
    def vars(self):
        if self._vars is None:
            self._vars = {}
        return self._vars

    def __ctype__(self):
        from ._unsupported import NotSupportedError

        raise NotSupportedError(self._concrete_cls._weft_name, self._concrete_cls._weft_reason)

    def __eq__(self, other):
        return (
            isinstance(other, _FamilyAnnotation)
            and self._concrete_cls is other._concrete_cls
            and self.dtype == other.dtype
            and self.ndim == other.ndim
        )

    def __hash__(self):
        return hash((self._concrete_cls, self.dtype, self.ndim))

    def __or__(self, other):
        import typing

        return typing.Union[self, other]

    def __ror__(self, other):
        import typing

        return typing.Union[other, self]

    def __repr__(self):
        return _annotation_repr(self._concrete_cls.__name__, self.dtype, self.ndim, sized=False)


def _dtype_repr(dtype):
    """A dtype as source text: ``wp.vec3f``, ``Any``, a struct's name."""
    import sys

    if _t._is_any(dtype):
        return "Any"
    name = getattr(dtype, "__name__", None)
    wp = sys.modules[__name__.rsplit(".", 1)[0]]
    if name and getattr(wp, name, None) is dtype:
        return f"wp.{name}"
    if _t.type_is_composite(dtype):
        st = f"wp.{dtype._wp_scalar_type_.__name__}"
        if dtype._kind == "vec":
            return f"wp.types.vector(length={dtype._shape_[0]}, dtype={st})"
        if dtype._kind == "mat":
            return f"wp.types.matrix(shape={dtype._shape_}, dtype={st})"
        if dtype._kind == "quat":
            return f"wp.types.quaternion(dtype={st})"
        return f"wp.types.transformation(dtype={st})"
    return name or repr(dtype)


def _annotation_repr(family, dtype, ndim, sized):
    """``wp.array[wp.float32]``, ``wp.array3d[wp.vec3f]``,
    ``wp.indexedarray[wp.float32, Literal[3]]``, ``wp.array[Any, Any]``."""
    d = _dtype_repr(dtype)
    if _t._is_any(ndim):
        return f"wp.{family}[{d}, Any]"
    if ndim == 1:
        return f"wp.{family}[{d}]"
    if sized:
        return f"wp.{family}{ndim}d[{d}]"
    return f"wp.{family}[{d}, Literal[{ndim}]]"


def _annotation_ndim(ndim, default):
    """An annotation's dimension count: ``N`` or ``Literal[N]``, 1-4."""
    import typing

    if ndim is None:
        return default
    if typing.get_origin(ndim) is typing.Literal:
        args = typing.get_args(ndim)
        if len(args) != 1:
            raise TypeError(f"Expected a single Literal value for the array's ndim, got Literal{list(args)}")
        ndim = args[0]
    if _t._is_any(ndim):
        return ndim
    if isinstance(ndim, builtins.bool) or not isinstance(ndim, (int, np.integer)):
        raise TypeError(f"the array's ndim must be an integer or Literal[N], got {ndim!r}")
    if not 1 <= ndim <= 4:
        raise ValueError(f"ndim must be between 1 and 4, got {ndim}")
    return int(ndim)
