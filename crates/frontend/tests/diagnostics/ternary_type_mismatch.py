import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 1.0 if i > 3 else 0
