import warp as wp


@wp.func
def wsum(a: float, b: float, c: float):
    return a + 2.0 * b + 4.0 * c


@wp.func
def swap(v: wp.vec3):
    return wp.vec3(v[2], v[1], v[0])


@wp.kernel
def k(arr: wp.array(dtype=float), o: wp.array(dtype=float)):
    i = wp.tid()
    v = wp.vec4(*arr[0:4]) + wp.vec4(float(i), 0.5 * float(i), 0.0, -float(i))
    q = wp.quat(*arr[4:8:1]) * float(i + 1)
    v3 = wp.vec3(*v[1:])
    m = wp.matrix_from_rows(*wp.mat33(*v3, *v[:3], *q[-3:]))
    r = wp.vec4(*v[::-1])
    e = wp.vec2(*q[3:0:-2])
    o[i * 16 + 0] = wp.max(*v[:2])
    o[i * 16 + 1] = wsum(*v3)
    o[i * 16 + 2] = wsum(*swap(v3))
    o[i * 16 + 3] = wp.dot(wp.vec4(*q), r)
    o[i * 16 + 4] = m[1, 2]
    o[i * 16 + 5] = m[2, 0]
    o[i * 16 + 6] = e[0] - 3.0 * e[1]
    o[i * 16 + 7] = wp.vec4(1.0, *v[1:3], 4.0)[2]
    o[i * 16 + 8] = wp.length(wp.vec2(*v[-2:]))
    o[i * 16 + 9] = wp.vec3(*arr[0:6:2])[2]
    o[i * 16 + 10] = wp.min(*wp.vec2(*q[:2]))
    rows = wp.matrix_from_rows(*m[1:])
    o[i * 16 + 11] = rows[1, 1]
    o[i * 16 + 12] = float(len(wp.vec3(*m[0])))
    o[i * 16 + 13] = r[0]
    o[i * 16 + 14] = q[3]
    o[i * 16 + 15] = v3[0]
