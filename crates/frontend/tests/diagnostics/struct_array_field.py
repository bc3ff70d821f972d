import warp as wp


@wp.struct
class Mesh:
    points: wp.array(dtype=wp.vec3)
    count: int


@wp.kernel
def k(m: Mesh, out: wp.array(dtype=int)):
    out[0] = m.count
