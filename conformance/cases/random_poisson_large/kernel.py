import warp as wp


@wp.kernel
def k(lam: wp.array(dtype=float), o: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    state = wp.rand_init(99, i)
    o[i * 3 + 0] = wp.poisson(state, lam[i])
    o[i * 3 + 1] = wp.poisson(state, lam[i] * 3.0)
    o[i * 3 + 2] = state
