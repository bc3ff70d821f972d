import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array2d(dtype=float), c: wp.array3d(dtype=wp.int32),
      out: wp.array(dtype=float), oi: wp.array(dtype=wp.int32)):
    i = wp.tid()
    n = a.shape[0]
    out[i] = a[-1] + b[-1, -2] * a[i - n]
    j = -1 - i
    oi[i] = c[(-j) % 3 - 3, -1, i - 4]
    row = b[-2]
    out[i + 8] = row[-1 - i] + row[i]
    # a runtime negative index
    m = -(i % 3) - 1
    out[i + 16] = a[m] + b[m, m]
