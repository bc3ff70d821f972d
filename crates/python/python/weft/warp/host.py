"""The host-side helpers of Warp's API that are not value builtins:
``matrix_from_cols``/``_rows`` and the mutating
``transform_set_translation``/``_rotation`` (they change their argument in
place). Every other builtin callable from Python goes through the compiler:
``_pyscope``."""

from __future__ import annotations

from . import types as _t


def transform_set_translation(t, p):
    """Sets the translation of transform ``t`` in place (Warp's mutating builtin)."""
    t.p = p


def transform_set_rotation(t, q):
    """Sets the rotation of transform ``t`` in place (Warp's mutating builtin)."""
    t.q = q


def _matrix_from(vecs, cols):
    if not vecs or not all(isinstance(v, _t._Composite) and len(v._shape_) == 1 for v in vecs):
        raise RuntimeError("matrix_from_cols/matrix_from_rows take vectors of one length")
    n = vecs[0]._length_
    st = vecs[0]._wp_scalar_type_
    shape = (n, len(vecs)) if cols else (len(vecs), n)
    m = _t.matrix(shape, st)
    rows = [[v._data[i] for v in vecs] for i in range(n)] if cols else [list(v._data) for v in vecs]
    return m(rows)


def matrix_from_cols(*cols):
    """The matrix whose columns are the vectors ``cols``."""
    return _matrix_from(cols, True)


def matrix_from_rows(*rows):
    """The matrix whose rows are the vectors ``rows``."""
    return _matrix_from(rows, False)
