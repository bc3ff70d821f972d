"""What a build has (weft.build_info), the code a kernel runs (tier), and
the cuda device in builds with and without the `llvm` feature."""

import os

import numpy as np
import pytest

import weft
import weft.warp as wp


@wp.kernel
def scale(a: wp.array(dtype=float), k: float):
    i = wp.tid()
    a[i] = a[i] * k


def test_build_info_lists_the_build():
    b = weft.build_info()
    assert b["version"] == weft.__version__
    assert {"cpu", "interp"} <= set(b["devices"])
    assert set(b["devices"]) == set(weft.device_names())
    llvm = "llvm" in b["features"]
    assert ("cuda" in b["devices"]) == llvm
    assert b["cpu_tiers"][0] == "Cranelift (scalar)"
    if llvm:
        assert b["vector_lanes"] in (4, 8, 16)
        assert b["cpu_tiers"][1] == f"LLVM vector tier ({b['vector_lanes']} lanes)"
    else:
        assert b["vector_lanes"] is None and len(b["cpu_tiers"]) == 1


def test_the_tests_run_the_build_the_package_script_makes():
    # scripts/python-test.sh builds with `llvm` wherever LLVM 19 is (as
    # `pip install ./crates/python` does); CI has it.
    if os.environ.get("WEFT_EXPECT_LLVM") == "1":
        assert "llvm" in weft.build_info()["features"]


def run(device):
    a = wp.array(np.ones(64, dtype=np.float32), device=device)
    wp.launch(scale, dim=64, inputs=[a, 2.0], device=device)
    np.testing.assert_array_equal(a.numpy(), np.full(64, 2.0, dtype=np.float32))
    return scale.tier(device)


def test_kernel_tier_on_each_host_device():
    assert scale.tier("cpu") is None  # not loaded there yet
    assert run("cpu") in weft.build_info()["cpu_tiers"]
    assert run("interp") == "interpreter"
    if "llvm-cpu" in weft.device_names():
        lanes = weft.build_info()["vector_lanes"]
        assert run("llvm-cpu") == f"LLVM vector tier ({lanes} lanes)"


def test_cuda_is_there_or_says_why():
    if "cuda" not in weft.device_names():
        with pytest.raises(RuntimeError) as e:
            wp.get_device("cuda")
        msg = str(e.value)
        assert "cuda" in msg and "`llvm`" in msg and "features:" in msg
        assert wp.get_cuda_device_count() == 0 and not wp.is_cuda_available()
        return
    n = wp.get_cuda_device_count()
    assert wp.is_cuda_available() == (n > 0)
    assert [str(d) for d in wp.get_cuda_devices()] == [f"cuda:{i}" for i in range(n)]
    if n == 0:
        with pytest.raises(RuntimeError, match="cuda:0"):
            wp.get_device("cuda:0")
        assert wp.get_preferred_device() == "cpu"
    else:
        d = wp.get_device("cuda:0")
        assert d.is_cuda and d.arch >= 70
        assert wp.get_preferred_device() == "cuda:0"
