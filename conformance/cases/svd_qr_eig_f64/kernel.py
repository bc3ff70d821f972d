import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.mat33d), om: wp.array(dtype=wp.mat33d), ov: wp.array(dtype=wp.vec3d), o2: wp.array(dtype=wp.mat22d)):
    i = wp.tid()
    m = a[i]
    U, s, V = wp.svd3(m)
    om[i * 4 + 0] = U
    om[i * 4 + 1] = V
    ov[i * 2 + 0] = s
    Q, R = wp.qr3(m)
    om[i * 4 + 2] = R
    E, d = wp.eig3(m + wp.transpose(m))
    om[i * 4 + 3] = E
    ov[i * 2 + 1] = d
    m2 = wp.mat22d(m[0, 0], m[0, 1], m[1, 0], m[1, 1])
    u, t, v = wp.svd2(m2)
    o2[i * 2 + 0] = u
    o2[i * 2 + 1] = wp.diag(t) * v
