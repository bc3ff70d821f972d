"""Negative indices (Python's rule) on arrays, vectors, matrices and quaternions."""

import numpy as np

from caselib import Arr, case, fill, uniform


@case("neg_index_arrays", tags=["index", "negative", "array2d", "array3d"])
def neg_index_arrays(rng):
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=float), b: wp.array2d(dtype=float), c: wp.array3d(dtype=wp.int32),
          out: wp.array(dtype=float), oi: wp.array(dtype=wp.int32)):
        i = wp.tid()
        n = a.shape[0]
        out[i] = a[-1] + b[-1, -2] * a[i - n]
        j = -1 - i
        oi[i] = c[(-j) % 3 - 3, -1, i - 4]
        row = b[-2]
        out[i + 8] = row[-1 - i] + row[i]
        # a runtime negative index
        m = -(i % 3) - 1
        out[i + 16] = a[m] + b[m, m]
    '''
    return dict(src=src, kernel="k", dim=[4],
                args=[Arr("a", "float32", uniform(rng, -2, 2, 8)),
                      Arr("b", "float32", uniform(rng, -2, 2, (5, 6))),
                      Arr("c", "int32", rng.integers(-100, 100, (3, 2, 4)).astype(np.int32)),
                      Arr("out", "float32", fill(24, -9.0)),
                      Arr("oi", "int32", fill(4, -7, np.int32))],
                check=["out", "oi"], note="a[-1], b[-1, -2], 3-D and runtime negative indices, views of rows")


@case("neg_index_atomics_stores", tags=["index", "negative", "atomic"])
def neg_index_atomics_stores(rng):
    src = '''
    @wp.kernel
    def k(out: wp.array(dtype=float), cnt: wp.array(dtype=wp.int32), g: wp.array2d(dtype=wp.int32)):
        i = wp.tid()
        wp.atomic_add(out, -1, 1.0)
        wp.atomic_max(cnt, -2, i)
        wp.atomic_min(cnt, -3, -i)
        cnt[-1] += 1
        g[-1, -(i % 4) - 1] += i
        if i == 0:
            out[-2] = 5.0
            g[-2, 0] = 42
    '''
    return dict(src=src, kernel="k", dim=[64],
                args=[Arr("out", "float32", fill(4, 0.0)),
                      Arr("cnt", "int32", fill(4, 0, np.int32)),
                      Arr("g", "int32", fill((3, 4), 0, np.int32))],
                check=["out", "cnt", "g"], note="atomics and stores at negative indices")


@case("neg_index_vec_mat_quat", tags=["index", "negative", "vec", "mat", "quat"])
def neg_index_vec_mat_quat(rng):
    src = '''
    @wp.kernel
    def k(v: wp.array(dtype=wp.vec4), m: wp.array(dtype=wp.mat33), q: wp.array(dtype=wp.quat),
          out: wp.array2d(dtype=float)):
        i = wp.tid()
        a = v[i]
        b = m[i]
        c = q[i]
        out[i, 0] = a[-1]
        out[i, 1] = a[-4]
        out[i, 2] = b[-1, -1]
        out[i, 3] = b[-2][-3]
        out[i, 4] = c[-2]
        j = -1 - (i % 3)
        out[i, 5] = a[j]
        out[i, 6] = b[j, j]
        out[i, 7] = c[j]
        r = b[j]
        out[i, 8] = r[-1]
        a[-1] = 2.0
        a[j] = a[j] + 1.0
        b[-1, -2] = 7.0
        out[i, 9] = a[3] + a[0] + a[1] + a[2] + b[2, 1]
    '''
    n = 6
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("v", "vec4", uniform(rng, -2, 2, (n, 4))),
                      Arr("m", "mat33", uniform(rng, -2, 2, (n, 3, 3))),
                      Arr("q", "quat", uniform(rng, -1, 1, (n, 4))),
                      Arr("out", "float32", fill((n, 10), -9.0))],
                check=["out"], note="negative constant and runtime component indices, component stores")
