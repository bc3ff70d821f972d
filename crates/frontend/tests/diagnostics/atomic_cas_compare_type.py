import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.atomic_cas(a, i, 1.0, 5)
