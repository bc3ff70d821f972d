import warp as wp


mat22i = wp.types.matrix(shape=(2, 2), dtype=wp.int32)
mat23i = wp.types.matrix(shape=(2, 3), dtype=wp.int32)


@wp.kernel
def k(m: wp.array(dtype=wp.vec4i), f: wp.array(dtype=wp.vec4), o: wp.array(dtype=int), of: wp.array(dtype=float)):
    i = wp.tid()
    a = m[i]
    c = m[(i + 3) % 8]
    p = mat22i(a[0], a[1], a[2], a[3])
    r = mat22i(c[0], c[1], c[2], c[3])
    v = wp.vec2i(c[0], c[3])
    s = mat23i(a[0], a[1], a[2], a[3], c[0], c[1])
    pr = p @ r
    pv = p @ v
    vp = v @ p
    ps = p @ s
    o[i * 12 + 0] = pr[0, 0]
    o[i * 12 + 1] = pr[0, 1]
    o[i * 12 + 2] = pr[1, 0]
    o[i * 12 + 3] = pr[1, 1]
    o[i * 12 + 4] = pv[0]
    o[i * 12 + 5] = pv[1]
    o[i * 12 + 6] = vp[0]
    o[i * 12 + 7] = vp[1]
    o[i * 12 + 8] = ps[1, 2]
    o[i * 12 + 9] = wp.ddot(p, r)
    o[i * 12 + 10] = dot(v, v)
    o[i * 12 + 11] = (p * r)[1, 1] - pr[1, 1]
    x = f[i]
    g = wp.mat22(x[0], x[1], x[2], x[3])
    h = g @ wp.transpose(g)
    expect_eq(h, g * wp.transpose(g))
    of[i * 4 + 0] = h[0, 1]
    of[i * 4 + 1] = (g @ wp.vec2(x[1], x[2]))[1]
    of[i * 4 + 2] = max(abs(x[0]), floor(x[1]))
    of[i * 4 + 3] = ddot(g, h)
