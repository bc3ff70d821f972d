import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    if i > 0:
        if x[i] > 0.0:
            y = 1.0
        x[i] = 2.0
    x[i] = y
