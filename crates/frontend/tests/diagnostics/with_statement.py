import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    with wp.ScopedDevice("cpu"):
        x[i] = 1.0
