import warp as wp


@wp.struct
class S0:
    f0: wp.int16
    f1: wp.transform

@wp.struct
class S1:
    f0: wp.vec4s
    f1: wp.int32
    f2: S0
    f3: wp.mat44

@wp.func
def fn0(p0: wp.int16, p1: wp.uint32, p2: wp.mat33) -> wp.mat44:
    if ((True or ((-48) == (-9))) or False):
        for k9 in range((184) % 5):
            rng10 = wp.rand_init((-(k9 ^ k9)))
            v11 = wp.randf(rng10)
        v12 = (wp.quat(88.625, 61.75, (-2.5625), (-2.0)) * ((0.1201171875 - (-6.0)) * wp.sign(4.0)))
    else:
        if (not ((-(-1.0625)) >= ((-3.0) if False else (-52.25)))):
            v13 = wp.int32(7)
            rng14 = wp.rand_init(((~v13) & wp.max(103, v13)), v13)
            if False:
                return wp.identity(n=4, dtype=wp.float32)
        elif True:
            v15 = ((-(2.3125 * wp.mat44(4.0, 3.25, 0.3125, 1.0, (-3.125), 46.875, (-4.0), 73.0, 3.0, (-1.0), (-2.0), 18.5, 53.625, (-3.4028234663852886e38), (-0.0), (-8.0)))) if True else wp.where((False and False), wp.mat44(5.0, 3.5625, 3.4375, (-6.5), (-124.5), (-262.0), (-0.78125), (-6.34375), 5.0, 4.0, 3.1875, 0.1533203125, (-0.25), 0.01043701171875, (-0.1376953125), wp.float32(wp.inf)), wp.identity(n=4, dtype=wp.float32)))
        else:
            pass
    rng16 = wp.rand_init(wp.dot(wp.vec4i(1, 4, 1, (-1)), (wp.vec4i(8, wp.int32(p1), (-8), 2147483647) / (-6))), (int((-82)) << (-6)))
    rng16 += ((wp.uint32((-3)) ^ wp.uint32(4)) | (wp.sign(rng16) ^ (~wp.uint32(4))))
    v17 = wp.randf(rng16, (-31.25), 137.0)
    v18 = wp.normalize(wp.quath(wp.sqrt(wp.float16(0.0)), wp.clamp(wp.float16((-31.0625)), wp.float16((-0.015869140625)), wp.float16(p0)), (wp.float16(v17) if True else wp.float16((-4.0))), (wp.float16((-183.0)) + wp.float16(0.041015625))))
    return wp.transpose(wp.mat44(45.75, (-90.75), (-119.5), 0.0048828125, 3.8125, (-4.0), (-7.0), 3.25, wp.float32(p0), 32.0, 3.0, 294.0, 0.0003662109375, (-58.75), (-58.75), (-1.75)))

@wp.func
def fn1(p0: S0, p1: wp.vec2ui):
    for k19 in range(1):
        v20 = (((~wp.uint8(k19)) / wp.min(wp.uint8(k19), wp.uint8(k19))) * (wp.uint8(0) | (wp.uint8(9) % wp.uint8(0))))
        for k21 in range(2):
            v20 *= (~(v20 if (k21 < 6) else wp.dot(wp.vec4ub(v20, v20, v20, v20), wp.vec4ub(wp.uint8(255), wp.uint8(0), wp.uint8(8), wp.uint8(9)))))
            if ((not True) or ((k19 != 60) or (not True))):
                break
            v22 = (wp.float64(24.0) % (wp.float64(v20) if (k21 == (-8)) else wp.float64(v20)))
        if (wp.dot(wp.vec2d(wp.float64((-0.9453125)), wp.float64((-168.0))), (wp.vec2d(wp.float64((-4.0)), wp.float64(2.0)) + wp.vec2d(wp.float64((-1.0)), wp.float64((-1.7976931348623157e308))))) >= (wp.rint(wp.float64(v20)) - (wp.float64(2.625) / wp.float64((-3.6875))))):
            break
    return S1(f0=(wp.vec4s(wp.int16(-5), wp.int16(-4), wp.int16(153), wp.int16(16)) - wp.vec4s(wp.int16(-8), wp.int16(-15), wp.int16(-1), wp.int16(7))), f1=(-95), f2=p0, f3=wp.mat44((-2.0), (-49.5), 19.625, (-8.0), (-1.3125), (-0.90625), (-0.125), 5.0, 0.0008544921875, 3.0, 73.0, 3.75, 32.125, 3.6875, 4.0, 3.328125)), wp.where((4.0 > ((-8.0) % (-4.0))), wp.uint32(0), ((wp.uint32(0) / wp.uint32(0)) | (wp.uint32(9) << wp.uint32(1))))

@wp.kernel
def kern(
    a1: wp.array(dtype=wp.vec2i),
    a2: wp.array(dtype=wp.float32, ndim=3),
    a3: wp.array2d(dtype=wp.int32),
    o4: wp.array(dtype=wp.vec3, ndim=4),
    o5: wp.array(dtype=S1, ndim=3),
    o6: wp.array(dtype=wp.quat, ndim=3),
    r7: wp.array(dtype=wp.int32),
    r8: wp.array2d(dtype=wp.float32),
    n: wp.int32,
    s0: wp.float32,
    s1: wp.int64,
):
    t0, t1, t2 = wp.tid()
    v23 = wp.float32((-59.875))
    o4[t0, t1, t2, 0] = o4[t0, t1, t2, 1]
    o4[t0, t1, t2, 1] = o4[t0, t1, t2, 1]
    o5[t0, t1, t2] = S1(f0=wp.vec4s(wp.int16(a3[0, ((5 % 5) + 5) % 5]), wp.int16(-6), wp.int16(-1), wp.int16(-100)), f1=(~a3[0, (((t1 * t1) % a3.shape[1]) + a3.shape[1]) % a3.shape[1]]), f2=S0(f0=wp.int16(t1), f1=wp.transform(wp.vec3(s0, a2[t0, 0, 1], a2[t0, t1, ((((-2) + (-8)) % a2.shape[2]) + a2.shape[2]) % a2.shape[2]]), wp.quat(s0, (-5.0), s0, s0))), f3=wp.mat44(a2[t0, t1, t2], a2[0, (((n / wp.int32(t0)) % 3) + 3) % 3, t2], s0, (-2.5625), a2[0, t1, t2], s0, a2[t0, t1, t2], a2[t0, ((wp.min((-5), n) % a2.shape[1]) + a2.shape[1]) % a2.shape[1], t2], s0, s0, s0, a2[t0, t1, t2], s0, a2[t0, (((~t1) % a2.shape[1]) + a2.shape[1]) % a2.shape[1], t2], (-3.625), s0))
    o6[t0, t1, t2] = wp.quat_identity(dtype=wp.float32)
