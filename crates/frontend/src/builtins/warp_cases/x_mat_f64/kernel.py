import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.mat22d), b: wp.array(dtype=wp.mat33d), c: wp.array(dtype=wp.mat44d),
      ia: wp.array(dtype=wp.mat22d), ib: wp.array(dtype=wp.mat33d), ic: wp.array(dtype=wp.mat44d), d: wp.array2d(dtype=wp.float64),
      pb: wp.array(dtype=wp.mat33d), vb: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    ia[i] = wp.inverse(a[i])
    ib[i] = wp.inverse(b[i])
    ic[i] = wp.inverse(c[i])
    d[i, 0] = wp.determinant(a[i])
    d[i, 1] = wp.determinant(b[i])
    d[i, 2] = wp.determinant(c[i])
    d[i, 3] = wp.trace(c[i])
    pb[i] = b[i] * wp.transpose(b[i]) + wp.skew(wp.vec3d(b[i][0, 0], b[i][1, 1], b[i][2, 2])) - wp.diag(wp.vec3d(wp.float64(1.0), wp.float64(2.0), wp.float64(3.0)))
    vb[i] = b[i] * wp.vec3d(wp.float64(1.0), wp.float64(-2.0), wp.float64(0.5)) + wp.vec3d(wp.float64(0.5), wp.float64(1.0), wp.float64(2.0)) * b[i]
