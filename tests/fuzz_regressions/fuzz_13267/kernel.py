import warp as wp


@wp.struct
class S0:
    f0: wp.vec4
    f1: wp.float32
    f2: wp.mat44
    f3: wp.int8

@wp.struct
class S1:
    f0: wp.transformh

@wp.func
def fn0(p0: wp.int32) -> wp.vec2i:
    v9 = wp.mat44d(wp.float64(6.0), wp.float64(7.0), wp.float64(4.0), wp.float64(p0), wp.float64((-0.75)), wp.float64(p0), wp.float64((-8.125)), wp.float64(35.25), wp.float64(2.875), wp.float64(1.0703125), wp.float64(2.0), wp.float64((-3.0)), wp.float64((-92.625)), wp.float64(4.0), wp.float64(0.953125), wp.float64(2.0625))
    v10 = (((-wp.vec4d(wp.float64(87.625), wp.float64((-1.875)), wp.float64(79.125), wp.float64((-1.0)))) + (wp.vec4d(wp.float64((-2.6875)), wp.float64((-16.375)), wp.float64((-7.125)), wp.float64((-8.0))) + wp.vec4d(wp.float64(p0), wp.float64(p0), wp.float64(1.6875), wp.float64((-6.0))))) * wp.transpose(wp.transpose(v9)))
    return wp.vec2i((~(p0 // p0)), wp.clamp(wp.int32(p0), ((-2147483648) | p0), p0))

@wp.func
def fn1(arr: wp.array(dtype=wp.float32, ndim=2), p0: wp.float16, p1: wp.uint64) -> wp.vec2ub:
    pass
    return wp.vec2ub(wp.uint8(0), wp.uint8(arr[((((-165) | wp.int32(p1)) % arr.shape[0]) + arr.shape[0]) % arr.shape[0], ((wp.sign(1) % arr.shape[1]) + arr.shape[1]) % arr.shape[1]]))

@wp.kernel
def kern(
    a1: wp.array(dtype=wp.float32, ndim=2),
    a2: wp.array(dtype=wp.mat44, ndim=2),  # weft: layout=soa
    a3: wp.array(dtype=wp.float32),
    o4: wp.array3d(dtype=wp.float32),
    o5: wp.array(dtype=S0, ndim=2),
    o6: wp.array(dtype=S0, ndim=2),
    r7: wp.array2d(dtype=wp.uint64),
    r8: wp.array(dtype=wp.int64),
    n: wp.int32,
    s0: wp.float32,
    s1: wp.vec2d,
):
    t0, t1 = wp.tid()
    v11 = (wp.float32(wp.bool(s0)) * s0)
    v11 = wp.float32(wp.int32(wp.dot(wp.vec2l(wp.int64(s0), wp.int64(-8)), wp.vec2l(wp.int64(-86), wp.int64(-2)))))
    o4[t0, t1, 0] = wp.pow(((s0 - a1[t0, (((-t1) % a1.shape[1]) + a1.shape[1]) % a1.shape[1]]) // (wp.float32(n) * s0)), a3[t0])
    o5[t0, t1] = S0(f0=wp.vec4(o4[t0, t1, 0], a3[0], s0, a1[0, 12]), f1=float((n != 0)), f2=a2[t0, t1], f3=wp.int8(-3))
    o6[t0, t1] = S0()
