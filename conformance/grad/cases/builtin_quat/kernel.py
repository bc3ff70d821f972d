import warp as wp

@wp.kernel
def quat_ops(q: wp.array(dtype=wp.quat), p: wp.array(dtype=wp.quat), axis: wp.array(dtype=wp.vec3),
             ang: wp.array(dtype=float), x: wp.array(dtype=wp.vec3),
             oq: wp.array2d(dtype=wp.quat), ov: wp.array2d(dtype=wp.vec3), om: wp.array(dtype=wp.mat33),
             f: wp.array2d(dtype=float)):
    i = wp.tid()
    a = q[i]
    b = p[i]
    oq[i, 0] = a * b
    oq[i, 1] = wp.quat_inverse(a)
    oq[i, 2] = wp.quat_from_axis_angle(wp.normalize(axis[i]), ang[i])
    oq[i, 3] = wp.quat_slerp(a, b, 0.3)
    oq[i, 4] = wp.normalize(a * 2.0)
    oq[i, 5] = wp.quat_from_matrix(wp.quat_to_matrix(b))
    oq[i, 6] = wp.quat_rpy(ang[i], 0.5 * ang[i], -ang[i])
    ov[i, 0] = wp.quat_rotate(a, x[i])
    ov[i, 1] = wp.quat_rotate_inv(b, x[i])
    om[i] = wp.quat_to_matrix(a)
    f[i, 0] = wp.length(a)
    f[i, 1] = wp.dot(a, b)
