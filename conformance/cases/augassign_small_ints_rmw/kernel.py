import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.int8), b: wp.array(dtype=wp.uint16), c: wp.array(dtype=float), d: wp.array(dtype=wp.int32)):
    i = wp.tid()
    a[i] += wp.int8(100)
    b[i] -= wp.uint16(7)
    a[i] |= wp.int8(1)
    c[i] *= 3.0
    c[i] /= 2.0
    d[i] //= 3
    d[i] %= 5
    d[i] <<= 2
    d[i] >>= 1
