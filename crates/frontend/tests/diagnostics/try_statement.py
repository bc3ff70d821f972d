import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    try:
        x[i] = 1.0 / x[i]
    except ZeroDivisionError:
        x[i] = 0.0
