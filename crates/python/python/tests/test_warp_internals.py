"""What Warp's test files reach of warp.types and warp._src beyond the
public names: scalar operators, bfloat16 storage, the array families'
annotations, type codes, launch bounds (behaviour as Warp 1.19's)."""

import os
from typing import Any, Literal

import numpy as np
import pytest

import weft.warp as wp
from weft.warp import types as T


def test_scalar_comparisons_and_arithmetic():
    one, two = wp.int8(1), wp.int8(2)
    assert one != 1.5 and one == 1.0 and one < 1.5 and two > np.float32(1.5) and one == wp.float32(1.0)
    assert len({one, 1.0}) == 1 and len({one, 1.5}) == 2
    with pytest.raises(OverflowError):
        wp.float32(1.0) < 2**1024
    assert wp.float32(1.5) + wp.float32(2.0) == 3.5 and 2.0 * wp.float32(1.5) == 3.0
    assert wp.int8(3) + wp.int8(2) == 5 and type(wp.int8(3) + wp.int8(2)) is wp.int8
    assert -wp.float32(1.5) == -1.5 and abs(wp.float32(-1.0)) == 1.0 and str(wp.float32(1.5)) == "1.5"
    with pytest.raises(TypeError):
        wp.int32(2) ** wp.int32(3)  # Warp has no integer pow
    assert wp.float64(2.0) ** wp.float64(3.0) == 8.0


def test_numpy_dtype_protocol():
    assert wp.float32.__numpy_dtype__ == np.dtype(np.float32) and wp.uint8.__numpy_dtype__ == np.dtype(np.uint8)
    assert not hasattr(wp.bfloat16, "__numpy_dtype__")


def test_bfloat16_values_and_bits():
    bits = T._np_float32_to_bfloat16_bits(np.array([1.0, 2.5, -0.5, np.nan, 1.00390625], dtype=np.float32))
    assert bits[:3].tolist() == [0x3F80, 0x4020, 0xBF00] and np.isnan(T._np_bfloat16_bits_to_float32(bits)[3])
    assert bits[4] == 0x3F80  # ties round to even
    a = wp.array(np.array([1.0, 2.5], dtype=np.float32), dtype=wp.bfloat16)
    assert a.numpy().tolist() == [0x3F80, 0x4020]
    assert wp.array(np.array([0x3F80], dtype=np.uint16), dtype=wp.bfloat16).numpy().tolist() == [0x3F80]
    assert wp.array([1, 2], dtype=wp.bfloat16).numpy().tolist() == [0x3F80, 0x4000]
    assert wp.full(2, 1.5, dtype=wp.bfloat16).numpy().tolist() == [0x3FC0, 0x3FC0]
    assert wp.bfloat16(3.14).value == 3.14


def test_array_family_annotations():
    assert T.array_type_id(wp.array[float]) == T.ARRAY_TYPE_REGULAR
    assert T.array_type_id(wp.indexedarray[float, Literal[3]]) == T.ARRAY_TYPE_INDEXED
    assert T.array_type_id(wp.fabricarray[float]) == T.ARRAY_TYPE_FABRIC
    assert T.array_type_id(wp.indexedfabricarray[float]) == T.ARRAY_TYPE_FABRIC_INDEXED
    assert wp.indexedarray[float].ndim == 1 and wp.indexedarray[wp.float64, 3].ndim == 3
    assert T.is_array(wp.fabricarray[float]) and isinstance(wp.indexedarray[float], T._IndexedArrayAnnotation)
    assert wp.array[float] == wp.array[wp.float32] and hash(wp.array[float]) == hash(wp.array[wp.float32])
    assert wp.array[float] != wp.array[float, 2] and wp.array[float] != wp.indexedarray[float]
    assert repr(wp.array3d[wp.vec3f]) == "wp.array3d[wp.vec3f]" and repr(wp.array[wp.float32, Any]) == "wp.array[wp.float32, Any]"
    assert repr(wp.indexedarray[wp.float32, Literal[3]]) == "wp.indexedarray[wp.float32, Literal[3]]"
    assert wp.array().dtype is Any
    with pytest.raises(ValueError, match="ndim must be between"):
        wp.array[float, 5]
    with pytest.raises(TypeError, match="single type parameter"):
        wp.array2d[float, 2]
    with pytest.raises(wp.NotSupportedError, match=r"^wp\.indexedarray: "):
        wp.indexedarray(wp.zeros(2), wp.zeros(1, dtype=int))

    class Tagged(wp.fabricarray):  # subclassing works, making one does not
        pass

    with pytest.raises(wp.NotSupportedError):
        Tagged(data={}, attrib="a")


def test_generic_subscripts_and_type_codes():
    assert T.Vector[float, Literal[3]] is wp.vec3 and T.Matrix[wp.float64, 2, 4]._shape_ == (2, 4)
    assert T.Quaternion[wp.float32] is wp.quat and T.Transformation[wp.float64] is wp.transformd
    with pytest.raises(TypeError, match="positive integer"):
        T.Vector[float, 0]
    with pytest.raises(ValueError, match="exactly two dimensions"):
        T.matrix((2,), wp.float32)
    assert [T.get_type_code(t) for t in (wp.float32, wp.vec3, wp.mat22d, wp.quat, wp.array2d[float], Any)] == [
        "f4", "v3f4", "m22f8", "qf4", "a2f4", "?"
    ]
    assert T.get_type_code(wp.indexedarray[wp.vec3]) == "ia1v3f4" and T.get_type_code(wp.ref[wp.int32]) == "refi4"
    assert repr(wp.ref[wp.int32]) == "wp.ref[int32]" and wp.ref[wp.int32] == T.Reference(wp.int32)
    assert wp.tile[float, 8, 4].shape == (8, 4) and wp.tile[float].shape is Any and T.is_tile(wp.tile[float])


def test_launch_bounds():
    b = T.launch_bounds_t((4, 5))
    assert type(b) is T._launch_bounds_classes[2] and b.size == 20 and list(b.shape) == [4, 5]
    with pytest.raises(ValueError, match="'dim'"):
        T.launch_bounds_t((1, 1, 1, 1, 1))


def test_module_options_are_per_module():
    import sys
    import types as pytypes

    other = pytypes.ModuleType("weft_test_other_module")
    sys.modules[other.__name__] = other
    try:
        wp.set_module_options({"enable_backward": False}, other)
        assert wp.get_module_options(other)["enable_backward"] is False
        assert wp.get_module_options()["enable_backward"] is True  # this module's: unchanged
        assert wp.get_module(other.__name__).options["enable_backward"] is False
        with pytest.raises(TypeError, match="'module'"):
            wp.get_module_options(3)
    finally:
        del sys.modules[other.__name__]


def _scale_src(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    y[0] = x[0] * x[0]


def test_kernel_enable_backward_from_its_module(capsys):
    # The module's option decides when the kernel does not say: no adjoint,
    # and the tape says so (as Warp's does).
    import sys
    import types as pytypes

    mod = pytypes.ModuleType("weft_test_nobackward")
    sys.modules[mod.__name__] = mod
    try:
        src = _scale_src
        f = pytypes.FunctionType(src.__code__, src.__globals__, "scale_nb")
        f.__module__ = mod.__name__
        k = wp.Kernel(f)
        wp.set_module_options({"enable_backward": False}, mod)
        x = wp.array([3.0], dtype=float, requires_grad=True)
        y = wp.zeros_like(x)
        with wp.Tape() as tape:
            wp.launch(k, dim=1, inputs=[x, y])
        assert y.numpy()[0] == 9.0
        tape.backward(y)
        assert x.grad.numpy()[0] == 0.0
        assert "is defined in a module with the option 'enable_backward=False' set" in capsys.readouterr().err
    finally:
        del sys.modules[mod.__name__]


def test_kernel_name_and_unique_module():
    @wp.kernel(module="unique", name="custom_kernel")
    def named(values: wp.array(dtype=float)):
        values[wp.tid()] = 2.0

    assert named.key == "custom_kernel" and named.module.name != __name__
    a = wp.zeros(2)
    wp.launch(named, dim=2, inputs=[a])
    assert a.numpy().tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match=r"valid C\+\+ identifier"):
        wp.kernel(module="unique", name="1bad")(lambda: None)
    with pytest.raises(ValueError, match='module_options requires module="unique"'):
        wp.kernel(module_options={"fast_math": True})(lambda: None)


def test_integer_scalars_wrap_and_numpy_types():
    assert wp.int8(300).value == 44 and wp.uint8(-1234567890).value == 46 and wp.int8(2**70).value == 0
    assert wp.uint64(-1).value == 2**64 - 1 and wp.int32(3.7).value == 3
    assert wp.dtype_to_numpy(wp.int8) is np.int8 and wp.dtype_to_numpy(wp.bfloat16) is np.uint16
    with pytest.raises(TypeError, match="NumPy type"):
        wp.dtype_to_numpy(wp.vec3)


def test_python_scope_errors_name_python_types():
    with pytest.raises(RuntimeError, match=r"^Couldn't find a function 'mul' compatible with the arguments 'int8, int'$"):
        wp.mul(wp.int8(3), 2)


def test_bfloat16_list_gives_values():
    assert [float(x) for x in wp.full(2, 42, dtype=wp.bfloat16).list()] == [42.0, 42.0]


def test_func_native_defines_and_refuses():
    @wp.func_native("return x + 1;")
    def native_inc(x: int): ...

    with pytest.raises(wp.NotSupportedError, match="native"):
        native_inc(1)

    @wp.kernel
    def uses_native(a: wp.array(dtype=int)):
        a[0] = native_inc(a[0])

    with pytest.raises(wp.NotSupportedError, match="native_inc"):
        wp.launch(uses_native, dim=1, inputs=[wp.zeros(1, dtype=int)])


def test_source_is_kept_from_definition(tmp_path):
    # A kernel defined in a module whose file is gone by its first launch
    # (Warp reads the source at definition too).
    import importlib.util
    import os

    f = tmp_path / "weft_gone_module.py"
    f.write_text(
        "import weft.warp as wp\n\n\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[wp.tid()] = 5.0\n"
    )
    spec = importlib.util.spec_from_file_location("weft_gone_module", f)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    os.remove(f)
    import linecache

    linecache.checkcache()
    a = wp.zeros(2)
    wp.launch(mod.k, dim=2, inputs=[a])
    assert a.numpy().tolist() == [5.0, 5.0]


def test_init_kernel_cache(tmp_path, monkeypatch):
    from weft.warp._src import build

    # Restored afterwards (init_kernel_cache points Weft's cache there).
    monkeypatch.setenv("WEFT_CACHE_DIR", os.environ.get("WEFT_CACHE_DIR", ""))
    monkeypatch.setattr(wp.config, "kernel_cache_dir", wp.config.kernel_cache_dir)
    d = build.init_kernel_cache(path=str(tmp_path))
    assert d == os.path.join(os.path.realpath(tmp_path), wp.config.version) and os.path.isdir(d)
    assert wp.config.kernel_cache_dir == d and os.environ["WEFT_CACHE_DIR"] == d
    assert build.init_kernel_cache(path=d) == d  # not versioned twice
    monkeypatch.setattr(build, "_resolved_kernel_cache_dir", None)


@wp.func
def _takes_f64(x: wp.float64):
    return x


@wp.func
def _takes_float(x: float):
    return x * 2.0


def test_user_funcs_check_argument_types_from_python():
    # As Warp: a Python float is a float32, an int an int32, also for a
    # single overload; composites multiply through wp.mul.
    assert _takes_float(1.5) == 3.0 and _takes_f64(wp.float64(2.0)) == 2.0
    with pytest.raises(RuntimeError, match=r"^Error calling function '_takes_f64', no overload found for arguments \(1.0,\)$"):
        _takes_f64(1.0)
    with pytest.raises(RuntimeError, match="no overload found"):
        _takes_float(1)
    assert list(wp.mat22(1.0, 2.0, 3.0, 4.0) * wp.vec2(1.0, 1.0)) == [3.0, 7.0]
    assert wp.expect_eq(wp.vec2(1.0, 2.0), wp.vec2(1.0, 2.0)) is None


def test_composite_arrays_from_data_shapes():
    # Warp's reading of data for vector and matrix elements.
    def shape_of(shp, dt):
        return wp.array(np.zeros(shp, dtype=np.float32), dtype=dt).shape

    assert shape_of((9,), wp.mat33) == (1,) and shape_of((18,), wp.mat33) == (2,)
    assert shape_of((1024, 4, 1), wp.vec4) == (1024,) and shape_of((2, 8), wp.vec4) == (2, 2)
    assert shape_of((2, 3, 3), wp.mat33) == (2,) and shape_of((3, 4), wp.mat22) == (3,)
    with pytest.raises(ValueError, match=r"parameter 'data'.*multiple of 4"):
        shape_of((2, 2, 2), wp.vec4)
    with pytest.raises(ValueError, match=r"parameter 'data'.*\(3, 3\) or a multiple of 9"):
        shape_of((6, 6), wp.mat33)


def test_composite_keys_values_and_constructors():
    with pytest.raises(ValueError, match=r"vector constructor, expected 3 elements, got 2$"):
        wp.vec3(1, 2)
    with pytest.raises(TypeError, match=r"expected row of length 2, got \(1, 2, 3\)$"):
        wp.mat22((1, 2, 3), (3, 4, 5))
    v = wp.vec3ui(1, 2, 3)
    v[0] = -1  # wraps as the type stores it
    assert v[0] == 4294967295
    with pytest.raises(KeyError, match="expected int or slice"):
        v[None]
    with pytest.raises(TypeError, match="Expected to assign a `uint32` value but got `str` instead"):
        v[1] = "x"
    with pytest.raises(ValueError, match="same size"):
        v[:1] = (1, 2)
    m = wp.mat22(1, 2, 3, 4)
    m[-1, -1] = 9.0
    m.set_row(0, (5.0, 6.0))
    assert list(m[1]) == [3.0, 9.0] and list(m[0]) == [5.0, 6.0] and m[-2, 0] == 5.0
    with pytest.raises(IndexError, match="Invalid row index"):
        m.set_row(2, (0, 0))
    with pytest.raises(KeyError, match="one or two indices, got 3"):
        m[0, 1, 2]
    with pytest.raises(TypeError, match=r"^Invalid constant type: <class 'tuple'>$"):
        wp.constant((1, 2, 3))
    assert wp.types.type_is_tile(wp.tile) and wp.types.type_is_array(wp.fixedarray)


def test_full_infers_composites_and_checks_shapes():
    a = wp.full(3, [1, 2], dtype=wp.vec2)
    assert a.numpy().tolist() == [[1.0, 2.0]] * 3
    m = wp.full(2, [1.0, 2.0, 3.0, 4.0], dtype=wp.mat22)  # flat components
    assert m.numpy()[1].tolist() == [[1.0, 2.0], [3.0, 4.0]]
    v = wp.full(2, np.array([1.0, 2.0, 3.0], dtype=np.float64))
    assert v.dtype is wp.vec3d
    assert wp.array([], dtype=wp.vec2).shape == (0,) and wp.zeros(0).ptr is None
    with pytest.raises(ValueError, match="Array shapes must be non-negative"):
        wp.zeros((10, -1))
    assert wp.types.strides_from_shape((2, 3, 4), wp.float32) == (48, 16, 4) and wp.zeros((2, 3)).capacity == 24


def test_unique_kernels_are_reused_and_options_checked():
    def make():
        @wp.kernel(module="unique")
        def twice(x: wp.array(dtype=float)):
            x[wp.tid()] = x[wp.tid()] * 2.0

        return twice

    assert make() is make()
    with pytest.raises(ValueError, match="fast_mth"):
        wp.kernel(module="unique", module_options={"fast_mth": True})(lambda a: None)
    with pytest.raises(TypeError, match="deterministic_max_records"):
        wp.kernel(module="unique", module_options={"deterministic_max_records": 1.5})(lambda a: None)


def test_array_shape_limits():
    with pytest.raises(ValueError, match="signed 32-bit integer"):
        wp.types.check_array_shape((2**31,))
    with pytest.raises(ValueError, match="signed 32-bit integer"):
        wp.array(np.broadcast_to(np.zeros(1, dtype=np.int8), (2**31,)), dtype=wp.int8)
