import warp as wp


@wp.kernel
def k(a: wp.array(dtype=wp.vec3d), b: wp.array(dtype=wp.vec3d), o: wp.array2d(dtype=wp.vec3d), s: wp.array2d(dtype=wp.float64)):
    i = wp.tid()
    u = a[i]
    v = b[i]
    o[i, 0] = wp.cross(u, v)
    o[i, 1] = wp.normalize(u)
    o[i, 2] = u * wp.float64(2.0) - v / wp.float64(3.0)
    o[i, 3] = wp.lerp(u, v, wp.float64(0.25))
    o[i, 4] = wp.cw_div(u, v)
    o[i, 5] = wp.float64(2.0) / v
    o[i, 6] = wp.min(u, v)
    o[i, 7] = wp.abs(u)
    o[i, 8] = wp.vec3d(wp.vec3(1.5, 2.5, 3.5))
    s[i, 0] = wp.dot(u, v)
    s[i, 1] = wp.length(u)
    s[i, 2] = wp.length_sq(v)
    s[i, 3] = wp.max(u)
    s[i, 4] = wp.float64(wp.argmax(v))
    s[i, 5] = wp.smoothstep(wp.float64(-0.5), wp.float64(0.5), u[0])
    s[i, 6] = wp.degrees(u[1]) + wp.radians(v[2])
