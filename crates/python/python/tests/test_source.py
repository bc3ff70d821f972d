"""Kernel source capture (``codegen.function_source``): kernels and funcs
defined at module level, inside functions, and under several decorators
are found in their file's syntax tree, and run."""

import numpy as np

import weft.warp as wp
from weft.warp import codegen


def _passthrough(f):
    return f


@wp.func
def _twice(x: float):
    return 2.0 * x


@_passthrough
# a comment between decorators
@wp.kernel
def _top(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = _twice(float(i))


def _make(k):
    @wp.kernel
    def inner(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = float(i) + float(k)

    return inner


def test_module_level_kernel_under_two_decorators_runs():
    a = wp.zeros(5, dtype=float, device="cpu")
    wp.launch(_top, dim=5, inputs=[a], device="cpu")
    assert np.array_equal(a.numpy(), 2.0 * np.arange(5, dtype=np.float32))


def test_kernels_made_in_a_function_capture_their_closure():
    for k in (3, 7):
        a = wp.zeros(4, dtype=float, device="cpu")
        wp.launch(_make(k), dim=4, inputs=[a], device="cpu")
        assert np.array_equal(a.numpy(), np.arange(4, dtype=np.float32) + k)


def test_source_is_the_def_without_its_decorators_at_its_lines():
    src, first, file = codegen.function_source(_top.func)
    assert file.endswith("test_source.py")
    lines = src.splitlines()
    # The decorator lines are kept blank so line numbers stay the file's.
    assert lines[:3] == ["", "", ""]
    assert lines[3].startswith("def _top(")
    assert first == _top.func.__code__.co_firstlineno
