import warp as wp


@wp.struct
class S0:
    f0: wp.mat33
    f1: wp.vec2
    f2: wp.mat22
    f3: wp.vec3i

@wp.func
def fn0(p0: S0):
    v8 = wp.vec2ub(wp.uint8(3), wp.uint8(0))
    v9 = wp.bool(True)
    return wp.transform(wp.vec3((-96.375), 8.0, (-105.5)), wp.quat(wp.float32((-wp.inf)), (-2.1875), 0.00390625, (-18.875))), wp.vec3i((-3), 5, 2)

@wp.kernel
def kern(
    a1: wp.array(dtype=wp.bool, ndim=3),
    a2: wp.array(dtype=wp.vec4i),
    a3: wp.array2d(dtype=wp.vec3s),
    o4: wp.array(dtype=wp.vec4ul, ndim=2),  # weft: layout=soa
    o5: wp.array2d(dtype=wp.mat33),  # weft: layout=soa
    r6: wp.array(dtype=wp.float64, ndim=2),
    r7: wp.array(dtype=wp.float32, ndim=2),
    n: wp.int32,
):
    t0, t1 = wp.tid()
    v10 = wp.isinf((-(wp.float16(8.0) % wp.float16(15.59375))))
    w11 = int(0)
    while w11 < 0 and (not wp.isnan(wp.float16(0.01708984375))):
        w11 = w11 + 1
        wp.atomic_min(r6, 0, ((int(v10) % r6.shape[1]) + r6.shape[1]) % r6.shape[1], wp.max(wp.float64((wp.uint16(274) ^ wp.uint16(6))), wp.sign((wp.float64((-2.375)) % wp.float64((-4.0))))))
    w12 = int(0)
    while w12 < 1 and v10:
        w12 = w12 + 1
        if wp.bool(wp.floor(((-6.0) // (-1.53125)))):
            return
        if (not v10):
            if (not (wp.uint64(0) >= wp.uint64(44))):
                v10 = v10
                v13 = S0(f0=wp.where(v10, o5[t0, t1], o5[t0, t1]), f1=(-wp.vec2(53.0, (-3.25))), f2=(wp.mat22((-59.125), 46.5, 0.875, (-0.4375)) * 0.29296875), f3=wp.vec3i((-9), t0, wp.int32(t0)))
                o5[t0, t1] = (wp.mat33(0.75, (-0.08154296875), 6.375, 0.0086669921875, 0.283203125, (-72.875), (-5.71875), (-23.0), (-68.5)) * (wp.vec3(0.0074462890625, wp.float32(w12), 1.0625)[2] // wp.float32(t0)))
            elif (wp.int8((wp.float32(t1) * 0.625)) < (wp.int8(1) | (wp.int8(2) >> wp.int8(-5)))):
                wp.atomic_min(r6, (((192 << 9) % r6.shape[0]) + r6.shape[0]) % r6.shape[0], ((wp.max(t1, w12) % r6.shape[1]) + r6.shape[1]) % r6.shape[1], wp.quatd(wp.float64(1.7976931348623157e308), wp.float64((-1.4375)), wp.float64((-8.0)), wp.float64(w12))[3])
                rng14 = wp.rand_init(wp.int32(w11), (wp.int32(wp.float32(t0)) << (w12 & n)))
                if wp.isfinite(wp.where((not a1[((n % 3) + 3) % 3, (((n // w12) % a1.shape[1]) + a1.shape[1]) % a1.shape[1], ((wp.min(n, n) % a1.shape[2]) + a1.shape[2]) % a1.shape[2]]), wp.round(3.0), (-10.0))):
                    continue
    v15 = (((-109.0) / (3.0 * 0.0)) + wp.max((-0.00634765625), (-1.6640625)))
    if wp.bool(((t1 << w11) if wp.bool(v15) else wp.int32(t1))):
        v16, v17 = fn0(S0())
    else:
        v15 += (v15 + (wp.lerp(v15, v15, 1.5625) * v15))
    wp.atomic_min(r6, (((w12 & w12) % 5) + 5) % 5, 0, wp.dot(wp.cw_mul(wp.vec4d(wp.float64(v15), wp.float64((-5.0)), wp.float64((-98.25)), wp.float64((-2.5625))), (-wp.vec4d(wp.float64(8.0), wp.float64(92.5), wp.float64((-2.0)), wp.float64((-8.0))))), (wp.where(v10, wp.vec4d(wp.float64((-8.0)), wp.float64((-5.0)), wp.float64((-wp.inf)), wp.float64(0.0)), wp.vec4d(wp.float64((-0.8125)), wp.float64((-54.125)), wp.float64(0.0), wp.float64(3.3125))) + (wp.vec4d(wp.float64(t0), wp.float64(1.5), wp.float64(v15), wp.float64(95.75)) - wp.vec4d(wp.float64(2.4375), wp.float64(w12), wp.float64(54.0), wp.float64(3.9375))))))
    v15 -= (wp.min((-v15), v15) * (wp.float32(v10) * wp.nonzero(v15)))
    v18 = S0()
    o5[t0, t1] = (-wp.cw_mul(wp.matrix_from_rows(wp.vec3(v15, 3.0, v15), wp.vec3(v15, wp.float32(v15), v15), wp.vec3(v15, v15, (-2.5625))), wp.identity(n=3, dtype=wp.float32)))
    v10 = a1[t0, (((9 * t0) % 5) + 5) % 5, (((wp.int32(v15) / wp.int32(v15)) % a1.shape[2]) + a1.shape[2]) % a1.shape[2]]
    o4[t0, t1] = wp.vec4ul(wp.uint64(wp.float64((-3.0))), wp.uint64(5), wp.uint64(177), wp.dot(wp.where((t1 == 108), wp.vec3ul(wp.uint64(0), wp.uint64(34), wp.uint64(5)), wp.vec3ul(wp.uint64(7), wp.uint64(n), wp.uint64(t1))), (wp.vec3ul(wp.uint64(0), wp.uint64(0), wp.uint64(0)) - wp.vec3ul(wp.uint64(t1), wp.uint64(0), wp.uint64(t0)))))
    o5[t0, t1] = ((wp.cw_mul(o5[t0, t1], o5[t0, t1]) * (79.375 // 62.25)) if (not wp.isinf(wp.float16((-0.0654296875)))) else (wp.mat33(0.03076171875, (-2.0), wp.float32(t0), (-0.90625), wp.float32(t0), (-39.875), (-81.0), (-464.0), 2.5) * (-77.875)))
