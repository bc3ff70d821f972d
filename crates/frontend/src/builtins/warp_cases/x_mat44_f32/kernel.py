import warp as wp


@wp.kernel
def k(c: wp.array(dtype=wp.mat44), ic: wp.array(dtype=wp.mat44), d: wp.array(dtype=float), tp: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat)):
    i = wp.tid()
    ic[i] = wp.inverse(c[i])
    d[i] = wp.determinant(c[i])
    tp[i] = wp.transform_point(c[i], wp.vec3(1.0, 2.0, 3.0)) + wp.transform_vector(c[i], wp.vec3(-1.0, 0.5, 0.25))
    q[i] = wp.quat_from_matrix(c[i])
