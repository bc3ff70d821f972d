import warp as wp

@wp.kernel
def mat_sizes(a: wp.array(dtype=wp.mat22), b: wp.array(dtype=wp.mat44), f: wp.array2d(dtype=float),
              ia: wp.array(dtype=wp.mat22), ib: wp.array(dtype=wp.mat44)):
    i = wp.tid()
    f[i, 0] = wp.determinant(a[i])
    f[i, 1] = wp.determinant(b[i])
    ia[i] = wp.inverse(a[i])
    ib[i] = wp.inverse(b[i])
