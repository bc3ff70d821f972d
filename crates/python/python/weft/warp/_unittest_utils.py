"""What Warp's test files import from ``warp.tests.unittest_utils``,
written for Weft (``python -m weft.warp_tests`` installs it under that
name). The helpers register one test per device of ``get_test_devices``:
the one device ``weft.warp_tests --device`` selects."""

import contextlib
import ctypes
import ctypes.util  # noqa: F401
import functools
import gc  # noqa: F401
import importlib.util
import io
import os
import re
import subprocess  # noqa: F401
import sys
import tempfile  # noqa: F401
import time  # noqa: F401
import unittest

# Warp's test files use the modules this one imports through their
# `from warp.tests.unittest_utils import *` (ctypes, gc, time, ...).

import numpy as np

import warp as wp

test_mode = "unique_or_2x"
coverage_enabled = False
_selected = os.environ.get("WEFT_WARP_TESTS_DEVICE", "cpu")


def get_cpu_test_devices():
    d = wp.get_device(_selected)
    return [d] if d.is_cpu else []


def get_test_devices(mode=None):
    return [wp.get_device(_selected)]


def get_selected_cuda_test_devices(mode=None):
    return []


def get_cuda_test_devices(mode=None):
    return []


get_cuda_test_devices_with_mempool = get_selected_cuda_test_devices_with_mempool = get_cuda_test_devices
get_test_devices_with_graph_capture_allocation = get_test_devices
# Every Weft device can load modules while a graph is captured (there is
# no CUDA driver to be too old).
get_test_devices_with_cuda_graph_module_load = get_test_devices
get_test_devices_with_graph_capture_allocation_and_cuda_graph_module_load = get_test_devices


def is_cuda_graph_module_load_supported(device):
    return True


# USD (the `pxr` package) is what Warp's USD tests need.
USD_AVAILABLE = importlib.util.find_spec("pxr") is not None


def get_cuda_device_pair_with_peer_access_support(devices=None):
    return None


get_cuda_device_pair_with_mempool_access_support = get_cuda_device_pair_with_peer_access_support


class StreamCapture:
    def __init__(self, stream_name):
        self.stream_name = stream_name
        self.saved = None
        self.buf = None

    def begin(self):
        self.saved = getattr(sys, self.stream_name)
        self.buf = io.StringIO()
        setattr(sys, self.stream_name, self.buf)

    def end(self):
        setattr(sys, self.stream_name, self.saved)
        return self.buf.getvalue()


class StdOutCapture(StreamCapture):
    def __init__(self):
        super().__init__("stdout")


class StdErrCapture(StreamCapture):
    def __init__(self):
        super().__init__("stderr")


class CheckOutput:
    def __init__(self, test):
        self.test = test

    def __enter__(self):
        self.capture = StdOutCapture()
        self.capture.begin()

    def __exit__(self, exc_type, exc_value, tb):
        s = self.capture.end()
        if exc_type is None and s.strip() and self.test is not None:
            self.test.fail(f"Unexpected output:\n'{s.rstrip()}'")


def assert_array_equal(result, expect):
    np.testing.assert_equal(result.numpy(), expect.numpy())


def assert_np_equal(result, expect, tol=0.0):
    if tol != 0.0:
        np.testing.assert_allclose(np.asarray(result).flatten(), np.asarray(expect).flatten(), atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(result, expect)


def sanitize_identifier(s):
    s = str(s)
    return s if s.isidentifier() else re.sub(r"\W|^(?=\d)", "_", s)


def create_test_func(func, device, check_output, device_check=None, **kwargs):
    @functools.wraps(func)
    def test_func(self):
        if device_check is not None:
            device_check(self, device)
        if check_output:
            with CheckOutput(self):
                func(self, device, **kwargs)
        else:
            func(self, device, **kwargs)

    return test_func


def skip_test_func(self):
    self.skipTest("No suitable devices to run the test.")


def add_function_test(cls, name, func, devices=None, check_output=True, device_check=None, **kwargs):
    if devices is None:
        setattr(cls, name, create_test_func(func, None, check_output, device_check, **kwargs))
    elif isinstance(devices, list):
        if not devices:
            setattr(cls, name, skip_test_func)
        for d in devices:
            setattr(
                cls, name + "_" + sanitize_identifier(d), create_test_func(func, d, check_output, device_check, **kwargs)
            )
    else:
        setattr(
            cls, name + "_" + sanitize_identifier(devices), create_test_func(func, devices, check_output, device_check, **kwargs)
        )


def add_kernel_test(cls, kernel, dim, name=None, expect=None, inputs=None, devices=None, inputs_factory=None):
    def test_func(self, device):
        args = list(inputs_factory(device) if inputs_factory is not None else (inputs or []))
        if expect:
            result = wp.array(expect, dtype=int, device=device)
            output = wp.zeros_like(result)
            args.append(output)
        with CheckOutput(self):
            wp.launch(kernel, dim=dim, inputs=args, device=device)
        if expect:
            assert_array_equal(output, result)

    if devices is None:
        devices = get_test_devices()
    for d in devices:

        def wrapper(test, device=d):
            test_func(test, device)

        setattr(cls, (name or kernel.key) + "_" + sanitize_identifier(d), wrapper)


def add_function_test_register_kernel(cls, name, func, devices=None, **kwargs):
    func(None, None, **kwargs, register_kernels=True)
    add_function_test(cls, name, func, devices=devices, **kwargs)


def run_test_in_subprocess(*a, **k):
    raise unittest.SkipTest("subprocess tests are not run by weft.warp_tests")


def run_python_subprocess(*a, **k):
    raise unittest.SkipTest("subprocess tests are not run by weft.warp_tests")


@contextlib.contextmanager
def suppress_native_error_output():
    yield


def make_isolated_kernel(func, **kwargs):
    return wp.Kernel(func=func, key=func.__name__, **kwargs)


def synchronize_after_test(test, test_failed=False):
    wp.synchronize()


pxr = None
