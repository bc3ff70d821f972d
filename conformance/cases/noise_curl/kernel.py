import warp as wp


@wp.kernel
def k(p: wp.array(dtype=wp.vec4), o2: wp.array(dtype=wp.vec2), o3: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    s = wp.rand_init(42, i)
    x = p[i]
    o2[i * 2 + 0] = wp.curlnoise(s, wp.vec2(x[0], x[1]))
    o2[i * 2 + 1] = wp.curlnoise(s, wp.vec2(x[0], x[1]), wp.uint32(3), 1.5, 0.7)
    o3[i * 4 + 0] = wp.curlnoise(s, wp.vec3(x[0], x[1], x[2]))
    o3[i * 4 + 1] = wp.curlnoise(s, wp.vec3(x[0], x[1], x[2]), wp.uint32(4))
    o3[i * 4 + 2] = wp.curlnoise(s, x)
    o3[i * 4 + 3] = wp.curlnoise(s, x, wp.uint32(2), 3.0)
