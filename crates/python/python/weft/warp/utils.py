"""``warp.utils`` on Weft: scans, sorts, run-length encoding, reductions
and casts of arrays, with Warp 1.19's semantics and errors. Weft's arrays
live in host memory on every device, so these run on the host with NumPy,
in place on the arrays' memory."""

from __future__ import annotations

import builtins
import enum
import operator

import numpy as np

from . import types as _t
from ._unsupported import install as _install
from .array import array as _array
from .array import empty as _empty

# wp.map's kernels, by function, argument types and broadcast pattern
# (weft/warp/_map.py).
map_cache = {}


class GraphColoringAlgorithm(enum.IntEnum):
    """The graph coloring algorithms of ``graph_coloring_assign``."""

    MCS = 0
    GREEDY = 1


def _elems(a, n=None):
    """``a``'s memory as NumPy, one row per element (composites: their
    components), the first ``n`` elements."""
    v = a.numpy().reshape((a.size, *_t.dtype_shape(a.dtype)))
    return v if n is None else v[:n]


def _st(a):
    return _t.scalar_type(a.dtype)


def _check_same_device(what, *arrays):
    devs = [a.device for a in arrays]
    if any(d != devs[0] for d in devs[1:]):
        raise RuntimeError(f"{what}: array storage devices do not match ({', '.join(str(d) for d in devs)})")


def array_scan(in_array, out_array, inclusive=True):
    """The running sums of ``in_array`` into ``out_array`` (``inclusive``:
    each element's sum includes it); vectors are scanned per component.
    Scalar types ``int32``, ``int64``, ``float32``, ``float64``."""
    _check_same_device("array_scan", in_array, out_array)
    if in_array.size != out_array.size:
        raise RuntimeError(f"In and out array storage sizes do not match ({in_array.size} vs {out_array.size})")
    if not _t.types_equal(in_array.dtype, out_array.dtype):
        raise RuntimeError(
            f"In and out array data types do not match ({_t.type_repr(in_array.dtype)} vs {_t.type_repr(out_array.dtype)})"
        )
    if in_array.size == 0:
        return
    st = _st(in_array)
    if st not in (_t.int32, _t.int64, _t.float32, _t.float64) or _t.type_is_matrix(in_array.dtype):
        raise RuntimeError(f"Unsupported data type: {_t.type_repr(in_array.dtype)}")
    x = _elems(in_array)
    s = np.cumsum(x, axis=0, dtype=st._np)
    if not inclusive:
        s = np.concatenate([np.zeros_like(s[:1]), s[:-1]])
    _elems(out_array)[...] = s


def _radix_keys(k, begin_bit, end_bit):
    """The radix sort's key bits ``[begin_bit, end_bit)`` of keys ``k``
    (signed integers and floats ordered by their bits as by value)."""
    bits = k.dtype.itemsize * 8
    u = np.dtype(f"u{k.dtype.itemsize}")
    sign = np.array(1 << (bits - 1), dtype=u)
    b = k.view(u)
    if k.dtype.kind == "i":
        b = b ^ sign
    elif k.dtype.kind == "f":
        b = np.where(b & sign, ~b, b | sign)
    if end_bit - begin_bit < bits:
        b = (b >> np.array(begin_bit, dtype=u)) & np.array((1 << (end_bit - begin_bit)) - 1, dtype=u)
    return b


def radix_sort_pairs(keys, values, count, begin_bit=0, end_bit=None):
    """Sorts the first ``count`` pairs (``keys[i]``, ``values[i]``) by key,
    stably, on key bits ``[begin_bit, end_bit)`` (default: all). The
    arrays need room for ``2 * count`` elements (Warp's scratch space)."""
    _check_same_device("radix_sort_pairs", keys, values)
    if count == 0:
        return
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Keys and values array storage must be large enough to contain 2*count elements")
    types = f"{_t.type_repr(keys.dtype)}, {_t.type_repr(values.dtype)}"
    if _t.type_size_in_bytes(values.dtype) not in (4, 8):
        raise RuntimeError(f"Unsupported keys and values data types: {types}")
    for name, a in (("keys", keys), ("values", values)):
        if not a.is_contiguous:
            raise RuntimeError(f"radix_sort_pairs() requires a contiguous {name} array, got non-contiguous {name} with data types: {types}")
    width = {_t.int32: 32, _t.uint32: 32, _t.float32: 32, _t.int64: 64, _t.uint64: 64, _t.float64: 64}.get(keys.dtype)
    if width is None:
        raise RuntimeError(f"Unsupported keys and values data types: {types}")
    if end_bit is None:
        end_bit = width
    if not isinstance(begin_bit, int) or not isinstance(end_bit, int):
        raise RuntimeError("begin_bit and end_bit must be integers")
    if not 0 <= begin_bit <= end_bit <= width:
        raise RuntimeError(f"Invalid radix sort bit range [{begin_bit}, {end_bit}) for {width}-bit keys")
    if begin_bit == end_bit:
        return
    k, v = _elems(keys, count), _elems(values, count)
    order = np.argsort(_radix_keys(k, begin_bit, end_bit), kind="stable")
    k[...], v[...] = k[order], v[order]


def segmented_sort_pairs(keys, values, count, segment_start_indices, segment_end_indices=None):
    """Sorts the pairs (``keys[i]``, ``values[i]``) by key, stably, within
    each segment ``[start, end)``: ``segment_start_indices[j]`` to
    ``segment_end_indices[j]``, or to the next start without end indices.
    Keys ``int32`` or ``float32``, values ``int32``; the arrays need room
    for ``2 * count`` elements."""
    if isinstance(count, builtins.bool):
        raise TypeError("segmented_sort_pairs: count must be an integer")
    try:
        count = operator.index(count)
    except TypeError:
        raise TypeError("segmented_sort_pairs: count must be an integer") from None
    if count < 0:
        raise ValueError(f"segmented_sort_pairs: count must be non-negative, got {count}")
    if count > (1 << 31) - 1:
        raise ValueError(f"segmented_sort_pairs: count must not exceed {(1 << 31) - 1}, got {count}")
    idx = [segment_start_indices] + ([segment_end_indices] if segment_end_indices is not None else [])
    _check_same_device("segmented_sort_pairs", keys, values, *idx)
    if count == 0:
        return
    if keys.size < 2 * count or values.size < 2 * count:
        raise RuntimeError("Array storage must be large enough to contain 2*count elements")
    for name, a in (("keys", keys), ("values", values)):
        if not a.is_contiguous:
            raise RuntimeError(f"segmented_sort_pairs() requires a contiguous {name} array")
    for name, a in zip(("segment_start_indices", "segment_end_indices"), idx):
        if a.dtype is not _t.int32:
            raise RuntimeError(f"{name} array must be of type int32")
        if a.ndim != 1:
            raise RuntimeError(f"{name} must be one-dimensional")
        if not a.is_contiguous:
            raise RuntimeError(f"segmented_sort_pairs() requires a contiguous {name} array")
    if keys.dtype not in (_t.int32, _t.float32) or values.dtype is not _t.int32:
        raise RuntimeError(f"Unsupported data type: {_t.type_repr(keys.dtype)}")
    starts = segment_start_indices.numpy().astype(np.int64)
    if segment_end_indices is None:
        starts, ends = starts[:-1], starts[1:]
    else:
        if segment_end_indices.size != segment_start_indices.size:
            raise RuntimeError(
                "segment_start_indices and segment_end_indices must have the same size "
                f"({segment_start_indices.size} vs {segment_end_indices.size})"
            )
        ends = segment_end_indices.numpy().astype(np.int64)
    segments = list(zip(starts.tolist(), ends.tolist()))
    for j, (s, e) in enumerate(segments):  # all checked first: an error leaves the arrays as they were
        if not 0 <= s <= e <= count:
            raise ValueError(f"Invalid segment range at index {j}: [{s}, {e}) is not within [0, {count}]")
    k, v = _elems(keys, count), _elems(values, count)
    for s, e in segments:
        o = np.argsort(k[s:e], kind="stable") + s
        k[s:e], v[s:e] = k[o], v[o]


def runlength_encode(values, run_values, run_lengths, run_count=None, value_count=None):
    """The runs of equal consecutive ``values`` (``int32``): their values
    into ``run_values``, lengths into ``run_lengths``; the number of runs
    is returned, or stored in ``run_count[0]`` (then returned) when given."""
    if run_values.device != values.device or run_lengths.device != values.device:
        raise RuntimeError("run_values, run_lengths and values storage devices do not match")
    if value_count is None:
        value_count = values.size
    elif value_count < 0:
        raise RuntimeError(f"value_count must be non-negative, got {value_count}")
    if run_values.size < value_count or run_lengths.size < value_count:
        raise RuntimeError(f"Output array storage sizes must be at least equal to value_count ({value_count})")
    if not _t.types_equal(values.dtype, run_values.dtype):
        raise RuntimeError(
            f"values and run_values data types do not match ({_t.type_repr(values.dtype)} vs {_t.type_repr(run_values.dtype)})"
        )
    if run_lengths.dtype is not _t.int32:
        raise RuntimeError("run_lengths array must be of type int32")
    if run_count is not None:
        if run_count.device != values.device:
            raise RuntimeError("run_count storage device does not match other arrays")
        if run_count.dtype is not _t.int32:
            raise RuntimeError("run_count array must be of type int32")
    if values.dtype is not _t.int32:
        raise RuntimeError(f"Unsupported data type: {_t.type_repr(values.dtype)}")
    x = _elems(values, value_count)
    if value_count == 0:
        n = 0
    else:
        starts = np.flatnonzero(np.concatenate([[True], x[1:] != x[:-1]]))
        n = len(starts)
        _elems(run_values)[:n] = x[starts]
        _elems(run_lengths)[:n] = np.diff(np.append(starts, value_count))
    if run_count is None:
        return n
    run_count.numpy().reshape(-1)[0] = n
    return run_count


def _axis(name, axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise IndexError(f"{name}() axis {axis} is out of bounds for an array with {ndim} dimensions")
    return axis % ndim


def _reduce_out(name, out, device, dtype, shape):
    if out is None:
        return _empty(shape=shape, dtype=dtype, device=device), True
    if out.device != device:
        raise RuntimeError(f"{name}: out storage device should match the input array's")
    if out.dtype is not dtype:
        raise RuntimeError(f"{name}: out array should have type {_t.type_repr(dtype)}")
    if tuple(out.shape) != tuple(shape):
        raise RuntimeError(f"{name}: out array should have shape {tuple(shape)}")
    return out, False


def _reduce(name, arrays, out, count, axis, dtype, f):
    """Warp's reductions: over the first ``count`` elements (``axis``
    None), or along ``axis`` (its first ``count``); ``f`` reduces NumPy
    arrays along axis 0. A float (or NumPy components) when ``axis`` and
    ``out`` are None, else ``out``."""
    a0 = arrays[0]
    st = _st(a0)
    if st not in (_t.float32, _t.float64):
        raise RuntimeError(f"Unsupported data type: {_t.type_repr(a0.dtype)}")
    if axis is not None:
        axis = _axis(name, axis, a0.ndim)
    if count is None:
        count = a0.size if axis is None else a0.shape[axis]
    shape = (1,) if axis is None else tuple(1 if i == axis else s for i, s in enumerate(a0.shape))
    out, host = _reduce_out(name, out, a0.device, dtype, shape)
    if axis is None:
        xs = [_elems(a, max(count, 0)) for a in arrays]
        r = f(*xs) if count > 0 else np.zeros(_t.dtype_shape(dtype), dtype=st._np)
        o = _elems(out)
        o[0] = r
        return o[0] if host else out
    xs = [np.moveaxis(a.numpy(), axis, 0)[: max(count, 0)] for a in arrays]
    r = f(*xs) if count > 0 else 0
    o = np.moveaxis(out.numpy(), axis, 0)
    o[0] = r
    return out


def array_sum(values, out=None, value_count=None, axis=None):
    """The sum of ``values`` (``float32``/``float64`` scalars or
    composites): of all elements (a NumPy scalar, or components), or along
    ``axis`` into ``out`` (shape of ``values`` with 1 on ``axis``)."""
    st = _st(values)
    return _reduce("array_sum", [values], out, value_count, axis, values.dtype, lambda x: np.sum(x, axis=0, dtype=st._np))


def array_inner(a, b, out=None, count=None, axis=None):
    """The inner product of ``a`` and ``b`` (same shape and type; of
    composites: over their components too): a NumPy scalar, or along
    ``axis`` into ``out``."""
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"array_inner() arguments must have the same shape, got {a.shape} and {b.shape}")
    _check_same_device("array_inner", a, b)
    if not _t.types_equal(a.dtype, b.dtype):
        raise RuntimeError(f"A and b array data types do not match ({_t.type_repr(a.dtype)} vs {_t.type_repr(b.dtype)})")
    st = _st(a)
    nc = len(_t.dtype_shape(a.dtype))

    def inner(x, y):
        p = (x * y).astype(st._np)
        if nc:
            p = p.sum(axis=tuple(range(p.ndim - nc, p.ndim)), dtype=st._np)
        return p.sum(axis=0, dtype=st._np)

    return _reduce("array_inner", [a, b], out, count, axis, st, inner)


def array_cast(in_array, out_array, count=None):
    """Converts ``in_array``'s values into ``out_array``'s type, element by
    element (arrays of different dimensions or element shapes: scalar by
    scalar, both flattened); ``count``: the first elements only (1-D;
    the first ``count`` elements of the input when flattened)."""
    _check_same_device("array_cast", in_array, out_array)
    src, dst = in_array.numpy(), out_array.numpy()
    in_size, out_size, ndim = in_array.size, out_array.size, in_array.ndim
    if in_array.ndim != out_array.ndim or _t.dtype_shape(in_array.dtype) != _t.dtype_shape(out_array.dtype):
        src, dst = src.reshape(-1), dst.reshape(-1)
        in_size, out_size, ndim = src.size, dst.size, 1
        if count is not None:
            count *= _t.type_size(in_array.dtype)
    else:
        src = src.reshape((in_size, *_t.dtype_shape(in_array.dtype))) if ndim == 1 else src
        dst = dst.reshape((out_size, *_t.dtype_shape(out_array.dtype))) if ndim == 1 else dst
    if count is None:
        count = in_size
    if ndim > 1 and count < in_size:
        raise RuntimeError("Partial cast is not supported for arrays with more than one dimension")
    if ndim > 1 and tuple(in_array.shape) != tuple(out_array.shape):
        raise RuntimeError(f"Array shapes do not match ({tuple(in_array.shape)} vs {tuple(out_array.shape)})")
    if count > in_size or count > out_size:
        raise RuntimeError(f"Cast count ({count}) exceeds the input size ({in_size}) or output size ({out_size})")
    if ndim == 1:
        dst[:count] = src[:count].astype(dst.dtype)
    else:
        dst[...] = src.astype(dst.dtype)


_install(globals(), "warp.utils")
del _array


def check_p2p():
    """Whether this machine allows peer-to-peer copies between GPUs, by
    Warp's rule: not when ``WARP_DISABLE_P2P_TESTS`` is a nonzero integer,
    nor on Linux when an IOMMU is active (it shows under
    ``/sys/class/iommu`` or ``/sys/kernel/iommu_groups``); else yes."""
    import os
    import sys

    if int(os.environ.get("WARP_DISABLE_P2P_TESTS", "0") or 0):
        return False
    if sys.platform == "linux":
        for d in ("/sys/class/iommu", "/sys/kernel/iommu_groups"):
            if os.path.isdir(d) and os.listdir(d):
                return False
    return True
