"""The `weft bench` workloads in Taichi, on the CPU with every core
(`ti.init(arch=ti.cpu)`, Taichi's default options otherwise: `fast_math`
on). `--ieee` turns `fast_math` off (IEEE `sqrt` and division, as Weft)."""

import os
import sys

import numpy as np
import taichi as ti

import workloads as wl

IEEE = "--ieee" in sys.argv
ti.init(arch=ti.cpu, cpu_max_num_threads=os.cpu_count(), default_fp=ti.f32,
        fast_math=not IEEE, log_level=ti.WARN)


def setup(kernel, d):
    if kernel == "saxpy":
        n = len(d["x"])
        x, y = ti.field(ti.f32, n), ti.field(ti.f32, n)
        x.from_numpy(d["x"])
        y.from_numpy(d["y"])

        @ti.kernel
        def saxpy(a: ti.f32):
            for i in x:
                y[i] = a * x[i] + y[i]

        return (lambda: (saxpy(wl.A), ti.sync())), lambda: [y.to_numpy()]
    if kernel == "scale":
        n = len(d["x"])
        x, y = ti.field(ti.f32, n), ti.field(ti.f32, n)
        x.from_numpy(d["x"])

        @ti.kernel
        def scale(a: ti.f32):
            for i in x:
                y[i] = a * x[i]

        return (lambda: (scale(wl.A), ti.sync())), lambda: [y.to_numpy()]
    if kernel == "nbody":
        n = len(d["mass"])
        pos, vel, npos, nvel = (ti.Vector.field(3, ti.f32, n) for _ in range(4))
        mass = ti.field(ti.f32, n)
        pos.from_numpy(d["pos"])
        vel.from_numpy(d["vel"])
        mass.from_numpy(d["mass"])

        @ti.kernel
        def nbody(n: ti.i32, dt: ti.f32, grav: ti.f32, eps2: ti.f32):
            for i in range(n):
                p = pos[i]
                acc = ti.Vector([0.0, 0.0, 0.0])
                for j in range(n):
                    dd = pos[j] - p
                    r2 = dd.dot(dd) + eps2
                    inv_r = 1.0 / ti.sqrt(r2)
                    acc += dd * (grav * mass[j] * inv_r * inv_r * inv_r)
                v = vel[i] + acc * dt
                nvel[i] = v
                npos[i] = p + v * dt

        run = lambda: (nbody(n, wl.DT, wl.GRAV, wl.EPS2), ti.sync())
        return run, lambda: [npos.to_numpy(), nvel.to_numpy()]
    if kernel == "atomic_sum":
        n = len(d["x"])
        x, total = ti.field(ti.f32, n), ti.field(ti.f32, ())
        x.from_numpy(d["x"])

        @ti.kernel
        def atomic_sum():
            for i in x:
                total[None] += x[i]

        def run():
            total[None] = 0.0
            atomic_sum()
            ti.sync()

        return run, lambda: [np.array([total[None]])]
    n = len(d["x"])
    x, v = ti.Vector.field(3, ti.f32, n), ti.Vector.field(3, ti.f32, n)
    x.from_numpy(d["x"])
    v.from_numpy(d["v"])

    @ti.kernel
    def particles(gravity: ti.f32, dt: ti.f32):
        for i in x:
            vi = v[i] + ti.Vector([0.0, -gravity, 0.0]) * dt
            xi = x[i] + vi * dt
            if xi[1] < 0.0:
                xi = ti.Vector([xi[0], -xi[1], xi[2]])
                vi = ti.Vector([vi[0], -0.5 * vi[1], vi[2]])
            v[i] = vi
            x[i] = xi

    run = lambda: (particles(wl.GRAVITY, wl.DT), ti.sync())
    return run, lambda: [x.to_numpy(), v.to_numpy()]


if __name__ == "__main__":
    name = "taichi " + ".".join(map(str, ti.__version__)) + (" (IEEE)" if IEEE else "")
    wl.bench(name, setup, "--quick" in sys.argv)
