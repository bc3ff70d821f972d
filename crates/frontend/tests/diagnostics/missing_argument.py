import warp as wp


@wp.func
def add(a: float, b: float):
    return a + b


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = add(x[i])
