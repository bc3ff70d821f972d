import warp as wp


@wp.kernel
def k(x: wp.array(dtype=float), xd: wp.array(dtype=wp.float64), o: wp.array(dtype=float),
      od: wp.array(dtype=wp.float64), oh: wp.array(dtype=wp.float16)):
    i = wp.tid()
    o[i] = wp.erfcinv(x[i])
    od[i] = wp.erfcinv(xd[i])
    oh[i] = wp.erfcinv(wp.float16(x[i]))
