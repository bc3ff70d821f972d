import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float), n: int):
    i = wp.tid()
    for j in range(n):
        last = x[j]
    x[i] = last
