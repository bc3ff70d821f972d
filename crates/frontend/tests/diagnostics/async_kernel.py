import warp as wp


@wp.kernel
async def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 1.0
