import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i, j, k, l, m = wp.tid()
    x[i] = 1.0
