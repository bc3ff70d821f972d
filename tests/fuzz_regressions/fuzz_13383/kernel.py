import warp as wp


@wp.struct
class S0:
    f0: wp.bool
    f1: wp.float32
    f2: wp.bool
    f3: wp.transform

@wp.kernel
def kern(
    a1: wp.array3d(dtype=wp.vec4),
    a2: wp.array(dtype=wp.uint64, ndim=3),
    a3: wp.array(dtype=wp.uint32, ndim=3),
    o4: wp.array(dtype=wp.bool, ndim=3),
    o5: wp.array(dtype=wp.int32, ndim=4),
    o6: wp.array4d(dtype=wp.vec4d),
    o7: wp.array(dtype=wp.bool, ndim=3),
    n: wp.int32,
    s0: wp.float32,
    s1: wp.quat,
):
    t0, t1, t2 = wp.tid()
    v8 = wp.vec3i(t1, o5[t0, t1, t2, 1], n)
    v9 = wp.atomic_add(o5, t0, t1, t2, 1, ((t2 ^ (t2 >> n)) ^ wp.sign(wp.max(o5[t0, t1, t2, 0], n))))
    v10 = wp.min(wp.vec3(wp.floor(s0), (-6.0), wp.lerp(s0, s0, s0)))
    for k11 in range(4):
        v12 = wp.atomic_xor(o5, t0, t1, t2, 0, wp.int32((-wp.int32(wp.uint8(5)))))
        rng13 = wp.rand_init((n + (-(-8))), wp.sign((v9 * o5[t0, t1, t2, 1])))
        v14 = s0
        v9 = wp.int32(o5[t0, t1, t2, 0])
    v15 = wp.matrix_from_cols(wp.vec2((-s0), s0), wp.vec2(s0, s0))
    v16 = wp.atomic_min(o5, t0, t1, t2, 1, o5[t0, t1, t2, 1])
    o6[t0, t1, t2, 0] = (o6[t0, t1, t2, 0] / wp.float64((wp.uint8(t2) // wp.uint8(0))))
    v17 = (wp.uint16(0) & ((~wp.uint16(t0)) / wp.uint16(0)))
    o4[t0, t1, t2] = ((wp.float64(3.5) <= (wp.float64((-61.125)) + wp.float64((-2.875)))) or ((s0 // s0) <= wp.sqrt(s0)))
    o5[t0, t1, t2, 0] = wp.max(wp.vec2i(t1, o5[t0, t1, t2, 0]).x, (-8))
    o5[t0, t1, t2, 1] = (wp.int32(s0) << t0)
    o5[t0, t1, t2, 2] = t2
    o6[t0, t1, t2, 0] = o6[t0, t1, t2, 0]
    o7[t0, t1, t2] = (True and True)
