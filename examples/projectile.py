# Projectiles under gravity and quadratic air drag, for the differentiable
# projectile example (examples/projectile.rs): one launch of `step` per time
# step, each reading the state arrays of step t and writing those of t + 1,
# then `miss` adds each projectile's squared distance to its target.
import warp as wp


@wp.kernel
def step(x: wp.array(dtype=wp.vec2), v: wp.array(dtype=wp.vec2),
         x_next: wp.array(dtype=wp.vec2), v_next: wp.array(dtype=wp.vec2),
         dt: float, drag: float):
    i = wp.tid()
    vel = v[i]
    a = wp.vec2(0.0, -9.81) - drag * wp.length(vel) * vel
    vn = vel + a * dt
    v_next[i] = vn
    x_next[i] = x[i] + vn * dt


@wp.kernel
def miss(x: wp.array(dtype=wp.vec2), target: wp.array(dtype=wp.vec2), loss: wp.array(dtype=float)):
    i = wp.tid()
    d = x[i] - target[i]
    wp.atomic_add(loss, 0, wp.dot(d, d))
