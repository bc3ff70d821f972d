import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    t = x[i]
    del t
