import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    acc = 0
    for j in range(i):
        acc = acc + 0.5
    x[i] = acc
