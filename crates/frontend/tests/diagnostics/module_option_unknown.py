import warp as wp

wp.set_module_options({"enable_backward": False, "fast_maths": True})


@wp.kernel
def scale(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0
