"""``@wp.struct``: Python classes whose instances pack into a kernel's
struct arguments (C layout from the native ``Dtype`` of the struct, which
a one-kernel probe module compiles), and their field conversions."""

from __future__ import annotations

import builtins

import warnings as _warnings

import numpy as _np

from .. import _native
from . import types as _t
from .array import array

class _StructInstance:
    def __ctype__(self):
        """Weft: the instance itself, what a launch takes (Warp's ctypes
        value, for ``wp.Launch.set_param_*_from_ctype``)."""
        return self


# Names of the Python modules that define Warp kernels, funcs or structs
# (`wp.load_module` refuses others, as Warp).
_warp_modules = set()


def struct(cls):
    """``@wp.struct``: a class whose instances hold the annotated fields."""
    import sys

    if cls.__bases__ != (object,):
        raise RuntimeError("Warp structs must be defined as base classes")
    ann = dict(cls.__dict__.get("__annotations__", {}))
    fields = list(ann)
    mod_name = cls.__module__
    src_cls = cls
    _warp_modules.add(mod_name)

    class S(_StructInstance):
        __slots__ = tuple(fields)
        _weft_struct = True
        _fields = fields
        _annotations = ann
        _cls = src_cls
        _nd = None

        def __init__(self, **kw):
            for f in fields:
                t = ann[f]
                v = _default(t)
                object.__setattr__(self, f, v)
            for k, v in kw.items():
                setattr(self, k, v)

        def __setattr__(self, field, value):
            t = _t._PY.get(ann.get(field), ann.get(field))
            if isinstance(t, type) and issubclass(t, _t._Composite):
                value = _struct_composite(field, t, value)
            elif isinstance(t, type) and issubclass(t, _t._Scalar) and value is None:
                value = _default(t)
            object.__setattr__(self, field, value)

        @classmethod
        def _weft_struct_dtype(cls):
            if cls._nd is None:
                from . import codegen, _this_module

                b = codegen._Builder(_this_module())
                name = b.emit(cls.__name__, cls)
                text = b.text(
                    f"@wp.kernel\ndef _weft_struct_probe(s: {name}):\n    pass\n"
                )
                m = _native.compile(f"<struct {cls.__name__}>", text, cache=False)
                cls._nd = m.struct_dtype(name)
            return cls._nd

        def _leaves(self):
            out = []
            for f in fields:
                v = getattr(self, f)
                if isinstance(v, _StructInstance):
                    out.extend(v._leaves())
                elif isinstance(v, _t._Composite):
                    out.extend(v._data)
                elif isinstance(v, array):
                    raise NotImplementedError("array fields of structs are not supported by Weft yet")
                else:
                    out.append(v.value if isinstance(v, _t._Scalar) else v)
            return out

        def _pack(self, nd=None):
            import struct as pystruct

            nd = nd or self._weft_struct_dtype()
            buf = bytearray(nd.size)
            for (off, sc), v in zip(nd.leaves(), self._leaves()):
                fmt = _FMT[sc]
                if sc == "bf16":
                    import numpy as np

                    b = np.float32(v).tobytes()[2:]
                    buf[off : off + 2] = b
                    continue
                pystruct.pack_into("<" + fmt, buf, off, v)
            return bytes(buf)

        @classmethod
        def _from_record(cls, rec):
            s = cls()
            for f in fields:
                t = ann[f]
                v = rec[f]
                if getattr(t, "_weft_struct", False):
                    setattr(s, f, t._from_record(v))
                elif isinstance(t, type) and issubclass(t, _t._Composite):
                    setattr(s, f, t(v))
                else:
                    setattr(s, f, v.item())
            return s

        def __repr__(self):
            return f"{cls.__name__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in fields) + ")"

    S.__name__ = cls.__name__
    S.__qualname__ = cls.__qualname__
    S.__module__ = mod_name
    S.__doc__ = cls.__doc__
    S.key = cls.__name__
    S.cls = S  # instances are of the decorated class, as Warp's `Struct.cls`
    S.vars = ann
    S._weft_source_cls = cls
    sys.modules.get(mod_name)
    return S


def _broadcast_scalar(value, tname, where):
    """The number a bool or NumPy scalar given for a composite of type
    ``tname`` broadcasts to (Warp's deprecated conversion, with its
    warning), or None for other values."""
    if not isinstance(value, (bool, _t.bool, _np.bool_, _np.integer, _np.floating)):
        return None
    _warnings.warn(
        f"Implicit conversion from a value of type `{type(value).__name__}` to the composite type "
        f"`{tname}` for {where} is deprecated. "
        f"Construct the value explicitly, e.g.: `{tname}(...)`.",
        DeprecationWarning,
        stacklevel=4,
    )
    v = value.value if isinstance(value, _t._Scalar) else value
    return float(v) if isinstance(v, _np.floating) else int(v)


def _struct_composite(field, t, value):
    """A composite struct field's value, as Warp converts it."""
    if value is None:
        return t()
    if type(value) is t:
        return value
    v = _broadcast_scalar(value, t.__name__, f"struct field '{field}'")
    if v is not None:
        return t(v)
    if not hasattr(value, "__len__"):
        raise TypeError(
            f"Struct field '{field}' expects {t.__name__} but got a single "
            f"value of type {type(value).__name__}. Construct the value explicitly, "
            f"e.g.: {t.__name__}(...)."
        )
    return t(value)


_FMT = {
    "bool": "?",
    "i8": "b",
    "i16": "h",
    "i32": "i",
    "i64": "q",
    "u8": "B",
    "u16": "H",
    "u32": "I",
    "u64": "Q",
    "f16": "e",
    "f32": "f",
    "f64": "d",
}


def _default(t):
    declared = t
    t = _t._PY.get(t, t)
    if getattr(t, "_weft_struct", False):
        return t()
    if isinstance(t, type) and issubclass(t, _t._Composite):
        return t()
    if isinstance(t, type) and issubclass(t, _t._Scalar):
        if declared is not None and declared is not builtins.float and declared is not builtins.int:
            return t(0)  # a field declared with a Warp scalar type holds one (Warp)
        return 0.0 if t._is_float else 0
    return None
