import warp as wp
import numpy as np


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = np.median(x[i])
