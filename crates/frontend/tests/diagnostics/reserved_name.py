import warp as wp


@wp.func
def __weft_dot(a: float, b: float):
    return a * b


@wp.kernel
def __weft_kernel(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = __weft_dot(x[i], x[i])
