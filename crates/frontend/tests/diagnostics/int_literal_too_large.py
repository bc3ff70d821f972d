import warp as wp


@wp.kernel
def k(x: wp.array(dtype=wp.int64)):
    i = wp.tid()
    x[i] = x[i] + 5000000000
