import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    def inner(a: float):
        return a
    i = wp.tid()
    x[i] = inner(x[i])
