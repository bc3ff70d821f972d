import warp as wp


@wp.kernel
def k(h: wp.array(dtype=wp.float16), o: wp.array(dtype=wp.float16)):
    o[0] = wp.atomic_cas(h, 0, wp.float16(0.0), wp.float16(1.0))
