"""The `weft bench` workloads in Numba: `@njit(parallel=True)` with
`prange` over the items, every core, float32 throughout (constants are
`np.float32`, so nothing is promoted to float64)."""

import os
import sys

import numba
import numpy as np
from numba import njit, prange

import workloads as wl

numba.set_num_threads(os.cpu_count())
ONE, ZERO, HALF = np.float32(1.0), np.float32(0.0), np.float32(-0.5)


@njit(parallel=True)
def saxpy(a, x, y):
    for i in prange(x.shape[0]):
        y[i] = a * x[i] + y[i]


@njit(parallel=True)
def scale(a, x, y):
    for i in prange(x.shape[0]):
        y[i] = a * x[i]


@njit(parallel=True)
def nbody(pos, vel, mass, npos, nvel, dt, grav, eps2):
    n = pos.shape[0]
    for i in prange(n):
        px, py, pz = pos[i, 0], pos[i, 1], pos[i, 2]
        ax = ay = az = ZERO
        for j in range(n):
            dx, dy, dz = pos[j, 0] - px, pos[j, 1] - py, pos[j, 2] - pz
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv_r = ONE / np.sqrt(r2)
            s = grav * mass[j] * inv_r * inv_r * inv_r
            ax += dx * s
            ay += dy * s
            az += dz * s
        vx, vy, vz = vel[i, 0] + ax * dt, vel[i, 1] + ay * dt, vel[i, 2] + az * dt
        nvel[i, 0], nvel[i, 1], nvel[i, 2] = vx, vy, vz
        npos[i, 0], npos[i, 1], npos[i, 2] = px + vx * dt, py + vy * dt, pz + vz * dt


@njit(parallel=True)
def atomic_sum(x):
    total = ZERO
    for i in prange(x.shape[0]):
        total += x[i]
    return total


@njit(parallel=True)
def particles(x, v, gravity, dt):
    for i in prange(x.shape[0]):
        vx, vy, vz = v[i, 0] + ZERO * dt, v[i, 1] - gravity * dt, v[i, 2] + ZERO * dt
        xx, xy, xz = x[i, 0] + vx * dt, x[i, 1] + vy * dt, x[i, 2] + vz * dt
        if xy < ZERO:
            xy = -xy
            vy = HALF * vy
        v[i, 0], v[i, 1], v[i, 2] = vx, vy, vz
        x[i, 0], x[i, 1], x[i, 2] = xx, xy, xz


def setup(kernel, d):
    if kernel == "saxpy":
        return (lambda: saxpy(wl.A, d["x"], d["y"])), lambda: [d["y"]]
    if kernel == "scale":
        return (lambda: scale(wl.A, d["x"], d["y"])), lambda: [d["y"]]
    if kernel == "nbody":
        npos, nvel = np.zeros_like(d["pos"]), np.zeros_like(d["vel"])
        run = lambda: nbody(d["pos"], d["vel"], d["mass"], npos, nvel, wl.DT, wl.GRAV, wl.EPS2)
        return run, lambda: [npos, nvel]
    if kernel == "atomic_sum":
        out = [ZERO]

        def run():
            out[0] = atomic_sum(d["x"])

        return run, lambda: [np.array([out[0]])]
    return (lambda: particles(d["x"], d["v"], wl.GRAVITY, wl.DT)), lambda: [d["x"], d["v"]]


if __name__ == "__main__":
    wl.bench(f"numba {numba.__version__}", setup, "--quick" in sys.argv)
