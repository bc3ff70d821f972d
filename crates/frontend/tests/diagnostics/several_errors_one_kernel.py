import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a = undefined_thing * 2.0
    b = a + 1.0
    c = x[i] + v[i]
    d = [1.0, 2.0]
    x[i] = wp.length(v[i])
    x[i] = b + c + d[0] + missing
