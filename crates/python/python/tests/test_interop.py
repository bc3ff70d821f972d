"""What communication libraries take (docs/distributed.md): the buffer
protocol, ``__array_interface__`` and DLPack of ``wp.array``, zero copy
and writable; the errors for what cannot be exported (each names the
array); ``__cuda_array_interface__``'s refusal; and the compile cache
shared by concurrent processes (ranks)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import weft
import weft.warp as wp


@wp.struct
class Body:
    pos: wp.vec3
    mass: float
    id: int


@wp.kernel
def bump(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0


# ------------------------------------------------------------ buffer protocol


@pytest.mark.parametrize(
    "dtype, fmt",
    [
        (wp.float16, "e"),
        (wp.float32, "f"),
        (wp.float64, "d"),
        (wp.int8, "b"),
        (wp.uint8, "B"),
        (wp.int16, "h"),
        (wp.uint16, "H"),
        (wp.int32, "i"),
        (wp.uint32, "I"),
        (wp.int64, "q"),
        (wp.uint64, "Q"),
        (wp.bool, "?"),
    ],
)
def test_buffer_scalar_format_shape_strides(dtype, fmt):
    a = wp.zeros((3, 5), dtype=dtype)
    m = memoryview(a)
    n = a.numpy()
    assert m.format == fmt
    assert m.itemsize == n.dtype.itemsize
    assert m.shape == (3, 5)
    assert m.strides == n.strides == (5 * n.dtype.itemsize, n.dtype.itemsize)
    assert m.nbytes == 15 * n.dtype.itemsize
    assert not m.readonly
    assert m.c_contiguous
    assert m.obj is a


def test_buffer_is_zero_copy_both_ways():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=float)
    m = memoryview(a)
    m[1, 2] = 42.0  # a write through the buffer lands in the array
    assert a.numpy()[1, 2] == 42.0
    b = wp.zeros(4, dtype=float)
    mb = memoryview(b)
    wp.launch(bump, dim=4, inputs=[b])  # a kernel's write is seen by the buffer
    assert mb.tolist() == [1.0, 1.0, 1.0, 1.0]
    # The same address as the array's memory.
    assert np.frombuffer(mb, dtype=np.float32).__array_interface__["data"][0] == b.ptr


def test_buffer_vector_and_matrix_as_trailing_dims():
    v = wp.zeros(4, dtype=wp.vec3)
    m = memoryview(v)
    assert (m.format, m.shape, m.strides) == ("f", (4, 3), (12, 4))
    q = memoryview(wp.zeros((2, 3), dtype=wp.mat22d))
    assert (q.format, q.shape, q.strides) == ("d", (2, 3, 2, 2), (96, 32, 16, 8))
    m[2, 1] = 5.0
    assert v.numpy()[2, 1] == 5.0


def test_buffer_struct_format():
    s = wp.array([Body(), Body()], dtype=Body)
    m = memoryview(s)
    assert m.shape == (2,)
    assert m.itemsize == s.numpy().dtype.itemsize
    assert m.format.startswith("T{") and "pos" in m.format and "mass" in m.format
    # NumPy reads the same record layout back through the buffer, writable.
    rec = np.asarray(m)
    assert rec.dtype == s.numpy().dtype
    rec["mass"][1] = 2.5
    assert s.numpy()["mass"][1] == 2.5


def test_buffer_of_views():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4), dtype=float)
    row = memoryview(a[1])  # a contiguous row: what a halo exchange sends
    assert row.shape == (4,) and row.c_contiguous
    row[0] = -1.0
    assert a.numpy()[1, 0] == -1.0
    col = memoryview(a[:, 2])  # strided: exported with its strides
    assert col.shape == (3,) and col.strides == (16,) and not col.c_contiguous
    assert col.tolist() == [2.0, 6.0, 10.0]


class Py_buffer(__import__("ctypes").Structure):
    import ctypes as _c

    _fields_ = [
        ("buf", _c.c_void_p),
        ("obj", _c.py_object),
        ("len", _c.c_ssize_t),
        ("itemsize", _c.c_ssize_t),
        ("readonly", _c.c_int),
        ("ndim", _c.c_int),
        ("format", _c.c_char_p),
        ("shape", _c.POINTER(_c.c_ssize_t)),
        ("strides", _c.POINTER(_c.c_ssize_t)),
        ("suboffsets", _c.POINTER(_c.c_ssize_t)),
        ("internal", _c.c_void_p),
    ]


PyBUF_SIMPLE, PyBUF_WRITABLE, PyBUF_FORMAT, PyBUF_ND = 0, 0x1, 0x4, 0x8
PyBUF_STRIDES = 0x10 | PyBUF_ND
PyBUF_C_CONTIGUOUS, PyBUF_F_CONTIGUOUS, PyBUF_ANY_CONTIGUOUS = (x | PyBUF_STRIDES for x in (0x20, 0x40, 0x80))


def get_buffer(obj, flags):
    """PyObject_GetBuffer with exactly ``flags``: (buf, len, itemsize,
    format, shape, strides), released before returning."""
    import ctypes

    api = ctypes.pythonapi
    api.PyObject_GetBuffer.argtypes = [ctypes.py_object, ctypes.POINTER(Py_buffer), ctypes.c_int]
    api.PyBuffer_Release.argtypes = [ctypes.POINTER(Py_buffer)]
    view = Py_buffer()
    api.PyObject_GetBuffer(obj, ctypes.byref(view), flags)  # raises the exporter's error
    try:
        nd = view.ndim
        shape = tuple(view.shape[i] for i in range(nd)) if view.shape else None
        strides = tuple(view.strides[i] for i in range(nd)) if view.strides else None
        fmt = view.format.decode() if view.format else None
        return view.buf, view.len, view.itemsize, fmt, shape, strides, view.readonly
    finally:
        api.PyBuffer_Release(ctypes.byref(view))


def test_buffer_flags():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4), dtype=float)
    buf, n, isz, fmt, shape, strides, ro = get_buffer(a, PyBUF_SIMPLE)
    assert (buf, n, fmt, shape, strides, ro) == (a.ptr, 48, None, None, None, 0)
    assert get_buffer(a, PyBUF_ND | PyBUF_FORMAT)[3:6] == ("f", (3, 4), None)
    assert get_buffer(a, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE)[4:6] == ((3, 4), (16, 4))
    assert get_buffer(a, PyBUF_ANY_CONTIGUOUS)[0] == a.ptr
    # A row is contiguous both ways; a column is strided: taken with
    # strides, refused (naming the array) by a request for contiguity.
    row = a[1]
    assert get_buffer(row, PyBUF_F_CONTIGUOUS)[0] == a.ptr + 16
    col = a[:, 2]
    assert get_buffer(col, PyBUF_STRIDES)[4:6] == ((3,), (16,))
    name = r"wp\.array\(dtype=float32, shape=\(3,\), device=cpu, a view\)"
    for flags, need in (
        (PyBUF_SIMPLE, "C-contiguous \\(no strides\\)"),
        (PyBUF_ND, "C-contiguous \\(no strides\\)"),
        (PyBUF_C_CONTIGUOUS, "C-contiguous"),
        (PyBUF_F_CONTIGUOUS, "Fortran-contiguous"),
        (PyBUF_ANY_CONTIGUOUS, "contiguous"),
    ):
        with pytest.raises(BufferError, match=name + f": the consumer asked for a {need} buffer"):
            get_buffer(col, flags)
    # A 2-d C-contiguous array is not Fortran-contiguous.
    with pytest.raises(BufferError, match="Fortran-contiguous"):
        get_buffer(a, PyBUF_F_CONTIGUOUS)


def test_buffer_keeps_memory_alive_across_free():
    a = wp.zeros(4, dtype=float)
    m = memoryview(a)
    a.free()
    m[0] = 3.0  # the export holds the memory, not the freed array
    assert m.tolist() == [3.0, 0.0, 0.0, 0.0]
    m.release()


def test_buffer_errors_name_the_array():
    a = wp.zeros(4, dtype=float)
    a.free()
    with pytest.raises(BufferError, match=r"wp\.array\(dtype=float32, shape=\(4,\), device=cpu\): the array has been freed"):
        memoryview(a)
    with pytest.raises(BufferError, match=r"wp\.array\(dtype=float32, ndim=2\) \(an annotation type\)"):
        memoryview(wp.array(dtype=float, ndim=2))


def test_buffer_through_grad():
    a = wp.zeros(3, dtype=float, requires_grad=True)
    g = memoryview(a.grad)
    g[1] = 7.0
    assert a.grad.numpy()[1] == 7.0


# --------------------------------------------------------------------- DLPack


def test_dlpack_zero_copy_kdlcpu():
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3), dtype=float)
    assert a.__dlpack_device__() == (1, 0)
    t = np.from_dlpack(a)
    assert t.shape == (2, 3) and t.dtype == np.float32
    t[0, 0] = -5.0
    assert a.numpy()[0, 0] == -5.0
    v = np.from_dlpack(wp.zeros(2, dtype=wp.vec3))
    assert v.shape == (2, 3)
    cap = wp.to_dlpack(a)
    assert type(cap).__name__ == "PyCapsule"


def test_dlpack_refusals_name_the_array():
    s = wp.array([Body()], dtype=Body)
    with pytest.raises(BufferError, match=r"__dlpack__ of wp\.array\(dtype=Body, shape=\(1,\), device=cpu\): DLPack has no struct types"):
        s.__dlpack__()
    a = wp.zeros(2, dtype=float)
    with pytest.raises(BufferError, match=r"bfloat16 \(kDLBfloat\) is not exported yet"):
        wp.zeros(2, dtype=wp.bfloat16).__dlpack__()
    assert memoryview(wp.zeros(2, dtype=wp.bfloat16)).format == "H"  # the 16-bit patterns
    with pytest.raises(BufferError, match=r"parameter 'stream' must be None"):
        a.__dlpack__(stream=1)
    with pytest.raises(BufferError, match=r"parameter 'dl_device' \(2, 0\)"):
        a.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match=r"to_dlpack: parameter 'wp_array'"):
        wp.to_dlpack(np.zeros(2))
    with pytest.raises(TypeError, match=r"^Expected a valid DLPack capsule, got list$"):
        wp.from_dlpack([1, 2])

    class NotCapsule:
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, stream=None):
            return object()

    with pytest.raises(TypeError, match=r"^Expected a valid DLPack capsule, got object$"):
        wp.from_dlpack(NotCapsule())

    class OnGpu:
        def __dlpack_device__(self):
            return (2, 3)

        def __dlpack__(self, stream=None):
            raise AssertionError("__dlpack__ called for a device Weft does not take")

    with pytest.raises(TypeError, match=r"Unsupported source device for DLPack: device_type=2, device_id=3"):
        wp.from_dlpack(OnGpu())
    cap = wp.to_dlpack(wp.zeros(2, dtype=float))
    wp.from_dlpack(cap)
    with pytest.raises(TypeError, match=r"Expected a valid DLPack capsule"):
        wp.from_dlpack(cap)  # consumed
    with pytest.raises(RuntimeError, match=r"^Incompatible data types: DLPack bool8 and Warp float32$"):
        wp.from_dlpack(wp.to_dlpack(wp.zeros(1, dtype=wp.bool)), dtype=wp.float32)


def test_from_dlpack_copies():
    src = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = wp.from_dlpack(src, dtype=wp.vec3)
    assert a.dtype == wp.vec3 and a.shape == (2,)
    assert np.array_equal(a.numpy(), src)
    src[0, 0] = 99.0  # a copy: Weft arrays own their memory
    assert a.numpy()[0, 0] == 0.0
    b = wp.from_dlpack(np.arange(3, dtype=np.int32))
    assert b.dtype == wp.int32 and b.numpy().tolist() == [0, 1, 2]
    # Capsules, as Warp takes them (wp.to_dlpack, torch.utils.dlpack.to_dlpack).
    c = wp.array(np.arange(4, dtype=np.float32), dtype=float)
    d = wp.from_dlpack(wp.to_dlpack(c))
    assert d.dtype == wp.float32 and d.numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert d.ptr != c.ptr  # a copy
    flags = wp.array(np.array([True, False]), dtype=wp.bool)
    e = wp.from_dlpack(wp.to_dlpack(flags), dtype=wp.uint8)
    assert e.dtype == wp.uint8 and e.numpy().tolist() == [1, 0]
    m = wp.from_dlpack(wp.to_dlpack(wp.zeros((2, 2, 2), dtype=float)), dtype=wp.mat22)
    assert m.dtype == wp.mat22 and m.shape == (2,)


# -------------------------------------------------- __cuda_array_interface__


def test_cuda_array_interface_absent_on_cpu():
    a = wp.zeros(2, dtype=float)
    assert not hasattr(a, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match=r"not on a CUDA device"):
        a.__cuda_array_interface__


def test_cuda_array_interface_refused_on_cuda():
    if not wp.is_cuda_available():
        print("SKIP reason: no CUDA device here; the refusal is checked through a cuda-tagged array below")
    # The refusal depends only on the array's device tag: an array whose
    # device says cuda (a real one where a GPU is, else the tag forced on a
    # host array) must raise HostMemoryError, never give a pointer.
    a = wp.zeros(2, dtype=float)
    if wp.is_cuda_available():
        a = wp.zeros(2, dtype=float, device="cuda:0")
    else:

        class FakeCuda:
            is_cuda = True

            def __str__(self):
                return "cuda:0"

        a.device = FakeCuda()
    from weft.warp.array import HostMemoryError

    with pytest.raises(HostMemoryError, match=r"lives in host memory.*issue 26 item 3") as e:
        a.__cuda_array_interface__
    assert isinstance(e.value, wp.NotSupportedError) and isinstance(e.value, AttributeError)
    assert not hasattr(a, "__cuda_array_interface__")  # libraries fall back to the buffer
    assert memoryview(a).shape == (2,)


def test_array_interface_is_zero_copy():
    a = wp.zeros(3, dtype=float)
    iface = a.__array_interface__
    assert iface["data"][0] == a.ptr and iface["shape"] == (3,) and iface["typestr"] == "<f4"


def test_native_base_class():
    assert issubclass(wp.array, weft._native.BufferExporter)
    assert isinstance(wp.zeros(1), weft._native.BufferExporter)


# ------------------------------------------------ the cache across processes

WORKER = textwrap.dedent(
    """
    import os, sys, time
    import numpy as np
    import weft.warp as wp

    @wp.kernel
    def poly(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
        i = wp.tid()
        v = x[i]
        y[i] = (a * v + 2.0) * v - 1.0

    # Start together: every process is ready (imports done) before any compiles.
    d, me, n, device = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    open(os.path.join(d, f"ready-{me}"), "w").close()
    t = time.time()
    while not os.path.exists(os.path.join(d, "go")):
        if time.time() - t > 60:
            sys.exit("no go signal in 60 s")
        time.sleep(0.001)
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    xa, ya = wp.array(x, dtype=float, device=device), wp.zeros(1000, dtype=float, device=device)
    wp.launch(poly, dim=1000, inputs=[xa, ya, 0.5 + me], device=device)
    wp.synchronize()
    a = np.float32(0.5 + me)
    want = (a * x + np.float32(2.0)) * x - np.float32(1.0)
    got = ya.numpy()
    if not np.allclose(got, want, rtol=1e-6, atol=1e-6):
        sys.exit(f"process {me}: wrong result, max |diff| {np.max(np.abs(got - want))}")
    print("ok", me)
    """
)


def run_concurrently(tmp_path, n, device, cache=None):
    cache = cache or tmp_path / "cache"
    sync = tmp_path / "sync"
    sync.mkdir()
    script = cache.parent / "worker.py"  # one file: the module's key names it
    script.write_text(WORKER)
    env = {**os.environ, "WEFT_CACHE_DIR": str(cache)}
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(sync), str(i), str(n), device],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(n)
    ]
    import time

    t = time.time()
    while len(list(sync.glob("ready-*"))) < n and time.time() - t < 120:
        if any(p.poll() is not None for p in procs):
            break
        time.sleep(0.01)
    (sync / "go").touch()
    outs = [p.communicate(timeout=300) for p in procs]
    for i, (p, (out, err)) in enumerate(zip(procs, outs)):
        assert p.returncode == 0, f"process {i} failed ({p.returncode}): {out}\n{err}"
        assert out.strip() == f"ok {i}"
    return cache


def cache_entries(cache):
    files = [p for p in cache.rglob("*") if p.is_file()]
    for f in files:
        assert f.read_bytes()[:10] == b"WEFTCACHE1", f"{f} is not a whole cache entry"
    return sorted(f.name.split("-")[0] for f in files)


def test_compile_cache_concurrent_processes(tmp_path):
    """Six processes (ranks) compile the same module into one fresh cache
    directory at once: all get correct results, and the directory ends
    with whole entries only (no temporary files, no torn entries)."""
    cache = run_concurrently(tmp_path, 6, "cpu")
    kinds = cache_entries(cache)
    assert kinds == ["ir"], kinds  # one module: one entry, written by all, whole
    # A second wave reads that entry (and still computes right).
    second = tmp_path / "second"
    second.mkdir()
    before = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}
    run_concurrently(second, 3, "cpu", cache)
    after = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}
    assert after == before  # hits: nothing rewritten


def test_compile_cache_concurrent_processes_vulkan(tmp_path):
    if "vulkan" not in weft._native.device_names():
        pytest.skip("this build has no vulkan device")
    try:
        wp.get_device("vulkan")
        wp.launch(bump, dim=1, inputs=[wp.zeros(1, dtype=float, device="vulkan")], device="vulkan")
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"no Vulkan device here: {e}")
    cache = run_concurrently(tmp_path, 4, "vulkan")
    kinds = cache_entries(cache)
    assert "spirv" in kinds and kinds.count("spirv") == 1, kinds
