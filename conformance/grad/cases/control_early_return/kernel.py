import warp as wp

@wp.func
def piece(v: float):
    if v < -0.5:
        return v * v
    if v > 0.5:
        return wp.sin(v)
    return 2.0 * v

@wp.kernel
def early(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float), z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = x[i] * 3.0
    if i >= n:
        return
    y[i] = piece(x[i]) + x[(i + 1) % 16]
