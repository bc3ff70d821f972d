import warp as wp


@wp.kernel(module_options={"fast_math": True})
def scale(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.sin(a[i])
