import warp as wp


@wp.kernel
def k(p: wp.array(dtype=wp.vec4), seed: wp.array(dtype=int), o: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.rand_init(seed[i])
    x = p[i]
    o[i * 8 + 0] = wp.noise(s, x[0])
    o[i * 8 + 1] = wp.noise(s, wp.vec2(x[0], x[1]))
    o[i * 8 + 2] = wp.noise(s, wp.vec3(x[0], x[1], x[2]))
    o[i * 8 + 3] = wp.noise(s, x)
    o[i * 8 + 4] = wp.pnoise(s, x[0], 3)
    o[i * 8 + 5] = wp.pnoise(s, wp.vec2(x[0], x[1]), 2, 5)
    o[i * 8 + 6] = wp.pnoise(s, wp.vec3(x[0], x[1], x[2]), 4, 3, 2)
    o[i * 8 + 7] = wp.pnoise(s, x, 2, 3, 4, 5)
