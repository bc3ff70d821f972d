import warp as wp


@wp.struct
class S0:
    f0: wp.mat44
    f1: wp.int32
    f2: wp.float32
    f3: wp.bool

@wp.func
def fn0(p0: wp.vec3) -> wp.mat44:
    pass
    return wp.mat44(wp.where(False, (-0.5), (-1.0625)), ((-4.0) * 1.4375), 0.005218505859375, wp.nonzero((-84.625)), (-0.09423828125), (0.375 if False else (-7.0)), float((30 != 0)), (53.5 * 8.875), wp.dot(wp.vec2(wp.float32((-wp.inf)), 0.00341796875), wp.vec2(1.0, (-13.5))), (-63.0), (-30.25), (-5.0), 0.21484375, ((-0.09375) + (-1.0625)), (-4.0), (-65.75))

@wp.func
def fn1(arr: wp.array(dtype=S0, ndim=3), p0: wp.vec3) -> wp.mat33:
    v8 = wp.quat(1.0, 0.25, 0.0, 0.25)
    if True:
        rng9 = wp.rand_init((((-2) >> (-4)) | wp.where(True, (-3), 3)), (((-1) * 4) * wp.dot(wp.vec3i(6, 108, 2147483647), wp.vec3i((-228), 6, 215))))
        if wp.isnan(wp.length_sq(wp.vec2((-4.0), 0.1923828125))):
            v10 = ((-109.625) if (not ((-1.8359375) < (-8.25))) else wp.trunc(p0[0]))
        else:
            v11 = wp.bool(False)
    else:
        v12 = (wp.vec2i((-1), (-250)) - (wp.max(wp.vec2i(6, 7), wp.vec2i((-8), (-70))) - (wp.vec2i((-4), (-2)) + wp.vec2i((-174), (-3)))))
        v12 = wp.vec2i(wp.dot((wp.vec2i(1, 98) / (-3)), v12), 6)
        rng13 = wp.rand_init((-8))
    rng14 = wp.rand_init(9)
    return ((-((-54.625) % 4.0)) * wp.mat33(2.5, 80.375, 1.5, (-12.625), (-19.5), (-60.25), 1.6875, 0.0625, (-1.5625)))

@wp.kernel
def kern(
    a1: wp.array2d(dtype=wp.float16),
    a2: wp.array(dtype=S0, ndim=3),
    o3: wp.array(dtype=wp.vec3i, ndim=2),
    o4: wp.array2d(dtype=wp.float32),
    o5: wp.array(dtype=wp.quat, ndim=2),  # weft: layout=soa
    o6: wp.array2d(dtype=S0),
    r7: wp.array2d(dtype=wp.int64),
    n: wp.int32,
    s0: wp.uint32,
    s1: wp.float32,
):
    t0, t1 = wp.tid()
    for k15 in range(-3, -3):
        pass
    v16 = wp.atomic_max(o4, t0, t1, (-(s1 * wp.mat22(s1, o4[t0, t1], o4[t0, t1], s1))[1, 1]))
    if False:
        for k17 in range(0, 8, 2):
            v18 = ((wp.int32(t1) if (s1 > v16) else (-n)) & (-o3[t0, t1]).x)
            v18 = (k17 - 0)
    elif wp.bool(s0):
        v19 = ((wp.where(False, o4[t0, t1], (-0.22265625)) // float(t1)) + o4[t0, t1])
        v20 = wp.atomic_exch(o4, t0, t1, s1)
    else:
        v21 = wp.identity(n=4, dtype=wp.float16)
    rng22 = wp.rand_init(((n + t1) * t1))
    if (wp.bool(wp.int32(n)) and False):
        v23 = (((-o4[t0, t1]) / wp.float32(v16)) * wp.min(wp.vec4(o4[t0, t1], o4[t0, t1], 6.0, wp.float32(t1))))
        v24 = ((wp.quatd(wp.float64(o4[t0, t1]), wp.float64((-0.154296875)), wp.float64((-22.125)), wp.float64(n)) * wp.quatd(wp.float64(56.375), wp.float64(5.6875), wp.float64(0.0010986328125), wp.float64((-34.25)))) if True else (wp.where((v23 != 112.875), wp.quatd(wp.float64(1.0), wp.float64(a1[t0, t1]), wp.float64(o4[t0, t1]), wp.float64(t1)), wp.quatd(wp.float64(v23), wp.float64(2.0), wp.float64(5.0), wp.float64(3.625))) - wp.quat_identity(dtype=wp.float64)))
    elif False:
        for k25 in range(1, 2, -1):
            for k26 in range(wp.min(n, 4)):
                pass
    o3[t0, t1] = (wp.vec3i((t0 // t1), wp.int32(a1[t0, t1]), (wp.int32(t0) >> t0)) - (wp.cw_mul(wp.vec3i(1, 8, (-8)), o3[t0, t1]) + o3[t0, t1]))
    o4[t0, t1] = wp.quat((s1 * o4[t0, t1]), s1, wp.float32(o4[t0, t1]), wp.sign(o4[t0, t1]))[1]
    o5[t0, t1] = (wp.quat((s1 if False else o4[t0, t1]), (s1 % s1), wp.trunc(s1), (s1 * o4[t0, t1])) - wp.quat_identity(dtype=wp.float32))
    o6[t0, t1] = S0(f0=wp.matrix_from_rows(wp.vec4(s1, s1, s1, (-0.255859375)), wp.vec4(o4[t0, t1], s1, wp.float32(s1), o4[t0, t1]), wp.vec4(s1, s1, o4[t0, t1], o4[t0, t1]), wp.vec4(s1, s1, o4[t0, t1], wp.float32(t0))), f1=t1, f2=wp.trunc(o4[t0, t1]), f3=(not False))
