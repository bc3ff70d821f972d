import warp as wp


@wp.kernel
def f32_ops(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array2d(dtype=float), iout: wp.array2d(dtype=int), uout: wp.array2d(dtype=wp.uint32), bout: wp.array2d(dtype=wp.int8), ubout: wp.array2d(dtype=wp.uint8), lout: wp.array2d(dtype=wp.int64)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    out[i, 0] = a % b
    out[i, 1] = wp.min(a, b)
    out[i, 2] = wp.max(a, b)
    out[i, 3] = wp.round(a)
    out[i, 4] = wp.rint(a)
    out[i, 5] = wp.floor(a)
    out[i, 6] = wp.trunc(a)
    out[i, 7] = wp.ceil(a)
    out[i, 8] = wp.abs(a)
    out[i, 9] = wp.float32(wp.float16(a))
    out[i, 10] = wp.sign(a)
    iout[i, 0] = int(a)
    iout[i, 1] = int(wp.isnan(a))
    iout[i, 2] = int(wp.isinf(a))
    iout[i, 3] = int(a != b)
    iout[i, 4] = int(a < b)
    uout[i, 0] = wp.uint32(a)
    bout[i, 0] = wp.int8(a)
    ubout[i, 0] = wp.uint8(a)
    lout[i, 0] = wp.int64(a)


@wp.kernel
def i32_ops(x: wp.array(dtype=int), y: wp.array(dtype=int), out: wp.array2d(dtype=int), uout: wp.array2d(dtype=wp.uint32), bout: wp.array2d(dtype=wp.int8), sout: wp.array2d(dtype=wp.uint16), fout: wp.array2d(dtype=float)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    out[i, 0] = a / b
    out[i, 1] = a % b
    out[i, 2] = a << b
    out[i, 3] = a >> b
    out[i, 4] = a * b
    out[i, 5] = wp.min(a, b)
    out[i, 6] = wp.abs(a)
    out[i, 7] = -a
    out[i, 8] = ~a
    ua = wp.uint32(a)
    ub = wp.uint32(b)
    uout[i, 0] = ua / ub
    uout[i, 1] = ua % ub
    uout[i, 2] = ua >> ub
    uout[i, 3] = wp.max(ua, ub)
    bout[i, 0] = wp.int8(a) * wp.int8(b)
    bout[i, 1] = wp.int8(a) / wp.int8(b)
    bout[i, 2] = wp.int8(a) >> wp.int8(b)
    sout[i, 0] = wp.uint16(a) + wp.uint16(b)
    sout[i, 1] = wp.uint16(a) << wp.uint16(b)
    fout[i, 0] = float(a)
    fout[i, 1] = float(ua)


@wp.kernel
def i64_ops(x: wp.array(dtype=wp.int64), y: wp.array(dtype=wp.int64), out: wp.array2d(dtype=wp.int64), uout: wp.array2d(dtype=wp.uint64), dout: wp.array2d(dtype=wp.float64), iout: wp.array2d(dtype=int)):
    i = wp.tid()
    a = x[i]
    b = y[i]
    out[i, 0] = a + b
    out[i, 1] = a - b
    out[i, 2] = a * b
    out[i, 3] = a / b
    out[i, 4] = a % b
    out[i, 5] = a << b
    out[i, 6] = a >> b
    out[i, 7] = wp.min(a, b)
    out[i, 8] = wp.max(a, b)
    out[i, 9] = wp.abs(a)
    out[i, 10] = -a
    out[i, 11] = a ^ b
    ua = wp.uint64(a)
    ub = wp.uint64(b)
    uout[i, 0] = ua / ub
    uout[i, 1] = ua % ub
    uout[i, 2] = ua >> ub
    uout[i, 3] = wp.min(ua, ub)
    dout[i, 0] = wp.float64(a)
    dout[i, 1] = wp.float64(ua)
    iout[i, 0] = int(a < b)
    iout[i, 1] = int(ua < ub)
    iout[i, 2] = int(a)
    iout[i, 3] = int(a == b)


@wp.kernel
def small_stores(x: wp.array(dtype=int), b: wp.array(dtype=wp.int8), ub: wp.array(dtype=wp.uint8), s: wp.array(dtype=wp.int16), h: wp.array(dtype=wp.float16), flags: wp.array(dtype=bool)):
    i = wp.tid()
    v = x[i]
    b[i] = wp.int8(v)
    ub[i] = wp.uint8(v * 3)
    s[i] = wp.int16(v * 77)
    h[i] = wp.float16(float(v) * 0.37)
    flags[i] = v % 3 == 0


@wp.kernel
def atomics(k: wp.array(dtype=int), x: wp.array(dtype=float), fsum: wp.array(dtype=float), imin: wp.array(dtype=int), imax: wp.array(dtype=int), fmin: wp.array(dtype=float), fmax: wp.array(dtype=float), umax: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    j = k[i]
    slot = i % 4
    wp.atomic_add(fsum, slot, x[i])
    wp.atomic_min(imin, slot, j)
    wp.atomic_max(imax, slot, j)
    wp.atomic_min(fmin, slot, x[i])
    wp.atomic_max(fmax, slot, x[i])
    wp.atomic_max(umax, slot, wp.uint32(j))


@wp.kernel
def f64_sqrt(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = wp.sqrt(x[i])
