import warp as wp


@wp.func
def two(a: float):
    return a, a * 2.0


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = two(x[i])
