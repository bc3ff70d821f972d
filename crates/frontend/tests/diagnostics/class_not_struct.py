import warp as wp


class Particle:
    pos: wp.vec3


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 1.0
