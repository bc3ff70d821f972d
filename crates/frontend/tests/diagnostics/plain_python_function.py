import warp as wp


def double(a):
    return a * 2.0


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = double(x[i])
