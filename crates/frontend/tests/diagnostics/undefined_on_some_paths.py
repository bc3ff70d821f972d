import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    if x[i] > 0.0:
        y = x[i] * 2.0
    x[i] = y
