import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    f = lambda a: a * 2.0
    x[i] = f(x[i])
