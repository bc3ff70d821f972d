import warp as wp


@wp.kernel
def k(a: wp.array2d(dtype=float)):
    i = wp.tid()
    if i > 0:
        row = a[i]
        row[0] = 1.0
