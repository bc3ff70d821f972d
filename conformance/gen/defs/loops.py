"""`for` over `reversed(range(...))` (Warp's `iter_reverse`): constant and
dynamic bounds, negative steps, empty ranges, break."""

import numpy as np

from caselib import Arr, case, fill


@case("reversed_range", tags=["loops", "reversed", "range"])
def reversed_range(rng):
    src = '''
    @wp.kernel
    def k(p: wp.array(dtype=int), o: wp.array(dtype=int)):
        i = wp.tid()
        start = p[i * 3 + 0]
        stop = p[i * 3 + 1]
        step = p[i * 3 + 2]
        # order-sensitive digest of the visited values
        h = int(17)
        c = int(0)
        if step != 0:
            for j in reversed(range(start, stop, step)):
                h = h * 31 + j
                c += 1
        o[i * 6 + 0] = h
        o[i * 6 + 1] = c
        h = int(5)
        for j in reversed(range(stop)):
            h = h * 7 + j
            if j < start:
                break
        o[i * 6 + 2] = h
        h = int(3)
        for j in reversed(range(4)):
            h = h * 11 + j
        o[i * 6 + 3] = h
        h = int(1)
        for j in reversed(range(10, -3, -4)):
            h = h * 13 + j
        o[i * 6 + 4] = h
        last = int(-99)
        for j in reversed(range(start, stop)):
            last = j
        o[i * 6 + 5] = last
    '''
    rows = [(0, 10, 1), (0, 10, 3), (10, 0, -1), (10, 0, -3), (5, 5, 1), (5, 2, 1), (2, 5, -1),
            (-7, 8, 5), (8, -7, -5), (-3, -1, 1), (0, 1, 7), (3, 17, 4), (17, 3, -4), (0, 0, -1),
            (1, 100, 33), (-20, 20, 7)]
    p = np.array(rows, dtype=np.int32).reshape(-1)
    n = len(rows)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("p", "int32", p), Arr("o", "int32", fill(n * 6, -1, np.int32))],
                check=["o"], note="reversed(range(start, stop, step)) visits Python's order, for every sign of step, empty ranges and break")
