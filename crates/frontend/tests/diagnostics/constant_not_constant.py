import warp as wp


def load_scale():
    return 2.0


SCALE = wp.constant(load_scale())


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * SCALE
