import warp as wp


@wp.func
def fn0(p0: wp.float32) -> wp.float32:
    v1 = wp.vec4i(149, ((-7) ^ 109), wp.vec4i((-9), 4, (-197), wp.int32(p0))[0], ((-7) + 4))[2]
    return wp.float32(wp.min(wp.int64(-7), wp.int64(-6)))

@wp.func
def fn1(p0: wp.vec2ui) -> wp.quat:
    v2 = wp.quatd(wp.float64((-3.0)), wp.float64((-2.9375)), wp.float64((-1.390625)), wp.float64((-0.00048828125)))
    for k3 in range(2):
        for k4 in range((wp.where((wp.int8(k3) != wp.int8(7)), k3, (-k3))) % 5):
            v5 = wp.mat22((-120.875), 0.00225830078125, 0.0107421875, 22.5)[1]
            if False:
                break
        v6 = (float(wp.sign(wp.int8(1))) <= (-((-66.625) + wp.float32(wp.nan))))
    v7 = wp.step(98.875)
    v2 = wp.quat_identity(dtype=wp.float64)
    v7 = fn0(v7)
    return wp.quat((-1.9375), 0.022216796875, (-79.25), 3.3125)

@wp.kernel
def kern(
    a8: wp.array(dtype=wp.bool, ndim=2),
    a9: wp.array3d(dtype=wp.float64),
    a10: wp.array3d(dtype=wp.quat),
    o11: wp.array(dtype=wp.quatd, ndim=2),
    o12: wp.array(dtype=wp.bool, ndim=2),
    r13: wp.array(dtype=wp.uint32, ndim=2),
    r14: wp.array(dtype=wp.uint32, ndim=2),
    n: wp.int32,
    s0: wp.float32,
    s1: wp.int32,
):
    t0, t1 = wp.tid()
    wp.atomic_add(r13, t0, 1, wp.uint32(0))
    if o12[t0, t1]:
        w15 = int(0)
        while w15 < 4:
            w15 = w15 + 1
            if (t0 < (-9)):
                v16 = (-wp.vec3i(wp.int32(w15), w15, t0))
                v17 = wp.log2(((s0 * s0) * s0))
            else:
                wp.atomic_add(r13, t0, ((int(False) % r13.shape[1]) + r13.shape[1]) % r13.shape[1], wp.uint32(0))
                v18 = wp.clamp(wp.int8(8), (wp.int8(127) + wp.abs(wp.int8(-1))), wp.int8(68))
                v19 = (wp.int16(2) ^ (wp.int16(-207) + (wp.int16(146) >> wp.int16(1))))
            continue
        wp.atomic_add(r13, ((wp.vec3i(n, t1, s1)[0] % r13.shape[0]) + r13.shape[0]) % r13.shape[0], ((wp.min(t1, 186) % 2) + 2) % 2, wp.uint32((wp.dot(wp.vec4us(wp.uint16(274), wp.uint16(0), wp.uint16(7), wp.uint16(0)), wp.vec4us(wp.uint16(1), wp.uint16(s0), wp.uint16(227), wp.uint16(0))) << wp.max(wp.uint16(0), wp.clamp(wp.uint16(0), wp.uint16(s1), wp.uint16(t1))))))
        o12[t0, t1] = ((wp.max(s0, s0) // s0) > s0)
    if wp.bool(wp.vec2i(t1, t0).y):
        v20 = s1
    elif wp.isinf(wp.float64(0.3125)):
        pass
    o11[t0, t1] = wp.normalize(o11[t0, t1])
    o12[t0, t1] = o12[t0, t1]
