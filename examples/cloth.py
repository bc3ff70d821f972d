# Cloth as position-based dynamics: particles on a grid joined by distance
# constraints (structural, shear and bend edges), solved Jacobi-style (each
# constraint accumulates its corrections with atomics, then each particle
# moves by the average), with XPBD compliance per edge. Collisions with a
# sphere and the ground are projected after each iteration.
import warp as wp


@wp.kernel
def predict(
    pos: wp.array(dtype=wp.vec3),
    vel: wp.array(dtype=wp.vec3),
    inv_mass: wp.array(dtype=float),
    gravity: wp.vec3,
    dt: float,
    pred: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    v = vel[i]
    if inv_mass[i] > 0.0:
        v = v + gravity * dt
    pred[i] = pos[i] + v * dt


@wp.kernel
def solve_edges(
    pred: wp.array(dtype=wp.vec3),
    inv_mass: wp.array(dtype=float),
    edges: wp.array2d(dtype=int),
    rest: wp.array(dtype=float),
    compliance: wp.array(dtype=float),
    inv_dt2: float,
    delta: wp.array(dtype=wp.vec3),
    count: wp.array(dtype=float),
):
    # The correction of one distance constraint C = |xb - xa| - rest,
    # shared by inverse mass, added to both ends' accumulators.
    e = wp.tid()
    a = edges[e, 0]
    b = edges[e, 1]
    wa = inv_mass[a]
    wb = inv_mass[b]
    w = wa + wb + compliance[e] * inv_dt2
    if wa + wb > 0.0:
        d = pred[b] - pred[a]
        l = wp.length(d)
        if l > 1.0e-9:
            corr = d * ((l - rest[e]) / (l * w))
            wp.atomic_add(delta, a, corr * wa)
            wp.atomic_add(delta, b, corr * (-wb))
            wp.atomic_add(count, a, 1.0)
            wp.atomic_add(count, b, 1.0)


@wp.kernel
def apply_corrections(
    pred: wp.array(dtype=wp.vec3),
    delta: wp.array(dtype=wp.vec3),
    count: wp.array(dtype=float),
    relax: float,
    sphere_center: wp.vec3,
    sphere_radius: float,
    thickness: float,
):
    # The averaged (over-relaxed) correction, then the particle is pushed
    # out of the sphere and above the ground; the accumulators are reset.
    i = wp.tid()
    p = pred[i]
    c = count[i]
    if c > 0.0:
        p = p + delta[i] * (relax / c)
    r = p - sphere_center
    dist = wp.length(r)
    reach = sphere_radius + thickness
    if dist < reach and dist > 1.0e-9:
        p = sphere_center + r * (reach / dist)
    if p[1] < thickness:
        p = wp.vec3(p[0], thickness, p[2])
    pred[i] = p
    delta[i] = wp.vec3(0.0, 0.0, 0.0)
    count[i] = 0.0


@wp.kernel
def update(
    pos: wp.array(dtype=wp.vec3),
    vel: wp.array(dtype=wp.vec3),
    pred: wp.array(dtype=wp.vec3),
    inv_dt: float,
    damping: float,
):
    i = wp.tid()
    vel[i] = (pred[i] - pos[i]) * (inv_dt * damping)
    pos[i] = pred[i]


@wp.kernel
def shade(
    pos: wp.array(dtype=wp.vec3),
    nx: int,
    light: wp.vec3,
    colors: wp.array(dtype=wp.vec3),
):
    # Diffuse shading from the grid normal (central differences), on a
    # two-tone checkerboard of 4 x 4 cells.
    i = wp.tid()
    ny = pos.shape[0] / nx
    row = i / nx
    col = i - row * nx
    du = pos[row * nx + wp.min(col + 1, nx - 1)] - pos[row * nx + wp.max(col - 1, 0)]
    dv = pos[wp.min(row + 1, ny - 1) * nx + col] - pos[wp.max(row - 1, 0) * nx + col]
    n = wp.cross(du, dv)
    ln = wp.length(n)
    lit = 0.6
    if ln > 1.0e-12:
        lit = 0.25 + 0.75 * wp.abs(wp.dot(n / ln, light))
    base = wp.vec3(0.85, 0.3, 0.2)
    if (row / 4 + col / 4) % 2 == 1:
        base = wp.vec3(0.95, 0.8, 0.55)
    colors[i] = base * lit
