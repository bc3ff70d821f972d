import warp as wp


@wp.kernel
def k(x: wp.array(dtype=wp.vec3), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] + y[i]
