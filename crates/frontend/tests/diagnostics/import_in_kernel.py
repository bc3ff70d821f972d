import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    import math
    i = wp.tid()
    x[i] = math.pi
