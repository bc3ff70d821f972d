import warp as wp


@wp.kernel
def k(x: wp.array2d(dtype=float), out: wp.array(dtype=int)):
    out[0] = x.shape[2]
