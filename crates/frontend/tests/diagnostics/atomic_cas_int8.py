import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.int8)):
    wp.atomic_cas(a, 0, wp.int8(1), wp.int8(5))
