import warp as wp


@wp.kernel
def k(o: wp.array(dtype=int)):
    o[0] = wp.block_dim(1)
