"""The N-body example from Python: the kernels of ``examples/nbody.py``
(brute-force gravity, semi-implicit Euler) stepped from a host program that
runs unchanged on Weft or NVIDIA Warp (``USE_WARP=1``). Prints the relative
energy drift.

    python examples/python/nbody.py [N] [STEPS] [DEVICE]
"""

import importlib.util
import os
import sys
import time

import numpy as np

from _select import warp

wp = warp()

_spec = importlib.util.spec_from_file_location(
    "nbody_kernels", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nbody.py")
)
kernels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kernels)


def bodies(n, seed=42):
    """A rotating disc of ``n`` bodies (positions, velocities, masses)."""
    rng = np.random.default_rng(seed)
    r = rng.uniform(0.5, 2.0, n).astype(np.float32)
    a = rng.uniform(0.0, 2.0 * np.pi, n).astype(np.float32)
    pos = np.stack([r * np.cos(a), r * np.sin(a), rng.normal(0, 0.05, n).astype(np.float32)], axis=1)
    speed = np.sqrt(1.0 / r).astype(np.float32) * 0.5
    vel = np.stack([-speed * np.sin(a), speed * np.cos(a), np.zeros(n, np.float32)], axis=1)
    mass = np.full(n, 1.0 / n, dtype=np.float32)
    return pos.astype(np.float32), vel.astype(np.float32), mass


def energy(pos, vel, mass, n, grav, eps2, device):
    e = wp.zeros(n, dtype=float, device=device)
    wp.launch(kernels.body_energy, dim=n, inputs=[pos, vel, mass, n, grav, eps2, e], device=device)
    return float(np.sum(e.numpy(), dtype=np.float64))


def main(n=1024, steps=100, device="cpu"):
    n, steps = int(n), int(steps)
    grav, dt, eps2 = 1.0, 1e-3, 0.05 * 0.05
    p, v, m = bodies(n)
    pos = wp.array(p, dtype=wp.vec3, device=device)
    vel = wp.array(v, dtype=wp.vec3, device=device)
    mass = wp.array(m, dtype=float, device=device)
    new_pos = wp.zeros(n, dtype=wp.vec3, device=device)
    new_vel = wp.zeros(n, dtype=wp.vec3, device=device)
    e0 = energy(pos, vel, mass, n, grav, eps2, device)
    t0 = time.perf_counter()
    for _ in range(steps):
        wp.launch(
            kernels.nbody_step,
            dim=n,
            inputs=[pos, vel, mass, new_pos, new_vel, n, dt, grav, eps2],
            device=device,
        )
        pos, new_pos = new_pos, pos
        vel, new_vel = new_vel, vel
    wp.synchronize()
    t = time.perf_counter() - t0
    e1 = energy(pos, vel, mass, n, grav, eps2, device)
    drift = abs(e1 - e0) / abs(e0)
    print(f"{wp.__name__} {device}: {n} bodies, {steps} steps in {t:.3f} s, relative energy drift {drift:.2e}")
    tier = getattr(kernels.nbody_step, "tier", None)  # Weft's extension; Warp has none
    if tier is not None:
        print(f"nbody_step ran on: {tier(device)}")
    assert drift < 1e-3, drift


if __name__ == "__main__":
    main(*sys.argv[1:])
