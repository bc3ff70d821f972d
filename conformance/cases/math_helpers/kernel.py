import warp as wp


@wp.kernel
def k(
    v: wp.array(dtype=wp.vec3),
    q: wp.array(dtype=wp.quat),
    vd: wp.array(dtype=wp.vec3d),
    o: wp.array(dtype=float),
    ov: wp.array(dtype=wp.vec3),
    oq: wp.array(dtype=wp.quat),
    om: wp.array(dtype=wp.mat44),
    od: wp.array(dtype=wp.float64),
):
    i = wp.tid()
    x = v[i]
    r = q[i]
    o[i * 10 + 0] = wp.norm_huber(x)
    o[i * 10 + 1] = wp.norm_huber(x, 0.7)
    o[i * 10 + 2] = wp.norm_pseudo_huber(x)
    o[i * 10 + 3] = wp.norm_pseudo_huber(x, 2.5)
    axis, angle = wp.quat_to_axis_angle(r)
    o[i * 10 + 4] = angle
    ax = wp.normalize(x)
    o[i * 10 + 5] = wp.quat_twist_angle(ax, r)
    o[i * 10 + 6] = wp.quat_twist_angle_signed(ax, r)
    o[i * 10 + 7] = wp.div_approx(x[0], x[1])
    o[i * 10 + 8] = wp.norm_huber(wp.vec2(x[0], x[1]), 0.3)
    o[i * 10 + 9] = wp.norm_pseudo_huber(wp.vec4(x[0], x[1], x[2], 1.0))
    ov[i * 6 + 0] = wp.smooth_normalize(x)
    ov[i * 6 + 1] = wp.smooth_normalize(x, 0.1)
    ov[i * 6 + 2] = axis
    ov[i * 6 + 3] = wp.quat_to_euler(r, 0, 1, 2)
    ov[i * 6 + 4] = wp.quat_to_euler(r, 2, 0, 2)
    ov[i * 6 + 5] = wp.div_approx(x, 3.0)
    oq[i * 4 + 0] = wp.quat_twist(ax, r)
    oq[i * 4 + 1] = wp.quat_from_euler(x, 0, 1, 2)
    oq[i * 4 + 2] = wp.quat_from_euler(x, 2, 1, 0)
    oq[i * 4 + 3] = wp.quat_from_euler(x, 1, 0, 1)
    m = wp.transform_compose(x, r, wp.vec3(1.5, 0.5, 2.0))
    om[i * 3 + 0] = m
    p, rq, s = wp.transform_decompose(m)
    om[i * 3 + 1] = wp.transform_compose(p, rq, s)
    om[i * 3 + 2] = wp.inverse_approx(m)
    y = vd[i]
    md = wp.transform_compose(y, wp.quatd(wp.float64(0.6), wp.float64(0.0), wp.float64(0.0), wp.float64(0.8)), y)
    od[i * 3 + 0] = md[1, 1]
    od[i * 3 + 1] = md[2, 3]
    od[i * 3 + 2] = wp.inverse_approx(wp.mat22d(y[0], y[1], y[2], wp.float64(1.0)))[0, 1]
