import warp as wp


@wp.kernel
def k(v: wp.array(dtype=wp.vec3us)):
    wp.atomic_or(v, 0, wp.vec3us())
