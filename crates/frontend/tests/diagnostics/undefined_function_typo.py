import warp as wp


@wp.func
def smooth_step(x: float):
    return x * x * (3.0 - 2.0 * x)


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = smoth_step(x[i])
