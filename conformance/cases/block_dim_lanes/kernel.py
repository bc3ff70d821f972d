import warp as wp


@wp.kernel
def k(out: wp.array(dtype=wp.int32), ok: wp.array(dtype=wp.int32)):
    i = wp.tid()
    b = wp.block_dim()
    # Block and lane rebuild the thread index whatever the block size.
    out[i] = (i // b) * b + i % b
    ok[i] = wp.where(b >= 1, 1, 0)
