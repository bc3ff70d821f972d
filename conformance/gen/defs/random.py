"""wp.poisson (both of Warp's algorithms: lam < 10 and lam >= 10) and
wp.sample_cdf, with the state advanced in place."""

import numpy as np

from caselib import Arr, case, fill


@case("random_poisson_cdf", tags=["random", "poisson", "sample_cdf"])
def random_poisson_cdf(rng):
    n = 64
    src = '''
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
    '''
    lam = rng.uniform(0.0, 9.9, n).astype(np.float32)
    lam[0] = 0.0
    w = rng.uniform(0.1, 1.0, 12)
    cdf = (np.cumsum(w) / np.sum(w)).astype(np.float32)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("lam", "float32", lam), Arr("cdf", "float32", cdf),
                      Arr("o", "uint32", np.zeros(n * 4, np.uint32)), Arr("c", "int32", fill(n * 2, -1, np.int32))],
                check=["o", "c"], note="Poisson draws by multiplication (lam < 10); inverse-CDF sampling; exact")


@case("random_poisson_large", tags=["random", "poisson", "log"])
def random_poisson_large(rng):
    n = 64
    src = '''
    @wp.kernel
    def k(lam: wp.array(dtype=float), o: wp.array(dtype=wp.uint32)):
        i = wp.tid()
        state = wp.rand_init(99, i)
        o[i * 3 + 0] = wp.poisson(state, lam[i])
        o[i * 3 + 1] = wp.poisson(state, lam[i] * 3.0)
        o[i * 3 + 2] = state
    '''
    lam = rng.uniform(10.0, 200.0, n).astype(np.float32)
    lam[0] = 10.0
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("lam", "float32", lam), Arr("o", "uint32", np.zeros(n * 3, np.uint32))],
                check=["o"], note="Poisson draws by transformed rejection (lam >= 10): the accept test compares logs, so only a correctly rounded float32 log reproduces Warp's draws")
