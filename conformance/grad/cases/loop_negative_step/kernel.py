import warp as wp

@wp.kernel
def down(x: wp.array(dtype=float), lo: int, y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(15, lo, -2):
        s += x[j] * x[i] * float(j)
    y[i] = s
