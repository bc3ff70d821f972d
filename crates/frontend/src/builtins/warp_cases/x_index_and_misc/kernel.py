import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.vec4), m: wp.array(dtype=wp.mat33), o: wp.array2d(dtype=float), ob: wp.array2d(dtype=int), ov: wp.array2d(dtype=wp.vec3i)):
    i = wp.tid()
    v = a[i]
    j = i % 4
    o[i, 0] = v[j]
    o[i, 1] = v[-1]
    o[i, 2] = m[i][j % 3, 2 - j % 3]
    v[j] = 100.0
    o[i, 3] = v[0] + v[1] + v[2] + v[3]
    mm = m[i]
    mm[j % 3] = wp.vec3(1.0, 2.0, 3.0)
    mm[0, j % 3] = 7.0
    o[i, 4] = wp.trace(mm) + mm[1, 0]
    o[i, 5] = wp.outer(wp.vec2(v[0], v[1]), wp.vec3(1.0, 2.0, 3.0))[1, 2]
    o[i, 6] = wp.matrix_from_rows(wp.vec2(1.0, 2.0), wp.vec2(3.0, v[2]))[1, 1]
    o[i, 7] = wp.where(v[0] > 0.0, 1.0, -1.0) * wp.copysign(2.0, v[1])
    o[i, 8] = float(wp.argmin(v)) + float(wp.argmax(wp.vec3(1.0, 1.0, 0.0)))
    o[i, 9] = float(len(v)) + float(len(mm))
    q = wp.quat(v[0], v[1], v[2], v[3])
    o[i, 10] = q.w + q[0]
    ob[i, 0] = int(wp.isnan(v / 0.0))
    ob[i, 1] = int(wp.isinf(v / 0.0))
    ob[i, 2] = int(wp.isfinite(v))
    ob[i, 3] = int(v == a[i])
    ob[i, 4] = int(not (v == a[i]))
    x = wp.vec3i(i, -i, 3)
    y = wp.vec3i(2, 3, -4)
    ov[i, 0] = x + y
    ov[i, 1] = x * 3
    ov[i, 2] = wp.max(x, y)
    ov[i, 3] = wp.cw_mul(x, y)
    ov[i, 4] = x % y
