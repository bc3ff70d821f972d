import warp as wp


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
