"""``warp.autograd``: Jacobians of kernels and Python functions by
automatic differentiation (``jacobian``: Weft's adjoints through a
``wp.Tape``) and by central finite differences (``jacobian_fd``), and
gradient checks comparing the two (``gradcheck``, ``gradcheck_tape``), as
Warp's. A Jacobian is a 2-d array, one row per scalar component of an
output array and one column per scalar component of an input array,
keyed by ``(input index, output index)``; rows (columns) past
``max_outputs_per_var`` (``max_inputs_per_var``) are NaN. ``jacobian_plot``
needs matplotlib, which Weft does not drive (placeholder)."""

from __future__ import annotations

import sys

import numpy as np

from ._unsupported import install

_BACKWARD = "Kernel must have backward pass enabled to compute Jacobians"


def _wp():
    return sys.modules[__name__.rsplit(".", 1)[0]]


def _is_float_array(a):
    wp = _wp()
    if not isinstance(a, wp.array) or a._native is None:
        return False
    st = wp.types.scalar_type(a.dtype)
    return st in (wp.float16, wp.float32, wp.float64)


def _flat(a):
    """A float64 copy of ``a``'s scalar components, flattened."""
    return np.array(a.numpy(), dtype=np.float64, copy=True).reshape(-1)


def _flat_view(a):
    """``a``'s scalar components as a writable flat NumPy view."""
    return a.numpy().reshape(-1)


def _param_names(kernel):
    from .context import _param_annotations

    return list(_param_annotations(kernel.func))


class _Problem:
    """What a Jacobian is of: a kernel launch or a Python function, its
    input and output arrays, and how to run it forward (restoring the
    inputs first when asked)."""

    def __init__(self, function, dim, inputs, outputs, device, max_blocks, block_dim, restore_inputs):
        from .context import Kernel

        wp = _wp()
        self.function = function
        self.inputs = list(inputs or [])
        self.is_kernel = isinstance(function, Kernel)
        self.restore = restore_inputs
        self.saved = [(a, a.numpy().copy()) for a in self.inputs if isinstance(a, wp.array) and a._native is not None]
        if self.is_kernel:
            if dim is None:
                raise ValueError("parameter 'dim' is required to compute the Jacobian of a kernel")
            self.dim = dim
            self.device = device
            self.outputs = list(outputs or [])
            self.name = function.key
            names = _param_names(function)
            self.in_names = names[: len(self.inputs)]
            self.out_names = names[len(self.inputs) : len(self.inputs) + len(self.outputs)]
            self.saved_out = [(a, a.numpy().copy()) for a in self.outputs if isinstance(a, wp.array) and a._native is not None]
        else:
            self.name = getattr(function, "__name__", "function")
            self.in_names = [f"input_{i}" for i in range(len(self.inputs))]
            self.outputs = None
            self.saved_out = []

    def restore_inputs(self):
        for a, v in self.saved:
            a.numpy()[...] = v

    def _restore_outputs(self):
        for a, v in self.saved_out:
            a.numpy()[...] = v

    def forward(self, tape=None):
        """Runs once (recording on ``tape`` when given); the outputs."""
        wp = _wp()
        if self.restore:
            self.restore_inputs()
        if self.is_kernel:
            self._restore_outputs()
            if tape is not None:
                with tape:
                    wp.launch(self.function, dim=self.dim, inputs=self.inputs, outputs=self.outputs, device=self.device)
            else:
                wp.launch(self.function, dim=self.dim, inputs=self.inputs, outputs=self.outputs, device=self.device)
            return self.outputs
        if tape is not None:
            with tape:
                res = self.function(*self.inputs)
        else:
            res = self.function(*self.inputs)
        outs = list(res) if isinstance(res, (tuple, list)) else [res]
        if self.outputs is None:
            self.outputs = outs
            self.out_names = [f"output_{i}" for i in range(len(outs))]
        return outs

    def pairs(self, mask):
        """(input index, output index) pairs to compute (``mask``: names or
        indices)."""
        out = []
        for i, a in enumerate(self.inputs):
            if not _is_float_array(a):
                continue
            for o, b in enumerate(self.outputs):
                if not _is_float_array(b):
                    continue
                if mask is not None and not any(_matches(m, i, o, self.in_names, self.out_names) for m in mask):
                    continue
                out.append((i, o))
        return out


def _matches(m, i, o, in_names, out_names):
    mi, mo = m
    ok_i = mi == i if isinstance(mi, int) else (i < len(in_names) and in_names[i] == mi)
    ok_o = mo == o if isinstance(mo, int) else (o < len(out_names) and out_names[o] == mo)
    return ok_i and ok_o


def _check_backward(kernels):
    for k in kernels:
        if k is not None and hasattr(k, "_backward") and not k._backward():
            raise ValueError(_BACKWARD)


def _result(J, like):
    wp = _wp()
    st = wp.types.scalar_type(like.dtype)
    return wp.array(J.astype(np.dtype(st._np) if st is not wp.float16 else np.float32), dtype=st if st is not wp.float16 else wp.float32)


def _jacobian_ad(problem, mask, max_outputs_per_var):
    wp = _wp()
    if problem.is_kernel:
        _check_backward([problem.function])
    tape = wp.Tape()
    problem.forward(tape)
    _check_backward([entry[0] for entry in tape.launches if isinstance(entry, tuple)])
    out = {}
    for i, o in problem.pairs(mask):
        x, y = problem.inputs[i], problem.outputs[o]
        if x.grad is None or y.grad is None:
            continue
        rows, cols = y.size * _ncomp(y), x.size * _ncomp(x)
        J = np.full((rows, cols), np.nan)
        n = rows if max_outputs_per_var is None or max_outputs_per_var < 0 else min(rows, max_outputs_per_var)
        for r in range(n):
            tape.zero()
            for a in problem.inputs + problem.outputs:
                if _is_float_array(a) and a.grad is not None:
                    a.grad.zero_()
            _flat_view(y.grad)[r] = 1.0
            tape.backward()
            J[r] = _flat(x.grad)
        tape.zero()
        out[(i, o)] = _result(J, y)
    return out


def _ncomp(a):
    wp = _wp()
    shape = wp.types.dtype_shape(a.dtype)
    return int(np.prod(shape)) if shape else 1


def _jacobian_fd(problem, mask, max_inputs_per_var, eps):
    problem.forward()
    pairs = problem.pairs(mask)
    out = {}
    for i, o in pairs:
        x, y = problem.inputs[i], problem.outputs[o]
        rows, cols = y.size * _ncomp(y), x.size * _ncomp(x)
        J = np.full((rows, cols), np.nan)
        n = cols if max_inputs_per_var is None or max_inputs_per_var < 0 else min(cols, max_inputs_per_var)
        for c in range(n):
            vals = []
            for sign in (1.0, -1.0):
                # Each probe starts from the given inputs (restore_inputs), or
                # from what the previous runs left in them.
                if problem.restore:
                    problem.restore_inputs()
                xv = _flat_view(x)
                xv[c] = xv[c] + sign * eps
                restore, problem.restore = problem.restore, False
                try:
                    ys = problem.forward()
                finally:
                    problem.restore = restore
                vals.append(_flat(ys[o]))
                if not problem.restore:
                    xv = _flat_view(x)
                    xv[c] = xv[c] - sign * eps
            J[:, c] = (vals[0] - vals[1]) / (2.0 * eps)
        out[(i, o)] = _result(J, y)
    # Leave the inputs (and a kernel's outputs) as they were given.
    if problem.restore:
        problem.restore_inputs()
    problem._restore_outputs()
    return out


def jacobian(
    function,
    dim=None,
    inputs=None,
    outputs=None,
    input_output_mask=None,
    device=None,
    max_blocks=0,
    block_dim=256,
    max_outputs_per_var=-1,
    plot_jacobians=False,
    metadata=None,
    kernel_name=None,
    restore_inputs=True,
):
    """The Jacobians of ``function`` (a kernel launched over ``dim`` with
    ``inputs`` and ``outputs``, or a Python function of ``inputs``
    returning its output arrays) by automatic differentiation."""
    if plot_jacobians:
        jacobian_plot(None)
    p = _Problem(function, dim, inputs, outputs, device, max_blocks, block_dim, restore_inputs)
    try:
        return _jacobian_ad(p, input_output_mask, max_outputs_per_var)
    finally:
        if restore_inputs:
            p.restore_inputs()


def jacobian_fd(
    function,
    dim=None,
    inputs=None,
    outputs=None,
    input_output_mask=None,
    device=None,
    max_blocks=0,
    block_dim=256,
    max_inputs_per_var=-1,
    eps=1e-4,
    plot_jacobians=False,
    metadata=None,
    kernel_name=None,
    restore_inputs=True,
):
    """The Jacobians of ``function`` (as ``jacobian``) by central finite
    differences of step ``eps`` (forward runs only: kernels without an
    adjoint are fine)."""
    if plot_jacobians:
        jacobian_plot(None)
    p = _Problem(function, dim, inputs, outputs, device, max_blocks, block_dim, restore_inputs)
    try:
        return _jacobian_fd(p, input_output_mask, max_inputs_per_var, eps)
    finally:
        if restore_inputs:
            p.restore_inputs()


def gradcheck(
    function,
    dim=None,
    inputs=None,
    outputs=None,
    *,
    eps=1e-4,
    atol=1e-3,
    rtol=1e-2,
    raise_exception=True,
    input_output_mask=None,
    device=None,
    max_blocks=0,
    block_dim=256,
    max_inputs_per_var=-1,
    max_outputs_per_var=-1,
    plot_relative_error=False,
    plot_absolute_error=False,
    show_summary=True,
    restore_inputs=True,
):
    """Whether the Jacobians by automatic differentiation and by finite
    differences agree (within ``atol`` + ``rtol``, and finite); raises
    ``ValueError`` naming the pairs that do not when ``raise_exception``."""
    p = _Problem(function, dim, inputs, outputs, device, max_blocks, block_dim, restore_inputs)
    try:
        ad = _jacobian_ad(p, input_output_mask, max_outputs_per_var)
        if restore_inputs:
            p.restore_inputs()
        fd = _jacobian_fd(p, input_output_mask, max_inputs_per_var, eps)
    finally:
        if restore_inputs:
            p.restore_inputs()
    failures = []
    for key in sorted(set(ad) | set(fd)):
        a = ad.get(key)
        f = fd.get(key)
        if a is None or f is None:
            failures.append((key, "missing"))
            continue
        A, F = a.numpy().astype(np.float64), f.numpy().astype(np.float64)
        rows = A.shape[0] if max_outputs_per_var is None or max_outputs_per_var < 0 else min(A.shape[0], max_outputs_per_var)
        cols = A.shape[1] if max_inputs_per_var is None or max_inputs_per_var < 0 else min(A.shape[1], max_inputs_per_var)
        A, F = A[:rows, :cols], F[:rows, :cols]
        if not (np.all(np.isfinite(A)) and np.all(np.isfinite(F)) and np.allclose(A, F, atol=atol, rtol=rtol)):
            err = np.nanmax(np.abs(A - F)) if A.size else 0.0
            failures.append((key, f"max absolute error {err}"))
    name = p.name
    if show_summary:
        status = "passed" if not failures else f"FAILED for {len(failures)} input/output pair(s)"
        print(f"Gradient check of {name}: {status}")
    if failures and raise_exception:
        detail = "; ".join(f"(input {i}, output {o}): {why}" for (i, o), why in failures)
        raise ValueError(f"Gradient check failed for {name}: {detail}")
    return not failures


def gradcheck_tape(
    tape,
    *,
    eps=1e-4,
    atol=1e-3,
    rtol=1e-2,
    raise_exception=True,
    input_output_masks=None,
    blacklist_kernels=None,
    whitelist_kernels=None,
    max_inputs_per_var=-1,
    max_outputs_per_var=-1,
    plot_relative_error=False,
    plot_absolute_error=False,
    show_summary=True,
    reverse_launches=False,
    skip_to_launch_index=0,
):
    """``gradcheck`` of each kernel launch the tape recorded (its inputs
    and outputs as launched), but kernels without an adjoint; whether all
    passed."""
    launches = [e for e in tape.launches if isinstance(e, tuple) and len(e) == 4 and e[0] is not None]
    splits = getattr(tape, "_n_inputs", {})
    order = list(enumerate(launches))
    if reverse_launches:
        order.reverse()
    ok = True
    for idx, (kernel, device, dims, args) in order:
        if idx < skip_to_launch_index:
            continue
        if not kernel._backward():
            continue
        if whitelist_kernels and kernel.key not in whitelist_kernels:
            continue
        if blacklist_kernels and kernel.key in blacklist_kernels:
            continue
        n_in = splits.get(tape.launches.index((kernel, device, dims, args)), len(args))
        mask = (input_output_masks or {}).get(kernel.key) if isinstance(input_output_masks, dict) else None
        passed = gradcheck(
            kernel,
            dim=dims,
            inputs=args[:n_in],
            outputs=args[n_in:],
            eps=eps,
            atol=atol,
            rtol=rtol,
            raise_exception=raise_exception,
            input_output_mask=mask,
            device=device,
            max_inputs_per_var=max_inputs_per_var,
            max_outputs_per_var=max_outputs_per_var,
            show_summary=show_summary,
        )
        ok = ok and passed
    return ok


def jacobian_plot(*args, **kwargs):
    """Plots Jacobians with matplotlib: not driven by Weft."""
    from ._unsupported import NotSupportedError

    raise NotSupportedError("wp.autograd.jacobian_plot", "plots need matplotlib, which Weft does not drive")


install(globals(), "warp.autograd")
