import warp as wp


@wp.kernel
def k(
    a: wp.array(dtype=wp.mat33),
    a2: wp.array(dtype=wp.mat22),
    om: wp.array(dtype=wp.mat33),
    ov: wp.array(dtype=wp.vec3),
    om2: wp.array(dtype=wp.mat22),
    ov2: wp.array(dtype=wp.vec2),
):
    i = wp.tid()
    m = a[i]
    U, s, V = wp.svd3(m)
    om[i * 8 + 0] = U
    om[i * 8 + 1] = V
    ov[i * 4 + 0] = s
    Q, R = wp.qr3(m)
    om[i * 8 + 2] = Q
    om[i * 8 + 3] = R
    sym = m + wp.transpose(m)
    E, d = wp.eig3(sym)
    om[i * 8 + 4] = E
    ov[i * 4 + 1] = d
    # the forms that write into variables
    U2 = wp.mat33()
    s2 = wp.vec3()
    V2 = wp.mat33()
    wp.svd3(m, U2, s2, V2)
    om[i * 8 + 5] = U2 * wp.diag(s2) * wp.transpose(V2)
    wp.qr3(m, Q, R)
    om[i * 8 + 6] = Q * R
    wp.eig3(sym, E, d)
    ov[i * 4 + 2] = d
    om[i * 8 + 7] = E
    m2 = a2[i]
    u, t, v = wp.svd2(m2)
    om2[i * 3 + 0] = u
    om2[i * 3 + 1] = v
    ov2[i * 2 + 0] = t
    u3 = wp.mat22()
    t3 = wp.vec2()
    v3 = wp.mat22()
    wp.svd2(m2, u3, t3, v3)
    om2[i * 3 + 2] = u3 * wp.diag(t3) * wp.transpose(v3)
    ov2[i * 2 + 1] = t3
    ax = wp.vec3()
    ang = float(0.0)
    wp.quat_to_axis_angle(wp.quat_from_matrix(U), ax, ang)
    ov[i * 4 + 3] = ax * ang
