import warp as wp

@wp.kernel
def brk(x: wp.array(dtype=float), t: float, y: wp.array(dtype=float), z: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for j in range(12):
        v = x[(i + j) % 16]
        if v > t:
            continue
        s += v * v
        if s > 2.0:
            break
    y[i] = s + x[i]
    c = float(0.0)
    k = int(0)
    while k < 8:
        k += 1
        w = x[(i * 3 + k) % 16]
        if w < t:
            continue
        c += wp.exp(w)
    z[i] = c
