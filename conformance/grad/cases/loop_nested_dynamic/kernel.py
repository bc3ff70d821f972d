import warp as wp

@wp.kernel
def nested(x: wp.array(dtype=float), n: int, m: int, y: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for a in range(n):
        row = float(0.0)
        for b in range(m):
            row += x[(a * m + b + i) % 16] * float(b + 1)
        acc += wp.sin(row)
    y[i] = acc
