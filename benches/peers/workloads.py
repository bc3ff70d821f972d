"""The workloads of `weft bench` for the peers (Taichi, Numba): sizes,
inputs (the same as Weft's), numpy checks and the timing loop.

Each peer module gives `setup(w, data)` returning `(run, result)`: `run()`
does one launch and waits for it; `result()` returns the outputs as numpy
arrays for `check`.
"""

import json
import statistics
import time

import numpy as np

DT = np.float32(1e-3)
GRAV = np.float32(1.0)
EPS2 = np.float32(0.0025)
GRAVITY = np.float32(9.81)
A = np.float32(0.5)


def sizes(quick):
    """(workload name, kernel, n) as `weft bench` names them."""
    sx, at = (1 << 16, 1 << 14) if quick else (1 << 24, 1 << 22)
    nb = [256] if quick else [4096, 16384]
    out = [(f"saxpy 2^{sx.bit_length() - 1}", "saxpy", sx),
           (f"scale 2^{sx.bit_length() - 1}", "scale", sx)]
    out += [(f"nbody {n}", "nbody", n) for n in nb]
    out.append((f"atomic sum 2^{at.bit_length() - 1}", "atomic_sum", at))
    out.append((f"particles 2^{at.bit_length() - 1} AoS", "particles", at))
    return out


def ramp(n):
    return ((np.arange(n) % 1000).astype(np.float32) * np.float32(1e-3)) - np.float32(0.5)


def bodies(n):
    """`weft_devtools::reference::bodies`: xorshift positions and velocities in
    the unit cube, masses 1/N."""
    s = 0x2545F491
    vals = np.empty(6 * n, dtype=np.float32)
    for k in range(6 * n):
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        vals[k] = np.float32(s >> 8) / np.float32(1 << 24) * np.float32(2.0) - np.float32(1.0)
    pos = vals[: 3 * n].reshape(n, 3).copy()
    vel = vals[3 * n :].reshape(n, 3).copy()
    return pos, vel, np.full(n, np.float32(1.0) / np.float32(n), dtype=np.float32)


def particles(n):
    """The bench's particles: above the ground, various velocities."""
    i = np.arange(n)[:, None]
    k = np.arange(3)[None, :]
    f = lambda k: ((i * 7 + k * 13) % 1000).astype(np.float32) * np.float32(1e-3)
    x = f(k)
    x[:, 1] += np.float32(0.01)
    v = f(k + 3) - np.float32(0.5)
    return x.astype(np.float32), v.astype(np.float32)


def inputs(kernel, n):
    if kernel == "saxpy":
        return {"x": ramp(n), "y": np.ones(n, np.float32)}
    if kernel == "scale":
        return {"x": ramp(n), "y": np.zeros(n, np.float32)}
    if kernel == "nbody":
        pos, vel, mass = bodies(n)
        return {"pos": pos, "vel": vel, "mass": mass}
    if kernel == "atomic_sum":
        return {"x": ramp(n)}
    x, v = particles(n)
    return {"x": x, "v": v}


def expected(kernel, d):
    """The outputs of one launch on fresh inputs, in numpy (float64 where
    the order of operations is the peer's business)."""
    if kernel == "saxpy":
        return [A * d["x"] + d["y"]]
    if kernel == "scale":
        return [A * d["x"]]
    if kernel == "nbody":
        pos = d["pos"].astype(np.float64)
        idx = np.linspace(0, len(pos) - 1, 64).astype(int)
        dd = pos[None, :, :] - pos[idx, None, :]
        r2 = (dd * dd).sum(-1) + EPS2
        s = GRAV * d["mass"][None, :] / r2**1.5
        acc = (dd * s[:, :, None]).sum(1)
        v = d["vel"][idx] + acc * DT
        return [(pos[idx] + v * DT, idx), (v, idx)]
    if kernel == "atomic_sum":
        return [np.array([d["x"].astype(np.float64).sum()])]
    v = d["v"] + np.array([0, -GRAVITY, 0], np.float32) * DT
    x = d["x"] + v * DT
    b = x[:, 1] < 0
    x[b, 1] = -x[b, 1]
    v[b, 1] = np.float32(-0.5) * v[b, 1]
    return [x, v]


def check(kernel, d, got):
    """None if the peer's outputs match numpy's, else what differs."""
    for k, (g, w) in enumerate(zip(got, expected(kernel, d))):
        if isinstance(w, tuple):
            w, idx = w
            g = np.asarray(g)[idx]
        if not np.allclose(g, w, rtol=1e-4, atol=1e-5):
            return f"output {k}: max |diff| {np.max(np.abs(np.asarray(g, np.float64) - w)):.3g}"
    return None


def bench(peer, setup, quick):
    """Times every workload with `setup(kernel, data)`; prints one JSON line
    per workload: peer, workload, ms (each launch), first (the first launch,
    JIT compile included), error (the numpy check)."""
    reps = 3 if quick else 7
    for wname, kernel, n in sizes(quick):
        d = inputs(kernel, n)
        run, result = setup(kernel, {k: v.copy() for k, v in d.items()})
        t = time.perf_counter()
        run()
        first = (time.perf_counter() - t) * 1e3
        error = check(kernel, d, result())
        r = min(reps, 5) if kernel == "nbody" and n > 8192 else reps
        ms = []
        for _ in range(r):
            t = time.perf_counter()
            run()
            ms.append((time.perf_counter() - t) * 1e3)
        print(json.dumps({"peer": peer, "workload": wname, "ms": ms,
                          "median_ms": statistics.median(ms), "first_ms": first,
                          "error": error}), flush=True)
