import warp as wp


@wp.func
def mix(a: float, b: float):
    return a * 0.5 + b * 0.5


@wp.func
def mix(a: int, b: int):
    return (a + b) // 2


@wp.kernel
def k(x: wp.array(dtype=wp.float64)):
    i = wp.tid()
    x[i] = mix(x[i], x[i])
