"""``wp.Tape``: records launches; ``backward`` runs their adjoints
(``Device::launch_adjoint``) newest first."""

from __future__ import annotations

from .. import _native
from . import context
from .array import array

_tapes = []


def _Tape_current():
    return _tapes[-1] if _tapes else None


class Tape:
    """``wp.Tape``: records launches; ``backward`` runs their adjoints."""

    def __init__(self):
        self.launches = []
        self.loss = None
        self.gradients = {}
        # Scope markers (Warp's): (launch index, name, metadata) where a
        # scope begins, (launch index, None, None) where one ends.
        self.scopes = []
        self._open_scopes = 0
        self._n_inputs = {}

    def __enter__(self):
        if _tapes:
            raise RuntimeError("Warp: Error, entering a tape while one is already active")
        _tapes.append(self)
        return self

    def record_scope_begin(self, scope_name, metadata=None):
        """Begins a named scope of the launches recorded next."""
        self.scopes.append((len(self.launches), scope_name, metadata if metadata is not None else {}))
        self._open_scopes += 1

    def record_scope_end(self, remove_scope_if_empty=True):
        """Ends the innermost scope; one with no launch is dropped."""
        if self._open_scopes == 0:
            raise RuntimeError("Warp: Error, ended tape scope, but scope not present")
        self._open_scopes -= 1
        last = self.scopes[-1] if self.scopes else None
        if remove_scope_if_empty and last is not None and last[1] is not None and last[0] == len(self.launches):
            self.scopes.pop()
        else:
            self.scopes.append((len(self.launches), None, None))

    def __exit__(self, *a):
        _tapes.remove(self)
        return False

    def _record(self, kernel, device, dims, args, n_inputs=None):
        self.launches.append((kernel, device, dims, args))
        if n_inputs is not None:
            # How many of the launch's arguments were inputs (warp.autograd).
            self._n_inputs[len(self.launches) - 1] = n_inputs

    def record_func(self, backward, arrays):
        """Records ``backward`` (a callable) to run in the backward pass;
        ``arrays`` are the arrays it uses (``zero`` zeroes their gradients)."""
        self.launches.append((None, backward, None, list(arrays)))
        for a in arrays:
            if isinstance(a, array) and a.grad is not None:
                self.gradients[a] = a.grad

    def backward(self, loss=None, grads=None):
        if loss is not None:
            if loss.grad is None:
                raise RuntimeError("Tape.backward: parameter 'loss' has no gradient (requires_grad=False)")
            loss.grad.fill_(1)
        if grads:
            for a, g in grads.items():
                a.grad.assign(g)
        for kernel, device, dims, args in reversed(self.launches):
            if kernel is None:  # a recorded function (`record_func`)
                device()
                continue
            for a in args:
                if isinstance(a, array) and a.requires_grad:
                    self.gradients[a] = a.grad
            if not kernel._backward():
                # No adjoint was compiled: its inputs get no gradient from it.
                from ._src.logger import log_warning

                where = (
                    "is configured with the option 'enable_backward=False'"
                    if kernel._enable_backward is not None or kernel.options.get("enable_backward") is not None
                    else "is defined in a module with the option 'enable_backward=False' set"
                )
                log_warning(
                    f"Running the tape backwards may produce incorrect gradients because recorded kernel {kernel.key} {where}."
                )
                continue
            k, kinds = kernel._load(device)
            conv = context._convert(kernel, device, kinds, args)
            try:
                device._native.launch_adjoint(k, dims, conv)
            except _native.WeftError as e:
                raise RuntimeError(f"Error in the adjoint of kernel '{kernel.key}': {e}") from None

    def zero(self):
        """Zeroes the gradients the tape knows: those of its launches'
        arrays and those ``backward`` recorded (``gradients``)."""
        for _, _, _, args in self.launches:
            for a in args:
                if isinstance(a, array) and a._native is not None:
                    a.zero_grad()
        for g in self.gradients.values():
            if isinstance(g, array) and g._native is not None:
                g.zero_()

    def reset(self):
        """Clears the recorded launches and zeroes the gradients (Warp's)."""
        self.zero()
        self.launches = []
        self.scopes = []
        self._open_scopes = 0
        self._n_inputs = {}
