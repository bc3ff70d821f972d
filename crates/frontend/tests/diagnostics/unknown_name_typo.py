import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    index = wp.tid()
    x[indx] = 1.0
