import warp as wp


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
