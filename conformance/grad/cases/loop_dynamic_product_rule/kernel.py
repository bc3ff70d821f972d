import warp as wp

@wp.kernel
def prod(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    p = float(1.0)
    for j in range(n):
        p = p * x[j]
    y[i] = p * x[i]
