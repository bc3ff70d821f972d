import warp as wp


@wp.struct
class Acc:
    total: float
    count: wp.int32
    v: wp.vec3

@wp.kernel
def k(p: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22), s: wp.array(dtype=Acc),
      bits: wp.array(dtype=wp.vec2i), x: wp.array(dtype=float)):
    i = wp.tid()
    p[0].x += x[i]
    p[0][2] -= 1.0
    m[0][1, 0] += 2.0
    m[0][1] += wp.vec2(1.0, 0.5)
    s[0].total += x[i]
    s[0].count += 1
    s[0].v += wp.vec3(1.0, 2.0, 3.0)
    bits[0][1] |= 1 << (i % 16)
    bits[0].x ^= 1 << (i % 8)
