import warp as wp


@wp.kernel
def k(r: wp.array(dtype=wp.mat33), x: wp.array(dtype=float), om: wp.array(dtype=wp.spatial_matrix),
      omd: wp.array(dtype=wp.spatial_matrixd), sv: wp.array(dtype=wp.spatial_vectorh)):
    i = wp.tid()
    R = r[i]
    S = wp.skew(wp.vec3(1.0, 2.0, 3.0)) * R
    om[i] = wp.spatial_adjoint(R, S)
    omd[i] = wp.spatial_adjoint(wp.mat33d(R), wp.mat33d(S))
    h = wp.spatial_vectorh(wp.float16(x[i]), wp.float16(1.0), wp.float16(2.0), wp.float16(0.5), wp.float16(-1.0), wp.float16(0.25))
    g = wp.spatial_vectorh(wp.float16(0.5), wp.float16(x[i]), wp.float16(-2.0), wp.float16(1.5), wp.float16(1.0), wp.float16(0.75))
    sv[i * 2 + 0] = wp.spatial_cross(h, g)
    sv[i * 2 + 1] = wp.spatial_cross_dual(h, g)
