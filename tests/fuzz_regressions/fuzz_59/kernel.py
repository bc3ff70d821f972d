import warp as wp


@wp.struct
class S0:
    f0: wp.int16

@wp.struct
class S1:
    f0: wp.int16

@wp.kernel
def kern(
    a1: wp.array(dtype=wp.float32, ndim=2),
    a2: wp.array(dtype=wp.vec3ul, ndim=2),
    o3: wp.array(dtype=wp.float32),
    o4: wp.array(dtype=wp.vec3, ndim=2),  # weft: layout=soa
    r5: wp.array(dtype=wp.vec2ui),
    n: wp.int32,
):
    t0 = wp.tid()
    v6 = S0()
    v7 = wp.quat_from_axis_angle(wp.transform_vector(wp.transform(wp.vec3(a1[t0, (((n / t0) % 2) + 2) % 2], a1[t0, ((wp.max(n, n) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], (-3.9375)), wp.quat(a1[(((t0 + t0) % 80) + 80) % 80, ((((-62) * t0) % 2) + 2) % 2], a1[t0, 0], a1[t0, ((((-5) + t0) % 2) + 2) % 2], a1[t0, (((t0 << n) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]])), wp.transform_vector(wp.transform(o4[t0, 0], wp.quat(a1[((t0 % 80) + 80) % 80, 0], a1[(((-(-2)) % a1.shape[0]) + a1.shape[0]) % a1.shape[0], (((t0 if True else 146) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], a1[((wp.max(n, n) % a1.shape[0]) + a1.shape[0]) % a1.shape[0], ((n % 2) + 2) % 2], a1[(((~t0) % 80) + 80) % 80, ((n % 2) + 2) % 2])), o4[t0, 1])), (a1[t0, ((n % 2) + 2) % 2] % a1[t0, (((t0 + n) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]]))
    rng8 = wp.rand_init(t0)
    if wp.bool(wp.int32(n)):
        v9 = ((wp.quat_inverse(wp.quath(wp.float16(t0), wp.float16(n), wp.float16(0.01318359375), wp.float16(t0))) * (wp.float16(a1[44, 0]) if (t0 != 8) else wp.float16(a1[t0, ((t0 % a1.shape[1]) + a1.shape[1]) % a1.shape[1]]))) * wp.quath(wp.float16(t0), wp.float16(0.294921875), wp.float16(4.0), wp.float16(a1[t0, (((-n) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]])))
        v10 = S0(f0=wp.int16(-158))
        v11 = wp.mat22(o3[t0], a1[t0, (((~n) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], a1[t0, (((n + (-43)) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], wp.float32(n))
    for k12 in range(-2, 1):
        wp.atomic_add(r5, 1, (wp.cw_div((wp.vec2ui(rng8, rng8) - wp.vec2ui(wp.uint32(6), wp.uint32(1))), wp.vec2ui(rng8, wp.uint32(a1[((wp.min(t0, t0) % 80) + 80) % 80, ((wp.abs(n) % 2) + 2) % 2]))) - wp.vec2ui((rng8 * rng8), wp.min(rng8, rng8))))
        v7 = (wp.quat(a1[((n % a1.shape[0]) + a1.shape[0]) % a1.shape[0], (((t0 | k12) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], (a1[(((-(-5)) % 80) + 80) % 80, ((n % a1.shape[1]) + a1.shape[1]) % a1.shape[1]] + a1[((wp.int32(wp.float32(k12)) % a1.shape[0]) + a1.shape[0]) % a1.shape[0], (((k12 >> t0) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]]), (wp.pow(a1[t0, (((-3) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], (-0.625)) * a1[t0, ((wp.clamp(k12, n, t0) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]]), o3[t0]) * (wp.float32((-1.75)) - wp.quat(a1[t0, 0], a1[t0, 1], a1[t0, ((wp.int32((n >= (-8))) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], a1[t0, 1])[2]))
        v7[1] = wp.floor((a1[t0, (((wp.int32(k12) % k12) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]] * (a1[t0, (((-k12) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]] + wp.float32(a1[t0, 0]))))
        v7[2] = o3[t0]
    for k13 in range(1, 1):
        v7[2] = o3[t0]
        if True:
            if ((wp.sign(a1[t0, 0]) < a1[t0, 0]) and (a1[t0, (((t0 + t0) % 2) + 2) % 2] < a1[(((k13 * t0) % a1.shape[0]) + a1.shape[0]) % a1.shape[0], 1])):
                v14 = (wp.int64(t0) - (wp.int64(-6) % (~wp.int64(5))))
            else:
                o4[t0, 2] = wp.quat_rotate_inv((wp.quat_identity(dtype=wp.float32) - (wp.quat(1.0, 0.5, 0.25, 0.5) - wp.quat((-0.5), (-0.75), 0.25, 1.0))), ((o4[t0, 1] * wp.mat33(a1[((t0 % a1.shape[0]) + a1.shape[0]) % a1.shape[0], ((k13 % 2) + 2) % 2], a1[t0, ((wp.int32(wp.uint8(3)) % 2) + 2) % 2], a1[t0, 0], wp.float32(n), a1[t0, ((t0 % 2) + 2) % 2], a1[t0, ((t0 % 2) + 2) % 2], a1[t0, (((n << k13) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], 2.375, 6.5)) * a1[75, ((k13 % 2) + 2) % 2]))
                if (wp.vec2(a1[t0, 0], a1[((t0 % a1.shape[0]) + a1.shape[0]) % a1.shape[0], ((wp.min(t0, (-4)) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]])[0] != (-wp.min(o4[t0, 0]))):
                    continue
            v15 = wp.randf(rng8)
            rng8 += (rng8 >> rng8)
        elif (not False):
            v16 = wp.atomic_add(o3, t0, (wp.ceil((a1[11, (((n >> t0) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]] + a1[t0, 0])) * (a1[((wp.abs(k13) % a1.shape[0]) + a1.shape[0]) % a1.shape[0], ((wp.int32(k13) % 2) + 2) % 2] * wp.vec3(a1[t0, ((wp.max(n, wp.int32(t0)) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], a1[t0, (((~n) % 2) + 2) % 2], a1[t0, 0]))[2]))
    o3[t0] = wp.rint((wp.lerp(a1[t0, (((t0 + t0) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], a1[(((-n) % a1.shape[0]) + a1.shape[0]) % a1.shape[0], (((t0 + t0) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], a1[((9 % 80) + 80) % 80, (((t0 - t0) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]]) * wp.float32(wp.uint64(0))))
    v17 = wp.randf(rng8)
    rng8 = (wp.cw_mul(wp.vec2ui(wp.uint32(0), rng8), wp.vec2ui(rng8, rng8)) & wp.vec2ui(rng8, rng8)).y
    o3[t0] = o3[t0]
    o4[t0, 0] = (a1[t0, (((~n) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]] * wp.cross(wp.lerp(wp.vec3(a1[t0, 1], a1[t0, (((~n) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]], a1[t0, (((n * n) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]]), o4[t0, 2], a1[t0, ((int(100.375) % 2) + 2) % 2]), wp.abs(o4[t0, 1])))
    o4[t0, 1] = wp.transform_point(wp.transform_identity(dtype=wp.float32), o4[t0, 1])
    o4[t0, 2] = o4[t0, 0]
