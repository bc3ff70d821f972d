import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.float16), b: wp.array(dtype=wp.float16), o: wp.array2d(dtype=wp.float16)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    o[i, 0] = x * y + x
    o[i, 1] = x / y
    o[i, 2] = x // y
    o[i, 3] = x % y
    o[i, 4] = wp.sign(x)
    o[i, 5] = wp.min(x, y)
    o[i, 6] = wp.sqrt(wp.abs(x))
    o[i, 7] = wp.float16(wp.float32(x) * 2.0)
    o[i, 8] = wp.lerp(x, y, wp.float16(0.25))
    o[i, 9] = wp.dot(wp.vec3h(x, y, x), wp.vec3h(y, y, x))
