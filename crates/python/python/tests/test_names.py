"""Every public name of NVIDIA Warp 1.19 (and of the submodules its users
import) exists in weft.warp: with Warp's behaviour, or as a placeholder
raising NotSupportedError that names it. The names come from
weft/warp/_warp_names.json, generated from the installed wheel by
scripts/warp-names.py."""

import importlib
import json
import os

import pytest

import weft.warp as wp
from weft.warp import _unsupported

NAMES_FILE = os.path.join(os.path.dirname(wp.__file__), "_warp_names.json")
with open(NAMES_FILE) as _f:
    NAMES = json.load(_f)

# Names of Warp that weft.warp does not have yet, by Warp module. The test
# fails when one of them appears (remove it here), so the list only
# shrinks; a name missing and not listed fails too.
STILL_MISSING = {
    # (none: every name of every module listed in _warp_names.json exists)
}


def weft_module(name):
    """weft.warp's counterpart of Warp's module ``name`` (``warp.config``
    is an object in Weft)."""
    if name == "warp":
        return wp
    if name == "warp.config":
        return wp.config
    return importlib.import_module("weft." + name)


MODULES = sorted(NAMES["modules"])


def test_names_file():
    assert NAMES["warp_version"] == "1.19.0"
    assert NAMES["generator"] == "scripts/warp-names.py"
    assert len(NAMES["modules"]["warp"]) == 515
    for m in NAMES["modules"]:
        assert m == "warp" or m.startswith("warp.")
    assert set(NAMES["builtins"]) <= set(NAMES["modules"]["warp"])


def test_still_missing_is_known():
    for m, names in STILL_MISSING.items():
        assert m in NAMES["modules"], m
        assert not set(names) - set(NAMES["modules"][m]), (m, set(names) - set(NAMES["modules"][m]))


@pytest.mark.parametrize("module", MODULES)
def test_every_name_exists(module):
    mod = weft_module(module)
    missing = STILL_MISSING.get(module, set())
    absent = sorted(n for n in NAMES["modules"][module] if n not in missing and not hasattr(mod, n))
    assert not absent, f"{module}: names of Warp missing in Weft: {absent}"
    present = sorted(n for n in missing if hasattr(mod, n))
    assert not present, f"{module}: names now in Weft, remove them from STILL_MISSING: {present}"


@pytest.mark.parametrize("module", sorted(NAMES["absent"]))
def test_absent_modules_stay_absent(module):
    # Not in Warp 1.19 either: importing them fails there too.
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("weft." + module)


def _placeholders():
    out = []
    for module in MODULES:
        mod = weft_module(module)
        for n in NAMES["modules"][module]:
            v = getattr(mod, n, None)
            if _unsupported.is_placeholder(v):
                out.append((module, n, v))
    return out


def test_placeholders_raise_naming_themselves():
    ps = _placeholders()
    assert len(ps) > 100
    for module, n, v in ps:
        qual = _unsupported._prefix(module) + "." + n
        with pytest.raises(wp.NotSupportedError) as ei:
            v(1, x=2)
        e = ei.value
        assert isinstance(e, NotImplementedError)
        assert e.name == qual and str(e).startswith(f"{qual}: ") and e.reason, (qual, str(e))


def test_placeholder_classes():
    assert isinstance(wp.Mesh, type) and isinstance(wp.Volume, type) and not isinstance(wp.capture_begin, type)
    with pytest.raises(wp.NotSupportedError, match=r"^wp\.Mesh: "):
        wp.Mesh(points=None, indices=None)
    # A tile annotation exists (modules declaring tile funcs import); a tile does not.
    assert wp.types.is_tile(wp.tile[wp.float32, 8, 4]) and wp.tile[wp.float32].dtype is wp.float32
    with pytest.raises(wp.NotSupportedError, match=r"^wp\.tile: "):
        wp.tile(1.0)

    class MyMesh(wp.Mesh):  # subclassing works, instantiating does not
        pass

    with pytest.raises(wp.NotSupportedError):
        MyMesh()
    assert not isinstance(object(), wp.Mesh)


def test_builtins_are_placeholders_or_real():
    for n in NAMES["builtins"]:
        v = getattr(wp, n)
        if _unsupported.is_placeholder(v):
            assert v._weft_reason == _unsupported.BUILTIN or n in ("tile",), n
    with pytest.raises(wp.NotSupportedError, match=r"^wp\.atomic_add: a builtin of the kernel language"):
        wp.atomic_add(None, 0, 1.0)
    # The value builtins run at Python scope (_pyscope, test_pyscope.py).
    assert wp.sqrt(4.0) == 2.0 and not _unsupported.is_placeholder(wp.normalize)


def test_placeholder_modules_of_fem():
    import weft.warp.fem as fem

    with pytest.raises(wp.NotSupportedError, match=r"^wp\.fem\.cache\.dynamic_kernel: "):
        fem.cache.dynamic_kernel()
    with pytest.raises(AttributeError):
        fem.cache.__wrapped__


def test_real_values():
    import math

    assert wp.HALF_PI == wp.half_pi == math.pi / 2
    assert wp.PHI == (1 + math.sqrt(5)) / 2 and wp.LN2 == math.log(2) and wp.LOG10E == 0.4342944819032518 and wp.LOG2E == 1.4426950408889634
    assert math.isinf(wp.INF) and math.isnan(wp.NAN)
    assert wp.TIMING_ALL == 0xFFFFFFFF and wp.TIMING_KERNEL == 1
    assert wp.MemoryKind.CUDA_MANAGED == 5 and wp.CaptureMode.RELAXED == 2
    assert wp.config.LaunchArrayAccessMode.STRICT == 2 and wp.config.log_level == wp.LOG_INFO
    assert wp.spatial_vector is wp.spatial_vectorf and wp.types.type_length(wp.spatial_matrixd) == 36
    assert wp.spatial_vector(1, 2, 3, 4, 5, 6)[5] == 6.0
    assert wp.handle(7).value == 7 and issubclass(wp.handle, wp.uint64)
    assert wp.Int.__constraints__[0] is int and wp.float16 in wp.Float.__constraints__
    t = wp.transform_expand([1, 2, 3, 0, 0, 0, 1])
    assert list(t.p) == [1.0, 2.0, 3.0] and list(t.q) == [0.0, 0.0, 0.0, 1.0]
    with pytest.raises(RuntimeError, match="address_of"):
        wp.address_of(1)


def test_devices_and_memory():
    assert wp.is_mempool_supported("cpu") is False and wp.is_mempool_enabled("cpu") is False
    wp.set_mempool_enabled("cpu", False)
    with pytest.raises(ValueError, match="only supported on CUDA"):
        wp.set_mempool_enabled("cpu", True)
    with pytest.raises(ValueError):
        wp.get_mempool_release_threshold("cpu")
    assert wp.is_peer_access_supported("cpu", "cpu") is False
    with pytest.raises(ValueError, match="Peer access"):
        wp.set_peer_access_enabled("cpu", "cpu", True)
    with pytest.raises(ValueError):
        with wp.ScopedMempool("cpu", True):
            pass
    with wp.ScopedMempool("cpu", False), wp.ScopedPeerAccess("cpu", "cpu", False), wp.ScopedStream(None):
        pass
    with wp.ScopedCudaProfiler("cpu"):
        pass
    a = wp.zeros(3, dtype=float, device="cpu")
    assert wp.can_access("cpu", a)
    with pytest.raises(TypeError, match="resource"):
        wp.can_access("cpu", 3)
    assert wp.get_cuda_toolkit_version() is None and wp.is_conditional_graph_supported() is False
    if not wp.is_cuda_available():
        assert wp.get_cuda_driver_version() is None and wp.get_cuda_supported_archs() == []


@wp.kernel
def _fill(a: wp.array(dtype=float)):
    a[wp.tid()] = 1.0


def test_modules_load():
    m = wp.get_module()
    assert isinstance(m, wp.Module) and m.name == __name__ and _fill in m.kernels
    wp.load_module(device="cpu")
    assert _fill.tier("cpu") is not None
    wp.clear_kernel_cache()
    assert _fill.tier("cpu") is None
    wp.force_load(device="cpu", modules=[m])
    import json as a_module_without_warp_content

    with pytest.raises(RuntimeError, match="'json' does not contain any Warp kernels"):
        wp.load_module(a_module_without_warp_content)
    with pytest.raises(TypeError, match="'module'"):
        wp.load_module(3)
    a = wp.zeros(2, dtype=float, device="cpu")
    wp.launch(_fill, 2, [a], device="cpu")
    assert a.numpy().tolist() == [1.0, 1.0]


def test_scoped_timer_and_logger():
    class Rec:
        def __init__(self):
            self.lines = []

        def debug(self, m):
            self.lines.append(("debug", m))

        info = lambda self, m: self.lines.append(("info", m))  # noqa: E731
        warning = lambda self, m, category=None, stacklevel=1: self.lines.append(("warning", m))  # noqa: E731
        error = lambda self, m: self.lines.append(("error", m))  # noqa: E731

    rec = Rec()
    times = {}
    with wp.ScopedLogger(rec):
        assert wp.get_logger() is rec
        with wp.ScopedTimer("step", dict=times) as t:
            pass
        with wp.ScopedTimer("quiet", print=False):
            pass
    assert wp.get_logger() is not rec
    assert t.elapsed >= 0 and times["step"] == [t.elapsed]
    assert [k for k, _ in rec.lines] == ["info"] and rec.lines[0][1].startswith("step took ")
    with pytest.raises(TypeError, match="logger"):
        wp.set_logger(object())
    with wp.ScopedLogLevel(wp.LOG_ERROR):
        assert wp.config.log_level == wp.LOG_ERROR
    assert wp.config.log_level == wp.LOG_INFO
    if not wp.is_cuda_available():
        wp.timing_begin()
        assert wp.timing_end() == []


def test_utils_scan_sort_rle():
    import numpy as np

    a = wp.array([1, 2, 3, 4], dtype=int)
    out = wp.zeros(4, dtype=int)
    wp.utils.array_scan(a, out)
    assert out.numpy().tolist() == [1, 3, 6, 10]
    wp.utils.array_scan(a, out, inclusive=False)
    assert out.numpy().tolist() == [0, 1, 3, 6]
    v3 = wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.vec3)
    o3 = wp.zeros(2, dtype=wp.vec3)
    wp.utils.array_scan(v3, o3)
    assert o3.numpy().tolist() == [[1, 2, 3], [5, 7, 9]]
    with pytest.raises(RuntimeError, match="sizes do not match"):
        wp.utils.array_scan(a, wp.zeros(3, dtype=int))

    keys = wp.array([3, -1, 2, -5, 0, 7] + [0] * 6, dtype=int)
    vals = wp.array(list(range(6)) + [0] * 6, dtype=int)
    wp.utils.radix_sort_pairs(keys, vals, 6)
    assert keys.numpy()[:6].tolist() == [-5, -1, 0, 2, 3, 7] and vals.numpy()[:6].tolist() == [3, 1, 4, 2, 0, 5]
    keys = wp.array([3, -1, 2, -5, 0, 7] + [0] * 6, dtype=int)
    vals = wp.array(list(range(6)) + [0] * 6, dtype=int)
    wp.utils.radix_sort_pairs(keys, vals, 6, 0, 2)  # low two bits only (Warp's answer)
    assert keys.numpy()[:6].tolist() == [0, 2, 3, -1, -5, 7]
    fk = wp.array([3.5, -1.0, 2.0, -5.0, 0.0, -0.0, 7.0] + [0.0] * 7, dtype=float)
    fv = wp.array(list(range(7)) + [0] * 7, dtype=int)
    wp.utils.radix_sort_pairs(fk, fv, 7, 28, 32)
    assert fv.numpy()[:7].tolist() == [3, 1, 5, 4, 0, 2, 6]
    with pytest.raises(RuntimeError, match="2\\*count"):
        wp.utils.radix_sort_pairs(wp.zeros(3, dtype=int), wp.zeros(3, dtype=int), 2)

    sk = wp.array([3, 1, 4, 2, 0, 0, 0, 0], dtype=int)
    sv = wp.array([30, 10, 40, 20, 0, 0, 0, 0], dtype=int)
    wp.utils.segmented_sort_pairs(sk, sv, 4, wp.array([0, 2, 4], dtype=int))
    assert sk.numpy()[:4].tolist() == [1, 3, 2, 4] and sv.numpy()[:4].tolist() == [10, 30, 20, 40]

    rv, rl = wp.zeros(6, dtype=int), wp.zeros(6, dtype=int)
    assert wp.utils.runlength_encode(wp.array([1, 1, 2, 3, 3, 3], dtype=int), rv, rl) == 3
    assert rv.numpy()[:3].tolist() == [1, 2, 3] and rl.numpy()[:3].tolist() == [2, 1, 3]
    rc = wp.zeros(1, dtype=int)
    assert wp.utils.runlength_encode(wp.array([5, 5], dtype=int), rv, rl, run_count=rc) is rc
    assert rc.numpy()[0] == 1
    del np


def test_utils_reductions_and_cast():
    import numpy as np

    s = wp.utils.array_sum(wp.array([1.0, 2.0, 3.0], dtype=float))
    assert s == 6.0 and isinstance(s, np.float32)
    a = wp.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    out = wp.utils.array_sum(a, out=wp.zeros((2, 1), dtype=float), axis=1)
    assert out.numpy().tolist() == [[3.0], [12.0]]
    assert wp.utils.array_sum(a, axis=-2).numpy().tolist() == [[3.0, 5.0, 7.0]]
    with pytest.raises(IndexError):
        wp.utils.array_sum(a, axis=2)
    assert wp.utils.array_sum(wp.array([[1, 2, 3]], dtype=wp.vec3)).tolist() == [1.0, 2.0, 3.0]
    v = wp.array([[1, 2, 3]], dtype=wp.vec3)
    assert wp.utils.array_inner(v, v) == 14.0
    assert wp.utils.array_inner(wp.array([1.0, 2.0], dtype=float), wp.array([3.0, 4.0], dtype=float), count=1) == 3.0
    with pytest.raises(ValueError, match="same shape"):
        wp.utils.array_inner(v, wp.zeros(2, dtype=wp.vec3))
    with pytest.raises(RuntimeError, match="Unsupported data type"):
        wp.utils.array_sum(wp.zeros(2, dtype=int))
    d = wp.zeros(3, dtype=wp.float64)
    wp.utils.array_cast(wp.array([1, 2, 3], dtype=int), d)
    assert d.numpy().tolist() == [1.0, 2.0, 3.0]
    flat = wp.zeros(6, dtype=float)
    wp.utils.array_cast(wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.vec3d), flat)
    assert flat.numpy().tolist() == [1, 2, 3, 4, 5, 6]


@wp.func
def _twice(x: wp.Scalar):
    return x + x


@wp.kernel
def _generic_typevar(a: wp.array(dtype=wp.Float), v: wp.types.vector(3, wp.Float), out: wp.array(dtype=wp.Float)):
    i = wp.tid()
    out[i] = _twice(a[i]) + v[0]


def test_typevars_are_generic():
    assert _generic_typevar.is_generic
    for dt, vt in ((wp.float32, wp.vec3), (wp.float64, wp.vec3d)):
        out = wp.zeros(2, dtype=dt, device="cpu")
        wp.launch(_generic_typevar, 2, [wp.array([1, 2], dtype=dt, device="cpu"), vt(1, 0, 0)], [out], device="cpu")
        assert out.numpy().tolist() == [3.0, 5.0]


@wp.func
def _cube(x: float):
    return x * x * x


@wp.func_grad(_cube)
def _adj_cube(x: float, adj_ret: float):
    wp.adjoint[x] += 10.0 * adj_ret


@wp.kernel
def _cube_kernel(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = _cube(a[i])


def test_func_grad():
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True, device="cpu")
    b = wp.zeros(2, dtype=float, requires_grad=True, device="cpu")
    tape = wp.Tape()
    with tape:
        wp.launch(_cube_kernel, 2, [a], [b], device="cpu")
    tape.backward(grads={b: wp.ones(2, dtype=float, device="cpu")})
    assert b.numpy().tolist() == [1.0, 8.0]
    assert a.grad.numpy().tolist() == [10.0, 10.0]  # the custom adjoint, not 3x^2
    with pytest.raises(TypeError, match="forward_fn"):
        wp.func_grad(len)(lambda x: x)
