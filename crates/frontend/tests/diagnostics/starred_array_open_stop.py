import warp as wp


@wp.kernel
def k(a: wp.array(dtype=int), n: int):
    v = wp.vec3i(*a[0:])
