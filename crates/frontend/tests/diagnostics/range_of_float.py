import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float), n: float):
    i = wp.tid()
    for j in range(n):
        x[i] = x[i] + 1.0
