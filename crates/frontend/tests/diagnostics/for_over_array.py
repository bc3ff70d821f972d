import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = float(0.0)
    for v in x:
        s = s + v
    out[0] = s
