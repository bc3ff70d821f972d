"""The host API of weft.warp: arrays, launches, types, funcs, structs,
closures, devices, and bad inputs (each error names the parameter)."""

import numpy as np
import inspect
import re

import pytest

import weft
import weft.warp as wp

SCALE = 3.0
OFFSET = wp.constant(2)
vec5 = wp.types.vector(5, dtype=wp.float32)


@wp.func
def twice(x: float):
    return 2.0 * x


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def uses_globals(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = twice(x[i]) * SCALE + float(OFFSET)


@wp.kernel
def vec_kernel(v: wp.array(dtype=wp.vec3), s: wp.vec3, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.dot(v[i], s)


@wp.kernel
def struct_kernel(p: Particle, out: wp.array(dtype=wp.vec3)):
    out[0] = p.pos * p.mass


@wp.kernel
def struct_array_kernel(ps: wp.array(dtype=Particle), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = ps[i].mass * ps[i].pos[1]


@wp.kernel
def vec5_kernel(v: wp.array(dtype=vec5), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = v[i][4]


@wp.kernel
def two_d(a: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    a[i, j] = i * 10 + j


def test_saxpy_and_zero_copy():
    x = wp.array(np.arange(8, dtype=np.float32), dtype=float)
    y = wp.ones(8, dtype=float)
    view = y.numpy()
    wp.launch(saxpy, dim=8, inputs=[x, y, 2.0])
    assert np.array_equal(view, 2.0 * np.arange(8) + 1.0)  # the view sees the launch
    view[0] = 100.0
    assert y.numpy()[0] == 100.0
    iface = y.__array_interface__
    assert iface["shape"] == (8,) and iface["typestr"] == "<f4"
    assert iface["data"][0] == y.ptr


def test_closure_and_globals():
    k = 5.0

    @wp.kernel
    def closure(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = x[i] + k + SCALE

    x = wp.zeros(4, dtype=float)
    wp.launch(closure, dim=4, inputs=[x])
    assert x.list() == [8.0] * 4
    out = wp.zeros(3, dtype=float)
    wp.launch(uses_globals, dim=3, inputs=[wp.array([1.0, 2.0, 3.0], dtype=float), out])
    assert np.allclose(out.numpy(), [8.0, 14.0, 20.0])


def test_vectors_and_structs():
    v = wp.array([[1, 2, 3], [4, 5, 6]], dtype=wp.vec3)
    assert v.shape == (2,) and v.numpy().shape == (2, 3)
    out = wp.zeros(2, dtype=float)
    wp.launch(vec_kernel, dim=2, inputs=[v, wp.vec3(1.0, 0.0, 2.0), out])
    assert out.list() == [7.0, 16.0]
    assert v.list()[1] == wp.vec3(4.0, 5.0, 6.0)
    p = Particle()
    p.pos = wp.vec3(1.0, 2.0, 3.0)
    p.mass = 2.0
    o = wp.zeros(1, dtype=wp.vec3)
    wp.launch(struct_kernel, dim=1, inputs=[p, o])
    assert o.numpy().tolist() == [[2.0, 4.0, 6.0]]
    ps = wp.array([p, p], dtype=Particle)
    out2 = wp.zeros(2, dtype=float)
    wp.launch(struct_array_kernel, dim=2, inputs=[ps, out2])
    assert out2.list() == [4.0, 4.0]
    assert ps.numpy()["mass"].tolist() == [2.0, 2.0]


def test_custom_vector_and_2d():
    v = wp.array(np.arange(10, dtype=np.float32).reshape(2, 5), dtype=vec5)
    out = wp.zeros(2, dtype=float)
    wp.launch(vec5_kernel, dim=2, inputs=[v, out])
    assert out.list() == [4.0, 9.0]
    a = wp.zeros((2, 3), dtype=wp.int32)
    wp.launch(two_d, dim=(2, 3), inputs=[a])
    assert a.numpy().tolist() == [[0, 1, 2], [10, 11, 12]]


def test_constructors():
    assert wp.full(3, 7, dtype=wp.int32).list() == [7, 7, 7]
    a = wp.ones((2, 2), dtype=wp.float64)
    assert a.dtype is wp.float64 and a.numpy().dtype == np.float64
    b = wp.clone(a)
    b.zero_()
    assert a.numpy().sum() == 4 and b.numpy().sum() == 0
    c = wp.zeros_like(a)
    c.assign(np.full((2, 2), 3.0))
    wp.copy(b, c)
    assert b.numpy().sum() == 12
    d = wp.empty_like(a)
    d.fill_(1.5)
    assert d.list() == [1.5] * 4
    assert wp.from_numpy(np.arange(3, dtype=np.int64)).dtype is wp.int64
    assert wp.full_like(a, 2.0).numpy().sum() == 8.0
    assert wp.ones_like(a).numpy().sum() == 4.0


def test_devices_and_config():
    wp.init()
    d = wp.get_device()
    assert str(d) == "cpu" and d.is_cpu
    with wp.ScopedDevice("interp"):
        assert str(wp.get_device()) == "interp"
        x = wp.array([1.0, 2.0], dtype=float)
        y = wp.zeros(2, dtype=float)
        wp.launch(saxpy, dim=2, inputs=[x, y, 3.0])
        assert y.list() == [3.0, 6.0]
    assert str(wp.get_device()) == "cpu"
    wp.synchronize()


def test_tape():
    @wp.kernel
    def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * x[i]

    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(square, dim=3, inputs=[x, y])
    y.grad.fill_(1.0)
    tape.backward()
    assert x.grad.list() == [2.0, 4.0, 6.0]


def test_weft_api():
    m = weft.compile("import warp as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[0] = 1.0\n")
    assert m.kernel_names() == ["k"]
    assert "k" in m.ir()
    assert m.clif().startswith("; kernel k")
    assert "weft-backend-hlsl" in m.hlsl("k")
    with pytest.raises(weft.WeftError, match="no kernel named `nope`"):
        m.hlsl("nope")
    assert "cpu" in weft.device_names()


# ------------------------------------------------------------ bad inputs


def test_wrong_dtype_names_param():
    x = wp.zeros(4, dtype=wp.int32)
    y = wp.zeros(4, dtype=float)
    with pytest.raises(RuntimeError, match="'x'|`x`"):
        wp.launch(saxpy, dim=4, inputs=[x, y, 1.0])


def test_wrong_ndim_names_param():
    x = wp.zeros((2, 2), dtype=float)
    y = wp.zeros(4, dtype=float)
    with pytest.raises(RuntimeError, match="argument 'x'"):
        wp.launch(saxpy, dim=4, inputs=[x, y, 1.0])


def test_wrong_shape_names_param():
    with pytest.raises(ValueError, match="'shape'"):
        wp.array(np.zeros(6, dtype=np.float32), dtype=float, shape=(4,))
    with pytest.raises(ValueError, match="'data'"):
        wp.array(np.zeros((2, 2), dtype=np.float32), dtype=wp.vec3)


def test_wrong_device_names_param():
    x = wp.zeros(4, dtype=float, device="interp")
    y = wp.zeros(4, dtype=float)
    with pytest.raises(RuntimeError, match="argument 'x'.*device"):
        wp.launch(saxpy, dim=4, inputs=[x, y, 1.0], device="cpu")


def test_non_contiguous_is_refused():
    nc = np.zeros((4, 4), dtype=np.float32)[:, 1]
    with pytest.raises(ValueError, match="not C-contiguous"):
        weft._native.Array.from_numpy(wp.types.native_dtype(float), nc, [4], False)
    # the host API copies a strided NumPy array into a contiguous one
    assert wp.array(nc, dtype=float).shape == (4,)
    y = wp.zeros(4, dtype=float)
    with pytest.raises(RuntimeError, match="argument 'x' expects an array"):
        wp.launch(saxpy, dim=4, inputs=[nc, y, 1.0])


def test_views_share_memory():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4), dtype=float)
    row, col, sub = a[1], a[:, 2], a[0:2, 1::2]
    assert row.shape == (4,) and row.is_contiguous and row.is_view
    assert col.shape == (3,) and not col.is_contiguous and col.strides == (16,)
    assert sub.shape == (2, 2) and sub.numpy().tolist() == [[1.0, 3.0], [5.0, 7.0]]
    col.fill_(-1.0)  # a view's writes land in its base
    assert a.numpy()[:, 2].tolist() == [-1.0, -1.0, -1.0]
    assert a[-1][1:3].numpy().tolist() == [9.0, -1.0]
    with pytest.raises(RuntimeError, match="Item indexing"):
        a[1, 2]
    with pytest.raises(RuntimeError, match="Invalid indexing"):
        a[5]
    with pytest.raises(RuntimeError, match="Invalid indexing in slice"):
        a[3:1]
    v = wp.array([wp.vec3(1, 2, 3), wp.vec3(4, 5, 6)], dtype=wp.vec3)
    assert v[1:].list() == [wp.vec3(4, 5, 6)]


def test_view_to_kernel_names_param():
    x = wp.array(np.arange(8, dtype=np.float32), dtype=float)
    y = wp.zeros(4, dtype=float)
    with pytest.raises(RuntimeError, match="argument 'x': the array is a view"):
        wp.launch(saxpy, dim=4, inputs=[x[::2], y, 1.0])
    wp.launch(saxpy, dim=4, inputs=[x[::2].contiguous(), y, 1.0])
    assert y.list() == [0.0, 2.0, 4.0, 6.0]


def test_copy_offsets_views_and_adjoint():
    src = wp.array([1, 5, 2, 6, 3, 7, 4, 8], dtype=wp.int32)[::2]
    dst = wp.array([9, 9, 9, 9], dtype=wp.int32)
    wp.copy(dst, src, dest_offset=1, src_offset=1, count=2)
    assert dst.list() == [9, 2, 3, 9]
    strided = wp.zeros(8, dtype=wp.int32)[::2]
    wp.copy(strided, dst)
    assert strided.list() == [9, 2, 3, 9]
    with pytest.raises(RuntimeError, match="Source offset must be non-negative"):
        wp.copy(dst, src, src_offset=-1)
    with pytest.raises(RuntimeError, match="must be integers"):
        wp.copy(dst, src, count=2.0)
    with pytest.raises(RuntimeError, match="exceeds the source size"):
        wp.copy(dst, src, count=5)
    with pytest.raises(RuntimeError, match="only supported for 1-D"):
        m = wp.zeros((4, 4), dtype=float)[::2, ::2]
        wp.copy(wp.zeros((2, 2), dtype=float), m, count=1)
    with pytest.raises(RuntimeError, match="parameter 'dest'"):
        wp.copy(np.zeros(4), src)
    a = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    b = wp.zeros(3, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.copy(b, a, dest_offset=1, count=2)
    tape.backward(grads={b: wp.array([5.0, 6.0, 7.0], dtype=float)})
    assert a.grad.list() == [6.0, 7.0, 0.0]


def test_recorded_launch():
    @wp.kernel
    def fill(out: wp.array(dtype=int), v: wp.vec3, c: int):
        i = wp.tid()
        out[i] = c + int(v[0])

    out = wp.zeros(6, dtype=int)
    cmd = wp.launch(fill, dim=6, inputs=[out, wp.vec3(1.0, 0.0, 0.0), 2], record_cmd=True)
    assert out.list() == [0] * 6  # recorded, not run
    cmd.set_dim(3)
    cmd.launch()
    assert out.list() == [3, 3, 3, 0, 0, 0]
    empty = wp.Launch(fill, wp.get_device())
    empty.set_param_by_name("out", out)
    empty.set_dim(6)
    empty.launch()  # unset value parameters are zero
    assert out.list() == [0] * 6
    with pytest.raises(RuntimeError, match="argument 'v' expects vec3f but got a single value"):
        empty.set_param_at_index(1, 5)
    with pytest.raises(RuntimeError, match="has no parameter 'w'"):
        empty.set_param_by_name("w", 1)
    unset = wp.Launch(fill, wp.get_device())
    unset.set_dim(1)
    with pytest.raises(RuntimeError, match="argument `out`: array axis 0 has length 0"):
        unset.launch()  # an unset array is Warp's null array: empty
    with pytest.raises(ValueError, match="param v to vec3f"):
        wp.launch(fill, dim=1, inputs=[out, None, 1])


def test_struct_python_side():
    @wp.struct
    class Empty:
        pass

    @wp.struct
    class Scalars:
        u8: wp.uint8
        f: float

    @wp.kernel
    def takes_empty(e: Empty, out: wp.array(dtype=int)):
        out[0] = 7

    out = wp.zeros(1, dtype=int)
    wp.launch(takes_empty, dim=1, inputs=[Empty(), out])
    assert out.list() == [7]
    s = Scalars()
    assert isinstance(s, Scalars.cls)
    assert isinstance(s.u8, wp.uint8) and type(s.f) is float
    with pytest.raises(RuntimeError, match="must be defined as base classes"):

        @wp.struct
        class Child(Scalars._weft_source_cls):
            y: int


def test_generic_kernel_and_overload():
    from typing import Any

    @wp.kernel
    def scale(a: wp.array(dtype=Any), s: Any):
        i = wp.tid()
        a[i] = a[i] * s

    x = wp.array([1.0, 2.0], dtype=float)
    wp.launch(scale, dim=2, inputs=[x, 3.0])
    y = wp.array([1, 2], dtype=int)
    wp.launch(scale, dim=2, inputs=[y, 4])
    assert x.list() == [3.0, 6.0] and y.list() == [4, 8]
    wp.overload(scale, [wp.array(dtype=wp.float64), wp.float64])
    assert len(scale._instances) == 3  # float32, int32 and the overload
    z = wp.array([1.0, 2.0], dtype=wp.float64)
    wp.launch(scale, dim=2, inputs=[z, wp.float64(2.0)])
    assert z.list() == [2.0, 4.0] and len(scale._instances) == 3
    with pytest.raises(RuntimeError, match="argument 'a' expects an array"):
        wp.launch(scale, dim=2, inputs=[1.0, 2.0])
    with pytest.raises(RuntimeError, match="argument 's': cannot infer a type"):
        wp.launch(scale, dim=2, inputs=[x, "2"])
    with pytest.raises(RuntimeError, match="is not generic"):
        wp.overload(saxpy, [float])
    with pytest.raises(TypeError, match="parameter 'arg_types' has 1 types"):
        wp.overload(scale, [float])

    @wp.kernel
    def first(v: wp.types.vector(Any, float), out: wp.array(dtype=float)):
        out[0] = v[0] + float(len(v))

    out = wp.zeros(1, dtype=float)
    wp.launch(first, dim=1, inputs=[wp.vec4(1.0, 0.0, 0.0, 0.0), out])
    assert out.list() == [5.0]
    with pytest.raises(RuntimeError, match="argument 'v' expects a vector"):
        wp.launch(first, dim=1, inputs=[1.0, out])


def test_func_called_from_python():
    @wp.func
    def add(a: float, b: float):
        return a + b

    @wp.func
    def add(a: wp.vec3, b: wp.vec3):  # noqa: F811 (an overload)
        return a + b

    @wp.func
    def one(x: int):
        return x + 1

    assert one(2) == 3
    assert add(1.0, 2.5) == 3.5
    assert add(wp.vec3(1.0, 2.0, 3.0), wp.vec3(1.0, 1.0, 1.0)) == wp.vec3(2.0, 3.0, 4.0)
    with pytest.raises(RuntimeError, match="no overload found"):
        add("a", "b")

    @wp.func
    def rotate_half(e: wp.vec3):
        h = e / 2.0
        return wp.quat(wp.sin(h[0]), 0.0, 0.0, wp.cos(h[0]))

    q = rotate_half(wp.vec3(np.pi, 0.0, 0.0))
    assert abs(q[0] - 1.0) < 1e-6 and abs(q[3]) < 1e-6
    assert wp.quat_identity(dtype=wp.float64) == wp.quatd(0.0, 0.0, 0.0, 1.0)
    assert type(wp.sqrt(wp.float32(4.0))) is float and wp.sqrt(4) == 2.0
    # NVIDIA Warp 1.19: [float(x) for x in wp.quat_rpy(0.1, 0.2, 0.3)]
    warp_rpy = [0.03427080065011978, 0.10602051019668579, 0.14357218146324158, 0.983347475528717]
    assert np.allclose(list(wp.quat_rpy(0.1, 0.2, 0.3)), warp_rpy, rtol=1e-6)
    assert wp.vec2(1.0, 2.0) * wp.float32(2.0) == wp.vec2(2.0, 4.0)
    with pytest.raises(RuntimeError, match="Couldn't find a function 'cos' compatible with the arguments 'str'"):
        wp.cos("x")


def test_transform_python_constructors():
    c = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    assert list(wp.transformf()) == [0.0] * 6 + [1.0]
    assert list(wp.transformd(1.5)) == [1.5] * 7 and list(wp.transformh(True)) == [1.0] * 7
    assert list(wp.transformf(*c)) == c and list(wp.transformd(wp.transformf(*c))) == c
    assert list(wp.transformf((1.0, 2.0, 3.0))) == [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0]
    assert list(wp.transformf(p=(1.0, 2.0, 3.0), q=(4.0, 5.0, 6.0, 7.0))) == c
    with pytest.raises(TypeError, match="Invalid argument 'q' in transformation constructor: expected a sequence, got float"):
        wp.transformf((1.0, 2.0, 3.0), 1.0)
    with pytest.raises(TypeError, match="expected a scalar value, got object"):
        wp.transformf(object())
    with pytest.raises(TypeError, match="^multiple values for argument 'q'$"):
        wp.transformf(*c, q=(0.0, 0.0, 0.0, 1.0))
    with pytest.raises(TypeError, match="^got an unexpected keyword argument 'pos'$"):
        wp.transformf(*c, pos=(0.0, 0.0, 0.0))
    t = wp.transform_identity()
    wp.transform_set_translation(t, wp.vec3(1.0, 2.0, 3.0))
    wp.transform_set_rotation(t, wp.quat(0.0, 1.0, 0.0, 0.0))
    assert list(t) == [1.0, 2.0, 3.0, 0.0, 1.0, 0.0, 0.0]


def test_matrix_from_numpy_argument():
    @wp.kernel
    def trace(m: wp.mat22, out: wp.array(dtype=float)):
        out[0] = m[0, 0] + m[1, 1] + m[0, 1] * 10.0

    out = wp.zeros(1, dtype=float)
    wp.launch(trace, dim=1, inputs=[np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32), out])
    assert out.list() == [25.0]
    wp.launch(trace, dim=1, inputs=[[np.array([1.0, 2.0]), np.array([3.0, 4.0])], out])
    assert out.list() == [25.0]
    with pytest.raises(ValueError, match="argument 'm' expects mat22f of 4 components"):
        wp.launch(trace, dim=1, inputs=[np.zeros(3), out])


def test_composite_host_arithmetic_matches_warp():
    # expected values printed by NVIDIA Warp 1.19 for the same expressions
    u16 = wp.types.vector(3, wp.uint16)
    assert list(u16(1, -2, 3)) == [1, 65534, 3]
    assert list(u16(1, -2, 3) % u16(2, 2, 2)) == [1, 0, 1]
    assert list(wp.vec3(-7.0, 7.0, 5.5) % wp.vec3(2.0, 2.0, 2.0)) == [-1.0, 1.0, 1.5]
    i32 = wp.types.vector(3, wp.int32)
    assert list(i32(-7, 7, 5) % i32(2, 2, 2)) == [-1, 1, 1]
    assert wp.int8._type_(300).value == 44


def test_vector_attributes_as_warp():
    v = wp.vec2(1.0, 2.0)
    v.y = 5.0
    assert list(v) == [1.0, 5.0]
    with pytest.raises(AttributeError, match="^'vec2f' object has no attribute 'z'$"):
        v.z
    with pytest.raises(AttributeError, match="no attribute 'xy'$"):
        v.xy = 1.0
    v.foo = 3
    assert v.foo == 3 and list(v) == [1.0, 5.0]


def test_host_vector_builtins_as_warp():
    # the values and texts NVIDIA Warp 1.19 gives for the same calls
    assert str(wp.mat22(1.0, 2.0, 3.0, 4.0)) == "[[1.0, 2.0],\n [3.0, 4.0]]"
    assert wp.dot(wp.vec3(1.0, 2.0, 3.0), wp.vec3(1.0, 2.0, 3.0)) == 14.0
    assert wp.length(wp.vec2(3.0, 4.0)) == 5.0
    assert str(wp.matrix_from_cols(wp.vec2(1.0, 2.0), wp.vec2(3.0, 4.0))) == "[[1.0, 3.0],\n [2.0, 4.0]]"
    assert type(wp.matrix_from_rows(wp.vec3(1.0, 2.0, 3.0), wp.vec3(3.0, 4.0, 5.0))).__name__ == "mat23f"
    with pytest.raises(RuntimeError, match="Couldn't find a function 'dot'"):
        wp.dot(wp.vec2(1.0, 2.0), 1.0)


def test_freed_array_names_param():
    x = wp.zeros(4, dtype=float)
    y = wp.zeros(4, dtype=float)
    keep = y.numpy()
    y.free()
    with pytest.raises(RuntimeError, match="argument 'y'.*freed"):
        wp.launch(saxpy, dim=4, inputs=[x, y, 1.0])
    keep[0] = 1.0  # a view made before keeps its memory alive
    with pytest.raises(RuntimeError, match="freed"):
        y.numpy()


def test_wrong_value_names_param():
    x = wp.zeros(4, dtype=float)
    y = wp.zeros(4, dtype=float)
    with pytest.raises(TypeError, match="`a`"):
        wp.launch(saxpy, dim=4, inputs=[x, y, "two"])
    out = wp.zeros(2, dtype=float)
    with pytest.raises(ValueError, match="`s`"):
        wp.launch(vec_kernel, dim=2, inputs=[wp.zeros(2, dtype=wp.vec3), [1.0, 2.0], out])
    with pytest.raises(RuntimeError, match="argument 'p'"):
        wp.launch(struct_kernel, dim=1, inputs=[1.0, wp.zeros(1, dtype=wp.vec3)])


def test_wrong_arity_and_kernel():
    with pytest.raises(RuntimeError, match="takes 3 arguments"):
        wp.launch(saxpy, dim=4, inputs=[wp.zeros(4, dtype=float)])
    with pytest.raises(TypeError, match="'kernel'"):
        wp.launch(lambda: None, dim=1, inputs=[])
    with pytest.raises(TypeError, match="'dim'"):
        wp.launch(saxpy, dim="x", inputs=[])


def test_bad_device_and_compile_error():
    with pytest.raises(RuntimeError, match="nope"):
        wp.get_device("nope")

    @wp.kernel
    def broken(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = undefined_name + 1.0  # noqa: F821

    with pytest.raises(weft.CompileError, match="undefined_name") as e:
        wp.launch(broken, dim=1, inputs=[wp.zeros(1, dtype=float)])
    # `FILE:LINE:COL: message` (Warp's tests match messages to their end),
    # and the rustc-style rendering with a caret as the exception's note.
    line = inspect.getsourcelines(broken.func)[1] + 3
    assert re.fullmatch(rf".*test_api\.py:{line}:\d+: [^\n]*undefined_name[^\n]*", str(e.value))
    assert any("^" in n and "undefined_name + 1.0" in n for n in e.value.__notes__)


def test_prints_nothing(capfd):
    @wp.kernel
    def quiet(x: wp.array(dtype=float)):
        i = wp.tid()
        x[i] = float(i)

    x = wp.zeros(3, dtype=float)
    wp.launch(quiet, dim=3, inputs=[x])
    wp.synchronize()
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert x.list() == [0.0, 1.0, 2.0]


def test_vulkan_many_arrays_are_pooled(tmp_path):
    # More storage buffers than the Vulkan device allows per stage (32 on
    # lavapipe): the arrays share one pooled buffer (docs/vulkan.md).
    try:
        wp.get_device("vulkan")
    except RuntimeError as e:
        pytest.skip(f"no vulkan device: {e}")
    n = 40
    params = ", ".join(f"a{i}: wp.array(dtype=float)" for i in range(n))
    body = "\n".join(f"    a{i}[0] = float({i})" for i in range(n))
    path = tmp_path / "many_arrays.py"
    path.write_text(f"import warp as wp\n\n\n@wp.kernel\ndef many({params}):\n{body}\n")
    import importlib.util
    import sys

    sys.modules.setdefault("warp", wp)
    spec = importlib.util.spec_from_file_location("many_arrays", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    arrs = [wp.zeros(1, dtype=float, device="vulkan") for _ in range(n)]
    wp.launch(m.many, dim=1, inputs=arrs, device="vulkan")
    assert [a.list() for a in arrs] == [[float(i)] for i in range(n)]
    # the same kernel on the cpu
    cpu = [wp.zeros(1, dtype=float) for _ in range(n)]
    wp.launch(m.many, dim=1, inputs=cpu)
    assert cpu[-1].list() == [39.0]


@wp.kernel
def hand_out_slots(x: wp.array(dtype=float), count: wp.array(dtype=int), out: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.atomic_add(count, 0, 1)
    out[s] = float(i)
    wp.atomic_add(total, 0, x[i])


@wp.kernel(module="unique", module_options={"deterministic": wp.DeterministicMode.RUN_TO_RUN})
def read_bumped_counter(count: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(count, 0, 1)
    out[i] = count[0]


def test_kernel_module_options_deterministic():
    # A kernel's own module options (Warp's `module_options`, with
    # module="unique") make it deterministic without wp.config: reading a
    # counter other threads bump runs the threads in order on cpu, and
    # vulkan, which has no ordered launches, refuses it naming the atomic.
    n = 50_000
    count = wp.zeros(1, dtype=int, device="cpu")
    out = wp.zeros(n, dtype=int, device="cpu")
    wp.launch(read_bumped_counter, dim=n, inputs=[count, out], device="cpu")
    assert np.array_equal(out.numpy(), np.arange(1, n + 1))
    try:
        wp.get_device("vulkan")
    except Exception as e:
        pytest.skip(f"no vulkan device: {e}")
    count = wp.zeros(1, dtype=int, device="vulkan")
    out = wp.zeros(n, dtype=int, device="vulkan")
    with pytest.raises(Exception, match=r"test_api.py:\d+:5: .*integer atomic"):
        wp.launch(read_bumped_counter, dim=n, inputs=[count, out], device="vulkan")


@wp.func
def bump_and_read(count: wp.array(dtype=int)):
    wp.atomic_add(count, 0, 1)
    return count[0]


@wp.kernel(module="unique", module_options={"deterministic": wp.DeterministicMode.RUN_TO_RUN})
def read_bumped_counter_in_func(count: wp.array(dtype=int), out: wp.array(dtype=int)):
    out[wp.tid()] = bump_and_read(count)


def test_diagnostics_in_a_func_name_its_line():
    # A func written above its kernel keeps its own lines in the module
    # text, so a diagnostic there (here vulkan refusing the deterministic
    # kernel) names the func's line, not one of the lines after the kernel.
    try:
        wp.get_device("vulkan")
    except Exception as e:
        pytest.skip(f"no vulkan device: {e}")
    with open(__file__) as f:
        line = next(i for i, t in enumerate(f, 1) if t.startswith("def bump_and_read")) + 1
    count = wp.zeros(1, dtype=int, device="vulkan")
    out = wp.zeros(4, dtype=int, device="vulkan")
    with pytest.raises(Exception, match=rf"test_api.py:{line}:5: .*integer atomic"):
        wp.launch(read_bumped_counter_in_func, dim=4, inputs=[count, out], device="vulkan")


def test_deterministic_mode():
    # wp.config.deterministic: a counter hands out slots in thread order
    # (the launch runs its threads in order), and repeated float sums give
    # the same bits (docs/runtime.md, "Deterministic launches").
    assert int(wp.DeterministicMode.RUN_TO_RUN) == 1
    n = 100_000
    x = wp.array(np.random.default_rng(3).standard_normal(n).astype(np.float32) * 1e3)
    old = wp.config.deterministic
    try:
        wp.config.deterministic = wp.DeterministicMode.RUN_TO_RUN
        sums = set()
        for _ in range(3):
            count = wp.zeros(1, dtype=int)
            out = wp.zeros(n, dtype=float)
            total = wp.zeros(1, dtype=float)
            wp.launch(hand_out_slots, dim=n, inputs=[x, count, out, total])
            assert np.array_equal(out.numpy(), np.arange(n, dtype=np.float32))
            sums.add(total.numpy()[0].tobytes())
        assert len(sums) == 1
        xs = x.numpy().astype(np.float64)
        assert abs(float(np.frombuffer(sums.pop(), np.float32)[0]) - xs.sum()) < 1e-6 * np.abs(xs).sum()
    finally:
        wp.config.deterministic = old
