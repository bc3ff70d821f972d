import warp as wp


wp.set_module_options({"deterministic": wp.DeterministicMode.RUN_TO_RUN, "max_unroll": 8, "default_grid_stride": None})

TWO_PI = wp.constant(wp.pi * 2.0)
HALF = wp.constant(wp.HALF_PI)


@wp.kernel
def k(o: wp.array(dtype=float), od: wp.array(dtype=wp.float64)):
    o[0] = wp.pi
    o[1] = wp.PI
    o[2] = wp.e
    o[3] = wp.E
    o[4] = wp.tau
    o[5] = wp.TAU
    o[6] = wp.half_pi
    o[7] = wp.HALF_PI
    o[8] = wp.inf
    o[9] = -wp.INF
    o[10] = wp.log2e
    o[11] = wp.LOG10E
    o[12] = wp.ln2
    o[13] = wp.LN10
    o[14] = wp.phi
    o[15] = wp.PHI
    o[16] = float(TWO_PI)
    o[17] = HALF
    o[18] = wp.sin(wp.pi / 6.0)
    o[19] = float(wp.isnan(wp.nan)) + float(wp.isnan(wp.NAN)) * 2.0
    o[20] = wp.pi * 2.0
    o[21] = wp.LOG2E + wp.log10e + wp.LN2 + wp.ln10
    od[0] = wp.float64(wp.pi)
    od[1] = wp.float64(wp.e)
    od[2] = wp.float64(3.0) * wp.float64(wp.pi)
    od[3] = wp.float64(TWO_PI)
