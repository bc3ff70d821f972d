import warp as wp


@wp.kernel
def k(x: wp.array(dtype=wp.vec5)):
    i = wp.tid()
    x[i] = x[i]
