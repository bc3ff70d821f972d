import warp as wp

@wp.func
def poly(v: float, k: int):
    s = float(0.0)
    p = float(1.0)
    for j in range(k):
        s += p
        p = p * v
    return s

@wp.func
def scaled(v: float, c: float):
    return v * c

@wp.func_replay(scaled)
def replay_scaled(v: float, c: float):
    return v * c * 2.0

@wp.kernel
def fl(x: wp.array(dtype=float), k: int, y: wp.array(dtype=float)):
    i = wp.tid()
    q = poly(x[i], k)
    y[i] = q * q + scaled(x[i], 3.0) * x[i]
