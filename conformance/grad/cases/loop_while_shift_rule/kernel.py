import warp as wp

@wp.kernel
def shift(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    k = int(0)
    while k < n:
        s += wp.sin(x[k]) * x[i]
        k += 1
    y[i] = s
