import warp as wp


@wp.kernel
def k(a: wp.array(dtype=int), n: int):
    x = 42
    v = wp.vec3i(*x)
