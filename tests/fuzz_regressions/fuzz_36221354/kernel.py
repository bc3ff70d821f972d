import warp as wp


@wp.func
def fn0(p0: wp.bool, p1: wp.transform, p2: wp.float32) -> wp.int32:
    if p0:
        return ((-6) if ((9 ^ 9) >= wp.where(True, wp.int32(p2), 7)) else wp.int32(wp.uint32(p0)))
    if ((122 if (p2 == p2) else (~(-225))) < wp.max((wp.int32(p2) // wp.int32(p2)), (-2))):
        return 6
    return ((-1) / (wp.min((-6), 121) * wp.abs((-6))))

@wp.func
def fn1(p0: wp.uint64, p1: wp.quat, p2: wp.int32) -> wp.int64:
    v5 = wp.transform((wp.transform_vector(wp.transform(wp.vec3(85.625, 43.75, 5.0), p1), wp.vec3(0.00634765625, 67.125, 119.25)) / wp.float32((-92.125))), ((p1 * (-60.0)) * wp.quat_identity(dtype=wp.float32)))
    return wp.int64(-64)

@wp.func
def fn2(arr: wp.array(dtype=wp.vec4ui, ndim=3), p0: wp.int64, p1: wp.mat44, p2: wp.transform) -> wp.vec2:
    if wp.isfinite(wp.length_sq(wp.vec2d(wp.float64(2.0), wp.float64((-2.1875))))):
        v6 = wp.diag(wp.vec4(1.0, wp.float32(wp.inf), 3.75, (-410.0)))
        v6 = (wp.identity(n=4, dtype=wp.float32) if ((-246) <= 235) else p1)
    rng7 = wp.rand_init(fn0(((-1.5625) > 0.0), wp.transform_inverse(wp.transform(wp.vec3((-3.0625), 2.4375, wp.float32((-wp.inf))), wp.quat(0.25, (-0.5), 0.5, 0.5))), wp.float32((-4))))
    return wp.vec2(12.3125, 3.0)

@wp.kernel
def kern(
    a1: wp.array3d(dtype=wp.bool),
    a2: wp.array(dtype=wp.vec4ui, ndim=3),  # weft: layout=soa
    o3: wp.array4d(dtype=wp.mat44),
    r4: wp.array2d(dtype=wp.float64),
    n: wp.int32,
):
    t0, t1, t2 = wp.tid()
    if ((not wp.isfinite((-3.4375))) or a1[((fn0(False, wp.transform(wp.vec3((-29.0), 0.125, 0.0284423828125), wp.quat(1.0, (-0.75), 0.25, (-0.75))), (-23.0)) % 2) + 2) % 2, ((wp.min(n, t1) % 7) + 7) % 7, 7]):
        pass
    if a1[((n % a1.shape[0]) + a1.shape[0]) % a1.shape[0], (((-216) % a1.shape[1]) + a1.shape[1]) % a1.shape[1], ((6 % a1.shape[2]) + a1.shape[2]) % a1.shape[2]]:
        o3[t0, t1, t2, 1] = (wp.transpose(wp.where(a1[(((n if False else t0) % a1.shape[0]) + a1.shape[0]) % a1.shape[0], ((286 % 7) + 7) % 7, (((-wp.int32(t1)) % a1.shape[2]) + a1.shape[2]) % a1.shape[2]], o3[t0, t1, t2, 1], o3[t0, t1, t2, 0])) * float(wp.clamp(wp.uint32(0), wp.uint32(0), wp.uint32(t2))))
        o3[t0, t1, t2, 0][1] = wp.vec4((wp.clamp(wp.float32(t0), (-6.0), wp.float32(n)) if (not True) else (37.375 - wp.float32(t0))), wp.sqrt(wp.dot(wp.vec2((-3.4028234663852886e38), 112.0), wp.vec2(wp.float32(t2), wp.float32(t0)))), (-1.25), wp.trunc(0.75))
        r4[t0, (((n | 5) % r4.shape[1]) + r4.shape[1]) % r4.shape[1]] -= (wp.float64((n) % 16) * wp.float64(0.25))
    elif (wp.float16((~t0)) != (wp.float16(n) * wp.float16((-2.375)))):
        v8 = (wp.mat44h(wp.float16((-18.28125)), wp.float16(1.8125), wp.float16(t1), wp.float16(29.0625), wp.float16(7.0), wp.float16(1.875), wp.float16((-6.0)), wp.float16(0.4375), wp.float16((-29.96875)), wp.float16(22.625), wp.float16(0.08642578125), wp.float16(1.8125), wp.float16(0.00982666015625), wp.float16((-1.75)), wp.float16((-2.625)), wp.float16(t2)) if ((wp.int16(-249) != wp.int16(5)) and True) else (-wp.mat44h(wp.float16((-14.5625)), wp.float16(t0), wp.float16(0.030029296875), wp.float16(t2), wp.float16((-28.90625)), wp.float16(0.9765625), wp.float16((-8.0)), wp.float16((-3.0)), wp.float16(0.0216064453125), wp.float16((-3.375)), wp.float16((-2.0)), wp.float16((-6.6875)), wp.float16(0.296875), wp.float16(0.014404296875), wp.float16(t2), wp.float16((-185.0)))))
        v8[1] = wp.vec4h(wp.float16((-3.09375)), wp.float16(6.0), wp.float16(8.0), wp.float16((-6.9375)))
    else:
        for k9 in range(0, 4):
            v10 = wp.max((-wp.vec4b(wp.int8(k9), wp.int8(t2), wp.int8(49), wp.int8(n))[0]), ((wp.int8(-128) if a1[(((-t1) % 2) + 2) % 2, 0, ((wp.clamp(t0, t1, t2) % 9) + 9) % 9] else wp.int8(-128)) // wp.max(wp.int8(-6), wp.int8(-8))))
            o3[t0, t1, t2, 0] = ((o3[t0, t1, t2, 1] + wp.identity(n=4, dtype=wp.float32)) - wp.identity(n=4, dtype=wp.float32))
            v11 = (((wp.vec4i(t0, (-40), 8, t0) * t1) + wp.vec4i(k9, k9, (-250), wp.int32(n))) / fn0(((-5) != n), wp.transform(wp.vec3(10.25, 3.0625, 45.625), wp.quat((-0.75), (-0.75), 1.0, (-0.75))), 244.0))
        wp.atomic_add(r4, t0, 1, (wp.float64(((-278)) % 16) * wp.float64(0.25)))
        rng12 = wp.rand_init(fn0((wp.float16(1.0625) >= wp.float16(26.78125)), wp.transform(wp.vec3((-0.6875), (-1.0), 8.0), wp.quat(0.25, 1.0, 0.0, (-0.75))), ((-4.0) if a1[((((-9) + t1) % a1.shape[0]) + a1.shape[0]) % a1.shape[0], 5, ((wp.int32(t0) % a1.shape[2]) + a1.shape[2]) % a1.shape[2]] else (-0.69921875))))
    v13 = wp.vec2(0.171875, 0.05419921875)
    v13.y = (-3.125)
    v14 = t2
    o3[t0, t1, t2, 0] = wp.diag(wp.transpose(o3[t0, t1, t2, 1])[3])
    o3[t0, t1, t2, 1] = o3[t0, t1, t2, 0]
