import warp as wp


@wp.struct
class S0:
    f0: wp.mat44
    f1: wp.float32
    f2: wp.bool
    f3: wp.vec4ui

@wp.struct
class S1:
    f0: wp.int32
    f1: wp.int8
    f2: wp.float32

@wp.func
def fn0(arr: wp.array(dtype=wp.transform, ndim=2), p0: wp.transform) -> wp.float16:
    v8 = wp.where(True, wp.lerp(wp.vec2((-2.6875), (-0.40625)), wp.vec2((-50.25), 0.375), wp.sign(1.375)), (wp.vec2(83.0, (-20.375)) + wp.vec2(69.375, 9.75)))
    v9 = (wp.nonzero((3.875 * 2.0)) + wp.length((wp.vec4((-59.125), 1.25, (-2.0), 4.0) * 0.16015625)))
    if (wp.trunc((v9 * v9)) > v9):
        v8.y = (((v9 % v9) / (-v9)) if (wp.float16(wp.inf) == (wp.float16(15.125) % wp.float16(v9))) else wp.max(v8))
        v8.x = wp.nonzero(((32.75 // v9) / v9))
        for k10 in range((((wp.int32(v9) + (-1)) if (v9 <= v9) else wp.int32(v9))) % 5):
            v11 = k10
            v8 = wp.lerp(v8, ((wp.mat22((-91.375), v9, v9, v9) * wp.vec2((-2.125), 2.0)) + v8), (wp.float32(v9) - (v9 % v9)))
            rng12 = wp.rand_init(wp.max(wp.vec2i(9, (-174)).y, wp.max(v11, v11)))
            v13 = wp.where(False, wp.clamp(v11, (k10 - k10), wp.min(wp.int32(k10), k10)), (wp.int32(v9) - (~k10)))
    else:
        v14 = wp.where((wp.isnan(v9) and False), wp.transformd(wp.vec3d(wp.float64(0.1875), wp.float64((-7.0)), wp.float64(8.0)), wp.quatd(wp.float64((-4.0)), wp.float64(v9), wp.float64(51.375), wp.float64((-2.5)))), wp.where(True, wp.transformd(wp.vec3d(wp.float64(3.0), wp.float64(1.0), wp.float64((-5.5))), wp.quatd(wp.float64((-0.5)), wp.float64(0.5), wp.float64(0.0), wp.float64(1.0))), wp.transformd(wp.vec3d(wp.float64((-wp.inf)), wp.float64(0.0), wp.float64((-8.0))), wp.quatd(wp.float64(2.125), wp.float64(v9), wp.float64((-0.5)), wp.float64((-11.125))))))
        rng15 = wp.rand_init(wp.dot((wp.vec4i((-2), 8, 4, 0) if (v9 == (-142.0)) else wp.vec4i(wp.int32(v9), 232, 140, (-2))), (wp.vec4i((-140), (-5), wp.int32(v9), wp.int32(v9)) if (v9 >= (-59.375)) else wp.vec4i((-225), (-6), 7, wp.int32(v9)))))
        v16 = wp.trunc(wp.nonzero(v9))
    v8 *= wp.min(wp.sqrt(wp.quat(wp.float32(v9), v9, v9, 2.0625)[0]), wp.min((wp.vec2((-103.0), (-2.0)) if True else wp.vec2((-8.0), v9))))
    v8[1] = ((-wp.length_sq(wp.vec3(v9, v9, (-56.125)))) - wp.length(wp.quat_rotate_inv(wp.quat(v9, v9, v9, v9), wp.vec3(v9, v9, v9))))
    return wp.float16(2.625)

@wp.func
def fn1(p0: wp.float32):
    if (not (not False)):
        v17 = S0()
        v18 = (((wp.uint32(0) + wp.uint32(4)) * wp.uint32(179)) - wp.uint32(8))
        v18 -= ((wp.vec2ui(v18, v18).y & (v18 >> v18)) // ((wp.uint32(7) & v18) >> (v18 ^ v18)))
    elif (wp.dot((wp.vec4i((-6), wp.int32(p0), 1, wp.int32(p0)) + wp.vec4i((-1), (-7), (-5), 1)), (wp.vec4i((-7), (-7), (-2), 225) - wp.vec4i((-1), (-261), 9, 2))) <= ((4 + 294) if (p0 >= (-3.0)) else (-wp.int32(p0)))):
        v19 = wp.max(((wp.vec3ul(wp.uint64(9), wp.uint64(0), wp.uint64(8)) - wp.vec3ul(wp.uint64(p0), wp.uint64(18), wp.uint64(4))) | (wp.vec3ul(wp.uint64(0), wp.uint64(0), wp.uint64(0)) + wp.vec3ul(wp.uint64(0), wp.uint64(p0), wp.uint64(p0)))), wp.abs((wp.vec3ul(wp.uint64(p0), wp.uint64(80), wp.uint64(0)) + wp.vec3ul(wp.uint64(p0), wp.uint64(175), wp.uint64(254)))))
    return wp.quat_from_axis_angle((wp.vec3(p0, p0, p0) if (9 <= 37) else wp.vec3(p0, p0, p0)), p0 % wp.float32(64.0)), (p0 * wp.lerp(wp.vec3((-0.0576171875), (-85.375), 0.375), wp.vec3(p0, p0, p0), (p0 - 7.0)))

@wp.kernel
def kern(
    a1: wp.array(dtype=wp.transform, ndim=2),  # weft: layout=soa
    a2: wp.array3d(dtype=S1),
    a3: wp.array(dtype=wp.uint16, ndim=3),
    o4: wp.array2d(dtype=wp.mat33),
    o5: wp.array(dtype=S1, ndim=3),
    o6: wp.array3d(dtype=wp.int16),
    o7: wp.array2d(dtype=wp.float32),
    n: wp.int32,
    s0: wp.vec4,
    s1: wp.vec2d,
):
    t0, t1 = wp.tid()
    v20 = ((wp.vec2(o7[t0, t1], o7[t0, t1]) - (wp.vec2(5.0, 55.0) * 3.4375)) + (wp.mat22(o7[t0, t1], o7[t0, t1], o7[t0, t1], o7[t0, t1]) * wp.vec2(o7[t0, t1], o7[t0, t1])))
    v21 = wp.where((not (n > t1)), (wp.quat_identity(dtype=wp.float32) - wp.quat_identity(dtype=wp.float32)), wp.quat(wp.nonzero(o7[t0, t1]), (o7[t0, t1] % o7[t0, t1]), (-o7[t0, t1]), wp.float32((5 != 0))))
    if (not wp.isnan(wp.float64(t0))):
        v22 = S0()
        v20.x = wp.abs((v21 - v21)[3])
        if True:
            v23 = o5[t0, t1, 1]
            o4[t0, t1] = (wp.diag((wp.vec3((-5.0), (-0.04052734375), 3.5625) - wp.vec3((-56.75), 85.875, (-1.375)))) * (o4[t0, t1] if (t1 != (-72)) else (o4[t0, t1] + o4[t0, t1])))
            v20 += wp.matrix_from_cols(v20, (v20 + wp.vec2(wp.float32(o7[t0, t1]), o7[t0, t1])))[1]
    o4[t0, t1] = ((o4[t0, t1] * 332.0) * o4[t0, t1])
    o5[t0, t1, 0] = a2[((2 % 13) + 13) % 13, 1, 0]
    o5[t0, t1, 1] = a2[t0, t1, 0]
    o5[t0, t1, 2] = S1(f0=wp.int32((t0 != 0)), f1=(wp.int8(-4) * wp.int8(o7[t0, t1])), f2=o7[t0, t1])
    o6[t0, t1, 0] = ((-wp.vec3s(wp.int16(-4), wp.int16(2), wp.int16(8))) + (wp.vec3s(wp.int16(25), wp.int16(253), wp.int16(n)) + wp.vec3s(wp.int16(t1), wp.int16(t0), wp.int16(292))))[2]
    o7[t0, t1] = o7[t0, t1]
