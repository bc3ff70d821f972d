"""wp.map and the arrays' arithmetic operators (Warp 1.19's behaviour)."""

import numpy as np
import pytest

import weft.warp as wp
from weft.warp.utils import map_cache


@wp.struct
class Pair:
    a: float
    b: float


@wp.func
def make_pair(a: float, b: float):
    p = Pair()
    p.a = a
    p.b = b
    return p


@wp.func
def two_values(x: float):
    return x + 1.0, wp.vec3(x, x, x)


@wp.func
def nothing(x: float):
    pass


def test_builtins_lambdas_and_funcs():
    a = wp.array(np.arange(4, dtype=np.float32))
    b = wp.array(np.ones(4, dtype=np.float32))
    assert wp.map(wp.add, a, b).numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    k = 2.0
    assert wp.map(lambda x, y: x * k + y, a, b).numpy().tolist() == [1.0, 3.0, 5.0, 7.0]
    assert wp.map(wp.clamp, a, 0.5, 2.5).numpy().tolist() == [0.5, 1.0, 2.0, 2.5]
    r, v = wp.map(two_values, a)
    assert r.numpy().tolist() == [1.0, 2.0, 3.0, 4.0] and v.dtype is wp.vec3 and v.numpy()[3].tolist() == [3.0] * 3
    pairs = wp.map(make_pair, a, b).list()
    assert pairs[2].a == 2.0 and pairs[2].b == 1.0
    ints = wp.array([6, 5], dtype=wp.int32)
    assert wp.map(wp.bit_and, ints, wp.array([3, 3], dtype=wp.int32)).numpy().tolist() == [2, 1]


def test_broadcasting_outputs_and_errors():
    out = wp.map(wp.add, wp.zeros((1, 3, 1, 4)), wp.ones((5, 4)))
    assert out.shape == (1, 3, 5, 4) and out.numpy().min() == 1.0
    xs, ys = wp.zeros(3), wp.ones(3)
    dst = wp.empty(3)
    assert wp.map(wp.sub, xs, ys, out=dst) is dst and dst.numpy().tolist() == [-1.0] * 3
    with pytest.raises(ValueError, match=r"^Shapes \(3,\) and \(5,\) are not broadcastable$"):
        wp.map(wp.add, xs, wp.zeros(5))
    with pytest.raises(ValueError, match="at least one warp.array"):
        wp.map(wp.add, 1.0, 2.0)
    with pytest.raises(TypeError, match=r"does not match expected shape \(3,\)$"):
        wp.map(wp.sub, xs, ys, out=wp.empty(2))
    with pytest.raises(TypeError, match="dtype int32 does not match expected dtype float32$"):
        wp.map(wp.sub, xs, ys, out=wp.empty(3, dtype=wp.int32))
    with pytest.raises(TypeError, match="must return a value"):
        wp.map(nothing, xs)
    with pytest.raises(TypeError, match=r"Number of input arguments \(2\)"):
        wp.map(nothing, xs, ys)


def test_cache_and_kernel():
    map_cache.clear()
    a = wp.array([1.0, 2.0])
    wp.map(lambda x: x * x, a)
    n = len(map_cache)
    wp.map(lambda x: x * x, wp.array([1.0, 2.0, 3.0]))  # same source and types, another shape
    assert len(map_cache) == n
    wp.map(lambda x: x * x, wp.array([1.0], dtype=wp.float64))
    assert len(map_cache) == n + 1
    k = wp.map(lambda x: x + 2.0, a, return_kernel=True)
    assert isinstance(k, wp.Kernel)
    out = wp.empty(2)
    wp.launch(k, dim=2, inputs=[a], outputs=[out])
    assert out.numpy().tolist() == [3.0, 4.0]


def test_array_operators_and_gradients():
    a = wp.array(np.arange(1, 4, dtype=np.float32), requires_grad=True)
    b = wp.array([2.0, 2.0, 2.0])
    assert (a + b).numpy().tolist() == [3.0, 4.0, 5.0] and (2.0 - a).numpy().tolist() == [1.0, 0.0, -1.0]
    assert (-a).numpy().tolist() == [-1.0, -2.0, -3.0] and (+a).numpy().tolist() == [1.0, 2.0, 3.0]
    assert (a ** 2.0).numpy().tolist() == [1.0, 4.0, 9.0] and (a // 2.0).numpy().tolist() == [0.0, 1.0, 1.0]
    ai = wp.array([7, 8], dtype=wp.int32)
    q = ai / wp.array([2, 3], dtype=wp.int32)
    assert q.dtype is wp.int32 and q.numpy().tolist() == [3, 2]  # Warp's integer division
    c = wp.array([1.0, 2.0])
    c *= 3.0
    assert c.numpy().tolist() == [3.0, 6.0]
    with wp.Tape() as tape:
        y = wp.map(lambda x: 2.0 * x - 1.0, a)
    assert y.grad is not None
    y.grad.fill_(1.0)
    tape.backward()
    assert a.grad.numpy().tolist() == [2.0, 2.0, 2.0]
