import warp as wp


@wp.struct
class S0:
    f0: wp.transformd
    f1: wp.vec4

@wp.struct
class S1:
    f0: wp.vec2
    f1: wp.int32
    f2: S0
    f3: wp.float32

@wp.kernel
def kern(
    a1: wp.array2d(dtype=wp.vec4l),  # weft: layout=soa
    a2: wp.array(dtype=wp.vec2),  # weft: layout=soa
    a3: wp.array(dtype=wp.vec4),
    o4: wp.array(dtype=wp.mat22),
    o5: wp.array2d(dtype=wp.float64),
    o6: wp.array2d(dtype=wp.mat22d),  # weft: layout=soa
    o7: wp.array(dtype=wp.vec3ui),
    r8: wp.array(dtype=wp.vec2i),
    n: wp.int32,
):
    t0 = wp.tid()
    if (0.001953125 > wp.clamp(float((t0 != 0)), (-8.0), wp.where(False, (-8.0), wp.float32((-wp.inf))))):
        if wp.isfinite(wp.float16((-7.0))):
            for k9 in range(-1, -1):
                v10 = wp.mat33(wp.float32(wp.inf), (-2.0), (-1.0625), (-2.0), 9.1875, 0.003021240234375, 63.75, (-4.0), (-24.125))
                if True:
                    continue
        elif False:
            if True:
                pass
            else:
                rng11 = wp.rand_init((wp.where((n != (-4)), n, n) % (t0 - t0)))
                v12 = wp.atomic_min(o5, t0, 2, ((o6[t0, 0] - o6[t0, 0])[0, 1] % wp.round(wp.dot(wp.vec4d(wp.float64((-0.01611328125)), wp.float64(0.0), wp.float64((-0.375)), wp.float64((-0.00439453125))), wp.vec4d(o5[t0, 1], o5[t0, 2], o5[t0, 2], o5[t0, 2])))))
            v13 = wp.isnan(wp.float64(wp.abs(t0)))
    if True:
        pass
    elif False:
        v14 = wp.atomic_sub(o5, t0, 0, (o5[t0, 0] // (o5[t0, 2] // (o5[t0, 1] * o5[t0, 0]))))
    else:
        v15 = wp.where(True, (wp.vec4b(wp.int8(3), wp.int8(1), wp.int8(7), wp.int8(-6))[3] - wp.int8(3)), wp.min(wp.int8((-3.4375)), wp.int8(1)))
        v16 = wp.lerp((wp.vec4(23.625, 0.0, (-5.0), (-7.0)) - a3[t0]), ((wp.mat44(wp.float32(n), wp.float32(n), 3.0, 2.1875, wp.float32(n), 0.0, wp.float32((-wp.inf)), 3.1875, (-2.6875), 86.0, wp.float32(t0), 95.75, 0.004364013671875, (-2.0), (-0.0), (-0.87890625)) * 2.4375) * wp.vec4(wp.float32(n), wp.float32(o5[t0, 0]), wp.float32(n), wp.float32(n))), (0.0260009765625 - wp.float32(o5[t0, 2])))
    for k17 in range(3, 4, -1):
        w18 = int(0)
        while w18 < 2 and wp.isfinite(wp.lerp(wp.float16((-4.6875)), wp.float16(30.3125), wp.float16(n))):
            w18 = w18 + 1
            o6[t0, 0] = o6[t0, 1]
            o7[t0] = (o7[t0] if (not (not (wp.vec4ui(wp.uint32(0), wp.uint32(w18), wp.uint32(w18), wp.uint32(0)) == wp.vec4ui(wp.uint32(k17), wp.uint32(0), wp.uint32(k17), wp.uint32(n))))) else (wp.vec3ui(wp.uint32(6), wp.uint32(n), wp.uint32(0)) % wp.max(o7[t0], o7[t0])))
    w19 = int(0)
    while w19 < 2 and (wp.min(wp.vec2d(wp.float64(t0), o5[t0, 0])) > (o5[t0, 2] * o5[t0, 1])):
        w19 = w19 + 1
        for k20 in range(0, -8, -2):
            o7[t0] = wp.abs(wp.vec3ui(wp.dot(wp.vec4ui(wp.uint32(0), wp.uint32(9), wp.uint32(9), wp.uint32(1)), wp.vec4ui(wp.uint32(n), wp.uint32(0), wp.uint32(6), wp.uint32(o5[t0, 2]))), (wp.uint32(5) << wp.uint32(55)), wp.uint32(1)))
    v21 = ((wp.transpose(wp.mat44h(wp.float16((-10.25)), wp.float16(23.0), wp.float16(5.25), wp.float16(0.6875), wp.float16(20.125), wp.float16(1.5625), wp.float16((-1.25)), wp.float16(2.0), wp.float16(1.75), wp.float16(0.0), wp.float16(14.625), wp.float16((-0.3125)), wp.float16(7.0), wp.float16((-0.5)), wp.float16(0.0), wp.float16((-1.375)))) if (wp.int16(-2) == wp.int16(4)) else (wp.float16((-4.0)) * wp.mat44h(wp.float16(2.25), wp.float16((-1.0)), wp.float16((-wp.inf)), wp.float16((-6.0)), wp.float16((-5.0)), wp.float16(0.01116943359375), wp.float16((-14.03125)), wp.float16(o5[t0, 2]), wp.float16((-3.625)), wp.float16((-2.78125)), wp.float16((-3.0)), wp.float16(t0), wp.float16(w19), wp.float16(0.060791015625), wp.float16((-4.0)), wp.float16((-3.4375))))) * wp.mat44h(wp.float16((-2.875)), wp.float16(o5[t0, 0]), wp.float16(3.0), wp.float16((-3.9375)), wp.float16((-16.25)), wp.float16(n), wp.float16((-5.9375)), wp.float16((-0.91796875)), wp.float16((-3.125)), wp.float16(0.0), wp.float16(4.0), wp.float16((-1.6875)), wp.float16(o5[t0, 2]), wp.float16((-15.375)), wp.float16(5.0), wp.float16((-2.125))))
    v22 = (((a2[(((t0 & t0) % a2.shape[0]) + a2.shape[0]) % a2.shape[0]] - a2[((int((-3.0)) % a2.shape[0]) + a2.shape[0]) % a2.shape[0]]) - o4[t0][1]) + (wp.vec2((-0.0264892578125), wp.float32(t0)) - wp.vec2(7.71875, wp.float32(t0))))
    v23 = S1()
    o4[t0] = wp.identity(n=2, dtype=wp.float32)
    o5[t0, 0] = o5[t0, 0]
    o5[t0, 1] = o5[t0, 0]
    o5[t0, 2] = wp.float64(n)
    o6[t0, 0] = (o6[t0, 0] * wp.mat22d(o5[t0, 0], o5[t0, 1], o5[t0, 0], o5[t0, 1]))
    o6[t0, 1] = o6[t0, 1]
    o7[t0] = wp.cw_mul(o7[t0], wp.vec3ui((~wp.uint32(8)), wp.uint32(8), wp.uint32(4)))
