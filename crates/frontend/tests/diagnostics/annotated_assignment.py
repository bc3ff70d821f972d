import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    y: float = x[i]
    x[i] = y
