import warp as wp
import numpy as np

points = np.zeros(10)


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = points
