"""Operators and name lookup as Warp's codegen does them: `x @ y` is
`wp.mul(x, y)` (integer and float matrices and vectors), integer products
accumulate with multiply and add, and a bare builtin name (`sin(x)`,
`expect_eq(a, b)`, as Warp's own tests call them) is the builtin."""

import numpy as np

from caselib import Arr, case, fill


@case("matmul_operator_bare_builtins", tags=["mat", "int", "operator", "builtin"])
def matmul_operator_bare_builtins(rng):
    n = 8
    src = '''
    mat22i = wp.types.matrix(shape=(2, 2), dtype=wp.int32)
    mat23i = wp.types.matrix(shape=(2, 3), dtype=wp.int32)


    @wp.kernel
    def k(m: wp.array(dtype=wp.vec4i), f: wp.array(dtype=wp.vec4), o: wp.array(dtype=int), of: wp.array(dtype=float)):
        i = wp.tid()
        a = m[i]
        c = m[(i + 3) % 8]
        p = mat22i(a[0], a[1], a[2], a[3])
        r = mat22i(c[0], c[1], c[2], c[3])
        v = wp.vec2i(c[0], c[3])
        s = mat23i(a[0], a[1], a[2], a[3], c[0], c[1])
        pr = p @ r
        pv = p @ v
        vp = v @ p
        ps = p @ s
        o[i * 12 + 0] = pr[0, 0]
        o[i * 12 + 1] = pr[0, 1]
        o[i * 12 + 2] = pr[1, 0]
        o[i * 12 + 3] = pr[1, 1]
        o[i * 12 + 4] = pv[0]
        o[i * 12 + 5] = pv[1]
        o[i * 12 + 6] = vp[0]
        o[i * 12 + 7] = vp[1]
        o[i * 12 + 8] = ps[1, 2]
        o[i * 12 + 9] = wp.ddot(p, r)
        o[i * 12 + 10] = dot(v, v)
        o[i * 12 + 11] = (p * r)[1, 1] - pr[1, 1]
        x = f[i]
        g = wp.mat22(x[0], x[1], x[2], x[3])
        h = g @ wp.transpose(g)
        expect_eq(h, g * wp.transpose(g))
        of[i * 4 + 0] = h[0, 1]
        of[i * 4 + 1] = (g @ wp.vec2(x[1], x[2]))[1]
        of[i * 4 + 2] = max(abs(x[0]), floor(x[1]))
        of[i * 4 + 3] = ddot(g, h)
    '''
    m = rng.integers(-50000, 50000, (n, 4)).astype(np.int32)
    f = rng.uniform(-3, 3, (n, 4)).astype(np.float32)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("m", "vec4i", m), Arr("f", "vec4", f),
                      Arr("o", "int32", fill(n * 12, -1, np.int32)), Arr("of", "float32", fill(n * 4, -1.0, np.float32))],
                check=["o", "of"], note="`@` on int/float matrices and vectors (wrapping int products), int ddot, bare builtin names; exact")


@case("starred_unpack", tags=["starred", "vec", "mat", "quat", "slice"])
def starred_unpack(rng):
    # Warp's `unpack_starred`: `*x` of a vector, quaternion, matrix (rows) or
    # of a constant slice of one, or of a 1-D array slice with explicit
    # bounds, into builtin, constructor and @wp.func calls.
    n = 4
    src = '''
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
    '''
    arr = rng.uniform(-4, 4, 8).astype(np.float32)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("arr", "float32", arr), Arr("o", "float32", fill(n * 16, -1.0, np.float32))],
                check=["o"], note="starred arguments: vectors, quats, matrix rows, constant slices (negative, reversed), array slices; exact")
