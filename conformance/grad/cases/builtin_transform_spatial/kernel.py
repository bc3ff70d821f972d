import warp as wp

@wp.kernel
def xform_ops(t: wp.array(dtype=wp.transform), s: wp.array(dtype=wp.transform), x: wp.array(dtype=wp.vec3),
              ot: wp.array2d(dtype=wp.transform), ov: wp.array2d(dtype=wp.vec3), oq: wp.array(dtype=wp.quat),
              w: wp.array2d(dtype=wp.spatial_vector)):
    i = wp.tid()
    a = t[i]
    b = s[i]
    ot[i, 0] = wp.transform_multiply(a, b)
    ot[i, 1] = wp.transform_inverse(a)
    ot[i, 2] = wp.transform(wp.transform_get_translation(b) * 2.0, wp.transform_get_rotation(a))
    ov[i, 0] = wp.transform_point(a, x[i])
    ov[i, 1] = wp.transform_vector(b, x[i])
    ov[i, 2] = wp.transform_get_translation(a)
    oq[i] = wp.transform_get_rotation(b)
    v = wp.spatial_vector(x[i], wp.transform_get_translation(b))
    w[i, 0] = wp.transform_twist(a, v)
    w[i, 1] = wp.transform_wrench(a, v)
    w[i, 2] = wp.spatial_cross(v, w[i, 0])
