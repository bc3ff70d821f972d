import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    if i > 2:
        v = wp.vec3(1.0)
    x[i] = 0.0
