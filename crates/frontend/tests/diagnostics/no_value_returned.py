import warp as wp


@wp.func
def store(x: wp.array(dtype=float), i: int):
    x[i] = 1.0


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    y = store(x, i)
