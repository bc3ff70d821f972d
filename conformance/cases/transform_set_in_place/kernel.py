import warp as wp


@wp.kernel
def k(t: wp.array(dtype=wp.transform), p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), o: wp.array(dtype=wp.transform)):
    i = wp.tid()
    x = t[i]
    wp.transform_set_translation(x, p[i])
    o[i * 3 + 0] = x
    wp.transform_set_rotation(x, q[i])
    o[i * 3 + 1] = x
    y = t[i]
    for j in range(3):
        wp.transform_set_translation(y, wp.transform_get_translation(y) + p[i])
    o[i * 3 + 2] = y
    # an array element is a copy: t is unchanged
    wp.transform_set_translation(t[i], p[i])
