import warp as wp


@wp.func
def pick(a: float, b: int):
    if a > 0.0:
        return a
    return b


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = pick(x[i], i)
