import warp as wp


vec3bf = wp.types.vector(3, wp.bfloat16)


@wp.kernel
def k(
    x: wp.array(dtype=wp.bfloat16),
    y: wp.array(dtype=wp.bfloat16),
    o: wp.array(dtype=wp.bfloat16),
    of: wp.array(dtype=wp.float32),
    acc: wp.array(dtype=wp.bfloat16),
    oi: wp.array(dtype=wp.int32),
):
    i = wp.tid()
    a = x[i]
    b = y[i]
    o[i * 10 + 0] = a + b
    o[i * 10 + 1] = a * b - b
    o[i * 10 + 2] = a / b
    o[i * 10 + 3] = wp.sqrt(wp.abs(a))
    o[i * 10 + 4] = wp.floor(a * wp.bfloat16(3.0))
    o[i * 10 + 5] = wp.max(a, b)
    o[i * 10 + 6] = wp.bfloat16(wp.float32(a) * 3.0001)
    o[i * 10 + 7] = wp.bfloat16(1.00390625)
    o[i * 10 + 8] = wp.bfloat16(wp.float64(b) * wp.float64(1.7))
    o[i * 10 + 9] = wp.clamp(a, wp.bfloat16(-1.0), wp.bfloat16(1.5))
    of[i * 4 + 0] = wp.float32(a)
    v = vec3bf(a, b, wp.bfloat16(2.0))
    of[i * 4 + 1] = wp.float32(wp.dot(v, v))
    w = v * b + v
    of[i * 4 + 2] = wp.float32(w[1])
    of[i * 4 + 3] = wp.float32(wp.int32(a) < wp.int32(b))
    oi[i] = wp.int32(a * wp.bfloat16(10.0))
    wp.atomic_add(acc, 0, wp.bfloat16(wp.float32(i)))
    acc[1] += wp.bfloat16(0.5)
    wp.atomic_max(acc, 2, a)
