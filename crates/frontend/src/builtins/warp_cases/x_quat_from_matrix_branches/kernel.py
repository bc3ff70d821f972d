import warp as wp


@wp.kernel
def k(q: wp.array(dtype=wp.quat), o: wp.array(dtype=wp.quat), m: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    r = wp.quat_to_matrix(q[i])
    o[i] = wp.quat_from_matrix(r)
    m[i] = r
