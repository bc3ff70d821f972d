"""The GPU workloads of scripts/gpu-check.sh in numba-cuda, Triton and CuPy:
the math of Weft's kernels (crates/devtools/src/gpu_bench.rs) and of workloads.cu, at the
same sizes, timed the same way (median of host-clock launch-to-idle times,
and of CUDA events around each launch, after one untimed launch), each
result checked. One JSON object a line on stdout; a library or workload
that fails prints an `error` line and the others go on.

usage: python3 benches/gpu/peers.py [--only numba,triton,cupy,cupy-ops]
           [--n N] [--steps S] [--saxpy-log2 K] [--transcendental-log2 K]
           [--atomic-log2 K]

Implementations (`impl`):
  numba-cuda  @cuda.jit kernels, one thread per element (float32 throughout)
  triton      @triton.jit blocks; precise math (libdevice sin/cos/exp,
              sqrt_rn, div_rn) as Weft's; N-body as BI x BJ tiles summed
              per row (autotuned over 4 tile shapes); atomics relaxed
  cupy        ElementwiseKernel (CUDA C through NVRTC, CuPy's default
              flags); N-body loops over raw arrays
  cupy-ops    plain CuPy array code: `y += a * x` (two kernels and a
              temporary), a cupy.fuse'd transcendental into a new array,
              cupy.sum for the atomic sum (a reduction, no atomics); no N-body
"""

import argparse
import json
import math
import os
import sys
import time
import traceback

import numpy as np

os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")

DT, GRAV, EPS2 = np.float32(1e-3), np.float32(1.0), np.float32(0.0025)
GPU = "?"


def emit(**kw):
    kw.setdefault("gpu", GPU)
    print(json.dumps(kw), flush=True)


def bodies(n):
    """Weft's bodies (crates/devtools/src/gpu_bench.rs): xorshift64 triples in [-1, 1)^3,
    those in the unit ball (f32 test) kept in order."""
    s, m64, vals, f = 0x2545F4914F6CDD1D, (1 << 64) - 1, [], np.float32
    pts = np.zeros((0, 3), np.float32)
    while len(pts) < n:
        for _ in range(3 * (n - len(pts)) * 2 + 30):
            s ^= (s << 13) & m64
            s ^= s >> 7
            s ^= (s << 17) & m64
            vals.append(s >> 40)
        k = len(vals) // 3 * 3
        t = (np.array(vals[:k], np.float32) / f(1 << 24) * f(2.0) - f(1.0)).reshape(-1, 3)
        vals = vals[k:]
        r2 = t[:, 0] * t[:, 0] + t[:, 1] * t[:, 1] + t[:, 2] * t[:, 2]
        pts = np.concatenate([pts, t[r2 <= f(1.0)]])
    pos = np.ascontiguousarray(pts[:n])
    vel = np.zeros_like(pos)
    vel[:, 0] = -pos[:, 1] * f(0.3)
    vel[:, 1] = pos[:, 0] * f(0.3)
    return pos, vel, np.full(n, f(1.0) / f(n), dtype=np.float32)


def ramp(n):
    """(i % 1000) * 0.001 - 0.5 in f32: one period, repeated."""
    return np.resize(np.arange(1000, dtype=np.float32) * np.float32(1e-3) - np.float32(0.5), n)


def saxpy_x(n):
    return np.resize(np.arange(1024, dtype=np.float32) * np.float32(0.5), n)


def nbody_err(pos, vel, mass, new_pos, new_vel):
    """64 bodies in f64; max error relative to the largest magnitude."""
    n = len(pos)
    idx = np.array([k * n // 64 for k in range(64)])
    p = pos.astype(np.float64)
    d = p[None, :, :] - p[idx][:, None, :]
    r2 = (d * d).sum(axis=2) + float(EPS2)
    s = float(GRAV) * mass.astype(np.float64)[None, :] / (r2 * np.sqrt(r2))
    acc = (d * s[:, :, None]).sum(axis=1)
    wv = vel[idx].astype(np.float64) + acc * float(DT)
    wp = p[idx] + wv * float(DT)
    err = max(np.abs(wv - new_vel[idx]).max(), np.abs(wp - new_pos[idx]).max())
    return err / max(np.abs(wv).max(), np.abs(wp).max(), 1e-30)


def trans_err(x, y):
    idx = np.concatenate([np.arange(0, len(x), 4099), np.arange(max(0, len(x) - 1000), len(x))])
    v = x[idx].astype(np.float64)
    want = np.sin(v) * np.cos(v) + np.exp(-v * v) + np.sqrt(np.abs(v))
    return float(np.abs(y[idx] - want).max())


class Lib:
    """What the timing needs of one library: sync and an event pair."""

    def __init__(self, sync, event, elapsed):
        self.sync, self.event, self.elapsed = sync, event, elapsed

    def timed(self, launch, reps):
        launch()
        self.sync()
        host, ev = [], []
        for _ in range(reps):
            e0, e1 = self.event(), self.event()
            t0 = time.perf_counter()
            e0.record()
            launch()
            e1.record()
            self.sync()
            host.append((time.perf_counter() - t0) * 1e3)
            ev.append(self.elapsed(e0, e1))
        return float(np.median(host)), float(np.median(ev))


def row(impl, workload, n, size, t, work, unit, ok, check, note=None):
    host, ev = t
    kw = dict(impl=impl, workload=workload, n=n, size=size, host_ms=host, event_ms=ev,
              rate=work / (host * 1e-3) / 1e9, unit=unit, check=("" if ok else "FAILED: ") + check)
    if note:
        kw["note"] = note
    emit(**kw)


def run_workloads(impl, lib, a, ops, data):
    """`ops` maps a workload to a function(data, lib, a) that returns
    (timing, ok, check[, note]); a missing workload is not run."""
    for w in ("nbody", "saxpy", "transcendental", "atomic_sum"):
        if w not in ops:
            continue
        n, size, work, unit = data.shape(w)
        try:
            r = ops[w](data, lib, a)
            row(impl, w, n, size, r[0], work, unit, r[1], r[2], *r[3:])
        except Exception as e:  # noqa: BLE001 (one failing workload must not stop the others)
            traceback.print_exc(file=sys.stderr)
            emit(impl=impl, workload=w, error=f"{type(e).__name__}: {e}"[:300])


class Data:
    """Host inputs, made once and shared by the libraries."""

    def __init__(self, a):
        self.a = a
        self.pos, self.vel, self.mass = bodies(a.n)
        self.sx = saxpy_x(1 << a.saxpy_log2)
        self.rx = ramp(1 << max(a.transcendental_log2, a.atomic_log2))

    def shape(self, w):
        a = self.a
        if w == "nbody":
            return a.n, f"N = {a.n}", 20.0 * a.n * a.n, "GFLOP/s"
        if w == "saxpy":
            return 1 << a.saxpy_log2, f"2^{a.saxpy_log2}", 12.0 * (1 << a.saxpy_log2), "GB/s"
        k = a.transcendental_log2 if w == "transcendental" else a.atomic_log2
        return 1 << k, f"2^{k}", float(1 << k), "Gelem/s"

    def trans_x(self):
        return self.rx[: 1 << self.a.transcendental_log2]

    def atomic_x(self):
        return self.rx[: 1 << self.a.atomic_log2]


def check_saxpy(y, x):
    want = np.float32(2.0) * x + np.float32(1.0)
    bad = np.nonzero(y != want)[0]
    return len(bad) == 0, "exact, every element" if len(bad) == 0 else f"y[{bad[0]}] = {y[bad[0]]}, expected {want[bad[0]]}"


def check_atomic(got, x):
    want = float(x.astype(np.float64).sum())
    rel = abs(float(got) - want) / max(abs(want), 1e-30)
    return rel <= 1e-2, f"vs f64 sum: rel err {rel:.1e}"


# ---- numba-cuda


def numba_peer(a, data):
    # Globals, so that the kernels see them as such (the CUDA simulator,
    # NUMBA_ENABLE_CUDASIM=1, swaps a kernel's global `cuda`).
    global cuda, float32
    # numba-cuda's cudadrv still calls np.row_stack, which NumPy 2.4 removed
    # (the GPU machine has NumPy 2.5): give it the function it names.
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda, float32

    lib = Lib(cuda.synchronize, cuda.event, lambda e0, e1: e0.elapsed_time(e1))
    B = 256

    @cuda.jit
    def nbody_step(pos, vel, mass, new_pos, new_vel, n, dt, grav, eps2):
        i = cuda.grid(1)
        if i >= n:
            return
        px, py, pz = pos[i, 0], pos[i, 1], pos[i, 2]
        ax = float32(0.0)
        ay = float32(0.0)
        az = float32(0.0)
        for j in range(n):
            dx = pos[j, 0] - px
            dy = pos[j, 1] - py
            dz = pos[j, 2] - pz
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv_r = float32(1.0) / math.sqrt(r2)
            s = grav * mass[j] * inv_r * inv_r * inv_r
            ax = ax + dx * s
            ay = ay + dy * s
            az = az + dz * s
        vx = vel[i, 0] + ax * dt
        vy = vel[i, 1] + ay * dt
        vz = vel[i, 2] + az * dt
        new_vel[i, 0] = vx
        new_vel[i, 1] = vy
        new_vel[i, 2] = vz
        new_pos[i, 0] = px + vx * dt
        new_pos[i, 1] = py + vy * dt
        new_pos[i, 2] = pz + vz * dt

    @cuda.jit
    def saxpy(x, y, a_, n):
        i = cuda.grid(1)
        if i < n:
            y[i] = a_ * x[i] + y[i]

    @cuda.jit
    def transcendental(x, y, n):
        i = cuda.grid(1)
        if i < n:
            v = x[i]
            y[i] = math.sin(v) * math.cos(v) + math.exp(-v * v) + math.sqrt(abs(v))

    @cuda.jit
    def atomic_sum(x, total, n):
        i = cuda.grid(1)
        if i < n:
            cuda.atomic.add(total, 0, x[i])

    def grid(n):
        return (n + B - 1) // B

    def nb(d, lib, a):
        n = len(d.pos)
        pos, vel, mass = (cuda.to_device(v) for v in (d.pos, d.vel, d.mass))
        npos, nvel = cuda.device_array_like(d.pos), cuda.device_array_like(d.vel)
        t = lib.timed(lambda: nbody_step[grid(n), B](pos, vel, mass, npos, nvel, np.int32(n), DT, GRAV, EPS2), a.steps)
        err = nbody_err(d.pos, d.vel, d.mass, npos.copy_to_host(), nvel.copy_to_host())
        return t, err < 1e-3, f"64 bodies vs f64: max rel err {err:.1e}"

    def sx(d, lib, a):
        n = len(d.sx)
        x, y = cuda.to_device(d.sx), cuda.to_device(np.ones(n, np.float32))
        t = lib.timed(lambda: saxpy[grid(n), B](x, y, np.float32(2.0), np.int32(n)), 20)
        y.copy_to_device(np.ones(n, np.float32))
        saxpy[grid(n), B](x, y, np.float32(2.0), np.int32(n))
        return (t, *check_saxpy(y.copy_to_host(), d.sx))

    def tr(d, lib, a):
        xs = d.trans_x()
        n = len(xs)
        x, y = cuda.to_device(xs), cuda.device_array(n, np.float32)
        t = lib.timed(lambda: transcendental[grid(n), B](x, y, np.int32(n)), 20)
        err = trans_err(xs, y.copy_to_host())
        return t, err < 1e-5, f"vs f64, every 4099th: max abs err {err:.1e}"

    def at(d, lib, a):
        xs = d.atomic_x()
        n = len(xs)
        x, total = cuda.to_device(xs), cuda.to_device(np.zeros(1, np.float32))
        t = lib.timed(lambda: atomic_sum[grid(n), B](x, total, np.int32(n)), 10)
        total.copy_to_device(np.zeros(1, np.float32))
        atomic_sum[grid(n), B](x, total, np.int32(n))
        return (t, *check_atomic(total.copy_to_host()[0], xs))

    run_workloads("numba-cuda", lib, a, {"nbody": nb, "saxpy": sx, "transcendental": tr, "atomic_sum": at}, data)


# ---- Triton


def triton_kernels():
    """The Triton kernels: nbody_step (autotuned), saxpy, transcendental,
    atomic_sum (no torch needed to compile them)."""
    # Globals: what the kernels' bodies name is looked up there.
    global tl, libdevice
    import triton
    import triton.language as tl

    try:
        from triton.language.extra import libdevice
    except ImportError:
        from triton.language.extra.cuda import libdevice

    @triton.autotune(
        configs=[
            triton.Config({"BI": 128, "BJ": 32}, num_warps=4),
            triton.Config({"BI": 128, "BJ": 64}, num_warps=4),
            triton.Config({"BI": 256, "BJ": 32}, num_warps=8),
            triton.Config({"BI": 64, "BJ": 64}, num_warps=4),
        ],
        key=["n"],
    )
    @triton.jit
    def nbody_step(pos, vel, mass, new_pos, new_vel, n, dt, grav, eps2, BI: tl.constexpr, BJ: tl.constexpr):
        i = tl.program_id(0) * BI + tl.arange(0, BI)
        mi = i < n
        px = tl.load(pos + 3 * i, mask=mi, other=0.0)
        py = tl.load(pos + 3 * i + 1, mask=mi, other=0.0)
        pz = tl.load(pos + 3 * i + 2, mask=mi, other=0.0)
        ax = tl.zeros([BI], dtype=tl.float32)
        ay = tl.zeros([BI], dtype=tl.float32)
        az = tl.zeros([BI], dtype=tl.float32)
        one = tl.full([BI, BJ], 1.0, tl.float32)
        for j0 in range(0, n, BJ):
            j = j0 + tl.arange(0, BJ)
            mj = j < n
            dx = tl.load(pos + 3 * j, mask=mj, other=0.0)[None, :] - px[:, None]
            dy = tl.load(pos + 3 * j + 1, mask=mj, other=0.0)[None, :] - py[:, None]
            dz = tl.load(pos + 3 * j + 2, mask=mj, other=0.0)[None, :] - pz[:, None]
            m = tl.load(mass + j, mask=mj, other=0.0)  # 0 beyond n: no force
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv_r = tl.div_rn(one, tl.sqrt_rn(r2))
            s = grav * m[None, :] * inv_r * inv_r * inv_r
            ax += tl.sum(dx * s, axis=1)
            ay += tl.sum(dy * s, axis=1)
            az += tl.sum(dz * s, axis=1)
        vx = tl.load(vel + 3 * i, mask=mi, other=0.0) + ax * dt
        vy = tl.load(vel + 3 * i + 1, mask=mi, other=0.0) + ay * dt
        vz = tl.load(vel + 3 * i + 2, mask=mi, other=0.0) + az * dt
        tl.store(new_vel + 3 * i, vx, mask=mi)
        tl.store(new_vel + 3 * i + 1, vy, mask=mi)
        tl.store(new_vel + 3 * i + 2, vz, mask=mi)
        tl.store(new_pos + 3 * i, px + vx * dt, mask=mi)
        tl.store(new_pos + 3 * i + 1, py + vy * dt, mask=mi)
        tl.store(new_pos + 3 * i + 2, pz + vz * dt, mask=mi)

    @triton.jit
    def saxpy(x, y, a_, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = o < n
        tl.store(y + o, a_ * tl.load(x + o, mask=m) + tl.load(y + o, mask=m), mask=m)

    @triton.jit
    def transcendental(x, y, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = o < n
        v = tl.load(x + o, mask=m)
        r = libdevice.sin(v) * libdevice.cos(v) + libdevice.exp(-v * v) + tl.sqrt_rn(tl.abs(v))
        tl.store(y + o, r, mask=m)

    @triton.jit
    def atomic_sum(x, total, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = o < n
        # One atomic a element into the one cell, as the others.
        tl.atomic_add(total + o * 0, tl.load(x + o, mask=m), mask=m, sem="relaxed")

    return nbody_step, saxpy, transcendental, atomic_sum


def triton_peer(a, data):
    import torch
    import triton

    nbody_step, saxpy, transcendental, atomic_sum = triton_kernels()

    def elapsed(e0, e1):
        return e0.elapsed_time(e1)

    lib = Lib(torch.cuda.synchronize, lambda: torch.cuda.Event(enable_timing=True), elapsed)
    BLOCK = 1024

    def grid(n):
        return (triton.cdiv(n, BLOCK),)

    def nb(d, lib, a):
        n = len(d.pos)
        pos, vel, mass = (torch.from_numpy(v).cuda() for v in (d.pos, d.vel, d.mass))
        npos, nvel = torch.empty_like(pos), torch.empty_like(vel)

        def go():
            nbody_step[lambda meta: (triton.cdiv(n, meta["BI"]),)](
                pos, vel, mass, npos, nvel, n, float(DT), float(GRAV), float(EPS2))

        go()  # autotunes (untimed)
        t = lib.timed(go, a.steps)
        err = nbody_err(d.pos, d.vel, d.mass, npos.cpu().numpy(), nvel.cpu().numpy())
        cfg = getattr(nbody_step, "best_config", None)
        return t, err < 1e-3, f"64 bodies vs f64: max rel err {err:.1e}", f"tile {cfg}" if cfg else None

    def sx(d, lib, a):
        n = len(d.sx)
        x, y = torch.from_numpy(d.sx).cuda(), torch.ones(n, dtype=torch.float32, device="cuda")
        t = lib.timed(lambda: saxpy[grid(n)](x, y, 2.0, n, BLOCK=BLOCK), 20)
        y.fill_(1.0)
        saxpy[grid(n)](x, y, 2.0, n, BLOCK=BLOCK)
        return (t, *check_saxpy(y.cpu().numpy(), d.sx))

    def tr(d, lib, a):
        xs = d.trans_x()
        n = len(xs)
        x = torch.from_numpy(xs).cuda()
        y = torch.empty_like(x)
        t = lib.timed(lambda: transcendental[grid(n)](x, y, n, BLOCK=BLOCK), 20)
        err = trans_err(xs, y.cpu().numpy())
        return t, err < 1e-5, f"vs f64, every 4099th: max abs err {err:.1e}"

    def at(d, lib, a):
        xs = d.atomic_x()
        n = len(xs)
        x, total = torch.from_numpy(xs).cuda(), torch.zeros(1, dtype=torch.float32, device="cuda")
        t = lib.timed(lambda: atomic_sum[grid(n)](x, total, n, BLOCK=BLOCK), 10)
        total.zero_()
        atomic_sum[grid(n)](x, total, n, BLOCK=BLOCK)
        return (t, *check_atomic(total.item(), xs))

    run_workloads("triton", lib, a, {"nbody": nb, "saxpy": sx, "transcendental": tr, "atomic_sum": at}, data)
    del torch


# ---- CuPy


NBODY_CUPY = """
float px = pos[3 * i], py = pos[3 * i + 1], pz = pos[3 * i + 2];
float ax = 0.0f, ay = 0.0f, az = 0.0f;
for (int j = 0; j < n; j++) {
    float dx = pos[3 * j] - px, dy = pos[3 * j + 1] - py, dz = pos[3 * j + 2] - pz;
    float r2 = dx * dx + dy * dy + dz * dz + eps2;
    float inv_r = 1.0f / sqrtf(r2);
    float s = grav * mass[j] * inv_r * inv_r * inv_r;
    ax = ax + dx * s; ay = ay + dy * s; az = az + dz * s;
}
float vx = vel[3 * i] + ax * dt, vy = vel[3 * i + 1] + ay * dt, vz = vel[3 * i + 2] + az * dt;
new_vel[3 * i] = vx; new_vel[3 * i + 1] = vy; new_vel[3 * i + 2] = vz;
new_pos[3 * i] = px + vx * dt; new_pos[3 * i + 1] = py + vy * dt; new_pos[3 * i + 2] = pz + vz * dt;
"""


def cupy_lib():
    import cupy as cp

    return cp, Lib(lambda: cp.cuda.get_current_stream().synchronize(), cp.cuda.Event, cp.cuda.get_elapsed_time)


def cupy_peer(a, data):
    cp, lib = cupy_lib()
    nbody_step = cp.ElementwiseKernel(
        "raw float32 pos, raw float32 vel, raw float32 mass, int32 n, float32 dt, float32 grav, float32 eps2",
        "raw float32 new_pos, raw float32 new_vel",
        NBODY_CUPY,
        "weft_peer_nbody",
    )
    saxpy = cp.ElementwiseKernel("float32 a, float32 x", "float32 y", "y = a * x + y", "weft_peer_saxpy")
    transcendental = cp.ElementwiseKernel(
        "float32 v", "float32 y", "y = sinf(v) * cosf(v) + expf(-v * v) + sqrtf(fabsf(v))", "weft_peer_trans")
    atomic_sum = cp.ElementwiseKernel("float32 x", "raw float32 total", "atomicAdd(&total[0], x)", "weft_peer_atomic")

    def nb(d, lib, a):
        n = len(d.pos)
        # Flat float arrays: raw indexing is linear.
        pos, vel, mass = (cp.asarray(v.reshape(-1)) for v in (d.pos, d.vel, d.mass))
        npos, nvel = cp.empty_like(pos), cp.empty_like(vel)
        t = lib.timed(lambda: nbody_step(pos, vel, mass, np.int32(n), DT, GRAV, EPS2, npos, nvel, size=n), a.steps)
        err = nbody_err(d.pos, d.vel, d.mass, cp.asnumpy(npos).reshape(n, 3), cp.asnumpy(nvel).reshape(n, 3))
        return t, err < 1e-3, f"64 bodies vs f64: max rel err {err:.1e}"

    def sx(d, lib, a):
        x, y = cp.asarray(d.sx), cp.ones(len(d.sx), cp.float32)
        t = lib.timed(lambda: saxpy(np.float32(2.0), x, y), 20)
        y.fill(1.0)
        saxpy(np.float32(2.0), x, y)
        return (t, *check_saxpy(cp.asnumpy(y), d.sx))

    def tr(d, lib, a):
        xs = d.trans_x()
        x = cp.asarray(xs)
        y = cp.empty_like(x)
        t = lib.timed(lambda: transcendental(x, y), 20)
        err = trans_err(xs, cp.asnumpy(y))
        return t, err < 1e-5, f"vs f64, every 4099th: max abs err {err:.1e}"

    def at(d, lib, a):
        xs = d.atomic_x()
        x, total = cp.asarray(xs), cp.zeros(1, cp.float32)
        t = lib.timed(lambda: atomic_sum(x, total), 10)
        total.fill(0)
        atomic_sum(x, total)
        return (t, *check_atomic(float(total.get()[0]), xs))

    run_workloads("cupy", lib, a, {"nbody": nb, "saxpy": sx, "transcendental": tr, "atomic_sum": at}, data)


def cupy_ops_peer(a, data):
    cp, lib = cupy_lib()

    @cp.fuse()
    def trans(v):
        return cp.sin(v) * cp.cos(v) + cp.exp(-v * v) + cp.sqrt(cp.abs(v))

    def sx(d, lib, a):
        x, y = cp.asarray(d.sx), cp.ones(len(d.sx), cp.float32)
        two = np.float32(2.0)

        def go():
            cp.add(y, two * x, out=y)

        t = lib.timed(go, 20)
        y.fill(1.0)
        go()
        return (t, *check_saxpy(cp.asnumpy(y), d.sx), "y += a * x: two kernels, a temporary")

    def tr(d, lib, a):
        xs = d.trans_x()
        x = cp.asarray(xs)
        out = [None]

        def go():
            out[0] = trans(x)

        t = lib.timed(go, 20)
        err = trans_err(xs, cp.asnumpy(out[0]))
        return t, err < 1e-5, f"vs f64, every 4099th: max abs err {err:.1e}", "cupy.fuse, a new array each call"

    def at(d, lib, a):
        xs = d.atomic_x()
        x = cp.asarray(xs)
        res = [None]

        def go():
            res[0] = cp.sum(x)

        t = lib.timed(go, 10)
        return (t, *check_atomic(float(res[0].get()), xs), "cupy.sum: a reduction, no atomics")

    run_workloads("cupy-ops", lib, a, {"saxpy": sx, "transcendental": tr, "atomic_sum": at}, data)


PEERS = {"numba": numba_peer, "triton": triton_peer, "cupy": cupy_peer, "cupy-ops": cupy_ops_peer}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(PEERS))
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--saxpy-log2", type=int, default=28)
    ap.add_argument("--transcendental-log2", type=int, default=28)
    ap.add_argument("--atomic-log2", type=int, default=26)
    a = ap.parse_args(argv)
    global GPU
    try:
        import subprocess

        GPU = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20).stdout.strip().splitlines()[0]
    except Exception:  # noqa: BLE001
        pass
    data = Data(a)
    for name in a.only.split(","):
        impl = {"numba": "numba-cuda"}.get(name, name)
        try:
            PEERS[name](a, data)
        except Exception as e:  # noqa: BLE001 (one failing library must not stop the others)
            traceback.print_exc(file=sys.stderr)
            emit(impl=impl, error=f"{type(e).__name__}: {e}"[:300])


if __name__ == "__main__":
    main()
