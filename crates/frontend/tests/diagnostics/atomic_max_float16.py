import warp as wp


@wp.kernel
def k(h: wp.array(dtype=wp.float16)):
    wp.atomic_add(h, 0, wp.float16(1.0))
    wp.atomic_max(h, 0, wp.float16(1.0))
