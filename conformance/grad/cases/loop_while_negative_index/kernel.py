import warp as wp

@wp.kernel
def shift_neg(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    k = int(-6)
    while k < n:
        s += wp.sin(x[k]) * x[i]
        k += 1
    y[i] = s
