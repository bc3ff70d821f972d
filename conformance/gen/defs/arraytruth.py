"""An array's truth value: non-null (`where(arr, a, b)`, `not arr`,
`if arr:`); an empty array owns no allocation and is null."""

import numpy as np

from caselib import Arr, case, fill


@case("array_truth", tags=["array", "builtins", "control"])
def array_truth(rng):
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=float), e: wp.array(dtype=float), m: wp.array2d(dtype=float), o: wp.array(dtype=int)):
        o[0] = wp.where(a, 1, 2)
        o[1] = wp.where(e, 1, 2)
        o[2] = int(not a)
        o[3] = int(not e)
        if a:
            o[4] = 5
        if e:
            o[5] = 6
        if not m:
            o[6] = 7
        o[7] = wp.where(m, 8, 9)
    '''
    return dict(src=src, kernel="k", dim=[1],
                args=[Arr("a", "float32", fill(3, 1.0)), Arr("e", "float32", np.zeros(0, np.float32)),
                      Arr("m", "float32", np.zeros((2, 0), np.float32)), Arr("o", "int32", fill(8, -1, np.int32))],
                check=["o"], note="arrays are true when non-null; empty arrays (also 2-D with a zero axis) are null")
