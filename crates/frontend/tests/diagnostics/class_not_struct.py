import warp as wp


class Particle:
    pos: wp.vec3


@wp.kernel
def k(ps: wp.array(dtype=Particle)):
    i = wp.tid()
