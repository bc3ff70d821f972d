# 2-D stable fluids on a MAC grid (Stam's method): semi-Lagrangian
# advection, forces, and pressure projection by Jacobi iterations, with
# solid walls all round. Units are cells and steps: velocities are in
# cells per step. A jet of dye enters at the bottom and rises by buoyancy.
#
# Layout (n x n cells): u[j, i] is the x-velocity on the face at (i, j+0.5),
# shape (n, n+1); v[j, i] the y-velocity at (i+0.5, j), shape (n+1, n);
# cell quantities (dye, pressure, divergence) at (i+0.5, j+0.5), shape
# (n, n). Row j = 0 is the bottom.
import warp as wp


@wp.func
def bilerp(f: wp.array2d(dtype=float), x: float, y: float) -> float:
    # f sampled at (x, y) in its own index space (column x, row y), clamped
    # to the grid.
    h = f.shape[0]
    w = f.shape[1]
    fx = wp.clamp(x, 0.0, float(w - 1))
    fy = wp.clamp(y, 0.0, float(h - 1))
    x0 = wp.min(int(fx), w - 1)
    y0 = wp.min(int(fy), h - 1)
    x1 = wp.min(x0 + 1, w - 1)
    y1 = wp.min(y0 + 1, h - 1)
    tx = fx - float(x0)
    ty = fy - float(y0)
    a = f[y0, x0] * (1.0 - tx) + f[y0, x1] * tx
    b = f[y1, x0] * (1.0 - tx) + f[y1, x1] * tx
    return a * (1.0 - ty) + b * ty


@wp.func
def velocity(u: wp.array2d(dtype=float), v: wp.array2d(dtype=float), p: wp.vec2) -> wp.vec2:
    # The velocity at a point p in cell units (0..n on both axes).
    return wp.vec2(bilerp(u, p[0], p[1] - 0.5), bilerp(v, p[0] - 0.5, p[1]))


@wp.func
def backtrace(u: wp.array2d(dtype=float), v: wp.array2d(dtype=float), p: wp.vec2, dt: float) -> wp.vec2:
    # Where the fluid at p came from dt ago (midpoint rule).
    mid = p - velocity(u, v, p) * (0.5 * dt)
    return p - velocity(u, v, mid) * dt


@wp.kernel
def advect_u(u: wp.array2d(dtype=float), v: wp.array2d(dtype=float), dt: float, u_out: wp.array2d(dtype=float)):
    j, i = wp.tid()
    n = u.shape[0]
    r = float(0.0)
    if i > 0 and i < n:
        q = backtrace(u, v, wp.vec2(float(i), float(j) + 0.5), dt)
        r = bilerp(u, q[0], q[1] - 0.5)
    u_out[j, i] = r


@wp.kernel
def advect_v(u: wp.array2d(dtype=float), v: wp.array2d(dtype=float), dt: float, v_out: wp.array2d(dtype=float)):
    j, i = wp.tid()
    n = v.shape[1]
    r = float(0.0)
    if j > 0 and j < n:
        q = backtrace(u, v, wp.vec2(float(i) + 0.5, float(j)), dt)
        r = bilerp(v, q[0] - 0.5, q[1])
    v_out[j, i] = r


@wp.kernel
def advect_dye(
    u: wp.array2d(dtype=float),
    v: wp.array2d(dtype=float),
    dye: wp.array2d(dtype=float),
    dt: float,
    decay: float,
    dye_out: wp.array2d(dtype=float),
):
    j, i = wp.tid()
    q = backtrace(u, v, wp.vec2(float(i) + 0.5, float(j) + 0.5), dt)
    dye_out[j, i] = bilerp(dye, q[0] - 0.5, q[1] - 0.5) * decay


@wp.kernel
def add_forces(
    v: wp.array2d(dtype=float),
    u: wp.array2d(dtype=float),
    dye: wp.array2d(dtype=float),
    dt: float,
    buoyancy: float,
    source: wp.vec2,
    source_radius: float,
    jet: wp.vec2,
):
    # One thread per cell: buoyancy on the v face below the cell (from the
    # dye of the two cells it separates), the jet's velocity on the faces
    # below and left of cells inside the source. Each thread writes only
    # its own faces.
    j, i = wp.tid()
    n = dye.shape[0]
    if j > 0:
        v[j, i] = v[j, i] + dt * buoyancy * 0.5 * (dye[j - 1, i] + dye[j, i])
    c = wp.vec2(float(i) + 0.5, float(j) + 0.5)
    if wp.length(c - source) < source_radius:
        if j > 0:
            v[j, i] = jet[1]
        if i > 0:
            u[j, i] = jet[0]


@wp.kernel
def inject_dye(dye: wp.array2d(dtype=float), source: wp.vec2, source_radius: float):
    j, i = wp.tid()
    c = wp.vec2(float(i) + 0.5, float(j) + 0.5)
    if wp.length(c - source) < source_radius:
        dye[j, i] = 1.0


@wp.kernel
def divergence(u: wp.array2d(dtype=float), v: wp.array2d(dtype=float), div: wp.array2d(dtype=float)):
    j, i = wp.tid()
    div[j, i] = u[j, i + 1] - u[j, i] + v[j + 1, i] - v[j, i]


@wp.kernel
def jacobi(p: wp.array2d(dtype=float), div: wp.array2d(dtype=float), omega: float, p_out: wp.array2d(dtype=float)):
    # One damped Jacobi sweep of  sum_nb (p_nb - p) = div  over the fluid
    # neighbours (the walls are Neumann: no flow through them). Damping
    # (omega < 1) matters: on this bipartite grid plain Jacobi never damps
    # the checkerboard partner of the constant pressure mode.
    j, i = wp.tid()
    n = p.shape[0]
    s = float(0.0)
    k = float(0.0)
    if i > 0:
        s += p[j, i - 1]
        k += 1.0
    if i < n - 1:
        s += p[j, i + 1]
        k += 1.0
    if j > 0:
        s += p[j - 1, i]
        k += 1.0
    if j < n - 1:
        s += p[j + 1, i]
        k += 1.0
    p_out[j, i] = (1.0 - omega) * p[j, i] + omega * (s - div[j, i]) / k


@wp.kernel
def project_u(u: wp.array2d(dtype=float), p: wp.array2d(dtype=float)):
    j, i = wp.tid()
    n = p.shape[0]
    if i > 0 and i < n:
        u[j, i] = u[j, i] - (p[j, i] - p[j, i - 1])
    else:
        u[j, i] = 0.0


@wp.kernel
def project_v(v: wp.array2d(dtype=float), p: wp.array2d(dtype=float)):
    j, i = wp.tid()
    n = p.shape[0]
    if j > 0 and j < n:
        v[j, i] = v[j, i] - (p[j, i] - p[j - 1, i])
    else:
        v[j, i] = 0.0
