import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    wp.atomic_cas(a, i, wp.vec3(1.0, 2.0, 3.0), wp.vec3(0.0))
