"""``warp.optim`` on Weft: the ``SGD`` and ``Adam`` optimizers, with
Warp's interface (``step(grads)``, ``set_params``,
``reset_internal_state``), written as Warp funcs mapped over the
parameters (``wp.map``), so any array shape works. The linear solvers
(``warp.optim.linear``) are not implemented yet (placeholders raising
``wp.NotSupportedError``)."""

from typing import Any

import weft.warp as wp

from .._unsupported import install
from . import linear  # noqa: F401


def _scalar(dtype):
    return wp.types.scalar_type(dtype)


def _type_name(t):
    return wp.types.type_repr(t) if hasattr(wp.types, "type_repr") else getattr(t, "__name__", str(t))


def _check_grad(what, p, g):
    if g.dtype is not p.dtype:
        raise TypeError(f"{what} gradient dtype must match parameter dtype {_type_name(p.dtype)}, got {_type_name(g.dtype)}")
    if tuple(g.shape) != tuple(p.shape):
        raise ValueError(f"{what} gradient shape must match parameter shape {tuple(p.shape)}, got {tuple(g.shape)}")


def _buffer(old, param, dtype):
    """A state buffer for ``param``: ``old`` when it still fits (moved to
    the parameter's device if needed), else zeros."""
    if old is not None and tuple(old.shape) == tuple(param.shape) and old.dtype is dtype:
        if old.device != param.device:
            return wp.clone(old, device=param.device)
        return old
    return wp.zeros(param.shape, dtype=dtype, device=param.device)


# ------------------------------------------------------------------ SGD


@wp.func
def _sgd_plain(g: Any, p: Any, lr: Any, weight_decay: Any):
    return p - lr * (g + weight_decay * p)


@wp.func
def _sgd_momentum(
    g: Any, b: Any, p: Any, lr: Any, momentum: Any, keep: Any, weight_decay: Any, first: int, nesterov: int
):
    gt = g + weight_decay * p
    nb = gt
    if first == 0:
        nb = momentum * b + keep * gt
    direction = nb
    if nesterov != 0:
        direction = gt + momentum * nb
    return nb, p - lr * direction


class SGD:
    """Stochastic gradient descent with optional momentum (``dampening``,
    ``nesterov``) and weight decay (L2), as Warp's ``warp.optim.SGD``.

    ``step(grad)``: for each parameter ``p`` and its gradient ``g``:
    ``g' = g + weight_decay * p``; with momentum, the buffer ``b`` is ``g'``
    at the first step, else ``momentum * b + (1 - dampening) * g'``, and
    the step direction is ``b`` (``g' + momentum * b`` when ``nesterov``);
    ``p -= lr * direction``."""

    def __init__(self, params=None, lr=0.001, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        self.lr = lr
        self.momentum = momentum
        self.dampening = dampening
        self.weight_decay = weight_decay
        self.nesterov = nesterov
        self.params = None
        self.b = []
        self.t = 0
        self.set_params(params)

    def set_params(self, params):
        self.params = params
        if params is None:
            return
        old = list(self.b) + [None] * (len(params) - len(self.b))
        self.b = [_buffer(o, p, p.dtype) for o, p in zip(old, params)]

    def reset_internal_state(self):
        for b in self.b:
            b.zero_()
        self.t = 0

    def step(self, grad):
        if self.params is None:
            raise RuntimeError("SGD parameters must be set before calling step(), got None")
        if len(grad) != len(self.params):
            raise ValueError(f"SGD: parameter 'grad' has {len(grad)} arrays for {len(self.params)} parameters")
        for p, g, b in zip(self.params, grad, self.b):
            _check_grad("SGD", p, g)
            st = _scalar(p.dtype)
            if self.momentum > 0.0:
                wp.map(
                    _sgd_momentum,
                    g,
                    b,
                    p,
                    st(self.lr),
                    st(self.momentum),
                    st(1.0 - self.dampening),
                    st(self.weight_decay),
                    1 if self.t == 0 else 0,
                    1 if self.nesterov else 0,
                    out=[b, p],
                )
            else:
                wp.map(_sgd_plain, g, p, st(self.lr), st(self.weight_decay), out=p)
        self.t += 1


# ----------------------------------------------------------------- Adam


@wp.func
def _adam_float(g: float, m: float, v: float, p: float, lr: float, beta1: float, beta2: float, t: float, eps: float):
    nm = beta1 * m + (1.0 - beta1) * g
    nv = beta2 * v + (1.0 - beta2) * g * g
    mhat = nm / (1.0 - wp.pow(beta1, t + 1.0))
    vhat = nv / (1.0 - wp.pow(beta2, t + 1.0))
    return nm, nv, p - lr * mhat / (wp.sqrt(vhat) + eps)


@wp.func
def _adam_half(
    g: wp.float16, m: float, v: float, p: wp.float16, lr: float, beta1: float, beta2: float, t: float, eps: float
):
    gf = float(g)
    nm = beta1 * m + (1.0 - beta1) * gf
    nv = beta2 * v + (1.0 - beta2) * gf * gf
    mhat = nm / (1.0 - wp.pow(beta1, t + 1.0))
    vhat = nv / (1.0 - wp.pow(beta2, t + 1.0))
    return nm, nv, p - wp.float16(lr * mhat / (wp.sqrt(vhat) + eps))


@wp.func
def _adam_vec3(
    g: wp.vec3, m: wp.vec3, v: wp.vec3, p: wp.vec3, lr: float, beta1: float, beta2: float, t: float, eps: float
):
    nm = beta1 * m + (1.0 - beta1) * g
    nv = beta2 * v + (1.0 - beta2) * wp.cw_mul(g, g)
    mhat = nm / (1.0 - wp.pow(beta1, t + 1.0))
    vhat = nv / (1.0 - wp.pow(beta2, t + 1.0))
    root = wp.vec3(wp.sqrt(vhat[0]) + eps, wp.sqrt(vhat[1]) + eps, wp.sqrt(vhat[2]) + eps)
    return nm, nv, p - lr * wp.cw_div(mhat, root)


_ADAM = {wp.float32: (_adam_float, wp.float32), wp.float16: (_adam_half, wp.float32), wp.vec3: (_adam_vec3, wp.vec3)}


class Adam:
    """Adam (bias-corrected first and second moments), as Warp's
    ``warp.optim.Adam``: parameters of ``float32``, ``float16`` (moments in
    float32) or ``vec3``."""

    def __init__(self, params=None, lr=0.001, betas=(0.9, 0.999), eps=1e-08):
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.params = None
        self.m = []
        self.v = []
        self.t = 0
        self.set_params(params)

    def set_params(self, params):
        self.params = params
        if params is None:
            return
        ms = list(self.m) + [None] * (len(params) - len(self.m))
        vs = list(self.v) + [None] * (len(params) - len(self.v))
        self.m, self.v = [], []
        for p, m, v in zip(params, ms, vs):
            kind = _ADAM.get(p.dtype)
            if kind is None:
                raise RuntimeError(f"Unsupported dtype for Warp Adam optimizer: {_type_name(p.dtype)}")
            self.m.append(_buffer(m, p, kind[1]))
            self.v.append(_buffer(v, p, kind[1]))

    def reset_internal_state(self):
        for a in self.m + self.v:
            a.zero_()
        self.t = 0

    def step(self, grad):
        if self.params is None:
            raise RuntimeError("Adam parameters must be set before calling step(), got None")
        if len(grad) != len(self.params):
            raise ValueError(f"Adam: parameter 'grad' has {len(grad)} arrays for {len(self.params)} parameters")
        for p, g, m, v in zip(self.params, grad, self.m, self.v):
            _check_grad("Adam", p, g)
            f = _ADAM[p.dtype][0]
            wp.map(
                f, g, m, v, p, float(self.lr), float(self.beta1), float(self.beta2), float(self.t), float(self.eps), out=[m, v, p]
            )
        self.t += 1


install(globals(), "warp.optim")
