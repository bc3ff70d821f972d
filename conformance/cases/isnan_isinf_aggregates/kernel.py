import warp as wp


@wp.kernel
def k(q: wp.array(dtype=wp.quat), qd: wp.array(dtype=wp.quatd), m: wp.array(dtype=wp.mat22), o: wp.array(dtype=int)):
    i = wp.tid()
    x = q[i]
    y = qd[i]
    z = m[i]
    v = wp.vec3h(wp.float16(x[0]), wp.float16(x[1]), wp.float16(x[2]))
    o[i * 10 + 0] = int(wp.isnan(x))
    o[i * 10 + 1] = int(wp.isinf(x))
    o[i * 10 + 2] = int(wp.isfinite(x))
    o[i * 10 + 3] = int(wp.isnan(y))
    o[i * 10 + 4] = int(wp.isinf(y))
    o[i * 10 + 5] = int(wp.isfinite(y))
    o[i * 10 + 6] = int(wp.isnan(z))
    o[i * 10 + 7] = int(wp.isinf(z))
    o[i * 10 + 8] = int(wp.isfinite(z))
    o[i * 10 + 9] = int(wp.isnan(v)) + 2 * int(wp.isinf(v))
