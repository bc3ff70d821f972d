"""Augmented assignment on array elements as Warp lowers it."""

import numpy as np

from caselib import Arr, case, fill, uniform


@case("augassign_atomic_bitwise", tags=["augassign", "atomic", "bitops"])
def augassign_atomic_bitwise(rng):
    src = '''
    @wp.kernel
    def k(f: wp.array(dtype=wp.uint32), g: wp.array(dtype=wp.int64), h: wp.array(dtype=wp.int32)):
        i = wp.tid()
        f[i % 4] |= wp.uint32(1) << wp.uint32(i % 32)
        g[i % 3] ^= wp.int64(1) << wp.int64(i % 61)
        h[i % 2] &= ~(1 << (i % 30))
    '''
    return dict(src=src, kernel="k", dim=[256],
                args=[Arr("f", "uint32", fill(4, 0, np.uint32)),
                      Arr("g", "int64", fill(3, 0, np.int64)),
                      Arr("h", "int32", fill(2, -1, np.int32))],
                check=["f", "g", "h"], note="|= ^= &= on array elements are atomics: no lost updates")


@case("augassign_component_slots", tags=["augassign", "atomic", "vec", "struct"])
def augassign_component_slots(rng):
    src = '''
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
    '''
    n = 64
    xs = (rng.integers(0, 8, n) * 0.25).astype(np.float32)  # exact sums in any order
    sdt = np.dtype([("total", "<f4"), ("count", "<i4"), ("v", "<f4", (3,))])
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("p", "vec3", fill((2, 3), 0.0)),
                      Arr("m", "mat22", fill((1, 2, 2), 0.0)),
                      Arr("s", "Acc", np.zeros(1, sdt), fields=[("total", "float32"), ("count", "int32"), ("v", "vec3")]),
                      Arr("bits", "vec2i", fill((1, 2), 0, np.int32)),
                      Arr("x", "float32", xs)],
                check=["p", "m", "s", "bits"], note="components and fields of array elements update atomically")


@case("augassign_small_ints_rmw", tags=["augassign", "int8", "uint16"])
def augassign_small_ints_rmw(rng):
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.int8), b: wp.array(dtype=wp.uint16), c: wp.array(dtype=float), d: wp.array(dtype=wp.int32)):
        i = wp.tid()
        a[i] += wp.int8(100)
        b[i] -= wp.uint16(7)
        a[i] |= wp.int8(1)
        c[i] *= 3.0
        c[i] /= 2.0
        d[i] //= 3
        d[i] %= 5
        d[i] <<= 2
        d[i] >>= 1
    '''
    n = 16
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "int8", rng.integers(-128, 127, n).astype(np.int8)),
                      Arr("b", "uint16", rng.integers(0, 20, n).astype(np.uint16)),
                      Arr("c", "float32", uniform(rng, -3, 3, n)),
                      Arr("d", "int32", rng.integers(-1000, 1000, n).astype(np.int32))],
                check=["a", "b", "c", "d"], note="8/16-bit and non-atomic operators: read-modify-write")
