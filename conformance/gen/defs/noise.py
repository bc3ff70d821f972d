"""Perlin noise (noise.h): noise and pnoise in 1 to 4 dimensions, and
curlnoise in 2, 3 and 4 with its defaults and several octaves."""

import numpy as np

from caselib import Arr, case, fill


@case("noise_perlin", tags=["builtins", "random", "noise"])
def noise_perlin(rng):
    n = 32
    src = '''
    @wp.kernel
    def k(p: wp.array(dtype=wp.vec4), seed: wp.array(dtype=int), o: wp.array(dtype=float)):
        i = wp.tid()
        s = wp.rand_init(seed[i])
        x = p[i]
        o[i * 8 + 0] = wp.noise(s, x[0])
        o[i * 8 + 1] = wp.noise(s, wp.vec2(x[0], x[1]))
        o[i * 8 + 2] = wp.noise(s, wp.vec3(x[0], x[1], x[2]))
        o[i * 8 + 3] = wp.noise(s, x)
        o[i * 8 + 4] = wp.pnoise(s, x[0], 3)
        o[i * 8 + 5] = wp.pnoise(s, wp.vec2(x[0], x[1]), 2, 5)
        o[i * 8 + 6] = wp.pnoise(s, wp.vec3(x[0], x[1], x[2]), 4, 3, 2)
        o[i * 8 + 7] = wp.pnoise(s, x, 2, 3, 4, 5)
    '''
    p = rng.uniform(-6.0, 6.0, (n, 4)).astype(np.float32)
    p[0] = [0.0, 0.0, 0.0, 0.0]  # lattice points
    p[1] = [1.0, -2.0, 3.0, -4.0]
    p[2] = [0.5, 0.5, 0.5, 0.5]
    seed = rng.integers(0, 1 << 20, n).astype(np.int32)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("p", "vec4", p), Arr("seed", "int32", seed), Arr("o", "float32", fill(n * 8, -9.0))],
                check=["o"], rtol=1e-6, atol=1e-6,
                note="noise and pnoise (periods, negative cells) in 1-4 D; within 1e-6 (normalize's sqrt)")


@case("noise_curl", tags=["builtins", "random", "noise"])
def noise_curl(rng):
    n = 24
    src = '''
    @wp.kernel
    def k(p: wp.array(dtype=wp.vec4), o2: wp.array(dtype=wp.vec2), o3: wp.array(dtype=wp.vec3)):
        i = wp.tid()
        s = wp.rand_init(42, i)
        x = p[i]
        o2[i * 2 + 0] = wp.curlnoise(s, wp.vec2(x[0], x[1]))
        o2[i * 2 + 1] = wp.curlnoise(s, wp.vec2(x[0], x[1]), wp.uint32(3), 1.5, 0.7)
        o3[i * 4 + 0] = wp.curlnoise(s, wp.vec3(x[0], x[1], x[2]))
        o3[i * 4 + 1] = wp.curlnoise(s, wp.vec3(x[0], x[1], x[2]), wp.uint32(4))
        o3[i * 4 + 2] = wp.curlnoise(s, x)
        o3[i * 4 + 3] = wp.curlnoise(s, x, wp.uint32(2), 3.0)
    '''
    p = rng.uniform(-4.0, 4.0, (n, 4)).astype(np.float32)
    return dict(src=src, kernel="k", dim=[n],
                args=[Arr("p", "vec4", p), Arr("o2", "vec2", fill((n * 2, 2), -9.0)),
                      Arr("o3", "vec3", fill((n * 4, 3), -9.0))],
                check=["o2", "o3"], rtol=1e-5, atol=1e-5,
                note="curlnoise in 2-4 D with its defaults (1 octave, lacunarity 2, gain 0.5) and several octaves; within 1e-5")
