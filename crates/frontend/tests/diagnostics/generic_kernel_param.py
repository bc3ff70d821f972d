import warp as wp
from typing import Any


@wp.kernel
def k(x: wp.array(dtype=float), s: Any):
    i = wp.tid()
    x[i] = s
