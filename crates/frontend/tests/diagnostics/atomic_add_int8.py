import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.int8), h: wp.array(dtype=wp.float16), v: wp.array(dtype=wp.vec3us)):
    wp.atomic_add(a, 0, wp.int8(1))
