import warp as wp


@wp.kernel
def k(x: wp.array2d(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i]
