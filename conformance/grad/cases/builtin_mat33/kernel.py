import warp as wp

@wp.kernel
def mat_ops(a: wp.array(dtype=wp.mat33), b: wp.array(dtype=wp.mat33), x: wp.array(dtype=wp.vec3),
            c: wp.array2d(dtype=wp.mat33), f: wp.array2d(dtype=float), u: wp.array2d(dtype=wp.vec3)):
    i = wp.tid()
    m = a[i]
    n = b[i]
    c[i, 0] = wp.transpose(m)
    c[i, 1] = wp.inverse(m)
    c[i, 2] = m * n
    c[i, 3] = wp.skew(x[i])
    c[i, 4] = wp.diag(x[i])
    c[i, 5] = m * 2.0 + n
    f[i, 0] = wp.determinant(m)
    f[i, 1] = wp.trace(m)
    f[i, 2] = wp.ddot(m, n)
    u[i, 0] = m * x[i]
    u[i, 1] = x[i] * m
    u[i, 2] = wp.get_diag(n)
