import warp as wp


@wp.kernel
def k(x: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i][3]
