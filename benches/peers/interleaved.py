"""Weft (`import weft.warp as wp`, device `cpu`) and Numba on one memory-bound
workload in ONE process, their launches interleaved: a burst of Weft
launches, then a burst of Numba launches over the same sizes, round after
round. The machine's memory bandwidth moves by up to 2x within minutes here
(benches/README.md), so two runs minutes apart compare the memory more than
the code; interleaved bursts see the same memory.

    PYTHONPATH=crates/python/python ~/.cache/weft/peers-venv/bin/python \
        benches/peers/interleaved.py --workload saxpy --rounds 30

Prints each side's median of its per-round medians, the spread (min and max
of the round medians), and in how many rounds each side was faster.
"""

import argparse
import os
import statistics
import time

import numba
import numpy as np

import weft.warp as wp
import numba_peer
import workloads as wl

KERNELS = {}


@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def scale(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", choices=["saxpy", "scale"], default="saxpy")
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--burst", type=int, default=5)
    args = ap.parse_args()
    numba.set_num_threads(os.cpu_count())
    n, kernel = args.n, args.workload
    d = wl.inputs(kernel, n)
    run_numba, _ = numba_peer.setup(kernel, {k: v.copy() for k, v in d.items()})
    k = {"saxpy": saxpy, "scale": scale}[kernel]
    x = wp.array(d["x"], dtype=float, device="cpu")
    y = wp.array(d["y"], dtype=float, device="cpu")
    a = float(wl.A)

    def run_weft():
        wp.launch(k, dim=n, inputs=[a, x, y], device="cpu")

    # Warm up: Numba's JIT, and Weft's move to the vector tier (after its
    # launches have run `tier_up`, 20 ms by default).
    for _ in range(20):
        run_weft()
        run_numba()
    print(f"{kernel} 2^{n.bit_length() - 1}: weft cpu ({k.tier('cpu') if hasattr(k, 'tier') else 'cpu'}) "
          f"vs Numba {numba.__version__} ({numba.get_num_threads()} threads), "
          f"{args.rounds} rounds of {args.burst} launches a side")

    def burst(f):
        ms = []
        for _ in range(args.burst):
            t = time.perf_counter()
            f()
            ms.append((time.perf_counter() - t) * 1e3)
        return statistics.median(ms)

    rw, rn = [], []
    for r in range(args.rounds):
        # Alternate which side goes first, so neither always follows the other.
        if r % 2 == 0:
            rw.append(burst(run_weft))
            rn.append(burst(run_numba))
        else:
            rn.append(burst(run_numba))
            rw.append(burst(run_weft))
    wins = sum(w <= m for w, m in zip(rw, rn))
    for name, v in (("weft", rw), ("numba", rn)):
        print(f"{name:6s} median {statistics.median(v):.3f} ms  (round medians {min(v):.3f} .. {max(v):.3f})")
    print(f"weft at or below numba in {wins} of {len(rw)} rounds; "
          f"median of the per-round ratios weft/numba {statistics.median(w / m for w, m in zip(rw, rn)):.3f}")


if __name__ == "__main__":
    main()
