import warp as wp

@wp.kernel
def seventeen(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.5)
    for j in range(17):
        s += x[(i + j) % 16] * float(j)
    y[i] = s * s
