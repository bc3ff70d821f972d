import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    v = [float(j) for j in range(3)]
    x[i] = v[0]
