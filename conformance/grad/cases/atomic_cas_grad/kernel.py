import warp as wp

@wp.kernel
def cas(x: wp.array(dtype=float), f: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i] * 3.0
    wp.atomic_cas(f, i, 1.5, v)
    y[i] = v * x[i]
