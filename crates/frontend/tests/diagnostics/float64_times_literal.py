import warp as wp


@wp.kernel
def k(x: wp.array(dtype=wp.float64)):
    i = wp.tid()
    x[i] = x[i] * 2.0
