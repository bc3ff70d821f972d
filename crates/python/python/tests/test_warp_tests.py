"""python -m weft.warp_tests: a Warp-style test file (written here, not
Warp's) runs with `import warp` bound to weft.warp; the counts lines."""

import subprocess
import sys
import textwrap

MINI = '''
import unittest

import numpy as np

import warp as wp
from warp.tests.unittest_utils import *


@wp.kernel
def inc(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_inc(test, device):
    a = wp.zeros(3, dtype=float, device=device)
    wp.launch(inc, dim=3, inputs=[a], device=device)
    assert_np_equal(a.numpy(), np.ones(3))


def test_wrong(test, device):
    test.assertEqual(1, 2)


def test_prints(test, device):
    print("unexpected")


class TestMini(unittest.TestCase):
    pass


add_function_test(TestMini, "test_inc", test_inc, devices=get_test_devices())
add_function_test(TestMini, "test_wrong", test_wrong, devices=get_test_devices())
add_function_test(TestMini, "test_prints", test_prints, devices=get_test_devices())
add_function_test(TestMini, "test_no_device", test_inc, devices=get_cuda_test_devices())
'''


def test_runs_warp_style_file(tmp_path):
    (tmp_path / "test_mini.py").write_text(textwrap.dedent(MINI))
    (tmp_path / "test_broken.py").write_text("import warp.no_such_module\n")
    r = subprocess.run(
        [sys.executable, "-m", "weft.warp_tests", "--tests-dir", str(tmp_path), "test_mini.py", "test_broken.py"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = r.stdout.strip().splitlines()
    # test_prints fails: unexpected output, as Warp's CheckOutput
    assert lines[0] == "test_mini.py: 1 passed, 2 failed, 1 skipped", r.stdout + r.stderr
    assert lines[1].startswith("test_broken.py: 0 passed, 1 failed, 0 skipped (import failed:")
    assert lines[-1] == "1 passed, 3 failed"
    assert r.returncode == 1
