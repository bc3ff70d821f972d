# The seed's N-body step (brute force, O(N^2), semi-implicit Euler), plus a
# per-body energy kernel used by the demo to measure energy drift.
import warp as wp


@wp.kernel
def nbody_step(
    pos: wp.array(dtype=wp.vec3),
    vel: wp.array(dtype=wp.vec3),
    mass: wp.array(dtype=float),
    new_pos: wp.array(dtype=wp.vec3),
    new_vel: wp.array(dtype=wp.vec3),
    n: int,
    dt: float,
    grav: float,
    eps2: float,
):
    i = wp.tid()
    p = pos[i]
    acc = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + eps2
        inv_r = 1.0 / wp.sqrt(r2)
        acc = acc + d * (grav * mass[j] * inv_r * inv_r * inv_r)
    v = vel[i] + acc * dt
    new_vel[i] = v
    new_pos[i] = p + v * dt


@wp.kernel
def body_energy(
    pos: wp.array(dtype=wp.vec3),
    vel: wp.array(dtype=wp.vec3),
    mass: wp.array(dtype=float),
    n: int,
    grav: float,
    eps2: float,
    energy: wp.array(dtype=float),
):
    # Kinetic energy of body i plus half of its softened potential energy
    # with every other body (each pair is counted from both ends).
    i = wp.tid()
    p = pos[i]
    m = mass[i]
    pot = float(0.0)
    for j in range(n):
        if j != i:
            d = pos[j] - p
            pot = pot - grav * m * mass[j] / wp.sqrt(wp.dot(d, d) + eps2)
    v = vel[i]
    energy[i] = 0.5 * m * wp.dot(v, v) + 0.5 * pot


@wp.kernel
def body_speed(vel: wp.array(dtype=wp.vec3), speed: wp.array(dtype=float)):
    # |v| per body (the renderer colours bodies by it).
    i = wp.tid()
    speed[i] = wp.length(vel[i])
