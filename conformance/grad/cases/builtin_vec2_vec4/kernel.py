import warp as wp

@wp.kernel
def vec_sizes(a: wp.array(dtype=wp.vec2), b: wp.array(dtype=wp.vec4), f: wp.array2d(dtype=float),
              na: wp.array(dtype=wp.vec2), nb: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    f[i, 0] = wp.length(a[i])
    f[i, 1] = wp.length(b[i])
    f[i, 2] = wp.dot(b[i], b[i])
    na[i] = wp.normalize(a[i])
    nb[i] = wp.normalize(b[i]) * 2.0
