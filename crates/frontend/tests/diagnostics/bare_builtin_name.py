import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = sqrt(x[i])
