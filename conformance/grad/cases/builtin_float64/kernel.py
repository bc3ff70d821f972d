import warp as wp

@wp.kernel
def f64_ops(a: wp.array(dtype=wp.vec3d), s: wp.array(dtype=wp.float64), f: wp.array2d(dtype=wp.float64),
            v: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    x = a[i]
    f[i, 0] = wp.length(x)
    f[i, 1] = wp.exp(s[i]) * wp.float64(0.5)
    f[i, 2] = wp.atan2(x[1], x[0])
    f[i, 3] = wp.abs(s[i]) + wp.sqrt(wp.abs(s[i]) + wp.float64(1.0))
    v[i] = wp.normalize(x) * wp.cos(s[i])
