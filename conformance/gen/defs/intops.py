"""Integer vectors and matrices: cross, length_sq, dot (wrapping in narrow
types), bitwise operators on matrices; lower_bound on sorted arrays; `and`
/ `or` on numbers."""

import numpy as np

from caselib import Arr, case, fill


@case("int_vec_mat_ops", tags=["int", "vec", "mat", "bitops", "lower_bound", "boolop"])
def int_vec_mat_ops(rng):
    n = 16
    src = '''
    mat22i = wp.types.matrix(shape=(2, 2), dtype=wp.int32)


    @wp.func
    def flat(x: mat22i):
        return wp.vec4i(x[0, 0], x[0, 1], x[1, 0], x[1, 1])


    @wp.kernel
    def k(
        a: wp.array(dtype=wp.vec3i),
        c: wp.array(dtype=wp.vec3b),
        m: wp.array(dtype=wp.vec4i),
        sorted_f: wp.array(dtype=float),
        sorted_i: wp.array(dtype=wp.int64),
        q: wp.array(dtype=float),
        ov: wp.array(dtype=wp.vec3i),
        ob: wp.array(dtype=wp.vec3b),
        om: wp.array(dtype=wp.vec4i),
        o: wp.array(dtype=int),
    ):
        i = wp.tid()
        x = a[i]
        y = a[(i + 1) % 16]
        ov[i] = wp.cross(x, y)
        ob[i] = wp.cross(c[i], c[(i + 3) % 16])
        o[i * 8 + 0] = wp.length_sq(x)
        o[i * 8 + 1] = int(wp.length_sq(c[i]))
        o[i * 8 + 2] = int(wp.dot(c[i], c[(i + 5) % 16]))
        mi = m[i]
        mj = m[(i + 2) % 16]
        p = mat22i(mi[0], mi[1], mi[2], mi[3])
        r = mat22i(mj[0], mj[1], mj[2], mj[3])
        om[i * 4 + 0] = flat(p & r)
        om[i * 4 + 1] = flat((p | r) ^ p)
        om[i * 4 + 2] = flat(~p)
        om[i * 4 + 3] = flat((p << mat22i(1, 2, 3, 4)) >> mat22i(1, 1, 2, 2))
        o[i * 8 + 3] = wp.lower_bound(sorted_f, q[i])
        o[i * 8 + 4] = wp.lower_bound(sorted_f, 2, 9, q[i])
        o[i * 8 + 5] = wp.lower_bound(sorted_i, wp.int64(i * 7 - 20))
        v = i % 4
        w = float(i % 3) - 1.0
        o[i * 8 + 6] = int(v and w) + 2 * int(v or w) + 4 * int(not v)
        o[i * 8 + 7] = int((w and v) or (v and 0))
    '''
    a = rng.integers(-40000, 40000, (n, 3)).astype(np.int32)
    c = rng.integers(-128, 128, (n, 3)).astype(np.int8)
    m = rng.integers(-1000, 1000, (n, 4)).astype(np.int32)
    sf = np.sort(rng.uniform(-5, 5, 12)).astype(np.float32)
    si = np.sort(rng.integers(-30, 90, 10)).astype(np.int64)
    q = rng.uniform(-6, 6, n).astype(np.float32)
    q[0] = sf[4]
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "vec3i", a), Arr("c", "vec3b", c), Arr("m", "vec4i", m),
                      Arr("sorted_f", "float32", sf), Arr("sorted_i", "int64", si), Arr("q", "float32", q),
                      Arr("ov", "vec3i", fill((n, 3), -1, np.int32)), Arr("ob", "vec3b", fill((n, 3), -1, np.int8)),
                      Arr("om", "vec4i", fill((n * 4, 4), -1, np.int32)), Arr("o", "int32", fill(n * 8, -1, np.int32))],
                check=["ov", "ob", "om", "o"], note="integer cross/length_sq/dot (wrapping), bitwise matrix operators, lower_bound, and/or/not on numbers; exact")
