#!/usr/bin/env python3
"""Weft's own gradient cases, with the gradients real Warp 1.19 computes.

Each case is a Warp kernel with inputs chosen to hit the points where the
derivative is not defined (abs at 0, min/max ties, clamp at its bounds, the
length of a zero vector, ...) and the constructs whose adjoint Warp defines
by rule (dynamic loops, early returns, break/continue, custom replays). The
case format is the shared corpus's (`../shared/conformance/README.md`,
"Gradient cases"); `weft conform conformance/grad --backend B` runs them.

Run with Warp 1.19 installed (`pip install warp-lang==1.19.0`):

    python conformance/gen/grad_cases.py            # regenerate grad/cases
    python conformance/gen/grad_cases.py --check    # regenerate in a temp dir, compare bit for bit

Every case is run twice from fresh arrays; the two runs must agree bit for
bit, and backward must leave every array's contents unchanged.
"""

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "grad" / "cases"

N = 16  # elements per case (launch size)

# dtype name in case.json -> (warp type name, element shape)
DTYPES = {
    "float32": ("float32", ()),
    "float64": ("float64", ()),
    "int32": ("int32", ()),
    "vec2": ("vec2", (2,)),
    "vec3": ("vec3", (3,)),
    "vec4": ("vec4", (4,)),
    "vec3d": ("vec3d", (3,)),
    "spatial_vector": ("spatial_vector", (6,)),
    "mat22": ("mat22", (2, 2)),
    "mat33": ("mat33", (3, 3)),
    "mat44": ("mat44", (4, 4)),
    "quat": ("quat", (4,)),
    "transform": ("transform", (7,)),
}

NP = {"float32": np.float32, "float64": np.float64, "int32": np.int32}


def npdtype(name):
    if name in NP:
        return NP[name]
    return np.float64 if name.endswith("d") else np.float32


class Case:
    """A kernel, its arrays (name -> (dtype, data)), scalars and seeds."""

    def __init__(self, name, source, kernel, arrays, outputs, scalars=(), dim=N, note="", rtol=1e-4, atol=1e-5,
                 rules=None):
        self.name = name
        self.source = "import warp as wp\n\n" + source.strip() + "\n"
        self.kernel = kernel
        self.arrays = arrays  # list of (name, dtype, np array)
        self.outputs = outputs  # arrays compared forward and seeded
        self.scalars = list(scalars)  # (name, dtype, value)
        self.dim = [dim] if isinstance(dim, int) else list(dim)
        self.note = note
        self.rtol = rtol
        self.atol = atol
        # array -> why its gradient is Warp's rule, not the derivative
        # (`grad_kind` "rule: ..."; `weft gradcheck` does not compare it).
        self.rules = rules or {}


def rng(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------
# The cases.

UNARY = [
    # (name, expression of v, inputs: edge points first)
    ("sin", "wp.sin({v})", [0.0, 1.0, -2.5, 3.14159]),
    ("cos", "wp.cos({v})", [0.0, 1.0, -2.5, 3.14159]),
    ("tan", "wp.tan({v})", [0.0, 0.5, -1.2, 1.4]),
    ("asin", "wp.asin({v})", [1.0, -1.0, 0.0, 0.5, -0.75]),
    ("acos", "wp.acos({v})", [1.0, -1.0, 0.0, 0.5, -0.75]),
    ("atan", "wp.atan({v})", [0.0, 1.0, -3.0, 10.0]),
    ("sinh", "wp.sinh({v})", [0.0, 1.0, -2.0]),
    ("cosh", "wp.cosh({v})", [0.0, 1.0, -2.0]),
    ("tanh", "wp.tanh({v})", [0.0, 1.0, -2.0, 5.0]),
    ("exp", "wp.exp({v})", [0.0, 1.0, -2.0]),
    ("log", "wp.log({v})", [1.0, 0.5, 3.0, 10.0]),
    ("log2", "wp.log2({v})", [1.0, 0.5, 3.0]),
    ("log10", "wp.log10({v})", [1.0, 0.5, 30.0]),
    ("sqrt", "wp.sqrt({v})", [1.0, 0.25, 4.0, 9.0]),
    ("cbrt", "wp.cbrt({v})", [1.0, -8.0, 0.5, 27.0]),
    ("erf", "wp.erf({v})", [0.0, 0.5, -1.5]),
    ("erfc", "wp.erfc({v})", [0.0, 0.5, -1.5]),
    ("erfinv", "wp.erfinv({v})", [0.0, 0.5, -0.9]),
    ("abs", "wp.abs({v})", [0.0, -0.0, 1.5, -2.0]),
    ("sign", "wp.sign({v})", [0.0, 1.5, -2.0]),
    ("floor", "wp.floor({v})", [0.0, 1.5, -2.5, 2.0]),
    ("ceil", "wp.ceil({v})", [0.0, 1.5, -2.5, 2.0]),
    ("round", "wp.round({v})", [0.5, 1.5, -2.5, 2.25]),
    ("rint", "wp.rint({v})", [0.5, 1.5, -2.5, 2.25]),
    ("trunc", "wp.trunc({v})", [0.5, 1.5, -2.5]),
    ("frac", "wp.frac({v})", [0.5, 1.25, -2.5]),
    ("degrees", "wp.degrees({v})", [0.0, 1.0, -2.0]),
    ("radians", "wp.radians({v})", [0.0, 90.0, -45.0]),
    ("step", "wp.step({v})", [0.0, 1.0, -1.0]),
    ("nonzero", "wp.nonzero({v})", [0.0, 1.0, -1.0]),
    ("neg", "-{v}", [0.0, 1.0, -1.0]),
    ("square", "{v} * {v}", [0.0, 1.0, -3.0]),
]


def unary_case():
    lines = "\n".join(f"    y[i, {k}] = " + e.format(v=f"x[i, {k}]") for k, (_, e, _) in enumerate(UNARY))
    src = f"""
@wp.kernel
def unary(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i = wp.tid()
{lines}
"""
    r = rng(1)

    def column(name, points):
        rest = N - len(points)
        if name in ("asin", "acos", "erfinv"):
            fill = r.uniform(-0.9, 0.9, rest)
        elif name in ("log", "log2", "log10", "sqrt"):
            fill = r.uniform(0.2, 2.0, rest)
        else:
            fill = r.uniform(0.2, 2.0, rest) * r.choice([-1.0, 1.0], rest)
        return np.concatenate([np.asarray(points, np.float64), fill])

    x = np.stack([column(name, p) for name, _, p in UNARY], axis=1).astype(np.float32)
    k = len(UNARY)
    note = "columns: " + ", ".join(n for n, _, _ in UNARY) + "; each column starts with its edge points"
    return Case("builtin_unary", src, "unary",
                [("x", "float32", x), ("y", "float32", np.zeros((N, k), np.float32))], ["y"], note=note,
                rules={"x": KINK})


BINARY = [
    ("add", "{a} + {b}"),
    ("sub", "{a} - {b}"),
    ("mul", "{a} * {b}"),
    ("div", "{a} / {b}"),
    ("min", "wp.min({a}, {b})"),
    ("max", "wp.max({a}, {b})"),
    ("pow", "wp.pow({a}, {b})"),
    ("atan2", "wp.atan2({a}, {b})"),
    ("mod", "wp.mod({a}, {b})"),
]


def binary_case():
    lines = "\n".join(f"    y[i, {k}] = " + e.format(a=f"a[i, {k}]", b=f"b[i, {k}]") for k, (_, e) in enumerate(BINARY))
    src = f"""
@wp.kernel
def binary(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    i = wp.tid()
{lines}
"""
    r = rng(2)
    k = len(BINARY)
    a = r.uniform(-2.0, 2.0, (N, k))
    b = r.uniform(-2.0, 2.0, (N, k))
    # Ties for min and max, zero divisors avoided, positive pow bases,
    # atan2 at the origin.
    for c in (4, 5):
        b[:4, c] = a[:4, c]
    a[:, 6] = np.abs(a[:, 6]) + 0.25
    b[:, 3] = np.where(np.abs(b[:, 3]) < 0.25, 0.5, b[:, 3])
    b[:, 8] = np.where(np.abs(b[:, 8]) < 0.25, 0.75, b[:, 8])
    a[0, 7] = 0.0
    b[0, 7] = 0.0
    note = "columns: " + ", ".join(n for n, _ in BINARY) + "; min/max tie in rows 0-3, atan2(0, 0) in row 0"
    f = np.float32
    kink = {"a": KINK, "b": KINK}
    return Case("builtin_binary", src, "binary",
                [("a", "float32", a.astype(f)), ("b", "float32", b.astype(f)), ("y", "float32", np.zeros((N, k), f))],
                ["y"], note=note, rules=kink)


def ternary_case():
    src = """
@wp.kernel
def ternary(x: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float), t: wp.array(dtype=float),
            y: wp.array2d(dtype=float)):
    i = wp.tid()
    y[i, 0] = wp.clamp(x[i], lo[i], hi[i])
    y[i, 1] = wp.lerp(lo[i], hi[i], t[i])
    y[i, 2] = wp.smoothstep(lo[i], hi[i], x[i])
    y[i, 3] = wp.where(x[i] > t[i], x[i] * lo[i], hi[i] * t[i])
    y[i, 4] = x[i] * 2.0 if x[i] < 0.0 else wp.sin(x[i])
    y[i, 5] = wp.min(wp.max(x[i], lo[i]), hi[i])
"""
    r = rng(3)
    lo = -np.abs(r.uniform(0.2, 1.0, N))
    hi = np.abs(r.uniform(0.2, 1.0, N))
    x = r.uniform(-1.5, 1.5, N)
    x[0], x[1], x[2], x[3] = lo[0], hi[1], lo[2] - 0.5, hi[3] + 0.5  # at and beyond the bounds
    x[4] = 0.0
    t = r.uniform(0.0, 1.0, N)
    f = np.float32
    return Case("builtin_clamp_lerp_where", src, "ternary",
                [("x", "float32", x.astype(f)), ("lo", "float32", lo.astype(f)), ("hi", "float32", hi.astype(f)),
                 ("t", "float32", t.astype(f)), ("y", "float32", np.zeros((N, 6), f))],
                ["y"], note="clamp with x at lo, at hi, below, above (rows 0-3); ternaries; smoothstep at its edges",
                rules={"x": KINK, "lo": KINK, "hi": KINK})


def vec_case():
    src = """
@wp.kernel
def vec_ops(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), s: wp.array(dtype=float),
            f: wp.array2d(dtype=float), v: wp.array2d(dtype=wp.vec3), m: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    f[i, 0] = wp.dot(x, y)
    f[i, 1] = wp.length(x)
    f[i, 2] = wp.length_sq(x)
    f[i, 3] = wp.min(x)
    f[i, 4] = wp.max(y)
    f[i, 5] = x[1] * s[i]
    v[i, 0] = wp.cross(x, y)
    v[i, 1] = wp.normalize(x)
    v[i, 2] = wp.abs(x)
    v[i, 3] = wp.min(x, y)
    v[i, 4] = wp.max(x, y)
    v[i, 5] = wp.cw_mul(x, y)
    v[i, 6] = wp.cw_div(x, y)
    v[i, 7] = x * s[i] - y / s[i]
    v[i, 8] = -x
    m[i] = wp.outer(x, y)
"""
    r = rng(4)
    a = r.uniform(-1.0, 1.0, (N, 3))
    b = r.uniform(-1.0, 1.0, (N, 3))
    a[0] = 0.0  # length and normalize of the zero vector
    a[1] = [0.5, 0.5, -0.25]
    b[1] = [0.5, -0.75, -0.25]  # ties for component min/max
    a[2] = [0.0, -1.0, 2.0]  # abs at 0
    b = np.where(np.abs(b) < 0.2, 0.6, b)
    b[1] = [0.5, -0.75, -0.25]
    s = r.uniform(0.5, 2.0, N)
    f = np.float32
    return Case("builtin_vec3", src, "vec_ops",
                [("a", "vec3", a.astype(f)), ("b", "vec3", b.astype(f)), ("s", "float32", s.astype(f)),
                 ("f", "float32", np.zeros((N, 6), f)), ("v", "vec3", np.zeros((N, 9, 3), f)),
                 ("m", "mat33", np.zeros((N, 3, 3), f))],
                ["f", "v", "m"], note="row 0: the zero vector (length, normalize); row 1: ties for min/max; row 2: abs at 0",
                rules={"a": KINK, "b": KINK})


def vec_sizes_case():
    src = """
@wp.kernel
def vec_sizes(a: wp.array(dtype=wp.vec2), b: wp.array(dtype=wp.vec4), f: wp.array2d(dtype=float),
              na: wp.array(dtype=wp.vec2), nb: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    f[i, 0] = wp.length(a[i])
    f[i, 1] = wp.length(b[i])
    f[i, 2] = wp.dot(b[i], b[i])
    na[i] = wp.normalize(a[i])
    nb[i] = wp.normalize(b[i]) * 2.0
"""
    r = rng(5)
    a = r.uniform(-1.0, 1.0, (N, 2))
    b = r.uniform(-1.0, 1.0, (N, 4))
    a[0] = 0.0
    b[0] = 0.0
    f = np.float32
    return Case("builtin_vec2_vec4", src, "vec_sizes",
                [("a", "vec2", a.astype(f)), ("b", "vec4", b.astype(f)), ("f", "float32", np.zeros((N, 3), f)),
                 ("na", "vec2", np.zeros((N, 2), f)), ("nb", "vec4", np.zeros((N, 4), f))],
                ["f", "na", "nb"], note="row 0: zero vectors", rules={"a": KINK, "b": KINK})


def mat_case():
    src = """
@wp.kernel
def mat_ops(a: wp.array(dtype=wp.mat33), b: wp.array(dtype=wp.mat33), x: wp.array(dtype=wp.vec3),
            c: wp.array2d(dtype=wp.mat33), f: wp.array2d(dtype=float), u: wp.array2d(dtype=wp.vec3)):
    i = wp.tid()
    m = a[i]
    n = b[i]
    c[i, 0] = wp.transpose(m)
    c[i, 1] = wp.inverse(m)
    c[i, 2] = m * n
    c[i, 3] = wp.skew(x[i])
    c[i, 4] = wp.diag(x[i])
    c[i, 5] = m * 2.0 + n
    f[i, 0] = wp.determinant(m)
    f[i, 1] = wp.trace(m)
    f[i, 2] = wp.ddot(m, n)
    u[i, 0] = m * x[i]
    u[i, 1] = x[i] * m
    u[i, 2] = wp.get_diag(n)
"""
    r = rng(6)
    a = r.uniform(-1.0, 1.0, (N, 3, 3)) + 2.0 * np.eye(3)
    b = r.uniform(-1.0, 1.0, (N, 3, 3))
    x = r.uniform(-1.0, 1.0, (N, 3))
    f = np.float32
    return Case("builtin_mat33", src, "mat_ops",
                [("a", "mat33", a.astype(f)), ("b", "mat33", b.astype(f)), ("x", "vec3", x.astype(f)),
                 ("c", "mat33", np.zeros((N, 6, 3, 3), f)), ("f", "float32", np.zeros((N, 3), f)),
                 ("u", "vec3", np.zeros((N, 3, 3), f))],
                ["c", "f", "u"])


def mat_sizes_case():
    src = """
@wp.kernel
def mat_sizes(a: wp.array(dtype=wp.mat22), b: wp.array(dtype=wp.mat44), f: wp.array2d(dtype=float),
              ia: wp.array(dtype=wp.mat22), ib: wp.array(dtype=wp.mat44)):
    i = wp.tid()
    f[i, 0] = wp.determinant(a[i])
    f[i, 1] = wp.determinant(b[i])
    ia[i] = wp.inverse(a[i])
    ib[i] = wp.inverse(b[i])
"""
    r = rng(7)
    a = r.uniform(-1.0, 1.0, (N, 2, 2)) + 2.0 * np.eye(2)
    b = r.uniform(-1.0, 1.0, (N, 4, 4)) + 3.0 * np.eye(4)
    f = np.float32
    return Case("builtin_mat22_mat44", src, "mat_sizes",
                [("a", "mat22", a.astype(f)), ("b", "mat44", b.astype(f)), ("f", "float32", np.zeros((N, 2), f)),
                 ("ia", "mat22", np.zeros((N, 2, 2), f)), ("ib", "mat44", np.zeros((N, 4, 4), f))],
                ["f", "ia", "ib"], rtol=1e-3, atol=1e-4)


def unit_quats(r, n):
    q = r.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def quat_case():
    src = """
@wp.kernel
def quat_ops(q: wp.array(dtype=wp.quat), p: wp.array(dtype=wp.quat), axis: wp.array(dtype=wp.vec3),
             ang: wp.array(dtype=float), x: wp.array(dtype=wp.vec3),
             oq: wp.array2d(dtype=wp.quat), ov: wp.array2d(dtype=wp.vec3), om: wp.array(dtype=wp.mat33),
             f: wp.array2d(dtype=float)):
    i = wp.tid()
    a = q[i]
    b = p[i]
    oq[i, 0] = a * b
    oq[i, 1] = wp.quat_inverse(a)
    oq[i, 2] = wp.quat_from_axis_angle(wp.normalize(axis[i]), ang[i])
    oq[i, 3] = wp.quat_slerp(a, b, 0.3)
    oq[i, 4] = wp.normalize(a * 2.0)
    oq[i, 5] = wp.quat_from_matrix(wp.quat_to_matrix(b))
    oq[i, 6] = wp.quat_rpy(ang[i], 0.5 * ang[i], -ang[i])
    ov[i, 0] = wp.quat_rotate(a, x[i])
    ov[i, 1] = wp.quat_rotate_inv(b, x[i])
    om[i] = wp.quat_to_matrix(a)
    f[i, 0] = wp.length(a)
    f[i, 1] = wp.dot(a, b)
"""
    r = rng(8)
    q = unit_quats(r, N)
    p = unit_quats(r, N)
    axis = r.uniform(-1.0, 1.0, (N, 3))
    ang = r.uniform(-2.0, 2.0, N)
    x = r.uniform(-1.0, 1.0, (N, 3))
    f = np.float32
    return Case("builtin_quat", src, "quat_ops",
                [("q", "quat", q.astype(f)), ("p", "quat", p.astype(f)), ("axis", "vec3", axis.astype(f)),
                 ("ang", "float32", ang.astype(f)), ("x", "vec3", x.astype(f)),
                 ("oq", "quat", np.zeros((N, 7, 4), f)), ("ov", "vec3", np.zeros((N, 2, 3), f)),
                 ("om", "mat33", np.zeros((N, 3, 3), f)), ("f", "float32", np.zeros((N, 2), f))],
                ["oq", "ov", "om", "f"], rtol=1e-3, atol=1e-4)


def transform_case():
    src = """
@wp.kernel
def xform_ops(t: wp.array(dtype=wp.transform), s: wp.array(dtype=wp.transform), x: wp.array(dtype=wp.vec3),
              ot: wp.array2d(dtype=wp.transform), ov: wp.array2d(dtype=wp.vec3), oq: wp.array(dtype=wp.quat),
              w: wp.array2d(dtype=wp.spatial_vector)):
    i = wp.tid()
    a = t[i]
    b = s[i]
    ot[i, 0] = wp.transform_multiply(a, b)
    ot[i, 1] = wp.transform_inverse(a)
    ot[i, 2] = wp.transform(wp.transform_get_translation(b) * 2.0, wp.transform_get_rotation(a))
    ov[i, 0] = wp.transform_point(a, x[i])
    ov[i, 1] = wp.transform_vector(b, x[i])
    ov[i, 2] = wp.transform_get_translation(a)
    oq[i] = wp.transform_get_rotation(b)
    v = wp.spatial_vector(x[i], wp.transform_get_translation(b))
    w[i, 0] = wp.transform_twist(a, v)
    w[i, 1] = wp.transform_wrench(a, v)
    w[i, 2] = wp.spatial_cross(v, w[i, 0])
"""
    r = rng(9)
    t = np.concatenate([r.uniform(-1.0, 1.0, (N, 3)), unit_quats(r, N)], axis=1)
    s = np.concatenate([r.uniform(-1.0, 1.0, (N, 3)), unit_quats(r, N)], axis=1)
    x = r.uniform(-1.0, 1.0, (N, 3))
    f = np.float32
    return Case("builtin_transform_spatial", src, "xform_ops",
                [("t", "transform", t.astype(f)), ("s", "transform", s.astype(f)), ("x", "vec3", x.astype(f)),
                 ("ot", "transform", np.zeros((N, 3, 7), f)), ("ov", "vec3", np.zeros((N, 3, 3), f)),
                 ("oq", "quat", np.zeros((N, 4), f)), ("w", "spatial_vector", np.zeros((N, 3, 6), f))],
                ["ot", "ov", "oq", "w"], rtol=1e-3, atol=1e-4,
                note="w[i, 2] reads w[i, 0] back: the read of an output array accumulates into its gradient")


def loop_cases():
    r = rng(10)
    x = r.uniform(0.5, 1.5, N).astype(np.float32)
    z = np.zeros(N, np.float32)
    cases = []
    cases.append(Case("loop_dynamic_product_rule", """
@wp.kernel
def prod(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    p = float(1.0)
    for j in range(n):
        p = p * x[j]
    y[i] = p * x[i]
""", "prod", [("x", "float32", x), ("y", "float32", z)], ["y"], scalars=[("n", "int32", 5)],
        note="Warp's dynamic-loop rule: the replay skips the loop (y's adjoint sees p = 1), each reverse iteration reads p after its own update; not the derivative",
        rules={"x": "dynamic loop: p = p * x[j] is differentiated with p updated in place (Warp's rule 2)"}))
    cases.append(Case("loop_while_shift_rule", """
@wp.kernel
def shift(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    k = int(0)
    while k < n:
        s += wp.sin(x[k]) * x[i]
        k += 1
    y[i] = s
""", "shift", [("x", "float32", x), ("y", "float32", z)], ["y"], scalars=[("n", "int32", 6)],
        note="Warp's while rule: each reverse iteration's adjoint runs after its replay advanced k (the gradient lands one entry later)",
        rules={"x": "dynamic loop (while): the adjoint of sin(x[k]) reads k after the replay advanced it (Warp's rule 3)"}))
    cases.append(Case("loop_while_negative_index", """
@wp.kernel
def shift_neg(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    k = int(-6)
    while k < n:
        s += wp.sin(x[k]) * x[i]
        k += 1
    y[i] = s
""", "shift_neg", [("x", "float32", x), ("y", "float32", z)], ["y"], scalars=[("n", "int32", -1)],
        note="negative indices in a while loop: Warp wraps the index inside the access, so the adjoint wraps k after the replay advanced it",
        rules={"x": "dynamic loop (while): the adjoint of sin(x[k]) reads k after the replay advanced it, wrapped (Warp's rule 3)"}))
    cases.append(Case("loop_constant_range_17", """
@wp.kernel
def seventeen(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.5)
    for j in range(17):
        s += x[(i + j) % 16] * float(j)
    y[i] = s * s
""", "seventeen", [("x", "float32", x), ("y", "float32", z)], ["y"],
        note="range(17) exceeds max_unroll: a dynamic loop, and s*s after it is differentiated at s's pre-loop value",
        rules={"x": "dynamic loop: y = s * s is differentiated at s's value before the loop (Warp's rule 1)"}))
    cases.append(Case("loop_break_continue", """
@wp.kernel
def brk(x: wp.array(dtype=float), t: float, y: wp.array(dtype=float), z: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(12):
        v = x[(i + j) % 16]
        if v > t:
            continue
        s += v * v
        if s > 2.0:
            break
    y[i] = s + x[i]
    c = float(0.0)
    k = int(0)
    while k < 8:
        k += 1
        w = x[(i * 3 + k) % 16]
        if w < t:
            continue
        c += wp.exp(w)
    z[i] = c
""", "brk", [("x", "float32", x), ("y", "float32", z.copy()), ("z", "float32", z.copy())], ["y", "z"],
        scalars=[("t", "float32", 1.1)],
        note="break and continue in dynamic loops: in the reverse sweep a replayed continue skips its iteration's adjoint, a break ends the loop",
        rules={"x": "dynamic loops replayed backwards: the break condition on s sees the reversed accumulation (Warp's rules 2 and 4)"}))
    cases.append(Case("loop_nested_dynamic", """
@wp.kernel
def nested(x: wp.array(dtype=float), n: int, m: int, y: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for a in range(n):
        row = float(0.0)
        for b in range(m):
            row += x[(a * m + b + i) % 16] * float(b + 1)
        acc += wp.sin(row)
    y[i] = acc
""", "nested", [("x", "float32", x), ("y", "float32", z)], ["y"], scalars=[("n", "int32", 3), ("m", "int32", 4)],
        note="a dynamic loop in a dynamic loop: the outer iteration's replay skips the inner loop, so sin(row) is differentiated at row = 0",
        rules={"x": "nested dynamic loops: the outer replay skips the inner loop, sin'(row) is taken at row's value before it (Warp's rule 1)"}))
    cases.append(Case("loop_negative_step", """
@wp.kernel
def down(x: wp.array(dtype=float), lo: int, y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(15, lo, -2):
        s += x[j] * x[i] * float(j)
    y[i] = s
""", "down", [("x", "float32", x), ("y", "float32", z)], ["y"], scalars=[("lo", "int32", 2)],
        note="a runtime range with a negative step, reversed"))
    return cases


def control_cases():
    r = rng(11)
    x = r.uniform(-1.0, 1.0, N).astype(np.float32)
    z = np.zeros(N, np.float32)
    return [
        Case("control_early_return", """
@wp.func
def piece(v: float):
    if v < -0.5:
        return v * v
    if v > 0.5:
        return wp.sin(v)
    return 2.0 * v

@wp.kernel
def early(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float), z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = x[i] * 3.0
    if i >= n:
        return
    y[i] = piece(x[i]) + x[(i + 1) % 16]
""", "early", [("x", "float32", x), ("y", "float32", z.copy()), ("z", "float32", z.copy())], ["y", "z"],
             scalars=[("n", "int32", 11)],
             note="a kernel that returns early (threads >= n) and a func with three returns"),
        Case("func_loop_and_replay", """
@wp.func
def poly(v: float, k: int):
    s = float(0.0)
    p = float(1.0)
    for j in range(k):
        s += p
        p = p * v
    return s

@wp.func
def scaled(v: float, c: float):
    return v * c

@wp.func_replay(scaled)
def replay_scaled(v: float, c: float):
    return v * c * 2.0

@wp.kernel
def fl(x: wp.array(dtype=float), k: int, y: wp.array(dtype=float)):
    i = wp.tid()
    q = poly(x[i], k)
    y[i] = q * q + scaled(x[i], 3.0) * x[i]
""", "fl", [("x", "float32", x), ("y", "float32", z)], ["y"], scalars=[("k", "int32", 4)],
             note="a func with a dynamic loop (its forward runs the loop, its adjoint follows Warp's rule) and a @wp.func_replay whose value the reverse sweep reads",
             rules={"x": "custom replay: the reverse sweep reads scaled() at twice its value (and the func's loop carries p nonlinearly)"}),
        Case("atomic_min_max_grad", """
@wp.kernel
def mm(x: wp.array(dtype=float), lo: wp.array(dtype=float), hi: wp.array(dtype=float), tot: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i] * 2.0
    wp.atomic_min(lo, i % 2, v)
    wp.atomic_max(hi, i % 2, v)
    wp.atomic_sub(tot, 0, v * v)
""", "mm", [("x", "float32", x), ("lo", "float32", np.full(2, 10.0, np.float32)),
            ("hi", "float32", np.full(2, -10.0, np.float32)), ("tot", "float32", np.zeros(1, np.float32))],
             ["lo", "hi", "tot"], note="atomic_min/max pass the adjoint to the value now in the array; atomic_sub negates it"),
        Case("atomic_cas_grad", """
@wp.kernel
def cas(x: wp.array(dtype=float), f: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i] * 3.0
    wp.atomic_cas(f, i, 1.5, v)
    y[i] = v * x[i]
""", "cas", [("x", "float32", x), ("f", "float32", np.where(np.arange(N) % 2 == 0, 1.5, 0.5).astype(np.float32)),
             ("y", "float32", z)],
             ["f", "y"], note="atomic_cas has no adjoint (Warp's adj_atomic_cas is empty): f's seed does not reach x",
             rules={"x": "atomic_cas passes no adjoint to its value"}),
    ]


def f64_case():
    src = """
@wp.kernel
def f64_ops(a: wp.array(dtype=wp.vec3d), s: wp.array(dtype=wp.float64), f: wp.array2d(dtype=wp.float64),
            v: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    x = a[i]
    f[i, 0] = wp.length(x)
    f[i, 1] = wp.exp(s[i]) * wp.float64(0.5)
    f[i, 2] = wp.atan2(x[1], x[0])
    f[i, 3] = wp.abs(s[i]) + wp.sqrt(wp.abs(s[i]) + wp.float64(1.0))
    v[i] = wp.normalize(x) * wp.cos(s[i])
"""
    r = rng(12)
    a = r.uniform(-1.0, 1.0, (N, 3))
    a[0] = 0.0
    s = r.uniform(-1.0, 1.0, N)
    s[1] = 0.0
    return Case("builtin_float64", src, "f64_ops",
                [("a", "vec3d", a), ("s", "float64", s), ("f", "float64", np.zeros((N, 4))),
                 ("v", "vec3d", np.zeros((N, 3)))], ["f", "v"], rtol=1e-9, atol=1e-12,
                note="float64; row 0: the zero vector; row 1: abs at 0", rules={"a": KINK, "s": KINK})


KINK = "non-differentiable points: Warp's choice there, not a finite difference"


def grad_call_case():
    src = """
@wp.func
def sq(x: float):
    return x * x * wp.sin(x)


@wp.func
def two(a: float, b: float):
    return wp.atan2(a, b) * a


@wp.func
def vfun(v: wp.vec3, s: float):
    return wp.dot(v, v) * s + wp.length(v)


@wp.func
def vout(v: wp.vec3):
    return v * wp.length(v)


@wp.func
def loopy(x: float, n: int):
    s = float(0.0)
    for k in range(n):
        s = s + wp.exp(x * float(k) * 0.1)
    return s


@wp.kernel
def gradcall(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), g: wp.array2d(dtype=float),
             gv: wp.array(dtype=wp.vec3), y: wp.array(dtype=float)):
    i = wp.tid()
    g[i, 0] = wp.grad(sq)(x[i])
    da, db = wp.grad(two)(x[i], 0.5)
    g[i, 1] = da
    g[i, 2] = db
    dv, ds = wp.grad(vfun)(v[i], x[i])
    gv[i] = dv + wp.grad(vout)(v[i])
    g[i, 3] = ds
    dx, dn = wp.grad(loopy)(x[i], 3)
    g[i, 4] = dx + float(dn)
    y[i] = sq(x[i]) + wp.grad(sq)(x[i]) * 2.0
"""
    r = rng(13)
    x = r.uniform(-1.5, 1.5, N).astype(np.float32)
    v = r.uniform(-1.0, 1.0, (N, 3)).astype(np.float32)
    const = "wp.grad(f)(..) is a constant to the backward sweep (Warp's rule), so the gradient is not its derivative"
    return Case("grad_call", src, "gradcall",
                [("x", "float32", x), ("v", "vec3", v), ("g", "float32", np.zeros((N, 5), np.float32)),
                 ("gv", "vec3", np.zeros((N, 3), np.float32)), ("y", "float32", np.zeros(N, np.float32))], ["g", "gv", "y"],
                note="wp.grad(f)(args) in a kernel: one and several params, vectors in and out, a loop",
                rules={"x": const, "v": const})


def all_cases():
    return [unary_case(), binary_case(), ternary_case(), vec_case(), vec_sizes_case(), mat_case(),
            mat_sizes_case(), quat_case(), transform_case(), f64_case(), *loop_cases(), *control_cases(),
            grad_call_case()]


# ---------------------------------------------------------------------------
# Running a case with real Warp.

def load_kernel(path, name):
    spec = importlib.util.spec_from_file_location(f"weft_grad_{path.parent.name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def is_float(dt):
    return dt != "int32"


def run(wp, case, kernel, seeds):
    arrays = {}
    for name, dt, data in case.arrays:
        wtype = getattr(wp, DTYPES[dt][0])
        arrays[name] = wp.array(data, dtype=wtype, device="cpu", requires_grad=is_float(dt))
    params = [p for p in kernel.adj.args]
    by_name = dict(arrays)
    for name, dt, value in case.scalars:
        by_name[name] = getattr(wp, dt)(value) if dt != "int32" else int(value)
    inputs = [by_name[p.label] for p in params]
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=case.dim, inputs=inputs, device="cpu")
    forward = {n: arrays[n].numpy().copy() for n, _, _ in case.arrays}
    grads = {}
    for n in case.outputs:
        wtype = getattr(wp, DTYPES[dict((a, d) for a, d, _ in case.arrays)[n]][0])
        grads[arrays[n]] = wp.array(seeds[n], dtype=wtype, device="cpu")
    tape.backward(grads=grads)
    after = {n: arrays[n].numpy().copy() for n, _, _ in case.arrays}
    for n in forward:
        if forward[n].tobytes() != after[n].tobytes():
            raise SystemExit(f"{case.name}: backward changed the contents of `{n}`")
    g = {n: arrays[n].grad.numpy().copy() for n, dt, _ in case.arrays if is_float(dt)}
    return forward, g


def write_case(wp, case, root):
    d = root / case.name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    (d / "kernel.py").write_text(case.source)
    kernel = load_kernel(d / "kernel.py", case.kernel)
    r = rng(sum(map(ord, case.name)))
    dts = {n: dt for n, dt, _ in case.arrays}
    seeds = {n: r.uniform(-1.0, 1.0, data.shape).astype(npdtype(dts[n])) for n, _, data in case.arrays if n in case.outputs}
    forward, grads = run(wp, case, kernel, seeds)
    forward2, grads2 = run(wp, case, kernel, seeds)
    for a, b in ((forward, forward2), (grads, grads2)):
        for n in a:
            if a[n].tobytes() != b[n].tobytes():
                raise SystemExit(f"{case.name}: `{n}` differs between two runs")
    args = []
    for p in kernel.adj.args:
        arr = next((a for a in case.arrays if a[0] == p.label), None)
        if arr is not None:
            name, dt, data = arr
            np.save(d / f"{name}.npy", data)
            shape = list(data.shape[: data.ndim - len(DTYPES[dt][1])])
            args.append({"name": name, "kind": "array", "dtype": dt, "ndim": len(shape), "shape": shape,
                         "file": f"{name}.npy"})
        else:
            name, dt, value = next(s for s in case.scalars if s[0] == p.label)
            args.append({"name": name, "kind": "scalar", "dtype": dt, "value": value})
    for n in case.outputs:
        np.save(d / f"expected_{n}.npy", forward[n])
        np.save(d / f"seed_{n}.npy", seeds[n])
    for n, g in grads.items():
        np.save(d / f"expected_grad_{n}.npy", g)
    floats = [n for n, dt, _ in case.arrays if is_float(dt)]
    kinds = {}
    for n in floats:
        if n in case.rules:
            kinds[n] = "rule: " + case.rules[n]
        elif n in case.outputs:
            kinds[n] = "residual: written by the launch; what is left of its seed after backward"
        else:
            kinds[n] = "derivative: d(sum of seed * final outputs)/d(" + n + ")"
    spec = {
        "name": case.name,
        "kernel": case.kernel,
        "dim": case.dim,
        "args": args,
        "check": case.outputs,
        "rtol": 1e-5,
        "atol": 1e-6,
        "adjoint": {
            "requires_grad": floats,
            "seed": {n: f"seed_{n}.npy" for n in case.outputs},
            "check": floats,
            "rtol": case.rtol,
            "atol": case.atol,
            "grad_kind": kinds,
        },
        "note": case.note,
    }
    (d / "case.json").write_text(json.dumps(spec, indent=1) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="regenerate into a temporary folder and compare")
    args = ap.parse_args()
    import warp as wp

    if wp.config.version != "1.19.0":
        raise SystemExit(f"needs Warp 1.19.0, found {wp.config.version}")
    wp.config.quiet = True
    wp.init()
    root = Path(tempfile.mkdtemp()) if args.check else OUT
    root.mkdir(parents=True, exist_ok=True)
    cases = all_cases()
    for c in cases:
        write_case(wp, c, root)
    index = {"format_version": 2, "warp_version": wp.config.version, "device": "cpu", "num_cases": len(cases),
             "cases": [{"name": c.name, "note": c.note} for c in cases]}
    (root.parent / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    if args.check:
        bad = []
        for f in sorted(p for p in root.rglob("*") if p.is_file()):
            rel = f.relative_to(root)
            mine = OUT / rel
            if not mine.exists() or mine.read_bytes() != f.read_bytes():
                bad.append(str(rel))
        if bad:
            raise SystemExit("differs from the committed cases: " + ", ".join(bad))
        print(f"{len(cases)} cases: identical to the committed ones")
    else:
        print(f"wrote {len(cases)} cases to {root}")


if __name__ == "__main__":
    sys.exit(main())
