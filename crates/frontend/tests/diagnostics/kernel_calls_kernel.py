import warp as wp


@wp.kernel
def helper(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 0.0


@wp.kernel
def k(x: wp.array(dtype=float)):
    helper(x)
