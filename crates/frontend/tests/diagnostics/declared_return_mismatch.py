import warp as wp


@wp.func
def half(a: int) -> float:
    return a // 2


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = half(i)
