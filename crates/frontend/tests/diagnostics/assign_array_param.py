import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    x = y
    x[i] = 1.0
