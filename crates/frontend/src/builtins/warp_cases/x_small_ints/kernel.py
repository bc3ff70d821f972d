import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.int8), b: wp.array(dtype=wp.uint8), c: wp.array(dtype=wp.int64), u: wp.array(dtype=wp.uint16), o: wp.array2d(dtype=int)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    o[i, 0] = int(wp.sign(x))
    o[i, 1] = int(wp.step(x))
    o[i, 2] = int(wp.abs(x))
    o[i, 3] = int(wp.clamp(x, wp.int8(-50), wp.int8(50)))
    o[i, 4] = wp.bit_count(x)
    o[i, 5] = wp.bit_count(y)
    o[i, 6] = wp.bit_count(c[i])
    o[i, 7] = int(wp.nonzero(y))
    o[i, 8] = int(wp.min(y, wp.uint8(100)))
    o[i, 9] = int(x // wp.int8(7))
    o[i, 10] = int(x % wp.int8(7))
    o[i, 11] = int(-x)
    o[i, 12] = int(~y)
    o[i, 13] = int(y << wp.uint8(3))
    o[i, 14] = int(x >> wp.int8(2))
    o[i, 15] = int(wp.sign(y))
    o[i, 16] = int(c[i] // wp.int64(-1000))
    o[i, 17] = int(u[i] * u[i])
    o[i, 18] = int(wp.uint16(u[i] - wp.uint16(40000)) / wp.uint16(3))
    o[i, 19] = int(x ^ wp.int8(85)) + int(x & wp.int8(15)) + int(x | wp.int8(3))
