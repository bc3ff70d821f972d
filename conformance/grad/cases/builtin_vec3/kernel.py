import warp as wp

@wp.kernel
def vec_ops(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), s: wp.array(dtype=float),
            f: wp.array2d(dtype=float), v: wp.array2d(dtype=wp.vec3), m: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    f[i, 0] = wp.dot(x, y)
    f[i, 1] = wp.length(x)
    f[i, 2] = wp.length_sq(x)
    f[i, 3] = wp.min(x)
    f[i, 4] = wp.max(y)
    f[i, 5] = x[1] * s[i]
    v[i, 0] = wp.cross(x, y)
    v[i, 1] = wp.normalize(x)
    v[i, 2] = wp.abs(x)
    v[i, 3] = wp.min(x, y)
    v[i, 4] = wp.max(x, y)
    v[i, 5] = wp.cw_mul(x, y)
    v[i, 6] = wp.cw_div(x, y)
    v[i, 7] = x * s[i] - y / s[i]
    v[i, 8] = -x
    m[i] = wp.outer(x, y)
