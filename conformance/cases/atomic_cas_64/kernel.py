import warp as wp


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
