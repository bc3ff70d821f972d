"""Warp's builtins called from Python (weft/warp/_pyscope.py): every
builtin Warp exports exists, runs through the compiler on its argument
types, and returns what Warp returns (values as Warp's 1.19 gave them on
this machine, and Warp's result types)."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import weft.warp as wp
from weft.warp import _pyscope

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


def test_every_python_callable_builtin_exists():
    names = _pyscope.names()
    assert len(names) > 100
    for n in names:
        assert callable(getattr(wp, n)), n


def test_the_table_is_fresh_from_the_registry():
    script = os.path.join(ROOT, "scripts", "python-builtins.py")
    if not os.path.exists(os.path.join(ROOT, "conformance", "registry.json")):
        pytest.skip("conformance/registry.json is not in this checkout")
    r = subprocess.run([sys.executable, script, "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_float32_math_is_float32():
    # Warp 1.19 at Python scope: wp.sin(0.5) = 0.4794255495071411 (float32),
    # not math.sin's float64 0.479425538604203.
    assert wp.sin(0.5) == 0.4794255495071411
    assert wp.sqrt(2.0) == 1.4142135381698608
    assert wp.exp(1.0) == 2.7182817459106445
    assert type(wp.sin(0.5)) is float
    assert wp.sin(wp.float64(0.5)) == wp.float64(math.sin(0.5))
    assert type(wp.sin(wp.float64(0.5))) is wp.float64


def test_integer_and_bool_results():
    assert wp.abs(-3) == 3 and type(wp.abs(-3)) is int
    assert wp.bit_count(7) == 3
    assert wp.clamp(5, 0, 3) == 3
    assert wp.min(2.5, 1.0) == 1.0
    assert type(wp.abs(wp.int64(-5))) is wp.int64 and wp.abs(wp.int64(-5)).value == 5
    assert wp.isnan(1.0) is False


def test_vectors_quaternions_transforms():
    assert wp.normalize(wp.vec3(1.0, 2.0, 2.0)) == wp.vec3(
        np.float32(1) / np.float32(3), np.float32(2) / np.float32(3), np.float32(2) / np.float32(3)
    )
    assert wp.cross(wp.vec3(1.0, 0.0, 0.0), wp.vec3(0.0, 1.0, 0.0)) == wp.vec3(0.0, 0.0, 1.0)
    assert wp.dot(wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0)) == 32.0
    assert wp.quat_rotate(wp.quat_identity(), wp.vec3(1.0, 2.0, 3.0)) == wp.vec3(1.0, 2.0, 3.0)
    t = wp.transform(wp.vec3(1.0, 0.0, 0.0), wp.quat_identity())
    assert wp.transform_point(t, wp.vec3(1.0, 1.0, 1.0)) == wp.vec3(2.0, 1.0, 1.0)
    assert type(wp.transform_identity(dtype=wp.float64)) is wp.transformd
    assert wp.determinant(wp.mat22(1.0, 2.0, 3.0, 4.0)) == -2.0
    assert wp.mul(wp.mat22(1.0, 2.0, 3.0, 4.0), wp.vec2(1.0, 1.0)) == wp.vec2(3.0, 7.0)


def test_random_numbers_are_warp_s():
    s = wp.rand_init(42)
    assert type(s) is wp.uint32 and s.value == 1223963391
    assert wp.randf(s) == 0.6485052108764648


def test_tuples_come_back_as_tuples():
    u, sigma, v = wp.svd3(wp.mat33(1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0))
    assert sorted(round(x, 5) for x in sigma) == [1.0, 2.0, 3.0]


def test_arguments_no_overload_takes_raise_warp_s_error():
    with pytest.raises(RuntimeError, match="Couldn't find a function 'dot' compatible with the arguments 'vec3f, vec2f'"):
        wp.dot(wp.vec3(1.0, 2.0, 3.0), wp.vec2(1.0, 2.0))
    with pytest.raises(RuntimeError, match="Couldn't find a function 'sin' compatible with the arguments 'str'"):
        wp.sin("a")
