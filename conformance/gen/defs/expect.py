"""wp.expect_eq / expect_neq / expect_near: a failed check prints and the
kernel goes on (tests/cli.rs checks the printed lines)."""

import numpy as np

from caselib import Arr, case, fill


@case("expect_checks", tags=["expect", "debug", "print"])
def expect_checks(rng):
    src = '''
    @wp.kernel
    def k(x: wp.array(dtype=float), o: wp.array(dtype=int)):
        i = wp.tid()
        wp.expect_eq(i, 1)
        wp.expect_neq(wp.vec3(1.0, 2.0, 3.0), wp.vec3(1.0, 2.0, x[i]))
        wp.expect_near(x[i], 2.0, 0.5)
        wp.expect_near(wp.vec2(x[i], 1.0), wp.vec2(2.0, 1.0))
        wp.expect_eq(wp.mat22(1.0, 2.0, 3.0, 4.0), wp.mat22(1.0, 2.0, 3.0, 4.0))
        wp.expect_near(wp.quat(0.0, 0.0, 0.0, 1.0), wp.quat(0.0, 0.0, 0.0, 1.0), 0.0)
        o[i] = i + 10
    '''
    return dict(src=src, kernel="k", dim=[2],
                args=[Arr("x", "float32", np.array([1.0, 3.0], np.float32)), Arr("o", "int32", fill(2, -1, np.int32))],
                check=["o"], note="failed expect_* checks print and the kernel keeps running")
