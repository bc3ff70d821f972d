import warp as wp

LIMIT = wp.constant(10)


@wp.kernel
def k(x: wp.array(dtype=int)):
    i = wp.tid()
    LIMIT = x[i]
    x[i] = LIMIT
