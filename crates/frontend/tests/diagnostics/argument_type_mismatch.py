import warp as wp


@wp.func
def scale(v: wp.vec3, s: float):
    return v * s


@wp.kernel
def k(x: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    x[i] = scale(x[i], 2)
