import warp as wp


@wp.kernel
def integrate(
    x: wp.array(dtype=wp.vec3),  # weft: layout=soa
    v: wp.array(dtype=wp.vec3),  # weft: layout=columns
    dt: float,  # weft: layout=soa
):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt
