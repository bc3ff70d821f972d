# Rigid boxes as position-based dynamics (XPBD with zero compliance, small
# substeps): each body's pose is a `wp.transform`, its velocities a linear
# and an angular `vec3` (world frame), its inertia a diagonal in the body
# frame. Every substep integrates the poses, then solves the contacts
# Jacobi-style: one thread per (body, other body or the ground, surface
# sample of the body: its corners and points along its edges) finds whether
# that sample is inside the other box (or below the ground), computes the
# positional correction (normal push plus static friction, clamped
# Coulomb-style) and accumulates it into both bodies with atomics; each body
# then moves by the average of its corrections. The velocities are the pose
# change over the substep.
import warp as wp


@wp.struct
class Contact:
    # The corner should move by `normal * depth` out of the other body; the
    # point it should reach is `point` (on the other body's surface).
    normal: wp.vec3
    depth: float
    point: wp.vec3


@wp.func
def corner(half: wp.vec3, k: int) -> wp.vec3:
    # Corner k (0..7) of a box of half extents `half`: bit 0 x, bit 1 y, bit 2 z.
    sx = float((k % 2) * 2 - 1)
    sy = float(((k / 2) % 2) * 2 - 1)
    sz = float(((k / 4) % 2) * 2 - 1)
    return wp.vec3(half[0] * sx, half[1] * sy, half[2] * sz)


@wp.func
def surface_sample(half: wp.vec3, k: int, per_edge: int) -> wp.vec3:
    # Contact sample k of a box, in its frame: the 8 corners, then
    # `per_edge` points evenly inside each of the 12 edges (so that crossing
    # edges, which have no corner inside the other box, still collide).
    if k < 8:
        return corner(half, k)
    e = (k - 8) / per_edge
    t = float((k - 8) % per_edge + 1) / float(per_edge + 1) * 2.0 - 1.0
    axis = e / 4
    s1 = float((e % 2) * 2 - 1)
    s2 = float(((e / 2) % 2) * 2 - 1)
    if axis == 0:
        return wp.vec3(t * half[0], s1 * half[1], s2 * half[2])
    if axis == 1:
        return wp.vec3(s2 * half[0], t * half[1], s1 * half[2])
    return wp.vec3(s1 * half[0], s2 * half[1], t * half[2])


@wp.func
def no_contact() -> Contact:
    c = Contact()
    c.normal = wp.vec3(0.0, 1.0, 0.0)
    c.depth = -1.0
    c.point = wp.vec3(0.0, 0.0, 0.0)
    return c


@wp.func
def inside_box(p: wp.vec3, pose: wp.transform, half: wp.vec3) -> int:
    # 1 if the world point p is strictly inside the box.
    l = wp.quat_rotate_inv(wp.transform_get_rotation(pose), p - wp.transform_get_translation(pose))
    if wp.abs(l[0]) < half[0] and wp.abs(l[1]) < half[1] and wp.abs(l[2]) < half[2]:
        return 1
    return 0


@wp.func
def axis_vec(axis: int, side: float) -> wp.vec3:
    if axis == 0:
        return wp.vec3(side, 0.0, 0.0)
    if axis == 1:
        return wp.vec3(0.0, side, 0.0)
    return wp.vec3(0.0, 0.0, side)


@wp.func
def support_radius(q: wp.quat, half: wp.vec3, n: wp.vec3) -> float:
    # Half the box's extent along the unit direction n.
    l = wp.quat_rotate_inv(q, n)
    return half[0] * wp.abs(l[0]) + half[1] * wp.abs(l[1]) + half[2] * wp.abs(l[2])


@wp.func
def separating_axis(ta: wp.transform, ha: wp.vec3, tb: wp.transform, hb: wp.vec3) -> Contact:
    # The separating-axis test of two boxes over their 6 face normals and 9
    # edge-pair directions: the axis of least overlap is the contact normal
    # of the pair (pointing from b to a), the overlap its depth (negative:
    # apart). Face axes are preferred unless an edge axis overlaps clearly
    # less, so that boxes resting face on face get the face normal whatever
    # their corners do.
    qa = wp.transform_get_rotation(ta)
    qb = wp.transform_get_rotation(tb)
    d = wp.transform_get_translation(ta) - wp.transform_get_translation(tb)
    c = no_contact()
    c.depth = 1.0e30
    for m in range(15):
        n = wp.vec3(0.0, 0.0, 0.0)
        if m < 3:
            n = wp.quat_rotate(qa, axis_vec(m, 1.0))
        elif m < 6:
            n = wp.quat_rotate(qb, axis_vec(m - 3, 1.0))
        else:
            e = wp.cross(wp.quat_rotate(qa, axis_vec((m - 6) / 3, 1.0)), wp.quat_rotate(qb, axis_vec((m - 6) % 3, 1.0)))
            le = wp.length(e)
            if le > 1.0e-3:
                n = e / le
        if wp.length_sq(n) > 0.5:
            s = wp.dot(d, n)
            overlap = support_radius(qa, ha, n) + support_radius(qb, hb, n) - wp.abs(s)
            better = overlap < c.depth
            if m >= 6:
                better = overlap < 0.9 * c.depth - 1.0e-4
            if better:
                c.depth = overlap
                c.normal = n * wp.sign(s)
    return c


@wp.func
def inv_inertia_apply(q: wp.quat, inv_inertia: wp.vec3, v: wp.vec3) -> wp.vec3:
    # The world-frame inverse inertia tensor R diag(inv_inertia) R^T times v.
    return wp.quat_rotate(q, wp.cw_mul(inv_inertia, wp.quat_rotate_inv(q, v)))


@wp.func
def generalized_inv_mass(q: wp.quat, inv_mass: float, inv_inertia: wp.vec3, r: wp.vec3, n: wp.vec3) -> float:
    # w = 1/m + (r x n)^T I^-1 (r x n) for a unit direction n at offset r.
    rn = wp.cross(r, n)
    a = wp.quat_rotate_inv(q, rn)
    return inv_mass + wp.dot(a, wp.cw_mul(inv_inertia, a))


@wp.func
def rotate_by(q: wp.quat, theta: wp.vec3) -> wp.quat:
    # q advanced by the small rotation vector theta (world frame).
    dq = wp.quat(theta[0], theta[1], theta[2], 0.0) * q
    return wp.normalize(q + dq * 0.5)


@wp.kernel
def integrate(
    pose: wp.array(dtype=wp.transform),
    prev: wp.array(dtype=wp.transform),
    vel: wp.array(dtype=wp.vec3),
    ang: wp.array(dtype=wp.vec3),
    inv_mass: wp.array(dtype=float),
    gravity: wp.vec3,
    h: float,
):
    # Semi-implicit prediction of the pose (gyroscopic terms neglected).
    i = wp.tid()
    t = pose[i]
    prev[i] = t
    if inv_mass[i] > 0.0:
        v = vel[i] + gravity * h
        vel[i] = v
        x = wp.transform_get_translation(t) + v * h
        q = rotate_by(wp.transform_get_rotation(t), ang[i] * h)
        pose[i] = wp.transform(x, q)


@wp.kernel
def solve_contacts(
    pose: wp.array(dtype=wp.transform),
    prev: wp.array(dtype=wp.transform),
    half: wp.array(dtype=wp.vec3),
    inv_mass: wp.array(dtype=float),
    inv_inertia: wp.array(dtype=wp.vec3),
    friction: float,
    per_edge: int,
    dpos: wp.array(dtype=wp.vec3),
    drot: wp.array(dtype=wp.vec3),
    count: wp.array(dtype=float),
):
    # Thread (i, j, k): surface sample k of box i against box j, or the
    # ground plane y = 0 when j is the number of bodies.
    i, j, k = wp.tid()
    nb = pose.shape[0]
    if i == j:
        return
    ti = pose[i]
    lv = surface_sample(half[i], k, per_edge)
    p = wp.transform_point(ti, lv)
    c = no_contact()
    if j == nb:
        if p[1] < 0.0:
            c.normal = wp.vec3(0.0, 1.0, 0.0)
            c.depth = -p[1]
            c.point = wp.vec3(p[0], 0.0, p[2])
    else:
        tj = pose[j]
        hj = half[j]
        # Broad phase: the sample within the other box's bounding sphere;
        # then it must be inside that box. The normal is the pair's (the
        # same for every sample, computed in one order for both threads of
        # the pair), the depth how far the sample is below the other box's
        # extent along it.
        xj = wp.transform_get_translation(tj)
        if wp.length(p - xj) < wp.length(hj):
            if inside_box(p, tj, hj) == 1:
                sat = separating_axis(pose[wp.min(i, j)], half[wp.min(i, j)], pose[wp.max(i, j)], half[wp.max(i, j)])
                n = sat.normal
                if j < i:
                    n = -n
                if sat.depth > 0.0:
                    c.normal = n
                    c.depth = support_radius(wp.transform_get_rotation(tj), hj, n) - wp.dot(p - xj, n)
                    c.point = p + n * c.depth
    if c.depth <= 0.0:
        return

    n = c.normal
    qi = wp.transform_get_rotation(ti)
    ri = p - wp.transform_get_translation(ti)
    # How far the corner moved over the substep, relative to the other body.
    moved = p - wp.transform_point(prev[i], lv)
    qj = wp.quat_identity()
    rj = wp.vec3(0.0, 0.0, 0.0)
    wj_lin = 0.0
    if j < nb:
        tj = pose[j]
        qj = wp.transform_get_rotation(tj)
        rj = c.point - wp.transform_get_translation(tj)
        wj_lin = inv_mass[j]
        lj = wp.transform_point(wp.transform_inverse(tj), c.point)
        moved = moved - (c.point - wp.transform_point(prev[j], lj))
    # The correction: out along the normal by the depth, and back against
    # the tangential slip (static friction) up to friction * depth.
    slip = moved - n * wp.dot(moved, n)
    corr = n * c.depth
    ls = wp.length(slip)
    if ls > 1.0e-9:
        corr = corr - slip * wp.min(1.0, friction * c.depth / ls)
    lc = wp.length(corr)
    d = corr / lc
    w = generalized_inv_mass(qi, inv_mass[i], inv_inertia[i], ri, d)
    if j < nb:
        w = w + generalized_inv_mass(qj, wj_lin, inv_inertia[j], rj, d)
    if w <= 0.0:
        return
    impulse = d * (lc / w)
    wp.atomic_add(dpos, i, impulse * inv_mass[i])
    wp.atomic_add(drot, i, inv_inertia_apply(qi, inv_inertia[i], wp.cross(ri, impulse)))
    wp.atomic_add(count, i, 1.0)
    if j < nb:
        wp.atomic_add(dpos, j, impulse * (-wj_lin))
        wp.atomic_add(drot, j, inv_inertia_apply(qj, inv_inertia[j], wp.cross(rj, -impulse)))
        wp.atomic_add(count, j, 1.0)


@wp.kernel
def apply_corrections(
    pose: wp.array(dtype=wp.transform),
    dpos: wp.array(dtype=wp.vec3),
    drot: wp.array(dtype=wp.vec3),
    count: wp.array(dtype=float),
    relax: float,
):
    # Each body moves by the (relaxed) average of its contact corrections;
    # the accumulators are reset for the next sweep.
    i = wp.tid()
    c = count[i]
    if c > 0.0:
        s = relax / c
        t = pose[i]
        x = wp.transform_get_translation(t) + dpos[i] * s
        q = rotate_by(wp.transform_get_rotation(t), drot[i] * s)
        pose[i] = wp.transform(x, q)
    dpos[i] = wp.vec3(0.0, 0.0, 0.0)
    drot[i] = wp.vec3(0.0, 0.0, 0.0)
    count[i] = 0.0


@wp.kernel
def update_velocities(
    pose: wp.array(dtype=wp.transform),
    prev: wp.array(dtype=wp.transform),
    vel: wp.array(dtype=wp.vec3),
    ang: wp.array(dtype=wp.vec3),
    inv_h: float,
    damping: float,
):
    # Velocities from the pose change over the substep.
    i = wp.tid()
    t = pose[i]
    tp = prev[i]
    vel[i] = (wp.transform_get_translation(t) - wp.transform_get_translation(tp)) * inv_h
    dq = wp.transform_get_rotation(t) * wp.quat_inverse(wp.transform_get_rotation(tp))
    w = wp.vec3(dq[0], dq[1], dq[2]) * (2.0 * inv_h)
    if dq[3] < 0.0:
        w = -w
    ang[i] = w * damping


@wp.func
def face_point(half: wp.vec3, axis: int, side: float, u: float, v: float) -> wp.vec3:
    # The point (u, v) in [-1, 1]^2 on the face of the box normal to `axis`
    # on `side` (+1 or -1).
    if axis == 0:
        return wp.vec3(side * half[0], u * half[1], v * half[2])
    if axis == 1:
        return wp.vec3(u * half[0], side * half[1], v * half[2])
    return wp.vec3(u * half[0], v * half[1], side * half[2])


@wp.kernel
def box_splats(
    pose: wp.array(dtype=wp.transform),
    half: wp.array(dtype=wp.vec3),
    tint: wp.array(dtype=wp.vec3),
    light: wp.vec3,
    points: wp.array(dtype=wp.vec3),
    colors: wp.array(dtype=wp.vec3),
    radius: wp.array(dtype=float),
):
    # Thread (b, f, s): sample s of a g x g grid on face f of box b, as a
    # splat shaded by the face normal, darker along the edges.
    b, f, s = wp.tid()
    g = int(wp.sqrt(float(points.shape[0] / (pose.shape[0] * 6))) + 0.5)
    axis = f / 2
    side = float((f % 2) * 2 - 1)
    u = (float(s % g) + 0.5) / float(g) * 2.0 - 1.0
    v = (float(s / g) + 0.5) / float(g) * 2.0 - 1.0
    hb = half[b]
    t = pose[b]
    idx = (b * 6 + f) * g * g + s
    points[idx] = wp.transform_point(t, face_point(hb, axis, side, u, v))
    nw = wp.quat_rotate(wp.transform_get_rotation(t), axis_vec(axis, side))
    lit = 0.3 + 0.7 * wp.max(wp.dot(nw, light), 0.0)
    edge = 1.0 - 1.5 / float(g)
    if wp.abs(u) > edge or wp.abs(v) > edge:
        lit = lit * 0.35
    colors[idx] = tint[b] * lit
    radius[idx] = 1.2 * wp.max(wp.max(hb[0], hb[1]), hb[2]) / float(g)
