# Particles under gravity in an open box: a ground plane (y = 0) and four
# walls (|x|, |z| <= half_width), with restitution and Coulomb friction at
# each contact. Semi-implicit Euler, one thread per particle.
import warp as wp


@wp.func
def collide_plane(
    p: wp.vec3,
    v: wp.vec3,
    n: wp.vec3,
    offset: float,
    radius: float,
    restitution: float,
    friction: float,
):
    # A sphere of `radius` at p against the half-space dot(n, x) >= offset:
    # pushed out along n; an approaching normal velocity is reflected and
    # scaled by the restitution, and the tangential velocity loses
    # friction * (normal impulse per unit mass), never changing direction.
    q = p
    u = v
    depth = offset + radius - wp.dot(n, p)
    if depth > 0.0:
        q = p + n * depth
        vn = wp.dot(n, v)
        if vn < 0.0:
            vt = v - n * vn
            vt_len = wp.length(vt)
            e = restitution
            if vn > -0.05:
                # Slow contacts come to rest instead of jittering.
                e = 0.0
            dvn = -(1.0 + e) * vn
            keep = 0.0
            if vt_len > 1.0e-6:
                keep = wp.max(0.0, 1.0 - friction * dvn / vt_len)
            u = vt * keep - n * (e * vn)
    return q, u


@wp.kernel
def integrate(
    pos: wp.array(dtype=wp.vec3),
    vel: wp.array(dtype=wp.vec3),
    gravity: wp.vec3,
    dt: float,
    radius: float,
    half_width: float,
    restitution: float,
    friction: float,
):
    i = wp.tid()
    v = vel[i] + gravity * dt
    p = pos[i] + v * dt
    p, v = collide_plane(p, v, wp.vec3(0.0, 1.0, 0.0), 0.0, radius, restitution, friction)
    p, v = collide_plane(p, v, wp.vec3(1.0, 0.0, 0.0), -half_width, radius, restitution, friction)
    p, v = collide_plane(p, v, wp.vec3(-1.0, 0.0, 0.0), -half_width, radius, restitution, friction)
    p, v = collide_plane(p, v, wp.vec3(0.0, 0.0, 1.0), -half_width, radius, restitution, friction)
    p, v = collide_plane(p, v, wp.vec3(0.0, 0.0, -1.0), -half_width, radius, restitution, friction)
    pos[i] = p
    vel[i] = v


@wp.kernel
def particle_energy(
    pos: wp.array(dtype=wp.vec3),
    vel: wp.array(dtype=wp.vec3),
    gravity: wp.vec3,
    energy: wp.array(dtype=float),
    speed: wp.array(dtype=float),
):
    # Kinetic plus potential energy per unit mass, and |v| for the colours.
    i = wp.tid()
    v = vel[i]
    energy[i] = 0.5 * wp.dot(v, v) - wp.dot(gravity, pos[i])
    speed[i] = wp.length(v)
