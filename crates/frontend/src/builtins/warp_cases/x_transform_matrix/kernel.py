import warp as wp


@wp.kernel
def k(p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), m: wp.array(dtype=wp.mat44), t: wp.array(dtype=wp.transform),
      rpy: wp.array(dtype=wp.vec3), nrm: wp.array2d(dtype=float), pd: wp.array(dtype=wp.vec3d), md: wp.array(dtype=wp.mat44d)):
    i = wp.tid()
    xf = wp.transform(p[i], q[i])
    m[i] = wp.transform_to_matrix(xf)
    t[i] = wp.transform_from_matrix(m[i])
    rpy[i] = wp.quat_to_rpy(q[i])
    nrm[i, 0] = wp.norm_l1(p[i])
    nrm[i, 1] = wp.norm_l2(p[i])
    xd = wp.transformd(pd[i], wp.quatd(wp.float64(0.0), wp.float64(0.6), wp.float64(0.0), wp.float64(0.8)))
    md[i] = wp.transform_to_matrix(xd)
