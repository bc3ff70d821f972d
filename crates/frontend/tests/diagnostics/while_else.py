import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    while x[i] > 1.0:
        x[i] = x[i] * 0.5
    else:
        x[i] = 0.0
