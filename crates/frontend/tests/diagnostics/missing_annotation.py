import warp as wp


@wp.kernel
def k(x, scale: float):
    i = wp.tid()
    x[i] = scale
