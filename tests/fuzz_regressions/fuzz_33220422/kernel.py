import warp as wp


@wp.func
def fn0(arr: wp.array(dtype=wp.int32, ndim=1), p0: wp.vec2h, p1: wp.float32) -> wp.float32:
    if (((wp.float16((-8.96875)) * wp.float16(arr[(((-145) % arr.shape[0]) + arr.shape[0]) % arr.shape[0]])) // (wp.float16(1.125) + wp.float16(arr[((wp.vec3i((-220), 1073741824, (-5)).y % arr.shape[0]) + arr.shape[0]) % arr.shape[0]]))) == (wp.float16(p1) * wp.vec3h(wp.float16((-0.02001953125)), wp.float16(0.25), wp.float16(0.25)).y)):
        return p1
    return wp.float32(p1)

@wp.func
def fn1(arr: wp.array(dtype=wp.transform, ndim=1), p0: wp.mat22, p1: wp.float32) -> wp.mat22:
    for k7 in range(((((-2) % wp.int32(p1)) - (-9))) % 5):
        v8 = wp.dot((wp.vec4i(k7, k7, k7, k7) - (wp.vec4i(k7, k7, k7, k7) * k7)), (-wp.vec4i(k7, k7, k7, 97)))
        w9 = int(0)
        while w9 < 4:
            w9 = w9 + 1
            v10 = wp.transpose(((wp.mat44d(wp.float64(7.0), wp.float64(p1), wp.float64((-1.3125)), wp.float64((-1.6875)), wp.float64(37.75), wp.float64((-2.0)), wp.float64(p1), wp.float64(p1), wp.float64((-1.0)), wp.float64(p1), wp.float64(p1), wp.float64(115.75), wp.float64(3.0), wp.float64((-1.0)), wp.float64(p1), wp.float64(p1)) * wp.float64(p1)) + (wp.mat44d(wp.float64((-76.5)), wp.float64((-73.625)), wp.float64((-1.625)), wp.float64(238.0), wp.float64((-7.0)), wp.float64(2.0), wp.float64((-62.625)), wp.float64(1.0625), wp.float64((-93.125)), wp.float64(3.0), wp.float64(95.625), wp.float64(354.0), wp.float64((-2.0)), wp.float64((-35.625)), wp.float64((-3.0)), wp.float64(2.0)) - wp.mat44d(wp.float64(p1), wp.float64(w9), wp.float64(2.5625), wp.float64((-6.125)), wp.float64(p1), wp.float64(27.875), wp.float64((-4.25)), wp.float64(0.0), wp.float64(0.38671875), wp.float64(6.0), wp.float64(w9), wp.float64((-5.0)), wp.float64(p1), wp.float64((-0.5)), wp.float64(p1), wp.float64(p1)))))
            v10[1] = (wp.vec4d(wp.float64(p1), wp.float64(p1), (wp.float64(3.1875) + wp.float64((-38.5))), wp.length_sq(wp.vec4d(wp.float64(0.0), wp.float64(p1), wp.float64(p1), wp.float64(118.0)))) if False else (wp.mat44d(wp.float64(33.375), wp.float64((-0.0233154296875)), wp.float64(3.8125), wp.float64(0.875), wp.float64((-0.0091552734375)), wp.float64((-100.75)), wp.float64(0.0), wp.float64(v8), wp.float64(p1), wp.float64(0.00341796875), wp.float64(2.125), wp.float64((-1.5625)), wp.float64(2.125), wp.float64((-46.125)), wp.float64(k7), wp.float64(k7)) * wp.mat44d(wp.float64((-20.125)), wp.float64(146.0), wp.float64((-58.875)), wp.float64((-2.125)), wp.float64(p1), wp.float64(k7), wp.float64(p1), wp.float64(2.0), wp.float64(k7), wp.float64(w9), wp.float64(p1), wp.float64(p1), wp.float64(9.375), wp.float64(0.1875), wp.float64(0.0), wp.float64(k7)))[1])
            v8 = int(wp.int8(8))
            v11 = wp.nonzero((-wp.where((p1 >= (-0.25)), p1, p1)))
    if ((-(~wp.int8(-44))) >= wp.int8(-3)):
        v12 = wp.transform_inverse(wp.transform((wp.vec3(p1, p1, p1) - wp.vec3(12.0625, 0.0111083984375, (-2.0))), (wp.quat(0.0, (-0.75), 0.25, (-0.75)) * wp.quat((-2.75), p1, p1, p1))))
    return p0

@wp.func
def fn2(p0: wp.mat22d, p1: wp.int32):
    if False:
        v13 = wp.float32(110.5)
        v13 = v13
        v13 -= (-wp.where((True and True), wp.max(wp.vec4(v13, v13, (-0.75), wp.float32(p1))), wp.step(v13)))
    else:
        for k14 in range(0, 2):
            v15 = (-p1)
            if ((wp.vec2b(wp.int8(3), wp.int8(v15)) + (-wp.vec2b(wp.int8(4), wp.int8(-7)))) == ((wp.vec2b(wp.int8(127), wp.int8(51)) / wp.int8(k14)) << wp.vec2b(wp.int8(-128), wp.int8(-1)))):
                continue
        if (wp.float64(p1) < wp.float64((-0.04296875))):
            v16 = wp.isnan((-wp.float64((-3.0))))
            return (p1 << wp.int32((wp.float16(1.0) > wp.float16(p1)))), (wp.matrix_from_rows((wp.vec2d(wp.float64((-6.0)), wp.float64(402.0)) * p0), wp.max(wp.vec2d(wp.float64((-1.0)), wp.float64(59.25)), wp.vec2d(wp.float64(p1), wp.float64((-2.4375))))) if ((wp.uint16(p1) ^ wp.uint16(p1)) != wp.uint16(v16)) else wp.mat22d(wp.float64(7.0), wp.float64(45.125), wp.float64(p1), wp.float64(p1)))
    rng17 = wp.rand_init(wp.where((False and False), wp.dot(wp.vec2i(p1, 7), wp.vec2i((-4), (-1))), p1), (~wp.dot(wp.vec4i(p1, p1, p1, p1), wp.vec4i(p1, p1, p1, p1))))
    rng17 -= wp.dot((wp.vec2ui(rng17, rng17) + wp.vec2ui(rng17, rng17)), wp.vec2ui((rng17 | rng17), wp.dot(wp.vec2ui(wp.uint32(199), wp.uint32(0)), wp.vec2ui(rng17, wp.uint32(42)))))
    return wp.min(wp.max((p1 | p1), wp.vec4i(p1, p1, p1, p1)[0]), wp.int32(wp.clamp(wp.uint32(269), wp.uint32(p1), wp.uint32(p1)))), wp.where(((-wp.vec4l(wp.int64(3), wp.int64(-8), wp.int64(p1), wp.int64(-37))) == (-wp.vec4l(wp.int64(-8), wp.int64(111), wp.int64(159), wp.int64(-8)))), wp.mat22d(wp.float64((-95.375)), wp.float64(1.5), wp.float64(3.125), wp.float64(36.875)), (p0 + (p0 * p0)))

@wp.kernel
def kern(
    a1: wp.array(dtype=wp.int32),
    a2: wp.array(dtype=wp.transform),
    o3: wp.array(dtype=wp.float64, ndim=2),
    o4: wp.array(dtype=wp.bool),
    o5: wp.array(dtype=wp.vec2),
    o6: wp.array(dtype=wp.vec3s),
    n: wp.int32,
):
    t0 = wp.tid()
    pass
    o3[t0, 0] = (wp.min(o3[t0, 0], (o3[t0, 1] * o3[t0, 1])) * ((o3[t0, 1] + o3[t0, 1]) // wp.float64(t0)))
    o3[t0, 1] = wp.sign(o3[t0, 2])
    o3[t0, 2] = ((o3[t0, 2] + wp.float64((t0 != 0))) // (-wp.min(wp.vec4d(o3[t0, 1], o3[t0, 2], o3[t0, 0], o3[t0, 2]))))
    o4[t0] = o4[t0]
    o5[t0] = (wp.lerp((wp.mat22((-0.109375), (-7.0), 6.0, 88.5) * o5[t0]), o5[t0], ((-8.0) + wp.float32(a1[((wp.vec2i(n, n)[1] % a1.shape[0]) + a1.shape[0]) % a1.shape[0]]))) + o5[t0])
    o6[t0] = wp.vec3s((wp.int16(2) | wp.abs(wp.int16(74))), wp.int16(113), (-wp.dot(wp.vec4s(wp.int16(-4), wp.int16(-1), wp.int16(-1), wp.int16(-237)), wp.vec4s(wp.int16(-1), wp.int16(294), wp.int16(-216), wp.int16(3)))))
