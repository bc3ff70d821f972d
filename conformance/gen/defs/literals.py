"""Float literals keep their Python value in float64 (and float16) constructors."""

import numpy as np

from caselib import Arr, case, fill


@case("literal_precision_f64", tags=["literals", "float64", "vec", "mat", "quat", "transform"])
def literal_precision_f64(rng):
    src = '''
    @wp.kernel
    def k(o: wp.array(dtype=wp.float64), oh: wp.array(dtype=wp.float16)):
        v = wp.vec3d(1.00000005, 0.1, 2.0000000001)
        o[0] = v[0]
        o[1] = v[1]
        o[2] = v[2]
        m = wp.mat22d(1.00000005, 0.1, 0.3, -0.7)
        o[3] = m[0, 0]
        o[4] = m[1, 1]
        q = wp.quatd(1.00000005, 0.0, 0.0, 1.0)
        o[5] = q[0]
        t = wp.transformd(wp.vec3d(1.00000005, 0.0, 0.0), wp.quatd(0.0, 0.0, 0.0, 1.0))
        o[6] = t[0]
        x = 1.00000005
        o[7] = wp.float64(x)
        o[8] = wp.float64(1.00000005)
        y = 1.00000005 * 2.0
        o[9] = wp.float64(y)
        s = wp.vec3d(1.00000005)
        o[10] = s[1]
        o[11] = wp.float64(-1.00000005)
        z = wp.float32(0.1)
        o[12] = wp.float64(z)
        w = wp.vec3d(wp.float64(x), 0.0, 1.0)
        o[13] = w[0]
        oh[0] = wp.float16(0.1)
        h = wp.vec2h(0.1, 65519.0)
        oh[1] = h[0]
        oh[2] = h[1]
    '''
    return dict(src=src, kernel="k", dim=[1],
                args=[Arr("o", "float64", fill(14, -9.0, np.float64)), Arr("oh", "float16", fill(3, -9.0, np.float16))],
                check=["o", "oh"], note="literals in float64/float16 constructors are not rounded through float32")
