import os

import warp as wp

USE_FAST = os.environ.get("FAST") == "1"

wp.set_module_options({"fast_math": USE_FAST, "max_unroll": 8})
wp.set_module_options({"fast_math": 1})


@wp.kernel
def scale(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.sin(a[i])
