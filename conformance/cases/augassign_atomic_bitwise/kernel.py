import warp as wp


@wp.kernel
def k(f: wp.array(dtype=wp.uint32), g: wp.array(dtype=wp.int64), h: wp.array(dtype=wp.int32)):
    i = wp.tid()
    f[i % 4] |= wp.uint32(1) << wp.uint32(i % 32)
    g[i % 3] ^= wp.int64(1) << wp.int64(i % 61)
    h[i % 2] &= ~(1 << (i % 30))
