"""warp.optim's SGD and Adam on Weft (Warp's update rules)."""

import numpy as np
import pytest

import weft.warp as wp
from weft.warp import optim


def test_sgd_rules():
    p = wp.array([10.0])
    opt = optim.SGD([p], lr=0.01, momentum=0.9, dampening=0.1, weight_decay=0.01)
    g = wp.array([1.0])
    opt.step([g])
    assert p.numpy()[0] == pytest.approx(9.989, abs=1e-5)
    opt.step([g])
    assert p.numpy()[0] == pytest.approx(9.969201, abs=1e-5)
    q = wp.array([[1.0, 2.0], [3.0, 4.0]])  # any shape
    optim.SGD([q], lr=0.5).step([wp.ones((2, 2))])
    assert q.numpy().tolist() == [[0.5, 1.5], [2.5, 3.5]]
    n = wp.array([1.0])
    nest = optim.SGD([n], lr=0.1, momentum=0.9, nesterov=True)
    nest.step([wp.array([1.0])])
    nest.step([wp.array([1.0])])
    assert n.numpy()[0] == pytest.approx(0.539, abs=1e-5)
    with pytest.raises(RuntimeError, match="must be set before calling step"):
        optim.SGD().step([])
    with pytest.raises(TypeError, match="dtype must match parameter dtype float32, got int32"):
        optim.SGD([wp.zeros(2)]).step([wp.zeros(2, dtype=wp.int32)])


@wp.kernel
def _square_sum(x: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    wp.atomic_add(out, 0, wp.dot(x[wp.tid()], x[wp.tid()]))


def test_adam_minimizes_and_keeps_state():
    x = wp.array(np.array([[0.1, 0.2, -0.1]]), dtype=wp.vec3, requires_grad=True)
    score = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    opt = optim.Adam([x], lr=0.02, betas=(0.8, 0.999))
    for _ in range(100):
        tape.reset()  # zeroes the gradients, as Warp's
        score.zero_()
        with tape:
            wp.launch(_square_sum, dim=1, inputs=[x, score])
        tape.backward(score)
        opt.step([tape.gradients[x]])
    assert np.all(x.numpy() <= 1e-5)
    h = wp.zeros(4, dtype=wp.float16)
    a = optim.Adam([h])
    m = a.m[0]
    assert m.dtype is wp.float32
    a.set_params([h])
    assert a.m[0] is m
