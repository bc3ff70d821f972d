import warp as wp


@wp.struct
class Particle:
    pos: wp.vec3
    mass: float


@wp.kernel
def k(ps: wp.array(dtype=Particle)):
    i = wp.tid()
    ps[i] = Particle(mass=1.0, charge=2.0)
