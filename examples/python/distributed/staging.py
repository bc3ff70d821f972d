"""The staging cost of a launch on a device other than ``cpu``: arrays are
host memory in this Weft version, so a launch on ``vulkan`` (or ``cuda``)
copies every array argument to the device and back (docs/vulkan.md,
"Arrays"). This measures it: a kernel of ONE thread that touches one
element of an N-float array, launched on the device and on ``cpu``, for
several N. Its compute is nothing, so the time per launch above the
smallest N's is the copy of N floats there and back.

    python examples/python/distributed/staging.py [--device vulkan] [--reps 20]

Prints, per N: the median launch time on the device and on cpu, and the
staging rate (2 * N * 4 bytes over the time above the smallest N's). The
last line is ``RESULT {json}``.
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np

import weft.warp as wp


@wp.kernel
def touch(x: wp.array(dtype=float)):
    x[0] = x[0] + 1.0


def per_launch(device, n, reps):
    """The median seconds of a one-thread launch on an ``n``-float array."""
    a = wp.zeros(n, dtype=float, device=device)
    wp.launch(touch, dim=1, inputs=[a], device=device)  # compile, first buffers
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        wp.launch(touch, dim=1, inputs=[a], device=device)
        wp.synchronize_device(device)
        times.append(time.perf_counter() - t)
    assert a.numpy()[0] == reps + 1, "the launches did not run"
    return statistics.median(times), min(times), max(times)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--device", default="vulkan")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--sizes", default="1024,65536,1048576,4194304,16777216", help="N values, comma-separated")
    args = p.parse_args(argv)
    try:
        dev = wp.get_device(args.device)
        per_launch(dev, 1, 1)
    except Exception as e:  # noqa: BLE001 (the reason is printed)
        print(f"staging.py: device {args.device!r} cannot run here ({type(e).__name__}: {e}): nothing measured")
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    print(f"one-thread launches on an N-float array, median of {args.reps} [min-max], device {dev} vs cpu")
    print(f"{'N':>10} {'MB':>7} {dev.alias + ' ms':>24} {'cpu ms':>8} {'staging GB/s (there and back)':>30}")
    base = None
    for n in sizes:
        med, lo, hi = per_launch(dev, n, args.reps)
        cpu, _, _ = per_launch("cpu", n, args.reps)
        if base is None:
            base = med
        extra = med - base
        rate = 2 * n * 4 / extra / 1e9 if extra > 0 and n != sizes[0] else None
        rows.append({"n": n, "device_s": med, "device_min_s": lo, "device_max_s": hi, "cpu_s": cpu, "staging_GBps": rate})
        print(
            f"{n:>10} {n * 4 / 1e6:>7.2f} {med * 1e3:>9.3f} [{lo * 1e3:.3f}-{hi * 1e3:.3f}] {cpu * 1e3:>8.3f} "
            f"{(f'{rate:.2f}' if rate else '-'):>30}"
        )
    print("RESULT " + json.dumps({"device": str(dev), "reps": args.reps, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
