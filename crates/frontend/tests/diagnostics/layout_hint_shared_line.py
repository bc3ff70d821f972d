import warp as wp


@wp.kernel
def scale(x: wp.array(dtype=wp.vec3), y: wp.array(dtype=wp.vec3)):  # weft: layout=soa
    i = wp.tid()
    y[i] = x[i] * 2.0
