import warp as wp


@wp.kernel
def k(s: wp.array(dtype=float), m3: wp.array(dtype=wp.mat33), m2: wp.array(dtype=wp.mat22), m4: wp.array(dtype=wp.mat44),
      q: wp.array(dtype=wp.quat), v: wp.array(dtype=wp.vec3), f: wp.array2d(dtype=float)):
    i = wp.tid()
    x = s[i]
    m3[i] = wp.inverse(wp.mat33(x, 2.0 * x, 3.0, x, 2.0 * x, 3.0, 1.0, 0.0, 1.0))
    m2[i] = wp.inverse(wp.mat22(x, x, x, x))
    m4[i] = wp.inverse(wp.mat44(x, 0.0, 0.0, 0.0, 0.0, x, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, x))
    q[i] = wp.normalize(wp.quat(x, 0.0, 0.0, 0.0) * 0.0)
    v[i] = wp.normalize(wp.vec3(x, x, 0.0))
    f[i, 0] = wp.smoothstep(1.0, 1.0, x)
    f[i, 1] = wp.clamp(x, -1.0, 1.0)
    f[i, 2] = wp.sign(x)
    f[i, 3] = wp.min(x, 0.5)
    f[i, 4] = wp.frac(x)
    f[i, 5] = x // 0.5
    f[i, 6] = x % 0.75
    f[i, 7] = wp.acos(x)
