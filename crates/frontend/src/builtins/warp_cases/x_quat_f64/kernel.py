import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.quatd), b: wp.array(dtype=wp.quatd), v: wp.array(dtype=wp.vec3d), o: wp.array2d(dtype=wp.quatd), r: wp.array2d(dtype=wp.vec3d), m: wp.array(dtype=wp.mat33d)):
    i = wp.tid()
    p = a[i]
    q = b[i]
    o[i, 0] = p * q
    o[i, 1] = wp.quat_slerp(p, q, wp.float64(0.3))
    o[i, 2] = wp.quat_from_matrix(wp.quat_to_matrix(q))
    o[i, 3] = wp.quat_rpy(v[i][0], v[i][1], v[i][2])
    o[i, 4] = wp.normalize(p * wp.float64(3.0))
    o[i, 5] = wp.quat_from_axis_angle(wp.normalize(v[i]), v[i][0])
    o[i, 6] = wp.quat_inverse(p) - q
    r[i, 0] = wp.quat_rotate(p, v[i])
    r[i, 1] = wp.quat_rotate_inv(p, v[i])
    t = wp.transformd(v[i], p)
    u = wp.transformd(-v[i], q)
    r[i, 2] = wp.transform_point(t * u, v[i])
    r[i, 3] = wp.transform_vector(wp.transform_inverse(t), v[i])
    r[i, 4] = wp.transform_get_translation(wp.transform_multiply(u, t))
    m[i] = wp.quat_to_matrix(p)
