"""warp.autograd on Weft: Jacobians by adjoints and by finite
differences, gradient checks (Warp's interface)."""

import numpy as np
import pytest

import weft.warp as wp
from weft.warp.autograd import gradcheck, gradcheck_tape, jacobian, jacobian_fd


@wp.kernel
def _poly(a: wp.array(dtype=float), b: wp.array(dtype=wp.vec2), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * a[i] * b[i][0] + b[i][1]


@wp.func
def _wrong(x: float):
    return x * x


@wp.func_grad(_wrong)
def _adj_wrong(x: float, adj: float):
    wp.adjoint[x] -= 2.0 * x * adj


@wp.kernel
def _wrong_kernel(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    out[wp.tid()] = _wrong(a[wp.tid()])


def test_jacobians_agree_and_restore():
    a = wp.array([1.0, 2.0], requires_grad=True)
    b = wp.array([[3.0, 1.0], [4.0, 1.0]], dtype=wp.vec2, requires_grad=True)
    out = wp.zeros(2, requires_grad=True)
    ad = jacobian(_poly, dim=2, inputs=[a, b], outputs=[out])
    fd = jacobian_fd(_poly, dim=2, inputs=[a, b], outputs=[out], eps=1e-3)
    assert sorted(ad) == [(0, 0), (1, 0)] and ad[(1, 0)].shape == (2, 4)
    np.testing.assert_allclose(ad[(0, 0)].numpy(), np.diag([6.0, 16.0]), rtol=1e-5)
    np.testing.assert_allclose(ad[(1, 0)].numpy(), fd[(1, 0)].numpy(), atol=1e-2)
    assert a.numpy().tolist() == [1.0, 2.0]  # inputs as given
    assert gradcheck(_poly, dim=2, inputs=[a, b], outputs=[out], show_summary=False)
    limited = jacobian(_poly, dim=2, inputs=[a, b], outputs=[out], max_outputs_per_var=1)
    assert np.isnan(limited[(0, 0)].numpy()[1]).all()


def test_gradcheck_finds_a_wrong_adjoint():
    a = wp.array([1.0, 2.0, 3.0], requires_grad=True)
    out = wp.zeros(3, requires_grad=True)
    with pytest.raises(ValueError, match="Gradient check failed"):
        gradcheck(_wrong_kernel, dim=3, inputs=[a], outputs=[out], show_summary=False)
    with wp.Tape() as tape:
        wp.launch(_poly, dim=2, inputs=[wp.array([1.0, 2.0], requires_grad=True), wp.ones(2, dtype=wp.vec2, requires_grad=True)], outputs=[wp.zeros(2, requires_grad=True)])
    assert gradcheck_tape(tape, raise_exception=False, show_summary=False)
