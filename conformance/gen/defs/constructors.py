"""wp.vector / wp.matrix / wp.types.quaternion / wp.types.transformation
calls in kernels (shape from keywords or arguments, dtype= keyword),
wp.transform(p)."""

import numpy as np

from caselib import Arr, case, fill


@case("generic_constructors", tags=["constructors", "vec", "mat", "quat", "transform"])
def generic_constructors(rng):
    src = '''
    @wp.kernel
    def k(x: wp.array(dtype=float), o: wp.array(dtype=float), od: wp.array(dtype=wp.float64)):
        a = x[0]
        c = x[1]
        v = wp.vector(a, c, a)
        o[0] = v[0] + v[1] * 10.0 + float(len(v)) * 100.0
        z = wp.vector(length=5, dtype=wp.float64)
        od[0] = z[4] + wp.float64(len(z))
        m = wp.matrix(a, c, a, c, a, c, shape=(2, 3))
        o[1] = m[1, 2] + m[0, 1] * 10.0
        sq = wp.matrix(a, c, c, a, shape=(2, 2))
        o[2] = wp.determinant(sq)
        q = wp.types.quaternion(a, c, a, c, dtype=wp.float32)
        o[3] = q[1]
        q0 = wp.types.quaternion(dtype=wp.float64)
        od[1] = q0[3] + q0[0]
        q1 = wp.types.quaternion(wp.vec3(a, c, a), c, dtype=wp.float32)
        o[4] = q1[3]
        t = wp.types.transformation(wp.vec3(a, c, a), wp.quat(0.0, 0.0, 0.0, 1.0), dtype=wp.float32)
        o[5] = t[1] + t[6]
        t1 = wp.transform(wp.vec3(a, c, 1.0))
        o[6] = t1[2] + t1[6] * 10.0 + t1[3]
        s = wp.vector(wp.float64(a), wp.float64(c), wp.float64(1.0), wp.float64(2.0), wp.float64(3.0), wp.float64(4.0), dtype=wp.float64)
        od[2] = s[1] + s[5]
        s0 = wp.vector(length=6, dtype=wp.float32)
        o[7] = s0[5]
        vd = wp.vector(wp.float64(a), wp.float64(1.00000005), dtype=wp.float64)
        od[3] = vd[1]
    '''
    return dict(src=src, kernel="k", dim=[1],
                args=[Arr("x", "float32", np.array([1.5, -2.25], np.float32)),
                      Arr("o", "float32", fill(8, -9.0)), Arr("od", "float64", fill(4, -9.0, np.float64))],
                check=["o", "od"], note="generic vector/matrix/quaternion/transformation constructors in kernels; exact")
