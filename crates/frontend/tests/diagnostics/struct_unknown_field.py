import warp as wp


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float


@wp.kernel
def k(ps: wp.array(dtype=Particle), out: wp.array(dtype=float)):
    i = wp.tid()
    p = ps[i]
    out[i] = p.weight
