import warp as wp


@wp.kernel
def k(lam: wp.array(dtype=float), cdf: wp.array(dtype=float), o: wp.array(dtype=wp.uint32), c: wp.array(dtype=int)):
    i = wp.tid()
    state = wp.rand_init(1234, i)
    o[i * 4 + 0] = wp.poisson(state, lam[i])
    o[i * 4 + 1] = wp.poisson(state, lam[i] * 0.5)
    o[i * 4 + 2] = wp.poisson(state, 0.0)
    o[i * 4 + 3] = state
    c[i * 2 + 0] = wp.sample_cdf(state, cdf)
    c[i * 2 + 1] = wp.sample_cdf(state, cdf)
