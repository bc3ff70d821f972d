import warp as wp


@wp.struct
class S0:
    f0: wp.bool

@wp.func
def fn0(arr: wp.array(dtype=wp.vec4, ndim=1), p0: wp.vec2h, p1: wp.quat) -> wp.float32:
    pass
    return wp.clamp((wp.length_sq(wp.vec3((-0.9375), wp.float32((-wp.inf)), wp.float32((-wp.inf)))) / (0.25 % 57.125)), wp.trunc((-185.0)), (0.21875 * wp.abs(0.125)))

@wp.func
def fn1(arr: wp.array(dtype=S0, ndim=3), p0: wp.mat22d, p1: S0):
    pass
    return 112.75, wp.int8(3.6875)

@wp.kernel
def kern(
    a1: wp.array3d(dtype=S0),
    a2: wp.array(dtype=wp.vec3i),
    a3: wp.array(dtype=wp.vec4),  # weft: layout=soa
    o4: wp.array2d(dtype=wp.quat),
    o5: wp.array2d(dtype=wp.quat),  # weft: layout=soa
    o6: wp.array2d(dtype=wp.vec2i),  # weft: layout=soa
    n: wp.int32,
    s0: S0,
    s1: wp.int32,
):
    t0, t1 = wp.tid()
    if ((~(t1 + s1)) != ((n & t0) << (s1 + t1))):
        if (s1 >= (-5)):
            w7 = int(0)
            while w7 < 3:
                w7 = w7 + 1
                pass
            v8 = wp.int64(fn0(a3, (wp.float16(0.047607421875) * wp.vec2h(wp.float16(19.625), wp.float16((-0.4375)))), wp.quat(0.0, 5.0, (-0.003448486328125), 2.625)))
            if (n < 1):
                return
            v9 = (((0.0 / wp.float32(w7)) - (wp.float32(v8) * 1.625)) if wp.bool(fn0(a3, wp.vec2h(wp.float16((-6.0)), wp.float16(2.5625)), o5[t0, t1])) else (wp.float32(n) // a3[1].z))
        for k10 in range(-3, -3, -2):
            if (wp.abs((wp.uint16(1) - wp.uint16(0))) > wp.abs((wp.uint16(6) * wp.uint16(k10)))):
                v11 = S0()
                v11 = S0()
                rng12 = wp.rand_init((wp.int32(wp.float32(k10)) % wp.max(t0, t0)), 194)
            elif (wp.abs((-4.0)) != fn0(a3, (wp.float16(5.71875) * wp.vec2h(wp.float16((-2.625)), wp.float16((-0.1025390625)))), wp.normalize(o5[t0, t1]))):
                if wp.isfinite((wp.float16(0.75) // wp.max(wp.float16(0.0), wp.float16(t1)))):
                    break
            else:
                pass
            if ((wp.int32(wp.float32(t0)) << (t0 & t1)) != t1):
                if ((~(wp.uint64(241) if True else wp.uint64(113))) <= (wp.uint64(0) * (wp.uint64(t0) >> wp.uint64(6)))):
                    break
                rng13 = wp.rand_init((wp.int32(wp.float32(t1)) // wp.sign(n)))
                v14 = wp.int16(wp.dot(wp.vec3ub(wp.uint8(0), wp.uint8(5), wp.uint8(0)), wp.vec3ub(wp.uint8(4), wp.uint8(8), wp.uint8(0))))
                v15 = wp.sample_unit_cube(rng13)
            else:
                o6[t0, t1].y = wp.max((~s1), wp.int32((s1 < (-3))))
                if (wp.dot(wp.vec2l(wp.int64(-6), wp.int64(n)), wp.vec2l(wp.int64(k10), wp.int64(105))) < (wp.int64(-204) // wp.where(False, wp.int64(3), wp.int64(1)))):
                    break
            w16 = int(0)
            while w16 < 1:
                w16 = w16 + 1
                pass
    o4[t0, t1] = wp.quat((3.3125 + (-6.0)), 48.75, ((-2.625) - 25.5), 7.0)
    o5[t0, t1] = ((o4[t0, t1] if (3.0 <= (-2.0)) else o5[t0, t1]) - ((o4[t0, t1] - o4[t0, t1]) * wp.quat_inverse(o5[t0, t1])))
    o6[t0, t1] = o6[t0, t1]
