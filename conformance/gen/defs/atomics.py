"""`wp.atomic_cas` (compare-and-swap) and `wp.block_dim`.

Every result is independent of the order the threads run in: each thread
swaps its own slot, or the contested slot's winner is counted (not read),
or the threads of a lock-free increment loop all finish.
"""

import numpy as np

from caselib import Arr, case, fill


@case("atomic_cas_32", tags=["atomic", "cas"])
def atomic_cas_32(rng):
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.int32), f: wp.array(dtype=wp.float32), u: wp.array2d(dtype=wp.uint32),
          c: wp.array(dtype=wp.int32), old_a: wp.array(dtype=wp.int32), old_f: wp.array(dtype=wp.float32),
          old_u: wp.array(dtype=wp.uint32), wins: wp.array(dtype=wp.int32)):
        i = wp.tid()
        # Own slots: swapped where the element equals `compare`.
        old_a[i] = wp.atomic_cas(a, i, 1, 100 + i)
        old_f[i] = wp.atomic_cas(f, i, 1.5, float(i) * 0.25)
        old_u[i] = wp.atomic_cas(u, i % 4, i // 4, wp.uint32(3), (wp.uint32(i) << wp.uint32(28)) + wp.uint32(5))
        # One contested slot: exactly one thread sees 0 and swaps in 7.
        o = wp.atomic_cas(c, 0, 0, 7)
        wp.atomic_add(wins, 0, wp.where(o == 0, 1, 0))
        wp.atomic_add(wins, 1, wp.where(o == 7, 1, 0))
        # A lock-free increment: retry until the swap succeeds.
        done = int(0)
        while done == 0:
            cur = c[1]
            if wp.atomic_cas(c, 1, cur, cur + 1) == cur:
                done = 1
        # A compare that never matches leaves the element.
        wp.atomic_cas(c, 2, -1, i)
    '''
    n = 16
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "int32", rng.integers(0, 3, n).astype(np.int32)),
                      Arr("f", "float32", rng.choice(np.array([0.5, 1.5, -2.0], np.float32), n)),
                      Arr("u", "uint32", rng.integers(2, 5, (4, 4)).astype(np.uint32)),
                      Arr("c", "int32", np.array([0, 5, 9], np.int32)),
                      Arr("old_a", "int32", fill(n, -7, np.int32)),
                      Arr("old_f", "float32", fill(n, -7.0)),
                      Arr("old_u", "uint32", fill(n, 0, np.uint32)),
                      Arr("wins", "int32", fill(2, 0, np.int32))],
                check=["a", "f", "u", "c", "old_a", "old_f", "old_u", "wins"],
                note="32-bit compare-and-swap: own slots, a 2-D index, one winner of a contested slot, a CAS loop")


@case("atomic_cas_64", tags=["atomic", "cas", "int64", "float64"])
def atomic_cas_64(rng):
    src = '''
    @wp.kernel
    def k(a: wp.array(dtype=wp.int64), d: wp.array3d(dtype=wp.float64), u: wp.array4d(dtype=wp.uint64),
          c: wp.array(dtype=wp.int64), old_a: wp.array(dtype=wp.int64), old_d: wp.array(dtype=wp.float64),
          wins: wp.array(dtype=wp.int32)):
        i = wp.tid()
        big = wp.int64(1) << wp.int64(40)
        old_a[i] = wp.atomic_cas(a, i, big, big + wp.int64(i))
        old_d[i] = wp.atomic_cas(d, i // 4, (i // 2) % 2, i % 2, wp.float64(0.25), wp.float64(i) + wp.float64(0.5))
        wp.atomic_cas(u, i // 8, (i // 4) % 2, (i // 2) % 2, i % 2, wp.uint64(2), wp.uint64(18446744073709551615))
        o = wp.atomic_cas(c, 0, wp.int64(-3), big)
        wp.atomic_add(wins, 0, wp.where(o == wp.int64(-3), 1, 0))
    '''
    n = 16
    big = 1 << 40
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("a", "int64", rng.choice(np.array([big, 0, -big], np.int64), n)),
                      Arr("d", "float64", rng.choice(np.array([0.25, 0.75], np.float64), (4, 2, 2))),
                      Arr("u", "uint64", rng.integers(1, 4, (2, 2, 2, 2)).astype(np.uint64)),
                      Arr("c", "int64", np.array([-3], np.int64)),
                      Arr("old_a", "int64", fill(n, 0, np.int64)),
                      Arr("old_d", "float64", fill(n, 0.0, np.float64)),
                      Arr("wins", "int32", fill(1, 0, np.int32))],
                check=["a", "d", "u", "c", "old_a", "old_d", "wins"],
                note="64-bit compare-and-swap with 1-, 3- and 4-D indices (typed-unsupported on vulkan)")


@case("block_dim_lanes", tags=["launch", "block_dim"])
def block_dim_lanes(rng):
    src = '''
    @wp.kernel
    def k(out: wp.array(dtype=wp.int32), ok: wp.array(dtype=wp.int32)):
        i = wp.tid()
        b = wp.block_dim()
        # Block and lane rebuild the thread index whatever the block size.
        out[i] = (i // b) * b + i % b
        ok[i] = wp.where(b >= 1, 1, 0)
    '''
    n = 100
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("out", "int32", fill(n, -1, np.int32)),
                      Arr("ok", "int32", fill(n, 0, np.int32))],
                check=["out", "ok"],
                note="wp.block_dim() is 1 on Warp's CPU; the value is per device (docs/language.md)")
