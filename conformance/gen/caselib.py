"""What the case definitions (`defs/*.py`) use: argument descriptors, the
`@case` registry, dtype names and small data helpers."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

SCALAR_NP = {
    "bool": np.bool_, "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
    "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
    "float16": np.float16, "float32": np.float32, "float64": np.float64,
    # Warp stores bfloat16 as its bits: npy files hold them as uint16.
    "bfloat16": np.uint16,
}
SUFFIX = {"": "float32", "h": "float16", "f": "float32", "d": "float64", "i": "int32", "ui": "uint32",
          "b": "int8", "ub": "uint8", "s": "int16", "us": "uint16", "l": "int64", "ul": "uint64"}


def elem_info(dtype: str):
    """(numpy scalar dtype, element shape) of a Warp dtype name."""
    if dtype in SCALAR_NP:
        return np.dtype(SCALAR_NP[dtype]), ()
    pats = [
        (r"vec([234])(h|f|d|i|ui|b|ub|s|us|l|ul)?", lambda m: (m[2] or "", (int(m[1]),))),
        (r"mat(22|33|44)(h|f|d)?", lambda m: (m[2] or "", (int(m[1][0]), int(m[1][0])))),
        (r"quat(h|f|d)?", lambda m: (m[1] or "", (4,))),
        (r"transform(h|f|d)?", lambda m: (m[1] or "", (7,))),
        (r"spatial_vector(h|f|d)?", lambda m: (m[1] or "", (6,))),
        (r"spatial_matrix(h|f|d)?", lambda m: (m[1] or "", (6, 6))),
    ]
    for pat, f in pats:
        m = re.fullmatch(pat, dtype)
        if m:
            suf, shape = f(m)
            return np.dtype(SCALAR_NP[SUFFIX[suf]]), shape
    raise KeyError(f"unknown dtype {dtype}")


@dataclass
class Arr:
    """An array argument: its Warp dtype, and its initial contents (the
    element shape trailing, as in the npy files)."""

    name: str
    dtype: str
    data: np.ndarray
    ndim: int | None = None
    # A struct array: [(field, Warp dtype), ...] in declaration order, and
    # `data` a packed numpy structured array with those fields.
    fields: list | None = None

    def shape(self):
        if self.fields is not None:
            return list(self.data.shape)
        _, es = elem_info(self.dtype)
        shp = list(self.data.shape)
        return shp[: len(shp) - len(es)] if es else shp


@dataclass
class Scal:
    """A by-value argument: a number, a bool, or a list (vectors, quats,
    transforms) / list of rows (matrices)."""

    name: str
    dtype: str
    value: Any


@dataclass
class CaseDef:
    name: str
    fn: Callable
    tags: list


REGISTRY: list[CaseDef] = []


def case(name: str, tags: list[str]):
    def deco(fn):
        assert all(c.name != name for c in REGISTRY), name
        REGISTRY.append(CaseDef(name, fn, list(tags)))
        return fn

    return deco


def uniform(rng, lo, hi, shape, dtype=np.float32):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def fill(shape, value, dtype=np.float32):
    return np.full(shape, value, dtype=dtype)




def bf16_bits(x):
    """float32 values as the bits of the nearest bfloat16 (ties to even), as
    Warp's `float_to_bfloat16_bits` for finite values."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def packed_struct_dtype(fields):
    """The packed numpy structured dtype of a struct's [(field, dtype), ...]."""
    out = []
    for n, dt in fields:
        sd, es = elem_info(dt)
        out.append((n, sd, es) if es else (n, sd))
    return np.dtype(out)
