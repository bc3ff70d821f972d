import warp as wp


@wp.kernel
def k(v: wp.array(dtype=wp.vec4), m: wp.array(dtype=wp.mat33), q: wp.array(dtype=wp.quat),
      out: wp.array2d(dtype=float)):
    i = wp.tid()
    a = v[i]
    b = m[i]
    c = q[i]
    out[i, 0] = a[-1]
    out[i, 1] = a[-4]
    out[i, 2] = b[-1, -1]
    out[i, 3] = b[-2][-3]
    out[i, 4] = c[-2]
    j = -1 - (i % 3)
    out[i, 5] = a[j]
    out[i, 6] = b[j, j]
    out[i, 7] = c[j]
    r = b[j]
    out[i, 8] = r[-1]
    a[-1] = 2.0
    a[j] = a[j] + 1.0
    b[-1, -2] = 7.0
    out[i, 9] = a[3] + a[0] + a[1] + a[2] + b[2, 1]
